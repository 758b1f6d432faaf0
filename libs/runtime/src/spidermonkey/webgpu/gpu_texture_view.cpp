// GPUTextureView: a view of a texture's subresources, with no methods of its own (the label is a
// plain property). https://www.w3.org/TR/webgpu/#gputextureview
#include "spidermonkey/webgpu/gpu_common.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPUTextureView, 0);

bool DefineGPUTextureView(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPUTextureView::kClass, nullptr, nullptr});
}

}  // namespace alknet::runtime::sm::gpu
