// The native half of alknet:call (js/call.js): calls into a CallTarget (the host's registry,
// local or remote, or one opened by connect()), and the bookkeeping of script-defined calls.
//
// JS <-> call::Value: null/undefined <-> null, boolean <-> bool, a number <-> int when it is an
// integer within 2^53 (float otherwise; signatures accept an int for "float"/"number"),
// string <-> string, Uint8Array/ArrayBuffer <-> bytes, Array <-> list, plain object <-> map,
// {dtype, shape, data: TypedArray} <-> tensor, other typed arrays -> 1-D tensor of their type.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string_view>

#include <js/BigInt.h>

#include "alknet/call/batch.h"
#include "alknet/call/connect.h"
#include "alknet/call/signature.h"
#include "alknet/ext/call.h"
#include "alknet/runtime/native_module.h"

namespace alknet::ext::call_js {
struct EmbeddedFile {
  std::string_view name;
  std::string_view contents;
};
extern const EmbeddedFile kEmbeddedFiles[];  // call.js, embedded by CMakeLists.txt
}  // namespace alknet::ext::call_js

namespace alknet::runtime::sm {

namespace {

namespace c = alknet::call;

constexpr double kMaxSafeInteger = 9007199254740991.0;

// One per alknet:call core object: registries opened with connect(), and the script's own
// calls. Owned by a holder object reachable from the core's functions (reserved slot 0).
struct CallState {
  std::vector<std::unique_ptr<c::CallTarget>> remotes;
  std::vector<c::CallDecl> script_decls;
  std::unique_ptr<c::CallRegistry> script = std::make_unique<c::CallRegistry>();
};

void FinalizeState(JS::GCContext*, JSObject* obj) {
  delete JS::GetMaybePtrFromReservedSlot<CallState>(obj, 0);
}
constexpr JSClassOps kStateOps = {nullptr, nullptr,       nullptr, nullptr, nullptr,
                                  nullptr, FinalizeState, nullptr, nullptr, nullptr};
constexpr JSClass kStateClass = {
    "AlknetCallState", JSCLASS_HAS_RESERVED_SLOTS(1) | JSCLASS_FOREGROUND_FINALIZE, &kStateOps};

CallState& StateOf(const JS::CallArgs& args) {
  JSObject* holder = &js::GetFunctionNativeReserved(&args.callee(), 0).toObject();
  return *JS::GetMaybePtrFromReservedSlot<CallState>(holder, 0);
}

bool ThrowCallError(JSContext* cx, const c::Error& e) {
  // error.name carries the registry's code (InvalidArgument, PermissionDenied, NotFound...).
  std::string name;
  bool upper = true;
  for (char ch : std::string(c::ErrorCodeName(e.code))) {
    if (ch == '_' || ch == ' ') {
      upper = true;
      continue;
    }
    name += static_cast<char>(upper ? std::toupper(static_cast<unsigned char>(ch))
                                    : std::tolower(static_cast<unsigned char>(ch)));
    upper = false;
  }
  return ThrowError(cx, e.ToString(), name.empty() ? "Error" : name);
}

// ---- JS -> Value ------------------------------------------------------------------------------

std::string_view TypedArrayDType(JSObject* obj) {
  switch (JS_GetArrayBufferViewType(obj)) {
    case js::Scalar::Int8: return "i8";
    case js::Scalar::Uint8:
    case js::Scalar::Uint8Clamped: return "u8";
    case js::Scalar::Int16: return "i16";
    case js::Scalar::Uint16: return "u16";
    case js::Scalar::Int32: return "i32";
    case js::Scalar::Uint32: return "u32";
    case js::Scalar::Float32: return "f32";
    case js::Scalar::Float64: return "f64";
    case js::Scalar::BigInt64: return "i64";
    case js::Scalar::BigUint64: return "u64";
    default: return "";
  }
}

std::vector<std::byte> ViewBytes(JSObject* view) {
  JS::AutoCheckCannotGC nogc;
  bool shared = false;
  const size_t n = JS_GetArrayBufferViewByteLength(view);
  auto* p = static_cast<const std::byte*>(JS_GetArrayBufferViewData(view, &shared, nogc));
  return std::vector<std::byte>(p, p + n);
}

bool ToValue(JSContext* cx, JS::HandleValue v, c::Value* out, const std::string& where, int depth);

bool TensorFromObject(JSContext* cx, JS::HandleObject obj, c::Value* out,
                      const std::string& where) {
  JS::RootedValue dtype(cx), shape(cx), data(cx);
  if (!JS_GetProperty(cx, obj, "dtype", &dtype) || !JS_GetProperty(cx, obj, "shape", &shape) ||
      !JS_GetProperty(cx, obj, "data", &data)) {
    return false;
  }
  if (!data.isObject() || !JS_IsArrayBufferViewObject(&data.toObject())) {
    return ThrowTypeError(cx, where + ": a tensor's data must be a typed array");
  }
  std::string dt;
  if (dtype.isString()) {
    dt = ToUtf8(cx, dtype.toString());
  } else {
    dt = std::string(TypedArrayDType(&data.toObject()));
  }
  std::vector<int64_t> dims;
  bool is_array = false;
  if (!shape.isObject() || !JS::IsArrayObject(cx, shape, &is_array) || !is_array) {
    return ThrowTypeError(cx, where + ": a tensor's shape must be an array of integers");
  }
  JS::RootedObject arr(cx, &shape.toObject());
  uint32_t rank = 0;
  if (!JS::GetArrayLength(cx, arr, &rank)) return false;
  for (uint32_t i = 0; i < rank; ++i) {
    JS::RootedValue d(cx);
    if (!JS_GetElement(cx, arr, i, &d)) return false;
    if (!d.isNumber() || d.toNumber() < 0 || std::floor(d.toNumber()) != d.toNumber()) {
      return ThrowTypeError(
          cx, where + ": shape[" + std::to_string(i) + "] is not a non-negative integer");
    }
    dims.push_back(static_cast<int64_t>(d.toNumber()));
  }
  c::Tensor t = c::Tensor::Adopt(dt, std::move(dims), ViewBytes(&data.toObject()));
  if (auto ok = t.Validate(); !ok) return ThrowTypeError(cx, where + ": " + ok.error().message);
  *out = c::Value(std::move(t));
  return true;
}

bool ToValue(JSContext* cx, JS::HandleValue v, c::Value* out, const std::string& where, int depth) {
  if (depth > 64) return ThrowTypeError(cx, where + ": nested too deeply (or cyclic)");
  if (v.isNullOrUndefined()) {
    *out = c::Value();
  } else if (v.isBoolean()) {
    *out = c::Value(v.toBoolean());
  } else if (v.isNumber()) {
    const double d = v.toNumber();
    if (std::floor(d) == d && std::fabs(d) <= kMaxSafeInteger) {
      *out = c::Value(static_cast<int64_t>(d));
    } else {
      *out = c::Value(d);
    }
  } else if (v.isString()) {
    *out = c::Value(ToUtf8(cx, v.toString()));
  } else if (v.isBigInt()) {
    int64_t i = 0;
    if (!JS::detail::BigIntIsInt64(v.toBigInt(), &i))
      return ThrowTypeError(cx, where + ": a BigInt outside int64");
    *out = c::Value(i);
  } else if (v.isObject()) {
    JS::RootedObject obj(cx, &v.toObject());
    if (JS::IsArrayBufferObject(obj)) {
      JS::AutoCheckCannotGC nogc;
      size_t len = 0;
      bool shared = false;
      uint8_t* data = nullptr;
      JS::GetArrayBufferLengthAndData(obj, &len, &shared, &data);
      *out = c::Value(c::Bytes(data, data + len));
      return true;
    }
    if (JS_IsArrayBufferViewObject(obj)) {
      auto dt = TypedArrayDType(obj);
      if (dt.empty()) return ThrowTypeError(cx, where + ": a DataView is not a call value");
      auto bytes = ViewBytes(obj);
      if (dt == "u8") {
        *out = c::Value(c::Bytes(reinterpret_cast<const uint8_t*>(bytes.data()),
                                 reinterpret_cast<const uint8_t*>(bytes.data()) + bytes.size()));
      } else {
        const auto n = static_cast<int64_t>(bytes.size() / c::DTypeSize(dt));
        *out = c::Value(c::Tensor::Adopt(std::string(dt), {n}, std::move(bytes)));
      }
      return true;
    }
    bool is_array = false;
    if (!JS::IsArrayObject(cx, obj, &is_array)) return false;
    if (is_array) {
      uint32_t n = 0;
      if (!JS::GetArrayLength(cx, obj, &n)) return false;
      c::Value::List list(n);
      for (uint32_t i = 0; i < n; ++i) {
        JS::RootedValue e(cx);
        if (!JS_GetElement(cx, obj, i, &e)) return false;
        if (!ToValue(cx, e, &list[i], where + "[" + std::to_string(i) + "]", depth + 1))
          return false;
      }
      *out = c::Value(std::move(list));
      return true;
    }
    bool has_data = false, has_shape = false;
    if (!JS_HasProperty(cx, obj, "data", &has_data) ||
        !JS_HasProperty(cx, obj, "shape", &has_shape)) {
      return false;
    }
    if (has_data && has_shape) return TensorFromObject(cx, obj, out, where);
    JS::Rooted<JS::IdVector> ids(cx, JS::IdVector(cx));
    if (!JS_Enumerate(cx, obj, &ids)) return false;
    c::Value::Map map;
    for (size_t i = 0; i < ids.length(); ++i) {
      JS::RootedValue key(cx);
      if (!JS_IdToValue(cx, ids[i], &key)) return false;
      std::string k;
      if (!ValueToUtf8(cx, key, &k)) return false;
      JS::RootedValue e(cx);
      if (!JS_GetPropertyById(cx, obj, ids[i], &e)) return false;
      if (e.isUndefined()) continue;  // {a: undefined} is {} in JSON; keep it that way
      c::Value mv;
      if (!ToValue(cx, e, &mv, where + "." + k, depth + 1)) return false;
      map.emplace(std::move(k), std::move(mv));
    }
    *out = c::Value(std::move(map));
  } else {
    return ThrowTypeError(cx, where + ": a symbol is not a call value");
  }
  return true;
}

// ---- Value -> JS ------------------------------------------------------------------------------

JSObject* NewTypedArrayFor(JSContext* cx, std::string_view dtype,
                           std::span<const std::byte> bytes) {
  const size_t size = c::DTypeSize(dtype);
  JSObject* arr = nullptr;
  const size_t n = size ? bytes.size() / size : bytes.size();
  if (dtype == "f32")
    arr = JS_NewFloat32Array(cx, n);
  else if (dtype == "f64")
    arr = JS_NewFloat64Array(cx, n);
  else if (dtype == "i32")
    arr = JS_NewInt32Array(cx, n);
  else if (dtype == "u32")
    arr = JS_NewUint32Array(cx, n);
  else if (dtype == "i16")
    arr = JS_NewInt16Array(cx, n);
  else if (dtype == "u16" || dtype == "f16" || dtype == "bf16")
    arr = JS_NewUint16Array(cx, n);
  else if (dtype == "i8")
    arr = JS_NewInt8Array(cx, n);
  else if (dtype == "i64")
    arr = JS_NewBigInt64Array(cx, n);
  else if (dtype == "u64")
    arr = JS_NewBigUint64Array(cx, n);
  else
    arr = JS_NewUint8Array(cx, bytes.size());  // u8, bool, block types: raw bytes
  if (!arr) return nullptr;
  JS::AutoCheckCannotGC nogc;
  bool shared = false;
  if (!bytes.empty())
    std::memcpy(JS_GetArrayBufferViewData(arr, &shared, nogc), bytes.data(), bytes.size());
  return arr;
}

bool FromValue(JSContext* cx, const c::Value& v, JS::MutableHandleValue out) {
  switch (v.kind()) {
    case c::ValueKind::kNull: out.setNull(); return true;
    case c::ValueKind::kBool: out.setBoolean(v.as_bool()); return true;
    case c::ValueKind::kInt: out.setNumber(static_cast<double>(v.as_int())); return true;
    case c::ValueKind::kFloat: out.setNumber(v.as_float()); return true;
    case c::ValueKind::kString: {
      JSString* s = NewString(cx, v.as_string());
      if (!s) return false;
      out.setString(s);
      return true;
    }
    case c::ValueKind::kBytes: {
      JSObject* a = NewUint8Array(cx, v.as_bytes());
      if (!a) return false;
      out.setObject(*a);
      return true;
    }
    case c::ValueKind::kList: {
      const auto& list = v.as_list();
      JS::RootedObject arr(cx, JS::NewArrayObject(cx, list.size()));
      if (!arr) return false;
      for (size_t i = 0; i < list.size(); ++i) {
        JS::RootedValue e(cx);
        if (!FromValue(cx, list[i], &e) || !JS_SetElement(cx, arr, static_cast<uint32_t>(i), e))
          return false;
      }
      out.setObject(*arr);
      return true;
    }
    case c::ValueKind::kMap: {
      JS::RootedObject obj(cx, JS_NewPlainObject(cx));
      if (!obj) return false;
      for (const auto& [k, e] : v.as_map()) {
        JS::RootedValue jv(cx);
        if (!FromValue(cx, e, &jv) || !JS_DefineProperty(cx, obj, k.c_str(), jv, JSPROP_ENUMERATE))
          return false;
      }
      out.setObject(*obj);
      return true;
    }
    case c::ValueKind::kTensor: {
      const c::Tensor& t = v.as_tensor();
      JS::RootedObject obj(cx, JS_NewPlainObject(cx));
      JS::RootedString dt(cx, NewString(cx, t.dtype));
      JS::RootedObject shape(cx, JS::NewArrayObject(cx, t.shape.size()));
      JS::RootedObject data(cx, NewTypedArrayFor(cx, t.dtype, t.data));
      if (!obj || !dt || !shape || !data) return false;
      for (size_t i = 0; i < t.shape.size(); ++i) {
        if (!JS_DefineElement(cx, shape, static_cast<uint32_t>(i), static_cast<double>(t.shape[i]),
                              JSPROP_ENUMERATE)) {
          return false;
        }
      }
      if (!JS_DefineProperty(cx, obj, "dtype", dt, JSPROP_ENUMERATE) ||
          !JS_DefineProperty(cx, obj, "shape", shape, JSPROP_ENUMERATE) ||
          !JS_DefineProperty(cx, obj, "data", data, JSPROP_ENUMERATE)) {
        return false;
      }
      out.setObject(*obj);
      return true;
    }
  }
  return ThrowError(cx, "internal: unknown call value kind");
}

// The target a call goes to: the host's (index -1) or one opened by connect().
bool TargetOf(JSContext* cx, const JS::CallArgs& args, unsigned i, c::CallTarget** out) {
  CallState& st = StateOf(args);
  if (args.get(i).isNullOrUndefined()) {
    *out = HostOf(cx).calls;
    if (*out == nullptr) {
      return ThrowError(
          cx, "alknet:call: this host has no call registry (run the script with `alknet run`)");
    }
    return true;
  }
  if (!args.get(i).isInt32() || args.get(i).toInt32() < 0 ||
      static_cast<size_t>(args.get(i).toInt32()) >= st.remotes.size()) {
    return ThrowTypeError(cx, "alknet:call: not a registry handle");
  }
  *out = st.remotes[args.get(i).toInt32()].get();
  return true;
}

// invoke(target, name, argsArray) -> value. Synchronous: the JS wrapper returns a promise.
bool Invoke(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  c::CallTarget* target = nullptr;
  if (!TargetOf(cx, args, 0, &target)) return false;
  if (!args.get(1).isString()) return ThrowTypeError(cx, "call: the name must be a string");
  const std::string name = ToUtf8(cx, args.get(1).toString());
  c::Value list;
  if (!ToValue(cx, args.get(2), &list, name + ": arguments", 0)) return false;
  if (list.kind() != c::ValueKind::kList)
    return ThrowTypeError(cx, "call: arguments must be an array");
  auto result = target->Invoke(name, list.as_list());
  if (!result) return ThrowCallError(cx, result.error());
  return FromValue(cx, *result, args.rval());
}

bool InfoToJs(JSContext* cx, const c::CallInfo& info, JS::MutableHandleValue out) {
  c::Value::Map m;
  m.emplace("name", c::Value(info.name));
  m.emplace("signature", c::Value(info.signature));
  m.emplace("owner", c::Value(info.owner));
  m.emplace("doc", c::Value(info.doc));
  return FromValue(cx, c::Value(std::move(m)), out);
}

// list(target) -> [{name, signature, owner, doc}]
bool List(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  c::CallTarget* target = nullptr;
  if (!TargetOf(cx, args, 0, &target)) return false;
  auto infos = target->List();
  if (!infos) return ThrowCallError(cx, infos.error());
  if (args.get(0).isNullOrUndefined()) {
    auto own = StateOf(args).script->Infos();
    infos->insert(infos->end(), own.begin(), own.end());
  }
  JS::RootedObject arr(cx, JS::NewArrayObject(cx, infos->size()));
  if (!arr) return false;
  for (size_t i = 0; i < infos->size(); ++i) {
    JS::RootedValue e(cx);
    if (!InfoToJs(cx, (*infos)[i], &e) || !JS_SetElement(cx, arr, static_cast<uint32_t>(i), e))
      return false;
  }
  args.rval().setObject(*arr);
  return true;
}

// connect(address, token) -> handle (an index into the state's remotes). gRPC connects lazily,
// so a List() here makes a wrong address or token fail at connect(), where the script expects.
bool Connect(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  if (!args.get(0).isString())
    return ThrowTypeError(cx, "connect: the address must be a string 'host:port'");
  c::RemoteOptions o;
  o.address = ToUtf8(cx, args.get(0).toString());
  // One worker (host:port) or a pool (ipv4:A:P,B:P / ipv6:[A]:P,... / dns:///NAME:PORT):
  // --allow-net must cover every worker named.
  auto target = c::ParseTarget(o.address);
  if (!target) return ThrowTypeError(cx, "connect('" + o.address + "'): " + target.error().message);
  for (const auto& e : target->endpoints) {
    if (auto s = HostOf(cx).permissions->CheckNet(e.host, e.port); !s) {
      return ThrowStatus(cx, s.error());
    }
  }
  if (args.get(1).isString()) o.token = ToUtf8(cx, args.get(1).toString());
  if (!args.get(2).isUndefined()) {
    if (!args.get(2).isNumber() || args.get(2).toNumber() < 1 || args.get(2).toNumber() > 1024 ||
        std::floor(args.get(2).toNumber()) != args.get(2).toNumber()) {
      return ThrowTypeError(
          cx, "connect('" + o.address + "'): options.concurrency must be an integer in 1..1024");
    }
    o.async_threads = static_cast<unsigned>(args.get(2).toNumber());
  }
  const auto& connect_remote = HostOf(cx).connect_remote;
  if (!connect_remote) {
    return ThrowError(cx,
                      "connect(" + o.address + "): this program has no remote transport " +
                          "(its host passes no RemoteConnector; `alknet` links alknet-call-grpc)");
  }
  auto remote = connect_remote(o);
  if (!remote) return ThrowCallError(cx, remote.error());
  if (auto probe = (*remote)->List(); !probe) {
    return ThrowCallError(cx, c::MakeError(probe.error().code,
                                           "connect(" + o.address + "): " + probe.error().message));
  }
  CallState& st = StateOf(args);
  st.remotes.push_back(std::move(*remote));
  args.rval().setInt32(static_cast<int32_t>(st.remotes.size() - 1));
  return true;
}

// inferBatch(target, model, specs, outDir, concurrency, onProgress) -> {done, skipped, failed,
// stopped, failures: [{input, error}]}: call::RunInferBatch (the code `alknet infer --inputs`
// runs) over the target. Each spec is a file, a folder or a glob (call::ExpandInputs); the
// model and every input need --allow-read, the output folder --allow-write. onProgress runs on
// this thread with {total, done, skipped, failed, final}; false (or a throw) stops the batch
// after the calls in flight; a throw is rethrown when the batch has stopped.
bool InferBatch(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  c::CallTarget* target = nullptr;
  if (!TargetOf(cx, args, 0, &target)) return false;
  if (!args.get(1).isString() || !args.get(3).isString()) {
    return ThrowTypeError(cx, "inferBatch(model, inputs, {outDir}): model and outDir are paths");
  }
  const std::string model = ToUtf8(cx, args.get(1).toString());
  const std::string out_dir = ToUtf8(cx, args.get(3).toString());
  const auto& perms = *HostOf(cx).permissions;
  if (auto s = perms.CheckRead(model); !s) return ThrowStatus(cx, s.error());
  if (auto s = perms.CheckWrite(out_dir); !s) return ThrowStatus(cx, s.error());
  bool is_array = false;
  if (!args.get(2).isObject() || !JS::IsArrayObject(cx, args.get(2), &is_array) || !is_array) {
    return ThrowTypeError(cx, "inferBatch: inputs must be a path or an array of paths");
  }
  JS::RootedObject specs(cx, &args.get(2).toObject());
  uint32_t n = 0;
  if (!JS::GetArrayLength(cx, specs, &n)) return false;
  std::vector<std::string> inputs;
  for (uint32_t i = 0; i < n; ++i) {
    JS::RootedValue e(cx);
    if (!JS_GetElement(cx, specs, i, &e)) return false;
    if (!e.isString()) return ThrowTypeError(cx, "inferBatch: inputs must be paths (strings)");
    const std::string spec = ToUtf8(cx, e.toString());
    std::error_code ec;
    if (spec.find_first_of("*?[") == std::string::npos && std::filesystem::is_directory(spec, ec)) {
      if (auto s = perms.CheckRead(spec); !s) return ThrowStatus(cx, s.error());
    }
    auto expanded = c::ExpandInputs(spec);
    if (!expanded) return ThrowCallError(cx, expanded.error());
    for (auto& f : *expanded) {
      if (auto s = perms.CheckRead(f); !s) return ThrowStatus(cx, s.error());
      inputs.push_back(std::move(f));
    }
  }
  auto items = c::InferBatchItems(inputs, out_dir);
  if (!items) return ThrowCallError(cx, items.error());
  c::BatchOptions bo;
  if (!args.get(4).isUndefined()) {
    const JS::Value conc = args.get(4);
    if (!conc.isNumber() || conc.toNumber() < 1 || conc.toNumber() > 1024 ||
        std::floor(conc.toNumber()) != conc.toNumber()) {
      return ThrowTypeError(cx, "inferBatch: options.concurrency must be an integer in 1..1024");
    }
    bo.concurrency = static_cast<unsigned>(conc.toNumber());
  }
  JS::RootedValue on_progress(cx, args.get(5));
  JS::RootedValue thrown(cx);
  bool threw = false;
  if (on_progress.isObject() && JS::IsCallable(&on_progress.toObject())) {
    bo.on_progress = [&](const c::BatchProgress& p, bool final) {
      if (threw) return false;
      c::Value::Map m;
      m.emplace("total", c::Value(static_cast<int64_t>(p.total)));
      m.emplace("done", c::Value(static_cast<int64_t>(p.done)));
      m.emplace("skipped", c::Value(static_cast<int64_t>(p.skipped)));
      m.emplace("failed", c::Value(static_cast<int64_t>(p.failed)));
      m.emplace("final", c::Value(final));
      JS::RootedValue arg(cx), rv(cx);
      if (!FromValue(cx, c::Value(std::move(m)), &arg)) {
        threw = true;
      } else {
        JS::RootedValueArray<1> argv(cx);
        argv[0].set(arg);
        if (!JS_CallFunctionValue(cx, nullptr, on_progress, argv, &rv)) threw = true;
        if (!threw) return !(rv.isBoolean() && !rv.toBoolean());
      }
      if (JS_IsExceptionPending(cx)) {
        JS_GetPendingException(cx, &thrown);
        JS_ClearPendingException(cx);
      }
      return false;
    };
  } else if (!on_progress.isNullOrUndefined()) {
    return ThrowTypeError(cx, "inferBatch: options.onProgress must be a function");
  }
  auto summary = c::RunInferBatch(*target, model, *items, bo);
  if (threw) {
    if (thrown.isUndefined()) return false;  // an uncatchable error (out of memory)
    JS_SetPendingException(cx, thrown);
    return false;
  }
  if (!summary) return ThrowCallError(cx, summary.error());
  c::Value::Map m;
  m.emplace("done", c::Value(static_cast<int64_t>(summary->done)));
  m.emplace("skipped", c::Value(static_cast<int64_t>(summary->skipped)));
  m.emplace("failed", c::Value(static_cast<int64_t>(summary->failed)));
  m.emplace("stopped", c::Value(summary->stopped));
  c::Value::List failures;
  for (const auto& f : summary->failures) {
    c::Value::Map fm;
    fm.emplace("input", c::Value(f.input));
    fm.emplace("error", c::Value(f.error));
    failures.emplace_back(std::move(fm));
  }
  m.emplace("failures", c::Value(std::move(failures)));
  return FromValue(cx, c::Value(std::move(m)), args.rval());
}

// register(name, signature, namespace): records a script-defined call; the function itself
// stays in JS (call.js), so no C++ object has to root it.
bool Register(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  if (!args.get(0).isString() || !args.get(1).isString() || !args.get(2).isString()) {
    return ThrowTypeError(cx, "register(name, signature, fn): name and signature must be strings");
  }
  const std::string name = ToUtf8(cx, args.get(0).toString());
  const std::string signature = ToUtf8(cx, args.get(1).toString());
  const std::string ns = ToUtf8(cx, args.get(2).toString());
  CallState& st = StateOf(args);
  if (c::NamespaceOf(name) != ns) {
    std::string owner;
    if (c::CallTarget* host = HostOf(cx).calls) {
      if (auto infos = host->List()) {
        for (const auto& info : *infos) {
          if (c::NamespaceOf(info.name) == c::NamespaceOf(name)) {
            owner = info.owner;
            break;
          }
        }
      }
    }
    return ThrowError(cx,
                      "register('" + name +
                          "'): a script may only register calls in its own namespace '" + ns +
                          "' (like '" + ns + ".my_call')" +
                          (owner.empty() ? std::string()
                                         : "; namespace '" + std::string(c::NamespaceOf(name)) +
                                               "' belongs to component '" + owner + "'"),
                      "PermissionDenied");
  }
  // All script calls form one component "script"; the registry refuses a second component of
  // one name, so each register() builds a fresh registry with every call and swaps it in
  // (scripts register a handful of calls; the registry checks names and signatures).
  c::CallDecl decl;
  decl.name = name;
  decl.signature = signature;
  decl.doc = "defined by the script";
  auto fresh = std::make_unique<c::CallRegistry>();
  c::Component all;
  all.name = "script";
  all.calls = st.script_decls;
  all.calls.push_back(decl);
  for (auto& d : all.calls) {
    d.handler = [](c::CallContext& ctx, std::span<const c::Value>) -> c::Result<c::Value> {
      return c::MakeError(
          c::ErrorCode::kUnavailable,
          std::string(ctx.call()) + " is defined by a script and runs on its thread only");
    };
  }
  if (auto r = fresh->AddComponent(std::move(all)); !r) return ThrowCallError(cx, r.error());
  st.script_decls.push_back(std::move(decl));
  st.script = std::move(fresh);
  args.rval().setUndefined();
  return true;
}

// checkArgs(name, argsArray): the signature check of a script-defined call, so it is refused
// the same way a native one is.
bool CheckArgs(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  const std::string name = ToUtf8(cx, JS::ToString(cx, args.get(0)));
  const c::CallRecord* rec = StateOf(args).script->Find(name);
  if (rec == nullptr) return ThrowError(cx, "no script call named '" + name + "'", "NotFound");
  c::Value list;
  if (!ToValue(cx, args.get(1), &list, name + ": arguments", 0)) return false;
  if (auto r = c::CheckArguments(name, rec->signature, list.as_list()); !r)
    return ThrowCallError(cx, r.error());
  args.rval().setUndefined();
  return true;
}

struct Fn {
  const char* name;
  JSNative native;
  unsigned nargs;
};
constexpr Fn kFns[] = {
    {"invoke", Invoke, 3},         {"list", List, 1},         {"connect", Connect, 3},
    {"inferBatch", InferBatch, 6}, {"register", Register, 3}, {"checkArgs", CheckArgs, 2},
};

}  // namespace

bool DefineCallCore(JSContext* cx, JS::HandleObject core) {
  JS::RootedObject holder(cx, JS_NewObject(cx, &kStateClass));
  if (!holder) return false;
  JS::SetReservedSlot(holder, 0, JS::PrivateValue(new CallState()));
  for (const Fn& f : kFns) {
    JSFunction* fn = js::DefineFunctionWithReserved(cx, core, f.name, f.native, f.nargs, 0);
    if (!fn) return false;
    js::SetFunctionNativeReserved(JS_GetFunctionObject(fn), 0, JS::ObjectValue(*holder));
  }
  return true;
}

}  // namespace alknet::runtime::sm

namespace alknet::ext {
void InstallCallModule() {
  runtime::RegisterNativeModule("call", call_js::kEmbeddedFiles[0].contents,
                                &runtime::sm::DefineCallCore);
}
}  // namespace alknet::ext
