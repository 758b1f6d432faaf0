// Whether elementwise, pool and Resize kernels read their extents, strides and float
// attributes from a uniform parameter block (ShaderProgram::params) instead of having them
// rendered into the source, so that one compiled pipeline serves every shape of a kind
// (docs/adr/0011-bounded-programs.md). CPU adapters do (each pipeline is an LLVM
// compile there); GPUs keep the shapes as constants. ALKNET_SHAPE_PARAMS=0 in the environment
// renders them everywhere (to measure the difference).
#pragma once

#include <cstdlib>
#include <string_view>

#include "alknet/compute/shader_generator.h"

namespace alknet::compute::ops {

inline bool ShapesInParams(const DeviceCaps& caps) {
  static const bool disabled = [] {
    const char* v = std::getenv("ALKNET_SHAPE_PARAMS");
    return v != nullptr && std::string_view(v) == "0";
  }();
  return !caps.shared_memory_tiles && !disabled;
}

}  // namespace alknet::compute::ops
