// GPUTexture: createView, destroy and the descriptor's properties.
// https://www.w3.org/TR/webgpu/#gputexture
#include "spidermonkey/webgpu/gpu_common.h"
#include "spidermonkey/webgpu/gpu_enums.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPUTexture, 0);

namespace {

// createView(descriptor): unset members stay "undefined" so Dawn derives them from the
// texture, as the spec's "resolving GPUTextureViewDescriptor defaults" does.
bool CreateView(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUTexture, "GPUTexture.createView");
  const char* what = "GPUTextureViewDescriptor";
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPUTexture.createView descriptor", &d)) return false;
  WGPUTextureViewDescriptor desc{};
  uint64_t usage = 0;
  if (!OptionalEnum(cx, d, "format", kTextureFormat, what, WGPUTextureFormat_Undefined,
                    &desc.format) ||
      !OptionalEnum(cx, d, "dimension", kTextureViewDimension, what, 0, &desc.dimension) ||
      !OptionalU64(cx, d, "usage", what, 0, &usage) ||
      !OptionalEnum(cx, d, "aspect", kTextureAspect, what, 1, &desc.aspect) ||
      !OptionalU32(cx, d, "baseMipLevel", what, 0, &desc.baseMipLevel) ||
      !OptionalU32(cx, d, "mipLevelCount", what, WGPU_MIP_LEVEL_COUNT_UNDEFINED,
                   &desc.mipLevelCount) ||
      !OptionalU32(cx, d, "baseArrayLayer", what, 0, &desc.baseArrayLayer) ||
      !OptionalU32(cx, d, "arrayLayerCount", what, WGPU_ARRAY_LAYER_COUNT_UNDEFINED,
                   &desc.arrayLayerCount)) {
    return false;
  }
  desc.usage = usage;
  std::string label = Label(cx, d);
  desc.label = wg::Sv(label);
  auto owner = std::make_unique<GPUTextureView>();
  owner->view = wg::TextureView::Adopt(wg::P().TextureCreateView(self->texture.get(), &desc));
  JSObject* obj = WrapLabelled(cx, &GPUTextureView::kClass, std::move(owner), label);
  if (!obj) return false;
  args.rval().setObject(*obj);
  return true;
}

bool Destroy(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUTexture, "GPUTexture.destroy");
  wg::P().TextureDestroy(self->texture.get());
  args.rval().setUndefined();
  return true;
}

#define ALKNET_TEXTURE_NUMBER(Getter, Proc)                                        \
  bool Getter(JSContext* cx, unsigned argc, JS::Value* vp) {                       \
    ALKNET_GPU_THIS(GPUTexture, "GPUTexture." #Getter);                            \
    args.rval().setNumber(static_cast<double>(wg::P().Proc(self->texture.get()))); \
    return true;                                                                   \
  }
ALKNET_TEXTURE_NUMBER(GetWidth, TextureGetWidth)
ALKNET_TEXTURE_NUMBER(GetHeight, TextureGetHeight)
ALKNET_TEXTURE_NUMBER(GetDepthOrArrayLayers, TextureGetDepthOrArrayLayers)
ALKNET_TEXTURE_NUMBER(GetMipLevelCount, TextureGetMipLevelCount)
ALKNET_TEXTURE_NUMBER(GetSampleCount, TextureGetSampleCount)
ALKNET_TEXTURE_NUMBER(GetUsage, TextureGetUsage)
#undef ALKNET_TEXTURE_NUMBER

bool ReturnName(JSContext* cx, JS::CallArgs& args, std::string_view name) {
  JSString* s = NewString(cx, name);
  if (!s) return false;
  args.rval().setString(s);
  return true;
}

bool GetDimension(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUTexture, "GPUTexture.dimension");
  return ReturnName(cx, args,
                    EnumName(kTextureDimension, wg::P().TextureGetDimension(self->texture.get())));
}

bool GetFormat(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUTexture, "GPUTexture.format");
  return ReturnName(cx, args,
                    EnumName(kTextureFormat, wg::P().TextureGetFormat(self->texture.get())));
}

const JSPropertySpec kProperties[] = {
    JS_PSG("width", GetWidth, JSPROP_ENUMERATE),
    JS_PSG("height", GetHeight, JSPROP_ENUMERATE),
    JS_PSG("depthOrArrayLayers", GetDepthOrArrayLayers, JSPROP_ENUMERATE),
    JS_PSG("mipLevelCount", GetMipLevelCount, JSPROP_ENUMERATE),
    JS_PSG("sampleCount", GetSampleCount, JSPROP_ENUMERATE),
    JS_PSG("dimension", GetDimension, JSPROP_ENUMERATE),
    JS_PSG("format", GetFormat, JSPROP_ENUMERATE),
    JS_PSG("usage", GetUsage, JSPROP_ENUMERATE),
    JS_PS_END};
const JSFunctionSpec kMethods[] = {JS_FN("createView", CreateView, 0, JSPROP_ENUMERATE),
                                   JS_FN("destroy", Destroy, 0, JSPROP_ENUMERATE), JS_FS_END};

}  // namespace

bool DefineGPUTexture(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPUTexture::kClass, kProperties, kMethods});
}

}  // namespace alknet::runtime::sm::gpu
