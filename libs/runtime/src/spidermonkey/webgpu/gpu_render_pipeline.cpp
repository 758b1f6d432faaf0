// GPURenderPipeline: getBindGroupLayout. https://www.w3.org/TR/webgpu/#gpurenderpipeline
#include "spidermonkey/webgpu/gpu_common.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPURenderPipeline, 0);

namespace {

bool GetBindGroupLayout(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPURenderPipeline, "GPURenderPipeline.getBindGroupLayout");
  uint32_t index = 0;
  if (!ToU32(cx, args.get(0), "GPURenderPipeline.getBindGroupLayout index", &index)) return false;
  auto owner = std::make_unique<GPUBindGroupLayout>();
  owner->layout = wg::BindGroupLayout::Adopt(
      wg::P().RenderPipelineGetBindGroupLayout(self->pipeline.get(), index));
  JSObject* obj = WrapLabelled(cx, &GPUBindGroupLayout::kClass, std::move(owner), "");
  if (!obj) return false;
  args.rval().setObject(*obj);
  return true;
}

const JSFunctionSpec kMethods[] = {
    JS_FN("getBindGroupLayout", GetBindGroupLayout, 1, JSPROP_ENUMERATE), JS_FS_END};

}  // namespace

bool DefineGPURenderPipeline(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPURenderPipeline::kClass, nullptr, kMethods});
}

}  // namespace alknet::runtime::sm::gpu
