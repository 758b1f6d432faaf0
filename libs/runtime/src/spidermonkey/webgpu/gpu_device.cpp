// GPUDevice: the create* factories, queue, error scopes, lost, uncaptured errors.
// https://www.w3.org/TR/webgpu/#gpudevice
#include <mutex>
#include <optional>

#include "spidermonkey/webgpu/gpu_common.h"

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
};

GPUDevice::~GPUDevice() = default;

namespace {

const char* ErrorClass(WGPUErrorType type) {
  switch (type) {
    case WGPUErrorType_OutOfMemory: return "GPUOutOfMemoryError";
    case WGPUErrorType_Internal: return "GPUInternalError";
    default: return "GPUValidationError";
  }
}

void OnUncapturedError(const WGPUDevice*, WGPUErrorType type, WGPUStringView message, void* ud, void*) {
  // May run inside any WebGPU call; JS is only reached later, at a microtask checkpoint.
  auto* shared = static_cast<DeviceShared*>(ud);
  std::lock_guard lock(shared->mutex);
  shared->uncaptured.emplace_back(type, std::string(wg::FromSv(message)));
}

void OnDeviceLost(const WGPUDevice*, WGPUDeviceLostReason reason, WGPUStringView message, void* ud, void*) {
  auto* shared = static_cast<DeviceShared*>(ud);
  if (shared->cx == nullptr || State(shared->cx).closing || !shared->lost_promise) return;
  shared->awaiting_loss.reset();
  JSContext* cx = shared->cx;
  JS::RootedObject info(cx, JS_NewPlainObject(cx));
  JS::RootedString why(cx, NewString(cx, reason == WGPUDeviceLostReason_Destroyed ? "destroyed" : "unknown"));
  JS::RootedString text(cx, NewString(cx, wg::FromSv(message)));
  JS::RootedObject promise(cx, shared->lost_promise->get());
  JS::RootedValue v(cx);
  if (info && why && text && JS_DefineProperty(cx, info, "reason", why, JSPROP_ENUMERATE) &&
      JS_DefineProperty(cx, info, "message", text, JSPROP_ENUMERATE)) {
    v.setObject(*info);
    JS::ResolvePromise(cx, promise, v);
  }
  JS_ClearPendingException(cx);
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
    JSObject* re = NewNamedError(cx, "RangeError",
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
  if (mapped) {
    owner->mapped_at_creation = true;
    owner->writable_mapping = true;
    owner->map_size = size;
  }
  bool ok = static_cast<bool>(owner->buffer);
  return Return(args, WrapNew(cx, &GPUBuffer::kClass, std::move(owner), ok, "createBuffer", label));
}

// createShaderModule({code, label}); compilation errors go to the error scopes / uncapturederror.
bool CreateShaderModule(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createShaderModule");
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPUDevice.createShaderModule descriptor", &d)) return false;
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, d, "code", &v, &present)) return false;
  if (!present) return ThrowTypeError(cx, "GPUShaderModuleDescriptor: required member code is undefined");
  std::string code, label = Label(cx, d);
  if (!ValueToUtf8(cx, v, &code)) return false;
  WGPUShaderSourceWGSL wgsl{};
  wgsl.chain.sType = WGPUSType_ShaderSourceWGSL;
  wgsl.code = wg::Sv(code);
  WGPUShaderModuleDescriptor desc{};
  desc.nextInChain = &wgsl.chain;
  desc.label = wg::Sv(label);
  auto owner = std::make_unique<GPUShaderModule>();
  owner->module = wg::ShaderModule::Adopt(wg::P().DeviceCreateShaderModule(self->device.get(), &desc));
  bool ok = static_cast<bool>(owner->module);
  return Return(args, WrapNew(cx, &GPUShaderModule::kClass, std::move(owner), ok, "createShaderModule", label));
}

bool BuildComputePipeline(JSContext* cx, GPUDevice* self, JS::HandleValue arg, std::string_view what,
                          JS::MutableHandleObject out) {
  JS::RootedObject d(cx);
  if (!DictArg(cx, arg, std::string(what) + " descriptor", &d)) return false;
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, d, "layout", &v, &present)) return false;
  if (!present) return ThrowTypeError(cx, std::string(what) + ": required member layout is undefined (use \"auto\")");
  WGPUPipelineLayout layout = nullptr;
  if (!v.isString()) {
    auto* pl = UnwrapValue<GPUPipelineLayout>(cx, v, std::string(what) + " layout");
    if (!pl) return false;
    layout = pl->layout.get();
  } else if (ToUtf8(cx, v.toString()) != "auto") {
    return ThrowTypeError(cx, std::string(what) + ": layout must be a GPUPipelineLayout or \"auto\"");
  }
  if (!Member(cx, d, "compute", &v, &present)) return false;
  if (!present || !v.isObject()) return ThrowTypeError(cx, std::string(what) + ": required member compute is undefined");
  JS::RootedObject compute(cx, &v.toObject());
  if (!Member(cx, compute, "module", &v, &present)) return false;
  auto* module = UnwrapValue<GPUShaderModule>(cx, v, std::string(what) + " compute.module");
  if (!module) return false;
  std::string entry;
  if (!Member(cx, compute, "entryPoint", &v, &present)) return false;
  if (present && !ValueToUtf8(cx, v, &entry)) return false;
  // compute.constants: record<USVString, GPUPipelineConstantValue>
  std::vector<std::string> keys;
  std::vector<WGPUConstantEntry> constants;
  if (!Member(cx, compute, "constants", &v, &present)) return false;
  if (present && v.isObject()) {
    JS::RootedObject c(cx, &v.toObject());
    JS::Rooted<JS::IdVector> ids(cx, JS::IdVector(cx));
    if (!JS_Enumerate(cx, c, &ids)) return false;
    keys.reserve(ids.length());
    for (size_t i = 0; i < ids.length(); ++i) {
      JS::RootedValue key(cx), value(cx);
      if (!JS_IdToValue(cx, ids[i], &key) || !JS_GetPropertyById(cx, c, ids[i], &value)) return false;
      std::string k;
      double num;
      if (!ValueToUtf8(cx, key, &k) || !JS::ToNumber(cx, value, &num)) return false;
      keys.push_back(std::move(k));
      WGPUConstantEntry e{};
      e.value = num;
      constants.push_back(e);
    }
    for (size_t i = 0; i < keys.size(); ++i) constants[i].key = wg::Sv(keys[i]);
  }
  std::string label = Label(cx, d);
  WGPUComputePipelineDescriptor desc{};
  desc.label = wg::Sv(label);
  desc.layout = layout;
  desc.compute.module = module->module.get();
  desc.compute.entryPoint = entry.empty() ? WGPUStringView{nullptr, WGPU_STRLEN} : wg::Sv(entry);
  desc.compute.constantCount = constants.size();
  desc.compute.constants = constants.data();
  auto owner = std::make_unique<GPUComputePipeline>();
  owner->pipeline = wg::ComputePipeline::Adopt(wg::P().DeviceCreateComputePipeline(self->device.get(), &desc));
  bool ok = static_cast<bool>(owner->pipeline);
  out.set(WrapNew(cx, &GPUComputePipeline::kClass, std::move(owner), ok, what, label));
  return out != nullptr;
}

bool CreateComputePipeline(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createComputePipeline");
  JS::RootedObject pipeline(cx);
  if (!BuildComputePipeline(cx, self, args.get(0), "GPUDevice.createComputePipeline", &pipeline)) return false;
  args.rval().setObject(*pipeline);
  return true;
}

// The async variant resolves with the pipeline; a descriptor error rejects it.
bool CreateComputePipelineAsync(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createComputePipelineAsync");
  JS::RootedObject promise(cx, JS::NewPromiseObject(cx, nullptr));
  if (!promise) return false;
  JS::RootedObject pipeline(cx);
  JS::RootedValue v(cx);
  if (BuildComputePipeline(cx, self, args.get(0), "GPUDevice.createComputePipelineAsync", &pipeline)) {
    v.setObject(*pipeline);
    if (!JS::ResolvePromise(cx, promise, v)) return false;
  } else {
    if (!JS_GetPendingException(cx, &v)) return false;
    JS_ClearPendingException(cx);
    if (!JS::RejectPromise(cx, promise, v)) return false;
  }
  args.rval().setObject(*promise);
  return true;
}

// createBindGroupLayout({entries: [{binding, visibility, buffer: {type, hasDynamicOffset, minBindingSize}}]})
bool CreateBindGroupLayout(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createBindGroupLayout");
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPUDevice.createBindGroupLayout descriptor", &d)) return false;
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, d, "entries", &v, &present)) return false;
  bool is_array = false;
  JS::RootedObject list(cx, v.isObject() ? &v.toObject() : nullptr);
  if (!list || !JS::IsArrayObject(cx, list, &is_array) || !is_array) {
    return ThrowTypeError(cx, "GPUBindGroupLayoutDescriptor: entries must be an array");
  }
  uint32_t n = 0;
  if (!JS::GetArrayLength(cx, list, &n)) return false;
  std::vector<WGPUBindGroupLayoutEntry> entries(n);
  for (uint32_t i = 0; i < n; ++i) {
    if (!JS_GetElement(cx, list, i, &v) || !v.isObject()) {
      return ThrowTypeError(cx, "GPUBindGroupLayoutDescriptor: entries[" + std::to_string(i) + "] must be an object");
    }
    JS::RootedObject e(cx, &v.toObject());
    uint64_t binding, visibility;
    if (!RequiredU64(cx, e, "binding", "GPUBindGroupLayoutEntry", &binding) ||
        !RequiredU64(cx, e, "visibility", "GPUBindGroupLayoutEntry", &visibility)) {
      return false;
    }
    entries[i].binding = static_cast<uint32_t>(binding);
    entries[i].visibility = visibility;
    if (!Member(cx, e, "buffer", &v, &present)) return false;
    if (!present || !v.isObject()) {
      return ThrowTypeError(cx, "GPUBindGroupLayoutEntry: only buffer bindings are supported so far "
                                "(sampler, texture and storageTexture are not)");
    }
    JS::RootedObject b(cx, &v.toObject());
    WGPUBufferBindingType type = WGPUBufferBindingType_Uniform;
    if (!Member(cx, b, "type", &v, &present)) return false;
    if (present) {
      std::string t;
      if (!ValueToUtf8(cx, v, &t)) return false;
      if (t == "uniform") type = WGPUBufferBindingType_Uniform;
      else if (t == "storage") type = WGPUBufferBindingType_Storage;
      else if (t == "read-only-storage") type = WGPUBufferBindingType_ReadOnlyStorage;
      else return ThrowTypeError(cx, "GPUBufferBindingLayout: '" + t + "' is not a valid GPUBufferBindingType");
    }
    entries[i].buffer.type = type;
    if (!Member(cx, b, "hasDynamicOffset", &v, &present)) return false;
    entries[i].buffer.hasDynamicOffset = present && JS::ToBoolean(v);
    if (!OptionalU64(cx, b, "minBindingSize", "GPUBufferBindingLayout", 0, &entries[i].buffer.minBindingSize)) return false;
  }
  std::string label = Label(cx, d);
  WGPUBindGroupLayoutDescriptor desc{};
  desc.label = wg::Sv(label);
  desc.entryCount = entries.size();
  desc.entries = entries.data();
  auto owner = std::make_unique<GPUBindGroupLayout>();
  owner->layout = wg::BindGroupLayout::Adopt(wg::P().DeviceCreateBindGroupLayout(self->device.get(), &desc));
  bool ok = static_cast<bool>(owner->layout);
  return Return(args, WrapNew(cx, &GPUBindGroupLayout::kClass, std::move(owner), ok, "createBindGroupLayout", label));
}

bool CreatePipelineLayout(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createPipelineLayout");
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPUDevice.createPipelineLayout descriptor", &d)) return false;
  JS::RootedValue v(cx);
  bool present, is_array = false;
  if (!Member(cx, d, "bindGroupLayouts", &v, &present)) return false;
  JS::RootedObject list(cx, v.isObject() ? &v.toObject() : nullptr);
  if (!list || !JS::IsArrayObject(cx, list, &is_array) || !is_array) {
    return ThrowTypeError(cx, "GPUPipelineLayoutDescriptor: bindGroupLayouts must be an array");
  }
  uint32_t n = 0;
  if (!JS::GetArrayLength(cx, list, &n)) return false;
  std::vector<WGPUBindGroupLayout> layouts(n);
  for (uint32_t i = 0; i < n; ++i) {
    if (!JS_GetElement(cx, list, i, &v)) return false;
    auto* l = UnwrapValue<GPUBindGroupLayout>(cx, v, "GPUPipelineLayoutDescriptor.bindGroupLayouts[" + std::to_string(i) + "]");
    if (!l) return false;
    layouts[i] = l->layout.get();
  }
  std::string label = Label(cx, d);
  WGPUPipelineLayoutDescriptor desc{};
  desc.label = wg::Sv(label);
  desc.bindGroupLayoutCount = layouts.size();
  desc.bindGroupLayouts = layouts.data();
  auto owner = std::make_unique<GPUPipelineLayout>();
  owner->layout = wg::PipelineLayout::Adopt(wg::P().DeviceCreatePipelineLayout(self->device.get(), &desc));
  bool ok = static_cast<bool>(owner->layout);
  return Return(args, WrapNew(cx, &GPUPipelineLayout::kClass, std::move(owner), ok, "createPipelineLayout", label));
}

// createBindGroup({layout, entries: [{binding, resource: GPUBuffer | {buffer, offset, size}}]})
bool CreateBindGroup(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createBindGroup");
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPUDevice.createBindGroup descriptor", &d)) return false;
  JS::RootedValue v(cx);
  bool present, is_array = false;
  if (!Member(cx, d, "layout", &v, &present)) return false;
  auto* layout = UnwrapValue<GPUBindGroupLayout>(cx, v, "GPUBindGroupDescriptor.layout");
  if (!layout) return false;
  if (!Member(cx, d, "entries", &v, &present)) return false;
  JS::RootedObject list(cx, v.isObject() ? &v.toObject() : nullptr);
  if (!list || !JS::IsArrayObject(cx, list, &is_array) || !is_array) {
    return ThrowTypeError(cx, "GPUBindGroupDescriptor: entries must be an array");
  }
  uint32_t n = 0;
  if (!JS::GetArrayLength(cx, list, &n)) return false;
  std::vector<WGPUBindGroupEntry> entries(n);
  for (uint32_t i = 0; i < n; ++i) {
    std::string where = "GPUBindGroupDescriptor.entries[" + std::to_string(i) + "]";
    if (!JS_GetElement(cx, list, i, &v) || !v.isObject()) return ThrowTypeError(cx, where + " must be an object");
    JS::RootedObject e(cx, &v.toObject());
    uint64_t binding;
    if (!RequiredU64(cx, e, "binding", where, &binding)) return false;
    entries[i].binding = static_cast<uint32_t>(binding);
    if (!Member(cx, e, "resource", &v, &present)) return false;
    if (!present || !v.isObject()) return ThrowTypeError(cx, where + ": required member resource is undefined");
    JS::RootedObject resource(cx, &v.toObject());
    JS::RootedValue buffer_value(cx, v);
    entries[i].offset = 0;
    entries[i].size = WGPU_WHOLE_SIZE;
    if (JS::GetClass(resource) != &GPUBuffer::kClass) {
      // GPUBufferBinding {buffer, offset, size}
      if (!Member(cx, resource, "buffer", &buffer_value, &present)) return false;
      if (!present) {
        return ThrowTypeError(cx, where + ": only buffer resources are supported so far");
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
  return Return(args, WrapNew(cx, &GPUBindGroup::kClass, std::move(owner), ok, "createBindGroup", label));
}

bool CreateCommandEncoder(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.createCommandEncoder");
  JS::RootedObject d(cx);
  if (!DictArg(cx, args.get(0), "GPUDevice.createCommandEncoder descriptor", &d)) return false;
  std::string label = Label(cx, d);
  WGPUCommandEncoderDescriptor desc{};
  desc.label = wg::Sv(label);
  auto owner = std::make_unique<GPUCommandEncoder>();
  owner->encoder = wg::CommandEncoder::Adopt(wg::P().DeviceCreateCommandEncoder(self->device.get(), &desc));
  bool ok = static_cast<bool>(owner->encoder);
  return Return(args, WrapNew(cx, &GPUCommandEncoder::kClass, std::move(owner), ok, "createCommandEncoder", label));
}

bool PushErrorScope(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUDevice, "GPUDevice.pushErrorScope");
  std::string filter;
  if (!ValueToUtf8(cx, args.get(0), &filter)) return false;
  WGPUErrorFilter f;
  if (filter == "validation") f = WGPUErrorFilter_Validation;
  else if (filter == "out-of-memory") f = WGPUErrorFilter_OutOfMemory;
  else if (filter == "internal") f = WGPUErrorFilter_Internal;
  else return ThrowTypeError(cx, "GPUDevice.pushErrorScope: '" + filter + "' is not a valid GPUErrorFilter");
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
  if (!self->shared->awaiting_loss) {
    self->shared->awaiting_loss = SmEngine::From(cx)->host().loop->BeginGpuWork();
  }
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
      if (wg::P().DeviceHasFeature(self->device.get(), static_cast<WGPUFeatureName>(f))) names.push_back(name);
    }
    JSObject* set = NewFeatureSet(cx, names);
    if (!set) return false;
    JS::SetReservedSlot(obj, GPUDevice::kFeatures, JS::ObjectValue(*set));
    cached = JS::ObjectValue(*set);
  }
  args.rval().set(cached);
  return true;
}

const JSPropertySpec kProperties[] = {
    JS_PSG("queue", GetQueue, JSPROP_ENUMERATE),
    JS_PSG("lost", GetLost, JSPROP_ENUMERATE),
    JS_PSG("limits", GetLimits, JSPROP_ENUMERATE),
    JS_PSG("features", GetFeatures, JSPROP_ENUMERATE),
    JS_PS_END};
const JSFunctionSpec kMethods[] = {
    JS_FN("createBuffer", CreateBuffer, 1, JSPROP_ENUMERATE),
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

bool DeliverUncapturedErrors(JSContext* cx) {
  for (const auto& shared : State(cx).devices) {
    std::vector<std::pair<WGPUErrorType, std::string>> errors;
    {
      std::lock_guard lock(shared->mutex);
      errors.swap(shared->uncaptured);
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
