// GPURenderBundle: recorded render commands, with no methods of its own (the label is a plain
// property). https://www.w3.org/TR/webgpu/#gpurenderbundle
#include "spidermonkey/webgpu/gpu_common.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPURenderBundle, 0);

bool DefineGPURenderBundle(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPURenderBundle::kClass, nullptr, nullptr});
}

}  // namespace alknet::runtime::sm::gpu
