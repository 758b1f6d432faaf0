// GPUPipelineLayout: an opaque handle with no methods of its own (labels are plain properties).
// https://www.w3.org/TR/webgpu/#gpupipelinelayout
#include "spidermonkey/webgpu/gpu_common.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPUPipelineLayout, 0);

bool DefineGPUPipelineLayout(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPUPipelineLayout::kClass, nullptr, nullptr});
}

}  // namespace alknet::runtime::sm::gpu
