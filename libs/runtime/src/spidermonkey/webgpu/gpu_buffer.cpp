// GPUBuffer: mapAsync, getMappedRange, unmap, destroy. https://www.w3.org/TR/webgpu/#gpubuffer
#include "spidermonkey/webgpu/gpu_common.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPUBuffer, 0);

// gpu_device.cpp: a validation error on the device's current error scope or uncaptured.
void InjectValidationError(DeviceShared& device, const std::string& message);

namespace {
// The [offset, offset + size) spans getMappedRange has handed out since the buffer was mapped
// (the spec's [[mapped_ranges]]): a new range must be disjoint from each. JS thread only.
std::unordered_map<const GPUBuffer*, std::vector<std::pair<uint64_t, uint64_t>>>& MappedSpans() {
  static auto* spans =
      new std::unordered_map<const GPUBuffer*, std::vector<std::pair<uint64_t, uint64_t>>>();
  return *spans;
}
}  // namespace

GPUBuffer::~GPUBuffer() {
  if (device) UntrackMappedBuffer(*device, this);
  MappedSpans().erase(this);
}

bool DetachRanges(JSContext* cx, GPUBuffer* self) {
  for (auto& range : self->ranges) {
    JS::RootedObject ab(cx, range->get());
    if (!JS::DetachArrayBuffer(cx, ab)) return false;
  }
  self->ranges.clear();
  MappedSpans().erase(self);
  if (self->device) UntrackMappedBuffer(*self->device, self);
  self->map_size = 0;
  self->map_offset = 0;
  self->mapped = false;
  self->mapped_at_creation = false;
  // A pending mapAsync is aborted (its promise rejects with AbortError when Dawn reports).
  self->map_pending = false;
  ++self->map_generation;
  return true;
}

namespace {

struct MapRequest : PendingPromise {
  MapRequest(JSContext* cx, JSObject* buffer) : PendingPromise(cx), buffer_object(cx, buffer) {}
  JS::PersistentRootedObject buffer_object;  // keeps the GPUBuffer alive until the callback
  uint64_t offset = 0, size = 0;
  uint64_t generation = 0;
  bool write = false;
};

void OnMapped(WGPUMapAsyncStatus status, WGPUStringView message, void* ud, void*) {
  std::unique_ptr<MapRequest> req(static_cast<MapRequest*>(ud));
  if (State(req->cx).closing) return;
  auto* self = JS::GetMaybePtrFromReservedSlot<GPUBuffer>(req->buffer_object, kOwnerSlot);
  bool current = self->map_generation == req->generation;
  if (current) self->map_pending = false;
  if (!current) {
    // unmap() or destroy() came first: the spec rejects this mapping with AbortError.
    req->RejectWith("AbortError", "mapAsync was aborted (unmap or destroy before it finished)");
  } else if (status == WGPUMapAsyncStatus_Success) {
    self->mapped = true;
    self->map_offset = req->offset;
    self->map_size = req->size;
    self->writable_mapping = req->write;
    req->Resolve(JS::UndefinedHandleValue);
  } else if (status == WGPUMapAsyncStatus_Aborted) {
    req->RejectWith("AbortError", "mapAsync was aborted (unmap or destroy before it finished)");
  } else {
    req->RejectWith("OperationError", "mapAsync failed: " + std::string(wg::FromSv(message)));
  }
}

// mapAsync(mode, offset = 0, size = rest)
bool MapAsync(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUBuffer, "GPUBuffer.mapAsync");
  uint64_t mode = 0, offset = 0, size = 0;
  if (!ToU64(cx, args.get(0), "GPUBuffer.mapAsync mode", &mode)) return false;
  if (!args.get(1).isUndefined() && !ToU64(cx, args.get(1), "GPUBuffer.mapAsync offset", &offset))
    return false;
  size = offset <= self->size ? self->size - offset : 0;
  if (!args.get(2).isUndefined() && !ToU64(cx, args.get(2), "GPUBuffer.mapAsync size", &size))
    return false;
  auto req = std::make_unique<MapRequest>(cx, &args.thisv().toObject());
  args.rval().setObject(*req->promise);
  if (self->map_pending || self->mapped) {
    // Spec (mapAsync, content timeline): a buffer whose mapState is not "unmapped" gets a
    // validation error on the device timeline and a promise already rejected with
    // OperationError; the mapping in place or pending is left as it is.
    std::string message = self->map_pending ? "GPUBuffer.mapAsync: a mapAsync is already pending"
                                            : "GPUBuffer.mapAsync: the buffer is already mapped";
    if (self->device) InjectValidationError(*self->device, message);
    req->RejectWith("OperationError", message);
    return true;
  }
  // Anything else (a bad range or mode, a destroyed buffer) is for Dawn to validate: a
  // validation error, then the promise rejects; mapState is "pending" meanwhile.
  req->offset = offset;
  req->size = size;
  req->generation = self->map_generation;
  req->write = (mode & WGPUMapMode_Write) != 0;
  self->map_pending = true;
  WGPUBufferMapCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = &OnMapped;
  cb.userdata1 = req.release();
  // Range errors are validation errors: Dawn reports them and fails the callback.
  wg::P().BufferMapAsync(self->buffer.get(), mode, static_cast<size_t>(offset),
                         static_cast<size_t>(size), cb);
  return true;
}

// getMappedRange(offset = 0, size = rest of the buffer): an ArrayBuffer over the mapping,
// detached again by unmap().
bool GetMappedRange(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUBuffer, "GPUBuffer.getMappedRange");
  if (!self->mapped) {
    return ThrowError(cx, "GPUBuffer.getMappedRange: the buffer is not mapped", "OperationError");
  }
  // Spec defaults: offset 0, size = the rest of the *buffer* (not of the mapping).
  uint64_t offset = 0, size = 0;
  if (!args.get(0).isUndefined() &&
      !ToU64(cx, args.get(0), "GPUBuffer.getMappedRange offset", &offset))
    return false;
  uint64_t end = self->map_offset + self->map_size;
  size = offset <= self->size ? self->size - offset : 0;
  if (!args.get(1).isUndefined() && !ToU64(cx, args.get(1), "GPUBuffer.getMappedRange size", &size))
    return false;
  if (offset < self->map_offset || offset + size > end || offset % 8 != 0 || size % 4 != 0) {
    return ThrowError(cx,
                      "GPUBuffer.getMappedRange: [" + std::to_string(offset) + ", " +
                          std::to_string(offset + size) + ") is outside the mapped range [" +
                          std::to_string(self->map_offset) + ", " + std::to_string(end) +
                          ") or misaligned (offset % 8, size % 4)",
                      "OperationError");
  }
  // Spec: the range must not overlap one handed out before, an empty range included (it
  // overlaps when it starts strictly inside another).
  auto& spans = MappedSpans()[self];
  for (const auto& [o, s] : spans) {
    if (!(offset >= o + s || o >= offset + size)) {
      return ThrowError(cx,
                        "GPUBuffer.getMappedRange: [" + std::to_string(offset) + ", " +
                            std::to_string(offset + size) + ") overlaps the range [" +
                            std::to_string(o) + ", " + std::to_string(o + s) +
                            ") already returned; unmap() first",
                        "OperationError");
    }
  }
  JS::RootedObject ab(cx);
  if (size == 0) {
    ab = JS::NewArrayBuffer(cx, 0);
  } else {
    void* data = self->writable_mapping
                     ? wg::P().BufferGetMappedRange(self->buffer.get(), offset, size)
                     : const_cast<void*>(
                           wg::P().BufferGetConstMappedRange(self->buffer.get(), offset, size));
    if (data == nullptr)
      return ThrowError(cx, "GPUBuffer.getMappedRange: the range is not available",
                        "OperationError");
    ab = JS::NewArrayBufferWithUserOwnedContents(cx, size, data);
  }
  if (!ab) return false;
  {
    // The prelude remembers mapped ranges: they cannot be transferred (postMessage).
    JS::RootedValue v(cx, JS::ObjectValue(*ab));
    if (!MakeFromData(cx, "MappedRange", v)) return false;
  }
  self->ranges.push_back(std::make_unique<JS::PersistentRootedObject>(cx, ab));
  spans.emplace_back(offset, size);
  if (self->device) TrackMappedBuffer(*self->device, self);
  args.rval().setObject(*ab);
  return true;
}

bool Unmap(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUBuffer, "GPUBuffer.unmap");
  if (!DetachRanges(cx, self)) return false;
  wg::P().BufferUnmap(self->buffer.get());
  args.rval().setUndefined();
  return true;
}

bool Destroy(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUBuffer, "GPUBuffer.destroy");
  if (self->lent_from) {
    return ThrowError(cx,
                      "GPUBuffer.destroy: this buffer is an alknet:compute tensor's storage; it "
                      "is freed with the tensor",
                      "OperationError");
  }
  if (!DetachRanges(cx, self)) return false;
  wg::P().BufferDestroy(self->buffer.get());
  DisassociateMemory(&args.thisv().toObject(), self);
  args.rval().setUndefined();
  return true;
}

bool GetSize(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUBuffer, "GPUBuffer.size");
  args.rval().setNumber(static_cast<double>(self->size));
  return true;
}

bool GetUsage(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUBuffer, "GPUBuffer.usage");
  args.rval().setNumber(static_cast<double>(self->usage));
  return true;
}

bool GetMapState(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUBuffer, "GPUBuffer.mapState");
  // A mapping wins over a pending map (a mapAsync on a mapped buffer leaves it "mapped").
  const char* state = self->mapped ? "mapped" : self->map_pending ? "pending" : "unmapped";
  JSString* s = NewString(cx, state);
  if (!s) return false;
  args.rval().setString(s);
  return true;
}

const JSPropertySpec kProperties[] = {JS_PSG("size", GetSize, JSPROP_ENUMERATE),
                                      JS_PSG("usage", GetUsage, JSPROP_ENUMERATE),
                                      JS_PSG("mapState", GetMapState, JSPROP_ENUMERATE), JS_PS_END};
const JSFunctionSpec kMethods[] = {JS_FN("mapAsync", MapAsync, 1, JSPROP_ENUMERATE),
                                   JS_FN("getMappedRange", GetMappedRange, 0, JSPROP_ENUMERATE),
                                   JS_FN("unmap", Unmap, 0, JSPROP_ENUMERATE),
                                   JS_FN("destroy", Destroy, 0, JSPROP_ENUMERATE), JS_FS_END};

}  // namespace

bool DefineGPUBuffer(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPUBuffer::kClass, kProperties, kMethods});
}

}  // namespace alknet::runtime::sm::gpu
