// GPUSampler: sampling state, with no methods of its own (the label is a plain property).
// https://www.w3.org/TR/webgpu/#gpusampler
#include "spidermonkey/webgpu/gpu_common.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPUSampler, 0);

bool DefineGPUSampler(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPUSampler::kClass, nullptr, nullptr});
}

}  // namespace alknet::runtime::sm::gpu
