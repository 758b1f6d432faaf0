// Linear algebra (shaders/linalg/): MatMul (numpy semantics: batched, broadcast batch
// dimensions, 1-D operands promoted) and Gemm (transA/transB, alpha, beta, C broadcast to
// [M, N]), both rendering shaders/linalg/matmul.wgsl.hbs; Trilu, EyeLike (a host-built
// constant) and Det.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>

#include "ops/elementwise.h"
#include "ops/families.h"
#include "ops/gemm_tile.h"
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
// "tile:BMxBNxBK:TMxTN" (ALKNET_MATMUL_VARIANT, for sweeps: tools/h200-gemm-sweep), and
// "tile:BMxBNxBK:TMxTN:splitS" runs it split along K into at most S slices (split-K below).
using MatMulTile = GemmTile;

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
  // K slices of the tiled kernel (split-K): > 1 runs as alknet.MatMulPartial (one partial
  // product per slice) and alknet.MatMulSplitKSum (their sum through the epilogue), the
  // graph MatMul's and Gemm's `specialize` return. The records' own kernel runs the whole of
  // K: the forced tile as it is, or auto's choice without splitting.
  uint64_t split = 1;
};

// Split-K: K in slices of `kc` elements, a multiple of BK so that every BK step of the tiled
// kernel lies in one slice (the last slice is shorter when K is not a multiple of kc);
// `count` slices of at most `split` requested. K = 0: one empty slice.
struct KSlices {
  uint64_t kc = 0, count = 1;
};
KSlices SliceK(uint64_t K, uint64_t split, uint32_t bk) {
  if (K == 0) return {bk, 1};
  const uint64_t per = (K + split - 1) / std::max<uint64_t>(split, 1);
  const uint64_t kc = (per + bk - 1) / bk * bk;
  return {kc, (K + kc - 1) / kc};
}

// The most K slices a forced variant may ask for (tile:...:splitS).
constexpr uint64_t kMaxSplit = 64;

// Why `slices` K slices of the problem cannot run on `caps` (empty when they can): workgroup z
// counts slices times batches, and the partial sums [slices, batch, M, N] are one buffer.
std::string SplitProblem(const MatMulProblem& p, uint64_t slices, const DeviceCaps& caps) {
  if (p.batch * slices > caps.max_workgroups_per_dimension) {
    return std::to_string(slices) + " K slices of " + std::to_string(p.batch) +
           " batches exceed the device's " + std::to_string(caps.max_workgroups_per_dimension) +
           " workgroups per dimension";
  }
  const double bytes = 4.0 * double(slices) * double(p.batch) * double(p.M) * double(p.N);
  if (bytes > double(caps.max_storage_binding_bytes)) {
    return "the partial sums of " + std::to_string(slices) + " K slices (" +
           std::to_string(static_cast<uint64_t>(bytes)) + " bytes) exceed the device's " +
           std::to_string(caps.max_storage_binding_bytes) + "-byte storage binding limit";
  }
  return {};
}

struct ParsedTile {
  MatMulTile tile;
  uint64_t split = 1;
};

// "tile:BMxBNxBK:TMxTN" or "tile:BMxBNxBK:TMxTN:splitS"; nullopt when `v` is not spelled so.
std::optional<ParsedTile> ParseTile(const std::string& v) {
  uint64_t split = 1;
  std::optional<GemmTile> t = ParseGemmTile(v, &split);
  if (!t) return std::nullopt;
  return ParsedTile{*t, split};
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

// `split_k`: whether auto may split K (the records' `specialize` asks; their own kernel runs
// all of K, so their context and dispatch do not). A forced split is reported either way.
Result<MatMulChoice> ChooseMatMulKernel(const OpNode& node, const MatMulProblem& p,
                                        const DeviceCaps& caps, bool split_k = false) {
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
  if (std::optional<ParsedTile> t = ParseTile(v)) {
    auto refuse = [&](const std::string& why) {
      return Error{ErrorCode::kInvalidArgument, node.Describe() + ": MatMul variant '" + v +
                                                    "' (ALKNET_MATMUL_VARIANT) cannot run: " + why};
    };
    if (std::string why = GemmTileProblem(t->tile, caps); !why.empty()) return refuse(why);
    if (t->split < 1 || t->split > kMaxSplit) {
      return refuse("splitS takes S in 1.." + std::to_string(kMaxSplit));
    }
    // As many slices as K has BK steps, at most S; one slice is the tile as it is.
    const KSlices s = SliceK(p.K, t->split, t->tile.bk);
    if (s.count > 1) {
      if (std::string why = SplitProblem(p, s.count, caps); !why.empty()) return refuse(why);
    }
    return MatMulChoice{MatMulKernel::kTiled, 0, t->tile, 1, s.count};
  }
  if (v != "auto" && !v.empty()) {
    return Error{ErrorCode::kInvalidArgument,
                 node.Describe() + ": unknown MatMul variant '" + v +
                     "' (ALKNET_MATMUL_VARIANT): use auto, rows, dot, gemv, gemv:16, gemv:4, "
                     "gemv:1, tiled, big, tile:BMxBNxBK:TMxTN or tile:BMxBNxBK:TMxTN:splitS"};
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
  constexpr uint64_t kFillGroups = 128;
  for (const MatMulTile& t : {kTile256x128, kTile128k8}) {
    if (GemmTileProblem(t, caps).empty() && groups(t) >= kFillGroups)
      return MatMulChoice{MatMulKernel::kTiled, 0, t};
  }
  // Split-K where the big tiles' grid is short of 128 workgroups but K is long: S slices of
  // K, S = ceil(128 / grid) so that grid * S lands in 128..255, each slice at least 256 long
  // (S <= K / 256, so K >= 512) and at most 16 of them; taken only when grid * S reaches 128,
  // else the 64x64 tiles' 8x more workgroups stay. The output must span a whole tile each
  // way (M >= BM, N >= BN): a 64-row output in 256-row tiles would do 4x the work. Based on
  // the H200 figures above (tools/h200-gemm-sweep, 2026-12-04): at 1024^3 the 256x128 tiles'
  // 32 workgroups ran at 8.7 TFLOP/s and the 64x64 tiles' 256 at 20.9, while at 2048 the
  // 256x128 tiles' 128 workgroups reached 36.3 (cuBLAS 38 at 1024); split-K gives 1024^3 the
  // 2048 grid's 128 workgroups of 256x128 tiles, each walking a quarter of K. Not measured on
  // the H200 yet: tools/h200-splitk sweeps S = 2, 4, 8 beside auto and 64x64.
  constexpr uint64_t kMinSliceK = 256, kMaxAutoSplit = 16;
  for (const MatMulTile& t : {kTile256x128, kTile128k8}) {
    if (!split_k || !caps.unmeasured_gpu_tilings || !GemmTileProblem(t, caps).empty() ||
        p.K < 2 * kMinSliceK || p.M < t.bm || p.N < t.bn) {
      continue;
    }
    const uint64_t g = groups(t);
    const uint64_t want = std::min({(kFillGroups + g - 1) / g, p.K / kMinSliceK, kMaxAutoSplit});
    const KSlices s = SliceK(p.K, want, t.bk);
    if (s.count > 1 && g * s.count >= kFillGroups && SplitProblem(p, s.count, caps).empty())
      return MatMulChoice{MatMulKernel::kTiled, 0, t, 1, s.count};
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

// The template data of kernel `c` on problem `p`; `split_k`: the tiled kernel writes one
// K slice's partial sums per workgroup z (alknet.MatMulPartial), without the epilogue.
hbs::Value MatMulContext(const MatMulProblem& p, const MatMulChoice& c,
                         const std::string& activation = {}, bool split_k = false) {
  const bool tiled = c.kernel == MatMulKernel::kTiled;
  const bool rows = c.kernel == MatMulKernel::kRows;
  const bool gemv = c.kernel == MatMulKernel::kGemv;
  const bool vec4 = (tiled || rows || gemv) && AlignedForVec4(p);
  auto list = [](uint32_t n) {
    hbs::Array l;
    for (uint32_t i = 0; i < n; ++i) l.push_back(static_cast<long long>(i));
    return hbs::Value(std::move(l));
  };
  hbs::Value v = hbs::Value::object({{"rows", rows},
                                     {"dot", c.kernel == MatMulKernel::kDot},
                                     {"gemv", gemv},
                                     {"gemv_cw", c.cw},
                                     {"gemv_ks", 64 / c.cw},
                                     {"gemv_part_len", 64 * c.rows},
                                     {"tiled", tiled},
                                     {"split_k", tiled && split_k},
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
                                     {"partial_len", 64 * c.rows}});
  if (tiled) AddGemmTileContext(c.tile, v.as_object());
  return v;
}

uint32_t FloatBits(double v) {
  const float f = static_cast<float>(v);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// The uniform block, in the order of struct MatMulParams; `splits` and `k_slice` are the
// split-K kernels' (0 for the others, which do not read them).
Result<std::vector<uint32_t>> MatMulParamWords(const OpNode& node, const MatMulProblem& p,
                                               uint64_t splits = 0, uint64_t k_slice = 0) {
  std::vector<uint64_t> sizes = {splits,
                                 k_slice,
                                 p.M,
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
  std::vector<uint32_t> w = {u(p.M),    u(p.N),    u(p.K),    u(p.batch),         u(p.lda),
                             u(p.ldb),  u(p.c_rs), u(p.c_cs), FloatBits(p.alpha), FloatBits(p.beta),
                             u(splits), u(k_slice)};
  for (int d = 0; d < kMaxBatchDims; ++d) w.push_back(u(p.extent[d]));
  for (int d = 0; d < kMaxBatchDims; ++d) w.push_back(u(p.a_stride[d]));
  for (int d = 0; d < kMaxBatchDims; ++d) w.push_back(u(p.b_stride[d]));
  return w;
}

// `slices`: the split-K partial kernel's K slices, on workgroup z beside the batches.
DispatchPlan MatMulDispatch(const MatMulProblem& p, const MatMulChoice& c, uint64_t slices = 1) {
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
      plan.groups = {(p.N + t.bn - 1) / t.bn, (p.M + t.bm - 1) / t.bm, p.batch * slices};
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

// Products over k in [k_begin, k_end) only (split-K partial sums).
std::vector<double> MatMulRef(const std::vector<double>& a, const std::vector<double>& b,
                              uint64_t M, uint64_t N, uint64_t K, uint64_t a_off, uint64_t b_off,
                              bool ta, bool tb, uint64_t k_begin = 0, uint64_t k_end = UINT64_MAX) {
  std::vector<double> out(M * N, 0.0);
  for (uint64_t m = 0; m < M; ++m) {
    for (uint64_t n = 0; n < N; ++n) {
      double s = 0;
      for (uint64_t k = k_begin; k < std::min(K, k_end); ++k) {
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

// MatMul's float64 result over k in [k_begin, k_end): numpy batching, the output batch index
// mapped into each operand with broadcasting.
std::vector<double> MatMulReference(const OpNode& node, const std::vector<RefTensor>& in,
                                    uint64_t k_begin = 0, uint64_t k_end = UINT64_MAX) {
  MatMulDims d = *MatMulShapes(node, nullptr);
  std::vector<double> out;
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
                       offset_of(d.b_batch, d.K * d.N), false, false, k_begin, k_end);
    out.insert(out.end(), r.begin(), r.end());
    for (size_t k = coord.size(); k-- > 0;) {
      if (++coord[k] < d.batch_shape[k]) break;
      coord[k] = 0;
    }
  }
  return out;
}

// C broadcast to [M, N] (Gemm's C, alknet.MatMulSplitKSum's): its row and column strides,
// 0 along a broadcast dimension.
Status CBroadcast(const OpNode& node, const Shape& c, uint64_t M, uint64_t N, int64_t* c_rs,
                  int64_t* c_cs) {
  auto r = BroadcastShapes({c, Shape{M, N}});
  if (!r.ok() || *r != Shape{M, N} || c.size() > 2) {
    return Error{ErrorCode::kShape, node.Describe() + ": C " + ShapeToString(c) +
                                        " does not broadcast to [M, N] = " + ShapeToString({M, N})};
  }
  Shape cs = ContiguousStridesOf(c);
  *c_rs = *c_cs = 0;
  if (c.size() == 2) {
    *c_rs = c[0] == 1 ? 0 : static_cast<int64_t>(cs[0]);
    *c_cs = c[1] == 1 ? 0 : 1;
  } else if (c.size() == 1) {
    *c_cs = c[0] == 1 ? 0 : 1;
  }
  return Ok{};
}

struct GemmDims {
  uint64_t M, N, K;
  int64_t c_rs = 0, c_cs = 0;
};

// Gemm's shapes: 2-D A and B, op(A) = transA ? A^T : A, and C (a third input) broadcast to
// [M, N].
Result<GemmDims> GemmShapes(const OpNode& node, bool ta, bool tb) {
  const Shape& a = node.inputs[0].shape;
  const Shape& b = node.inputs[1].shape;
  if (a.size() != 2 || b.size() != 2) {
    return Error{ErrorCode::kShape, node.Describe() + ": Gemm needs 2-D A and B"};
  }
  GemmDims d{ta ? a[1] : a[0], tb ? b[0] : b[1], ta ? a[0] : a[1]};
  const uint64_t kb = tb ? b[1] : b[0];
  if (kb != d.K) {
    return Error{ErrorCode::kShape, node.Describe() + ": inner dimensions differ: op(A) has K = " +
                                        std::to_string(d.K) + ", op(B) has " + std::to_string(kb)};
  }
  if (node.inputs.size() == 3) {
    ALKNET_TRY(CBroadcast(node, node.inputs[2].shape, d.M, d.N, &d.c_rs, &d.c_cs));
  }
  return d;
}

// Gemm's problem with alpha 1 and beta 0 (the record sets its own).
Result<MatMulProblem> GemmProblemOf(const OpNode& node, bool ta, bool tb) {
  ALKNET_ASSIGN_OR_RETURN(GemmDims d, GemmShapes(node, ta, tb));
  MatMulProblem p;
  p.M = d.M;
  p.N = d.N;
  p.K = d.K;
  p.trans_a = ta;
  p.trans_b = tb;
  p.lda = node.inputs[0].shape[1];
  p.ldb = node.inputs[1].shape[1];
  p.has_c = node.inputs.size() == 3 && !node.inputs[2].absent;
  p.c_rs = d.c_rs;
  p.c_cs = d.c_cs;
  return p;
}

bool Flag(const Attributes& at, const char* name) { return std::get<int64_t>(at.at(name)) == 1; }

std::string ValidateFlag(const AttrValue& v) {
  const int64_t f = std::get<int64_t>(v);
  return f == 0 || f == 1 ? std::string() : std::string("must be 0 or 1");
}

// ---- Split-K: alknet.MatMulPartial + alknet.MatMulSplitKSum ----------------------------------
//
// The graph MatMul and Gemm run instead of their own kernel where ChooseMatMulKernel splits K
// (GPUs with a short grid of big tiles, or tile:...:splitS forced): the tiled kernel writes
// one partial product per K slice into a scratch tensor [S, batch..., M, N], and a second
// kernel adds the S slices through the tiled kernel's epilogue (alpha, beta * C, the fused
// activation). Both read the uniform block of shaders/linalg/matmul_params.

// alknet.MatMulPartial's problem: Gemm's with a transpose (2-D operands), else MatMul's.
Result<MatMulProblem> PartialProblemOf(const OpNode& node, const Attributes& at) {
  const bool ta = Flag(at, "transA"), tb = Flag(at, "transB");
  if (ta || tb) return GemmProblemOf(node, ta, tb);
  return MatMulProblemOf(node);
}

MatMulTile PartialTile(const Attributes& at) {
  return ParseTile(std::get<std::string>(at.at("alknet.tile")))->tile;
}

KSlices PartialSlices(const MatMulProblem& p, const Attributes& at) {
  return SliceK(p.K, static_cast<uint64_t>(std::get<int64_t>(at.at("alknet.split"))),
                PartialTile(at).bk);
}

// out[s, b..., m, n] = sum over k in [s KC, (s + 1) KC) of op(A)[b..., m, k] op(B)[b..., k, n].
OpRecord MatMulPartialRecord() {
  OpRecord r;
  r.name = "alknet.MatMulPartial";
  r.family = "internal";
  r.shader = "linalg/matmul";
  r.contract = {.dtypes = {{DType::kF32}}, .contiguous = true};
  r.summary =
      "split-K partial products of MatMul/Gemm over K slices (their specialization for GPUs)";
  r.min_inputs = r.max_inputs = 2;
  r.attributes = {
      {"transA", AttrValue(int64_t{0}), false, &ValidateFlag},
      {"transB", AttrValue(int64_t{0}), false, &ValidateFlag},
      {"alknet.split", AttrValue(int64_t{2}), false,
       [](const AttrValue& v) {
         const int64_t n = std::get<int64_t>(v);
         return n >= 1 && n <= int64_t(kMaxSplit) ? std::string() : std::string("must be 1..64");
       }},
      {"alknet.tile", AttrValue(std::string("tile:64x64x16:4x4")), false, [](const AttrValue& v) {
         auto t = ParseTile(std::get<std::string>(v));
         return t && t->split == 1 ? std::string() : std::string("must be tile:BMxBNxBK:TMxTN");
       }}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    Shape out;
    if (Flag(at, "transA") || Flag(at, "transB")) {
      ALKNET_ASSIGN_OR_RETURN(GemmDims d, GemmShapes(node, Flag(at, "transA"), Flag(at, "transB")));
      out = {d.M, d.N};
    } else {
      ALKNET_TRY(MatMulShapes(node, &out));
    }
    ALKNET_ASSIGN_OR_RETURN(MatMulProblem p, PartialProblemOf(node, at));
    out.insert(out.begin(), PartialSlices(p, at).count);
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, out}};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(MatMulProblem p, PartialProblemOf(node, at));
    const MatMulTile t = PartialTile(at);
    if (std::string why = GemmTileProblem(t, caps); !why.empty()) {
      return Error{ErrorCode::kUnsupported, node.Describe() + ": tiling " + t.Name() + ": " + why};
    }
    return MatMulContext(p, MatMulChoice{MatMulKernel::kTiled, 0, t}, {}, /*split_k=*/true);
  };
  r.params = [](const OpNode& node, const Attributes& at,
                const DeviceCaps&) -> Result<std::vector<uint32_t>> {
    ALKNET_ASSIGN_OR_RETURN(MatMulProblem p, PartialProblemOf(node, at));
    const KSlices s = PartialSlices(p, at);
    return MatMulParamWords(node, p, s.count, s.kc);
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps&) {
    auto p = PartialProblemOf(node, at);
    const MatMulProblem q = p.ok() ? *p : MatMulProblem{};
    return MatMulDispatch(q, MatMulChoice{MatMulKernel::kTiled, 0, PartialTile(at)},
                          PartialSlices(q, at).count);
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const MatMulProblem p = *PartialProblemOf(node, at);
    const KSlices s = PartialSlices(p, at);
    RefTensor out{DType::kF32, node.outputs[0].shape, {}};
    for (uint64_t i = 0; i < s.count; ++i) {
      const std::vector<double> part =
          p.trans_a || p.trans_b ? MatMulRef(in[0].data, in[1].data, p.M, p.N, p.K, 0, 0, p.trans_a,
                                             p.trans_b, i * s.kc, (i + 1) * s.kc)
                                 : MatMulReference(node, in, i * s.kc, (i + 1) * s.kc);
      out.data.insert(out.data.end(), part.begin(), part.end());
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-1, 1, 1e-4, 1e-4};
  auto tile = [](const char* t) { return AttrValue(std::string(t)); };
  r.test_cases = {
      {{Shape{37, 29}, Shape{29, 45}},
       {{"alknet.split", int64_t{3}}, {"alknet.tile", tile("tile:32x32x4:4x4")}},
       {},
       "K = 29 in slices of 12, 12, 5"},
      {{Shape{2, 1, 17, 40}, Shape{3, 40, 12}},
       {{"alknet.split", int64_t{4}}, {"alknet.tile", tile("tile:32x32x8:4x4")}},
       {},
       "broadcast batches, K = 40 in 3 slices of 16 (vec4)"},
      {{Shape{40, 19}, Shape{33, 40}},
       {{"transA", int64_t{1}},
        {"transB", int64_t{1}},
        {"alknet.split", int64_t{2}},
        {"alknet.tile", tile("tile:64x64x16:4x4")}},
       {},
       "both transposed, K = 40 in 2 slices"},
  };
  return r;
}

// The sum's sizes: y's last two dimensions as M x N (1 where y has fewer), the rest batches.
struct SplitSumDims {
  uint64_t S = 1, M = 1, N = 1, batch = 1;
};
SplitSumDims SplitSumDimsOf(const OpNode& node) {
  const Shape& in = node.inputs[0].shape;
  SplitSumDims d;
  d.S = in[0];
  if (in.size() >= 2) d.N = in.back();
  if (in.size() >= 3) d.M = in[in.size() - 2];
  for (size_t i = 1; i + 2 < in.size(); ++i) d.batch *= in[i];
  return d;
}

// y = act(alpha * sum over s of partial[s] + beta * C), C broadcast to y's [M, N].
OpRecord MatMulSplitKSumRecord() {
  OpRecord r;
  r.name = "alknet.MatMulSplitKSum";
  r.family = "internal";
  r.shader = "linalg/matmul_splitk_sum";
  r.contract = {.dtypes = {{DType::kF32}}, .contiguous = true};
  r.summary =
      "sums MatMul/Gemm split-K partials through Gemm's epilogue (alpha, beta * C, activation)";
  r.min_inputs = 1;
  r.max_inputs = 2;
  r.attributes = {{"alpha", AttrValue(1.0), false, &FiniteFloat},
                  {"beta", AttrValue(1.0), false, &FiniteFloat},
                  {"alknet.activation", AttrValue(std::string()), false, &ValidateGemmActivation}};
  auto c_strides = [](const OpNode& node, std::array<int64_t, 2>* st) -> Status {
    const Shape& in = node.inputs[0].shape;
    if (!node.has_input(1)) return Ok{};
    if (in.size() != 3) {
      return Error{
          ErrorCode::kShape,
          node.Describe() + ": with C, partials must be [S, M, N], got " + ShapeToString(in)};
    }
    return CBroadcast(node, node.inputs[1].shape, in[1], in[2], &(*st)[0], &(*st)[1]);
  };
  r.infer = [c_strides](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    const Shape& in = node.inputs[0].shape;
    if (in.empty()) {
      return Error{ErrorCode::kShape, node.Describe() + ": partials must be [S, ...]"};
    }
    std::array<int64_t, 2> st{};
    ALKNET_TRY(c_strides(node, &st));
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, Shape(in.begin() + 1, in.end())}};
  };
  auto act = [](const Attributes& at) { return std::get<std::string>(at.at("alknet.activation")); };
  r.context = [act](const OpNode& node, const Attributes& at,
                    const DeviceCaps&) -> Result<hbs::Value> {
    const std::string a = act(at);
    return hbs::Value::object({{"has_c", node.has_input(1)},
                               {"act", !a.empty()},
                               {"act_relu", a == "Relu"},
                               {"act_tanh", a == "Tanh"},
                               {"act_sigmoid", a == "Sigmoid"}});
  };
  r.params = [c_strides](const OpNode& node, const Attributes& at,
                         const DeviceCaps&) -> Result<std::vector<uint32_t>> {
    const SplitSumDims d = SplitSumDimsOf(node);
    std::array<int64_t, 2> st{};
    ALKNET_TRY(c_strides(node, &st));
    MatMulProblem p;
    p.M = d.M;
    p.N = d.N;
    p.batch = d.batch;
    p.c_rs = st[0];
    p.c_cs = st[1];
    p.alpha = std::get<double>(at.at("alpha"));
    p.beta = node.has_input(1) ? std::get<double>(at.at("beta")) : 0.0;
    return MatMulParamWords(node, p, d.S, 0);
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps&) {
    const SplitSumDims d = SplitSumDimsOf(node);
    DispatchPlan p;
    p.invocations = d.batch * d.M * d.N;
    return p;
  };
  r.reference = [act](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const SplitSumDims d = SplitSumDimsOf(node);
    const uint64_t total = d.batch * d.M * d.N;
    const double alpha = ToF32(std::get<double>(at.at("alpha"))),
                 beta = ToF32(std::get<double>(at.at("beta")));
    // C indexed by its own shape, broadcast to [M, N] (independent of the kernel's strides).
    auto c_at = [&](uint64_t m, uint64_t n) {
      const Shape& c = in[1].shape;
      const uint64_t cm = c.size() == 2 && c[0] != 1 ? m : 0;
      const uint64_t cn = !c.empty() && c.back() != 1 ? n : 0;
      return in[1].data[cm * (c.empty() ? 1 : c.back()) + cn];
    };
    RefTensor out{DType::kF32, node.outputs[0].shape, std::vector<double>(total)};
    for (uint64_t i = 0; i < total; ++i) {
      double v = 0;
      for (uint64_t s = 0; s < d.S; ++s) v += in[0].data[s * total + i];
      v *= alpha;
      if (node.has_input(1)) v += beta * c_at((i / d.N) % d.M, i % d.N);
      out.data[i] = ApplyGemmActivation(act(at), v);
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-1, 1, 1e-5, 1e-5};
  auto str = [](const char* v) { return AttrValue(std::string(v)); };
  r.test_cases = {
      {{Shape{3, 2, 5, 7}, std::nullopt}, {}, {}, "3 slices, batched, no C"},
      {{Shape{2, 6, 9}, Shape{9}},
       {{"alpha", 0.5}, {"beta", -2.0}, {"alknet.activation", str("Relu")}},
       {},
       "alpha, beta, C [N], Relu"},
      {{Shape{4, 5, 3}, Shape{5, 1}}, {{"alknet.activation", str("Tanh")}}, {}, "C [M, 1], Tanh"},
      {{Shape{2, 11}, std::nullopt}, {{"alknet.activation", str("Sigmoid")}}, {}, "1-D, Sigmoid"},
  };
  return r;
}

// The split-K graph over a MatMul (2 inputs) or Gemm (C as input 2 where `has_c`) node.
Graph SplitKGraph(const MatMulChoice& c, bool ta, bool tb, bool has_c, Attributes sum_at,
                  int num_inputs) {
  Graph g(num_inputs);
  const int partial = g.Add("alknet.MatMulPartial", {0, 1},
                            {{"transA", int64_t{ta}},
                             {"transB", int64_t{tb}},
                             {"alknet.split", static_cast<int64_t>(c.split)},
                             {"alknet.tile", c.tile.Name()}},
                            1);
  std::vector<int> sum_in{partial};
  if (has_c) sum_in.push_back(2);
  g.outputs = {g.Add("alknet.MatMulSplitKSum", sum_in, std::move(sum_at), 1)};
  return g;
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
    ALKNET_ASSIGN_OR_RETURN(MatMulChoice c, ChooseMatMulKernel(node, p, caps));
    return MatMulContext(p, c);
  };
  mm.params = [](const OpNode& node, const Attributes&,
                 const DeviceCaps&) -> Result<std::vector<uint32_t>> {
    ALKNET_ASSIGN_OR_RETURN(MatMulProblem p, MatMulProblemOf(node));
    return MatMulParamWords(node, p);
  };
  mm.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps& caps) {
    // infer has accepted the shapes before any dispatch; an unknown variant fails in context
    // with its message, and any plan does until then.
    auto p = MatMulProblemOf(node);
    const MatMulProblem q = p.ok() ? *p : MatMulProblem{};
    auto c = ChooseMatMulKernel(node, q, caps);
    return MatMulDispatch(q, c.ok() ? *c : MatMulChoice{});
  };
  mm.specialize = [](const OpNode& node, const Attributes&,
                     const DeviceCaps& caps) -> std::optional<Graph> {
    auto p = MatMulProblemOf(node);
    if (!p.ok()) return std::nullopt;
    auto c = ChooseMatMulKernel(node, *p, caps, /*split_k=*/true);
    if (!c.ok() || c->split <= 1) return std::nullopt;
    return SplitKGraph(*c, false, false, false, {{"alpha", 1.0}, {"beta", 0.0}}, 2);
  };
  mm.reference = [](const OpNode& node, const Attributes&, const std::vector<RefTensor>& in) {
    return std::vector<RefTensor>{
        RefTensor{DType::kF32, node.outputs[0].shape, MatMulReference(node, in)}};
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
  gemm.attributes = {
      {"alpha", AttrValue(1.0), false, &FiniteFloat},
      {"beta", AttrValue(1.0), false, &FiniteFloat},
      {"transA", AttrValue(int64_t{0}), false, &ValidateFlag},
      {"transB", AttrValue(int64_t{0}), false, &ValidateFlag},
      {"alknet.activation", AttrValue(std::string()), false, &ValidateGemmActivation}};
  auto gemm_dims = [](const OpNode& node, const Attributes& at) {
    return GemmShapes(node, Flag(at, "transA"), Flag(at, "transB"));
  };
  gemm.infer = [gemm_dims](const OpNode& node,
                           const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(GemmDims d, gemm_dims(node, at));
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, {d.M, d.N}}};
  };
  auto gemm_problem = [](const OpNode& node, const Attributes& at) -> Result<MatMulProblem> {
    ALKNET_ASSIGN_OR_RETURN(MatMulProblem p,
                            GemmProblemOf(node, Flag(at, "transA"), Flag(at, "transB")));
    p.alpha = std::get<double>(at.at("alpha"));
    p.beta = p.has_c ? std::get<double>(at.at("beta")) : 0.0;
    return p;
  };
  gemm.context = [gemm_problem](const OpNode& node, const Attributes& at,
                                const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(MatMulProblem p, gemm_problem(node, at));
    ALKNET_ASSIGN_OR_RETURN(MatMulChoice c, ChooseMatMulKernel(node, p, caps));
    return MatMulContext(p, c, std::get<std::string>(at.at("alknet.activation")));
  };
  gemm.params = [gemm_problem](const OpNode& node, const Attributes& at,
                               const DeviceCaps&) -> Result<std::vector<uint32_t>> {
    ALKNET_ASSIGN_OR_RETURN(MatMulProblem p, gemm_problem(node, at));
    return MatMulParamWords(node, p);
  };
  gemm.dispatch = [gemm_problem](const OpNode& node, const Attributes& at, const DeviceCaps& caps) {
    auto p = gemm_problem(node, at);
    const MatMulProblem q = p.ok() ? *p : MatMulProblem{};
    auto c = ChooseMatMulKernel(node, q, caps);
    return MatMulDispatch(q, c.ok() ? *c : MatMulChoice{});
  };
  gemm.specialize = [gemm_problem](const OpNode& node, const Attributes& at,
                                   const DeviceCaps& caps) -> std::optional<Graph> {
    auto p = gemm_problem(node, at);
    if (!p.ok()) return std::nullopt;
    auto c = ChooseMatMulKernel(node, *p, caps, /*split_k=*/true);
    if (!c.ok() || c->split <= 1) return std::nullopt;
    return SplitKGraph(*c, p->trans_a, p->trans_b, p->has_c,
                       {{"alpha", at.at("alpha")},
                        {"beta", at.at("beta")},
                        {"alknet.activation", at.at("alknet.activation")}},
                       static_cast<int>(node.inputs.size()));
  };
  gemm.reference = [gemm_dims](const OpNode& node, const Attributes& at,
                               const std::vector<RefTensor>& in) {
    GemmDims d = *gemm_dims(node, at);
    const bool ta = Flag(at, "transA"), tb = Flag(at, "transB");
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
  table.Add(MatMulPartialRecord());
  table.Add(MatMulSplitKSumRecord());
  table.Add(TriluRecord());
  table.Add(EyeLikeRecord());
  table.Add(DetRecord());
}

}  // namespace alknet::compute::ops
