// GPUAdapter: features, limits, info, requestDevice. https://www.w3.org/TR/webgpu/#gpuadapter
#include <js/MapAndSet.h>

#include "spidermonkey/webgpu/gpu_common.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPUAdapter, GPUAdapter::kSlotCount);

namespace {

// Limits a device descriptor may require, by their spec names. (clang-format 14 is not
// idempotent on this list: it reflows it on every run.)
// clang-format off
#define ALKNET_GPU_U32_LIMITS(X)                                                              \
  X(maxTextureDimension1D) X(maxTextureDimension2D) X(maxTextureDimension3D)                  \
  X(maxTextureArrayLayers) X(maxBindGroups) X(maxBindGroupsPlusVertexBuffers)                 \
  X(maxBindingsPerBindGroup) X(maxDynamicUniformBuffersPerPipelineLayout)                     \
  X(maxDynamicStorageBuffersPerPipelineLayout) X(maxSampledTexturesPerShaderStage)            \
  X(maxSamplersPerShaderStage) X(maxStorageBuffersPerShaderStage)                             \
  X(maxStorageTexturesPerShaderStage) X(maxUniformBuffersPerShaderStage)                      \
  X(minUniformBufferOffsetAlignment) X(minStorageBufferOffsetAlignment) X(maxVertexBuffers)   \
  X(maxVertexAttributes) X(maxVertexBufferArrayStride) X(maxInterStageShaderVariables)        \
  X(maxColorAttachments) X(maxColorAttachmentBytesPerSample)                                  \
  X(maxComputeWorkgroupStorageSize) X(maxComputeInvocationsPerWorkgroup)                      \
  X(maxComputeWorkgroupSizeX) X(maxComputeWorkgroupSizeY) X(maxComputeWorkgroupSizeZ)        \
  X(maxComputeWorkgroupsPerDimension)
#define ALKNET_GPU_U64_LIMITS(X) \
  X(maxUniformBufferBindingSize) X(maxStorageBufferBindingSize) X(maxBufferSize)
// clang-format on

struct DeviceRequest : PendingPromise {
  DeviceRequest(JSContext* cx, JSObject* adapter)
      : PendingPromise(cx), adapter_object(cx, adapter) {}
  // Keeps the GPUAdapter alive until the callback (which may hand its state back).
  JS::PersistentRootedObject adapter_object;
  std::shared_ptr<DeviceShared> shared;
  std::string label;
};

void OnDevice(WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message,
              void* userdata, void*) {
  std::unique_ptr<DeviceRequest> req(static_cast<DeviceRequest*>(userdata));
  wg::DeviceHandle owned = wg::DeviceHandle::Adopt(device);
  if (State(req->cx).closing) return;
  JSContext* cx = req->cx;
  if (status != WGPURequestDeviceStatus_Success || !owned) {
    // A request Dawn refused does not use the adapter up (spec: only a device does).
    auto* adapter = JS::GetMaybePtrFromReservedSlot<GPUAdapter>(req->adapter_object, kOwnerSlot);
    if (adapter) adapter->consumed = false;
    req->RejectWith("OperationError", "requestDevice failed: " + std::string(wg::FromSv(message)));
    return;
  }
  JS::RootedValue v(cx);
  WGPUAdapterInfo info{};
  bool have_info = wg::P().DeviceGetAdapterInfo(owned.get(), &info) == WGPUStatus_Success;
  JS::RootedObject info_obj(cx, have_info ? NewAdapterInfo(cx, info) : nullptr);
  if (have_info) wg::P().AdapterInfoFreeMembers(info);
  JS::RootedObject obj(
      cx, info_obj ? NewDevice(cx, std::move(owned), req->shared, req->label) : nullptr);
  if (obj) JS::SetReservedSlot(obj, GPUDevice::kAdapterInfo, JS::ObjectValue(*info_obj));
  if (!obj) {
    JS_GetPendingException(cx, &v);
    JS_ClearPendingException(cx);
    req->Reject(v);
    return;
  }
  v.setObject(*obj);
  req->Resolve(v);
}

bool FeatureByName(WGPUAdapter adapter, std::string_view name, WGPUFeatureName* out) {
  WGPUSupportedFeatures features{};
  wg::P().AdapterGetFeatures(adapter, &features);
  bool found = false;
  for (size_t i = 0; i < features.featureCount && !found; ++i) {
    if (wg::FeatureName(features.features[i]) == name) {
      *out = features.features[i];
      found = true;
    }
  }
  wg::P().SupportedFeaturesFreeMembers(features);
  return found;
}

// requestDevice({requiredFeatures, requiredLimits, label})
bool RequestDevice(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUAdapter, "GPUAdapter.requestDevice");
  JS::RootedObject desc_obj(cx);
  if (!DictArg(cx, args.get(0), "GPUAdapter.requestDevice descriptor", &desc_obj)) return false;
  auto req = std::make_unique<DeviceRequest>(cx, &args.thisv().toObject());
  JS::RootedObject promise(cx, req->promise);
  args.rval().setObject(*promise);

  std::vector<WGPUFeatureName> features;
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, desc_obj, "requiredFeatures", &v, &present)) return false;
  if (present) {
    JS::RootedObject list(cx);
    uint32_t n = 0;
    if (!ArrayArg(cx, v, "GPUDeviceDescriptor.requiredFeatures", &list, &n)) return false;
    for (uint32_t i = 0; i < n; ++i) {
      std::string name;
      if (!JS_GetElement(cx, list, i, &v) || !ValueToUtf8(cx, v, &name)) return false;
      WGPUFeatureName f = WGPUFeatureName_Force32;
      if (!FeatureByName(self->adapter.get(), name, &f)) {
        req->RejectWith("TypeError",
                        "requestDevice: the adapter does not support feature '" + name + "'");
        return true;
      }
      features.push_back(f);
    }
  }
  WGPULimits limits{};
  if (!Member(cx, desc_obj, "requiredLimits", &v, &present)) return false;
  bool have_limits = false;
  if (present) {
    if (!v.isObject())
      return ThrowTypeError(cx, "GPUAdapter.requestDevice: requiredLimits must be an object");
    JS::RootedObject l(cx, &v.toObject());
    WGPULimits supported{};
    wg::P().AdapterGetLimits(self->adapter.get(), &supported);
    if (!ReadRequiredLimits(cx, l, supported, &limits)) {
      // An unknown limit name rejects (OperationError), as the spec says.
      JS::RootedValue e(cx);
      JS_GetPendingException(cx, &e);
      JS_ClearPendingException(cx);
      req->Reject(e);
      return true;
    }
    have_limits = true;
  }
  std::string label = Label(cx, desc_obj);
  // Spec: an adapter gives out one device; a second request (even while the first is pending)
  // rejects. Requests refused above by argument checks leave it unconsumed.
  if (self->consumed) {
    req->RejectWith("OperationError",
                    "requestDevice: this adapter has already given out a device (it is consumed); "
                    "request a new adapter");
    return true;
  }
  self->consumed = true;

  req->shared = NewDeviceShared(cx);
  req->label = label;
  WGPUDeviceDescriptor desc{};
  desc.label = wg::Sv(label);
  desc.requiredFeatureCount = features.size();
  desc.requiredFeatures = features.data();
  desc.requiredLimits = have_limits ? &limits : nullptr;
  SetDeviceCallbacks(desc, req->shared.get());
  WGPURequestDeviceCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = &OnDevice;
  cb.userdata1 = req.release();
  wg::P().AdapterRequestDevice(self->adapter.get(), &desc, cb);
  return true;
}

bool GetFeatures(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUAdapter, "GPUAdapter.features");
  JSObject* obj = &args.thisv().toObject();
  JS::Value cached = JS::GetReservedSlot(obj, GPUAdapter::kFeatures);
  if (cached.isObject()) {
    args.rval().set(cached);
    return true;
  }
  WGPUSupportedFeatures features{};
  wg::P().AdapterGetFeatures(self->adapter.get(), &features);
  std::vector<std::string> names;
  for (size_t i = 0; i < features.featureCount; ++i) {
    std::string n = wg::FeatureName(features.features[i]);
    // Only the spec's names: Dawn's own features ("dawn-0x5....") are not WebGPU features.
    if (n.rfind("unknown-", 0) != 0 && n.rfind("dawn-", 0) != 0) names.push_back(std::move(n));
  }
  wg::P().SupportedFeaturesFreeMembers(features);
  JSObject* set = NewFeatureSet(cx, names);
  if (!set) return false;
  JS::SetReservedSlot(obj, GPUAdapter::kFeatures, JS::ObjectValue(*set));
  args.rval().setObject(*set);
  return true;
}

bool GetLimits(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUAdapter, "GPUAdapter.limits");
  JSObject* obj = &args.thisv().toObject();
  JS::Value cached = JS::GetReservedSlot(obj, GPUAdapter::kLimits);
  if (cached.isObject()) {
    args.rval().set(cached);
    return true;
  }
  WGPULimits limits{};
  wg::P().AdapterGetLimits(self->adapter.get(), &limits);
  JSObject* out = NewSupportedLimits(cx, limits);
  if (!out) return false;
  JS::SetReservedSlot(obj, GPUAdapter::kLimits, JS::ObjectValue(*out));
  args.rval().setObject(*out);
  return true;
}

bool GetInfo(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUAdapter, "GPUAdapter.info");
  JSObject* obj = &args.thisv().toObject();
  JS::Value cached = JS::GetReservedSlot(obj, GPUAdapter::kInfo);
  if (cached.isObject()) {
    args.rval().set(cached);
    return true;
  }
  WGPUAdapterInfo info{};
  wg::P().AdapterGetInfo(self->adapter.get(), &info);
  JSObject* out = NewAdapterInfo(cx, info);
  wg::P().AdapterInfoFreeMembers(info);
  if (!out) return false;
  JS::SetReservedSlot(obj, GPUAdapter::kInfo, JS::ObjectValue(*out));
  args.rval().setObject(*out);
  return true;
}

bool GetIsFallbackAdapter(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUAdapter, "GPUAdapter.isFallbackAdapter");
  WGPUAdapterInfo info{};
  wg::P().AdapterGetInfo(self->adapter.get(), &info);
  args.rval().setBoolean(info.adapterType == WGPUAdapterType_CPU);
  wg::P().AdapterInfoFreeMembers(info);
  return true;
}

const JSPropertySpec kProperties[] = {
    JS_PSG("features", GetFeatures, JSPROP_ENUMERATE),
    JS_PSG("limits", GetLimits, JSPROP_ENUMERATE), JS_PSG("info", GetInfo, JSPROP_ENUMERATE),
    JS_PSG("isFallbackAdapter", GetIsFallbackAdapter, JSPROP_ENUMERATE), JS_PS_END};
const JSFunctionSpec kMethods[] = {JS_FN("requestDevice", RequestDevice, 0, JSPROP_ENUMERATE),
                                   JS_FS_END};

}  // namespace

JSObject* NewStringList(JSContext* cx, const std::vector<std::string>& names) {
  JS::RootedObject list(cx, JS::NewArrayObject(cx, names.size()));
  if (!list) return nullptr;
  for (size_t i = 0; i < names.size(); ++i) {
    JS::RootedString s(cx, NewString(cx, names[i]));
    if (!s || !JS_SetElement(cx, list, static_cast<uint32_t>(i), s)) return nullptr;
  }
  return list;
}

// GPUSupportedFeatures: a readonly setlike built by the prelude.
JSObject* NewFeatureSet(JSContext* cx, const std::vector<std::string>& names) {
  JS::RootedObject list(cx, NewStringList(cx, names));
  if (!list) return nullptr;
  JS::RootedValue data(cx, JS::ObjectValue(*list));
  return MakeFromData(cx, "GPUSupportedFeatures", data);
}

JSObject* NewAdapterInfo(JSContext* cx, const WGPUAdapterInfo& info) {
  JS::RootedObject out(cx, JS_NewPlainObject(cx));
  bool ok = out != nullptr;
  auto str = [&](const char* name, WGPUStringView sv) {
    if (!ok) return;
    JS::RootedString s(cx, NewString(cx, wg::FromSv(sv)));
    ok = s && JS_DefineProperty(cx, out, name, s, JSPROP_ENUMERATE);
  };
  str("vendor", info.vendor);
  str("architecture", info.architecture);
  str("device", info.device);
  str("description", info.description);
  if (ok)
    ok = JS_DefineProperty(cx, out, "subgroupMinSize", info.subgroupMinSize, JSPROP_ENUMERATE);
  if (ok)
    ok = JS_DefineProperty(cx, out, "subgroupMaxSize", info.subgroupMaxSize, JSPROP_ENUMERATE);
  if (ok) {
    JS::RootedValue fallback(cx, JS::BooleanValue(info.adapterType == WGPUAdapterType_CPU));
    ok = JS_DefineProperty(cx, out, "isFallbackAdapter", fallback, JSPROP_ENUMERATE);
  }
  if (!ok) return nullptr;
  JS::RootedValue data(cx, JS::ObjectValue(*out));
  return MakeFromData(cx, "GPUAdapterInfo", data);
}

namespace {
// Limits of the spec that this Dawn's WGPULimits does not carry: in a core-mode device they
// are the per-shader-stage limit they refine (the spec's compatibility mode lowers them).
struct StageLimit {
  const char* name;
  uint32_t WGPULimits::*core;
};
constexpr StageLimit kStageLimits[] = {
    {"maxStorageBuffersInVertexStage", &WGPULimits::maxStorageBuffersPerShaderStage},
    {"maxStorageBuffersInFragmentStage", &WGPULimits::maxStorageBuffersPerShaderStage},
    {"maxStorageTexturesInVertexStage", &WGPULimits::maxStorageTexturesPerShaderStage},
    {"maxStorageTexturesInFragmentStage", &WGPULimits::maxStorageTexturesPerShaderStage},
};
}  // namespace

// GPUSupportedLimits: prototype getters over the limits, built by the prelude.
JSObject* NewSupportedLimits(JSContext* cx, const WGPULimits& limits) {
  JS::RootedObject out(cx, JS_NewPlainObject(cx));
  if (!out) return nullptr;
  for (const auto& [name, value] : wg::LimitList(limits)) {
    if (name == "maxImmediateSize") continue;  // not a WebGPU (JS) limit
    JS::RootedValue v(cx, JS::NumberValue(static_cast<double>(value)));
    if (!JS_DefineProperty(cx, out, name.c_str(), v, JSPROP_ENUMERATE)) return nullptr;
  }
  for (const auto& stage : kStageLimits) {
    JS::RootedValue v(cx, JS::NumberValue(static_cast<double>(limits.*stage.core)));
    if (!JS_DefineProperty(cx, out, stage.name, v, JSPROP_ENUMERATE)) return nullptr;
  }
  JS::RootedValue data(cx, JS::ObjectValue(*out));
  return MakeFromData(cx, "GPUSupportedLimits", data);
}

namespace {
bool RejectLimit(JSContext* cx, const std::string& message) {
  JSObject* e = NewNamedError(cx, "DOMException", "requestDevice: " + message, "OperationError");
  if (e) {
    JS::RootedValue ev(cx, JS::ObjectValue(*e));
    JS_SetPendingException(cx, ev);
  }
  return false;
}

// The spec's checks of one requested limit against the adapter's (OperationError): an
// alignment must be a power of two and not below the adapter's, a maximum not above it.
bool CheckLimit(JSContext* cx, const std::string& name, uint64_t value, uint64_t supported) {
  bool alignment = name.rfind("min", 0) == 0;
  if (alignment) {
    // A power of two no larger than 2^31 (the largest a 32-bit alignment can be).
    if (value == 0 || (value & (value - 1)) != 0 || value > (uint64_t{1} << 31)) {
      return RejectLimit(cx,
                         name + " = " + std::to_string(value) + " is not a power of 2 up to 2^31");
    }
    if (value < supported) {
      return RejectLimit(cx, name + " = " + std::to_string(value) +
                                 " is better than the adapter's " + std::to_string(supported));
    }
  } else if (value > supported) {
    return RejectLimit(cx, name + " = " + std::to_string(value) + " is better than the adapter's " +
                               std::to_string(supported));
  }
  return true;
}
}  // namespace

bool ReadRequiredLimits(JSContext* cx, JS::HandleObject dict, const WGPULimits& supported,
                        WGPULimits* limits) {
#define ALKNET_UNDEF32(n) limits->n = WGPU_LIMIT_U32_UNDEFINED;
#define ALKNET_UNDEF64(n) limits->n = WGPU_LIMIT_U64_UNDEFINED;
  ALKNET_GPU_U32_LIMITS(ALKNET_UNDEF32)
  ALKNET_GPU_U64_LIMITS(ALKNET_UNDEF64)
  limits->maxImmediateSize = WGPU_LIMIT_U32_UNDEFINED;
#undef ALKNET_UNDEF32
#undef ALKNET_UNDEF64
  JS::Rooted<JS::IdVector> ids(cx, JS::IdVector(cx));
  if (!JS_Enumerate(cx, dict, &ids)) return false;
  JS::RootedValue v(cx);
  for (size_t i = 0; i < ids.length(); ++i) {
    if (!ids[i].isString()) continue;
    std::string name = ToUtf8(cx, ids[i].toString());
    if (!JS_GetPropertyById(cx, dict, ids[i], &v)) return false;
    if (v.isUndefined()) continue;
    bool known = false;
    // Every requested value is a GPUSize64 ([EnforceRange] unsigned long long): past 2^32 is
    // not a TypeError but a value the adapter cannot meet (OperationError) when it is checked.
#define ALKNET_SET32(n)                                            \
  if (name == #n) {                                                \
    known = true;                                                  \
    uint64_t value = 0;                                            \
    if (!ToU64(cx, v, "requiredLimits." #n, &value)) return false; \
    if (!CheckLimit(cx, name, value, supported.n)) return false;   \
    limits->n = static_cast<uint32_t>(value);                      \
  }
#define ALKNET_SET64(n)                                                \
  if (name == #n) {                                                    \
    known = true;                                                      \
    if (!ToU64(cx, v, "requiredLimits." #n, &limits->n)) return false; \
    if (!CheckLimit(cx, name, limits->n, supported.n)) return false;   \
  }
    ALKNET_GPU_U32_LIMITS(ALKNET_SET32)
    ALKNET_GPU_U64_LIMITS(ALKNET_SET64)
#undef ALKNET_SET32
#undef ALKNET_SET64
    for (const auto& stage : kStageLimits) {
      if (name != stage.name) continue;
      known = true;
      uint64_t value = 0;
      if (!ToU64(cx, v, "requiredLimits." + name, &value) ||
          !CheckLimit(cx, name, value, supported.*stage.core)) {
        return false;
      }
    }
    if (!known) return RejectLimit(cx, "unknown limit '" + name + "'");
  }
  return true;
}

bool DefineGPUAdapter(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPUAdapter::kClass, kProperties, kMethods, false});
}

}  // namespace alknet::runtime::sm::gpu
