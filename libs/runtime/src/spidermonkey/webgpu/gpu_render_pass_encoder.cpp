// GPURenderPassEncoder: the render commands, viewport/scissor/blend/stencil state, occlusion
// queries, bundles, end. https://www.w3.org/TR/webgpu/#gpurenderpassencoder
#include "spidermonkey/webgpu/gpu_render_commands.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPURenderPassEncoder, 0);

namespace {

// setViewport(x, y, width, height, minDepth, maxDepth): all required floats.
bool SetViewport(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPURenderPassEncoder, "GPURenderPassEncoder.setViewport");
  const char* names[] = {"x", "y", "width", "height", "minDepth", "maxDepth"};
  float values[6];
  for (unsigned i = 0; i < 6; ++i) {
    double d;
    std::string what = std::string("GPURenderPassEncoder.setViewport ") + names[i];
    if (args.length() <= i) return ThrowTypeError(cx, what + " is required");
    if (!ToFiniteDouble(cx, args.get(i), what, &d)) return false;
    values[i] = static_cast<float>(d);
  }
  wg::P().RenderPassEncoderSetViewport(self->pass.get(), values[0], values[1], values[2], values[3],
                                       values[4], values[5]);
  args.rval().setUndefined();
  return true;
}

bool SetScissorRect(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPURenderPassEncoder, "GPURenderPassEncoder.setScissorRect");
  const char* names[] = {"x", "y", "width", "height"};
  uint32_t values[4];
  for (unsigned i = 0; i < 4; ++i) {
    std::string what = std::string("GPURenderPassEncoder.setScissorRect ") + names[i];
    if (args.length() <= i) return ThrowTypeError(cx, what + " is required");
    if (!ToU32(cx, args.get(i), what, &values[i])) return false;
  }
  wg::P().RenderPassEncoderSetScissorRect(self->pass.get(), values[0], values[1], values[2],
                                          values[3]);
  args.rval().setUndefined();
  return true;
}

bool SetBlendConstant(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPURenderPassEncoder, "GPURenderPassEncoder.setBlendConstant");
  WGPUColor color{};
  if (!ToColor(cx, args.get(0), "GPURenderPassEncoder.setBlendConstant color", &color))
    return false;
  wg::P().RenderPassEncoderSetBlendConstant(self->pass.get(), &color);
  args.rval().setUndefined();
  return true;
}

bool SetStencilReference(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPURenderPassEncoder, "GPURenderPassEncoder.setStencilReference");
  uint32_t reference = 0;
  if (!ToU32(cx, args.get(0), "GPURenderPassEncoder.setStencilReference reference", &reference))
    return false;
  wg::P().RenderPassEncoderSetStencilReference(self->pass.get(), reference);
  args.rval().setUndefined();
  return true;
}

bool BeginOcclusionQuery(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPURenderPassEncoder, "GPURenderPassEncoder.beginOcclusionQuery");
  uint32_t index = 0;
  if (!ToU32(cx, args.get(0), "GPURenderPassEncoder.beginOcclusionQuery queryIndex", &index))
    return false;
  wg::P().RenderPassEncoderBeginOcclusionQuery(self->pass.get(), index);
  args.rval().setUndefined();
  return true;
}

bool EndOcclusionQuery(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPURenderPassEncoder, "GPURenderPassEncoder.endOcclusionQuery");
  wg::P().RenderPassEncoderEndOcclusionQuery(self->pass.get());
  args.rval().setUndefined();
  return true;
}

bool ExecuteBundles(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPURenderPassEncoder, "GPURenderPassEncoder.executeBundles");
  JS::RootedObject list(cx);
  uint32_t n = 0;
  if (!ArrayArg(cx, args.get(0), "GPURenderPassEncoder.executeBundles bundles", &list, &n))
    return false;
  std::vector<WGPURenderBundle> bundles(n);
  JS::RootedValue v(cx);
  for (uint32_t i = 0; i < n; ++i) {
    if (!JS_GetElement(cx, list, i, &v)) return false;
    auto* b = UnwrapValue<GPURenderBundle>(
        cx, v, "GPURenderPassEncoder.executeBundles bundles[" + std::to_string(i) + "]");
    if (!b) return false;
    bundles[i] = b->bundle.get();
  }
  wg::P().RenderPassEncoderExecuteBundles(self->pass.get(), bundles.size(), bundles.data());
  args.rval().setUndefined();
  return true;
}

bool End(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPURenderPassEncoder, "GPURenderPassEncoder.end");
  wg::P().RenderPassEncoderEnd(self->pass.get());
  args.rval().setUndefined();
  return true;
}

const JSFunctionSpec kMethods[] = {
    ALKNET_GPU_RENDER_COMMANDS(GPURenderPassEncoder),
    JS_FN("setViewport", SetViewport, 6, JSPROP_ENUMERATE),
    JS_FN("setScissorRect", SetScissorRect, 4, JSPROP_ENUMERATE),
    JS_FN("setBlendConstant", SetBlendConstant, 1, JSPROP_ENUMERATE),
    JS_FN("setStencilReference", SetStencilReference, 1, JSPROP_ENUMERATE),
    JS_FN("beginOcclusionQuery", BeginOcclusionQuery, 1, JSPROP_ENUMERATE),
    JS_FN("endOcclusionQuery", EndOcclusionQuery, 0, JSPROP_ENUMERATE),
    JS_FN("executeBundles", ExecuteBundles, 1, JSPROP_ENUMERATE),
    JS_FN("end", End, 0, JSPROP_ENUMERATE),
    JS_FS_END};

}  // namespace

bool DefineGPURenderPassEncoder(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPURenderPassEncoder::kClass, nullptr, kMethods});
}

}  // namespace alknet::runtime::sm::gpu
