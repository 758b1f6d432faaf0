// GPUCommandEncoder: compute passes, buffer copies, clearBuffer, finish.
// https://www.w3.org/TR/webgpu/#gpucommandencoder
#include "spidermonkey/webgpu/gpu_common.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPUCommandEncoder, 0);

namespace {

bool BeginComputePass(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUCommandEncoder, "GPUCommandEncoder.beginComputePass");
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPUCommandEncoder.beginComputePass descriptor", &d)) return false;
  std::string label = Label(cx, d);
  WGPUComputePassDescriptor desc{};
  desc.label = wg::Sv(label);
  auto owner = std::make_unique<GPUComputePassEncoder>();
  owner->pass = wg::ComputePassEncoder::Adopt(wg::P().CommandEncoderBeginComputePass(self->encoder.get(), &desc));
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
    if (!args.get(2).isUndefined() && !ToU64(cx, args.get(2), std::string(what) + " size", &size)) return false;
  } else {
    if (!ToU64(cx, args.get(1), std::string(what) + " sourceOffset", &src_offset)) return false;
    dst = UnwrapValue<GPUBuffer>(cx, args.get(2), std::string(what) + " destination");
    if (!dst || !ToU64(cx, args.get(3), std::string(what) + " destinationOffset", &dst_offset)) return false;
    size = src->size >= src_offset ? src->size - src_offset : 0;
    if (!args.get(4).isUndefined() && !ToU64(cx, args.get(4), std::string(what) + " size", &size)) return false;
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
  if (!args.get(1).isUndefined() && !ToU64(cx, args.get(1), "GPUCommandEncoder.clearBuffer offset", &offset)) return false;
  if (!args.get(2).isUndefined() && !ToU64(cx, args.get(2), "GPUCommandEncoder.clearBuffer size", &size)) return false;
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
  owner->buffer = wg::CommandBuffer::Adopt(wg::P().CommandEncoderFinish(self->encoder.get(), &desc));
  JSObject* obj = WrapLabelled(cx, &GPUCommandBuffer::kClass, std::move(owner), label);
  if (!obj) return false;
  args.rval().setObject(*obj);
  return true;
}

const JSFunctionSpec kMethods[] = {
    JS_FN("beginComputePass", BeginComputePass, 0, JSPROP_ENUMERATE),
    JS_FN("copyBufferToBuffer", CopyBufferToBuffer, 2, JSPROP_ENUMERATE),
    JS_FN("clearBuffer", ClearBuffer, 1, JSPROP_ENUMERATE),
    JS_FN("finish", Finish, 0, JSPROP_ENUMERATE),
    JS_FS_END};

}  // namespace

bool DefineGPUCommandEncoder(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPUCommandEncoder::kClass, nullptr, kMethods});
}

}  // namespace alknet::runtime::sm::gpu
