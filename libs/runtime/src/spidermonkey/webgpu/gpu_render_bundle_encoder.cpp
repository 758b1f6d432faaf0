// GPURenderBundleEncoder: the render commands recorded once, replayed by executeBundles.
// https://www.w3.org/TR/webgpu/#gpurenderbundleencoder
#include "spidermonkey/webgpu/gpu_render_commands.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPURenderBundleEncoder, 0);

namespace {

bool Finish(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPURenderBundleEncoder, "GPURenderBundleEncoder.finish");
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPURenderBundleEncoder.finish descriptor", &d)) return false;
  std::string label = Label(cx, d);
  WGPURenderBundleDescriptor desc{};
  desc.label = wg::Sv(label);
  auto owner = std::make_unique<GPURenderBundle>();
  owner->bundle =
      wg::RenderBundle::Adopt(wg::P().RenderBundleEncoderFinish(self->encoder.get(), &desc));
  JSObject* obj = WrapLabelled(cx, &GPURenderBundle::kClass, std::move(owner), label);
  if (!obj) return false;
  args.rval().setObject(*obj);
  return true;
}

const JSFunctionSpec kMethods[] = {ALKNET_GPU_RENDER_COMMANDS(GPURenderBundleEncoder),
                                   JS_FN("finish", Finish, 0, JSPROP_ENUMERATE), JS_FS_END};

}  // namespace

bool DefineGPURenderBundleEncoder(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPURenderBundleEncoder::kClass, nullptr, kMethods});
}

}  // namespace alknet::runtime::sm::gpu
