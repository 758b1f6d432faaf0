// GPUBindGroup: an opaque handle with no methods of its own (labels are plain properties).
// https://www.w3.org/TR/webgpu/#gpubindgroup
#include "spidermonkey/webgpu/gpu_common.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPUBindGroup, 0);

bool DefineGPUBindGroup(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPUBindGroup::kClass, nullptr, nullptr});
}

}  // namespace alknet::runtime::sm::gpu
