// The native half of alknet:compute (js/compute.js): device-resident tensors on an Executor,
// every record of the op table, and SHA-256, on one WebGPU device opened on first use.
//
// A tensor is a JS object of class AlknetTensor owning a compute::Tensor (reserved slot 0);
// its GPU buffer is released when the object is collected.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "alknet/compute/executor.h"
#include "alknet/compute/op_table.h"
#include "alknet/compute/sha256.h"
#include "alknet/ext/compute.h"
#include "alknet/ext/compute_core.h"
#include "alknet/runtime/webgpu_interop.h"
#include "alknet/webgpu/context.h"

namespace alknet::ext::compute_js {
struct EmbeddedFile {
  std::string_view name;
  std::string_view contents;
};
extern const EmbeddedFile kEmbeddedFiles[];  // compute.js, embedded by CMakeLists.txt
}  // namespace alknet::ext::compute_js

namespace alknet::runtime::sm::modules {

namespace cp = alknet::compute;

namespace {

// One device per process, as in compute's registry calls: JS runs on one thread, and the
// executor's buffer pool and pipeline cache outlive any one script.
struct Device {
  std::unique_ptr<webgpu::Context> ctx;
  std::unique_ptr<cp::Executor> executor;
};

Device& TheDevice() {
  static Device d;
  return d;
}

}  // namespace

cp::Executor* GetExecutor(JSContext* cx) {
  Device& d = TheDevice();
  if (!d.executor) {
    auto created = webgpu::Context::Create();
    if (!created.ok()) {
      ThrowError(cx, "alknet:compute: no WebGPU device: " + created.error().ToString(),
                 "NotSupportedError");
      return nullptr;
    }
    d.ctx = std::move(created).value();
    d.executor = std::make_unique<cp::Executor>(*d.ctx);
    // `d` was constructed before Context::Create loaded Dawn and the Vulkan driver, so its
    // destructor would run after the exit handlers and static destructors they registered
    // meanwhile: on NVIDIA's driver a script whose first GPU use was alknet:compute (not
    // navigator.gpu) segfaulted at exit. A handler registered now runs before theirs.
    static const bool released_at_exit = [] {
      std::atexit([] {
        TheDevice().executor.reset();
        TheDevice().ctx.reset();
      });
      return true;
    }();
    (void)released_at_exit;
  }
  if (d.ctx->lost()) {
    ThrowError(cx, "alknet:compute: the WebGPU device was lost: " + d.ctx->lost_message(),
               "OperationError");
    return nullptr;
  }
  return d.executor.get();
}

webgpu::Context* GetContext(JSContext* cx) {
  return GetExecutor(cx) == nullptr ? nullptr : TheDevice().ctx.get();
}

bool ThrowCompute(JSContext* cx, const cp::Error& e) {
  return ThrowError(cx, e.ToString(), "OperationError");
}

namespace {

void FinalizeTensor(JS::GCContext*, JSObject* obj) {
  delete JS::GetMaybePtrFromReservedSlot<cp::Tensor>(obj, 0);
}
constexpr JSClassOps kTensorOps = {nullptr, nullptr,        nullptr, nullptr, nullptr,
                                   nullptr, FinalizeTensor, nullptr, nullptr, nullptr};
constexpr JSClass kTensorClass = {
    "AlknetTensor", JSCLASS_HAS_RESERVED_SLOTS(1) | JSCLASS_FOREGROUND_FINALIZE, &kTensorOps};

}  // namespace

JSObject* WrapTensor(JSContext* cx, cp::Tensor t) {
  JSObject* obj = JS_NewObject(cx, &kTensorClass);
  if (!obj) return nullptr;
  JS::SetReservedSlot(obj, 0, JS::PrivateValue(new cp::Tensor(std::move(t))));
  return obj;
}

const cp::Tensor* TensorOf(JSContext* cx, JS::HandleValue v, const std::string& where) {
  if (v.isObject() && JS::GetClass(&v.toObject()) == &kTensorClass) {
    return JS::GetMaybePtrFromReservedSlot<cp::Tensor>(&v.toObject(), 0);
  }
  ThrowTypeError(cx, where + " is not an alknet:compute Tensor");
  return nullptr;
}

bool ShapeOf(JSContext* cx, JS::HandleValue v, cp::Shape* out, const std::string& where) {
  bool is_array = false;
  if (!v.isObject() || !JS::IsArrayObject(cx, v, &is_array) || !is_array) {
    return ThrowTypeError(cx, where + ": the shape must be an array of integers");
  }
  JS::RootedObject arr(cx, &v.toObject());
  uint32_t n = 0;
  if (!JS::GetArrayLength(cx, arr, &n)) return false;
  for (uint32_t i = 0; i < n; ++i) {
    JS::RootedValue d(cx);
    if (!JS_GetElement(cx, arr, i, &d)) return false;
    if (!d.isNumber() || d.toNumber() < 0 || std::floor(d.toNumber()) != d.toNumber() ||
        d.toNumber() > 9.0e15) {
      return ThrowTypeError(
          cx, where + ": shape[" + std::to_string(i) + "] is not a non-negative integer");
    }
    out->push_back(static_cast<uint64_t>(d.toNumber()));
  }
  return true;
}

namespace {

// upload(dtype, shape, typedArray) -> Tensor. The bytes are copied into a GPU buffer.
bool Upload(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  const std::string dtype = args.get(0).isString() ? ToUtf8(cx, args.get(0).toString()) : "";
  const tensor::DTypeInfo* info = tensor::FindDType(dtype);
  if (info == nullptr) return ThrowTypeError(cx, "Tensor: unknown dtype '" + dtype + "'");
  cp::Shape shape;
  if (!ShapeOf(cx, args.get(1), &shape, "Tensor")) return false;
  cp::Executor* ex = GetExecutor(cx);
  if (ex == nullptr) return false;
  std::vector<std::byte> bytes;
  {
    JS::AutoCheckCannotGC nogc;
    auto view = BytesOf(args.get(2), nogc);
    if (!view) return ThrowTypeError(cx, "Tensor: data must be a typed array or an ArrayBuffer");
    bytes.assign(reinterpret_cast<const std::byte*>(view->data()),
                 reinterpret_cast<const std::byte*>(view->data()) + view->size());
  }
  auto t = ex->Upload(info->dtype, shape, bytes);
  if (!t.ok()) return ThrowCompute(cx, t.error());
  JSObject* obj = WrapTensor(cx, *t);
  if (!obj) return false;
  args.rval().setObject(*obj);
  return true;
}

// describe(tensor) -> {dtype, shape}
bool Describe(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  const cp::Tensor* t = TensorOf(cx, args.get(0), "describe: argument");
  if (t == nullptr) return false;
  JS::RootedObject obj(cx, JS_NewPlainObject(cx));
  JS::RootedString dt(cx, NewString(cx, cp::DTypeName(t->dtype())));
  JS::RootedObject shape(cx, JS::NewArrayObject(cx, t->rank()));
  if (!obj || !dt || !shape) return false;
  for (size_t i = 0; i < t->rank(); ++i) {
    if (!JS_DefineElement(cx, shape, static_cast<uint32_t>(i), static_cast<double>(t->shape()[i]),
                          JSPROP_ENUMERATE)) {
      return false;
    }
  }
  if (!JS_DefineProperty(cx, obj, "dtype", dt, JSPROP_ENUMERATE) ||
      !JS_DefineProperty(cx, obj, "shape", shape, JSPROP_ENUMERATE)) {
    return false;
  }
  args.rval().setObject(*obj);
  return true;
}

// download(tensor) -> ArrayBuffer of the host bytes (metatensor layout).
bool Download(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  const cp::Tensor* t = TensorOf(cx, args.get(0), "download: argument");
  if (t == nullptr) return false;
  cp::Executor* ex = GetExecutor(cx);
  if (ex == nullptr) return false;
  auto host = ex->Download(*t);
  if (!host.ok()) return ThrowCompute(cx, host.error());
  JSObject* buf = NewArrayBufferFrom(cx, std::move(host->data));
  if (!buf) return false;
  args.rval().setObject(*buf);
  return true;
}

// A JS attribute value as the record expects it: integers stay int64 unless the record's
// default for that attribute is a float (alpha: 1 means 1.0), lists likewise.
bool ToAttr(JSContext* cx, const cp::OpRecord& rec, const std::string& key, JS::HandleValue v,
            cp::AttrValue* out) {
  bool wants_float = false;
  for (const auto& spec : rec.attributes) {
    if (spec.name == key && spec.default_value) {
      wants_float = std::holds_alternative<double>(*spec.default_value) ||
                    std::holds_alternative<std::vector<double>>(*spec.default_value);
    }
  }
  const std::string where = rec.name + " attribute '" + key + "'";
  if (v.isNumber()) {
    const double d = v.toNumber();
    if (!wants_float && std::floor(d) == d && std::fabs(d) < 9.007199254740992e15) {
      *out = static_cast<int64_t>(d);
    } else {
      *out = d;
    }
    return true;
  }
  if (v.isBoolean()) {
    *out = static_cast<int64_t>(v.toBoolean());
    return true;
  }
  if (v.isString()) {
    *out = ToUtf8(cx, v.toString());
    return true;
  }
  bool is_array = false;
  if (v.isObject() && JS::IsArrayObject(cx, v, &is_array) && is_array) {
    JS::RootedObject arr(cx, &v.toObject());
    uint32_t n = 0;
    if (!JS::GetArrayLength(cx, arr, &n)) return false;
    std::vector<int64_t> ints;
    std::vector<double> floats;
    bool all_int = !wants_float;
    for (uint32_t i = 0; i < n; ++i) {
      JS::RootedValue e(cx);
      if (!JS_GetElement(cx, arr, i, &e)) return false;
      if (!e.isNumber()) return ThrowTypeError(cx, where + ": lists hold numbers only");
      const double d = e.toNumber();
      if (std::floor(d) != d) all_int = false;
      ints.push_back(static_cast<int64_t>(d));
      floats.push_back(d);
    }
    if (all_int)
      *out = std::move(ints);
    else
      *out = std::move(floats);
    return true;
  }
  return ThrowTypeError(cx, where + ": attributes are numbers, strings or arrays of numbers");
}

// run(opName, [tensors], attrs, opset) -> Tensor. Records and submits; nothing waits until a
// download.
bool Run(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  if (!args.get(0).isString())
    return ThrowTypeError(cx, "op: the op name must be a string like 'MatMul'");
  const std::string op = ToUtf8(cx, args.get(0).toString());
  int opset = 17;
  if (args.get(3).isNumber()) opset = static_cast<int>(args.get(3).toNumber());
  const cp::OpRecord* rec = cp::OpTable::Default().Find(op, opset);
  if (rec == nullptr) {
    return ThrowTypeError(cx, "op '" + op + "' (opset " + std::to_string(opset) +
                                  ") is not in the op table; compute.ops lists the ops");
  }
  std::vector<cp::Tensor> inputs;
  bool is_array = false;
  if (!args.get(1).isObject() || !JS::IsArrayObject(cx, args.get(1), &is_array) || !is_array) {
    return ThrowTypeError(cx, op + ": inputs must be an array of Tensors");
  }
  JS::RootedObject arr(cx, &args.get(1).toObject());
  uint32_t n = 0;
  if (!JS::GetArrayLength(cx, arr, &n)) return false;
  for (uint32_t i = 0; i < n; ++i) {
    JS::RootedValue e(cx);
    if (!JS_GetElement(cx, arr, i, &e)) return false;
    const cp::Tensor* t = TensorOf(cx, e, op + ": inputs[" + std::to_string(i) + "]");
    if (t == nullptr) return false;
    inputs.push_back(*t);
  }
  cp::Attributes attrs;
  if (args.get(2).isObject()) {
    JS::RootedObject obj(cx, &args.get(2).toObject());
    JS::Rooted<JS::IdVector> ids(cx, JS::IdVector(cx));
    if (!JS_Enumerate(cx, obj, &ids)) return false;
    for (size_t i = 0; i < ids.length(); ++i) {
      JS::RootedValue key(cx), value(cx);
      std::string k;
      if (!JS_IdToValue(cx, ids[i], &key) || !ValueToUtf8(cx, key, &k) ||
          !JS_GetPropertyById(cx, obj, ids[i], &value)) {
        return false;
      }
      if (value.isUndefined()) continue;
      cp::AttrValue a;
      if (!ToAttr(cx, *rec, k, value, &a)) return false;
      attrs.emplace(std::move(k), std::move(a));
    }
  }
  cp::Executor* ex = GetExecutor(cx);
  if (ex == nullptr) return false;
  auto out = ex->Run(op, inputs, std::move(attrs), opset);
  if (!out.ok()) return ThrowCompute(cx, out.error());
  JSObject* obj = WrapTensor(cx, *out);
  if (!obj) return false;
  args.rval().setObject(*obj);
  return true;
}

// ops() -> [{name, family, minInputs, maxInputs, opsetMin, opsetMax, summary}], one per
// record (an op with several opset ranges has several records).
bool Ops(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  const auto& records = cp::OpTable::Default().records();
  JS::RootedObject arr(cx, JS::NewArrayObject(cx, records.size()));
  if (!arr) return false;
  for (size_t i = 0; i < records.size(); ++i) {
    const cp::OpRecord& r = records[i];
    JS::RootedObject o(cx, JS_NewPlainObject(cx));
    JS::RootedString name(cx, NewString(cx, r.name)), family(cx, NewString(cx, r.family)),
        summary(cx, NewString(cx, r.summary));
    if (!o || !name || !family || !summary ||
        !JS_DefineProperty(cx, o, "name", name, JSPROP_ENUMERATE) ||
        !JS_DefineProperty(cx, o, "family", family, JSPROP_ENUMERATE) ||
        !JS_DefineProperty(cx, o, "summary", summary, JSPROP_ENUMERATE) ||
        !JS_DefineProperty(cx, o, "minInputs", static_cast<double>(r.min_inputs),
                           JSPROP_ENUMERATE) ||
        !JS_DefineProperty(cx, o, "maxInputs", static_cast<double>(r.max_inputs),
                           JSPROP_ENUMERATE) ||
        !JS_DefineProperty(cx, o, "opsetMin", r.opset_min, JSPROP_ENUMERATE) ||
        !JS_DefineProperty(cx, o, "opsetMax", r.opset_max, JSPROP_ENUMERATE) ||
        !JS_SetElement(cx, arr, static_cast<uint32_t>(i), o)) {
      return false;
    }
  }
  args.rval().setObject(*arr);
  return true;
}

// sha256([bytes...]) -> [Uint8Array(32)...], one GPU invocation per message.
bool Sha256(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  bool is_array = false;
  if (!args.get(0).isObject() || !JS::IsArrayObject(cx, args.get(0), &is_array) || !is_array) {
    return ThrowTypeError(cx, "sha256: expects an array of byte arrays");
  }
  JS::RootedObject arr(cx, &args.get(0).toObject());
  uint32_t n = 0;
  if (!JS::GetArrayLength(cx, arr, &n)) return false;
  std::vector<std::vector<std::byte>> copies(n);
  for (uint32_t i = 0; i < n; ++i) {
    JS::RootedValue e(cx);
    if (!JS_GetElement(cx, arr, i, &e)) return false;
    JS::AutoCheckCannotGC nogc;
    auto bytes = BytesOf(e, nogc);
    if (!bytes)
      return ThrowTypeError(
          cx, "sha256: message " + std::to_string(i) + " is not a Uint8Array or ArrayBuffer");
    copies[i].assign(reinterpret_cast<const std::byte*>(bytes->data()),
                     reinterpret_cast<const std::byte*>(bytes->data()) + bytes->size());
  }
  cp::Executor* ex = GetExecutor(cx);
  if (ex == nullptr) return false;
  std::vector<std::span<const std::byte>> msgs(copies.begin(), copies.end());
  cp::Sha256 sha(*ex);
  auto digests = sha.HashBatch(msgs);
  if (!digests.ok()) return ThrowCompute(cx, digests.error());
  JS::RootedObject out(cx, JS::NewArrayObject(cx, digests->size()));
  if (!out) return false;
  for (size_t i = 0; i < digests->size(); ++i) {
    JS::RootedObject d(cx, NewUint8Array(cx, (*digests)[i]));
    if (!d || !JS_SetElement(cx, out, static_cast<uint32_t>(i), d)) return false;
  }
  args.rval().setObject(*out);
  return true;
}

// device() -> a new JS GPUDevice over the module's device (compute.js keeps one per engine):
// render and compute passes of a script then share the device the tensors live on.
bool GpuDevice(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  webgpu::Context* ctx = GetContext(cx);
  if (ctx == nullptr) return false;
  JSObject* device = WrapContextDevice(cx, *ctx, "alknet:compute");
  if (!device) return false;
  args.rval().setObject(*device);
  return true;
}

// gpuBuffer(tensor, device) -> a GPUBuffer over the tensor's storage (no copy), for a
// contiguous tensor that starts at its buffer's first byte. It keeps the storage alive.
bool GpuBuffer(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  const cp::Tensor* t = TensorOf(cx, args.get(0), "gpuBuffer: argument");
  if (t == nullptr) return false;
  if (!t->contiguous() || t->offset() != 0) {
    return ThrowTypeError(cx,
                          "Tensor.gpuBuffer: this tensor is a strided view (a transpose, slice "
                          "or expand) of another tensor's storage; only a contiguous tensor has "
                          "a GPUBuffer of its own: use the result of an op that computes it");
  }
  const webgpu::Buffer& b = t->buffer();
  JSObject* buffer = WrapLentGpuBuffer(cx, args.get(1), b.handle.get(), b.size, b.usage,
                                       t->storage(), "alknet:compute tensor");
  if (!buffer) return false;
  args.rval().setObject(*buffer);
  return true;
}

const JSFunctionSpec kComputeCore[] = {JS_FN("upload", Upload, 3, 0),
                                       JS_FN("device", GpuDevice, 0, 0),
                                       JS_FN("gpuBuffer", GpuBuffer, 2, 0),
                                       JS_FN("describe", Describe, 1, 0),
                                       JS_FN("download", Download, 1, 0),
                                       JS_FN("run", Run, 4, 0),
                                       JS_FN("ops", Ops, 0, 0),
                                       JS_FN("sha256", Sha256, 1, 0),
                                       JS_FS_END};

}  // namespace

bool DefineComputeCore(JSContext* cx, JS::HandleObject core) {
  return JS_DefineFunctions(cx, core, kComputeCore);
}

}  // namespace alknet::runtime::sm::modules

namespace alknet::ext {
void InstallComputeModule() {
  runtime::RegisterNativeModule("compute", compute_js::kEmbeddedFiles[0].contents,
                                &runtime::sm::modules::DefineComputeCore);
}
}  // namespace alknet::ext
