// ShaderGenerator: op node in, shader program (or "unsupported" with the reason) out.
//
// The interface knows nothing about a shader language: WgslGenerator is the first
// implementation; GLSL or SPIR-V generators implement the same contract. A program names its
// operands by role (input i, output i), so the executor can bind buffers without knowing
// the language either.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "alknet/compute/error.h"
#include "alknet/compute/op.h"

namespace alknet::compute {

// What a generator may specialise on. Filled from the device's limits and features.
struct DeviceCaps {
  uint32_t max_workgroups_per_dimension = 65535;
  uint32_t max_invocations_per_workgroup = 256;
  uint32_t max_workgroup_size_x = 256;
  uint32_t max_workgroup_size_y = 256;
  uint32_t max_workgroup_size_z = 64;
  uint32_t max_workgroup_storage_bytes = 16384;
  uint64_t max_storage_binding_bytes = 128ull << 20;
  uint32_t subgroup_size = 0;  // 0: unknown
  bool shader_f16 = false;
  // Workgroup size for one-dimensional kernels (elementwise, reductions).
  uint32_t linear_workgroup_size = 256;
  // Elements each invocation of an elementwise kernel handles (strided by the grid, so
  // neighbouring invocations still touch neighbouring memory). 1 suits GPUs; CPU adapters
  // (lavapipe) amortise their per-invocation cost over several.
  uint32_t items_per_invocation = 1;
  // MatMul stages tiles in workgroup memory (GPUs) or reads operands straight from storage
  // (CPU adapters, where workgroup barriers are expensive and caches do the staging).
  bool shared_memory_tiles = true;
  // Which MatMul/Gemm kernel runs (docs/adr/0005-matmul-kernels.md): "auto" chooses from the
  // shape and the caps above; "rows", "dot", "tiled" or "big" force one kernel for every shape
  // (tests run each on any adapter). CapsOf reads ALKNET_MATMUL_VARIANT.
  std::string matmul_variant = "auto";
  // Which tiling Conv's GEMM runs (src/ops/conv.cpp, ChooseConvTiling): "auto" chooses from the
  // shape and the caps above; "tiled" and "tiled-small" force today's one-stage 64x64 and 32x32
  // blocks, "tile:BMxBNxBK:TMxTN" the two-stage parametric kernel, on any adapter (depthwise
  // convs keep their own kernel). CapsOf reads ALKNET_CONV_VARIANT.
  std::string conv_variant = "auto";
  // Whether auto may take the GPU tilings not yet measured on a GPU: split-K MatMul/Gemm
  // (alknet.MatMulPartial + alknet.MatMulSplitKSum) and Conv's parametric big tiles
  // (conv/conv_tiled). The rules are tested with it on (this default); CapsOf, which describes
  // a real adapter, turns it off unless ALKNET_GPU_TILINGS=new, until a GPU run shows they pay
  // (docs/benchmarks.md). Forced variants (ALKNET_MATMUL_VARIANT, ALKNET_CONV_VARIANT) run
  // either way.
  bool unmeasured_gpu_tilings = true;
};

enum class Access { kRead, kReadWrite };

struct ProgramBinding {
  // kParams: the program's uniform block (ShaderProgram::params), bound by the executor.
  enum class Role { kInput, kOutput, kScratch, kParams };
  Role role = Role::kInput;
  uint32_t index = 0;  // which input / output
  Access access = Access::kRead;
};

struct ShaderProgram {
  std::string language;  // "wgsl"
  std::string source;
  std::string entry_point = "main";
  std::string label;  // e.g. "Add:node_3"
  std::string template_name;
  std::vector<ProgramBinding> bindings;  // binding i of group 0 = bindings[i]
  std::array<uint32_t, 3> workgroup_size{1, 1, 1};
  std::array<uint32_t, 3> grid{1, 1, 1};  // workgroups to dispatch
  std::vector<TensorDesc> outputs;        // inferred output shapes and dtypes
  // Run-time parameters as 32-bit words (sizes, strides, scalars), bound as a uniform buffer
  // at the kParams binding. Programs that differ only here share one compiled pipeline.
  std::vector<uint32_t> params;
};

class ShaderGenerator {
 public:
  virtual ~ShaderGenerator() = default;
  virtual const char* language() const = 0;
  // kUnknownOp / kInvalidAttribute / kUnsupported / kShape errors carry the reason and name
  // the node; they are answered before any shader text is produced.
  virtual Result<ShaderProgram> Generate(const OpNode& node, const DeviceCaps& caps) const = 0;
};

}  // namespace alknet::compute
