// One Context shared by a test binary (device creation costs ~100 ms on lavapipe).
#pragma once

#include <gtest/gtest.h>

#include "alknet/webgpu/context.h"

namespace alknet::webgpu::testing {

// WebGPU is unconditional in alknet: without a GPU, lavapipe must be there. So a missing
// adapter fails the test (with the reason) rather than skipping it.
inline Context& SharedContext() {
  static std::unique_ptr<Context> ctx = [] {
    auto created = Context::Create();
    if (!created) {
      ADD_FAILURE() << "no WebGPU context: " << created.error().ToString();
      std::abort();
    }
    std::printf("[ adapter  ] %s\n", (*created)->adapter().Summary().c_str());
    return std::move(created).value();
  }();
  return *ctx;
}

}  // namespace alknet::webgpu::testing
