// GPUCommandBuffer: an opaque handle with no methods of its own (labels are plain properties).
// https://www.w3.org/TR/webgpu/#gpucommandbuffer
#include "spidermonkey/webgpu/gpu_common.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPUCommandBuffer, 0);

bool DefineGPUCommandBuffer(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPUCommandBuffer::kClass, nullptr, nullptr});
}

}  // namespace alknet::runtime::sm::gpu
