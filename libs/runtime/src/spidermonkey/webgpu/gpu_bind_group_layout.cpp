// GPUBindGroupLayout: an opaque handle with no methods of its own (labels are plain properties).
// https://www.w3.org/TR/webgpu/#gpubindgrouplayout
#include "spidermonkey/webgpu/gpu_common.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPUBindGroupLayout, 0);

bool DefineGPUBindGroupLayout(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPUBindGroupLayout::kClass, nullptr, nullptr});
}

}  // namespace alknet::runtime::sm::gpu
