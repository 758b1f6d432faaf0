// Integer and quantized ops (shaders/integer/): MatMulInteger and ConvInteger (int32
// accumulation of (x - zero_point) products, exact), QLinearMatMul and QLinearConv (the same
// accumulation, then requantized: saturate(round(acc * x_scale * w_scale / y_scale) + y_zp)).
//
// Storage: the session widens uint8 to u32 and int8 to i32 on upload (docs/onnx.md), so each
// element is one 32-bit word and the kernels read them directly; the accumulator is i32 (exact
// while |acc| < 2^31: K * 255 * 255 < 2^31 holds for K < 33,025 terms).
#include <algorithm>
#include <array>
#include <cmath>

#include "ops/elementwise.h"
#include "ops/families.h"
#include "ops/movement.h"
#include "ops/spatial.h"

namespace alknet::compute::ops {

namespace {

bool IsQuantType(DType d) { return d == DType::kU32 || d == DType::kI32; }
const char* WgslInt(DType d) { return d == DType::kU32 ? "u32" : "i32"; }

// The saturation range of a quantized output type (uint8 -> u32, int8 -> i32).
std::pair<double, double> QRange(DType d) {
  return d == DType::kI32 ? std::pair{-128.0, 127.0} : std::pair{0.0, 255.0};
}

// A per-tensor (one element) or per-index (1-D of `extent`) operand: a zero point or scale.
// Returns whether it is per index; absent inputs are per tensor.
Result<bool> PerIndex(const OpNode& node, size_t i, uint64_t extent, const char* what,
                      const char* index_name) {
  if (!node.has_input(i)) return false;
  const TensorDesc& d = node.inputs[i];
  if (d.elements() == 1 && d.shape.size() <= 1) return false;
  if (d.shape.size() == 1 && d.shape[0] == extent) return true;
  return Error{ErrorCode::kShape, node.Describe() + ": " + what + " (input " + std::to_string(i) +
                                      ") must be a scalar or 1-D of " + std::to_string(extent) +
                                      " (" + index_name + "), got " + ShapeToString(d.shape)};
}

double ValueAt(const std::vector<RefTensor>& in, size_t i, bool per, uint64_t idx,
               double fallback) {
  if (i >= in.size() || in[i].data.empty()) return fallback;
  return per ? in[i].data[idx] : in[i].data[0];
}

// Requantization of one accumulator in float32 steps, as the kernels do it: the multiplier
// x_scale * w_scale / y_scale, then round half to even, the zero point and saturation.
double Requantize(double acc, double xs, double ws, double ys, double yzp,
                  std::pair<double, double> range) {
  const double mult = ToF32(ToF32(xs * ws) / ys);
  const double v = std::nearbyint(ToF32(ToF32(acc) * mult)) + yzp;
  return std::clamp(v, range.first, range.second);
}

// ---- MatMulInteger / QLinearMatMul --------------------------------------------------------

// Input positions of the two forms.
struct MatMulSlots {
  size_t a, b, azp, bzp, as = 0, bs = 0, ys = 0, yzp = 0;
  bool quantized;
};
constexpr MatMulSlots kMatMulInteger{0, 1, 2, 3, 0, 0, 0, 0, false};
constexpr MatMulSlots kQLinearMatMul{0, 3, 2, 5, 1, 4, 6, 7, true};

struct IntMatMulDims {
  uint64_t M = 0, N = 0, K = 0, batch = 1;
  Shape out;
  // Output batch dimensions, innermost first: extent and each operand's matrix stride.
  std::vector<std::array<uint64_t, 3>> dims;
};

Result<IntMatMulDims> IntMatMulShapes(const OpNode& node, const MatMulSlots& s) {
  const Shape& a = node.inputs[s.a].shape;
  const Shape& b = node.inputs[s.b].shape;
  if (a.size() < 2 || b.size() < 2) {
    return Error{ErrorCode::kUnsupported, node.Describe() + ": A and B must have rank >= 2 (got " +
                                              ShapeToString(a) + " and " + ShapeToString(b) +
                                              "); 1-D operands are not implemented"};
  }
  IntMatMulDims d;
  d.M = a[a.size() - 2];
  d.K = a.back();
  d.N = b.back();
  if (b[b.size() - 2] != d.K) {
    return Error{ErrorCode::kShape,
                 node.Describe() + ": inner dimensions differ: A has K = " + std::to_string(d.K) +
                     ", B has " + std::to_string(b[b.size() - 2])};
  }
  const Shape ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  ALKNET_ASSIGN_OR_RETURN(Shape batch, BroadcastShapes({ab, bb}));
  // Strides of each operand's batch dimensions (in matrices), aligned from the right.
  uint64_t sa = 1, sb = 1;
  for (size_t k = batch.size(); k-- > 0;) {
    const size_t from_right = batch.size() - 1 - k;
    const uint64_t ea = from_right < ab.size() ? ab[ab.size() - 1 - from_right] : 1;
    const uint64_t eb = from_right < bb.size() ? bb[bb.size() - 1 - from_right] : 1;
    d.dims.push_back({batch[k], ea == 1 ? 0 : sa, eb == 1 ? 0 : sb});
    sa *= ea;
    sb *= eb;
    d.batch *= batch[k];
  }
  d.out = batch;
  d.out.push_back(d.M);
  d.out.push_back(d.N);
  return d;
}

// The register-blocked kernel (shaders/integer/matmul_integer, op.blocked): each invocation
// owns four neighbouring output columns of R neighbouring rows (R = M up to 4, a power of
// two), so each k loads four B values and R A values (the A loads are uniform across the
// workgroup) for 4R products, where the one-output kernel loads two values per product. No
// workgroup memory, as the float MatMul's rows kernel (ADR 0005): on lavapipe barriers cost
// more than the caches save. Workgroups: x over row blocks, y over column quads, z over the
// batch; past the device's per-dimension limit, or for an empty output, the one-output kernel
// runs instead.
constexpr uint32_t kIntMatMulRows = 4;

struct IntMatMulBlock {
  bool blocked = false;
  uint32_t rows = 1;  // R
  uint32_t wx = 8;    // invocations per workgroup (column quads)
  std::array<uint64_t, 3> groups{1, 1, 1};
};

// [0, 1, ..., R - 1] for the template's per-row code (R is 1, 2 or 4).
hbs::Value RowList(uint32_t rows) {
  if (rows == 1) return hbs::Value::array({0});
  if (rows == 2) return hbs::Value::array({0, 1});
  return hbs::Value::array({0, 1, 2, 3});
}

IntMatMulBlock IntMatMulBlocking(const IntMatMulDims& d, const DeviceCaps& caps) {
  IntMatMulBlock b;
  while (b.rows < kIntMatMulRows && b.rows < d.M) b.rows *= 2;
  const uint64_t quads = (d.N + 3) / 4;
  while (b.wx < 64 && b.wx < quads) b.wx *= 2;  // narrow outputs: no idle lanes
  b.groups = {(d.M + b.rows - 1) / b.rows, (quads + b.wx - 1) / b.wx, d.batch};
  const uint64_t lim = caps.max_workgroups_per_dimension;
  b.blocked = d.M > 0 && d.N > 0 && d.batch > 0 && b.wx <= caps.max_workgroup_size_x &&
              b.wx <= caps.max_invocations_per_workgroup && b.groups[0] <= lim &&
              b.groups[1] <= lim && b.groups[2] <= lim;
  return b;
}

struct IntMatMulQuant {
  bool azp_vec = false, bzp_vec = false, as_vec = false, bs_vec = false;
};

Result<IntMatMulQuant> MatMulQuant(const OpNode& node, const MatMulSlots& s,
                                   const IntMatMulDims& d) {
  IntMatMulQuant q;
  ALKNET_ASSIGN_OR_RETURN(q.azp_vec, PerIndex(node, s.azp, d.M, "a_zero_point", "rows of A"));
  ALKNET_ASSIGN_OR_RETURN(q.bzp_vec, PerIndex(node, s.bzp, d.N, "b_zero_point", "columns of B"));
  if (s.quantized) {
    ALKNET_ASSIGN_OR_RETURN(q.as_vec, PerIndex(node, s.as, d.M, "a_scale", "rows of A"));
    ALKNET_ASSIGN_OR_RETURN(q.bs_vec, PerIndex(node, s.bs, d.N, "b_scale", "columns of B"));
    ALKNET_ASSIGN_OR_RETURN(bool ys_vec, PerIndex(node, s.ys, 1, "y_scale", "one value"));
    ALKNET_ASSIGN_OR_RETURN(bool yzp_vec, PerIndex(node, s.yzp, 1, "y_zero_point", "one value"));
    (void)ys_vec;
    (void)yzp_vec;
  }
  return q;
}

OpRecord IntMatMulRecord(const MatMulSlots& s) {
  OpRecord r;
  r.name = s.quantized ? "QLinearMatMul" : "MatMulInteger";
  r.opset_min = 10;
  r.family = "integer";
  r.shader = "integer/matmul_integer";
  r.summary =
      s.quantized
          ? "uint8/int8 MatMul: exact i32 accumulation of (a - a_zp)(b - b_zp), requantized "
            "with a_scale * b_scale / y_scale to y_zero_point's type (per-row a, per-column "
            "b parameters)"
          : "uint8/int8 MatMul to int32: exact sums of (a - a_zero_point)(b - "
            "b_zero_point), zero points per tensor, per row of A, per column of B";
  r.min_inputs = s.quantized ? 8 : 2;
  r.max_inputs = s.quantized ? 8 : 4;
  r.contract = {.dtypes = {}, .contiguous = true};
  r.infer = [s](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    for (size_t i : {s.a, s.b, s.azp, s.bzp}) {
      if (node.has_input(i) && !IsQuantType(node.inputs[i].dtype)) {
        return Error{ErrorCode::kUnsupported,
                     node.Describe() + ": input " + std::to_string(i) + " has dtype " +
                         DTypeName(node.inputs[i].dtype) +
                         "; uint8 or int8 (u32 or i32 on the device) is needed"};
      }
    }
    if (node.has_input(s.azp) && node.inputs[s.azp].dtype != node.inputs[s.a].dtype) {
      return Error{ErrorCode::kUnsupported,
                   node.Describe() + ": a_zero_point's type differs from A's"};
    }
    if (node.has_input(s.bzp) && node.inputs[s.bzp].dtype != node.inputs[s.b].dtype) {
      return Error{ErrorCode::kUnsupported,
                   node.Describe() + ": b_zero_point's type differs from B's"};
    }
    DType out = DType::kI32;
    if (s.quantized) {
      for (size_t i : {s.as, s.bs, s.ys}) {
        if (node.inputs[i].dtype != DType::kF32) {
          return Error{ErrorCode::kUnsupported,
                       node.Describe() + ": scale (input " + std::to_string(i) + ") must be f32"};
        }
      }
      if (!IsQuantType(node.inputs[s.yzp].dtype)) {
        return Error{ErrorCode::kUnsupported,
                     node.Describe() + ": y_zero_point must be uint8 or int8"};
      }
      out = node.inputs[s.yzp].dtype;
    }
    ALKNET_ASSIGN_OR_RETURN(IntMatMulDims d, IntMatMulShapes(node, s));
    ALKNET_TRY(MatMulQuant(node, s, d));
    ALKNET_TRY(
        CheckIndexable(node, std::max(node.inputs[s.a].elements(),
                                      std::max(node.inputs[s.b].elements(), d.batch * d.M * d.N))));
    return std::vector<TensorDesc>{TensorDesc{out, d.out}};
  };
  r.context = [s](const OpNode& node, const Attributes&,
                  const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(IntMatMulDims d, IntMatMulShapes(node, s));
    ALKNET_ASSIGN_OR_RETURN(IntMatMulQuant q, MatMulQuant(node, s, d));
    hbs::Object o;
    o.set("M", d.M);
    o.set("N", d.N);
    o.set("K", d.K);
    o.set("total", d.batch * d.M * d.N);
    const IntMatMulBlock blk = IntMatMulBlocking(d, caps);
    o.set("blocked", blk.blocked);
    // vec4 loads where every row starts on a multiple of four (inputs start at offset 0).
    o.set("a_vec4", blk.blocked && d.K % 4 == 0);
    o.set("b_vec4", blk.blocked && d.N % 4 == 0);
    o.set("wx", static_cast<int64_t>(blk.wx));
    o.set("rows", static_cast<int64_t>(blk.rows));
    o.set("rows_list", RowList(blk.rows));
    hbs::Array dims;
    for (const auto& e : d.dims) {
      dims.push_back(hbs::Value::object({{"extent", e[0]}, {"sa", e[1]}, {"sb", e[2]}}));
    }
    o.set("dims", hbs::Value(std::move(dims)));
    o.set("a_t", std::string(WgslInt(node.inputs[s.a].dtype)));
    o.set("b_t", std::string(WgslInt(node.inputs[s.b].dtype)));
    o.set("a", static_cast<int64_t>(s.a));
    o.set("b", static_cast<int64_t>(s.b));
    o.set("azp", node.has_input(s.azp));
    o.set("bzp", node.has_input(s.bzp));
    o.set("azp_i", static_cast<int64_t>(s.azp));
    o.set("bzp_i", static_cast<int64_t>(s.bzp));
    o.set("azp_vec", q.azp_vec);
    o.set("bzp_vec", q.bzp_vec);
    o.set("quantized", s.quantized);
    if (s.quantized) {
      o.set("as_i", static_cast<int64_t>(s.as));
      o.set("bs_i", static_cast<int64_t>(s.bs));
      o.set("ys_i", static_cast<int64_t>(s.ys));
      o.set("yzp_i", static_cast<int64_t>(s.yzp));
      o.set("as_vec", q.as_vec);
      o.set("bs_vec", q.bs_vec);
      o.set("y_t", std::string(WgslInt(node.inputs[s.yzp].dtype)));
      const auto range = QRange(node.inputs[s.yzp].dtype);
      o.set("lo", FloatLiteral(range.first));
      o.set("hi", FloatLiteral(range.second));
    }
    return hbs::Value(std::move(o));
  };
  r.dispatch = [s](const OpNode& node, const Attributes&, const DeviceCaps& caps) {
    const IntMatMulDims d = IntMatMulShapes(node, s).value();
    const IntMatMulBlock blk = IntMatMulBlocking(d, caps);
    if (!blk.blocked) return LinearOver(d.batch * d.M * d.N);
    DispatchPlan plan;
    plan.kind = DispatchPlan::Kind::kGrid;
    plan.groups = blk.groups;
    plan.workgroup_size = {blk.wx, 1, 1};
    return plan;
  };
  r.reference = [s](const OpNode& node, const Attributes&, const std::vector<RefTensor>& in) {
    const IntMatMulDims d = IntMatMulShapes(node, s).value();
    const IntMatMulQuant q = MatMulQuant(node, s, d).value();
    RefTensor out{node.outputs.at(0).dtype, d.out, {}};
    out.data.resize(d.batch * d.M * d.N);
    for (uint64_t bi = 0; bi < d.batch; ++bi) {
      uint64_t rest = bi, ma = 0, mb = 0;
      for (const auto& e : d.dims) {
        const uint64_t c = rest % e[0];
        rest /= e[0];
        ma += c * e[1];
        mb += c * e[2];
      }
      for (uint64_t m = 0; m < d.M; ++m) {
        for (uint64_t n = 0; n < d.N; ++n) {
          const double za = ValueAt(in, s.azp, q.azp_vec, m, 0);
          const double zb = ValueAt(in, s.bzp, q.bzp_vec, n, 0);
          double acc = 0;  // exact: every partial sum is an integer far below 2^53
          for (uint64_t k = 0; k < d.K; ++k) {
            acc += (in[s.a].data[(ma * d.M + m) * d.K + k] - za) *
                   (in[s.b].data[(mb * d.K + k) * d.N + n] - zb);
          }
          double v = acc;
          if (s.quantized) {
            v = Requantize(acc, ValueAt(in, s.as, q.as_vec, m, 1),
                           ValueAt(in, s.bs, q.bs_vec, n, 1), in[s.ys].data[0], in[s.yzp].data[0],
                           QRange(out.dtype));
          }
          out.data[(bi * d.M + m) * d.N + n] = v;
        }
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  // uint8 data (u32 on the device); the int8 cases are fixed values below. Integer results
  // are exact; the quantized ones may differ by one step where WGSL's division (2.5 ULP)
  // moves a product across a rounding boundary.
  r.hints = {0, 255, s.quantized ? 1.0 : 0.0, 0};
  r.test_dtypes = {DType::kU32};
  auto t = [](DType dt, Shape sh, std::vector<double> v) {
    return RefTensor{dt, std::move(sh), std::move(v)};
  };
  // Deterministic int8 values in [-128, 127] for the signed cases.
  auto int8s = [](uint64_t n, uint64_t seed) {
    std::vector<double> v(n);
    for (uint64_t i = 0; i < n; ++i) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      v[i] = static_cast<double>(static_cast<int64_t>((seed >> 33) % 256) - 128);
    }
    return v;
  };
  if (!s.quantized) {
    r.test_cases = {
        {{Shape{5, 7}, Shape{7, 3}, std::nullopt, std::nullopt}, {}, {}, "no zero points"},
        {{Shape{5, 7}, Shape{7, 3}, Shape{}, Shape{}},
         {},
         {{2, t(DType::kU32, {}, {12})}, {3, t(DType::kU32, {}, {200})}},
         "scalar zero points"},
        {{Shape{2, 3, 33, 17}, Shape{3, 17, 9}, Shape{33}, Shape{9}},
         {},
         {{2, t(DType::kU32, {33}, std::vector<double>(33, 7))},
          {3, t(DType::kU32, {9}, {0, 1, 2, 3, 4, 250, 251, 254, 255})}},
         "batched, broadcast batch, per-row and per-column zero points"},
        {{Shape{4, 31}, Shape{31, 6}, Shape{}, Shape{6}},
         {},
         {{0, t(DType::kI32, {4, 31}, int8s(4 * 31, 1))},
          {1, t(DType::kI32, {31, 6}, int8s(31 * 6, 2))},
          {2, t(DType::kI32, {}, {-5})},
          {3, t(DType::kI32, {6}, {-128, -1, 0, 1, 64, 127})}},
         "int8"},
    };
  } else {
    r.test_cases = {
        {{Shape{5, 7}, Shape{}, Shape{}, Shape{7, 3}, Shape{}, Shape{}, Shape{}, Shape{}},
         {},
         {{1, t(DType::kF32, {}, {0.02})},
          {2, t(DType::kU32, {}, {113})},
          {4, t(DType::kF32, {}, {0.0039})},
          {5, t(DType::kU32, {}, {98})},
          {6, t(DType::kF32, {}, {0.05})},
          {7, t(DType::kU32, {}, {128})}},
         "uint8, per tensor"},
        {{Shape{2, 6, 19}, Shape{6}, Shape{6}, Shape{19, 4}, Shape{4}, Shape{4}, Shape{}, Shape{}},
         {},
         {{0, t(DType::kI32, {2, 6, 19}, int8s(2 * 6 * 19, 3))},
          {1, t(DType::kF32, {6}, {0.01, 0.02, 0.015, 0.03, 0.011, 0.02})},
          {2, t(DType::kI32, {6}, {0, -3, 5, 1, -1, 2})},
          {3, t(DType::kI32, {19, 4}, int8s(19 * 4, 4))},
          {4, t(DType::kF32, {4}, {0.02, 0.01, 0.05, 0.03})},
          {5, t(DType::kI32, {4}, {1, 0, -2, 3})},
          {6, t(DType::kF32, {}, {0.37})},
          {7, t(DType::kI32, {}, {-7})}},
         "int8, batched, per-row and per-column parameters"},
    };
  }
  return r;
}

// ---- ConvInteger / QLinearConv ------------------------------------------------------------

struct ConvSlots {
  size_t x, w, xzp, wzp, xs = 0, ws = 0, ys = 0, yzp = 0, bias = 0;
  bool quantized;
};
constexpr ConvSlots kConvInteger{0, 1, 2, 3, 0, 0, 0, 0, 0, false};
constexpr ConvSlots kQLinearConv{0, 3, 2, 5, 1, 4, 6, 7, 8, true};

struct IntConvGeom {
  Window w;
  uint64_t N = 0, C = 0, M = 0, group = 1;
};

Result<IntConvGeom> IntConvGeometry(const OpNode& node, const Attributes& at, const ConvSlots& s) {
  const Shape& x = node.inputs[s.x].shape;
  const Shape& wt = node.inputs[s.w].shape;
  IntConvGeom g;
  if (x.size() < 3 || x.size() > 5 || wt.size() != x.size()) {
    return Error{ErrorCode::kShape, node.Describe() + ": x " + ShapeToString(x) + " and w " +
                                        ShapeToString(wt) +
                                        " must be [N, C, D1..Dk] and [M, C/group, k1..kk], k <= 3"};
  }
  const int64_t group = std::get<int64_t>(at.at("group"));
  if (group < 1 || x[1] % static_cast<uint64_t>(group) != 0 ||
      wt[0] % static_cast<uint64_t>(group) != 0 || wt[1] * static_cast<uint64_t>(group) != x[1]) {
    return Error{ErrorCode::kShape, node.Describe() + ": group " + std::to_string(group) +
                                        " does not divide x " + ShapeToString(x) + " and w " +
                                        ShapeToString(wt)};
  }
  std::vector<uint64_t> kernel(wt.begin() + 2, wt.end());
  const auto& ks = Ints(at, "kernel_shape");
  if (!ks.empty() &&
      !std::equal(ks.begin(), ks.end(), kernel.begin(), kernel.end(),
                  [](int64_t a, uint64_t b) { return a == static_cast<int64_t>(b); })) {
    return Error{ErrorCode::kShape,
                 node.Describe() + ": kernel_shape disagrees with w " + ShapeToString(wt)};
  }
  ALKNET_ASSIGN_OR_RETURN(g.w, ForwardWindow(node, at, x, kernel, false));
  g.N = x[0];
  g.C = x[1];
  g.M = wt[0];
  g.group = static_cast<uint64_t>(group);
  return g;
}

OpRecord IntConvRecord(const ConvSlots& s) {
  OpRecord r;
  r.name = s.quantized ? "QLinearConv" : "ConvInteger";
  r.opset_min = 10;
  r.family = "integer";
  r.shader = "integer/conv_integer";
  r.summary =
      s.quantized
          ? "uint8/int8 Conv: exact i32 accumulation (plus the int32 bias), requantized with "
            "x_scale * w_scale / y_scale (w per output channel) to y_zero_point's type"
          : "uint8/int8 Conv to int32: exact sums of (x - x_zero_point)(w - w_zero_point); "
            "padding reads x_zero_point; w_zero_point per tensor or per output channel";
  r.min_inputs = s.quantized ? 8 : 2;
  r.max_inputs = s.quantized ? 9 : 4;
  r.contract = {.dtypes = {}, .contiguous = true};
  r.attributes = WindowAttributes(/*dilations=*/true);
  r.attributes.push_back({"group", AttrValue(int64_t{1}), false, {}});
  r.infer = [s](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    for (size_t i : {s.x, s.w, s.xzp, s.wzp}) {
      if (node.has_input(i) && !IsQuantType(node.inputs[i].dtype)) {
        return Error{ErrorCode::kUnsupported,
                     node.Describe() + ": input " + std::to_string(i) + " has dtype " +
                         DTypeName(node.inputs[i].dtype) +
                         "; uint8 or int8 (u32 or i32 on the device) is needed"};
      }
    }
    ALKNET_ASSIGN_OR_RETURN(IntConvGeom g, IntConvGeometry(node, at, s));
    ALKNET_TRY(PerIndex(node, s.xzp, 1, "x_zero_point", "one value"));
    ALKNET_TRY(PerIndex(node, s.wzp, g.M, "w_zero_point", "output channels"));
    DType out = DType::kI32;
    if (s.quantized) {
      for (size_t i : {s.xs, s.ws, s.ys}) {
        if (node.inputs[i].dtype != DType::kF32) {
          return Error{ErrorCode::kUnsupported,
                       node.Describe() + ": scale (input " + std::to_string(i) + ") must be f32"};
        }
      }
      ALKNET_TRY(PerIndex(node, s.xs, 1, "x_scale", "one value"));
      ALKNET_TRY(PerIndex(node, s.ws, g.M, "w_scale", "output channels"));
      ALKNET_TRY(PerIndex(node, s.ys, 1, "y_scale", "one value"));
      if (!IsQuantType(node.inputs[s.yzp].dtype)) {
        return Error{ErrorCode::kUnsupported,
                     node.Describe() + ": y_zero_point must be uint8 or int8"};
      }
      if (node.has_input(s.bias)) {
        const TensorDesc& b = node.inputs[s.bias];
        if (b.dtype != DType::kI32 || b.shape != Shape{g.M}) {
          return Error{ErrorCode::kShape, node.Describe() + ": B must be int32 [" +
                                              std::to_string(g.M) + "], got " + DescToString(b)};
        }
      }
      out = node.inputs[s.yzp].dtype;
    }
    Shape o{g.N, g.M};
    o.insert(o.end(), g.w.out.begin(), g.w.out.end());
    ALKNET_TRY(CheckIndexable(node, std::max(node.inputs[s.x].elements(), Window::Product(o))));
    return std::vector<TensorDesc>{TensorDesc{out, o}};
  };
  r.context = [s](const OpNode& node, const Attributes& at,
                  const DeviceCaps&) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(IntConvGeom g, IntConvGeometry(node, at, s));
    hbs::Object o;
    const char* axis = "DHW";
    for (int a = 0; a < 3; ++a) {
      const std::string n(1, axis[a]);
      o.set("I" + n, g.w.In3(a));
      o.set("O" + n, g.w.Out3(a));
      o.set("K" + n, g.w.Kernel3(a));
      o.set("S" + n, g.w.Stride3(a));
      o.set("L" + n, g.w.Dilation3(a));
      o.set("P" + n, g.w.Pad3(a));
    }
    o.set("N", g.N);
    o.set("C", g.C);
    o.set("M", g.M);
    o.set("CG", g.C / g.group);
    o.set("MG", g.M / g.group);
    o.set("total", g.N * g.M * g.w.out_size());
    o.set("x_t", std::string(WgslInt(node.inputs[s.x].dtype)));
    o.set("w_t", std::string(WgslInt(node.inputs[s.w].dtype)));
    o.set("x", static_cast<int64_t>(s.x));
    o.set("w", static_cast<int64_t>(s.w));
    o.set("xzp", node.has_input(s.xzp));
    o.set("wzp", node.has_input(s.wzp));
    o.set("xzp_i", static_cast<int64_t>(s.xzp));
    o.set("wzp_i", static_cast<int64_t>(s.wzp));
    o.set("wzp_vec", PerIndex(node, s.wzp, g.M, "", "").value());
    o.set("quantized", s.quantized);
    if (s.quantized) {
      o.set("xs_i", static_cast<int64_t>(s.xs));
      o.set("ws_i", static_cast<int64_t>(s.ws));
      o.set("ys_i", static_cast<int64_t>(s.ys));
      o.set("yzp_i", static_cast<int64_t>(s.yzp));
      o.set("bias", node.has_input(s.bias));
      o.set("bias_i", static_cast<int64_t>(s.bias));
      o.set("ws_vec", PerIndex(node, s.ws, g.M, "", "").value());
      o.set("y_t", std::string(WgslInt(node.inputs[s.yzp].dtype)));
      const auto range = QRange(node.inputs[s.yzp].dtype);
      o.set("lo", FloatLiteral(range.first));
      o.set("hi", FloatLiteral(range.second));
    }
    return hbs::Value(std::move(o));
  };
  r.dispatch = [s](const OpNode& node, const Attributes& at, const DeviceCaps&) {
    const IntConvGeom g = IntConvGeometry(node, at, s).value();
    return LinearOver(g.N * g.M * g.w.out_size());
  };
  r.reference = [s](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const IntConvGeom g = IntConvGeometry(node, at, s).value();
    const bool wzp_vec = PerIndex(node, s.wzp, g.M, "", "").value();
    const bool ws_vec = s.quantized && PerIndex(node, s.ws, g.M, "", "").value();
    const Window& w = g.w;
    Shape os{g.N, g.M};
    os.insert(os.end(), w.out.begin(), w.out.end());
    RefTensor out{node.outputs.at(0).dtype, os, {}};
    const double xz = ValueAt(in, s.xzp, false, 0, 0);
    const uint64_t cg = g.C / g.group, mg = g.M / g.group;
    for (uint64_t n = 0; n < g.N; ++n) {
      for (uint64_t m = 0; m < g.M; ++m) {
        const double wz = ValueAt(in, s.wzp, wzp_vec, m, 0);
        const uint64_t grp = m / mg;
        for (uint64_t od = 0; od < w.Out3(0); ++od) {
          for (uint64_t oh = 0; oh < w.Out3(1); ++oh) {
            for (uint64_t ow = 0; ow < w.Out3(2); ++ow) {
              double acc = 0;
              for (uint64_t c = 0; c < cg; ++c) {
                for (uint64_t kd = 0; kd < w.Kernel3(0); ++kd) {
                  for (uint64_t kh = 0; kh < w.Kernel3(1); ++kh) {
                    for (uint64_t kw = 0; kw < w.Kernel3(2); ++kw) {
                      const int64_t id = static_cast<int64_t>(od) * w.Stride3(0) - w.Pad3(0) +
                                         static_cast<int64_t>(kd) * w.Dilation3(0);
                      const int64_t ih = static_cast<int64_t>(oh) * w.Stride3(1) - w.Pad3(1) +
                                         static_cast<int64_t>(kh) * w.Dilation3(1);
                      const int64_t iw = static_cast<int64_t>(ow) * w.Stride3(2) - w.Pad3(2) +
                                         static_cast<int64_t>(kw) * w.Dilation3(2);
                      double xv = xz;  // padding is the zero point: it adds nothing
                      if (id >= 0 && ih >= 0 && iw >= 0 && id < static_cast<int64_t>(w.In3(0)) &&
                          ih < static_cast<int64_t>(w.In3(1)) &&
                          iw < static_cast<int64_t>(w.In3(2))) {
                        const uint64_t ci = grp * cg + c;
                        xv = in[s.x].data[(((n * g.C + ci) * w.In3(0) + id) * w.In3(1) + ih) *
                                              w.In3(2) +
                                          iw];
                      }
                      const double wv =
                          in[s.w].data[(((m * cg + c) * w.Kernel3(0) + kd) * w.Kernel3(1) + kh) *
                                           w.Kernel3(2) +
                                       kw];
                      acc += (xv - xz) * (wv - wz);
                    }
                  }
                }
              }
              double v = acc;
              if (s.quantized) {
                if (node.has_input(s.bias)) acc += in[s.bias].data[m];
                v = Requantize(acc, in[s.xs].data[0], ValueAt(in, s.ws, ws_vec, m, 1),
                               in[s.ys].data[0], in[s.yzp].data[0], QRange(out.dtype));
              }
              out.data.push_back(v);
            }
          }
        }
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {0, 255, s.quantized ? 1.0 : 0.0, 0};
  r.test_dtypes = {DType::kU32};
  auto t = [](DType dt, Shape sh, std::vector<double> v) {
    return RefTensor{dt, std::move(sh), std::move(v)};
  };
  auto int8s = [](uint64_t n, uint64_t seed) {
    std::vector<double> v(n);
    for (uint64_t i = 0; i < n; ++i) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      v[i] = static_cast<double>(static_cast<int64_t>((seed >> 33) % 256) - 128);
    }
    return v;
  };
  if (!s.quantized) {
    r.test_cases = {
        {{Shape{1, 1, 5, 5}, Shape{1, 1, 3, 3}, std::nullopt, std::nullopt}, {}, {}, "plain"},
        {{Shape{2, 4, 7, 6}, Shape{6, 2, 3, 2}, Shape{}, Shape{6}},
         {{"group", int64_t{2}},
          {"pads", std::vector<int64_t>{1, 0, 2, 1}},
          {"strides", std::vector<int64_t>{2, 1}},
          {"dilations", std::vector<int64_t>{1, 2}}},
         {{2, t(DType::kU32, {}, {17})}, {3, t(DType::kU32, {6}, {0, 3, 128, 200, 255, 1})}},
         "groups, pads, strides, dilations, per-channel zero point"},
        {{Shape{1, 3, 9}, Shape{2, 3, 4}, Shape{}, Shape{}},
         {{"auto_pad", std::string("SAME_UPPER")}},
         {{0, t(DType::kI32, {1, 3, 9}, int8s(27, 5))},
          {1, t(DType::kI32, {2, 3, 4}, int8s(24, 6))},
          {2, t(DType::kI32, {}, {-3})},
          {3, t(DType::kI32, {}, {4})}},
         "int8, 1-D, SAME_UPPER"},
    };
  } else {
    r.test_cases = {
        {{Shape{1, 2, 6, 5}, Shape{}, Shape{}, Shape{3, 2, 3, 3}, Shape{3}, Shape{3}, Shape{},
          Shape{}, Shape{3}},
         {{"pads", std::vector<int64_t>{1, 1, 1, 1}}},
         {{1, t(DType::kF32, {}, {0.0125})},
          {2, t(DType::kU32, {}, {100})},
          {4, t(DType::kF32, {3}, {0.004, 0.0021, 0.007})},
          {5, t(DType::kU32, {3}, {120, 128, 130})},
          {6, t(DType::kF32, {}, {0.09})},
          {7, t(DType::kU32, {}, {90})},
          {8, t(DType::kI32, {3}, {500, -1200, 37})}},
         "uint8, per-channel w, bias"},
        {{Shape{2, 4, 5, 5}, Shape{}, Shape{}, Shape{4, 2, 2, 2}, Shape{}, Shape{}, Shape{},
          Shape{}, std::nullopt},
         {{"group", int64_t{2}}, {"strides", std::vector<int64_t>{2, 2}}},
         {{0, t(DType::kI32, {2, 4, 5, 5}, int8s(200, 7))},
          {1, t(DType::kF32, {}, {0.02})},
          {2, t(DType::kI32, {}, {3})},
          {3, t(DType::kI32, {4, 2, 2, 2}, int8s(32, 8))},
          {4, t(DType::kF32, {}, {0.01})},
          {5, t(DType::kI32, {}, {0})},
          {6, t(DType::kF32, {}, {0.3})},
          {7, t(DType::kI32, {}, {-4})}},
         "int8, groups, strides, no bias"},
    };
  }
  return r;
}

}  // namespace

void AddIntegerOps(OpTable& table) {
  table.Add(IntMatMulRecord(kMatMulInteger));
  table.Add(IntMatMulRecord(kQLinearMatMul));
  table.Add(IntConvRecord(kConvInteger));
  table.Add(IntConvRecord(kQLinearConv));
}

}  // namespace alknet::compute::ops
