// GPUDevice: the create* factories, queue, error scopes, lost, uncaptured errors.
// https://www.w3.org/TR/webgpu/#gpudevice
#include <atomic>
#include <mutex>
#include <optional>

#include <algorithm>
#include <cmath>
#include <deque>
#include <unordered_set>

#include "spidermonkey/webgpu/gpu_common.h"
#include "spidermonkey/webgpu/gpu_enums.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPUDevice, GPUDevice::kSlotCount);

// What device callbacks reach. It outlives the device (GpuState keeps it).
struct DeviceShared {
  JSContext* cx = nullptr;
  std::mutex mutex;
  std::vector<std::pair<WGPUErrorType, std::string>> uncaptured;
  std::unique_ptr<JS::PersistentRootedObject> js_device;
  std::unique_ptr<JS::PersistentRootedObject> lost_promise;
  // After destroy(), keeps the loop polling until the loss is reported (device.lost settles).
  std::optional<EventLoop::GpuWorkToken> awaiting_loss;
  // While errors wait for the next microtask checkpoint, the loop must not decide that
  // nothing is left to run (a script awaiting its onuncapturederror handler).
  std::optional<EventLoop::GpuWorkToken> awaiting_delivery;
  // Buffers with getMappedRange ArrayBuffers alive: destroy() and loss detach them, since the
  // mapping's memory goes away with the device (JS thread only).
  std::unordered_set<GPUBuffer*> mapped_buffers;
  // Set by destroy() and by the loss callback: objects made on this device elsewhere (a
  // desktop surface configured with it) must not be torn down through it (webgpu_interop.h).
  std::shared_ptr<std::atomic<bool>> gone = std::make_shared<std::atomic<bool>>(false);
};

std::shared_ptr<const std::atomic<bool>> DeviceGoneFlag(const DeviceShared& device) {
  return device.gone;
}

void TrackMappedBuffer(DeviceShared& device, GPUBuffer* buffer) {
  device.mapped_buffers.insert(buffer);
}
// A validation error on the buffer's device, from a check the content timeline makes (a
// mapAsync on a buffer that is not unmapped). Declared where it is used (gpu_buffer.cpp).
void InjectValidationError(DeviceShared& device, const std::string& message) {
  if (!device.js_device) return;
  auto* owner = JS::GetMaybePtrFromReservedSlot<GPUDevice>(device.js_device->get(), kOwnerSlot);
  if (owner && owner->device) {
    wg::P().DeviceInjectError(owner->device.get(), WGPUErrorType_Validation, wg::Sv(message));
  }
}
void UntrackMappedBuffer(DeviceShared& device, GPUBuffer* buffer) {
  device.mapped_buffers.erase(buffer);
}

GPUDevice::~GPUDevice() = default;

namespace {

// Spec: destroying a device unmaps its buffers; here the mapped memory is freed with it, so
// every ArrayBuffer over it must be detached before script can touch it again.
bool DetachDeviceMappings(JSContext* cx, DeviceShared& shared) {
  std::vector<GPUBuffer*> buffers(shared.mapped_buffers.begin(), shared.mapped_buffers.end());
  for (GPUBuffer* buffer : buffers) {
    if (!DetachRanges(cx, buffer)) return false;
  }
  return true;
}

const char* ErrorClass(WGPUErrorType type) {
  switch (type) {
    case WGPUErrorType_OutOfMemory: return "GPUOutOfMemoryError";
    case WGPUErrorType_Internal: return "GPUInternalError";
    default: return "GPUValidationError";
  }
}

void OnUncapturedError(const WGPUDevice*, WGPUErrorType type, WGPUStringView message, void* ud,
                       void*) {
  // May run inside any WebGPU call; JS is only reached later, at a microtask checkpoint.
  auto* shared = static_cast<DeviceShared*>(ud);
  std::lock_guard lock(shared->mutex);
  shared->uncaptured.emplace_back(type, std::string(wg::FromSv(message)));
  // Dawn reports these from inside the JS thread's own WebGPU calls (or its event
  // processing), so the loop may be touched here.
  if (!shared->awaiting_delivery && shared->cx != nullptr && !State(shared->cx).closing) {
    shared->awaiting_delivery = SmEngine::From(shared->cx)->host().loop->BeginGpuWork();
  }
}

// Settles device.lost (JS thread).
void ReportDeviceLost(DeviceShared* shared, WGPUDeviceLostReason reason, std::string_view message) {
  shared->gone->store(true);
  if (shared->cx == nullptr || State(shared->cx).closing || !shared->lost_promise) return;
  shared->awaiting_loss.reset();
  JSContext* cx = shared->cx;
  if (!DetachDeviceMappings(cx, *shared)) JS_ClearPendingException(cx);
  JS::RootedObject info(cx, JS_NewPlainObject(cx));
  JS::RootedString why(
      cx, NewString(cx, reason == WGPUDeviceLostReason_Destroyed ? "destroyed" : "unknown"));
  JS::RootedString text(cx, NewString(cx, message));
  JS::RootedObject promise(cx, shared->lost_promise->get());
  JS::RootedValue v(cx);
  if (info && why && text && JS_DefineProperty(cx, info, "reason", why, JSPROP_ENUMERATE) &&
      JS_DefineProperty(cx, info, "message", text, JSPROP_ENUMERATE)) {
    JS::RootedValue data(cx, JS::ObjectValue(*info));
    JSObject* lost_info = MakeFromData(cx, "GPUDeviceLostInfo", data);
    if (lost_info) {
      v.setObject(*lost_info);
      JS::ResolvePromise(cx, promise, v);
    }
  }
  JS_ClearPendingException(cx);
}

void OnDeviceLost(const WGPUDevice*, WGPUDeviceLostReason reason, WGPUStringView message, void* ud,
                  void*) {
  ReportDeviceLost(static_cast<DeviceShared*>(ud), reason, wg::FromSv(message));
}

struct ScopePop : PendingPromise {
  using PendingPromise::PendingPromise;
};

void OnPopErrorScope(WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView message,
                     void* ud, void*) {
  std::unique_ptr<ScopePop> req(static_cast<ScopePop*>(ud));
  if (State(req->cx).closing) return;
  JSContext* cx = req->cx;
  if (status != WGPUPopErrorScopeStatus_Success) {
    req->RejectWith("OperationError", "popErrorScope: " + std::string(wg::FromSv(message)));
    return;
  }
  JS::RootedValue v(cx, JS::NullValue());
  if (type != WGPUErrorType_NoError) {
    JSObject* e = NewNamedError(cx, ErrorClass(type), wg::FromSv(message));
    if (!e) {
      JS_ClearPendingException(cx);
      return;
    }
    v.setObject(*e);
  }
  req->Resolve(v);
}

JSObject* WrapNew(JSContext* cx, const JSClass* cls, std::unique_ptr<GpuObject> owner, bool ok,
                  std::string_view what, std::string_view label) {
  if (!ok) {
    // A null handle means the call itself failed (not a validation error, which Dawn reports
    // through the error scopes and still returns an "error object").
    ThrowError(cx, std::string(what) + " failed", "OperationError");
    return nullptr;
  }
  return WrapLabelled(cx, cls, std::move(owner), label);
}

bool Return(JS::CallArgs& args, JSObject* obj) {
  if (!obj) return false;
  args.rval().setObject(*obj);
  return true;
}

// createBuffer({size, usage, mappedAtCreation, label})
bool CreateBuffer(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createBuffer");
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPUDevice.createBuffer descriptor", &d)) return false;
  uint64_t size = 0, usage = 0;
  if (!RequiredU64(cx, d, "size", "GPUBufferDescriptor", &size) ||
      !RequiredU64(cx, d, "usage", "GPUBufferDescriptor", &usage)) {
    return false;
  }
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, d, "mappedAtCreation", &v, &present)) return false;
  bool mapped = present && JS::ToBoolean(v);
  if (mapped && size % 4 != 0) {
    // Spec: a RangeError, not a validation error.
    JS::RootedValue e(cx);
    JSObject* re = NewNamedError(
        cx, "RangeError",
        "GPUDevice.createBuffer: with mappedAtCreation, size must be a multiple of 4");
    if (re) {
      e.setObject(*re);
      JS_SetPendingException(cx, e);
    }
    return false;
  }
  std::string label = Label(cx, d);
  WGPUBufferDescriptor desc{};
  desc.label = wg::Sv(label);
  desc.usage = usage;
  desc.size = size;
  desc.mappedAtCreation = mapped;
  auto owner = std::make_unique<GPUBuffer>();
  owner->buffer = wg::BufferHandle::Adopt(wg::P().DeviceCreateBuffer(self->device.get(), &desc));
  owner->size = size;
  owner->usage = usage;
  owner->device = self->shared;
  if (mapped) {
    owner->mapped = true;
    owner->mapped_at_creation = true;
    owner->writable_mapping = true;
    owner->map_size = size;
  }
  bool ok = static_cast<bool>(owner->buffer);
  if (mapped && size > 0 &&
      (!ok || wg::P().BufferGetMappedRange(owner->buffer.get(), 0, static_cast<size_t>(size)) ==
                  nullptr)) {
    // Spec: mappedAtCreation memory that cannot be allocated is a RangeError thrown here
    // (Dawn returns no buffer, or an error buffer with no mapping).
    JSObject* re = NewNamedError(cx, "RangeError",
                                 "GPUDevice.createBuffer: cannot allocate " + std::to_string(size) +
                                     " bytes for mappedAtCreation");
    if (re) {
      JS::RootedValue e(cx, JS::ObjectValue(*re));
      JS_SetPendingException(cx, e);
    }
    return false;
  }
  GPUBuffer* buffer = owner.get();
  JS::RootedObject obj(
      cx, WrapNew(cx, &GPUBuffer::kClass, std::move(owner), ok, "createBuffer", label));
  if (obj) AssociateMemory(obj, buffer, size);
  return Return(args, obj);
}

// new GPUPipelineError(message, {reason}): the prelude's class, a DOMException (spec 22.3).
JSObject* NewPipelineError(JSContext* cx, std::string_view message, const char* reason) {
  JS::RootedObject global(cx, JS::CurrentGlobalOrNull(cx));
  JS::RootedValue ctor(cx);
  JS::RootedObject options(cx, JS_NewPlainObject(cx));
  JS::RootedString m(cx, NewString(cx, message));
  JS::RootedString r(cx, NewString(cx, reason));
  if (!options || !m || !r || !JS_DefineProperty(cx, options, "reason", r, JSPROP_ENUMERATE) ||
      !JS_GetProperty(cx, global, "GPUPipelineError", &ctor)) {
    return nullptr;
  }
  JS::RootedValueArray<2> args(cx);
  args[0].setString(m);
  args[1].setObject(*options);
  JS::RootedObject out(cx);
  if (!JS::Construct(cx, ctor, args, &out)) return nullptr;
  return out;
}

struct PipelineRequest : PendingPromise {
  using PendingPromise::PendingPromise;
  std::string label;
};

// Both async pipeline callbacks: wrap the pipeline, or reject with a GPUPipelineError (spec:
// such failures do not reach the error scopes).
template <typename Owner, typename Raw>
void SettlePipeline(WGPUCreatePipelineAsyncStatus status, Raw pipeline, WGPUStringView message,
                    void* ud) {
  std::unique_ptr<PipelineRequest> req(static_cast<PipelineRequest*>(ud));
  auto owned = decltype(Owner::pipeline)::Adopt(pipeline);
  if (State(req->cx).closing) return;
  JSContext* cx = req->cx;
  JS::RootedValue v(cx);
  if (status != WGPUCreatePipelineAsyncStatus_Success || !owned) {
    const char* reason =
        status == WGPUCreatePipelineAsyncStatus_ValidationError ? "validation" : "internal";
    JSObject* e = NewPipelineError(cx, wg::FromSv(message), reason);
    if (e)
      v.setObject(*e);
    else
      JS_GetPendingException(cx, &v);
    JS_ClearPendingException(cx);
    req->Reject(v);
    return;
  }
  auto owner = std::make_unique<Owner>();
  owner->pipeline = std::move(owned);
  JSObject* obj = WrapLabelled(cx, &Owner::kClass, std::move(owner), req->label);
  if (!obj) {
    JS_GetPendingException(cx, &v);
    JS_ClearPendingException(cx);
    req->Reject(v);
    return;
  }
  v.setObject(*obj);
  req->Resolve(v);
}

// Argument conversion errors reject the returned promise (a promise-returning operation).
bool RejectWithPending(PipelineRequest* req) {
  JS::RootedValue error(req->cx);
  if (!JS_GetPendingException(req->cx, &error)) return false;
  JS_ClearPendingException(req->cx);
  req->Reject(error);
  return true;
}

// One of buffer / sampler / texture / storageTexture (exactly one, says the spec; Dawn
// reports none or several as a validation error, so they all pass through).
bool ReadLayoutEntryResource(JSContext* cx, JS::HandleObject e, const std::string& what,
                             WGPUBindGroupLayoutEntry* out) {
  JS::RootedValue v(cx);
  bool present;
  JS::RootedObject m(cx);
  if (!Member(cx, e, "buffer", &v, &present)) return false;
  if (present) {
    if (!DictArg(cx, v, what + ".buffer", &m)) return false;
    uint32_t type;
    bool dynamic;
    if (!OptionalEnum(cx, m, "type", kBufferBindingType, what + ".buffer",
                      WGPUBufferBindingType_Uniform, &type) ||
        !OptionalBool(cx, m, "hasDynamicOffset", false, &dynamic) ||
        !OptionalU64(cx, m, "minBindingSize", what + ".buffer", 0, &out->buffer.minBindingSize)) {
      return false;
    }
    out->buffer.type = static_cast<WGPUBufferBindingType>(type);
    out->buffer.hasDynamicOffset = dynamic;
  }
  if (!Member(cx, e, "sampler", &v, &present)) return false;
  if (present) {
    if (!DictArg(cx, v, what + ".sampler", &m) ||
        !OptionalEnum(cx, m, "type", kSamplerBindingType, what + ".sampler", 2,
                      &out->sampler.type)) {
      return false;
    }
  }
  if (!Member(cx, e, "texture", &v, &present)) return false;
  if (present) {
    bool multisampled;
    if (!DictArg(cx, v, what + ".texture", &m) ||
        !OptionalEnum(cx, m, "sampleType", kTextureSampleType, what + ".texture", 2,
                      &out->texture.sampleType) ||
        !OptionalEnum(cx, m, "viewDimension", kTextureViewDimension, what + ".texture", 2,
                      &out->texture.viewDimension) ||
        !OptionalBool(cx, m, "multisampled", false, &multisampled)) {
      return false;
    }
    out->texture.multisampled = multisampled;
  }
  if (!Member(cx, e, "storageTexture", &v, &present)) return false;
  if (present) {
    std::string where = what + ".storageTexture";
    if (!DictArg(cx, v, where, &m) ||
        !OptionalEnum(cx, m, "access", kStorageTextureAccess, where, 2,
                      &out->storageTexture.access) ||
        !OptionalEnum(cx, m, "viewDimension", kTextureViewDimension, where, 2,
                      &out->storageTexture.viewDimension)) {
      return false;
    }
    if (!Member(cx, m, "format", &v, &present)) return false;
    if (!present) return MissingMember(cx, where, "format");
    if (!ToEnum(cx, v, kTextureFormat, where + ".format", &out->storageTexture.format))
      return false;
  }
  return true;
}

// createTexture({size, mipLevelCount, sampleCount, dimension, format, usage, viewFormats})
bool CreateTexture(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createTexture");
  const char* what = "GPUTextureDescriptor";
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPUDevice.createTexture descriptor", &d)) return false;
  WGPUTextureDescriptor desc{};
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, d, "size", &v, &present)) return false;
  if (!present) return MissingMember(cx, what, "size");
  if (!ToExtent3D(cx, v, std::string(what) + ".size", &desc.size)) return false;
  if (!Member(cx, d, "format", &v, &present)) return false;
  if (!present) return MissingMember(cx, what, "format");
  if (!ToEnum(cx, v, kTextureFormat, std::string(what) + ".format", &desc.format)) return false;
  if (!RequiredU64(cx, d, "usage", what, &desc.usage) ||
      !OptionalU32(cx, d, "mipLevelCount", what, 1, &desc.mipLevelCount) ||
      !OptionalU32(cx, d, "sampleCount", what, 1, &desc.sampleCount) ||
      !OptionalEnum(cx, d, "dimension", kTextureDimension, what, 2, &desc.dimension)) {
    return false;
  }
  std::vector<WGPUTextureFormat> view_formats;
  if (!Member(cx, d, "viewFormats", &v, &present)) return false;
  if (present) {
    JS::RootedObject list(cx);
    uint32_t n = 0;
    if (!ArrayArg(cx, v, std::string(what) + ".viewFormats", &list, &n)) return false;
    view_formats.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      if (!JS_GetElement(cx, list, i, &v) ||
          !ToEnum(cx, v, kTextureFormat,
                  std::string(what) + ".viewFormats[" + std::to_string(i) + "]",
                  &view_formats[i])) {
        return false;
      }
    }
  }
  desc.viewFormatCount = view_formats.size();
  desc.viewFormats = view_formats.data();
  std::string label = Label(cx, d);
  desc.label = wg::Sv(label);
  auto owner = std::make_unique<GPUTexture>();
  owner->texture = wg::Texture::Adopt(wg::P().DeviceCreateTexture(self->device.get(), &desc));
  bool ok = static_cast<bool>(owner->texture);
  return Return(args,
                WrapNew(cx, &GPUTexture::kClass, std::move(owner), ok, "createTexture", label));
}

bool CreateSampler(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createSampler");
  const char* what = "GPUSamplerDescriptor";
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPUDevice.createSampler descriptor", &d)) return false;
  WGPUSamplerDescriptor desc{};
  double lod_min, lod_max;
  uint32_t anisotropy;
  // GPUSamplerDescriptor.maxAnisotropy is [Clamp] unsigned short.
  JS::RootedValue v(cx);
  bool present;
  if (!OptionalEnum(cx, d, "addressModeU", kAddressMode, what, 1, &desc.addressModeU) ||
      !OptionalEnum(cx, d, "addressModeV", kAddressMode, what, 1, &desc.addressModeV) ||
      !OptionalEnum(cx, d, "addressModeW", kAddressMode, what, 1, &desc.addressModeW) ||
      !OptionalEnum(cx, d, "magFilter", kFilterMode, what, 1, &desc.magFilter) ||
      !OptionalEnum(cx, d, "minFilter", kFilterMode, what, 1, &desc.minFilter) ||
      !OptionalEnum(cx, d, "mipmapFilter", kMipmapFilterMode, what, 1, &desc.mipmapFilter) ||
      !OptionalDouble(cx, d, "lodMinClamp", what, 0, &lod_min) ||
      !OptionalDouble(cx, d, "lodMaxClamp", what, 32, &lod_max) ||
      !OptionalEnum(cx, d, "compare", kCompareFunction, what, 0, &desc.compare) ||
      !Member(cx, d, "maxAnisotropy", &v, &present)) {
    return false;
  }
  anisotropy = 1;
  if (present) {
    double a;
    if (!JS::ToNumber(cx, v, &a)) return false;
    anisotropy =
        std::isnan(a) ? 0 : static_cast<uint32_t>(std::clamp(std::nearbyint(a), 0.0, 65535.0));
  }
  desc.lodMinClamp = static_cast<float>(lod_min);
  desc.lodMaxClamp = static_cast<float>(lod_max);
  desc.maxAnisotropy = static_cast<uint16_t>(anisotropy);
  std::string label = Label(cx, d);
  desc.label = wg::Sv(label);
  auto owner = std::make_unique<GPUSampler>();
  owner->sampler = wg::Sampler::Adopt(wg::P().DeviceCreateSampler(self->device.get(), &desc));
  bool ok = static_cast<bool>(owner->sampler);
  return Return(args,
                WrapNew(cx, &GPUSampler::kClass, std::move(owner), ok, "createSampler", label));
}

bool CreateQuerySet(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createQuerySet");
  const char* what = "GPUQuerySetDescriptor";
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPUDevice.createQuerySet descriptor", &d)) return false;
  WGPUQuerySetDescriptor desc{};
  JS::RootedValue v(cx);
  bool present;
  uint32_t type;
  if (!Member(cx, d, "type", &v, &present)) return false;
  if (!present) return MissingMember(cx, what, "type");
  if (!ToEnum(cx, v, kQueryType, std::string(what) + ".type", &type) ||
      !RequiredU32(cx, d, "count", what, &desc.count)) {
    return false;
  }
  desc.type = static_cast<WGPUQueryType>(type);
  std::string label = Label(cx, d);
  desc.label = wg::Sv(label);
  auto owner = std::make_unique<GPUQuerySet>();
  owner->set = wg::QuerySet::Adopt(wg::P().DeviceCreateQuerySet(self->device.get(), &desc));
  bool ok = static_cast<bool>(owner->set);
  return Return(args,
                WrapNew(cx, &GPUQuerySet::kClass, std::move(owner), ok, "createQuerySet", label));
}

// Everything a WGPURenderPipelineDescriptor points into, kept alive until the create call.
struct RenderPipelineStorage {
  WGPURenderPipelineDescriptor desc{};
  std::string label, vertex_entry, fragment_entry;
  std::vector<std::string> vertex_keys, fragment_keys;
  std::vector<WGPUConstantEntry> vertex_constants, fragment_constants;
  std::deque<std::vector<WGPUVertexAttribute>> attributes;
  std::vector<WGPUVertexBufferLayout> buffers;
  WGPUDepthStencilState depth_stencil{};
  WGPUFragmentState fragment{};
  std::vector<WGPUColorTargetState> targets;
  std::deque<WGPUBlendState> blends;
};

bool ReadEntryPoint(JSContext* cx, JS::HandleObject stage, std::string* out, WGPUStringView* sv) {
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, stage, "entryPoint", &v, &present)) return false;
  *sv = WGPUStringView{nullptr, WGPU_STRLEN};
  if (present) {
    if (!ValueToUtf8(cx, v, out)) return false;
    *sv = wg::Sv(*out);
  }
  return true;
}

bool ReadBlendComponent(JSContext* cx, JS::HandleObject blend, const char* name,
                        const std::string& what, WGPUBlendComponent* out) {
  JS::RootedObject c(cx);
  std::string where = what + "." + name;
  return RequiredDict(cx, blend, name, what, &c) &&
         OptionalEnum(cx, c, "operation", kBlendOperation, where, 1, &out->operation) &&
         OptionalEnum(cx, c, "srcFactor", kBlendFactor, where, 2, &out->srcFactor) &&
         OptionalEnum(cx, c, "dstFactor", kBlendFactor, where, 1, &out->dstFactor);
}

bool ReadStencilFace(JSContext* cx, JS::HandleObject ds, const char* name, const std::string& what,
                     WGPUStencilFaceState* out) {
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, ds, name, &v, &present)) return false;
  JS::RootedObject f(cx);
  if (!DictArg(cx, present ? v : JS::UndefinedHandleValue, what + "." + name, &f)) return false;
  std::string where = what + "." + name;
  return OptionalEnum(cx, f, "compare", kCompareFunction, where, 8, &out->compare) &&
         OptionalEnum(cx, f, "failOp", kStencilOperation, where, 1, &out->failOp) &&
         OptionalEnum(cx, f, "depthFailOp", kStencilOperation, where, 1, &out->depthFailOp) &&
         OptionalEnum(cx, f, "passOp", kStencilOperation, where, 1, &out->passOp);
}

bool ReadRenderPipeline(JSContext* cx, JS::HandleValue arg, std::string_view method,
                        RenderPipelineStorage* s) {
  const std::string what = "GPURenderPipelineDescriptor";
  JS::RootedObject d(cx);
  if (!DictArg(cx, arg, std::string(method) + " descriptor", &d)) return false;
  WGPURenderPipelineDescriptor& desc = s->desc;
  if (!PipelineLayoutMember(cx, d, what, &desc.layout)) return false;
  s->label = Label(cx, d);
  desc.label = wg::Sv(s->label);
  JS::RootedValue v(cx);
  bool present;

  // vertex: GPUVertexState
  JS::RootedObject vertex(cx);
  if (!RequiredDict(cx, d, "vertex", what, &vertex)) return false;
  auto* vmodule = RequiredObject<GPUShaderModule>(cx, vertex, "module", what + ".vertex");
  if (!vmodule) return false;
  desc.vertex.module = vmodule->module.get();
  if (!ReadEntryPoint(cx, vertex, &s->vertex_entry, &desc.vertex.entryPoint) ||
      !PipelineConstants(cx, vertex, what + ".vertex", &s->vertex_keys, &s->vertex_constants) ||
      !Member(cx, vertex, "buffers", &v, &present)) {
    return false;
  }
  if (present) {
    JS::RootedObject list(cx);
    uint32_t n = 0;
    if (!ArrayArg(cx, v, what + ".vertex.buffers", &list, &n)) return false;
    s->buffers.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      std::string where = what + ".vertex.buffers[" + std::to_string(i) + "]";
      WGPUVertexBufferLayout& layout = s->buffers[i];
      auto& attributes = s->attributes.emplace_back();
      if (!JS_GetElement(cx, list, i, &v)) return false;
      if (v.isNullOrUndefined()) continue;  // an unused slot
      JS::RootedObject b(cx);
      if (!DictArg(cx, v, where, &b) ||
          !RequiredU64(cx, b, "arrayStride", where, &layout.arrayStride) ||
          !OptionalEnum(cx, b, "stepMode", kVertexStepMode, where, 1, &layout.stepMode) ||
          !Member(cx, b, "attributes", &v, &present)) {
        return false;
      }
      if (!present) return MissingMember(cx, where, "attributes");
      JS::RootedObject alist(cx);
      uint32_t m = 0;
      if (!ArrayArg(cx, v, where + ".attributes", &alist, &m)) return false;
      attributes.resize(m);
      for (uint32_t j = 0; j < m; ++j) {
        std::string at = where + ".attributes[" + std::to_string(j) + "]";
        JS::RootedObject a(cx);
        if (!JS_GetElement(cx, alist, j, &v) || !DictArg(cx, v, at, &a) ||
            !Member(cx, a, "format", &v, &present)) {
          return false;
        }
        if (!present) return MissingMember(cx, at, "format");
        if (!ToEnum(cx, v, kVertexFormat, at + ".format", &attributes[j].format) ||
            !RequiredU64(cx, a, "offset", at, &attributes[j].offset) ||
            !RequiredU32(cx, a, "shaderLocation", at, &attributes[j].shaderLocation)) {
          return false;
        }
      }
      layout.attributeCount = attributes.size();
      layout.attributes = attributes.data();
    }
  }
  desc.vertex.constantCount = s->vertex_constants.size();
  desc.vertex.constants = s->vertex_constants.data();
  desc.vertex.bufferCount = s->buffers.size();
  desc.vertex.buffers = s->buffers.data();

  // primitive: GPUPrimitiveState
  if (!Member(cx, d, "primitive", &v, &present)) return false;
  JS::RootedObject primitive(cx);
  bool unclipped;
  std::string pwhat = what + ".primitive";
  if (!DictArg(cx, present ? v : JS::UndefinedHandleValue, pwhat, &primitive) ||
      !OptionalEnum(cx, primitive, "topology", kPrimitiveTopology, pwhat, 4,
                    &desc.primitive.topology) ||
      !OptionalEnum(cx, primitive, "stripIndexFormat", kIndexFormat, pwhat, 0,
                    &desc.primitive.stripIndexFormat) ||
      !OptionalEnum(cx, primitive, "frontFace", kFrontFace, pwhat, 1, &desc.primitive.frontFace) ||
      !OptionalEnum(cx, primitive, "cullMode", kCullMode, pwhat, 1, &desc.primitive.cullMode) ||
      !OptionalBool(cx, primitive, "unclippedDepth", false, &unclipped)) {
    return false;
  }
  desc.primitive.unclippedDepth = unclipped;

  // depthStencil: GPUDepthStencilState?
  if (!Member(cx, d, "depthStencil", &v, &present)) return false;
  if (present) {
    std::string dwhat = what + ".depthStencil";
    JS::RootedObject ds(cx);
    WGPUDepthStencilState& state = s->depth_stencil;
    if (!DictArg(cx, v, dwhat, &ds) || !Member(cx, ds, "format", &v, &present)) return false;
    if (!present) return MissingMember(cx, dwhat, "format");
    bool has_write;
    double slope, clamp;
    int32_t bias = 0;
    if (!ToEnum(cx, v, kTextureFormat, dwhat + ".format", &state.format) ||
        !Member(cx, ds, "depthWriteEnabled", &v, &has_write)) {
      return false;
    }
    state.depthWriteEnabled = !has_write         ? WGPUOptionalBool_Undefined
                              : JS::ToBoolean(v) ? WGPUOptionalBool_True
                                                 : WGPUOptionalBool_False;
    if (!OptionalEnum(cx, ds, "depthCompare", kCompareFunction, dwhat, 0, &state.depthCompare) ||
        !ReadStencilFace(cx, ds, "stencilFront", dwhat, &state.stencilFront) ||
        !ReadStencilFace(cx, ds, "stencilBack", dwhat, &state.stencilBack) ||
        !OptionalU32(cx, ds, "stencilReadMask", dwhat, 0xFFFFFFFF, &state.stencilReadMask) ||
        !OptionalU32(cx, ds, "stencilWriteMask", dwhat, 0xFFFFFFFF, &state.stencilWriteMask) ||
        !Member(cx, ds, "depthBias", &v, &present)) {
      return false;
    }
    if (present && !ToI32(cx, v, dwhat + ".depthBias", &bias)) return false;
    if (!OptionalDouble(cx, ds, "depthBiasSlopeScale", dwhat, 0, &slope) ||
        !OptionalDouble(cx, ds, "depthBiasClamp", dwhat, 0, &clamp)) {
      return false;
    }
    state.depthBias = bias;
    state.depthBiasSlopeScale = static_cast<float>(slope);
    state.depthBiasClamp = static_cast<float>(clamp);
    desc.depthStencil = &state;
  }

  // multisample: GPUMultisampleState
  if (!Member(cx, d, "multisample", &v, &present)) return false;
  JS::RootedObject ms(cx);
  bool alpha_to_coverage;
  std::string mwhat = what + ".multisample";
  if (!DictArg(cx, present ? v : JS::UndefinedHandleValue, mwhat, &ms) ||
      !OptionalU32(cx, ms, "count", mwhat, 1, &desc.multisample.count) ||
      !OptionalU32(cx, ms, "mask", mwhat, 0xFFFFFFFF, &desc.multisample.mask) ||
      !OptionalBool(cx, ms, "alphaToCoverageEnabled", false, &alpha_to_coverage)) {
    return false;
  }
  desc.multisample.alphaToCoverageEnabled = alpha_to_coverage;

  // fragment: GPUFragmentState?
  if (!Member(cx, d, "fragment", &v, &present)) return false;
  if (present) {
    std::string fwhat = what + ".fragment";
    JS::RootedObject fragment(cx);
    WGPUFragmentState& state = s->fragment;
    if (!DictArg(cx, v, fwhat, &fragment)) return false;
    auto* fmodule = RequiredObject<GPUShaderModule>(cx, fragment, "module", fwhat);
    if (!fmodule) return false;
    state.module = fmodule->module.get();
    if (!ReadEntryPoint(cx, fragment, &s->fragment_entry, &state.entryPoint) ||
        !PipelineConstants(cx, fragment, fwhat, &s->fragment_keys, &s->fragment_constants) ||
        !Member(cx, fragment, "targets", &v, &present)) {
      return false;
    }
    if (!present) return MissingMember(cx, fwhat, "targets");
    JS::RootedObject list(cx);
    uint32_t n = 0;
    if (!ArrayArg(cx, v, fwhat + ".targets", &list, &n)) return false;
    s->targets.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      std::string where = fwhat + ".targets[" + std::to_string(i) + "]";
      WGPUColorTargetState& target = s->targets[i];
      if (!JS_GetElement(cx, list, i, &v)) return false;
      if (v.isNullOrUndefined()) continue;  // a hole: format stays undefined
      JS::RootedObject t(cx);
      uint64_t mask;
      if (!DictArg(cx, v, where, &t) || !Member(cx, t, "format", &v, &present)) return false;
      if (!present) return MissingMember(cx, where, "format");
      if (!ToEnum(cx, v, kTextureFormat, where + ".format", &target.format) ||
          !OptionalU64(cx, t, "writeMask", where, WGPUColorWriteMask_All, &mask) ||
          !Member(cx, t, "blend", &v, &present)) {
        return false;
      }
      if (mask > 0xFFFFFFFF)
        return ThrowTypeError(cx, where + ".writeMask is outside the range of an unsigned long");
      target.writeMask = mask;
      if (present) {
        JS::RootedObject blend(cx);
        WGPUBlendState& state_blend = s->blends.emplace_back();
        if (!DictArg(cx, v, where + ".blend", &blend) ||
            !ReadBlendComponent(cx, blend, "color", where + ".blend", &state_blend.color) ||
            !ReadBlendComponent(cx, blend, "alpha", where + ".blend", &state_blend.alpha)) {
          return false;
        }
        target.blend = &state_blend;
      }
    }
    state.constantCount = s->fragment_constants.size();
    state.constants = s->fragment_constants.data();
    state.targetCount = s->targets.size();
    state.targets = s->targets.data();
    desc.fragment = &state;
  }
  return true;
}

bool CreateRenderPipeline(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createRenderPipeline");
  RenderPipelineStorage s;
  if (!ReadRenderPipeline(cx, args.get(0), "GPUDevice.createRenderPipeline", &s)) return false;
  auto owner = std::make_unique<GPURenderPipeline>();
  owner->pipeline =
      wg::RenderPipeline::Adopt(wg::P().DeviceCreateRenderPipeline(self->device.get(), &s.desc));
  bool ok = static_cast<bool>(owner->pipeline);
  return Return(args, WrapNew(cx, &GPURenderPipeline::kClass, std::move(owner), ok,
                              "createRenderPipeline", s.label));
}

void OnRenderPipeline(WGPUCreatePipelineAsyncStatus status, WGPURenderPipeline pipeline,
                      WGPUStringView message, void* ud, void*) {
  SettlePipeline<GPURenderPipeline>(status, pipeline, message, ud);
}

bool CreateRenderPipelineAsync(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createRenderPipelineAsync");
  auto req = std::make_unique<PipelineRequest>(cx);
  args.rval().setObject(*req->promise);
  RenderPipelineStorage s;
  if (!ReadRenderPipeline(cx, args.get(0), "GPUDevice.createRenderPipelineAsync", &s)) {
    return RejectWithPending(req.get());
  }
  req->label = s.label;
  WGPUCreateRenderPipelineAsyncCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = &OnRenderPipeline;
  cb.userdata1 = req.release();
  wg::P().DeviceCreateRenderPipelineAsync(self->device.get(), &s.desc, cb);
  return true;
}

// createRenderBundleEncoder({colorFormats, depthStencilFormat, sampleCount, depthReadOnly,
// stencilReadOnly})
bool CreateRenderBundleEncoder(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createRenderBundleEncoder");
  const std::string what = "GPURenderBundleEncoderDescriptor";
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPUDevice.createRenderBundleEncoder descriptor", &d)) return false;
  JS::RootedValue v(cx);
  bool present, depth_read_only, stencil_read_only;
  if (!Member(cx, d, "colorFormats", &v, &present)) return false;
  if (!present) return MissingMember(cx, what, "colorFormats");
  JS::RootedObject list(cx);
  uint32_t n = 0;
  if (!ArrayArg(cx, v, what + ".colorFormats", &list, &n)) return false;
  std::vector<WGPUTextureFormat> formats(n, WGPUTextureFormat_Undefined);
  for (uint32_t i = 0; i < n; ++i) {
    if (!JS_GetElement(cx, list, i, &v)) return false;
    if (v.isNullOrUndefined()) continue;
    if (!ToEnum(cx, v, kTextureFormat, what + ".colorFormats[" + std::to_string(i) + "]",
                &formats[i]))
      return false;
  }
  WGPURenderBundleEncoderDescriptor desc{};
  if (!OptionalEnum(cx, d, "depthStencilFormat", kTextureFormat, what, 0,
                    &desc.depthStencilFormat) ||
      !OptionalU32(cx, d, "sampleCount", what, 1, &desc.sampleCount) ||
      !OptionalBool(cx, d, "depthReadOnly", false, &depth_read_only) ||
      !OptionalBool(cx, d, "stencilReadOnly", false, &stencil_read_only)) {
    return false;
  }
  desc.depthReadOnly = depth_read_only;
  desc.stencilReadOnly = stencil_read_only;
  desc.colorFormatCount = formats.size();
  desc.colorFormats = formats.data();
  std::string label = Label(cx, d);
  desc.label = wg::Sv(label);
  auto owner = std::make_unique<GPURenderBundleEncoder>();
  owner->encoder = wg::RenderBundleEncoder::Adopt(
      wg::P().DeviceCreateRenderBundleEncoder(self->device.get(), &desc));
  bool ok = static_cast<bool>(owner->encoder);
  return Return(args, WrapNew(cx, &GPURenderBundleEncoder::kClass, std::move(owner), ok,
                              "createRenderBundleEncoder", label));
}

// createShaderModule({code, label}); compilation errors go to the error scopes / uncapturederror.
bool CreateShaderModule(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createShaderModule");
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPUDevice.createShaderModule descriptor", &d)) return false;
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, d, "code", &v, &present)) return false;
  if (!present)
    return ThrowTypeError(cx, "GPUShaderModuleDescriptor: required member code is undefined");
  std::string code, label = Label(cx, d);
  if (!ValueToUtf8(cx, v, &code)) return false;
  WGPUShaderSourceWGSL wgsl{};
  wgsl.chain.sType = WGPUSType_ShaderSourceWGSL;
  wgsl.code = wg::Sv(code);
  WGPUShaderModuleDescriptor desc{};
  desc.nextInChain = &wgsl.chain;
  desc.label = wg::Sv(label);
  auto owner = std::make_unique<GPUShaderModule>();
  owner->module =
      wg::ShaderModule::Adopt(wg::P().DeviceCreateShaderModule(self->device.get(), &desc));
  bool ok = static_cast<bool>(owner->module);
  return Return(args, WrapNew(cx, &GPUShaderModule::kClass, std::move(owner), ok,
                              "createShaderModule", label));
}

// Everything a WGPUComputePipelineDescriptor points into, kept alive until the create call.
struct ComputePipelineStorage {
  WGPUComputePipelineDescriptor desc{};
  std::string label, entry;
  std::vector<std::string> keys;
  std::vector<WGPUConstantEntry> constants;
};

bool ReadComputePipeline(JSContext* cx, JS::HandleValue arg, std::string_view method,
                         ComputePipelineStorage* s) {
  const std::string what = "GPUComputePipelineDescriptor";
  JS::RootedObject d(cx);
  if (!DictArg(cx, arg, std::string(method) + " descriptor", &d)) return false;
  if (!PipelineLayoutMember(cx, d, what, &s->desc.layout)) return false;
  JS::RootedObject compute(cx);
  if (!RequiredDict(cx, d, "compute", what, &compute)) return false;
  auto* module = RequiredObject<GPUShaderModule>(cx, compute, "module", what + ".compute");
  if (!module) return false;
  s->desc.compute.module = module->module.get();
  if (!ReadEntryPoint(cx, compute, &s->entry, &s->desc.compute.entryPoint) ||
      !PipelineConstants(cx, compute, what + ".compute", &s->keys, &s->constants)) {
    return false;
  }
  s->desc.compute.constantCount = s->constants.size();
  s->desc.compute.constants = s->constants.data();
  s->label = Label(cx, d);
  s->desc.label = wg::Sv(s->label);
  return true;
}

bool CreateComputePipeline(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createComputePipeline");
  ComputePipelineStorage s;
  if (!ReadComputePipeline(cx, args.get(0), "GPUDevice.createComputePipeline", &s)) return false;
  auto owner = std::make_unique<GPUComputePipeline>();
  owner->pipeline =
      wg::ComputePipeline::Adopt(wg::P().DeviceCreateComputePipeline(self->device.get(), &s.desc));
  bool ok = static_cast<bool>(owner->pipeline);
  return Return(args, WrapNew(cx, &GPUComputePipeline::kClass, std::move(owner), ok,
                              "createComputePipeline", s.label));
}

void OnComputePipeline(WGPUCreatePipelineAsyncStatus status, WGPUComputePipeline pipeline,
                       WGPUStringView message, void* ud, void*) {
  SettlePipeline<GPUComputePipeline>(status, pipeline, message, ud);
}

bool CreateComputePipelineAsync(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createComputePipelineAsync");
  auto req = std::make_unique<PipelineRequest>(cx);
  args.rval().setObject(*req->promise);
  ComputePipelineStorage s;
  if (!ReadComputePipeline(cx, args.get(0), "GPUDevice.createComputePipelineAsync", &s)) {
    return RejectWithPending(req.get());
  }
  req->label = s.label;
  WGPUCreateComputePipelineAsyncCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = &OnComputePipeline;
  cb.userdata1 = req.release();
  wg::P().DeviceCreateComputePipelineAsync(self->device.get(), &s.desc, cb);
  return true;
}

// Dawn's sType for WGPUExternalTextureBindingLayout in this build's generation of webgpu.h
// (Dawn's extension block; later headers moved it into the core range as 0x0D).
constexpr auto kSTypeExternalTextureBindingLayout = static_cast<WGPUSType>(0x00050002);

// createBindGroupLayout({entries: [{binding, visibility, buffer: {type, hasDynamicOffset,
// minBindingSize}}]})
bool CreateBindGroupLayout(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createBindGroupLayout");
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPUDevice.createBindGroupLayout descriptor", &d)) return false;
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, d, "entries", &v, &present)) return false;
  if (!present) return MissingMember(cx, "GPUBindGroupLayoutDescriptor", "entries");
  JS::RootedObject list(cx);
  uint32_t n = 0;
  if (!ArrayArg(cx, v, "GPUBindGroupLayoutDescriptor.entries", &list, &n)) return false;
  std::vector<WGPUBindGroupLayoutEntry> entries(n);
  // GPUExternalTextureBindingLayout (an empty dictionary) reaches Dawn as a chained struct
  // on the entry; a GPUTextureView may then be bound there (createBindGroup).
  std::vector<WGPUChainedStruct> external(n);
  for (uint32_t i = 0; i < n; ++i) {
    if (!JS_GetElement(cx, list, i, &v) || !v.isObject()) {
      return ThrowTypeError(
          cx, "GPUBindGroupLayoutDescriptor: entries[" + std::to_string(i) + "] must be an object");
    }
    JS::RootedObject e(cx, &v.toObject());
    uint64_t binding, visibility;
    if (!RequiredU64(cx, e, "binding", "GPUBindGroupLayoutEntry", &binding) ||
        !RequiredU64(cx, e, "visibility", "GPUBindGroupLayoutEntry", &visibility)) {
      return false;
    }
    entries[i].binding = static_cast<uint32_t>(binding);
    entries[i].visibility = visibility;
    if (!ReadLayoutEntryResource(cx, e, "GPUBindGroupLayoutEntry", &entries[i])) return false;
    if (!Member(cx, e, "externalTexture", &v, &present)) return false;
    if (present) {
      if (!v.isNullOrUndefined() && !v.isObject()) {
        return ThrowTypeError(cx, "GPUBindGroupLayoutDescriptor: entries[" + std::to_string(i) +
                                      "].externalTexture must be a GPUExternalTextureBindingLayout "
                                      "dictionary");
      }
      external[i].sType = kSTypeExternalTextureBindingLayout;
      entries[i].nextInChain = &external[i];
    }
  }
  std::string label = Label(cx, d);
  WGPUBindGroupLayoutDescriptor desc{};
  desc.label = wg::Sv(label);
  desc.entryCount = entries.size();
  desc.entries = entries.data();
  auto owner = std::make_unique<GPUBindGroupLayout>();
  owner->layout =
      wg::BindGroupLayout::Adopt(wg::P().DeviceCreateBindGroupLayout(self->device.get(), &desc));
  bool ok = static_cast<bool>(owner->layout);
  return Return(args, WrapNew(cx, &GPUBindGroupLayout::kClass, std::move(owner), ok,
                              "createBindGroupLayout", label));
}

bool CreatePipelineLayout(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createPipelineLayout");
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPUDevice.createPipelineLayout descriptor", &d)) return false;
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, d, "bindGroupLayouts", &v, &present)) return false;
  if (!present) return MissingMember(cx, "GPUPipelineLayoutDescriptor", "bindGroupLayouts");
  JS::RootedObject list(cx);
  uint32_t n = 0;
  if (!ArrayArg(cx, v, "GPUPipelineLayoutDescriptor.bindGroupLayouts", &list, &n)) return false;
  std::vector<WGPUBindGroupLayout> layouts(n);
  for (uint32_t i = 0; i < n; ++i) {
    if (!JS_GetElement(cx, list, i, &v)) return false;
    // sequence<GPUBindGroupLayout?>: a null (or undefined) entry is an empty group.
    if (v.isNullOrUndefined()) {
      layouts[i] = nullptr;
      continue;
    }
    auto* l = UnwrapValue<GPUBindGroupLayout>(
        cx, v, "GPUPipelineLayoutDescriptor.bindGroupLayouts[" + std::to_string(i) + "]");
    if (!l) return false;
    layouts[i] = l->layout.get();
  }
  std::string label = Label(cx, d);
  WGPUPipelineLayoutDescriptor desc{};
  desc.label = wg::Sv(label);
  desc.bindGroupLayoutCount = layouts.size();
  desc.bindGroupLayouts = layouts.data();
  auto owner = std::make_unique<GPUPipelineLayout>();
  owner->layout =
      wg::PipelineLayout::Adopt(wg::P().DeviceCreatePipelineLayout(self->device.get(), &desc));
  bool ok = static_cast<bool>(owner->layout);
  return Return(args, WrapNew(cx, &GPUPipelineLayout::kClass, std::move(owner), ok,
                              "createPipelineLayout", label));
}

// createBindGroup({layout, entries: [{binding, resource: GPUBuffer | {buffer, offset, size}}]})
bool CreateBindGroup(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createBindGroup");
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPUDevice.createBindGroup descriptor", &d)) return false;
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, d, "layout", &v, &present)) return false;
  auto* layout = UnwrapValue<GPUBindGroupLayout>(cx, v, "GPUBindGroupDescriptor.layout");
  if (!layout) return false;
  if (!Member(cx, d, "entries", &v, &present)) return false;
  if (!present) return MissingMember(cx, "GPUBindGroupDescriptor", "entries");
  JS::RootedObject list(cx);
  uint32_t n = 0;
  if (!ArrayArg(cx, v, "GPUBindGroupDescriptor.entries", &list, &n)) return false;
  std::vector<WGPUBindGroupEntry> entries(n);
  std::vector<wg::TextureView> views;
  views.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    std::string where = "GPUBindGroupDescriptor.entries[" + std::to_string(i) + "]";
    if (!JS_GetElement(cx, list, i, &v) || !v.isObject())
      return ThrowTypeError(cx, where + " must be an object");
    JS::RootedObject e(cx, &v.toObject());
    uint64_t binding;
    if (!RequiredU64(cx, e, "binding", where, &binding)) return false;
    entries[i].binding = static_cast<uint32_t>(binding);
    if (!Member(cx, e, "resource", &v, &present)) return false;
    if (!present || !v.isObject())
      return ThrowTypeError(cx, where + ": required member resource is undefined");
    JS::RootedObject resource(cx, &v.toObject());
    JS::RootedValue buffer_value(cx, v);
    entries[i].offset = 0;
    entries[i].size = WGPU_WHOLE_SIZE;
    const JSClass* cls = JS::GetClass(resource);
    if (cls == &GPUSampler::kClass) {
      entries[i].sampler = UnwrapValue<GPUSampler>(cx, v, where)->sampler.get();
      continue;
    }
    if (cls == &GPUTextureView::kClass) {
      entries[i].textureView = UnwrapValue<GPUTextureView>(cx, v, where)->view.get();
      continue;
    }
    if (cls == &GPUTexture::kClass) {
      // A GPUTexture stands for its default view (spec: GPUBindingResource includes it).
      auto* texture = UnwrapValue<GPUTexture>(cx, v, where);
      views.push_back(
          wg::TextureView::Adopt(wg::P().TextureCreateView(texture->texture.get(), nullptr)));
      entries[i].textureView = views.back().get();
      continue;
    }
    if (cls != &GPUBuffer::kClass) {
      // GPUBufferBinding {buffer, offset, size}
      if (!Member(cx, resource, "buffer", &buffer_value, &present)) return false;
      if (!present) {
        return ThrowTypeError(cx, where +
                                      ".resource must be a GPUSampler, GPUTextureView, GPUTexture, "
                                      "GPUBuffer or GPUBufferBinding");
      }
      if (!OptionalU64(cx, resource, "offset", where, 0, &entries[i].offset) ||
          !OptionalU64(cx, resource, "size", where, WGPU_WHOLE_SIZE, &entries[i].size)) {
        return false;
      }
    }
    auto* buffer = UnwrapValue<GPUBuffer>(cx, buffer_value, where + " resource");
    if (!buffer) return false;
    entries[i].buffer = buffer->buffer.get();
  }
  std::string label = Label(cx, d);
  WGPUBindGroupDescriptor desc{};
  desc.label = wg::Sv(label);
  desc.layout = layout->layout.get();
  desc.entryCount = entries.size();
  desc.entries = entries.data();
  auto owner = std::make_unique<GPUBindGroup>();
  owner->group = wg::BindGroup::Adopt(wg::P().DeviceCreateBindGroup(self->device.get(), &desc));
  bool ok = static_cast<bool>(owner->group);
  return Return(args,
                WrapNew(cx, &GPUBindGroup::kClass, std::move(owner), ok, "createBindGroup", label));
}

bool CreateCommandEncoder(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createCommandEncoder");
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPUDevice.createCommandEncoder descriptor", &d)) return false;
  std::string label = Label(cx, d);
  WGPUCommandEncoderDescriptor desc{};
  desc.label = wg::Sv(label);
  auto owner = std::make_unique<GPUCommandEncoder>();
  owner->encoder =
      wg::CommandEncoder::Adopt(wg::P().DeviceCreateCommandEncoder(self->device.get(), &desc));
  bool ok = static_cast<bool>(owner->encoder);
  return Return(args, WrapNew(cx, &GPUCommandEncoder::kClass, std::move(owner), ok,
                              "createCommandEncoder", label));
}

bool PushErrorScope(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.pushErrorScope");
  std::string filter;
  if (!ValueToUtf8(cx, args.get(0), &filter)) return false;
  WGPUErrorFilter f;
  if (filter == "validation")
    f = WGPUErrorFilter_Validation;
  else if (filter == "out-of-memory")
    f = WGPUErrorFilter_OutOfMemory;
  else if (filter == "internal")
    f = WGPUErrorFilter_Internal;
  else
    return ThrowTypeError(
        cx, "GPUDevice.pushErrorScope: '" + filter + "' is not a valid GPUErrorFilter");
  wg::P().DevicePushErrorScope(self->device.get(), f);
  args.rval().setUndefined();
  return true;
}

bool PopErrorScope(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.popErrorScope");
  auto req = std::make_unique<ScopePop>(cx);
  args.rval().setObject(*req->promise);
  WGPUPopErrorScopeCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = &OnPopErrorScope;
  cb.userdata1 = req.release();
  wg::P().DevicePopErrorScope(self->device.get(), cb);
  return true;
}

bool Destroy(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.destroy");
  if (!DetachDeviceMappings(cx, *self->shared)) return false;
  if (!self->shared->awaiting_loss) {
    self->shared->awaiting_loss = SmEngine::From(cx)->host().loop->BeginGpuWork();
  }
  self->shared->gone->store(true);
  wg::P().DeviceDestroy(self->device.get());
  args.rval().setUndefined();
  return true;
}

bool GetQueue(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.queue");
  (void)self;
  args.rval().set(JS::GetReservedSlot(&args.thisv().toObject(), GPUDevice::kQueue));
  return true;
}

bool GetLost(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.lost");
  (void)self;
  args.rval().set(JS::GetReservedSlot(&args.thisv().toObject(), GPUDevice::kLost));
  return true;
}

bool GetLimits(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.limits");
  JSObject* obj = &args.thisv().toObject();
  JS::Value cached = JS::GetReservedSlot(obj, GPUDevice::kLimits);
  if (!cached.isObject()) {
    WGPULimits limits{};
    wg::P().DeviceGetLimits(self->device.get(), &limits);
    JSObject* out = NewSupportedLimits(cx, limits);
    if (!out) return false;
    JS::SetReservedSlot(obj, GPUDevice::kLimits, JS::ObjectValue(*out));
    cached = JS::ObjectValue(*out);
  }
  args.rval().set(cached);
  return true;
}

bool GetAdapterInfo(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.adapterInfo");
  (void)self;
  args.rval().set(JS::GetReservedSlot(&args.thisv().toObject(), GPUDevice::kAdapterInfo));
  return true;
}

// importExternalTexture({source: HTMLVideoElement | VideoFrame}): neither interface exists in
// alknet, so no argument can convert (the TypeError a browser gives for a wrong source type).
bool ImportExternalTexture(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.importExternalTexture");
  (void)self;
  return ThrowTypeError(cx,
                        "GPUDevice.importExternalTexture: GPUExternalTextureDescriptor.source "
                        "must be an HTMLVideoElement or a VideoFrame, which alknet does not have");
}

bool GetFeatures(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.features");
  JSObject* obj = &args.thisv().toObject();
  JS::Value cached = JS::GetReservedSlot(obj, GPUDevice::kFeatures);
  if (!cached.isObject()) {
    std::vector<std::string> names;
    // webgpu.h of this revision has no device feature list; ask for each standard feature.
    for (uint32_t f = 1; f < 64; ++f) {
      std::string name = wg::FeatureName(static_cast<WGPUFeatureName>(f));
      if (name.rfind("unknown-", 0) == 0) continue;
      if (wg::P().DeviceHasFeature(self->device.get(), static_cast<WGPUFeatureName>(f)))
        names.push_back(name);
    }
    JSObject* set = NewFeatureSet(cx, names);
    if (!set) return false;
    JS::SetReservedSlot(obj, GPUDevice::kFeatures, JS::ObjectValue(*set));
    cached = JS::ObjectValue(*set);
  }
  args.rval().set(cached);
  return true;
}

const JSPropertySpec kProperties[] = {JS_PSG("queue", GetQueue, JSPROP_ENUMERATE),
                                      JS_PSG("lost", GetLost, JSPROP_ENUMERATE),
                                      JS_PSG("limits", GetLimits, JSPROP_ENUMERATE),
                                      JS_PSG("features", GetFeatures, JSPROP_ENUMERATE),
                                      JS_PSG("adapterInfo", GetAdapterInfo, JSPROP_ENUMERATE),
                                      JS_PS_END};
const JSFunctionSpec kMethods[] = {
    JS_FN("createBuffer", CreateBuffer, 1, JSPROP_ENUMERATE),
    JS_FN("createTexture", CreateTexture, 1, JSPROP_ENUMERATE),
    JS_FN("createSampler", CreateSampler, 0, JSPROP_ENUMERATE),
    JS_FN("createQuerySet", CreateQuerySet, 1, JSPROP_ENUMERATE),
    JS_FN("createRenderPipeline", CreateRenderPipeline, 1, JSPROP_ENUMERATE),
    JS_FN("createRenderPipelineAsync", CreateRenderPipelineAsync, 1, JSPROP_ENUMERATE),
    JS_FN("createRenderBundleEncoder", CreateRenderBundleEncoder, 1, JSPROP_ENUMERATE),
    JS_FN("createShaderModule", CreateShaderModule, 1, JSPROP_ENUMERATE),
    JS_FN("createComputePipeline", CreateComputePipeline, 1, JSPROP_ENUMERATE),
    JS_FN("createComputePipelineAsync", CreateComputePipelineAsync, 1, JSPROP_ENUMERATE),
    JS_FN("createBindGroupLayout", CreateBindGroupLayout, 1, JSPROP_ENUMERATE),
    JS_FN("createPipelineLayout", CreatePipelineLayout, 1, JSPROP_ENUMERATE),
    JS_FN("createBindGroup", CreateBindGroup, 1, JSPROP_ENUMERATE),
    JS_FN("createCommandEncoder", CreateCommandEncoder, 0, JSPROP_ENUMERATE),
    JS_FN("pushErrorScope", PushErrorScope, 1, JSPROP_ENUMERATE),
    JS_FN("popErrorScope", PopErrorScope, 0, JSPROP_ENUMERATE),
    JS_FN("destroy", Destroy, 0, JSPROP_ENUMERATE),
    JS_FN("importExternalTexture", ImportExternalTexture, 1, JSPROP_ENUMERATE),
    JS_FS_END};

}  // namespace

std::shared_ptr<DeviceShared> NewDeviceShared(JSContext* cx) {
  auto shared = std::make_shared<DeviceShared>();
  shared->cx = cx;
  State(cx).devices.push_back(shared);
  return shared;
}

void SetDeviceCallbacks(WGPUDeviceDescriptor& desc, DeviceShared* shared) {
  desc.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowProcessEvents;
  desc.deviceLostCallbackInfo.callback = &OnDeviceLost;
  desc.deviceLostCallbackInfo.userdata1 = shared;
  desc.uncapturedErrorCallbackInfo.callback = &OnUncapturedError;
  desc.uncapturedErrorCallbackInfo.userdata1 = shared;
}

JSObject* NewDevice(JSContext* cx, wg::DeviceHandle device, std::shared_ptr<DeviceShared> shared,
                    std::string_view label) {
  auto queue_owner = std::make_unique<GPUQueue>();
  queue_owner->queue = wg::Queue::Adopt(wg::P().DeviceGetQueue(device.get()));
  JS::RootedObject queue(cx, WrapLabelled(cx, &GPUQueue::kClass, std::move(queue_owner), ""));
  JS::RootedObject lost(cx, JS::NewPromiseObject(cx, nullptr));
  if (!queue || !lost) return nullptr;
  auto owner = std::make_unique<GPUDevice>();
  owner->device = std::move(device);
  owner->shared = shared;
  JS::RootedObject obj(cx, WrapLabelled(cx, &GPUDevice::kClass, std::move(owner), label));
  if (!obj) return nullptr;
  JS::SetReservedSlot(obj, GPUDevice::kQueue, JS::ObjectValue(*queue));
  JS::SetReservedSlot(obj, GPUDevice::kLost, JS::ObjectValue(*lost));
  shared->js_device = std::make_unique<JS::PersistentRootedObject>(cx, obj);
  shared->lost_promise = std::make_unique<JS::PersistentRootedObject>(cx, lost);
  return obj;
}

JSObject* NewContextDevice(JSContext* cx, wg::Context& context, std::string_view label) {
  if (Instance(cx) == nullptr) return nullptr;  // installs the loop's GPU poller
  // The Context registered its own loss and error callbacks when it made the device; the poll
  // below carries what they collected to this GPUDevice.
  auto shared = NewDeviceShared(cx);
  wg::P().DeviceAddRef(context.device());
  JSObject* obj = NewDevice(cx, wg::DeviceHandle::Adopt(context.device()), shared, label);
  if (!obj) return nullptr;
  State(cx).context_devices.push_back({&context, shared, false});
  return obj;
}

namespace {
// Moves what a context device's own callbacks collected (its uncaptured errors, its loss) to its
// GPUDevice. Cheap: the loop's poll and every microtask checkpoint call it, since an error made
// by a synchronous call (createBuffer) leaves no GPU work pending that would make the loop poll.
void CollectContextDevice(JSContext* cx, ContextDevice& d) {
  std::vector<wg::Error> errors = d.context->TakeUncapturedErrors();
  if (!errors.empty()) {
    std::lock_guard lock(d.shared->mutex);
    for (const wg::Error& e : errors) {
      const WGPUErrorType type = e.code == wg::ErrorCode::kOutOfMemory ? WGPUErrorType_OutOfMemory
                                 : e.code == wg::ErrorCode::kInternal  ? WGPUErrorType_Internal
                                                                       : WGPUErrorType_Validation;
      d.shared->uncaptured.emplace_back(type, e.message);
    }
    if (!d.shared->awaiting_delivery) {
      d.shared->awaiting_delivery = SmEngine::From(cx)->host().loop->BeginGpuWork();
    }
  }
  if (!d.lost_reported && d.context->lost()) {
    d.lost_reported = true;
    // `gone` already set: the script's destroy() did it.
    const WGPUDeviceLostReason reason =
        d.shared->gone->load() ? WGPUDeviceLostReason_Destroyed : WGPUDeviceLostReason_Unknown;
    ReportDeviceLost(d.shared.get(), reason, d.context->lost_message());
  }
}
}  // namespace

void PollContextDevices(JSContext* cx) {
  GpuState& state = State(cx);
  if (state.closing) return;
  for (ContextDevice& d : state.context_devices) {
    d.context->ProcessEvents();
    CollectContextDevice(cx, d);
  }
}

void DrainContextDevices(GpuState& state) {
  for (ContextDevice& d : state.context_devices) {
    if (!d.context->lost()) (void)d.context->WaitIdle(std::chrono::seconds(5));
    d.context->ProcessEvents();  // callbacks see `closing` and leave JS alone
  }
  state.context_devices.clear();
}

bool DeliverUncapturedErrors(JSContext* cx) {
  if (!State(cx).closing) {
    for (ContextDevice& d : State(cx).context_devices) CollectContextDevice(cx, d);
  }
  for (const auto& shared : State(cx).devices) {
    std::vector<std::pair<WGPUErrorType, std::string>> errors;
    {
      std::lock_guard lock(shared->mutex);
      errors.swap(shared->uncaptured);
      shared->awaiting_delivery.reset();
    }
    if (errors.empty() || !shared->js_device) continue;
    JS::RootedObject device(cx, shared->js_device->get());
    for (const auto& [type, message] : errors) {
      JS::RootedObject error(cx, NewNamedError(cx, ErrorClass(type), message));
      if (!error) return false;
      JS::RootedValueArray<2> args(cx);
      args[0].setObject(*device);
      args[1].setObject(*error);
      JS::RootedValue hook(cx, JS::ObjectValue(*SmEngine::From(cx)->gpu_error_hook())), rval(cx);
      if (!JS_CallFunctionValue(cx, nullptr, hook, args, &rval)) return false;
    }
  }
  return true;
}

bool DefineGPUDevice(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPUDevice::kClass, kProperties, kMethods});
}

}  // namespace alknet::runtime::sm::gpu
