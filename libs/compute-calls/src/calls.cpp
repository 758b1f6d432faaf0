#include "alknet/compute-calls/calls.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <set>
#include <utility>

#include "alknet/compute/executor.h"
#include "alknet/compute/op_table.h"
#include "alknet/compute/sha256.h"
#include "alknet/webgpu/context.h"

namespace alknet::compute {

namespace {

namespace c = alknet::call;

struct Device;
Device& TheDevice();

// One device per process, opened on first use; calls take turns on it, in arrival order (a
// FIFO of waiters, not a plain mutex): a long call that yields between dispatches goes to the
// back of the line, so a small call waits at most about one dispatch of each call ahead of it.
struct Device {
  std::mutex mutex;
  std::condition_variable turn;
  std::deque<std::uint64_t> waiting;  // tickets, in arrival order
  std::uint64_t next_ticket = 0;
  bool held = false;
  std::unique_ptr<webgpu::Context> ctx;
  std::unique_ptr<Executor> executor;
  // For DeviceStatusNow(), read without the mutex: the context once opened (it lives as long
  // as the process) and the calls waiting for the device (queue depth).
  std::atomic<webgpu::Context*> published{nullptr};
  std::atomic<int> queued{0};

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
      // Released by an exit handler registered now, after Context::Create loaded Dawn and the
      // driver: it runs before the handlers and static destructors they registered, which this
      // object's own destructor (registered before them) would not (libs/ext/compute does the
      // same).
      static const bool released_at_exit = [] {
        std::atexit([] {
          Device& d = TheDevice();
          d.published.store(nullptr);
          d.executor.reset();
          d.ctx.reset();
        });
        return true;
      }();
      (void)released_at_exit;
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

// Holds the device until destroyed; Yield lets calls that queued meanwhile run first.
class DeviceTurn {
 public:
  DeviceTurn() = default;
  DeviceTurn(DeviceTurn&& o) noexcept : owns_(std::exchange(o.owns_, false)) {}
  DeviceTurn& operator=(DeviceTurn&&) = delete;
  ~DeviceTurn() { Release(); }

  // Takes the device, giving up as soon as the call is cancelled or past its deadline: a call
  // queued behind a long one must not wait beyond its own limit.
  static c::Result<DeviceTurn> Take(const c::CallContext& ctx) {
    DeviceTurn t;
    if (auto s = t.Acquire(ctx); !s.ok()) return std::move(s).error();
    return t;
  }
  // Between dispatches of a long call: if another call waits, hand it the device and queue
  // again behind it (and behind everyone who arrived before this call yielded).
  c::Status Yield(const c::CallContext& ctx) {
    Device& d = TheDevice();
    {
      std::lock_guard lock(d.mutex);
      if (d.waiting.empty()) return c::Ok{};
    }
    Release();
    return Acquire(ctx);
  }

 private:
  c::Status Acquire(const c::CallContext& ctx) {
    Device& d = TheDevice();
    std::unique_lock lock(d.mutex);
    const std::uint64_t ticket = d.next_ticket++;
    d.waiting.push_back(ticket);
    // Queued behind another call: counted (queue depth) and timed (the call's queue time).
    struct Queued {
      const c::CallContext& ctx;
      std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
      explicit Queued(const c::CallContext& c) : ctx(c) { TheDevice().queued.fetch_add(1); }
      ~Queued() {
        TheDevice().queued.fetch_sub(1);
        if (const auto& q = ctx.options().queue_ns) {
          q->fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now() - start)
                           .count());
        }
      }
    };
    std::optional<Queued> queued;
    if (d.held || d.waiting.front() != ticket) queued.emplace(ctx);
    while (d.held || d.waiting.front() != ticket) {
      d.turn.wait_for(lock, std::chrono::milliseconds(5));
      if ((d.held || d.waiting.front() != ticket) && ctx.ShouldStop()) {
        d.waiting.erase(std::find(d.waiting.begin(), d.waiting.end(), ticket));
        d.turn.notify_all();  // the next in line may be able to go now
        c::Error e = ctx.StopError();
        e.message += " while it waited for the GPU (another call was using it)";
        return e;
      }
    }
    d.waiting.pop_front();
    d.held = true;
    owns_ = true;
    return c::Ok{};
  }
  void Release() {
    if (!owns_) return;
    Device& d = TheDevice();
    {
      std::lock_guard lock(d.mutex);
      d.held = false;
    }
    owns_ = false;
    d.turn.notify_all();
  }
  bool owns_ = false;
};

// A MatMul too long for one dispatch runs as blocks sized by time: each dispatch aims at
// ALKNET_MATMUL_BLOCK_MS milliseconds (default 50; 1 to 60000), sized from the multiply-adds per
// second the previous dispatches achieved. The call's deadline and cancellation are checked,
// and the device handed to queued calls, between blocks, so a `compute.mat_mul` past
// --max-call-time stops, and a small call behind it waits, about one block (ADR 0016).
constexpr double kFirstBlockMacs = double(1 << 24);  // before any dispatch was measured
constexpr double kMinBlockMacs = double(1 << 20);
constexpr double kMaxBlockMacs = double(1ull << 34);
constexpr double kMaxBlockGrowth = 4;  // one slow or fast sample cannot swing it further

double BlockSeconds() {
  const char* env = std::getenv("ALKNET_MATMUL_BLOCK_MS");
  if (env != nullptr && *env != 0) {
    char* end = nullptr;
    const long ms = std::strtol(env, &end, 10);
    if (*end == 0 && ms >= 1 && ms <= 60000) return double(ms) / 1000;
  }
  return 0.05;
}

// Multiply-adds per second the last MatMul dispatch achieved (0: none measured yet), shared by
// calls: the first block of a call is sized from it.
std::atomic<double> g_macs_per_second{0};

// The multiply-adds the next block should do.
double NextBlockMacs() {
  const double rate = g_macs_per_second.load();
  if (rate <= 0) return kFirstBlockMacs;
  return std::clamp(rate * BlockSeconds(), kMinBlockMacs, kMaxBlockMacs);
}

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

// A MatMul too large for one dispatch, A [..., M, K] x B [..., K, N] (batch dimensions
// broadcast as numpy does), is cut into dispatches sized by time (NextBlockMacs):
// row blocks of A against one matrix of B, or groups of whole batches when one batch is small.
// Between dispatches the call checks its deadline and cancellation and yields the device to
// calls that queued meanwhile. Every output element is the same dot product as in one dispatch
// (rows and batches of a MatMul are independent).
struct MatMulCut {
  std::vector<std::uint64_t> out_batch, a_batch, b_batch;  // a_/b_batch padded to out's rank
  std::uint64_t m = 0, k = 0, n = 0;
};

// The cut for these inputs, or nothing when the MatMul is small, not plain (rank-1 operands,
// attributes, packed dtypes) or malformed (then the ordinary path reports the error).
std::optional<MatMulCut> PlanMatMulCut(const std::string& op, const Attributes& attrs,
                                       const std::vector<c::Tensor>& in,
                                       const std::vector<const tensor::DTypeInfo*>& infos) {
  if (op != "MatMul" || !attrs.empty() || in.size() != 2) return std::nullopt;
  const auto& as = in[0].shape;
  const auto& bs = in[1].shape;
  if (as.size() < 2 || bs.size() < 2 || in[0].dtype != in[1].dtype ||
      infos[0]->block_elements != 1 || as[as.size() - 1] != bs[bs.size() - 2]) {
    return std::nullopt;
  }
  MatMulCut cut;
  cut.m = static_cast<std::uint64_t>(as[as.size() - 2]);
  cut.k = static_cast<std::uint64_t>(as[as.size() - 1]);
  cut.n = static_cast<std::uint64_t>(bs[bs.size() - 1]);
  const std::size_t rank = std::max(as.size(), bs.size()) - 2;
  double batches = 1, a_elems = double(cut.m) * double(cut.k), b_elems = double(cut.k) * cut.n;
  for (std::size_t d = 0; d < rank; ++d) {
    const std::size_t pa = rank - (as.size() - 2), pb = rank - (bs.size() - 2);
    const std::uint64_t x = d < pa ? 1 : static_cast<std::uint64_t>(as[d - pa]);
    const std::uint64_t y = d < pb ? 1 : static_cast<std::uint64_t>(bs[d - pb]);
    if (x != y && x != 1 && y != 1) return std::nullopt;
    cut.a_batch.push_back(x);
    cut.b_batch.push_back(y);
    cut.out_batch.push_back(std::max(x, y));
    batches *= double(std::max(x, y));
    a_elems *= double(x);
    b_elems *= double(y);
  }
  // The byte sizes must be exact (so every slice below is in bounds) and the work large.
  if (a_elems * infos[0]->block_bytes != double(in[0].data.size()) ||
      b_elems * infos[1]->block_bytes != double(in[1].data.size()) ||
      batches * double(cut.m) * double(cut.k) * double(cut.n) <= NextBlockMacs() || cut.m == 0 ||
      cut.k == 0 || cut.n == 0) {
    return std::nullopt;
  }
  return cut;
}

// The matrix of an operand (in units of whole matrices) that output batch `o` reads.
std::uint64_t BatchIndex(const std::vector<std::uint64_t>& operand,
                         const std::vector<std::uint64_t>& out, std::uint64_t o) {
  std::uint64_t index = 0, stride = 1;
  for (std::size_t d = out.size(); d-- > 0;) {
    const std::uint64_t i = o % out[d];
    o /= out[d];
    if (operand[d] != 1) index += i * stride;
    stride *= operand[d];
  }
  return index;
}

class MatMulRunner {
 public:
  MatMulRunner(const c::CallContext& ctx, DeviceTurn& turn, Executor& ex, DType dtype,
               std::size_t element_bytes, int opset)
      : ctx_(ctx), turn_(turn), ex_(ex), dtype_(dtype), eb_(element_bytes), opset_(opset) {}

  // One dispatch: [g, m, k] x [g, k, n] (g == 0: plain 2-D, with B already on the device
  // when `b_on_device` is given), appended to the output.
  c::Status Dispatch(std::uint64_t g, std::uint64_t m, std::uint64_t k, std::uint64_t n,
                     std::span<const std::byte> a, std::span<const std::byte> b,
                     const Tensor* b_on_device = nullptr) {
    if (ctx_.ShouldStop()) return ctx_.StopError();
    if (auto s = turn_.Yield(ctx_); !s.ok()) return s;
    Shape as = g ? Shape{g, m, k} : Shape{m, k};
    Shape bs = g ? Shape{g, k, n} : Shape{k, n};
    auto ta = ex_.Upload(dtype_, as, a);
    if (!ta.ok()) return ToCallError(ta.error());
    std::optional<Tensor> tb;
    if (b_on_device == nullptr) {
      auto up = ex_.Upload(dtype_, bs, b);
      if (!up.ok()) return ToCallError(up.error());
      tb = *up;
      b_on_device = &*tb;
    }
    // The dispatch and its read-back (which waits for the GPU) are timed to size the next.
    const auto t0 = std::chrono::steady_clock::now();
    auto r = ex_.Run("MatMul", {*ta, *b_on_device}, {}, opset_);
    if (!r.ok()) return ToCallError(r.error());
    auto host = ex_.Download(*r);
    if (!host.ok()) return ToCallError(host.error());
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double macs = double(std::max<std::uint64_t>(g, 1)) * double(m) * double(k) * double(n);
    block_macs_ =
        std::clamp(macs / std::max(took, 1e-6) * BlockSeconds(), kMinBlockMacs,
                   std::min(kMaxBlockMacs, std::max(block_macs_, macs) * kMaxBlockGrowth));
    g_macs_per_second.store(block_macs_ / BlockSeconds());
    out_.dtype = host->dtype;
    out_.data.insert(out_.data.end(), host->data.begin(), host->data.end());
    return c::Ok{};
  }
  // Rows [0, rows) of a (rows x k) against b (k x n), in row blocks.
  c::Status RowBlocks(std::span<const std::byte> a, std::uint64_t rows, std::uint64_t k,
                      std::uint64_t n, std::span<const std::byte> b) {
    auto tb = ex_.Upload(dtype_, {k, n}, b);  // once for every block of rows
    if (!tb.ok()) return ToCallError(tb.error());
    for (std::uint64_t r0 = 0; r0 < rows;) {
      const auto per =
          std::max<std::uint64_t>(1, static_cast<std::uint64_t>(block_macs_ / double(k * n)));
      const std::uint64_t count = std::min(per, rows - r0);
      ALKNET_TRY(Dispatch(0, count, k, n, a.subspan(r0 * k * eb_, count * k * eb_), b, &*tb));
      r0 += count;
    }
    return c::Ok{};
  }
  // Multiply-adds the next dispatch should do (ALKNET_MATMUL_BLOCK_MS of work).
  double block_macs() const { return block_macs_; }
  HostTensor& out() { return out_; }

 private:
  const c::CallContext& ctx_;
  DeviceTurn& turn_;
  Executor& ex_;
  DType dtype_;
  std::size_t eb_;
  int opset_;
  HostTensor out_;
  double block_macs_ = NextBlockMacs();
};

c::Result<c::Value> RunMatMulCut(const c::CallContext& ctx, DeviceTurn& turn, Executor& ex,
                                 const std::vector<c::Tensor>& in, const MatMulCut& cut,
                                 DType dtype, std::size_t eb, int opset) {
  const std::uint64_t m = cut.m, k = cut.k, n = cut.n;
  std::uint64_t batches = 1, b_matrices = 1;
  for (std::size_t d = 0; d < cut.out_batch.size(); ++d) {
    batches *= cut.out_batch[d];
    b_matrices *= cut.b_batch[d];
  }
  MatMulRunner run(ctx, turn, ex, dtype, eb, opset);
  const std::span<const std::byte> a = in[0].data, b = in[1].data;
  if (b_matrices == 1) {
    // One B for every batch: A's batches are rows of one tall matrix.
    ALKNET_TRY(run.RowBlocks(a, batches * m, k, n, b));
  } else if (double(m) * double(k) * double(n) > run.block_macs()) {
    for (std::uint64_t o = 0; o < batches; ++o) {
      const std::uint64_t ia = BatchIndex(cut.a_batch, cut.out_batch, o);
      const std::uint64_t ib = BatchIndex(cut.b_batch, cut.out_batch, o);
      ALKNET_TRY(run.RowBlocks(a.subspan(ia * m * k * eb, m * k * eb), m, k, n,
                               b.subspan(ib * k * n * eb, k * n * eb)));
    }
  } else {
    // Whole batches per dispatch, gathered (a broadcast operand is copied per batch), at most
    // one block's multiply-adds and 64 MiB of operands each.
    const double unit = double(m) * double(k) * double(n);
    const double bytes = double(m * k + k * n) * double(eb);
    std::vector<std::byte> ga, gb;
    for (std::uint64_t o0 = 0; o0 < batches;) {
      const auto per = static_cast<std::uint64_t>(
          std::max(1.0, std::min(run.block_macs() / unit, double(64u << 20) / bytes)));
      const std::uint64_t g = std::min(per, batches - o0);
      ga.clear();
      gb.clear();
      for (std::uint64_t o = o0; o < o0 + g; ++o) {
        const auto sa =
            a.subspan(BatchIndex(cut.a_batch, cut.out_batch, o) * m * k * eb, m * k * eb);
        const auto sb =
            b.subspan(BatchIndex(cut.b_batch, cut.out_batch, o) * k * n * eb, k * n * eb);
        ga.insert(ga.end(), sa.begin(), sa.end());
        gb.insert(gb.end(), sb.begin(), sb.end());
      }
      ALKNET_TRY(run.Dispatch(g, m, k, n, ga, gb));
      o0 += g;
    }
  }
  HostTensor out = std::move(run.out());
  out.shape.assign(cut.out_batch.begin(), cut.out_batch.end());
  out.shape.push_back(m);
  out.shape.push_back(n);
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

  auto turn = DeviceTurn::Take(ctx);
  if (!turn.ok()) return std::move(turn).error();
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
  if (auto cut = PlanMatMulCut(op, attrs, in, infos)) {
    return RunMatMulCut(ctx, *turn, **ex, in, *cut, infos[0]->dtype, infos[0]->block_bytes, opset);
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
  auto turn = DeviceTurn::Take(ctx);
  if (!turn.ok()) return std::move(turn).error();
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
  auto turn = DeviceTurn::Take(ctx);
  if (!turn.ok()) return std::move(turn).error();
  auto ex = TheDevice().Get();
  if (!ex.ok()) return std::move(ex).error();
  return fn(*TheDevice().ctx, **ex);
}

DeviceStatus DeviceStatusNow() {
  DeviceStatus s;
  s.queue_depth = TheDevice().queued.load();
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
