// GPUQueue: submit, writeBuffer, writeTexture, onSubmittedWorkDone.
// https://www.w3.org/TR/webgpu/#gpuqueue
#include <js/ScalarType.h>

#include "spidermonkey/webgpu/gpu_common.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPUQueue, 0);

namespace {

bool Submit(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUQueue, "GPUQueue.submit");
  JS::RootedObject list(cx);
  uint32_t n = 0;
  if (!ArrayArg(cx, args.get(0), "GPUQueue.submit commandBuffers", &list, &n)) return false;
  std::vector<WGPUCommandBuffer> buffers(n);
  JS::RootedValue v(cx);
  for (uint32_t i = 0; i < n; ++i) {
    if (!JS_GetElement(cx, list, i, &v)) return false;
    auto* cb = UnwrapValue<GPUCommandBuffer>(cx, v, "GPUQueue.submit[" + std::to_string(i) + "]");
    if (!cb) return false;
    buffers[i] = cb->buffer.get();
  }
  wg::P().QueueSubmit(self->queue.get(), buffers.size(), buffers.data());
  args.rval().setUndefined();
  return true;
}

// writeBuffer(buffer, bufferOffset, data, dataOffset = 0, size): dataOffset and size count
// elements for a TypedArray and bytes otherwise (spec).
bool WriteBuffer(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUQueue, "GPUQueue.writeBuffer");
  auto* buffer = UnwrapValue<GPUBuffer>(cx, args.get(0), "GPUQueue.writeBuffer buffer");
  if (!buffer) return false;
  uint64_t buffer_offset = 0, data_offset = 0, size = 0;
  if (!ToU64(cx, args.get(1), "GPUQueue.writeBuffer bufferOffset", &buffer_offset)) return false;
  size_t element = 1;
  if (args.get(2).isObject() && JS_IsArrayBufferViewObject(&args.get(2).toObject())) {
    // A DataView reports MaxTypedArrayViewType: it counts bytes.
    auto type = JS_GetArrayBufferViewType(&args.get(2).toObject());
    if (type != js::Scalar::MaxTypedArrayViewType) element = js::Scalar::byteSize(type);
  }
  if (!args.get(3).isUndefined() &&
      !ToU64(cx, args.get(3), "GPUQueue.writeBuffer dataOffset", &data_offset))
    return false;
  bool has_size = !args.get(4).isUndefined();
  if (has_size && !ToU64(cx, args.get(4), "GPUQueue.writeBuffer size", &size)) return false;
  std::vector<uint8_t> copy;
  {
    JS::AutoCheckCannotGC nogc;
    auto bytes = BytesOf(args.get(2), nogc);
    if (!bytes)
      return ThrowTypeError(cx,
                            "GPUQueue.writeBuffer: data must be an ArrayBuffer or ArrayBufferView");
    uint64_t count = bytes->size() / element;
    if (data_offset > count) {
      return ThrowError(cx, "GPUQueue.writeBuffer: dataOffset is beyond the data",
                        "OperationError");
    }
    if (!has_size) size = count - data_offset;
    if (data_offset + size > count) {
      return ThrowError(cx, "GPUQueue.writeBuffer: dataOffset + size is beyond the data",
                        "OperationError");
    }
    if ((size * element) % 4 != 0) {
      return ThrowError(cx, "GPUQueue.writeBuffer: the byte size must be a multiple of 4",
                        "OperationError");
    }
    // Dawn copies the data during the call; no GC can run before it returns.
    wg::P().QueueWriteBuffer(self->queue.get(), buffer->buffer.get(), buffer_offset,
                             bytes->data() + data_offset * element, size * element);
  }
  args.rval().setUndefined();
  return true;
}

// writeTexture(destination, data, dataLayout, size): dataLayout.offset counts bytes of `data`
// whatever its view type (spec).
bool WriteTexture(JSContext* cx, unsigned argc, JS::Value* vp) {
  const char* what = "GPUQueue.writeTexture";
  ALKNET_GPU_THIS(GPUQueue, what);
  if (args.length() < 4) return ThrowTypeError(cx, std::string(what) + ": 4 arguments required");
  WGPUTexelCopyTextureInfo destination{};
  WGPUTexelCopyBufferLayout layout{};
  WGPUExtent3D size{};
  JS::RootedObject layout_dict(cx);
  if (!ToTexelCopyTexture(cx, args.get(0), std::string(what) + " destination", &destination) ||
      !DictArg(cx, args.get(2), std::string(what) + " dataLayout", &layout_dict) ||
      !ToTexelCopyBufferLayout(cx, layout_dict, std::string(what) + " dataLayout", &layout) ||
      !ToExtent3D(cx, args.get(3), std::string(what) + " size", &size)) {
    return false;
  }
  JS::AutoCheckCannotGC nogc;
  auto bytes = BytesOf(args.get(1), nogc);
  if (!bytes)
    return ThrowTypeError(cx,
                          std::string(what) + ": data must be an ArrayBuffer or ArrayBufferView");
  // Dawn copies the data during the call; no GC can run before it returns.
  wg::P().QueueWriteTexture(self->queue.get(), &destination, bytes->data(), bytes->size(), &layout,
                            &size);
  args.rval().setUndefined();
  return true;
}

void OnWorkDone(WGPUQueueWorkDoneStatus status, WGPUStringView message, void* ud, void*) {
  std::unique_ptr<PendingPromise> req(static_cast<PendingPromise*>(ud));
  if (State(req->cx).closing) return;
  if (status == WGPUQueueWorkDoneStatus_Success) {
    req->Resolve(JS::UndefinedHandleValue);
  } else {
    req->RejectWith("OperationError", "onSubmittedWorkDone: " + std::string(wg::FromSv(message)));
  }
}

bool OnSubmittedWorkDone(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUQueue, "GPUQueue.onSubmittedWorkDone");
  auto req = std::make_unique<PendingPromise>(cx);
  args.rval().setObject(*req->promise);
  WGPUQueueWorkDoneCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = &OnWorkDone;
  cb.userdata1 = req.release();
  wg::P().QueueOnSubmittedWorkDone(self->queue.get(), cb);
  return true;
}

const JSFunctionSpec kMethods[] = {
    JS_FN("submit", Submit, 1, JSPROP_ENUMERATE),
    JS_FN("writeBuffer", WriteBuffer, 3, JSPROP_ENUMERATE),
    JS_FN("writeTexture", WriteTexture, 4, JSPROP_ENUMERATE),
    JS_FN("onSubmittedWorkDone", OnSubmittedWorkDone, 0, JSPROP_ENUMERATE), JS_FS_END};

}  // namespace

bool DefineGPUQueue(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPUQueue::kClass, nullptr, kMethods});
}

}  // namespace alknet::runtime::sm::gpu
