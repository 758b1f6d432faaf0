// The native half of alknet:compute's `Session` (js/compute.js): ONNX models loaded through
// alknet-onnx on alknet:compute's device, so that a session's device outputs are ordinary
// compute Tensors.
//
//   onnxLoad(path, {planCacheSize, fuse, foldLimit}) -> session object
//   onnxInfo(session) -> {inputs, outputs, opset, opTypes}
//   onnxRun(session, [{name, dtype, shape, data | tensor}], keepTensors)
//       -> {outputs: [{name, dtype, shape, buffer, tensor?}], planMs, runMs, planCached}
//   onnxStats(session) -> {plansBuilt, planCacheHits, nodesFolded, nodesOnDevice, fusions}
//
// Reading the model and each external-data file is checked against --allow-read first.
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>

#include "alknet/ext/compute_core.h"
#include "alknet/ext/onnx.h"
#include "alknet/onnx/session.h"
#include "alknet/runtime/permissions.h"
#include "alknet/tensor/dtype.h"

namespace alknet::runtime::sm::modules {

namespace {

namespace cp = alknet::compute;
namespace ox = alknet::onnx;

// The metatensor dtype name an ONNX type reads as in JS (its typed array: compute.js TYPED).
struct TypeName {
  ox::ElemType type;
  const char* dtype;
};
constexpr TypeName kTypeNames[] = {
    {ox::ElemType::kFloat, "f32"},   {ox::ElemType::kDouble, "f64"},
    {ox::ElemType::kFloat16, "f16"}, {ox::ElemType::kBFloat16, "bf16"},
    {ox::ElemType::kInt8, "i8"},     {ox::ElemType::kInt16, "i16"},
    {ox::ElemType::kInt32, "i32"},   {ox::ElemType::kInt64, "i64"},
    {ox::ElemType::kUint8, "u8"},    {ox::ElemType::kUint16, "u16"},
    {ox::ElemType::kUint32, "u32"},  {ox::ElemType::kUint64, "u64"},
    {ox::ElemType::kBool, "bool"},
};

const char* DTypeOf(ox::ElemType t) {
  for (const auto& n : kTypeNames) {
    if (n.type == t) return n.dtype;
  }
  return nullptr;
}

std::optional<ox::ElemType> ElemTypeNamed(const std::string& dtype) {
  for (const auto& n : kTypeNames) {
    if (dtype == n.dtype) return n.type;
  }
  return std::nullopt;
}

void FinalizeSession(JS::GCContext*, JSObject* obj) {
  delete JS::GetMaybePtrFromReservedSlot<ox::Session>(obj, 0);
}
constexpr JSClassOps kSessionOps = {nullptr, nullptr,         nullptr, nullptr, nullptr,
                                    nullptr, FinalizeSession, nullptr, nullptr, nullptr};
constexpr JSClass kSessionClass = {
    "AlknetOnnxSession", JSCLASS_HAS_RESERVED_SLOTS(1) | JSCLASS_FOREGROUND_FINALIZE, &kSessionOps};

ox::Session* SessionOf(JSContext* cx, JS::HandleValue v) {
  if (v.isObject() && JS::GetClass(&v.toObject()) == &kSessionClass) {
    return JS::GetMaybePtrFromReservedSlot<ox::Session>(&v.toObject(), 0);
  }
  ThrowTypeError(cx, "Session: not a session object");
  return nullptr;
}

bool Define(JSContext* cx, JS::HandleObject obj, const char* name, JS::HandleValue v) {
  return JS_DefineProperty(cx, obj, name, v, JSPROP_ENUMERATE);
}
bool DefineString(JSContext* cx, JS::HandleObject obj, const char* name, std::string_view s) {
  JS::RootedString str(cx, NewString(cx, s));
  return str && JS_DefineProperty(cx, obj, name, str, JSPROP_ENUMERATE);
}
bool DefineNumber(JSContext* cx, JS::HandleObject obj, const char* name, double d) {
  return JS_DefineProperty(cx, obj, name, d, JSPROP_ENUMERATE);
}

// An options field as a number, or `fallback` when it is absent.
bool NumberOption(JSContext* cx, JS::HandleObject opts, const char* name, double fallback,
                  double* out) {
  JS::RootedValue v(cx);
  if (opts && !JS_GetProperty(cx, opts, name, &v)) return false;
  if (v.isUndefined()) {
    *out = fallback;
    return true;
  }
  if (!v.isNumber() || v.toNumber() < 0 || std::floor(v.toNumber()) != v.toNumber()) {
    return ThrowTypeError(
        cx, std::string("Session.load: options.") + name + " must be a non-negative integer");
  }
  *out = v.toNumber();
  return true;
}

// onnxLoad(path, options) -> session
bool Load(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  if (!args.get(0).isString())
    return ThrowTypeError(cx, "Session.load: the model path must be a string");
  const std::filesystem::path path = ToUtf8(cx, args.get(0).toString());
  JS::RootedObject opts(cx, args.get(1).isObject() ? &args.get(1).toObject() : nullptr);

  ox::SessionOptions options;
  double cache = 0, fold = 0;
  if (!NumberOption(cx, opts, "planCacheSize", static_cast<double>(options.plan_cache_size),
                    &cache) ||
      !NumberOption(cx, opts, "foldLimit", static_cast<double>(options.fold_limit), &fold)) {
    return false;
  }
  options.plan_cache_size = static_cast<size_t>(cache);
  options.fold_limit = static_cast<uint64_t>(fold);
  JS::RootedValue fuse(cx);
  if (opts && !JS_GetProperty(cx, opts, "fuse", &fuse)) return false;
  if (!fuse.isUndefined()) options.fuse = JS::ToBoolean(fuse);

  // The model and its external data are read under the script's --allow-read grants. A
  // denial keeps its own message and becomes a PermissionDenied error.
  const Permissions* permissions = HostOf(cx).permissions;
  std::optional<std::string> denied;
  options.check_read = [&](const std::filesystem::path& file) -> cp::Status {
    if (auto s = permissions->CheckRead(file); !s) {
      denied = s.error().message;
      return cp::Error{cp::ErrorCode::kInvalidArgument, s.error().message};
    }
    return cp::Ok{};
  };
  options.context = GetContext(cx);
  if (options.context == nullptr) return false;

  auto session = ox::Session::Load(path, options);
  if (!session.ok()) {
    if (denied) return ThrowError(cx, *denied, "PermissionDenied");
    return ThrowError(cx, session.error().ToString(), "OperationError");
  }
  JS::RootedObject obj(cx, JS_NewObject(cx, &kSessionClass));
  if (!obj) return false;
  JS::SetReservedSlot(obj, 0, JS::PrivateValue(new ox::Session(std::move(session).value())));
  args.rval().setObject(*obj);
  return true;
}

// [{name, dtype, onnxType, shape: [n | null], dimNames: [string | null]}]
JSObject* InfoList(JSContext* cx, const std::vector<ox::ValueInfo>& infos) {
  JS::RootedObject list(cx, JS::NewArrayObject(cx, infos.size()));
  if (!list) return nullptr;
  for (size_t i = 0; i < infos.size(); ++i) {
    const ox::ValueInfo& v = infos[i];
    JS::RootedObject o(cx, JS_NewPlainObject(cx));
    if (!o || !DefineString(cx, o, "name", v.name) ||
        !DefineString(cx, o, "onnxType", ox::ElemTypeName(v.type))) {
      return nullptr;
    }
    JS::RootedValue dtype(cx, JS::NullValue());
    if (const char* d = DTypeOf(v.type)) {
      JSString* s = NewString(cx, d);
      if (!s) return nullptr;
      dtype.setString(s);
    }
    if (!Define(cx, o, "dtype", dtype)) return nullptr;
    // sequence(tensor) and optional(...): dtype and shape are the tensors'.
    JS::RootedValue seq(cx, JS::BooleanValue(v.sequence)), opt(cx, JS::BooleanValue(v.optional));
    if (!Define(cx, o, "sequence", seq) || !Define(cx, o, "optional", opt)) return nullptr;
    JS::RootedValue shape(cx, JS::NullValue());  // null: the model declares no shape
    if (v.has_shape) {
      JS::RootedObject dims(cx, JS::NewArrayObject(cx, v.shape.size()));
      if (!dims) return nullptr;
      for (size_t k = 0; k < v.shape.size(); ++k) {
        JS::RootedValue d(cx, JS::NullValue());
        if (v.shape[k] >= 0) {
          d.setNumber(static_cast<double>(v.shape[k]));
        } else if (k < v.dim_names.size() && !v.dim_names[k].empty()) {
          JSString* s = NewString(cx, v.dim_names[k]);
          if (!s) return nullptr;
          d.setString(s);
        }
        if (!JS_SetElement(cx, dims, static_cast<uint32_t>(k), d)) return nullptr;
      }
      shape.setObject(*dims);
    }
    if (!Define(cx, o, "shape", shape) || !JS_SetElement(cx, list, static_cast<uint32_t>(i), o))
      return nullptr;
  }
  return list;
}

// onnxInfo(session) -> {inputs, outputs, opset, opTypes}
bool Info(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  ox::Session* s = SessionOf(cx, args.get(0));
  if (s == nullptr) return false;
  JS::RootedObject out(cx, JS_NewPlainObject(cx));
  JS::RootedValue inputs(cx), outputs(cx);
  JSObject* in = InfoList(cx, s->inputs());
  if (!out || !in) return false;
  inputs.setObject(*in);
  JSObject* o = InfoList(cx, s->outputs());
  if (!o) return false;
  outputs.setObject(*o);
  const std::vector<std::string> ops = s->op_types();
  JS::RootedObject op_list(cx, JS::NewArrayObject(cx, ops.size()));
  if (!op_list) return false;
  for (size_t i = 0; i < ops.size(); ++i) {
    JS::RootedString name(cx, NewString(cx, ops[i]));
    if (!name || !JS_SetElement(cx, op_list, static_cast<uint32_t>(i), name)) return false;
  }
  JS::RootedValue op_value(cx, JS::ObjectValue(*op_list));
  if (!Define(cx, out, "inputs", inputs) || !Define(cx, out, "outputs", outputs) ||
      !DefineNumber(cx, out, "opset", s->opset("")) || !Define(cx, out, "opTypes", op_value)) {
    return false;
  }
  args.rval().setObject(*out);
  return true;
}

// One feed as alknet-onnx takes it. `bytes` owns the data until Run returns; a sequence's
// tensors are `items` (their inputs copied into input.items once read).
struct Feed {
  ox::HostInput input;
  std::vector<std::byte> bytes;
  std::vector<Feed> items;
};

bool ReadFeed(JSContext* cx, JS::HandleObject f, Feed* feed, int depth = 0) {
  JS::RootedValue name(cx), tensor(cx), dtype(cx), shape(cx), data(cx), items(cx), none(cx);
  if (!JS_GetProperty(cx, f, "name", &name) || !JS_GetProperty(cx, f, "tensor", &tensor) ||
      !JS_GetProperty(cx, f, "items", &items) || !JS_GetProperty(cx, f, "none", &none))
    return false;
  if (!ValueToUtf8(cx, name, &feed->input.name)) return false;
  const std::string where = "Session.run: input '" + feed->input.name + "'";
  if (JS::ToBoolean(none)) {
    feed->input.kind = ox::ValueKind::kNone;
    return true;
  }
  if (!items.isUndefined()) {
    // A sequence: {name, items: [feed, ...]} (one level: sequences hold tensors).
    bool is_array = false;
    if (depth > 0 || !items.isObject() || !JS::IsArrayObject(cx, items, &is_array) || !is_array)
      return ThrowTypeError(cx, where + ": a sequence holds an array of tensors");
    JS::RootedObject list(cx, &items.toObject());
    uint32_t n = 0;
    if (!JS::GetArrayLength(cx, list, &n)) return false;
    if (n > 65536) return ThrowTypeError(cx, where + ": a sequence of more than 65536 tensors");
    feed->input.kind = ox::ValueKind::kSequence;
    feed->items.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      JS::RootedValue e(cx);
      if (!JS_GetElement(cx, list, i, &e)) return false;
      if (!e.isObject()) return ThrowTypeError(cx, where + ": item " + std::to_string(i));
      JS::RootedObject eo(cx, &e.toObject());
      if (!ReadFeed(cx, eo, &feed->items[i], depth + 1)) return false;
    }
    if (!JS_GetProperty(cx, f, "dtype", &dtype)) return false;
    std::string dt;
    if (dtype.isString() && ValueToUtf8(cx, dtype, &dt)) {
      if (auto type = ElemTypeNamed(dt)) feed->input.type = *type;
    }
    for (const Feed& e : feed->items) feed->input.items.push_back(e.input);
    return true;
  }
  if (!tensor.isUndefined()) {
    // A device tensor feeds the session as it is (no copy), in the device dtype of the
    // model's declared type: f32 for float, i32 for int64 (docs/adr/0002-onnx-dtypes.md).
    const cp::Tensor* t = TensorOf(cx, tensor, where);
    if (t == nullptr) return false;
    if (!JS_GetProperty(cx, f, "dtype", &dtype)) return false;
    std::optional<ox::ElemType> type;
    if (dtype.isString()) {
      type = ElemTypeNamed(ToUtf8(cx, dtype.toString()));
    } else {
      type = ox::ElemTypeOf(t->dtype());
    }
    if (!type)
      return ThrowTypeError(
          cx, where + ": a " + cp::DTypeName(t->dtype()) + " tensor has no ONNX type");
    feed->input.type = *type;
    feed->input.shape.assign(t->shape().begin(), t->shape().end());
    feed->input.device = *t;
    return true;
  } else {
    if (!JS_GetProperty(cx, f, "dtype", &dtype) || !JS_GetProperty(cx, f, "shape", &shape) ||
        !JS_GetProperty(cx, f, "data", &data)) {
      return false;
    }
    std::string dt;
    if (!ValueToUtf8(cx, dtype, &dt)) return false;
    auto type = ElemTypeNamed(dt);
    if (!type) return ThrowTypeError(cx, where + ": unknown dtype '" + dt + "'");
    feed->input.type = *type;
    if (!ShapeOf(cx, shape, &feed->input.shape, where)) return false;
    uint64_t elements = 1;
    for (uint64_t d : feed->input.shape) {
      if (d != 0 && elements > (uint64_t{1} << 40) / d) {
        return ThrowTypeError(cx, where + ": the shape has more than 2^40 elements");
      }
      elements *= d;
    }
    JS::AutoCheckCannotGC nogc;
    auto view = BytesOf(data, nogc);
    if (!view) return ThrowTypeError(cx, where + ": data must be a typed array");
    const uint64_t want = elements * ox::ElemSize(*type);
    if (view->size() != want) {
      return ThrowTypeError(
          cx, where + ": " + std::to_string(view->size()) + " bytes of data, but shape [" +
                  [&] {
                    std::string s;
                    for (size_t i = 0; i < feed->input.shape.size(); ++i) {
                      s += (i ? ", " : "") + std::to_string(feed->input.shape[i]);
                    }
                    return s;
                  }() +
                  "] of " + dt + " needs " + std::to_string(want));
    }
    const auto* p = reinterpret_cast<const std::byte*>(view->data());
    feed->bytes.assign(p, p + view->size());
  }
  feed->input.data = feed->bytes;
  return true;
}

// onnxRun(session, feeds, keepTensors) -> {outputs, planMs, runMs, planCached}
bool Run(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  ox::Session* s = SessionOf(cx, args.get(0));
  if (s == nullptr) return false;
  if (GetExecutor(cx) == nullptr) return false;  // the device (lost: an OperationError)
  bool is_array = false;
  if (!args.get(1).isObject() || !JS::IsArrayObject(cx, args.get(1), &is_array) || !is_array) {
    return ThrowTypeError(cx, "Session.run: feeds must be an array");
  }
  JS::RootedObject list(cx, &args.get(1).toObject());
  uint32_t n = 0;
  if (!JS::GetArrayLength(cx, list, &n)) return false;
  std::vector<Feed> feeds(n);
  for (uint32_t i = 0; i < n; ++i) {
    JS::RootedValue e(cx);
    if (!JS_GetElement(cx, list, i, &e)) return false;
    if (!e.isObject())
      return ThrowTypeError(cx, "Session.run: feeds[" + std::to_string(i) + "] is not an object");
    JS::RootedObject f(cx, &e.toObject());
    if (!ReadFeed(cx, f, &feeds[i])) return false;
  }
  std::vector<ox::HostInput> inputs;
  for (Feed& f : feeds) inputs.push_back(f.input);
  ox::RunOptions options;
  options.keep_device_outputs = JS::ToBoolean(args.get(2));
  auto result = s->Run(inputs, options);
  if (!result.ok()) return ThrowCompute(cx, result.error());

  JS::RootedObject outputs(cx, JS::NewArrayObject(cx, result->outputs.size()));
  if (!outputs) return false;
  // A host tensor as {name, dtype, shape, buffer}; a sequence as {name, kind: "sequence",
  // items: [...]}, an empty optional as {name, kind: "none"}.
  std::function<JSObject*(const ox::Tensor&)> host_value = [&](const ox::Tensor& t) -> JSObject* {
    JS::RootedObject o(cx, JS_NewPlainObject(cx));
    if (!o || !DefineString(cx, o, "name", t.name)) return nullptr;
    if (t.kind == ox::ValueKind::kNone) {
      if (!DefineString(cx, o, "kind", "none")) return nullptr;
      return o;
    }
    if (t.kind == ox::ValueKind::kSequence) {
      JS::RootedObject list(cx, JS::NewArrayObject(cx, t.items.size()));
      if (!list || !DefineString(cx, o, "kind", "sequence")) return nullptr;
      for (size_t k = 0; k < t.items.size(); ++k) {
        JS::RootedObject e(cx, host_value(t.items[k]));
        if (!e || !JS_SetElement(cx, list, static_cast<uint32_t>(k), e)) return nullptr;
      }
      JS::RootedValue lv(cx, JS::ObjectValue(*list));
      if (!Define(cx, o, "items", lv)) return nullptr;
      return o;
    }
    const char* dtype = DTypeOf(t.type);
    if (dtype == nullptr) {
      ThrowError(cx,
                 "Session.run: output '" + t.name + "' has ONNX type " + ox::ElemTypeName(t.type) +
                     ", which has no typed array",
                 "NotSupportedError");
      return nullptr;
    }
    JS::RootedObject shape(cx, JS::NewArrayObject(cx, t.shape.size()));
    JS::RootedObject buffer(cx, NewArrayBufferFrom(cx, t.data));
    if (!shape || !buffer || !DefineString(cx, o, "dtype", dtype)) return nullptr;
    for (size_t k = 0; k < t.shape.size(); ++k) {
      if (!JS_DefineElement(cx, shape, static_cast<uint32_t>(k), static_cast<double>(t.shape[k]),
                            JSPROP_ENUMERATE)) {
        return nullptr;
      }
    }
    JS::RootedValue shape_v(cx, JS::ObjectValue(*shape)), buffer_v(cx, JS::ObjectValue(*buffer));
    if (!Define(cx, o, "shape", shape_v) || !Define(cx, o, "buffer", buffer_v)) return nullptr;
    return o;
  };
  for (size_t i = 0; i < result->outputs.size(); ++i) {
    const ox::Tensor& t = result->outputs[i];
    if (t.kind != ox::ValueKind::kTensor) {
      JS::RootedObject o(cx, host_value(t));
      if (!o || !JS_SetElement(cx, outputs, static_cast<uint32_t>(i), o)) return false;
      continue;
    }
    JS::RootedObject o(cx, JS_NewPlainObject(cx));
    if (!o || !DefineString(cx, o, "name", t.name)) return false;
    const char* dtype = DTypeOf(t.type);
    if (dtype == nullptr) {
      return ThrowError(cx,
                        "Session.run: output '" + t.name + "' has ONNX type " +
                            ox::ElemTypeName(t.type) + ", which has no typed array",
                        "NotSupportedError");
    }
    JS::RootedObject shape(cx, JS::NewArrayObject(cx, t.shape.size()));
    JS::RootedObject buffer(cx, NewArrayBufferFrom(cx, t.data));
    if (!shape || !buffer || !DefineString(cx, o, "dtype", dtype)) return false;
    for (size_t k = 0; k < t.shape.size(); ++k) {
      if (!JS_DefineElement(cx, shape, static_cast<uint32_t>(k), static_cast<double>(t.shape[k]),
                            JSPROP_ENUMERATE)) {
        return false;
      }
    }
    JS::RootedValue shape_v(cx, JS::ObjectValue(*shape)), buffer_v(cx, JS::ObjectValue(*buffer));
    if (!Define(cx, o, "shape", shape_v) || !Define(cx, o, "buffer", buffer_v)) return false;
    if (i < result->device_outputs.size() && result->device_outputs[i].valid()) {
      JS::RootedValue tensor(cx);
      JSObject* wrapped = WrapTensor(cx, result->device_outputs[i]);
      if (!wrapped) return false;
      tensor.setObject(*wrapped);
      if (!Define(cx, o, "tensor", tensor)) return false;
    }
    if (!JS_SetElement(cx, outputs, static_cast<uint32_t>(i), o)) return false;
  }
  JS::RootedObject out(cx, JS_NewPlainObject(cx));
  JS::RootedValue outputs_v(cx, JS::ObjectValue(*outputs)),
      cached(cx, JS::BooleanValue(result->plan_cached));
  if (!out || !Define(cx, out, "outputs", outputs_v) ||
      !DefineNumber(cx, out, "planMs", result->plan_ms) ||
      !DefineNumber(cx, out, "runMs", result->run_ms) || !Define(cx, out, "planCached", cached)) {
    return false;
  }
  args.rval().setObject(*out);
  return true;
}

// onnxStats(session) -> {plansBuilt, planCacheHits, nodesFolded, nodesOnDevice, fusions,
// initializersUploaded, ifsInlined, controlNodesRun, subgraphRuns, hostOpsRun}
bool Stats(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  ox::Session* s = SessionOf(cx, args.get(0));
  if (s == nullptr) return false;
  const ox::SessionStats& st = s->stats();
  JS::RootedObject out(cx, JS_NewPlainObject(cx));
  if (!out || !DefineNumber(cx, out, "plansBuilt", static_cast<double>(st.plans_built)) ||
      !DefineNumber(cx, out, "planCacheHits", static_cast<double>(st.plan_cache_hits)) ||
      !DefineNumber(cx, out, "nodesFolded", static_cast<double>(st.nodes_folded)) ||
      !DefineNumber(cx, out, "nodesOnDevice", static_cast<double>(st.nodes_on_device)) ||
      !DefineNumber(cx, out, "fusions", static_cast<double>(st.fusions)) ||
      !DefineNumber(cx, out, "initializersUploaded",
                    static_cast<double>(st.initializers_uploaded)) ||
      !DefineNumber(cx, out, "ifsInlined", static_cast<double>(st.ifs_inlined)) ||
      !DefineNumber(cx, out, "controlNodesRun", static_cast<double>(st.control_nodes_run)) ||
      !DefineNumber(cx, out, "subgraphRuns", static_cast<double>(st.subgraph_runs)) ||
      !DefineNumber(cx, out, "hostOpsRun", static_cast<double>(st.host_ops_run))) {
    return false;
  }
  args.rval().setObject(*out);
  return true;
}

const JSFunctionSpec kOnnxCore[] = {JS_FN("onnxLoad", Load, 2, 0), JS_FN("onnxInfo", Info, 1, 0),
                                    JS_FN("onnxRun", Run, 3, 0), JS_FN("onnxStats", Stats, 1, 0),
                                    JS_FS_END};

}  // namespace

bool DefineOnnxCore(JSContext* cx, JS::HandleObject core) {
  return JS_DefineFunctions(cx, core, kOnnxCore);
}

}  // namespace alknet::runtime::sm::modules

namespace alknet::ext {
void InstallOnnxModule() {
  runtime::ExtendNativeCore("compute", &runtime::sm::modules::DefineOnnxCore);
}
}  // namespace alknet::ext
