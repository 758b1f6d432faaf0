// Linear algebra (shaders/linalg/): MatMul (numpy semantics: batched, broadcast batch
// dimensions, 1-D operands promoted) and Gemm (transA/transB, alpha, beta, C broadcast to
// [M, N]), both rendering shaders/linalg/matmul.wgsl.hbs; Trilu, EyeLike (a host-built
// constant) and Det.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>

#include "ops/elementwise.h"
#include "ops/families.h"
#include "ops/movement.h"

namespace alknet::compute::ops {

namespace {

struct MatMulDims {
  uint64_t M = 0, N = 0, K = 0, batch = 1;
  Shape batch_shape;  // broadcast batch dimensions of the output
  Shape a_batch, b_batch;
};

Result<MatMulDims> MatMulShapes(const OpNode& node, Shape* out_shape) {
  const Shape& a = node.inputs[0].shape;
  const Shape& b = node.inputs[1].shape;
  if (a.empty() || b.empty()) {
    return Error{ErrorCode::kShape, node.Describe() + ": MatMul operands must have rank >= 1"};
  }
  Shape a2 = a.size() == 1 ? Shape{1, a[0]} : a;
  Shape b2 = b.size() == 1 ? Shape{b[0], 1} : b;
  MatMulDims d;
  d.M = a2[a2.size() - 2];
  d.K = a2.back();
  d.N = b2.back();
  if (b2[b2.size() - 2] != d.K) {
    return Error{ErrorCode::kShape,
                 node.Describe() + ": inner dimensions differ: A has K = " + std::to_string(d.K) +
                     ", B has " + std::to_string(b2[b2.size() - 2])};
  }
  d.a_batch.assign(a2.begin(), a2.end() - 2);
  d.b_batch.assign(b2.begin(), b2.end() - 2);
  ALKNET_ASSIGN_OR_RETURN(d.batch_shape, BroadcastShapes({d.a_batch, d.b_batch}));
  for (uint64_t x : d.batch_shape) d.batch *= x;
  if (out_shape) {
    *out_shape = d.batch_shape;
    if (a.size() > 1) out_shape->push_back(d.M);
    if (b.size() > 1) out_shape->push_back(d.N);
  }
  return d;
}

// ---- MatMul/Gemm kernels (docs/adr/0005-matmul-kernels.md) ----------------------------------
//
// One problem description for both ops; its sizes and strides travel in the uniform block
// (shaders/linalg/matmul_params), so the rendered source depends only on the kernel chosen
// and the operands' layout (transposes, vec4 alignment, whether C is bound).

constexpr int kMaxBatchDims = 4;  // coalesced batch dimensions the uniform block carries

struct MatMulProblem {
  uint64_t M = 0, N = 0, K = 0, batch = 1;
  bool trans_a = false, trans_b = false, has_c = false;
  uint64_t lda = 0, ldb = 0;
  int64_t c_rs = 0, c_cs = 0;
  double alpha = 1.0, beta = 0.0;
  // Output batch dimensions, innermost first, with each operand's matrix stride (0: broadcast).
  std::array<uint64_t, kMaxBatchDims> extent{1, 1, 1, 1}, a_stride{}, b_stride{};
};

enum class MatMulKernel { kRows, kDot, kTiled, kGemv };

// One tiling of the tiled kernel (shaders/linalg/matmul_tiled): a BM x BN output block per
// workgroup, TM x TN outputs per invocation (multiples of 4: 4x4 patches), K staged BK at a
// time. Named ones: "tiled" 64x64x16 4x4, "big" 128x128x16 8x8; any other is spelled
// "tile:BMxBNxBK:TMxTN" (ALKNET_MATMUL_VARIANT, for sweeps: tools/h200-gemm-sweep).
struct MatMulTile {
  uint32_t bm = 64, bn = 64, bk = 16, tm = 4, tn = 4;
  uint32_t wx() const { return bn / tn; }
  uint32_t wy() const { return bm / tm; }
  uint32_t threads() const { return wx() * wy(); }
  uint64_t workgroup_bytes() const { return 2ull * (bm + bn) * bk * 4; }
  std::string Name() const {
    return "tile:" + std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk) +
           ":" + std::to_string(tm) + "x" + std::to_string(tn);
  }
};

constexpr MatMulTile kTile64{64, 64, 16, 4, 4};
constexpr MatMulTile kTile128{128, 128, 16, 8, 8};
// What auto picks for large grids on GPUs (tools/h200-gemm-sweep on the H200, 2026-12-04:
// 38.6 TFLOP/s at 4096 and 36.3 at 2048 against 26.4-27.0 for 64x64 and "big"; the best of
// 18 tilings there). It needs 48 KiB of workgroup memory; where that is missing, 128x128 with
// BK 8 (33.0 / 31.5 TFLOP/s there, 16 KiB).
constexpr MatMulTile kTile256x128{256, 128, 16, 16, 8};
constexpr MatMulTile kTile128k8{128, 128, 8, 8, 8};

struct MatMulChoice {
  MatMulKernel kernel = MatMulKernel::kRows;
  uint32_t rows = 1;  // rows per workgroup of the rows, dot and gemv kernels
  MatMulTile tile{};  // the tiled kernel's tiling
  uint32_t cw = 1;    // the gemv kernel's column groups (4 columns each); 64 / cw K slices
};

// Why `t` cannot run on `caps` (empty when it can): the shape rules of the template and the
// device's limits.
std::string TileProblem(const MatMulTile& t, const DeviceCaps& caps) {
  auto pow2 = [](uint32_t v) { return v != 0 && (v & (v - 1)) == 0; };
  if (!pow2(t.bm) || !pow2(t.bn) || !pow2(t.bk) || t.bm < 16 || t.bn < 16 || t.bm > 256 ||
      t.bn > 256 || t.bk < 4 || t.bk > 64) {
    return "BM and BN must be powers of two in 16..256, BK a power of two in 4..64";
  }
  if ((t.tm != 4 && t.tm != 8 && t.tm != 16) || (t.tn != 4 && t.tn != 8 && t.tn != 16) ||
      t.tm > t.bm || t.tn > t.bn) {
    return "TM and TN must be 4, 8 or 16 and at most BM and BN";
  }
  const uint32_t th = t.threads();
  if (th < 32) return "the block needs at least 32 invocations ((BM/TM)*(BN/TN))";
  if (th > caps.max_invocations_per_workgroup || t.wx() > caps.max_workgroup_size_x ||
      t.wy() > caps.max_workgroup_size_y) {
    return std::to_string(t.wx()) + "x" + std::to_string(t.wy()) +
           " invocations exceed the device's workgroup limits";
  }
  if (t.workgroup_bytes() > caps.max_workgroup_storage_bytes) {
    return std::to_string(t.workgroup_bytes()) + " bytes of workgroup memory exceed the device's " +
           std::to_string(caps.max_workgroup_storage_bytes);
  }
  return {};
}

// "tile:BMxBNxBK:TMxTN"; nullopt when `v` is not spelled so.
std::optional<MatMulTile> ParseTile(const std::string& v) {
  unsigned bm, bn, bk, tm, tn;
  char end;
  if (std::sscanf(v.c_str(), "tile:%ux%ux%u:%ux%u%c", &bm, &bn, &bk, &tm, &tn, &end) != 5) {
    return std::nullopt;
  }
  return MatMulTile{bm, bn, bk, tm, tn};
}

// Rows of A per workgroup for the rows and dot kernels: M itself up to 4 (a GEMV wastes no
// work), rounded to a power of two so there are at most three programs per layout. On
// lavapipe 4 rows (4 vec4 accumulators per lane) measured at least as fast as 8 or 16 at
// n = 1024: more accumulators spill (docs/adr/0005-matmul-kernels.md).
constexpr uint32_t kMaxRows = 4;
uint32_t RowsFor(uint64_t M) {
  uint32_t r = 1;
  while (r < kMaxRows && r < M) r *= 2;
  return r;
}

// The gemv kernel (shaders/linalg/matmul_gemv): 64 lanes per workgroup as `cw` groups of four
// columns by 64 / cw slices of K. The widest of 16, 4, 1 column groups that still gives
// kGemvGroups workgroups along N: fewer, longer K slices where N allows (less to add up at the
// end), more slices where N is narrow (N = 32: 8 workgroups of one column group, 64 slices).
constexpr uint64_t kGemvGroups = 8;
constexpr uint32_t kGemvWidths[] = {16, 4, 1};
uint32_t GemvWidthFor(uint64_t N) {
  const uint64_t cols4 = (N + 3) / 4;
  for (uint32_t cw : kGemvWidths) {
    if ((cols4 + cw - 1) / cw >= kGemvGroups) return cw;
  }
  return 1;
}
uint64_t GemvGroupsX(const MatMulProblem& p, uint32_t cw) { return ((p.N + 3) / 4 + cw - 1) / cw; }

// "gemv" (widths chosen from N) or "gemv:CW" with CW one of kGemvWidths; 0 when `v` is not
// spelled so.
uint32_t ParseGemv(const std::string& v, uint64_t N) {
  if (v == "gemv") return GemvWidthFor(N);
  for (uint32_t cw : kGemvWidths) {
    if (v == "gemv:" + std::to_string(cw)) return cw;
  }
  return 0;
}

Result<MatMulChoice> ChooseMatMulKernel(const OpNode& node, const MatMulProblem& p,
                                        const DeviceCaps& caps) {
  const std::string& v = caps.matmul_variant;
  const uint32_t rows = RowsFor(p.M);
  if (const uint32_t cw = ParseGemv(v, p.N); cw != 0) {
    if (GemvGroupsX(p, cw) > caps.max_workgroups_per_dimension ||
        (p.M + rows - 1) / rows > caps.max_workgroups_per_dimension) {
      return Error{ErrorCode::kInvalidArgument,
                   node.Describe() + ": MatMul variant '" + v +
                       "' (ALKNET_MATMUL_VARIANT) cannot run: its grid exceeds the device's "
                       "workgroups per dimension"};
    }
    return MatMulChoice{MatMulKernel::kGemv, rows, {}, cw};
  }
  if (v == "rows") return MatMulChoice{MatMulKernel::kRows, rows};
  if (v == "dot") return MatMulChoice{MatMulKernel::kDot, rows};
  if (v == "tiled") return MatMulChoice{MatMulKernel::kTiled, 0, kTile64};
  if (v == "big") return MatMulChoice{MatMulKernel::kTiled, 0, kTile128};
  if (std::optional<MatMulTile> t = ParseTile(v)) {
    if (std::string why = TileProblem(*t, caps); !why.empty()) {
      return Error{ErrorCode::kInvalidArgument, node.Describe() + ": MatMul variant '" + v +
                                                    "' (ALKNET_MATMUL_VARIANT) cannot run: " + why};
    }
    return MatMulChoice{MatMulKernel::kTiled, 0, *t};
  }
  if (v != "auto" && !v.empty()) {
    return Error{ErrorCode::kInvalidArgument,
                 node.Describe() + ": unknown MatMul variant '" + v +
                     "' (ALKNET_MATMUL_VARIANT): use auto, rows, dot, gemv, gemv:16, gemv:4, "
                     "gemv:1, tiled, big or tile:BMxBNxBK:TMxTN"};
  }
  // Small M (GEMV and a few rows).
  if (p.M <= 16) {
    if (caps.shared_memory_tiles) {
      // GPUs. With B transposed the dot kernel keeps both operands' reads contiguous (H200,
      // Gemm 1x4096x4096 transB = 1: 0.10 ms). With B as it is, the 64x64 tiles: on the H200
      // (docs/results/h200/2026-12-04-gemm-confirm, Gemm M x 4096 x 4096, transB = 0) they took
      // 0.37 ms at M = 1 and 0.44 at M = 4 where the rows kernel's N / 256 workgroups took 2.39
      // and 0.58; no other tiling forced there was faster at M = 1 (0.39-3.7 ms), and at
      // M = 16 tiled was already auto's choice. The gemv kernel is not measured on a GPU yet.
      if (p.trans_b && p.N <= caps.max_workgroups_per_dimension)
        return MatMulChoice{MatMulKernel::kDot, rows};
      return MatMulChoice{MatMulKernel::kTiled, 0, kTile64};
    }
    // CPU adapters: the gemv kernel, K split across the workgroup's lanes so that a narrow N
    // still gives every core workgroups and no lane computes columns past N (the rows
    // kernel's 256 columns per workgroup made one workgroup, mostly idle lanes, for N = 32).
    // With B as it is and N wide enough for 4 or more of the rows kernel's workgroups, the
    // rows kernel stays: it has no partial sums to add up (lavapipe, 2 cores: 4x1024x1024
    // 1.3 ms rows against 2.0-3.6 gemv; with B transposed gemv was faster at every shape
    // measured; figures in docs/adr/0005-matmul-kernels.md).
    const uint64_t rows_groups = ((p.M + rows - 1) / rows) * ((p.N + 255) / 256);
    const bool rows_fill = !p.trans_b && rows_groups >= 4 &&
                           (p.M + rows - 1) / rows <= caps.max_workgroups_per_dimension;
    const uint32_t cw = GemvWidthFor(p.N);
    if (!rows_fill && GemvGroupsX(p, cw) <= caps.max_workgroups_per_dimension &&
        (p.M + rows - 1) / rows <= caps.max_workgroups_per_dimension) {
      return MatMulChoice{MatMulKernel::kGemv, rows, {}, cw};
    }
    return MatMulChoice{MatMulKernel::kRows, rows};
  }
  // CPU adapters: no workgroup memory (llvmpipe's barriers are expensive, its caches do the
  // staging), B read across lanes, A broadcast. The rows kernel's row blocks run along x;
  // past maxComputeWorkgroupsPerDimension of them the 64x64 tiles (y) take over.
  const bool rows_fit = (p.M + rows - 1) / rows <= caps.max_workgroups_per_dimension;
  if (!caps.shared_memory_tiles && rows_fit) return MatMulChoice{MatMulKernel::kRows, rows};
  // Big tiles only when they still give the device enough workgroups to fill it (128: about
  // one per SM of an H200; at 1024 the 256x128 tiles' 32 workgroups ran at 8.7 TFLOP/s
  // against 20.9 for 64x64).
  auto groups = [&](const MatMulTile& t) {
    return ((p.M + t.bm - 1) / t.bm) * ((p.N + t.bn - 1) / t.bn) * p.batch;
  };
  for (const MatMulTile& t : {kTile256x128, kTile128k8}) {
    if (TileProblem(t, caps).empty() && groups(t) >= 128)
      return MatMulChoice{MatMulKernel::kTiled, 0, t};
  }
  return MatMulChoice{MatMulKernel::kTiled, 0, kTile64};
}

// Row-major (transposed when `trans`) operands are read as vec4 when their rows hold a
// multiple of four elements; the output too. Transposed operands are read as scalars.
bool AlignedForVec4(const MatMulProblem& p) { return p.K % 4 == 0 && p.N % 4 == 0; }

// Gemm's internal attribute `alknet.activation` (the gemm-activation pass sets it; ONNX
// models never do): the activation applied in the epilogue. Parameterless ones only, so each
// adds at most one pipeline per kernel and layout (BoundedPrograms).
constexpr const char* kGemmActivations[] = {"Relu", "Tanh", "Sigmoid"};

std::string ValidateGemmActivation(const AttrValue& v) {
  const std::string& s = std::get<std::string>(v);
  if (s.empty()) return {};
  for (const char* a : kGemmActivations) {
    if (s == a) return {};
  }
  return "must be \"\", \"Relu\", \"Tanh\" or \"Sigmoid\"";
}

double ApplyGemmActivation(const std::string& act, double v) {
  if (act == "Relu") return std::max(v, 0.0);
  if (act == "Tanh") return std::tanh(v);
  if (act == "Sigmoid") return 1.0 / (1.0 + std::exp(-v));
  return v;
}

Result<hbs::Value> MatMulContext(const OpNode& node, const MatMulProblem& p, const DeviceCaps& caps,
                                 const std::string& activation = {}) {
  ALKNET_ASSIGN_OR_RETURN(MatMulChoice c, ChooseMatMulKernel(node, p, caps));
  const bool tiled = c.kernel == MatMulKernel::kTiled;
  const bool rows = c.kernel == MatMulKernel::kRows;
  const bool gemv = c.kernel == MatMulKernel::kGemv;
  const bool vec4 = (tiled || rows || gemv) && AlignedForVec4(p);
  auto list = [](uint32_t n) {
    hbs::Array l;
    for (uint32_t i = 0; i < n; ++i) l.push_back(static_cast<long long>(i));
    return hbs::Value(std::move(l));
  };
  const MatMulTile& t = c.tile;
  const uint32_t gm = t.tm / 4, gn = t.tn / 4;
  hbs::Array acc;  // the accumulators: patch row g, row r in it, patch column h
  if (tiled) {
    for (uint32_t g = 0; g < gm; ++g) {
      for (uint32_t r = 0; r < 4; ++r) {
        for (uint32_t h = 0; h < gn; ++h) {
          acc.push_back(hbs::Value::object({{"g", static_cast<long long>(g)},
                                            {"r", static_cast<long long>(r)},
                                            {"h", static_cast<long long>(h)},
                                            {"c", std::string(1, "xyzw"[r])}}));
        }
      }
    }
  }
  const uint32_t th = tiled ? t.threads() : 1;
  return hbs::Value::object({{"rows", rows},
                             {"dot", c.kernel == MatMulKernel::kDot},
                             {"gemv", gemv},
                             {"gemv_cw", c.cw},
                             {"gemv_ks", 64 / c.cw},
                             {"gemv_part_len", 64 * c.rows},
                             {"tiled", tiled},
                             {"trans_a", p.trans_a},
                             {"trans_b", p.trans_b},
                             {"has_c", p.has_c},
                             {"act", !activation.empty()},
                             {"act_relu", activation == "Relu"},
                             {"act_tanh", activation == "Tanh"},
                             {"act_sigmoid", activation == "Sigmoid"},
                             {"a_vec4", vec4 && !p.trans_a},
                             // gemv reads B transposed as vec4 along K too
                             {"b_vec4", vec4 && (!p.trans_b || gemv)},
                             {"out_vec4", vec4},
                             {"rows_count", c.rows},
                             {"rows_list", list(c.rows)},
                             {"partial_len", 64 * c.rows},
                             {"bm", t.bm},
                             {"bn", t.bn},
                             {"bk", t.bk},
                             {"tm", t.tm},
                             {"tn", t.tn},
                             {"gm", gm},
                             {"gn", gn},
                             {"wx", t.wx()},
                             {"wy", t.wy()},
                             {"threads", th},
                             {"a_stage", t.bk * t.bm / 4},
                             {"b_stage", t.bk * t.bn / 4},
                             {"a_tile_len", 2 * t.bk * t.bm / 4},
                             {"b_tile_len", 2 * t.bk * t.bn / 4},
                             {"la_list", list((t.bm * t.bk / 4 + th - 1) / th)},
                             {"lb_list", list((t.bk * t.bn / 4 + th - 1) / th)},
                             {"a_exact", (t.bm * t.bk / 4) % th == 0},
                             {"b_exact", (t.bk * t.bn / 4) % th == 0},
                             {"gm_list", list(gm)},
                             {"gn_list", list(gn)},
                             {"acc_list", hbs::Value(std::move(acc))}});
}

uint32_t FloatBits(double v) {
  const float f = static_cast<float>(v);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// The uniform block, in the order of struct MatMulParams.
Result<std::vector<uint32_t>> MatMulParamWords(const OpNode& node, const MatMulProblem& p) {
  std::vector<uint64_t> sizes = {p.M,
                                 p.N,
                                 p.K,
                                 p.batch,
                                 p.lda,
                                 p.ldb,
                                 static_cast<uint64_t>(p.c_rs),
                                 static_cast<uint64_t>(p.c_cs)};
  for (int d = 0; d < kMaxBatchDims; ++d) {
    sizes.push_back(p.extent[d]);
    sizes.push_back(p.a_stride[d]);
    sizes.push_back(p.b_stride[d]);
  }
  for (uint64_t v : sizes) {
    if (v > UINT32_MAX) {
      return Error{ErrorCode::kLimit, node.Describe() + ": a size or stride of " +
                                          std::to_string(v) +
                                          " does not fit the kernel's 32-bit indices"};
    }
  }
  auto u = [](uint64_t v) { return static_cast<uint32_t>(v); };
  std::vector<uint32_t> w = {u(p.M),   u(p.N),    u(p.K),    u(p.batch),         u(p.lda),
                             u(p.ldb), u(p.c_rs), u(p.c_cs), FloatBits(p.alpha), FloatBits(p.beta),
                             0,        0};
  for (int d = 0; d < kMaxBatchDims; ++d) w.push_back(u(p.extent[d]));
  for (int d = 0; d < kMaxBatchDims; ++d) w.push_back(u(p.a_stride[d]));
  for (int d = 0; d < kMaxBatchDims; ++d) w.push_back(u(p.b_stride[d]));
  return w;
}

DispatchPlan MatMulDispatch(const OpNode& node, const MatMulProblem& p, const DeviceCaps& caps) {
  // An unknown variant fails in MatMulContext with its message; any plan does until then.
  auto chosen = ChooseMatMulKernel(node, p, caps);
  const MatMulChoice c = chosen.ok() ? *chosen : MatMulChoice{};
  DispatchPlan plan;
  plan.kind = DispatchPlan::Kind::kGrid;
  switch (c.kernel) {
    case MatMulKernel::kRows:
      plan.groups = {(p.M + c.rows - 1) / c.rows, (p.N + 255) / 256, p.batch};  // 4 per lane
      plan.workgroup_size = {64, 1, 1};
      break;
    case MatMulKernel::kDot:
      plan.groups = {p.N, (p.M + c.rows - 1) / c.rows, p.batch};
      plan.workgroup_size = {64, 1, 1};
      break;
    case MatMulKernel::kGemv:
      plan.groups = {GemvGroupsX(p, c.cw), (p.M + c.rows - 1) / c.rows, p.batch};
      plan.workgroup_size = {64, 1, 1};
      break;
    case MatMulKernel::kTiled: {
      const MatMulTile& t = c.tile;
      plan.groups = {(p.N + t.bn - 1) / t.bn, (p.M + t.bm - 1) / t.bm, p.batch};
      plan.workgroup_size = {t.wx(), t.wy(), 1};
      break;
    }
  }
  return plan;
}

// MatMul's problem: numpy batch broadcasting, batch dimensions coalesced (innermost first)
// where both operands step through them contiguously.
Result<MatMulProblem> MatMulProblemOf(const OpNode& node) {
  ALKNET_ASSIGN_OR_RETURN(MatMulDims d, MatMulShapes(node, nullptr));
  MatMulProblem p;
  p.M = d.M;
  p.N = d.N;
  p.K = d.K;
  p.batch = d.batch;
  p.lda = d.K;
  p.ldb = d.N;
  auto strides_of = [&](const Shape& operand, uint64_t matrix) {
    std::vector<uint64_t> st(d.batch_shape.size(), 0);
    const size_t lead = d.batch_shape.size() - operand.size();
    uint64_t stride = matrix;
    for (size_t k = operand.size(); k-- > 0;) {
      st[lead + k] = operand[k] == 1 ? 0 : stride;
      stride *= operand[k];
    }
    return st;
  };
  const std::vector<uint64_t> as = strides_of(d.a_batch, d.M * d.K),
                              bs = strides_of(d.b_batch, d.K * d.N);
  int dims = 0;
  for (size_t k = d.batch_shape.size(); k-- > 0;) {
    const uint64_t e = d.batch_shape[k];
    if (e == 1) continue;
    if (dims > 0 && as[k] == p.a_stride[dims - 1] * p.extent[dims - 1] &&
        bs[k] == p.b_stride[dims - 1] * p.extent[dims - 1]) {
      p.extent[dims - 1] *= e;  // contiguous with the dimension inside it: one dimension
      continue;
    }
    if (dims == kMaxBatchDims) {
      return Error{ErrorCode::kUnsupported,
                   node.Describe() + ": batch dimensions " + ShapeToString(d.batch_shape) +
                       " broadcast in more than " + std::to_string(kMaxBatchDims) +
                       " separate runs; reshape the operands to merge them"};
    }
    p.extent[dims] = e;
    p.a_stride[dims] = as[k];
    p.b_stride[dims] = bs[k];
    ++dims;
  }
  return p;
}

std::vector<double> MatMulRef(const std::vector<double>& a, const std::vector<double>& b,
                              uint64_t M, uint64_t N, uint64_t K, uint64_t a_off, uint64_t b_off,
                              bool ta, bool tb) {
  std::vector<double> out(M * N, 0.0);
  for (uint64_t m = 0; m < M; ++m) {
    for (uint64_t n = 0; n < N; ++n) {
      double s = 0;
      for (uint64_t k = 0; k < K; ++k) {
        const double av = ta ? a[a_off + k * M + m] : a[a_off + m * K + k];
        const double bv = tb ? b[b_off + n * K + k] : b[b_off + k * N + n];
        s += av * bv;
      }
      out[m * N + n] = s;
    }
  }
  return out;
}

// ---- Trilu, EyeLike, Det ------------------------------------------------------------------

int64_t HostInt(const RefTensor* t, int64_t fallback) {
  return t == nullptr || t->data.empty() ? fallback : static_cast<int64_t>(t->data[0]);
}

OpRecord TriluRecord() {
  OpRecord r;
  r.name = "Trilu";
  r.opset_min = 14;
  r.family = "linalg";
  r.shader = "linalg/trilu";
  r.summary = "upper (upper=1) or lower triangle of the last two dimensions; k shifts the diagonal";
  r.min_inputs = 1;
  r.max_inputs = 2;
  r.host_inputs = {1};
  r.attributes = {{"upper", AttrValue(int64_t{1}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    const TensorDesc& x = node.inputs[0];
    if (x.shape.size() < 2) {
      return Error{ErrorCode::kShape,
                   node.Describe() + ": input must have rank >= 2, got " + ShapeToString(x.shape)};
    }
    if (node.has_input(1) && node.value(1)->data.size() != 1) {
      return Error{ErrorCode::kShape, node.Describe() + ": k must be a scalar"};
    }
    ALKNET_TRY(CheckIndexable(node, x.elements()));
    return std::vector<TensorDesc>{TensorDesc{x.dtype, x.shape}};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps&) -> Result<hbs::Value> {
    const Shape& s = node.inputs[0].shape;
    // k beyond the matrix acts like the matrix's edge; clamping keeps it within i32.
    const int64_t k = std::clamp<int64_t>(HostInt(node.value(1), 0), -(int64_t{1} << 31) + 1,
                                          (int64_t{1} << 31) - 1);
    return hbs::Value::object({{"n", node.inputs[0].elements()},
                               {"rows", NonZero(s[s.size() - 2])},
                               {"cols", NonZero(s[s.size() - 1])},
                               {"k", static_cast<long long>(k)},
                               {"upper", std::get<int64_t>(at.at("upper")) != 0}});
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps&) {
    return LinearOver(node.inputs[0].elements());
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const Shape& s = in[0].shape;
    const uint64_t rows = s[s.size() - 2], cols = s[s.size() - 1];
    const int64_t k = HostInt(node.value(1), 0);
    const bool upper = std::get<int64_t>(at.at("upper")) != 0;
    RefTensor out = in[0];
    for (uint64_t i = 0; i < out.data.size(); ++i) {
      const int64_t col = static_cast<int64_t>(i % cols),
                    row = static_cast<int64_t>((i / cols) % rows);
      const bool keep = upper ? col - row >= k : col - row <= k;
      if (!keep) out.data[i] = 0;
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-4, 4, 0, 0};
  r.test_dtypes = {DType::kF32, DType::kI32};
  auto k = [](double v) { return RefTensor{DType::kI32, {}, {v}}; };
  r.test_cases = {
      {{Shape{4, 5}}, {}, {}, "upper, k absent"},
      {{Shape{2, 3, 6}, Shape{}}, {{"upper", int64_t{0}}}, {{1, k(-1)}}, "lower k=-1, batched"},
      {{Shape{3, 5}, Shape{}}, {}, {{1, k(2)}}, "upper k=2"},
  };
  return r;
}

Result<DType> EyeLikeType(const OpNode& node, const Attributes& at) {
  if (!at.count("dtype")) return node.inputs[0].dtype;
  return DeviceTypeOfOnnx(std::get<int64_t>(at.at("dtype")),
                          node.Describe() + ": attribute 'dtype'");
}

OpRecord EyeLikeRecord() {
  OpRecord r;
  r.name = "EyeLike";
  r.opset_min = 9;
  r.family = "linalg";
  r.summary =
      "ones on the k-th diagonal of a 2-D tensor shaped like the input (a host-built constant)";
  r.attributes = {{"dtype", std::nullopt, true, {}}, {"k", AttrValue(int64_t{0}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    if (node.inputs[0].shape.size() != 2) {
      return Error{ErrorCode::kShape, node.Describe() + ": input must be 2-D, got " +
                                          ShapeToString(node.inputs[0].shape)};
    }
    ALKNET_ASSIGN_OR_RETURN(DType d, EyeLikeType(node, at));
    return std::vector<TensorDesc>{TensorDesc{d, node.inputs[0].shape}};
  };
  auto build = [](const OpNode& node, const Attributes& at) {
    const Shape& s = node.inputs[0].shape;
    const int64_t k = std::get<int64_t>(at.at("k"));
    RefTensor t{*EyeLikeType(node, at), s, std::vector<double>(s[0] * s[1], 0.0)};
    for (int64_t i = 0; i < static_cast<int64_t>(s[0]); ++i) {
      const int64_t j = i + k;
      if (j >= 0 && j < static_cast<int64_t>(s[1]))
        t.data[static_cast<size_t>(i) * s[1] + static_cast<size_t>(j)] = 1;
    }
    return t;
  };
  r.decompose = [build](const OpNode& node, const Attributes& at) -> Result<Graph> {
    return ConstantGraph(1, build(node, at));
  };
  r.reference = [build](const OpNode& node, const Attributes& at, const std::vector<RefTensor>&) {
    return std::vector<RefTensor>{build(node, at)};
  };
  r.hints = {-4, 4, 0, 0};
  r.test_dtypes = {DType::kI32};
  r.test_cases = {
      {{Shape{4, 5}}, {{"k", int64_t{1}}, {"dtype", int64_t{1}}}, {}, "k=1 to float"},
      {{Shape{3, 3}}, {}, {}, "same dtype"},
      {{Shape{3, 4}}, {{"k", int64_t{-2}}, {"dtype", int64_t{11}}}, {}, "k=-2 double (f32)"},
  };
  return r;
}

// ---- Det
// ------------------------------------------------------------------------------------------

OpRecord DetRecord() {
  OpRecord r;
  r.name = "Det";
  r.opset_min = 11;
  r.family = "linalg";
  r.shader = "linalg/det";
  r.contract.dtypes = {{DType::kF32}};
  r.summary = "determinant of each square matrix in the last two dimensions (M <= 16)";
  r.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    const Shape& s = node.inputs[0].shape;
    if (s.size() < 2 || s[s.size() - 1] != s[s.size() - 2] || s.back() == 0) {
      return Error{ErrorCode::kShape,
                   node.Describe() + ": input must be [..., M, M], got " + ShapeToString(s)};
    }
    if (s.back() > 16) {
      return Error{ErrorCode::kUnsupported, node.Describe() +
                                                ": matrices larger than 16x16 are not implemented "
                                                "(the kernel keeps one matrix in private memory)"};
    }
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, Shape(s.begin(), s.end() - 2)}};
  };
  r.context = [](const OpNode& node, const Attributes&, const DeviceCaps&) -> Result<hbs::Value> {
    const Shape& s = node.inputs[0].shape;
    return hbs::Value::object(
        {{"m", s.back()}, {"batch", node.inputs[0].elements() / (s.back() * s.back())}});
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps&) {
    const Shape& s = node.inputs[0].shape;
    return LinearOver(node.inputs[0].elements() / std::max<uint64_t>(1, s.back() * s.back()));
  };
  r.reference = [](const OpNode&, const Attributes&, const std::vector<RefTensor>& in) {
    const Shape& s = in[0].shape;
    const uint64_t m = s.back();
    RefTensor out{DType::kF32, Shape(s.begin(), s.end() - 2), {}};
    const uint64_t batch = m == 0 ? 0 : in[0].data.size() / (m * m);
    for (uint64_t b = 0; b < batch; ++b) {
      std::vector<double> a(in[0].data.begin() + static_cast<long>(b * m * m),
                            in[0].data.begin() + static_cast<long>((b + 1) * m * m));
      double det = 1;
      for (uint64_t c = 0; c < m; ++c) {
        uint64_t p = c;
        for (uint64_t r2 = c + 1; r2 < m; ++r2) {
          if (std::fabs(a[r2 * m + c]) > std::fabs(a[p * m + c])) p = r2;
        }
        if (a[p * m + c] == 0) {
          det = 0;
          break;
        }
        if (p != c) {
          for (uint64_t k = 0; k < m; ++k) std::swap(a[p * m + k], a[c * m + k]);
          det = -det;
        }
        det *= a[c * m + c];
        for (uint64_t r2 = c + 1; r2 < m; ++r2) {
          const double f = a[r2 * m + c] / a[c * m + c];
          for (uint64_t k = c; k < m; ++k) a[r2 * m + k] -= f * a[c * m + k];
        }
      }
      out.data.push_back(det);
    }
    if (batch == 0 && out.shape.empty()) out.data = {1.0};
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-2, 2, 1e-5, 1e-4};
  r.test_cases = {
      {{Shape{2, 2}}, {}, {}, "2x2"},
      {{Shape{3, 4, 4}}, {}, {}, "batched 4x4"},
      {{Shape{5, 5}}, {}, {}, "5x5"},
  };
  return r;
}

}  // namespace

void AddLinalgOps(OpTable& table) {
  OpRecord mm;
  mm.name = "MatMul";
  mm.opset_min = 1;
  mm.family = "linalg";
  mm.shader = "linalg/matmul";
  mm.summary = "matrix product, numpy semantics (batched, broadcast batch dimensions)";
  mm.min_inputs = mm.max_inputs = 2;
  mm.contract = {.dtypes = {{DType::kF32}}, .contiguous = true};
  mm.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    Shape out;
    ALKNET_TRY(MatMulShapes(node, &out));
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, out}};
  };
  mm.context = [](const OpNode& node, const Attributes&,
                  const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(MatMulProblem p, MatMulProblemOf(node));
    return MatMulContext(node, p, caps);
  };
  mm.params = [](const OpNode& node, const Attributes&,
                 const DeviceCaps&) -> Result<std::vector<uint32_t>> {
    ALKNET_ASSIGN_OR_RETURN(MatMulProblem p, MatMulProblemOf(node));
    return MatMulParamWords(node, p);
  };
  mm.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps& caps) {
    auto p = MatMulProblemOf(node);  // infer has accepted the shapes before any dispatch
    return MatMulDispatch(node, p.ok() ? *p : MatMulProblem{}, caps);
  };
  mm.reference = [](const OpNode& node, const Attributes&, const std::vector<RefTensor>& in) {
    MatMulDims d = *MatMulShapes(node, nullptr);
    RefTensor out{DType::kF32, node.outputs[0].shape, {}};
    // Walk the output batch index, mapping it into each operand with broadcasting.
    std::vector<uint64_t> coord(d.batch_shape.size(), 0);
    for (uint64_t bi = 0; bi < d.batch; ++bi) {
      auto offset_of = [&](const Shape& ob, uint64_t matrix) {
        uint64_t off = 0, stride = matrix;
        const size_t lead = d.batch_shape.size() - ob.size();
        for (size_t k = ob.size(); k-- > 0;) {
          if (ob[k] != 1) off += coord[lead + k] * stride;
          stride *= ob[k];
        }
        return off;
      };
      auto r = MatMulRef(in[0].data, in[1].data, d.M, d.N, d.K, offset_of(d.a_batch, d.M * d.K),
                         offset_of(d.b_batch, d.K * d.N), false, false);
      out.data.insert(out.data.end(), r.begin(), r.end());
      for (size_t k = coord.size(); k-- > 0;) {
        if (++coord[k] < d.batch_shape[k]) break;
        coord[k] = 0;
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  mm.hints = {-1, 1, 1e-4, 1e-4};
  table.Add(std::move(mm));

  // Gemm: Y = alpha * A' B' + beta * C, A' = transA ? A^T : A (2-D only).
  OpRecord gemm;
  gemm.name = "Gemm";
  gemm.opset_min = 11;  // C optional from opset 11
  gemm.family = "linalg";
  gemm.shader = "linalg/matmul";
  gemm.summary = "alpha * op(A) op(B) + beta * C, C broadcast to [M, N]";
  gemm.min_inputs = 2;
  gemm.max_inputs = 3;
  gemm.contract = {.dtypes = {{DType::kF32}}, .contiguous = true};
  auto flag = [](const AttrValue& v) {
    const int64_t f = std::get<int64_t>(v);
    return f == 0 || f == 1 ? std::string() : std::string("must be 0 or 1");
  };
  gemm.attributes = {
      {"alpha", AttrValue(1.0), false, &FiniteFloat},
      {"beta", AttrValue(1.0), false, &FiniteFloat},
      {"transA", AttrValue(int64_t{0}), false, flag},
      {"transB", AttrValue(int64_t{0}), false, flag},
      {"alknet.activation", AttrValue(std::string()), false, &ValidateGemmActivation}};
  struct GemmDims {
    uint64_t M, N, K;
    int64_t c_rs = 0, c_cs = 0;
  };
  auto gemm_dims = [](const OpNode& node, const Attributes& at) -> Result<GemmDims> {
    const Shape& a = node.inputs[0].shape;
    const Shape& b = node.inputs[1].shape;
    if (a.size() != 2 || b.size() != 2) {
      return Error{ErrorCode::kShape, node.Describe() + ": Gemm needs 2-D A and B"};
    }
    const bool ta = std::get<int64_t>(at.at("transA")) == 1,
               tb = std::get<int64_t>(at.at("transB")) == 1;
    GemmDims d{ta ? a[1] : a[0], tb ? b[0] : b[1], ta ? a[0] : a[1]};
    const uint64_t kb = tb ? b[1] : b[0];
    if (kb != d.K) {
      return Error{ErrorCode::kShape,
                   node.Describe() + ": inner dimensions differ: op(A) has K = " +
                       std::to_string(d.K) + ", op(B) has " + std::to_string(kb)};
    }
    if (node.inputs.size() == 3) {
      const Shape& c = node.inputs[2].shape;
      auto r = BroadcastShapes({c, Shape{d.M, d.N}});
      if (!r.ok() || *r != Shape{d.M, d.N} || c.size() > 2) {
        return Error{ErrorCode::kShape,
                     node.Describe() + ": C " + ShapeToString(c) +
                         " does not broadcast to [M, N] = " + ShapeToString({d.M, d.N})};
      }
      Shape cs = ContiguousStridesOf(c);
      if (c.size() == 2) {
        d.c_rs = c[0] == 1 ? 0 : static_cast<int64_t>(cs[0]);
        d.c_cs = c[1] == 1 ? 0 : 1;
      } else if (c.size() == 1) {
        d.c_cs = c[0] == 1 ? 0 : 1;
      }
    }
    return d;
  };
  gemm.infer = [gemm_dims](const OpNode& node,
                           const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(GemmDims d, gemm_dims(node, at));
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, {d.M, d.N}}};
  };
  auto gemm_problem = [gemm_dims](const OpNode& node,
                                  const Attributes& at) -> Result<MatMulProblem> {
    ALKNET_ASSIGN_OR_RETURN(GemmDims d, gemm_dims(node, at));
    MatMulProblem p;
    p.M = d.M;
    p.N = d.N;
    p.K = d.K;
    p.trans_a = std::get<int64_t>(at.at("transA")) == 1;
    p.trans_b = std::get<int64_t>(at.at("transB")) == 1;
    p.lda = node.inputs[0].shape[1];
    p.ldb = node.inputs[1].shape[1];
    p.has_c = node.inputs.size() == 3 && !node.inputs[2].absent;
    p.c_rs = d.c_rs;
    p.c_cs = d.c_cs;
    p.alpha = std::get<double>(at.at("alpha"));
    p.beta = p.has_c ? std::get<double>(at.at("beta")) : 0.0;
    return p;
  };
  gemm.context = [gemm_problem](const OpNode& node, const Attributes& at,
                                const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(MatMulProblem p, gemm_problem(node, at));
    return MatMulContext(node, p, caps, std::get<std::string>(at.at("alknet.activation")));
  };
  gemm.params = [gemm_problem](const OpNode& node, const Attributes& at,
                               const DeviceCaps&) -> Result<std::vector<uint32_t>> {
    ALKNET_ASSIGN_OR_RETURN(MatMulProblem p, gemm_problem(node, at));
    return MatMulParamWords(node, p);
  };
  gemm.dispatch = [gemm_problem](const OpNode& node, const Attributes& at, const DeviceCaps& caps) {
    auto p = gemm_problem(node, at);
    return MatMulDispatch(node, p.ok() ? *p : MatMulProblem{}, caps);
  };
  gemm.reference = [gemm_dims](const OpNode& node, const Attributes& at,
                               const std::vector<RefTensor>& in) {
    GemmDims d = *gemm_dims(node, at);
    const bool ta = std::get<int64_t>(at.at("transA")) == 1,
               tb = std::get<int64_t>(at.at("transB")) == 1;
    const double alpha = ToF32(std::get<double>(at.at("alpha"))),
                 beta = ToF32(std::get<double>(at.at("beta")));
    RefTensor out{
        DType::kF32, {d.M, d.N}, MatMulRef(in[0].data, in[1].data, d.M, d.N, d.K, 0, 0, ta, tb)};
    for (uint64_t m = 0; m < d.M; ++m) {
      for (uint64_t n = 0; n < d.N; ++n) {
        double& v = out.data[m * d.N + n];
        v *= alpha;
        if (in.size() == 3) v += beta * in[2].data[m * d.c_rs + n * d.c_cs];
        v = ApplyGemmActivation(std::get<std::string>(at.at("alknet.activation")), v);
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  gemm.hints = {-1, 1, 1e-4, 1e-4};
  table.Add(std::move(gemm));
  table.Add(TriluRecord());
  table.Add(EyeLikeRecord());
  table.Add(DetRecord());
}

}  // namespace alknet::compute::ops
