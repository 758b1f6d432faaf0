#include "alknet/compute-calls/calls.h"

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>

#include "alknet/compute/executor.h"
#include "alknet/compute/op_table.h"
#include "alknet/compute/sha256.h"
#include "alknet/webgpu/context.h"

namespace alknet::compute {

namespace {

namespace c = alknet::call;

// One device per process, opened on first use; calls take turns on it.
struct Device {
  std::timed_mutex mutex;
  std::unique_ptr<webgpu::Context> ctx;
  std::unique_ptr<Executor> executor;
  // For DeviceStatusNow(), read without the mutex: the context once opened (it lives as long
  // as the process) and the calls waiting for the device.
  std::atomic<webgpu::Context*> published{nullptr};
  std::atomic<int> waiting{0};

  c::Result<Executor*> Get() {
    if (!executor) {
      auto created = webgpu::Context::Create();
      if (!created.ok()) {
        return c::MakeError(c::ErrorCode::kUnavailable,
                            "no WebGPU device: " + created.error().ToString());
      }
      ctx = std::move(created).value();
      executor = std::make_unique<Executor>(*ctx);
      published.store(ctx.get());
    }
    if (ctx->lost())
      return c::MakeError(c::ErrorCode::kUnavailable,
                          "the WebGPU device was lost: " + ctx->lost_message());
    return executor.get();
  }
};

Device& TheDevice() {
  static Device d;
  return d;
}

// Takes the device, giving up as soon as the call is cancelled or past its deadline: a call
// queued behind a long one must not wait beyond its own limit.
c::Result<std::unique_lock<std::timed_mutex>> LockDevice(const c::CallContext& ctx) {
  std::unique_lock lock(TheDevice().mutex, std::defer_lock);
  if (lock.try_lock()) return lock;
  // Queued behind another call: counted (queue depth) and timed (the call's queue time).
  const auto start = std::chrono::steady_clock::now();
  struct Waiting {
    const c::CallContext& ctx;
    std::chrono::steady_clock::time_point start;
    Waiting(const c::CallContext& c, std::chrono::steady_clock::time_point s) : ctx(c), start(s) {
      TheDevice().waiting.fetch_add(1);
    }
    ~Waiting() {
      TheDevice().waiting.fetch_sub(1);
      if (const auto& q = ctx.options().queue_ns) {
        q->fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::steady_clock::now() - start)
                         .count());
      }
    }
  } waiting(ctx, start);
  while (!lock.try_lock_for(std::chrono::milliseconds(5))) {
    if (ctx.ShouldStop()) {
      c::Error e = ctx.StopError();
      e.message += " while it waited for the GPU (another call was using it)";
      return e;
    }
  }
  return lock;
}

// The most multiply-adds one MatMul dispatch does for a call: a larger product is run as
// row blocks, and the call's deadline and cancellation are checked between them, so a
// `compute.mat_mul` past --max-call-time stops within about one block (~0.2 s on lavapipe),
// not after the whole product.
constexpr double kMacsPerDispatch = double(1 << 28);

c::Error ToCallError(const Error& e) {
  c::ErrorCode code = c::ErrorCode::kInternal;
  switch (e.code) {
    case ErrorCode::kUnknownOp:
    case ErrorCode::kInvalidAttribute:
    case ErrorCode::kUnsupported:
    case ErrorCode::kShape:
    case ErrorCode::kInvalidArgument: code = c::ErrorCode::kInvalidArgument; break;
    case ErrorCode::kLimit: code = c::ErrorCode::kResourceExhausted; break;
    case ErrorCode::kDevice: code = c::ErrorCode::kUnavailable; break;
    case ErrorCode::kTemplate: code = c::ErrorCode::kInternal; break;
  }
  return c::MakeError(code, e.ToString());
}

c::Result<AttrValue> ToAttr(const std::string& name, const c::Value& v) {
  switch (v.kind()) {
    case c::ValueKind::kInt: return AttrValue(v.as_int());
    case c::ValueKind::kFloat: return AttrValue(v.as_float());
    case c::ValueKind::kString: return AttrValue(v.as_string());
    case c::ValueKind::kList: {
      std::vector<int64_t> ints;
      std::vector<double> floats;
      bool all_int = true;
      for (const c::Value& x : v.as_list()) {
        if (x.kind() == c::ValueKind::kInt) {
          ints.push_back(x.as_int());
          floats.push_back(static_cast<double>(x.as_int()));
        } else if (x.kind() == c::ValueKind::kFloat) {
          all_int = false;
          floats.push_back(x.as_float());
        } else {
          return c::MakeError(c::ErrorCode::kInvalidArgument,
                              "attribute '" + name + "': lists hold numbers only");
        }
      }
      return all_int ? AttrValue(ints) : AttrValue(floats);
    }
    default:
      return c::MakeError(c::ErrorCode::kInvalidArgument,
                          "attribute '" + name + "' is a " +
                              std::string(c::ValueKindName(v.kind())) +
                              "; attributes are int, float, string or a list of numbers");
  }
}

c::Value ToCallTensor(HostTensor host) {
  std::vector<int64_t> shape(host.shape.begin(), host.shape.end());
  return c::Value(c::Tensor::Adopt(DTypeName(host.dtype), std::move(shape), std::move(host.data)));
}

// A 2-D MatMul as row blocks of A against all of B: each block is one dispatch, and the call
// stops between blocks once it should. Every output element is the same dot product as in
// one dispatch (rows of a MatMul are independent).
c::Result<c::Value> RunMatMulInBlocks(const c::CallContext& ctx, Executor& ex,
                                      const std::vector<c::Tensor>& in, DType dtype,
                                      std::size_t element_bytes, int opset) {
  const auto m = static_cast<std::uint64_t>(in[0].shape[0]);
  const auto k = static_cast<std::uint64_t>(in[0].shape[1]);
  const auto n = static_cast<std::uint64_t>(in[1].shape[1]);
  const std::uint64_t rows =
      std::max<std::uint64_t>(1, static_cast<std::uint64_t>(kMacsPerDispatch / double(k * n)));
  auto b = ex.Upload(dtype, {k, n}, in[1].data);
  if (!b.ok()) return ToCallError(b.error());
  HostTensor out;
  for (std::uint64_t r0 = 0; r0 < m; r0 += rows) {
    if (ctx.ShouldStop()) return ctx.StopError();
    const std::uint64_t count = std::min(rows, m - r0);
    auto a = ex.Upload(dtype, {count, k},
                       in[0].data.subspan(r0 * k * element_bytes, count * k * element_bytes));
    if (!a.ok()) return ToCallError(a.error());
    auto block = ex.Run("MatMul", {*a, *b}, {}, opset);
    if (!block.ok()) return ToCallError(block.error());
    auto host = ex.Download(*block);
    if (!host.ok()) return ToCallError(host.error());
    if (r0 == 0) {
      out.dtype = host->dtype;
      out.shape = {m, n};
      out.data.reserve(m * n * (host->data.size() / std::max<std::uint64_t>(1, count * n)));
    }
    out.data.insert(out.data.end(), host->data.begin(), host->data.end());
  }
  return ToCallTensor(std::move(out));
}

c::Result<c::Value> RunOp(const c::CallContext& ctx, const std::string& op,
                          std::span<const c::Value> args) {
  std::vector<c::Tensor> in;
  for (size_t i = 0; i < args[0].as_list().size(); ++i) {
    const c::Value& v = args[0].as_list()[i];
    if (v.kind() != c::ValueKind::kTensor) {
      return c::MakeError(c::ErrorCode::kInvalidArgument,
                          "inputs[" + std::to_string(i) + "] is a " +
                              std::string(c::ValueKindName(v.kind())) + ", not a tensor");
    }
    in.push_back(v.as_tensor());
  }
  Attributes attrs;
  if (args.size() > 1 && !args[1].is_null()) {
    for (const auto& [k, v] : args[1].as_map()) {
      auto a = ToAttr(k, v);
      if (!a.ok()) return std::move(a).error();
      attrs[k] = *a;
    }
  }
  const int opset = args.size() > 2 && !args[2].is_null() ? static_cast<int>(args[2].as_int()) : 17;

  auto lock = LockDevice(ctx);
  if (!lock.ok()) return std::move(lock).error();
  auto ex = TheDevice().Get();
  if (!ex.ok()) return std::move(ex).error();
  std::vector<const tensor::DTypeInfo*> infos;
  for (size_t i = 0; i < in.size(); ++i) {
    const tensor::DTypeInfo* info = tensor::FindDType(in[i].dtype);
    if (info == nullptr) {
      return c::MakeError(c::ErrorCode::kInvalidArgument,
                          "inputs[" + std::to_string(i) + "]: unknown dtype '" + in[i].dtype + "'");
    }
    for (int64_t d : in[i].shape) {
      if (d < 0)
        return c::MakeError(c::ErrorCode::kInvalidArgument,
                            "inputs[" + std::to_string(i) + "]: negative dimension");
    }
    infos.push_back(info);
  }
  if (op == "MatMul" && attrs.empty() && in.size() == 2 && in[0].shape.size() == 2 &&
      in[1].shape.size() == 2 && in[0].shape[1] == in[1].shape[0] && in[0].dtype == in[1].dtype &&
      in[0].shape[0] > 1 && infos[0]->block_elements == 1 &&
      double(in[0].shape[0]) * double(in[0].shape[1]) * double(in[1].shape[1]) > kMacsPerDispatch &&
      in[0].data.size() == std::size_t(in[0].shape[0] * in[0].shape[1]) * infos[0]->block_bytes &&
      in[1].data.size() == std::size_t(in[1].shape[0] * in[1].shape[1]) * infos[1]->block_bytes) {
    return RunMatMulInBlocks(ctx, **ex, in, infos[0]->dtype, infos[0]->block_bytes, opset);
  }
  std::vector<Tensor> tensors;
  for (size_t i = 0; i < in.size(); ++i) {
    Shape shape(in[i].shape.begin(), in[i].shape.end());
    auto t = (*ex)->Upload(infos[i]->dtype, shape, in[i].data);
    if (!t.ok()) return ToCallError(t.error());
    tensors.push_back(*t);
  }
  if (ctx.ShouldStop()) return ctx.StopError();
  auto out = (*ex)->Run(op, tensors, attrs, opset);
  if (!out.ok()) return ToCallError(out.error());
  auto host = (*ex)->Download(*out);
  if (!host.ok()) return ToCallError(host.error());
  return ToCallTensor(std::move(*host));
}

c::Result<c::Value> RunSha256(const c::CallContext& ctx, std::span<const c::Value> args) {
  std::vector<std::span<const std::byte>> msgs;
  for (size_t i = 0; i < args[0].as_list().size(); ++i) {
    const c::Value& v = args[0].as_list()[i];
    if (v.kind() == c::ValueKind::kBytes) {
      msgs.push_back(std::as_bytes(std::span(v.as_bytes())));
    } else if (v.kind() == c::ValueKind::kTensor &&
               (v.as_tensor().dtype == "u8" || v.as_tensor().dtype == "i8")) {
      msgs.push_back(v.as_tensor().data);
    } else {
      return c::MakeError(c::ErrorCode::kInvalidArgument,
                          "messages[" + std::to_string(i) + "] must be bytes or a u8 tensor");
    }
  }
  auto lock = LockDevice(ctx);
  if (!lock.ok()) return std::move(lock).error();
  auto ex = TheDevice().Get();
  if (!ex.ok()) return std::move(ex).error();
  Sha256 sha(**ex);
  auto digests = sha.HashBatch(msgs);
  if (!digests.ok()) return ToCallError(digests.error());
  c::Value::List out;
  for (const Sha256Digest& d : *digests) out.emplace_back(c::Bytes(d.begin(), d.end()));
  return c::Value(std::move(out));
}

}  // namespace

c::Result<c::Value> RunOnDevice(
    const c::CallContext& ctx,
    const std::function<c::Result<c::Value>(webgpu::Context&, Executor&)>& fn) {
  auto lock = LockDevice(ctx);
  if (!lock.ok()) return std::move(lock).error();
  auto ex = TheDevice().Get();
  if (!ex.ok()) return std::move(ex).error();
  return fn(*TheDevice().ctx, **ex);
}

DeviceStatus DeviceStatusNow() {
  DeviceStatus s;
  s.queue_depth = TheDevice().waiting.load();
  if (const webgpu::Context* ctx = TheDevice().published.load()) {
    s.opened = true;
    s.lost = ctx->lost();
    if (s.lost) s.lost_message = ctx->lost_message();
    s.adapter = ctx->adapter().device;
    s.max_buffer_bytes = ctx->limits().maxBufferSize;
  }
  return s;
}

std::string CallNameOf(std::string_view op) {
  std::string s = "compute.";
  for (size_t i = 0; i < op.size(); ++i) {
    const char ch = op[i];
    if (std::isupper(static_cast<unsigned char>(ch)) && i > 0 &&
        std::islower(static_cast<unsigned char>(op[i - 1]))) {
      s += '_';
    }
    s += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  return s;
}

c::Component ComputeComponent() {
  c::Component comp;
  comp.name = "compute";
  std::set<std::string> seen;
  for (const OpRecord& r : OpTable::Default().records()) {
    if (r.family == "internal") continue;  // building blocks of composites, not ONNX ops
    if (!seen.insert(r.name).second)
      continue;  // one call per op; the opset argument picks the record
    c::CallDecl d;
    d.name = CallNameOf(r.name);
    d.signature = "(inputs: list, attrs: map?, opset: int?) -> tensor";
    d.flags.execution = c::Execution::kAsync;
    d.flags.idempotent = true;  // a function of the tensors the request carries
    d.doc = r.summary + " (ONNX " + r.name + ", on the GPU)";
    const std::string op = r.name;
    d.handler = [op](c::CallContext& ctx, std::span<const c::Value> args) {
      return RunOp(ctx, op, args);
    };
    comp.calls.push_back(std::move(d));
  }
  c::CallDecl sha;
  sha.name = "crypto.sha256";
  sha.signature = "(messages: list) -> list";
  sha.flags.execution = c::Execution::kAsync;
  sha.flags.idempotent = true;
  sha.doc = "SHA-256 of each message (bytes or u8 tensor) on the GPU, one 32-byte digest each";
  sha.handler = [](c::CallContext& ctx, std::span<const c::Value> args) {
    return RunSha256(ctx, args);
  };
  comp.calls.push_back(std::move(sha));
  return comp;
}

}  // namespace alknet::compute
