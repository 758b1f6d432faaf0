#include "alknet/compute-calls/calls.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
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

// A MatMul, Gemm or Conv too long for one dispatch runs as blocks sized by time: each dispatch
// aims at ALKNET_MATMUL_BLOCK_MS milliseconds (default 50; 1 to 60000; it sizes all three),
// sized from the multiply-adds per second the previous dispatches of that op achieved. The
// call's deadline and cancellation are checked, and the device handed to queued calls, between
// blocks, so a long `compute.mat_mul`, `compute.gemm` or `compute.conv` past --max-call-time
// stops, and a small call behind it waits, about one block (ADR 0016).
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

// Multiply-adds per second the last dispatch of each cut op achieved (0: none measured yet),
// shared by calls: the first block of a call is sized from it.
std::atomic<double> g_matmul_macs_per_second{0};
std::atomic<double> g_conv_macs_per_second{0};
std::atomic<double> g_gemm_macs_per_second{0};

// The multiply-adds the next block should do at this measured rate.
double NextBlockMacs(const std::atomic<double>& macs_per_second) {
  const double rate = macs_per_second.load();
  if (rate <= 0) return kFirstBlockMacs;
  return std::clamp(rate * BlockSeconds(), kMinBlockMacs, kMaxBlockMacs);
}

// How many rows (images, channels, batches) the next block takes: the largest power of two
// that is at most `ideal` (at least 1), capped at what is left. Powers of two keep the number
// of distinct block shapes, and so of the shape-specialised pipelines a GPU compiles for
// them, to a few per call; a block then takes between half and all of the time aimed at.
std::uint64_t BlockCount(double ideal, std::uint64_t left) {
  const std::uint64_t n =
      ideal >= 2 ? std::bit_floor(static_cast<std::uint64_t>(std::min(ideal, 0x1p62))) : 1;
  return std::min(n, left);
}

// The size of a call's next block, from the time its dispatches take (each sample moves it at
// most kMaxBlockGrowth times up), published for the next call of the same op.
class BlockClock {
 public:
  explicit BlockClock(std::atomic<double>& rate) : rate_(rate), block_macs_(NextBlockMacs(rate)) {}
  double block_macs() const { return block_macs_; }
  // A dispatch (with its read-back, which waits for the GPU) did `macs` in `seconds`.
  void Measured(double macs, double seconds) {
    block_macs_ =
        std::clamp(macs / std::max(seconds, 1e-6) * BlockSeconds(), kMinBlockMacs,
                   std::min(kMaxBlockMacs, std::max(block_macs_, macs) * kMaxBlockGrowth));
    rate_.store(block_macs_ / BlockSeconds());
  }

 private:
  std::atomic<double>& rate_;
  double block_macs_;
};

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
      batches * double(cut.m) * double(cut.k) * double(cut.n) <=
          NextBlockMacs(g_matmul_macs_per_second) ||
      cut.m == 0 || cut.k == 0 || cut.n == 0) {
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
    clock_.Measured(macs, took);
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
      const std::uint64_t count = BlockCount(block_macs() / double(k * n), rows - r0);
      ALKNET_TRY(Dispatch(0, count, k, n, a.subspan(r0 * k * eb_, count * k * eb_), b, &*tb));
      r0 += count;
    }
    return c::Ok{};
  }
  // Multiply-adds the next dispatch should do (ALKNET_MATMUL_BLOCK_MS of work).
  double block_macs() const { return clock_.block_macs(); }
  HostTensor& out() { return out_; }

 private:
  const c::CallContext& ctx_;
  DeviceTurn& turn_;
  Executor& ex_;
  DType dtype_;
  std::size_t eb_;
  int opset_;
  HostTensor out_;
  BlockClock clock_{g_matmul_macs_per_second};
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
      const std::uint64_t g =
          BlockCount(std::min(run.block_macs() / unit, double(64u << 20) / bytes), batches - o0);
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

// A Conv too long for one dispatch, X [N, C, D1..Dk] * W [M, C/group, k1..kk] (+ B [M]), is cut
// into dispatches sized by time like a MatMul: groups of whole images; or, for one image,
// blocks of output channels (whole groups when group > 1, with their input channels); or, when
// one channel (one group) of one image is still too long, bands of rows of the first spatial
// axis, each reading only the input rows its windows touch, with the pads that fall inside the
// band. Every output element is the same sum over the same window as in one dispatch. Only the
// ONNX attributes are accepted here (anything else takes the ordinary path).
struct ConvCut {
  std::uint64_t n = 0, c = 0, m = 0, group = 1, cg = 0, mg = 0;
  std::vector<std::uint64_t> in, kernel, out;  // spatial extents
  std::vector<std::int64_t> stride, dilation, pad_begin, pad_end;
  bool has_bias = false;
  bool row_bands = false;  // every band of output rows reads at least one input row
  std::uint64_t in_rest = 1, out_rest = 1, kernel_size = 1;  // extents past the first axis
};

std::optional<ConvCut> PlanConvCut(const std::string& op, const Attributes& attrs,
                                   const std::vector<c::Tensor>& in,
                                   const std::vector<const tensor::DTypeInfo*>& infos,
                                   std::uint64_t max_buffer_bytes) {
  if (op != "Conv" || (in.size() != 2 && in.size() != 3)) return std::nullopt;
  static const std::set<std::string> kKnown = {"auto_pad",     "dilations", "group",
                                               "kernel_shape", "pads",      "strides"};
  for (const auto& [name, value] : attrs)
    if (!kKnown.count(name)) return std::nullopt;
  const auto& xs = in[0].shape;
  const auto& ws = in[1].shape;
  const std::size_t rank = xs.size() >= 3 ? xs.size() - 2 : 0;
  if (rank < 1 || rank > 3 || ws.size() != xs.size()) return std::nullopt;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i].dtype != in[0].dtype || infos[i]->block_elements != 1) return std::nullopt;
    for (int64_t d : in[i].shape)
      if (d <= 0) return std::nullopt;
  }
  auto ints = [&](const char* name, std::size_t count,
                  std::int64_t fill) -> std::optional<std::vector<std::int64_t>> {
    const auto it = attrs.find(name);
    if (it == attrs.end()) return std::vector<std::int64_t>(count, fill);
    const auto* v = std::get_if<std::vector<std::int64_t>>(&it->second);
    if (v == nullptr || v->size() != count) return std::nullopt;
    return *v;
  };
  ConvCut cut;
  std::int64_t group = 1;
  if (const auto it = attrs.find("group"); it != attrs.end()) {
    const auto* g = std::get_if<std::int64_t>(&it->second);
    if (g == nullptr || *g < 1) return std::nullopt;
    group = *g;
  }
  cut.n = std::uint64_t(xs[0]);
  cut.c = std::uint64_t(xs[1]);
  cut.m = std::uint64_t(ws[0]);
  cut.cg = std::uint64_t(ws[1]);
  cut.group = std::uint64_t(group);
  if (cut.cg * cut.group != cut.c || cut.m % cut.group != 0) return std::nullopt;
  cut.mg = cut.m / cut.group;
  cut.has_bias = in.size() == 3;
  if (cut.has_bias && in[2].shape != std::vector<int64_t>{ws[0]}) return std::nullopt;
  auto strides = ints("strides", rank, 1), dilations = ints("dilations", rank, 1),
       pads = ints("pads", 2 * rank, 0), kshape = ints("kernel_shape", rank, 0);
  if (!strides || !dilations || !pads || !kshape) return std::nullopt;
  std::string auto_pad = "NOTSET";
  if (const auto it = attrs.find("auto_pad"); it != attrs.end()) {
    const auto* a = std::get_if<std::string>(&it->second);
    if (a == nullptr) return std::nullopt;
    auto_pad = *a;
  }
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" &&
      auto_pad != "SAME_LOWER") {
    return std::nullopt;
  }
  // The output extents and explicit pads, as ONNX defines them (ForwardWindow in
  // libs/compute/src/ops/spatial.h computes the same for the kernel).
  for (std::size_t i = 0; i < rank; ++i) {
    const std::int64_t x = xs[2 + i], k = ws[2 + i], s = (*strides)[i], dl = (*dilations)[i];
    if (s < 1 || dl < 1 || s > INT32_MAX || dl > INT32_MAX ||
        ((*kshape)[i] != 0 && (*kshape)[i] != k))
      return std::nullopt;
    std::int64_t pb = (*pads)[i], pe = (*pads)[i + rank];
    if (pb < 0 || pe < 0 || pb > INT32_MAX || pe > INT32_MAX) return std::nullopt;
    const std::int64_t span = (k - 1) * dl + 1;
    std::int64_t out = 0;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out = (x + s - 1) / s;
      const std::int64_t total = std::max<std::int64_t>(0, (out - 1) * s + span - x);
      const std::int64_t small = total / 2, big = total - small;
      pb = auto_pad == "SAME_UPPER" ? small : big;
      pe = auto_pad == "SAME_UPPER" ? big : small;
    } else {
      if (auto_pad == "VALID") pb = pe = 0;
      out = (x + pb + pe - span) / s + 1;
      if (x + pb + pe < span) out = 0;
    }
    if (out < 1) return std::nullopt;
    cut.in.push_back(std::uint64_t(x));
    cut.kernel.push_back(std::uint64_t(k));
    cut.out.push_back(std::uint64_t(out));
    cut.stride.push_back(s);
    cut.dilation.push_back(dl);
    cut.pad_begin.push_back(pb);
    cut.pad_end.push_back(pe);
    if (i == 0) cut.row_bands = pb < span && pe < span;
    if (i > 0) {
      cut.in_rest *= std::uint64_t(x);
      cut.out_rest *= std::uint64_t(out);
    }
    cut.kernel_size *= std::uint64_t(k);
  }
  // Exact byte sizes (every slice below is in bounds), an output one dispatch could hold (else
  // the ordinary path reports the limit), and more work than one block.
  const double eb = double(infos[0]->block_bytes);
  double x_elems = double(cut.n) * double(cut.c), w_elems = double(cut.m) * double(cut.cg);
  double out_elems = double(cut.n) * double(cut.m);
  for (std::size_t i = 0; i < rank; ++i) {
    x_elems *= double(cut.in[i]);
    w_elems *= double(cut.kernel[i]);
    out_elems *= double(cut.out[i]);
  }
  if (x_elems * eb != double(in[0].data.size()) || w_elems * eb != double(in[1].data.size()) ||
      (cut.has_bias && double(cut.m) * eb != double(in[2].data.size())) ||
      out_elems * eb > double(max_buffer_bytes)) {
    return std::nullopt;
  }
  if (out_elems * double(cut.cg) * double(cut.kernel_size) <= NextBlockMacs(g_conv_macs_per_second))
    return std::nullopt;
  return cut;
}

class ConvRunner {
 public:
  ConvRunner(const c::CallContext& ctx, DeviceTurn& turn, Executor& ex,
             const std::vector<c::Tensor>& in, const ConvCut& cut, DType dtype, std::size_t eb,
             int opset)
      : ctx_(ctx), turn_(turn), ex_(ex), in_(in), cut_(cut), dtype_(dtype), eb_(eb), opset_(opset) {
    out_.dtype = dtype;
    out_.shape = {cut.n, cut.m};
    out_.shape.insert(out_.shape.end(), cut.out.begin(), cut.out.end());
    out_.data.resize(std::size_t(cut.n * cut.m * cut.out[0] * cut.out_rest) * eb);
  }

  c::Status Run() {
    const ConvCut& k = cut_;
    // Multiply-adds of one output row (first spatial axis) of one output channel.
    const double row = double(k.cg) * double(k.kernel_size) * double(k.out_rest);
    const double channel = row * double(k.out[0]), image = channel * double(k.m);
    // A unit is one output channel (group 1) or one group of them (it needs its own inputs).
    const std::uint64_t units = k.group == 1 ? k.m : k.group;
    const double unit = k.group == 1 ? channel : channel * double(k.mg);
    for (std::uint64_t n0 = 0; n0 < k.n;) {
      if (image <= clock_.block_macs()) {
        const std::uint64_t g = BlockCount(clock_.block_macs() / image, k.n - n0);
        ALKNET_TRY(Dispatch(n0, g, 0, units, 0, k.out[0]));
        n0 += g;
        continue;
      }
      for (std::uint64_t u0 = 0; u0 < units;) {
        if (unit <= clock_.block_macs() || !k.row_bands) {
          const std::uint64_t count = BlockCount(clock_.block_macs() / unit, units - u0);
          ALKNET_TRY(Dispatch(n0, 1, u0, count, 0, k.out[0]));
          u0 += count;
          continue;
        }
        const double unit_row = unit / double(k.out[0]);
        for (std::uint64_t r0 = 0; r0 < k.out[0];) {
          const std::uint64_t rows = BlockCount(clock_.block_macs() / unit_row, k.out[0] - r0);
          ALKNET_TRY(Dispatch(n0, 1, u0, 1, r0, r0 + rows));
          r0 += rows;
        }
        ++u0;
      }
      ++n0;
    }
    return c::Ok{};
  }
  HostTensor& out() { return out_; }

 private:
  // Images [n0, n0 + g), units [u0, u0 + count), output rows [r0, r1) of the first axis.
  c::Status Dispatch(std::uint64_t n0, std::uint64_t g, std::uint64_t u0, std::uint64_t count,
                     std::uint64_t r0, std::uint64_t r1) {
    if (ctx_.ShouldStop()) return ctx_.StopError();
    if (auto s = turn_.Yield(ctx_); !s.ok()) return s;
    const ConvCut& k = cut_;
    const bool grouped = k.group > 1;
    const std::uint64_t m0 = grouped ? u0 * k.mg : u0, mc = grouped ? count * k.mg : count;
    const std::uint64_t c0 = grouped ? u0 * k.cg : 0, cc = grouped ? count * k.cg : k.c;
    // The input rows the band's windows touch, and the pads left inside the band.
    const std::int64_t span = (std::int64_t(k.kernel[0]) - 1) * k.dilation[0] + 1;
    const std::int64_t start = std::int64_t(r0) * k.stride[0] - k.pad_begin[0];
    const std::int64_t end = (std::int64_t(r1) - 1) * k.stride[0] - k.pad_begin[0] + span;
    const std::uint64_t lo = std::uint64_t(std::max<std::int64_t>(start, 0));
    const std::uint64_t hi = std::uint64_t(std::min<std::int64_t>(end, std::int64_t(k.in[0])));

    const XKey xkey{n0, g, c0, cc, lo, hi};
    if (!x_ || xkey != x_key_) {
      x_.reset();  // the previous piece's buffer goes back to the pool first
      std::vector<std::byte> piece;
      piece.reserve(std::size_t(g * cc * (hi - lo) * k.in_rest) * eb_);
      const std::size_t run = std::size_t((hi - lo) * k.in_rest) * eb_;
      for (std::uint64_t n = n0; n < n0 + g; ++n)
        for (std::uint64_t ch = c0; ch < c0 + cc; ++ch) {
          const std::size_t at = std::size_t(((n * k.c + ch) * k.in[0] + lo) * k.in_rest) * eb_;
          piece.insert(piece.end(), in_[0].data.begin() + at, in_[0].data.begin() + at + run);
        }
      Shape shape{g, cc, hi - lo};
      shape.insert(shape.end(), k.in.begin() + 1, k.in.end());
      auto up = ex_.Upload(dtype_, shape, piece);
      if (!up.ok()) return ToCallError(up.error());
      x_ = *up;
      x_key_ = xkey;
    }
    if (!w_ || m0 != w_m0_ || mc != w_mc_) {
      w_.reset();
      b_.reset();
      const std::size_t per = std::size_t(k.cg * k.kernel_size) * eb_;
      Shape shape{mc, k.cg};
      shape.insert(shape.end(), k.kernel.begin(), k.kernel.end());
      auto up = ex_.Upload(dtype_, shape, in_[1].data.subspan(m0 * per, mc * per));
      if (!up.ok()) return ToCallError(up.error());
      w_ = *up;
      if (k.has_bias) {
        auto ub = ex_.Upload(dtype_, {mc}, in_[2].data.subspan(m0 * eb_, mc * eb_));
        if (!ub.ok()) return ToCallError(ub.error());
        b_ = *ub;
      }
      w_m0_ = m0;
      w_mc_ = mc;
    }
    std::vector<std::int64_t> pads;
    for (const auto* side : {&k.pad_begin, &k.pad_end})
      pads.insert(pads.end(), side->begin(), side->end());
    pads[0] = std::int64_t(lo) - start;
    pads[k.in.size()] = end - std::int64_t(hi);
    Attributes attrs;
    attrs["auto_pad"] = std::string("NOTSET");
    attrs["group"] = std::int64_t(grouped ? count : 1);
    attrs["pads"] = pads;
    attrs["strides"] = k.stride;
    attrs["dilations"] = k.dilation;
    std::vector<Tensor> args{*x_, *w_};
    if (b_) args.push_back(*b_);

    const auto t0 = std::chrono::steady_clock::now();
    auto r = ex_.Run("Conv", args, attrs, opset_);
    if (!r.ok()) return ToCallError(r.error());
    auto host = ex_.Download(*r);
    if (!host.ok()) return ToCallError(host.error());
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    Shape want{g, mc, r1 - r0};
    want.insert(want.end(), k.out.begin() + 1, k.out.end());
    if (host->shape != want || host->data.size() != g * mc * (r1 - r0) * k.out_rest * eb_) {
      return c::MakeError(c::ErrorCode::kInternal, "a block of the cut Conv came back as " +
                                                       ShapeToString(host->shape) + ", not " +
                                                       ShapeToString(want));
    }
    clock_.Measured(double(g * mc * (r1 - r0)) * double(k.cg * k.kernel_size * k.out_rest), took);
    // Each (image, channel) of the block is one run of rows in the output.
    const std::size_t run = std::size_t((r1 - r0) * k.out_rest) * eb_;
    const std::byte* src = host->data.data();
    for (std::uint64_t n = n0; n < n0 + g; ++n)
      for (std::uint64_t ch = m0; ch < m0 + mc; ++ch, src += run) {
        const std::size_t at = std::size_t(((n * k.m + ch) * k.out[0] + r0) * k.out_rest) * eb_;
        std::memcpy(out_.data.data() + at, src, run);
      }
    return c::Ok{};
  }

  using XKey = std::array<std::uint64_t, 6>;
  const c::CallContext& ctx_;
  DeviceTurn& turn_;
  Executor& ex_;
  const std::vector<c::Tensor>& in_;
  const ConvCut& cut_;
  DType dtype_;
  std::size_t eb_;
  int opset_;
  HostTensor out_;
  BlockClock clock_{g_conv_macs_per_second};
  std::optional<Tensor> x_, w_, b_;  // the last pieces on the device, reused while they fit
  XKey x_key_{};
  std::uint64_t w_m0_ = 0, w_mc_ = 0;
};

// A Gemm too long for one dispatch, Y [M, N] = alpha * A' B' + beta * C (A' = A or A^T, B' = B
// or B^T), runs as blocks of rows of Y sized by time: each block is a Gemm of those rows of A'
// (gathered from A's columns when transA = 1, then passed untransposed) against the whole B',
// with those rows of C when C has M rows (otherwise C whole: it broadcasts the same way to
// every block). Every output element is the same dot product as in one dispatch.
struct GemmCut {
  std::uint64_t m = 0, k = 0, n = 0;
  bool trans_a = false;
  bool c_by_row = false;          // C is [M, 1] or [M, N]: sliced with the rows
  std::uint64_t c_row_elems = 0;  // elements of one row of such a C
};

std::optional<GemmCut> PlanGemmCut(const std::string& op, const Attributes& attrs,
                                   const std::vector<c::Tensor>& in,
                                   const std::vector<const tensor::DTypeInfo*>& infos) {
  if (op != "Gemm" || (in.size() != 2 && in.size() != 3)) return std::nullopt;
  static const std::set<std::string> kKnown = {"alpha", "beta", "transA", "transB"};
  std::int64_t trans[2] = {0, 0};
  for (const auto& [name, value] : attrs) {
    if (!kKnown.count(name)) return std::nullopt;
    if (name == "transA" || name == "transB") {
      const auto* t = std::get_if<std::int64_t>(&value);
      if (t == nullptr || (*t != 0 && *t != 1)) return std::nullopt;
      trans[name == "transB"] = *t;
    }
  }
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i].dtype != in[0].dtype || infos[i]->block_elements != 1) return std::nullopt;
    double elems = 1;
    for (int64_t d : in[i].shape) {
      if (d <= 0) return std::nullopt;
      elems *= double(d);
    }
    if (elems * double(infos[i]->block_bytes) != double(in[i].data.size())) return std::nullopt;
  }
  const auto& as = in[0].shape;
  const auto& bs = in[1].shape;
  if (as.size() != 2 || bs.size() != 2) return std::nullopt;
  GemmCut cut;
  cut.trans_a = trans[0] == 1;
  cut.m = std::uint64_t(as[cut.trans_a ? 1 : 0]);
  cut.k = std::uint64_t(as[cut.trans_a ? 0 : 1]);
  cut.n = std::uint64_t(bs[trans[1] ? 0 : 1]);
  if (std::uint64_t(bs[trans[1] ? 1 : 0]) != cut.k) return std::nullopt;
  if (in.size() == 3) {
    const auto& cs = in[2].shape;
    if (cs.size() > 2) return std::nullopt;
    const std::uint64_t cols = cs.empty() ? 1 : std::uint64_t(cs.back());
    if (cols != 1 && cols != cut.n) return std::nullopt;
    if (cs.size() == 2 && std::uint64_t(cs[0]) != 1) {
      if (std::uint64_t(cs[0]) != cut.m) return std::nullopt;
      cut.c_by_row = true;
      cut.c_row_elems = cols;
    }
  }
  if (double(cut.m) * double(cut.k) * double(cut.n) <= NextBlockMacs(g_gemm_macs_per_second))
    return std::nullopt;
  return cut;
}

c::Result<c::Value> RunGemmCut(const c::CallContext& ctx, DeviceTurn& turn, Executor& ex,
                               const std::vector<c::Tensor>& in, const Attributes& attrs,
                               const GemmCut& cut, DType dtype, std::size_t eb, int opset) {
  Shape bshape(in[1].shape.begin(), in[1].shape.end());
  auto b = ex.Upload(dtype, bshape, in[1].data);  // once for every block of rows
  if (!b.ok()) return ToCallError(b.error());
  std::optional<Tensor> c_whole;
  if (in.size() == 3 && !cut.c_by_row) {
    Shape cshape(in[2].shape.begin(), in[2].shape.end());
    auto up = ex.Upload(dtype, cshape, in[2].data);
    if (!up.ok()) return ToCallError(up.error());
    c_whole = *up;
  }
  Attributes piece_attrs = attrs;
  piece_attrs["transA"] = std::int64_t{0};
  BlockClock clock(g_gemm_macs_per_second);
  HostTensor out{dtype, {cut.m, cut.n}, {}};
  out.data.reserve(std::size_t(cut.m * cut.n) * eb);
  std::vector<std::byte> rows_of_a;
  for (std::uint64_t r0 = 0; r0 < cut.m;) {
    if (ctx.ShouldStop()) return ctx.StopError();
    if (auto s = turn.Yield(ctx); !s.ok()) return std::move(s).error();
    const std::uint64_t count = BlockCount(clock.block_macs() / double(cut.k * cut.n), cut.m - r0);
    std::span<const std::byte> a_rows;
    if (!cut.trans_a) {
      a_rows = in[0].data.subspan(r0 * cut.k * eb, count * cut.k * eb);
    } else {  // rows r0.. of A^T are columns of A [K, M]
      rows_of_a.resize(std::size_t(count * cut.k) * eb);
      std::byte* to = rows_of_a.data();
      for (std::uint64_t r = r0; r < r0 + count; ++r)
        for (std::uint64_t p = 0; p < cut.k; ++p, to += eb)
          std::memcpy(to, in[0].data.data() + (p * cut.m + r) * eb, eb);
      a_rows = rows_of_a;
    }
    auto a = ex.Upload(dtype, {count, cut.k}, a_rows);
    if (!a.ok()) return ToCallError(a.error());
    std::vector<Tensor> args{*a, *b};
    if (c_whole) args.push_back(*c_whole);
    if (cut.c_by_row) {
      auto c_rows =
          ex.Upload(dtype, {count, cut.c_row_elems},
                    in[2].data.subspan(r0 * cut.c_row_elems * eb, count * cut.c_row_elems * eb));
      if (!c_rows.ok()) return ToCallError(c_rows.error());
      args.push_back(*c_rows);
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto r = ex.Run("Gemm", args, piece_attrs, opset);
    if (!r.ok()) return ToCallError(r.error());
    auto host = ex.Download(*r);
    if (!host.ok()) return ToCallError(host.error());
    clock.Measured(double(count) * double(cut.k) * double(cut.n),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (host->data.size() != std::size_t(count * cut.n) * eb) {
      return c::MakeError(c::ErrorCode::kInternal,
                          "a block of the cut Gemm came back as " + ShapeToString(host->shape));
    }
    out.dtype = host->dtype;
    out.data.insert(out.data.end(), host->data.begin(), host->data.end());
    r0 += count;
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
  if (auto cut = PlanGemmCut(op, attrs, in, infos)) {
    return RunGemmCut(ctx, *turn, **ex, in, attrs, *cut, infos[0]->dtype, infos[0]->block_bytes,
                      opset);
  }
  if (auto cut = PlanConvCut(op, attrs, in, infos, TheDevice().ctx->limits().maxBufferSize)) {
    ConvRunner run(ctx, *turn, **ex, in, *cut, infos[0]->dtype, infos[0]->block_bytes, opset);
    ALKNET_TRY(run.Run());
    return ToCallTensor(std::move(run.out()));
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
