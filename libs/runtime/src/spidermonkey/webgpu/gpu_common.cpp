#include "spidermonkey/webgpu/gpu_common.h"

#include <cmath>

namespace alknet::runtime::sm {

gpu::GpuState& SmEngine::gpu_state() {
  if (!gpu_) gpu_ = std::make_unique<gpu::GpuState>();
  return *gpu_;
}

}  // namespace alknet::runtime::sm

namespace alknet::runtime::sm::gpu {

namespace {

void Finalize(JS::GCContext*, JSObject* obj) {
  delete JS::GetMaybePtrFromReservedSlot<GpuObject>(obj, kOwnerSlot);
}

bool IllegalConstructor(JSContext* cx, unsigned, JS::Value*) {
  return ThrowTypeError(cx, "Illegal constructor");
}

}  // namespace

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
    SmEngine::From(cx)->host().loop->SetGpuPoller([raw] { wg::P().InstanceProcessEvents(raw); });
  }
  return state.instance.get();
}

bool DefineInterface(JSContext* cx, JS::HandleObject global, const InterfaceSpec& spec) {
  JS::RootedObject proto(cx, JS_InitClass(cx, global, nullptr, spec.cls, IllegalConstructor, 0,
                                          spec.properties, spec.methods, nullptr, nullptr));
  if (!proto) return false;
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
  JS::RootedObject obj(cx, Wrap(cx, cls, std::move(owner)));
  if (!obj) return nullptr;
  JS::RootedString s(cx, NewString(cx, label));
  if (!s || !JS_DefineProperty(cx, obj, "label", s, JSPROP_ENUMERATE)) return nullptr;
  return obj;
}

bool Member(JSContext* cx, JS::HandleObject dict, const char* name, JS::MutableHandleValue out,
            bool* present) {
  if (!JS_GetProperty(cx, dict, name, out)) return false;
  *present = !out.isUndefined();
  return true;
}

namespace {
bool EnforceRange(JSContext* cx, JS::HandleValue v, std::string_view what, double max, double* out) {
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

bool DictArg(JSContext* cx, JS::HandleValue v, std::string_view what, JS::MutableHandleObject out) {
  if (v.isNullOrUndefined()) {
    out.set(JS_NewPlainObject(cx));
    return out != nullptr;
  }
  if (!v.isObject()) return ThrowTypeError(cx, std::string(what) + " must be a dictionary (object)");
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
  if (e) error.setObject(*e);
  else JS_GetPendingException(cx, &error);
  JS_ClearPendingException(cx);
  Reject(error);
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
