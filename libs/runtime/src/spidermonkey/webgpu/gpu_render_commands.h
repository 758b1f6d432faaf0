// GPURenderCommandsMixin and GPUBindingCommandsMixin, shared by GPURenderPassEncoder and
// GPURenderBundleEncoder (https://www.w3.org/TR/webgpu/#gpurendercommandsmixin). Each
// command is a template over the encoder's C++ class; Procs<T> names its webgpu.h calls.
#pragma once

#include "spidermonkey/webgpu/gpu_common.h"
#include "spidermonkey/webgpu/gpu_enums.h"

namespace alknet::runtime::sm::gpu::render_commands {

template <typename T>
struct Procs;

template <>
struct Procs<GPURenderPassEncoder> {
  static WGPURenderPassEncoder Raw(GPURenderPassEncoder* e) { return e->pass.get(); }
  static auto SetPipelineP() { return wg::P().RenderPassEncoderSetPipeline; }
  static auto SetBindGroupP() { return wg::P().RenderPassEncoderSetBindGroup; }
  static auto SetVertexBufferP() { return wg::P().RenderPassEncoderSetVertexBuffer; }
  static auto SetIndexBufferP() { return wg::P().RenderPassEncoderSetIndexBuffer; }
  static auto DrawP() { return wg::P().RenderPassEncoderDraw; }
  static auto DrawIndexedP() { return wg::P().RenderPassEncoderDrawIndexed; }
  static auto DrawIndirectP() { return wg::P().RenderPassEncoderDrawIndirect; }
  static auto DrawIndexedIndirectP() { return wg::P().RenderPassEncoderDrawIndexedIndirect; }
  static auto PushDebugGroupP() { return wg::P().RenderPassEncoderPushDebugGroup; }
  static auto PopDebugGroupP() { return wg::P().RenderPassEncoderPopDebugGroup; }
  static auto InsertDebugMarkerP() { return wg::P().RenderPassEncoderInsertDebugMarker; }
};

template <>
struct Procs<GPURenderBundleEncoder> {
  static WGPURenderBundleEncoder Raw(GPURenderBundleEncoder* e) { return e->encoder.get(); }
  static auto SetPipelineP() { return wg::P().RenderBundleEncoderSetPipeline; }
  static auto SetBindGroupP() { return wg::P().RenderBundleEncoderSetBindGroup; }
  static auto SetVertexBufferP() { return wg::P().RenderBundleEncoderSetVertexBuffer; }
  static auto SetIndexBufferP() { return wg::P().RenderBundleEncoderSetIndexBuffer; }
  static auto DrawP() { return wg::P().RenderBundleEncoderDraw; }
  static auto DrawIndexedP() { return wg::P().RenderBundleEncoderDrawIndexed; }
  static auto DrawIndirectP() { return wg::P().RenderBundleEncoderDrawIndirect; }
  static auto DrawIndexedIndirectP() { return wg::P().RenderBundleEncoderDrawIndexedIndirect; }
  static auto PushDebugGroupP() { return wg::P().RenderBundleEncoderPushDebugGroup; }
  static auto PopDebugGroupP() { return wg::P().RenderBundleEncoderPopDebugGroup; }
  static auto InsertDebugMarkerP() { return wg::P().RenderBundleEncoderInsertDebugMarker; }
};

// GPUComputePassEncoder shares only the debug commands.
template <>
struct Procs<GPUComputePassEncoder> {
  static WGPUComputePassEncoder Raw(GPUComputePassEncoder* e) { return e->pass.get(); }
  static auto PushDebugGroupP() { return wg::P().ComputePassEncoderPushDebugGroup; }
  static auto PopDebugGroupP() { return wg::P().ComputePassEncoderPopDebugGroup; }
  static auto InsertDebugMarkerP() { return wg::P().ComputePassEncoderInsertDebugMarker; }
};

// "GPURenderPassEncoder.draw" and the like, for messages.
template <typename T>
std::string Where(const char* method) {
  return std::string(T::kClass.name) + "." + method;
}

template <typename T>
bool SetPipeline(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(T, Where<T>("setPipeline"));
  auto* pipeline =
      UnwrapValue<GPURenderPipeline>(cx, args.get(0), Where<T>("setPipeline") + " pipeline");
  if (!pipeline) return false;
  Procs<T>::SetPipelineP()(Procs<T>::Raw(self), pipeline->pipeline.get());
  args.rval().setUndefined();
  return true;
}

// setBindGroup(index, bindGroup, dynamicOffsets = []) and the
// (index, bindGroup, Uint32Array, dataStart, dataLength) form.
template <typename T>
bool SetBindGroup(JSContext* cx, unsigned argc, JS::Value* vp) {
  std::string what = Where<T>("setBindGroup");
  ALKNET_GPU_THIS(T, what);
  uint32_t index = 0;
  if (!ToU32(cx, args.get(0), what + " index", &index)) return false;
  WGPUBindGroup group = nullptr;
  if (!args.get(1).isNull()) {
    auto* g = UnwrapValue<GPUBindGroup>(cx, args.get(1), what + " bindGroup");
    if (!g) return false;
    group = g->group.get();
  }
  std::vector<uint32_t> offsets;
  if (!ReadDynamicOffsets(cx, args, 2, what, &offsets)) return false;
  Procs<T>::SetBindGroupP()(Procs<T>::Raw(self), index, group, offsets.size(), offsets.data());
  args.rval().setUndefined();
  return true;
}

// setVertexBuffer(slot, buffer, offset = 0, size = rest of the buffer)
template <typename T>
bool SetVertexBuffer(JSContext* cx, unsigned argc, JS::Value* vp) {
  std::string what = Where<T>("setVertexBuffer");
  ALKNET_GPU_THIS(T, what);
  uint32_t slot = 0;
  uint64_t offset = 0, size = WGPU_WHOLE_SIZE;
  if (!ToU32(cx, args.get(0), what + " slot", &slot)) return false;
  WGPUBuffer buffer = nullptr;
  if (!args.get(1).isNull()) {
    auto* b = UnwrapValue<GPUBuffer>(cx, args.get(1), what + " buffer");
    if (!b) return false;
    buffer = b->buffer.get();
  }
  if (!args.get(2).isUndefined() && !ToU64(cx, args.get(2), what + " offset", &offset))
    return false;
  if (!args.get(3).isUndefined() && !ToU64(cx, args.get(3), what + " size", &size)) return false;
  Procs<T>::SetVertexBufferP()(Procs<T>::Raw(self), slot, buffer, offset, size);
  args.rval().setUndefined();
  return true;
}

// setIndexBuffer(buffer, indexFormat, offset = 0, size = rest of the buffer)
template <typename T>
bool SetIndexBuffer(JSContext* cx, unsigned argc, JS::Value* vp) {
  std::string what = Where<T>("setIndexBuffer");
  ALKNET_GPU_THIS(T, what);
  auto* b = UnwrapValue<GPUBuffer>(cx, args.get(0), what + " buffer");
  if (!b) return false;
  uint32_t format = 0;
  uint64_t offset = 0, size = WGPU_WHOLE_SIZE;
  if (!ToEnum(cx, args.get(1), kIndexFormat, what + " indexFormat", &format)) return false;
  if (!args.get(2).isUndefined() && !ToU64(cx, args.get(2), what + " offset", &offset))
    return false;
  if (!args.get(3).isUndefined() && !ToU64(cx, args.get(3), what + " size", &size)) return false;
  Procs<T>::SetIndexBufferP()(Procs<T>::Raw(self), b->buffer.get(), format, offset, size);
  args.rval().setUndefined();
  return true;
}

// Reads args[i] as a [EnforceRange] GPUSize32 when present, else `fallback`.
inline bool ArgU32(JSContext* cx, const JS::CallArgs& args, unsigned i, const std::string& what,
                   uint32_t fallback, uint32_t* out) {
  if (args.get(i).isUndefined()) {
    *out = fallback;
    return true;
  }
  return ToU32(cx, args.get(i), what, out);
}

// draw(vertexCount, instanceCount = 1, firstVertex = 0, firstInstance = 0)
template <typename T>
bool Draw(JSContext* cx, unsigned argc, JS::Value* vp) {
  std::string what = Where<T>("draw");
  ALKNET_GPU_THIS(T, what);
  if (args.length() < 1) return ThrowTypeError(cx, what + ": vertexCount is required");
  uint32_t vertex_count, instance_count, first_vertex, first_instance;
  if (!ToU32(cx, args.get(0), what + " vertexCount", &vertex_count) ||
      !ArgU32(cx, args, 1, what + " instanceCount", 1, &instance_count) ||
      !ArgU32(cx, args, 2, what + " firstVertex", 0, &first_vertex) ||
      !ArgU32(cx, args, 3, what + " firstInstance", 0, &first_instance)) {
    return false;
  }
  Procs<T>::DrawP()(Procs<T>::Raw(self), vertex_count, instance_count, first_vertex,
                    first_instance);
  args.rval().setUndefined();
  return true;
}

// drawIndexed(indexCount, instanceCount = 1, firstIndex = 0, baseVertex = 0, firstInstance = 0)
template <typename T>
bool DrawIndexed(JSContext* cx, unsigned argc, JS::Value* vp) {
  std::string what = Where<T>("drawIndexed");
  ALKNET_GPU_THIS(T, what);
  if (args.length() < 1) return ThrowTypeError(cx, what + ": indexCount is required");
  uint32_t index_count, instance_count, first_index, first_instance;
  int32_t base_vertex = 0;
  if (!ToU32(cx, args.get(0), what + " indexCount", &index_count) ||
      !ArgU32(cx, args, 1, what + " instanceCount", 1, &instance_count) ||
      !ArgU32(cx, args, 2, what + " firstIndex", 0, &first_index) ||
      !ArgU32(cx, args, 4, what + " firstInstance", 0, &first_instance)) {
    return false;
  }
  if (!args.get(3).isUndefined() && !ToI32(cx, args.get(3), what + " baseVertex", &base_vertex))
    return false;
  Procs<T>::DrawIndexedP()(Procs<T>::Raw(self), index_count, instance_count, first_index,
                           base_vertex, first_instance);
  args.rval().setUndefined();
  return true;
}

template <typename T, bool kIndexed>
bool DrawIndirect(JSContext* cx, unsigned argc, JS::Value* vp) {
  std::string what = Where<T>(kIndexed ? "drawIndexedIndirect" : "drawIndirect");
  ALKNET_GPU_THIS(T, what);
  auto* b = UnwrapValue<GPUBuffer>(cx, args.get(0), what + " indirectBuffer");
  uint64_t offset = 0;
  if (!b || !ToU64(cx, args.get(1), what + " indirectOffset", &offset)) return false;
  if (kIndexed)
    Procs<T>::DrawIndexedIndirectP()(Procs<T>::Raw(self), b->buffer.get(), offset);
  else
    Procs<T>::DrawIndirectP()(Procs<T>::Raw(self), b->buffer.get(), offset);
  args.rval().setUndefined();
  return true;
}

// GPUDebugCommandsMixin: pushDebugGroup(groupLabel), popDebugGroup(), insertDebugMarker(label)
// (USVString arguments; unbalanced groups are validation errors from Dawn).
template <typename T>
bool PushDebugGroup(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(T, Where<T>("pushDebugGroup"));
  if (args.length() < 1)
    return ThrowTypeError(cx, Where<T>("pushDebugGroup") + ": 1 argument required");
  std::string label;
  if (!ValueToUtf8(cx, args.get(0), &label)) return false;
  Procs<T>::PushDebugGroupP()(Procs<T>::Raw(self), wg::Sv(label));
  args.rval().setUndefined();
  return true;
}

template <typename T>
bool PopDebugGroup(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(T, Where<T>("popDebugGroup"));
  Procs<T>::PopDebugGroupP()(Procs<T>::Raw(self));
  args.rval().setUndefined();
  return true;
}

template <typename T>
bool InsertDebugMarker(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(T, Where<T>("insertDebugMarker"));
  if (args.length() < 1)
    return ThrowTypeError(cx, Where<T>("insertDebugMarker") + ": 1 argument required");
  std::string label;
  if (!ValueToUtf8(cx, args.get(0), &label)) return false;
  Procs<T>::InsertDebugMarkerP()(Procs<T>::Raw(self), wg::Sv(label));
  args.rval().setUndefined();
  return true;
}

#define ALKNET_GPU_DEBUG_COMMANDS(T)                                                  \
  JS_FN("pushDebugGroup", render_commands::PushDebugGroup<T>, 1, JSPROP_ENUMERATE),   \
      JS_FN("popDebugGroup", render_commands::PopDebugGroup<T>, 0, JSPROP_ENUMERATE), \
      JS_FN("insertDebugMarker", render_commands::InsertDebugMarker<T>, 1, JSPROP_ENUMERATE)

#define ALKNET_GPU_RENDER_COMMANDS(T)                                                              \
  JS_FN("setPipeline", render_commands::SetPipeline<T>, 1, JSPROP_ENUMERATE),                      \
      JS_FN("setBindGroup", render_commands::SetBindGroup<T>, 2, JSPROP_ENUMERATE),                \
      JS_FN("setVertexBuffer", render_commands::SetVertexBuffer<T>, 2, JSPROP_ENUMERATE),          \
      JS_FN("setIndexBuffer", render_commands::SetIndexBuffer<T>, 2, JSPROP_ENUMERATE),            \
      JS_FN("draw", render_commands::Draw<T>, 1, JSPROP_ENUMERATE),                                \
      JS_FN("drawIndexed", render_commands::DrawIndexed<T>, 1, JSPROP_ENUMERATE),                  \
      JS_FN("drawIndirect", (render_commands::DrawIndirect<T, false>), 2, JSPROP_ENUMERATE),       \
      JS_FN("drawIndexedIndirect", (render_commands::DrawIndirect<T, true>), 2, JSPROP_ENUMERATE), \
      ALKNET_GPU_DEBUG_COMMANDS(T)

}  // namespace alknet::runtime::sm::gpu::render_commands
