// GPUCommandEncoder: compute and render passes, buffer and texture copies, clearBuffer,
// resolveQuerySet, debug markers, finish. https://www.w3.org/TR/webgpu/#gpucommandencoder
#include <cmath>

#include "spidermonkey/webgpu/gpu_common.h"
#include "spidermonkey/webgpu/gpu_enums.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPUCommandEncoder, 0);

bool ToTexelCopyTexture(JSContext* cx, JS::HandleValue v, std::string_view what,
                        WGPUTexelCopyTextureInfo* out) {
  JS::RootedObject d(cx);
  if (!DictArg(cx, v, what, &d)) return false;
  auto* texture = RequiredObject<GPUTexture>(cx, d, "texture", what);
  if (!texture) return false;
  *out = WGPUTexelCopyTextureInfo{};
  out->texture = texture->texture.get();
  JS::RootedValue origin(cx);
  bool present;
  return OptionalU32(cx, d, "mipLevel", what, 0, &out->mipLevel) &&
         Member(cx, d, "origin", &origin, &present) &&
         ToOrigin3D(cx, origin, std::string(what) + ".origin", &out->origin) &&
         OptionalEnum(cx, d, "aspect", kTextureAspect, what, 1, &out->aspect);
}

bool ToTexelCopyBufferLayout(JSContext* cx, JS::HandleObject d, std::string_view what,
                             WGPUTexelCopyBufferLayout* out) {
  return OptionalU64(cx, d, "offset", what, 0, &out->offset) &&
         OptionalU32(cx, d, "bytesPerRow", what, WGPU_COPY_STRIDE_UNDEFINED, &out->bytesPerRow) &&
         OptionalU32(cx, d, "rowsPerImage", what, WGPU_COPY_STRIDE_UNDEFINED, &out->rowsPerImage);
}

bool ToTimestampWrites(JSContext* cx, JS::HandleObject pass_desc, std::string_view what,
                       WGPUPassTimestampWrites* out, bool* present) {
  JS::RootedValue v(cx);
  if (!Member(cx, pass_desc, "timestampWrites", &v, present)) return false;
  if (!*present) return true;
  std::string where = std::string(what) + ".timestampWrites";
  JS::RootedObject d(cx);
  if (!DictArg(cx, v, where, &d)) return false;
  auto* set = RequiredObject<GPUQuerySet>(cx, d, "querySet", where);
  if (!set) return false;
  *out = WGPUPassTimestampWrites{};
  out->querySet = set->set.get();
  return OptionalU32(cx, d, "beginningOfPassWriteIndex", where, WGPU_QUERY_SET_INDEX_UNDEFINED,
                     &out->beginningOfPassWriteIndex) &&
         OptionalU32(cx, d, "endOfPassWriteIndex", where, WGPU_QUERY_SET_INDEX_UNDEFINED,
                     &out->endOfPassWriteIndex);
}

namespace {

bool ToTexelCopyBuffer(JSContext* cx, JS::HandleValue v, std::string_view what,
                       WGPUTexelCopyBufferInfo* out) {
  JS::RootedObject d(cx);
  if (!DictArg(cx, v, what, &d)) return false;
  auto* buffer = RequiredObject<GPUBuffer>(cx, d, "buffer", what);
  if (!buffer) return false;
  out->buffer = buffer->buffer.get();
  return ToTexelCopyBufferLayout(cx, d, what, &out->layout);
}

// The three texture copies: (source, destination, copySize).
enum class CopyKind { kBufferToTexture, kTextureToBuffer, kTextureToTexture };

template <CopyKind kKind>
bool CopyTexture(JSContext* cx, unsigned argc, JS::Value* vp) {
  const char* what = kKind == CopyKind::kBufferToTexture ? "GPUCommandEncoder.copyBufferToTexture"
                     : kKind == CopyKind::kTextureToBuffer
                         ? "GPUCommandEncoder.copyTextureToBuffer"
                         : "GPUCommandEncoder.copyTextureToTexture";
  ALKNET_GPU_THIS(GPUCommandEncoder, what);
  if (args.length() < 3) return ThrowTypeError(cx, std::string(what) + ": 3 arguments required");
  WGPUExtent3D size{};
  if (!ToExtent3D(cx, args.get(2), std::string(what) + " copySize", &size)) return false;
  WGPUTexelCopyBufferInfo buffer{};
  WGPUTexelCopyTextureInfo texture{}, texture2{};
  std::string src = std::string(what) + " source", dst = std::string(what) + " destination";
  switch (kKind) {
    case CopyKind::kBufferToTexture:
      if (!ToTexelCopyBuffer(cx, args.get(0), src, &buffer) ||
          !ToTexelCopyTexture(cx, args.get(1), dst, &texture)) {
        return false;
      }
      wg::P().CommandEncoderCopyBufferToTexture(self->encoder.get(), &buffer, &texture, &size);
      break;
    case CopyKind::kTextureToBuffer:
      if (!ToTexelCopyTexture(cx, args.get(0), src, &texture) ||
          !ToTexelCopyBuffer(cx, args.get(1), dst, &buffer)) {
        return false;
      }
      wg::P().CommandEncoderCopyTextureToBuffer(self->encoder.get(), &texture, &buffer, &size);
      break;
    case CopyKind::kTextureToTexture:
      if (!ToTexelCopyTexture(cx, args.get(0), src, &texture) ||
          !ToTexelCopyTexture(cx, args.get(1), dst, &texture2)) {
        return false;
      }
      wg::P().CommandEncoderCopyTextureToTexture(self->encoder.get(), &texture, &texture2, &size);
      break;
  }
  args.rval().setUndefined();
  return true;
}

// An attachment's view: (GPUTexture or GPUTextureView); a texture stands for its default view,
// created here and kept in `keep` until the pass has been begun.
WGPUTextureView AttachmentView(JSContext* cx, JS::HandleValue v, const std::string& where,
                               std::vector<wg::TextureView>* keep) {
  if (v.isObject() && JS::GetClass(&v.toObject()) == &GPUTexture::kClass) {
    auto* texture = UnwrapValue<GPUTexture>(cx, v, where);
    if (!texture) return nullptr;
    keep->push_back(
        wg::TextureView::Adopt(wg::P().TextureCreateView(texture->texture.get(), nullptr)));
    return keep->back().get();
  }
  auto* view = UnwrapValue<GPUTextureView>(cx, v, where + " (a GPUTexture or GPUTextureView)");
  return view ? view->view.get() : nullptr;
}

bool RequiredAttachmentView(JSContext* cx, JS::HandleObject a, const std::string& where,
                            std::vector<wg::TextureView>* keep, WGPUTextureView* out) {
  JS::RootedValue e(cx);
  bool present;
  if (!Member(cx, a, "view", &e, &present)) return false;
  if (!present) return MissingMember(cx, where, "view");
  *out = AttachmentView(cx, e, where + ".view", keep);
  return *out != nullptr;
}

// beginRenderPass({colorAttachments, depthStencilAttachment, occlusionQuerySet,
// timestampWrites, maxDrawCount, label})
bool BeginRenderPass(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUCommandEncoder, "GPUCommandEncoder.beginRenderPass");
  const char* what = "GPURenderPassDescriptor";
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPUCommandEncoder.beginRenderPass descriptor", &d)) return false;
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, d, "colorAttachments", &v, &present)) return false;
  if (!present) return MissingMember(cx, what, "colorAttachments");
  JS::RootedObject list(cx);
  uint32_t n = 0;
  if (!ArrayArg(cx, v, std::string(what) + ".colorAttachments", &list, &n)) return false;
  std::vector<WGPURenderPassColorAttachment> colors(n);
  // Default views of textures given as attachments (no reallocation: pointers stay valid).
  std::vector<wg::TextureView> keep;
  keep.reserve(2 * static_cast<size_t>(n) + 1);
  for (uint32_t i = 0; i < n; ++i) {
    WGPURenderPassColorAttachment& c = colors[i];
    c.depthSlice = WGPU_DEPTH_SLICE_UNDEFINED;
    if (!JS_GetElement(cx, list, i, &v)) return false;
    if (v.isNullOrUndefined()) continue;  // sequence<GPURenderPassColorAttachment?>: a hole
    std::string where = std::string(what) + ".colorAttachments[" + std::to_string(i) + "]";
    JS::RootedObject a(cx);
    if (!DictArg(cx, v, where, &a)) return false;
    if (!RequiredAttachmentView(cx, a, where, &keep, &c.view)) return false;
    JS::RootedValue e(cx);
    if (!Member(cx, a, "resolveTarget", &e, &present)) return false;
    if (present) {
      c.resolveTarget = AttachmentView(cx, e, where + ".resolveTarget", &keep);
      if (!c.resolveTarget) return false;
    }
    if (!OptionalU32(cx, a, "depthSlice", where, WGPU_DEPTH_SLICE_UNDEFINED, &c.depthSlice))
      return false;
    if (!Member(cx, a, "loadOp", &e, &present)) return false;
    if (!present) return MissingMember(cx, where, "loadOp");
    if (!ToEnum(cx, e, kLoadOp, where + ".loadOp", &c.loadOp)) return false;
    if (!Member(cx, a, "storeOp", &e, &present)) return false;
    if (!present) return MissingMember(cx, where, "storeOp");
    if (!ToEnum(cx, e, kStoreOp, where + ".storeOp", &c.storeOp)) return false;
    if (!Member(cx, a, "clearValue", &e, &present)) return false;
    c.clearValue = WGPUColor{0, 0, 0, 0};
    if (present && !ToColor(cx, e, where + ".clearValue", &c.clearValue)) return false;
  }
  WGPURenderPassDepthStencilAttachment depth{};
  WGPURenderPassDescriptor desc{};
  if (!Member(cx, d, "depthStencilAttachment", &v, &present)) return false;
  if (present) {
    std::string where = std::string(what) + ".depthStencilAttachment";
    JS::RootedObject a(cx);
    if (!DictArg(cx, v, where, &a)) return false;
    if (!RequiredAttachmentView(cx, a, where, &keep, &depth.view)) return false;
    double clear = std::nan("");
    bool depth_read_only, stencil_read_only;
    JS::RootedValue e(cx);
    if (!Member(cx, a, "depthClearValue", &e, &present)) return false;
    if (present && !ToFiniteDouble(cx, e, where + ".depthClearValue", &clear)) return false;
    depth.depthClearValue = static_cast<float>(clear);
    if (!OptionalEnum(cx, a, "depthLoadOp", kLoadOp, where, 0, &depth.depthLoadOp) ||
        !OptionalEnum(cx, a, "depthStoreOp", kStoreOp, where, 0, &depth.depthStoreOp) ||
        !OptionalBool(cx, a, "depthReadOnly", false, &depth_read_only) ||
        !OptionalU32(cx, a, "stencilClearValue", where, 0, &depth.stencilClearValue) ||
        !OptionalEnum(cx, a, "stencilLoadOp", kLoadOp, where, 0, &depth.stencilLoadOp) ||
        !OptionalEnum(cx, a, "stencilStoreOp", kStoreOp, where, 0, &depth.stencilStoreOp) ||
        !OptionalBool(cx, a, "stencilReadOnly", false, &stencil_read_only)) {
      return false;
    }
    depth.depthReadOnly = depth_read_only;
    depth.stencilReadOnly = stencil_read_only;
    desc.depthStencilAttachment = &depth;
  }
  if (!Member(cx, d, "occlusionQuerySet", &v, &present)) return false;
  if (present) {
    auto* set = UnwrapValue<GPUQuerySet>(cx, v, std::string(what) + ".occlusionQuerySet");
    if (!set) return false;
    desc.occlusionQuerySet = set->set.get();
  }
  WGPUPassTimestampWrites timestamps{};
  if (!ToTimestampWrites(cx, d, what, &timestamps, &present)) return false;
  if (present) desc.timestampWrites = &timestamps;
  // maxDrawCount (default 50000000) reaches Dawn as a chained struct.
  WGPURenderPassMaxDrawCount max_draw{};
  max_draw.chain.sType = WGPUSType_RenderPassMaxDrawCount;
  if (!OptionalU64(cx, d, "maxDrawCount", what, 50000000, &max_draw.maxDrawCount)) return false;
  if (max_draw.maxDrawCount != 50000000) desc.nextInChain = &max_draw.chain;
  std::string label = Label(cx, d);
  desc.label = wg::Sv(label);
  desc.colorAttachmentCount = colors.size();
  desc.colorAttachments = colors.data();
  auto owner = std::make_unique<GPURenderPassEncoder>();
  owner->pass = wg::RenderPassEncoder::Adopt(
      wg::P().CommandEncoderBeginRenderPass(self->encoder.get(), &desc));
  JSObject* obj = WrapLabelled(cx, &GPURenderPassEncoder::kClass, std::move(owner), label);
  if (!obj) return false;
  args.rval().setObject(*obj);
  return true;
}

// resolveQuerySet(querySet, firstQuery, queryCount, destination, destinationOffset)
bool ResolveQuerySet(JSContext* cx, unsigned argc, JS::Value* vp) {
  const char* what = "GPUCommandEncoder.resolveQuerySet";
  ALKNET_GPU_THIS(GPUCommandEncoder, what);
  auto* set = UnwrapValue<GPUQuerySet>(cx, args.get(0), std::string(what) + " querySet");
  if (!set) return false;
  uint32_t first = 0, count = 0;
  uint64_t offset = 0;
  if (!ToU32(cx, args.get(1), std::string(what) + " firstQuery", &first) ||
      !ToU32(cx, args.get(2), std::string(what) + " queryCount", &count)) {
    return false;
  }
  auto* destination = UnwrapValue<GPUBuffer>(cx, args.get(3), std::string(what) + " destination");
  if (!destination || !ToU64(cx, args.get(4), std::string(what) + " destinationOffset", &offset))
    return false;
  wg::P().CommandEncoderResolveQuerySet(self->encoder.get(), set->set.get(), first, count,
                                        destination->buffer.get(), offset);
  args.rval().setUndefined();
  return true;
}

bool PushDebugGroup(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUCommandEncoder, "GPUCommandEncoder.pushDebugGroup");
  std::string label;
  if (!ValueToUtf8(cx, args.get(0), &label)) return false;
  wg::P().CommandEncoderPushDebugGroup(self->encoder.get(), wg::Sv(label));
  args.rval().setUndefined();
  return true;
}

bool PopDebugGroup(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUCommandEncoder, "GPUCommandEncoder.popDebugGroup");
  wg::P().CommandEncoderPopDebugGroup(self->encoder.get());
  args.rval().setUndefined();
  return true;
}

bool InsertDebugMarker(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUCommandEncoder, "GPUCommandEncoder.insertDebugMarker");
  std::string label;
  if (!ValueToUtf8(cx, args.get(0), &label)) return false;
  wg::P().CommandEncoderInsertDebugMarker(self->encoder.get(), wg::Sv(label));
  args.rval().setUndefined();
  return true;
}

bool BeginComputePass(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUCommandEncoder, "GPUCommandEncoder.beginComputePass");
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPUCommandEncoder.beginComputePass descriptor", &d)) return false;
  std::string label = Label(cx, d);
  WGPUComputePassDescriptor desc{};
  desc.label = wg::Sv(label);
  WGPUPassTimestampWrites timestamps{};
  bool has_timestamps;
  if (!ToTimestampWrites(cx, d, "GPUComputePassDescriptor", &timestamps, &has_timestamps))
    return false;
  if (has_timestamps) desc.timestampWrites = &timestamps;
  auto owner = std::make_unique<GPUComputePassEncoder>();
  owner->pass = wg::ComputePassEncoder::Adopt(
      wg::P().CommandEncoderBeginComputePass(self->encoder.get(), &desc));
  JSObject* obj = WrapLabelled(cx, &GPUComputePassEncoder::kClass, std::move(owner), label);
  if (!obj) return false;
  args.rval().setObject(*obj);
  return true;
}

// copyBufferToBuffer(source, sourceOffset, destination, destinationOffset, size), or the
// newer (source, destination[, size]) form.
bool CopyBufferToBuffer(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUCommandEncoder, "GPUCommandEncoder.copyBufferToBuffer");
  const char* what = "GPUCommandEncoder.copyBufferToBuffer";
  auto* src = UnwrapValue<GPUBuffer>(cx, args.get(0), std::string(what) + " source");
  if (!src) return false;
  uint64_t src_offset = 0, dst_offset = 0, size = 0;
  GPUBuffer* dst = nullptr;
  if (args.get(1).isObject()) {
    dst = UnwrapValue<GPUBuffer>(cx, args.get(1), std::string(what) + " destination");
    if (!dst) return false;
    size = src->size;
    if (!args.get(2).isUndefined() && !ToU64(cx, args.get(2), std::string(what) + " size", &size))
      return false;
  } else {
    if (!ToU64(cx, args.get(1), std::string(what) + " sourceOffset", &src_offset)) return false;
    dst = UnwrapValue<GPUBuffer>(cx, args.get(2), std::string(what) + " destination");
    if (!dst || !ToU64(cx, args.get(3), std::string(what) + " destinationOffset", &dst_offset))
      return false;
    size = src->size >= src_offset ? src->size - src_offset : 0;
    if (!args.get(4).isUndefined() && !ToU64(cx, args.get(4), std::string(what) + " size", &size))
      return false;
  }
  wg::P().CommandEncoderCopyBufferToBuffer(self->encoder.get(), src->buffer.get(), src_offset,
                                           dst->buffer.get(), dst_offset, size);
  args.rval().setUndefined();
  return true;
}

bool ClearBuffer(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUCommandEncoder, "GPUCommandEncoder.clearBuffer");
  auto* buffer = UnwrapValue<GPUBuffer>(cx, args.get(0), "GPUCommandEncoder.clearBuffer buffer");
  if (!buffer) return false;
  uint64_t offset = 0, size = WGPU_WHOLE_SIZE;
  if (!args.get(1).isUndefined() &&
      !ToU64(cx, args.get(1), "GPUCommandEncoder.clearBuffer offset", &offset))
    return false;
  if (!args.get(2).isUndefined() &&
      !ToU64(cx, args.get(2), "GPUCommandEncoder.clearBuffer size", &size))
    return false;
  wg::P().CommandEncoderClearBuffer(self->encoder.get(), buffer->buffer.get(), offset, size);
  args.rval().setUndefined();
  return true;
}

bool Finish(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUCommandEncoder, "GPUCommandEncoder.finish");
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPUCommandEncoder.finish descriptor", &d)) return false;
  std::string label = Label(cx, d);
  WGPUCommandBufferDescriptor desc{};
  desc.label = wg::Sv(label);
  auto owner = std::make_unique<GPUCommandBuffer>();
  owner->buffer =
      wg::CommandBuffer::Adopt(wg::P().CommandEncoderFinish(self->encoder.get(), &desc));
  JSObject* obj = WrapLabelled(cx, &GPUCommandBuffer::kClass, std::move(owner), label);
  if (!obj) return false;
  args.rval().setObject(*obj);
  return true;
}

const JSFunctionSpec kMethods[] = {
    JS_FN("beginComputePass", BeginComputePass, 0, JSPROP_ENUMERATE),
    JS_FN("beginRenderPass", BeginRenderPass, 1, JSPROP_ENUMERATE),
    JS_FN("copyBufferToTexture", CopyTexture<CopyKind::kBufferToTexture>, 3, JSPROP_ENUMERATE),
    JS_FN("copyTextureToBuffer", CopyTexture<CopyKind::kTextureToBuffer>, 3, JSPROP_ENUMERATE),
    JS_FN("copyTextureToTexture", CopyTexture<CopyKind::kTextureToTexture>, 3, JSPROP_ENUMERATE),
    JS_FN("resolveQuerySet", ResolveQuerySet, 5, JSPROP_ENUMERATE),
    JS_FN("pushDebugGroup", PushDebugGroup, 1, JSPROP_ENUMERATE),
    JS_FN("popDebugGroup", PopDebugGroup, 0, JSPROP_ENUMERATE),
    JS_FN("insertDebugMarker", InsertDebugMarker, 1, JSPROP_ENUMERATE),
    JS_FN("copyBufferToBuffer", CopyBufferToBuffer, 2, JSPROP_ENUMERATE),
    JS_FN("clearBuffer", ClearBuffer, 1, JSPROP_ENUMERATE),
    JS_FN("finish", Finish, 0, JSPROP_ENUMERATE),
    JS_FS_END};

}  // namespace

bool DefineGPUCommandEncoder(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPUCommandEncoder::kClass, nullptr, kMethods});
}

}  // namespace alknet::runtime::sm::gpu
