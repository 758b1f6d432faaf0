#include "spidermonkey/webgpu/gpu_common.h"

#include <cmath>

#include <js/ForOfIterator.h>
#include <js/MemoryFunctions.h>

namespace alknet::runtime::sm {

gpu::GpuState& SmEngine::gpu_state() {
  if (!gpu_) gpu_ = std::make_unique<gpu::GpuState>();
  return *gpu_;
}

}  // namespace alknet::runtime::sm

namespace alknet::runtime::sm::gpu {

namespace {

void Finalize(JS::GCContext*, JSObject* obj) {
  auto* owner = JS::GetMaybePtrFromReservedSlot<GpuObject>(obj, kOwnerSlot);
  if (owner != nullptr) DisassociateMemory(obj, owner);
  delete owner;
}

bool IllegalConstructor(JSContext* cx, unsigned, JS::Value*) {
  return ThrowTypeError(cx, "Illegal constructor");
}

// GPUObjectBase.label: any of our objects (their classes share kClassOps).
GpuObject* AnyOwner(JSContext* cx, JS::HandleValue thisv, const char* what) {
  if (thisv.isObject() && JS::GetClass(&thisv.toObject())->cOps == &kClassOps) {
    auto* owner = JS::GetMaybePtrFromReservedSlot<GpuObject>(&thisv.toObject(), kOwnerSlot);
    if (owner) return owner;
  }
  ThrowTypeError(cx, std::string(what) + ": 'this' is not a WebGPU object");
  return nullptr;
}

bool GetLabel(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  GpuObject* owner = AnyOwner(cx, args.thisv(), "GPUObjectBase.label");
  if (!owner) return false;
  JSString* s = NewString(cx, owner->label);
  if (!s) return false;
  args.rval().setString(s);
  return true;
}

bool SetLabel(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  GpuObject* owner = AnyOwner(cx, args.thisv(), "GPUObjectBase.label");
  if (!owner) return false;
  // USVString: ToString (a Symbol throws).
  std::string label;
  if (!ValueToUtf8(cx, args.get(0), &label)) return false;
  owner->label = std::move(label);
  args.rval().setUndefined();
  return true;
}

const JSPropertySpec kLabelProperties[] = {JS_PSGS("label", GetLabel, SetLabel, JSPROP_ENUMERATE),
                                           JS_PS_END};

}  // namespace

void AssociateMemory(JSObject* obj, GpuObject* owner, uint64_t bytes) {
  // A buffer Dawn refused (an error object) holds nothing; a size beyond the address space
  // cannot have been allocated either.
  if (bytes == 0 || bytes > (uint64_t{1} << 40)) return;
  owner->associated_bytes = static_cast<size_t>(bytes);
  JS::AddAssociatedMemory(obj, owner->associated_bytes, JS::MemoryUse::Embedding1);
}

void DisassociateMemory(JSObject* obj, GpuObject* owner) {
  if (owner->associated_bytes == 0) return;
  JS::RemoveAssociatedMemory(obj, owner->associated_bytes, JS::MemoryUse::Embedding1);
  owner->associated_bytes = 0;
}

const JSClassOps kClassOps = {
    nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, Finalize, nullptr, nullptr, nullptr,
};

GpuState& State(JSContext* cx) { return SmEngine::From(cx)->gpu_state(); }

WGPUInstance Instance(JSContext* cx) {
  GpuState& state = State(cx);
  if (!state.instance) {
    auto instance = wg::CreateInstance();
    if (!instance) {
      ThrowError(cx, "WebGPU is not available: " + instance.error().ToString());
      return nullptr;
    }
    state.instance = std::move(*instance);
    WGPUInstance raw = state.instance.get();
    // The loop calls this only while a GpuWorkToken is alive (see event_loop.h).
    SmEngine::From(cx)->host().loop->SetGpuPoller([raw, cx] {
      wg::P().InstanceProcessEvents(raw);
      PollContextDevices(cx);
    });
  }
  return state.instance.get();
}

bool DefineInterface(JSContext* cx, JS::HandleObject global, const InterfaceSpec& spec) {
  JS::RootedObject proto(cx, JS_InitClass(cx, global, nullptr, spec.cls, IllegalConstructor, 0,
                                          spec.properties, spec.methods, nullptr, nullptr));
  if (!proto) return false;
  if (spec.labelled && !JS_DefineProperties(cx, proto, kLabelProperties)) return false;
  State(cx).prototypes[spec.cls] = std::make_unique<JS::PersistentRootedObject>(cx, proto);
  return true;
}

JSObject* Wrap(JSContext* cx, const JSClass* cls, std::unique_ptr<GpuObject> owner) {
  auto& protos = State(cx).prototypes;
  auto it = protos.find(cls);
  if (it == protos.end()) {
    ThrowError(cx, std::string("internal: interface ") + cls->name + " is not defined");
    return nullptr;
  }
  JS::RootedObject proto(cx, it->second->get());
  JSObject* obj = JS_NewObjectWithGivenProto(cx, cls, proto);
  if (!obj) return nullptr;
  JS::SetReservedSlot(obj, kOwnerSlot, JS::PrivateValue(owner.release()));
  return obj;
}

JSObject* WrapLabelled(JSContext* cx, const JSClass* cls, std::unique_ptr<GpuObject> owner,
                       std::string_view label) {
  owner->label = std::string(label);
  return Wrap(cx, cls, std::move(owner));
}

bool Member(JSContext* cx, JS::HandleObject dict, const char* name, JS::MutableHandleValue out,
            bool* present) {
  if (!JS_GetProperty(cx, dict, name, out)) return false;
  *present = !out.isUndefined();
  return true;
}

namespace {
bool EnforceRange(JSContext* cx, JS::HandleValue v, std::string_view what, double max,
                  double* out) {
  double d;
  if (!JS::ToNumber(cx, v, &d)) return false;
  if (!std::isfinite(d)) return ThrowTypeError(cx, std::string(what) + " is not a finite number");
  d = std::trunc(d);
  if (d < 0 || d > max) {
    return ThrowTypeError(cx, std::string(what) + " is outside the range of an unsigned integer");
  }
  *out = d;
  return true;
}
}  // namespace

bool ToU32(JSContext* cx, JS::HandleValue v, std::string_view what, uint32_t* out) {
  double d;
  if (!EnforceRange(cx, v, what, 4294967295.0, &d)) return false;
  *out = static_cast<uint32_t>(d);
  return true;
}

bool ToU64(JSContext* cx, JS::HandleValue v, std::string_view what, uint64_t* out) {
  double d;
  // WebIDL unsigned long long: up to 2^53 - 1 is exactly representable.
  if (!EnforceRange(cx, v, what, 9007199254740991.0, &d)) return false;
  *out = static_cast<uint64_t>(d);
  return true;
}

bool ToI32(JSContext* cx, JS::HandleValue v, std::string_view what, int32_t* out) {
  double d;
  if (!JS::ToNumber(cx, v, &d)) return false;
  if (!std::isfinite(d)) return ThrowTypeError(cx, std::string(what) + " is not a finite number");
  d = std::trunc(d);
  if (d < -2147483648.0 || d > 2147483647.0) {
    return ThrowTypeError(cx, std::string(what) + " is outside the range of a 32-bit integer");
  }
  *out = static_cast<int32_t>(d);
  return true;
}

bool ReadDynamicOffsets(JSContext* cx, const JS::CallArgs& args, unsigned first,
                        std::string_view what, std::vector<uint32_t>* out) {
  JS::HandleValue v = args.get(first);
  if (v.isUndefined()) return true;
  if (!v.isObject())
    return ThrowTypeError(
        cx, std::string(what) + ": dynamicOffsets must be a sequence or a Uint32Array");
  JS::RootedObject list(cx, &v.toObject());
  if (JS_IsUint32Array(list)) {
    uint64_t start = 0, length = 0;
    size_t total = JS_GetTypedArrayLength(list);
    if (!ToU64(cx, args.get(first + 1), std::string(what) + " dynamicOffsetsDataStart", &start) ||
        !ToU64(cx, args.get(first + 2), std::string(what) + " dynamicOffsetsDataLength", &length)) {
      return false;
    }
    if (start > total || length > total - start) {
      return ThrowError(
          cx,
          std::string(what) +
              ": dynamicOffsetsDataStart + dynamicOffsetsDataLength is beyond the array",
          "RangeError");
    }
    bool shared;
    JS::AutoCheckCannotGC nogc;
    const uint32_t* data = JS_GetUint32ArrayData(list, &shared, nogc);
    out->assign(data + start, data + start + length);
    return true;
  }
  uint32_t n = 0;
  JS::RootedObject arr(cx);
  if (!ArrayArg(cx, v, std::string(what) + " dynamicOffsets", &arr, &n)) return false;
  JS::RootedValue e(cx);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t o;
    if (!JS_GetElement(cx, arr, i, &e) ||
        !ToU32(cx, e, std::string(what) + " dynamicOffsets[" + std::to_string(i) + "]", &o))
      return false;
    out->push_back(o);
  }
  return true;
}

bool RequiredU64(JSContext* cx, JS::HandleObject dict, const char* name, std::string_view what,
                 uint64_t* out) {
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, dict, name, &v, &present)) return false;
  if (!present) {
    return ThrowTypeError(cx, std::string(what) + ": required member " + name + " is undefined");
  }
  return ToU64(cx, v, std::string(what) + "." + name, out);
}

bool OptionalU64(JSContext* cx, JS::HandleObject dict, const char* name, std::string_view what,
                 uint64_t fallback, uint64_t* out) {
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, dict, name, &v, &present)) return false;
  if (!present) {
    *out = fallback;
    return true;
  }
  return ToU64(cx, v, std::string(what) + "." + name, out);
}

bool MissingMember(JSContext* cx, std::string_view what, const char* name) {
  return ThrowTypeError(cx, std::string(what) + ": required member " + name + " is undefined");
}

bool RequiredU32(JSContext* cx, JS::HandleObject dict, const char* name, std::string_view what,
                 uint32_t* out) {
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, dict, name, &v, &present)) return false;
  if (!present) return MissingMember(cx, what, name);
  return ToU32(cx, v, std::string(what) + "." + name, out);
}

bool OptionalU32(JSContext* cx, JS::HandleObject dict, const char* name, std::string_view what,
                 uint32_t fallback, uint32_t* out) {
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, dict, name, &v, &present)) return false;
  if (!present) {
    *out = fallback;
    return true;
  }
  return ToU32(cx, v, std::string(what) + "." + name, out);
}

bool OptionalBool(JSContext* cx, JS::HandleObject dict, const char* name, bool fallback,
                  bool* out) {
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, dict, name, &v, &present)) return false;
  *out = present ? JS::ToBoolean(v) : fallback;
  return true;
}

bool ToFiniteDouble(JSContext* cx, JS::HandleValue v, std::string_view what, double* out) {
  if (!JS::ToNumber(cx, v, out)) return false;
  if (!std::isfinite(*out))
    return ThrowTypeError(cx, std::string(what) + " is not a finite number");
  return true;
}

bool OptionalDouble(JSContext* cx, JS::HandleObject dict, const char* name, std::string_view what,
                    double fallback, double* out) {
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, dict, name, &v, &present)) return false;
  if (!present) {
    *out = fallback;
    return true;
  }
  return ToFiniteDouble(cx, v, std::string(what) + "." + name, out);
}

constexpr uint32_t kMaxIterableElements = 1u << 20;

bool ArrayArg(JSContext* cx, JS::HandleValue v, std::string_view what, JS::MutableHandleObject out,
              uint32_t* length) {
  bool is_array = false;
  if (!v.isObject()) return ThrowTypeError(cx, std::string(what) + " must be a sequence");
  if (!JS::IsArrayObject(cx, v, &is_array)) return false;
  if (is_array) {
    out.set(&v.toObject());
    return JS::GetArrayLength(cx, out, length);
  }
  JS::ForOfIterator it(cx);
  if (!it.init(v, JS::ForOfIterator::AllowNonIterable)) return false;
  if (!it.valueIsIterable()) {
    return ThrowTypeError(cx, std::string(what) + " must be a sequence (an iterable object)");
  }
  JS::RootedObject array(cx, JS::NewArrayObject(cx, 0));
  if (!array) return false;
  JS::RootedValue e(cx);
  uint32_t n = 0;
  for (;;) {
    bool done = false;
    if (!it.next(&e, &done)) return false;
    if (done) break;
    // An endless iterator must not hang the script or exhaust memory: no WebGPU sequence
    // needs anywhere near this many elements.
    if (n == kMaxIterableElements) {
      return ThrowTypeError(cx, std::string(what) + ": more than " +
                                    std::to_string(kMaxIterableElements) + " elements");
    }
    if (!JS_DefineElement(cx, array, n++, e, JSPROP_ENUMERATE)) return false;
  }
  out.set(array);
  *length = n;
  return true;
}

bool RequiredDict(JSContext* cx, JS::HandleObject dict, const char* name, std::string_view what,
                  JS::MutableHandleObject out) {
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, dict, name, &v, &present)) return false;
  if (!present) return MissingMember(cx, what, name);
  if (!v.isObject())
    return ThrowTypeError(cx, std::string(what) + "." + name + " must be a dictionary (object)");
  out.set(&v.toObject());
  return true;
}

namespace {
// A sequence form of GPUExtent3D/GPUOrigin3D/GPUColor: reads up to `max` elements after
// checking the length is in [min, max].
bool SequenceValues(JSContext* cx, JS::HandleObject list, uint32_t min, uint32_t max,
                    std::string_view what, JS::MutableHandleValueVector out, bool* is_sequence) {
  // WebIDL union (sequence or dictionary): an object with @@iterator is the sequence.
  JS::RootedValue iter(cx);
  JS::RootedId id(cx, JS::GetWellKnownSymbolKey(cx, JS::SymbolCode::iterator));
  if (!JS_GetPropertyById(cx, list, id, &iter)) return false;
  *is_sequence = !iter.isNullOrUndefined();
  if (!*is_sequence) return true;
  JS::RootedValue list_value(cx, JS::ObjectValue(*list));
  JS::RootedObject array(cx);
  uint32_t n = 0;
  if (!ArrayArg(cx, list_value, what, &array, &n)) return false;
  if (n < min || n > max) {
    return ThrowTypeError(cx, std::string(what) + ": a sequence of " + std::to_string(min) +
                                  " to " + std::to_string(max) + " numbers was expected, got " +
                                  std::to_string(n));
  }
  JS::RootedValue v(cx);
  for (uint32_t i = 0; i < n; ++i) {
    if (!JS_GetElement(cx, array, i, &v)) return false;
    if (!out.append(v)) return false;
  }
  return true;
}
}  // namespace

bool ToExtent3D(JSContext* cx, JS::HandleValue v, std::string_view what, WGPUExtent3D* out) {
  if (!v.isObject())
    return ThrowTypeError(cx,
                          std::string(what) + " must be a GPUExtent3D (sequence or dictionary)");
  JS::RootedObject obj(cx, &v.toObject());
  JS::RootedValueVector values(cx);
  bool is_sequence;
  if (!SequenceValues(cx, obj, 1, 3, what, &values, &is_sequence)) return false;
  *out = WGPUExtent3D{0, 1, 1};
  if (is_sequence) {
    uint32_t* fields[] = {&out->width, &out->height, &out->depthOrArrayLayers};
    for (size_t i = 0; i < values.length(); ++i) {
      JS::RootedValue e(cx, values[i]);
      if (!ToU32(cx, e, std::string(what) + "[" + std::to_string(i) + "]", fields[i])) return false;
    }
    return true;
  }
  return RequiredU32(cx, obj, "width", what, &out->width) &&
         OptionalU32(cx, obj, "height", what, 1, &out->height) &&
         OptionalU32(cx, obj, "depthOrArrayLayers", what, 1, &out->depthOrArrayLayers);
}

bool ToOrigin3D(JSContext* cx, JS::HandleValue v, std::string_view what, WGPUOrigin3D* out) {
  *out = WGPUOrigin3D{0, 0, 0};
  if (v.isUndefined()) return true;
  if (!v.isObject())
    return ThrowTypeError(cx,
                          std::string(what) + " must be a GPUOrigin3D (sequence or dictionary)");
  JS::RootedObject obj(cx, &v.toObject());
  JS::RootedValueVector values(cx);
  bool is_sequence;
  if (!SequenceValues(cx, obj, 0, 3, what, &values, &is_sequence)) return false;
  if (is_sequence) {
    uint32_t* fields[] = {&out->x, &out->y, &out->z};
    for (size_t i = 0; i < values.length(); ++i) {
      JS::RootedValue e(cx, values[i]);
      if (!ToU32(cx, e, std::string(what) + "[" + std::to_string(i) + "]", fields[i])) return false;
    }
    return true;
  }
  return OptionalU32(cx, obj, "x", what, 0, &out->x) &&
         OptionalU32(cx, obj, "y", what, 0, &out->y) && OptionalU32(cx, obj, "z", what, 0, &out->z);
}

bool ToColor(JSContext* cx, JS::HandleValue v, std::string_view what, WGPUColor* out) {
  if (!v.isObject())
    return ThrowTypeError(cx, std::string(what) + " must be a GPUColor (sequence or dictionary)");
  JS::RootedObject obj(cx, &v.toObject());
  JS::RootedValueVector values(cx);
  bool is_sequence;
  if (!SequenceValues(cx, obj, 4, 4, what, &values, &is_sequence)) return false;
  double* fields[] = {&out->r, &out->g, &out->b, &out->a};
  if (is_sequence) {
    for (size_t i = 0; i < 4; ++i) {
      JS::RootedValue e(cx, values[i]);
      if (!ToFiniteDouble(cx, e, std::string(what) + "[" + std::to_string(i) + "]", fields[i]))
        return false;
    }
    return true;
  }
  const char* names[] = {"r", "g", "b", "a"};
  JS::RootedValue e(cx);
  for (size_t i = 0; i < 4; ++i) {
    bool present;
    if (!Member(cx, obj, names[i], &e, &present)) return false;
    if (!present) return MissingMember(cx, what, names[i]);
    if (!ToFiniteDouble(cx, e, std::string(what) + "." + names[i], fields[i])) return false;
  }
  return true;
}

bool PipelineLayoutMember(JSContext* cx, JS::HandleObject d, std::string_view what,
                          WGPUPipelineLayout* out) {
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, d, "layout", &v, &present)) return false;
  if (!present)
    return ThrowTypeError(
        cx, std::string(what) + ": required member layout is undefined (use \"auto\")");
  *out = nullptr;
  if (v.isString()) {
    if (ToUtf8(cx, v.toString()) != "auto") {
      return ThrowTypeError(cx,
                            std::string(what) + ": layout must be a GPUPipelineLayout or \"auto\"");
    }
    return true;
  }
  auto* pl = UnwrapValue<GPUPipelineLayout>(cx, v, std::string(what) + ".layout");
  if (!pl) return false;
  *out = pl->layout.get();
  return true;
}

bool PipelineConstants(JSContext* cx, JS::HandleObject stage, std::string_view what,
                       std::vector<std::string>* keys, std::vector<WGPUConstantEntry>* out) {
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, stage, "constants", &v, &present)) return false;
  if (!present) return true;
  if (!v.isObject())
    return ThrowTypeError(cx, std::string(what) + ".constants must be a record (object)");
  JS::RootedObject c(cx, &v.toObject());
  JS::Rooted<JS::IdVector> ids(cx, JS::IdVector(cx));
  if (!JS_Enumerate(cx, c, &ids)) return false;
  keys->reserve(ids.length());
  for (size_t i = 0; i < ids.length(); ++i) {
    JS::RootedValue key(cx), value(cx);
    if (!JS_IdToValue(cx, ids[i], &key) || !JS_GetPropertyById(cx, c, ids[i], &value)) return false;
    std::string k;
    WGPUConstantEntry e{};
    if (!ValueToUtf8(cx, key, &k) ||
        !ToFiniteDouble(cx, value, std::string(what) + ".constants." + k, &e.value)) {
      return false;
    }
    keys->push_back(std::move(k));
    out->push_back(e);
  }
  for (size_t i = 0; i < keys->size(); ++i) (*out)[i].key = wg::Sv((*keys)[i]);
  return true;
}

bool DictArg(JSContext* cx, JS::HandleValue v, std::string_view what, JS::MutableHandleObject out) {
  if (v.isNullOrUndefined()) {
    out.set(JS_NewPlainObject(cx));
    return out != nullptr;
  }
  if (!v.isObject())
    return ThrowTypeError(cx, std::string(what) + " must be a dictionary (object)");
  out.set(&v.toObject());
  return true;
}

std::string Label(JSContext* cx, JS::HandleObject dict) {
  JS::RootedValue v(cx);
  if (!JS_GetProperty(cx, dict, "label", &v) || !v.isString()) {
    JS_ClearPendingException(cx);
    return {};
  }
  return ToUtf8(cx, v.toString());
}

PendingPromise::PendingPromise(JSContext* c)
    : cx(c),
      promise(c, JS::NewPromiseObject(c, nullptr)),
      token(SmEngine::From(c)->host().loop->BeginGpuWork()) {}

bool PendingPromise::Resolve(JS::HandleValue v) { return JS::ResolvePromise(cx, promise, v); }
bool PendingPromise::Reject(JS::HandleValue v) { return JS::RejectPromise(cx, promise, v); }

void PendingPromise::RejectWith(std::string_view name, std::string_view message) {
  JS::RootedValue error(cx);
  JSObject* e = NewNamedError(cx, "DOMException", message, name);
  if (e)
    error.setObject(*e);
  else
    JS_GetPendingException(cx, &error);
  JS_ClearPendingException(cx);
  Reject(error);
}

JSObject* MakeFromData(JSContext* cx, const char* kind, JS::HandleValue data) {
  JS::RootedValue hook(cx, JS::ObjectOrNullValue(SmEngine::From(cx)->gpu_make_hook()));
  JS::RootedValueArray<2> args(cx);
  JSString* k = NewString(cx, kind);
  if (!k) return nullptr;
  args[0].setString(k);
  args[1].set(data);
  JS::RootedValue out(cx);
  if (!JS_CallFunctionValue(cx, nullptr, hook, args, &out)) return nullptr;
  if (!out.isObject()) {
    ThrowError(cx, std::string("internal: gpuMake(") + kind + ") returned no object");
    return nullptr;
  }
  return &out.toObject();
}

JSObject* NewNamedError(JSContext* cx, const char* ctor, std::string_view message,
                        std::string_view name) {
  JS::RootedObject global(cx, JS::CurrentGlobalOrNull(cx));
  JS::RootedValue ctor_value(cx);
  if (!JS_GetProperty(cx, global, ctor, &ctor_value)) return nullptr;
  JS::RootedValueArray<2> args(cx);
  JSString* m = NewString(cx, message);
  if (!m) return nullptr;
  args[0].setString(m);
  unsigned argc = 1;
  if (!name.empty()) {
    JSString* n = NewString(cx, name);
    if (!n) return nullptr;
    args[1].setString(n);
    argc = 2;
  }
  JS::RootedObject out(cx);
  if (!JS::Construct(cx, ctor_value, JS::HandleValueArray::subarray(args, 0, argc), &out)) {
    return nullptr;
  }
  return out;
}

}  // namespace alknet::runtime::sm::gpu
