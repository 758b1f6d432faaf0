// Conv and ConvTranspose (1-D to 3-D, groups, dilations, strides, pads, auto_pad; ONNX
// Operators.md). Conv renders shaders/conv/conv.wgsl.hbs, an implicit GEMM with fast paths
// for 1x1 and depthwise convolutions; ConvTranspose gathers into each output element
// (shaders/conv/conv_transpose.wgsl.hbs).
//
// Both take the internal attribute `alknet.activation`, which ONNX models never set: the ONNX
// session's fuser folds a following activation into the conv's epilogue with it. Values:
// "" (none), "Relu", "LeakyRelu:<alpha>", "Clip:<min>:<max>", "Sigmoid", "HardSwish".
#include <algorithm>
#include <array>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "ops/families.h"
#include "ops/gemm_tile.h"
#include "ops/spatial.h"

namespace alknet::compute::ops {

namespace {

struct Activation {
  enum class Kind { kNone, kRelu, kLeakyRelu, kClip, kSigmoid, kHardSwish } kind = Kind::kNone;
  double a = 0, b = 0;
};

// Splits "Name:arg:arg"; an error string when the value is malformed.
std::string ParseActivation(const std::string& s, Activation* out) {
  std::vector<std::string> parts;
  size_t pos = 0;
  while (true) {
    const size_t colon = s.find(':', pos);
    parts.push_back(s.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos));
    if (colon == std::string::npos) break;
    pos = colon + 1;
  }
  auto number = [](const std::string& t, double* v) {
    char* end = nullptr;
    *v = std::strtod(t.c_str(), &end);
    return !t.empty() && end == t.c_str() + t.size() && !std::isnan(*v);
  };
  Activation a;
  const std::string& name = parts[0];
  const char* usage =
      "must be \"\", \"Relu\", \"LeakyRelu:<alpha>\", \"Clip:<min>:<max>\", \"Sigmoid\" or "
      "\"HardSwish\"";
  if (name.empty() && parts.size() == 1) {
    a.kind = Activation::Kind::kNone;
  } else if (name == "Relu" && parts.size() == 1) {
    a.kind = Activation::Kind::kRelu;
  } else if (name == "Sigmoid" && parts.size() == 1) {
    a.kind = Activation::Kind::kSigmoid;
  } else if (name == "HardSwish" && parts.size() == 1) {
    a.kind = Activation::Kind::kHardSwish;
  } else if (name == "LeakyRelu" && parts.size() == 2 && number(parts[1], &a.a) &&
             std::isfinite(a.a)) {
    a.kind = Activation::Kind::kLeakyRelu;
  } else if (name == "Clip" && parts.size() == 3 && number(parts[1], &a.a) &&
             number(parts[2], &a.b)) {
    a.kind = Activation::Kind::kClip;
    // Infinite bounds (Clip without min or max) become the largest float: same result.
    a.a = std::clamp(a.a, -double(FLT_MAX), double(FLT_MAX));
    a.b = std::clamp(a.b, -double(FLT_MAX), double(FLT_MAX));
  } else {
    return usage;
  }
  if (out) *out = a;
  return {};
}

std::string ValidateActivation(const AttrValue& v) {
  return ParseActivation(std::get<std::string>(v), nullptr);
}

Activation ActivationOf(const Attributes& at) {
  Activation a;
  ParseActivation(std::get<std::string>(at.at("alknet.activation")), &a);
  return a;
}

double ApplyActivation(const Activation& a, double v) {
  switch (a.kind) {
    case Activation::Kind::kNone: return v;
    case Activation::Kind::kRelu: return std::max(v, 0.0);
    case Activation::Kind::kLeakyRelu: return v >= 0 ? v : ToF32(a.a) * v;
    case Activation::Kind::kClip: return std::min(std::max(v, ToF32(a.a)), ToF32(a.b));
    case Activation::Kind::kSigmoid: return 1.0 / (1.0 + std::exp(-v));
    case Activation::Kind::kHardSwish: return v * std::clamp(v / 6.0 + 0.5, 0.0, 1.0);
  }
  return v;
}

// `from_params`: the shader reads alpha / min / max from the parameter block (conv/params)
// rather than as literals, so they do not tell pipelines apart.
void AddActivationContext(const Activation& a, hbs::Object& o, bool from_params = false) {
  using K = Activation::Kind;
  o.set("act_none", a.kind == K::kNone);
  o.set("act_relu", a.kind == K::kRelu);
  o.set("act_leaky", a.kind == K::kLeakyRelu);
  o.set("act_clip", a.kind == K::kClip);
  o.set("act_sigmoid", a.kind == K::kSigmoid);
  o.set("act_hardswish", a.kind == K::kHardSwish);
  o.set("act_alpha", from_params ? std::string("prm.act_a") : FloatLiteral(a.a));
  o.set("act_lo", from_params ? std::string("prm.act_a") : FloatLiteral(a.a));
  o.set("act_hi", from_params ? std::string("prm.act_b") : FloatLiteral(a.b));
}

// ---------------------------------------------------------------------------------------
// The parameter block of the shape-generic kernels (shaders/conv/params.wgsl.hbs, ConvParams;
// docs/adr/0006-conv-parameter-block.md): 36 words in this order.
enum ConvParamWord : size_t {
  kN,
  kC,
  kM,
  kCG,
  kMG,
  kGroups,
  kK,
  kP,
  kID,
  kIH,
  kIW,
  kISP,
  kOD,
  kOH,
  kOW,
  kKSP,
  kKD,
  kKH,
  kKW,
  kMBlocks,
  kSD,
  kSH,
  kSW,
  kPhases,
  kDLD,
  kDLH,
  kDLW,
  kQ,
  kPD,
  kPH,
  kPW,
  kActA,
  kActB,
  kQH,
  kQW,
  kXBlocks,
  kParamWords
};

// Output channels per workgroup row and invocations per workgroup of the shape-generic
// kernels: ConvTranspose 64 (2 positions each), Conv (conv/direct) 16 (2 positions each, 4 for
// depthwise; small outputs such as 7x7 idle few lanes, docs/adr/0028).
constexpr uint64_t kBlockM = 8, kGenericWg = 64, kDirectWg = 16;

// The integer words of a block (kActA and kActB are floats, set by ParamWords).
struct ConvParamBlock {
  std::array<int64_t, kParamWords> v{};
  Activation act;
};

ConvParamBlock WindowParams(uint64_t N, uint64_t C, uint64_t M, uint64_t CG, uint64_t MG,
                            uint64_t group, const Window& w, const Activation& act) {
  ConvParamBlock b;
  auto& v = b.v;
  v[kN] = int64_t(N);
  v[kC] = int64_t(C);
  v[kM] = int64_t(M);
  v[kCG] = int64_t(CG);
  v[kMG] = int64_t(MG);
  v[kGroups] = int64_t(group);
  v[kK] = int64_t(CG * w.kernel_size());
  v[kP] = int64_t(w.out_size());
  v[kISP] = int64_t(w.in_size());
  v[kKSP] = int64_t(w.kernel_size());
  v[kMBlocks] = int64_t((MG + kBlockM - 1) / kBlockM);
  v[kPhases] = 1;
  for (int a = 0; a < 3; ++a) {
    v[kID + a] = int64_t(w.In3(a));
    v[kOD + a] = int64_t(w.Out3(a));
    v[kKD + a] = int64_t(w.Kernel3(a));
    v[kSD + a] = w.Stride3(a);
    v[kDLD + a] = w.Dilation3(a);
    v[kPD + a] = w.Pad3(a);
  }
  b.act = act;
  return b;
}

// Every word must fit a non-negative i32 (the shader does signed window arithmetic on them).
Status CheckParams(const OpNode& node, const ConvParamBlock& b) {
  for (size_t i = 0; i < kParamWords; ++i) {
    if (i == kActA || i == kActB) continue;
    if (b.v[i] < 0 || b.v[i] > INT32_MAX) {
      return Error{ErrorCode::kUnsupported,
                   node.Describe() + ": an extent, stride, pad or dilation (" +
                       std::to_string(b.v[i]) + ") does not fit the kernel's 32-bit arithmetic"};
    }
  }
  return Ok{};
}

std::vector<uint32_t> ParamWords(const ConvParamBlock& b) {
  std::vector<uint32_t> out(kParamWords);
  for (size_t i = 0; i < kParamWords; ++i) out[i] = static_cast<uint32_t>(b.v[i]);
  // Clip bounds are clamped to +-FLT_MAX by ParseActivation.
  auto f32 = [](double v) {
    return static_cast<float>(std::clamp(v, -double(FLT_MAX), double(FLT_MAX)));
  };
  const float fa = f32(b.act.a), fb = f32(b.act.b);
  std::memcpy(&out[kActA], &fa, 4);
  std::memcpy(&out[kActB], &fb, 4);
  return out;
}

// ---------------------------------------------------------------------------------------
// Conv

struct ConvDims {
  uint64_t N = 0, C = 0, M = 0, group = 1, CG = 0, MG = 0, K = 0;
  Window win;
  bool has_bias = false;
};

Result<ConvDims> ConvShapes(const OpNode& node, const Attributes& at) {
  const Shape& x = node.inputs[0].shape;
  const Shape& w = node.inputs[1].shape;
  ConvDims d;
  if (x.size() < 3 || x.size() > 5 || w.size() != x.size()) {
    return Error{
        ErrorCode::kShape,
        node.Describe() + ": X " + ShapeToString(x) + " and W " + ShapeToString(w) +
            " must both be [N, C, D1..Dk] / [M, C/group, k1..kk] with 1 to 3 spatial axes"};
  }
  d.group = static_cast<uint64_t>(std::get<int64_t>(at.at("group")));
  d.N = x[0];
  d.C = x[1];
  d.M = w[0];
  d.CG = w[1];
  if (d.group < 1 || d.CG * d.group != d.C || d.M % d.group != 0) {
    return Error{ErrorCode::kShape,
                 node.Describe() + ": with group = " + std::to_string(d.group) + ", X's " +
                     std::to_string(d.C) + " channels and W " + ShapeToString(w) +
                     " do not fit (need C = W[1] * group and W[0] divisible by group)"};
  }
  d.MG = d.M / d.group;
  std::vector<uint64_t> kernel(w.begin() + 2, w.end());
  const auto& ks = Ints(at, "kernel_shape");
  if (!ks.empty() && (ks.size() != kernel.size() ||
                      !std::equal(ks.begin(), ks.end(), kernel.begin(), [](int64_t a, uint64_t b) {
                        return a >= 0 && uint64_t(a) == b;
                      }))) {
    return Error{ErrorCode::kShape,
                 node.Describe() + ": kernel_shape does not match W " + ShapeToString(w)};
  }
  ALKNET_ASSIGN_OR_RETURN(d.win, ForwardWindow(node, at, x, kernel, false));
  d.K = d.CG * d.win.kernel_size();
  d.has_bias = node.has_input(2);
  if (d.has_bias && node.inputs[2].shape != Shape{d.M}) {
    return Error{ErrorCode::kShape, node.Describe() + ": B " + ShapeToString(node.inputs[2].shape) +
                                        " must be [M] = [" + std::to_string(d.M) + "]"};
  }
  return d;
}

Shape ConvOutShape(const ConvDims& d) {
  Shape s{d.N, d.M};
  s.insert(s.end(), d.win.out.begin(), d.win.out.end());
  return s;
}

bool IsDepthwise(const ConvDims& d) { return d.CG == 1 && d.group > 1; }

bool IsPointwise(const ConvDims& d) {
  for (size_t i = 0; i < d.win.rank; ++i) {
    if (d.win.kernel[i] != 1 || d.win.stride[i] != 1 || d.win.pad_begin[i] != 0 ||
        d.win.pad_end[i] != 0)
      return false;
  }
  return true;
}

uint32_t Pow2AtLeast(uint64_t v, uint32_t cap) {
  uint32_t p = 1;
  while (p < v && p < cap) p *= 2;
  return p;
}

// The tiling of Conv's GEMM (general and 1x1 paths): a BM (channels) x BN (positions) block
// per workgroup of (BN / TN) x (BM / TM) invocations, TM x TN outputs each.
//   kDirect: no workgroup memory (CPU adapters; 4x4 per invocation, the block shrunk to the
//     problem: a 16-channel layer should not run 48 idle rows).
//   kStaged: conv/conv's one-stage workgroup-memory tiles, K 16 at a time, 4x4 per invocation
//     (64x64 blocks, or 32x32 when the grid is small).
//   kTiled: conv/conv_tiled, any BM x BN x BK : TM x TN, two stages (the MatMul tiled layout).
struct ConvTiling : GemmTile {
  enum class Kernel { kDirect, kStaged, kTiled } kernel = Kernel::kStaged;
};

ConvTiling Tiling(ConvTiling::Kernel kernel, const GemmTile& t) {
  ConvTiling c;
  static_cast<GemmTile&>(c) = t;
  c.kernel = kernel;
  return c;
}

ConvTiling Legacy(ConvTiling::Kernel kernel, uint32_t wx, uint32_t wy) {
  return Tiling(kernel, GemmTile{4 * wy, 4 * wx, 16, 4, 4});
}

bool ForcedConvVariant(const DeviceCaps& caps) {
  return !caps.conv_variant.empty() && caps.conv_variant != "auto";
}

// Conv's GEMM stages through workgroup memory: on GPUs, and wherever a tiling is forced
// (ALKNET_CONV_VARIANT; depthwise convs keep their own kernel).
bool StagedTiles(const ConvDims& d, const DeviceCaps& caps) {
  return caps.shared_memory_tiles || (ForcedConvVariant(caps) && !IsDepthwise(d));
}

// Workgroups of a tiling's grid over all batches and groups.
uint64_t ConvBlocks(const ConvDims& d, const ConvTiling& t) {
  return (d.win.out_size() + t.bn - 1) / t.bn * ((d.MG + t.bm - 1) / t.bm) * d.N * d.group;
}

// GPUs, large grids: the parametric kernel with 8x8 outputs per invocation (the MatMul sweep
// on the H200: 128x128x8:8x8 at 33 TFLOP/s against 27 for 64x64:4x4), BN 128 positions and BM
// the group's channels rounded up to a power of two in 32..128 (a 64-channel layer should not
// run 64 idle rows), BK 8 (16 KiB of workgroup memory at 128x128, WebGPU's minimum limit).
// Only where it still gives >= 128 workgroups (about one per SM of an H200), else nullopt.
std::optional<ConvTiling> BigConvTiling(const ConvDims& d, const DeviceCaps& caps) {
  if (IsDepthwise(d)) return std::nullopt;
  const uint32_t bm = std::max<uint32_t>(32, Pow2AtLeast(d.MG, 128));
  const ConvTiling t =
      Tiling(ConvTiling::Kernel::kTiled, GemmTile{bm, 128, 8, bm >= 64 ? 8u : 4u, 8});
  if (!GemmTileProblem(t, caps).empty() || ConvBlocks(d, t) < 128) return std::nullopt;
  return t;
}

// The tiling Conv's GEMM runs (ALKNET_CONV_VARIANT, DeviceCaps::conv_variant, or the automatic
// choice). A variant that is misspelled or does not fit the device is an error naming it.
Result<ConvTiling> ChooseConvTiling(const OpNode& node, const ConvDims& d, const DeviceCaps& caps) {
  using K = ConvTiling::Kernel;
  const std::string& v = caps.conv_variant;
  std::optional<ConvTiling> forced;
  if (v == "tiled") {
    forced = Legacy(K::kStaged, 16, 16);
  } else if (v == "tiled-small") {
    forced = Legacy(K::kStaged, 8, 8);
  } else if (std::optional<GemmTile> t = ParseGemmTile(v)) {
    if (std::string why = GemmTileProblem(*t, caps); !why.empty()) {
      return Error{ErrorCode::kInvalidArgument, node.Describe() + ": Conv variant '" + v +
                                                    "' (ALKNET_CONV_VARIANT) cannot run: " + why};
    }
    forced = Tiling(ConvTiling::Kernel::kTiled, *t);
  } else if (v != "auto" && !v.empty()) {
    return Error{ErrorCode::kInvalidArgument,
                 node.Describe() + ": unknown Conv variant '" + v +
                     "' (ALKNET_CONV_VARIANT): use auto, tiled, tiled-small or "
                     "tile:BMxBNxBK:TMxTN (e.g. tile:128x128x8:8x8)"};
  }
  if (forced && !IsDepthwise(d)) return *forced;
  if (caps.shared_memory_tiles) {
    if (caps.unmeasured_gpu_tilings) {
      if (std::optional<ConvTiling> big = BigConvTiling(d, caps)) return *big;
    }
    // Fewer than 128 blocks of 64 x 64 leave most of a large GPU idle (a batch-1 ResNet's
    // 7x7 stage has 8): quarter the blocks.
    const ConvTiling t64 = Legacy(K::kStaged, 16, 16);
    return ConvBlocks(d, t64) < 128 ? Legacy(K::kStaged, 8, 8) : t64;
  }
  const uint32_t ty = Pow2AtLeast((d.MG + 3) / 4, 16);
  const uint32_t tx = Pow2AtLeast((d.win.out_size() + 3) / 4, 256 / ty);
  return Legacy(K::kDirect, tx, ty);
}

// Taps k = (c, kz, ky, kx) of the group's GEMM index outside [k_begin, k_end) are left out
// (split-K partial sums).
std::vector<RefTensor> ConvReference(const ConvDims& d, const Activation& act,
                                     const std::vector<RefTensor>& in, const Shape& out_shape,
                                     uint64_t k_begin = 0, uint64_t k_end = UINT64_MAX) {
  const Window& w = d.win;
  RefTensor out{DType::kF32, out_shape, std::vector<double>(d.N * d.M * w.out_size())};
  const uint64_t isp = w.in_size(), ksp = w.kernel_size();
  size_t o = 0;
  for (uint64_t n = 0; n < d.N; ++n) {
    for (uint64_t m = 0; m < d.M; ++m) {
      const uint64_t g = m / d.MG;
      for (uint64_t oz = 0; oz < w.Out3(0); ++oz) {
        for (uint64_t oy = 0; oy < w.Out3(1); ++oy) {
          for (uint64_t ox = 0; ox < w.Out3(2); ++ox) {
            double s = d.has_bias ? in[2].data[m] : 0.0;
            for (uint64_t c = 0; c < d.CG; ++c) {
              const uint64_t xc = (n * d.C + g * d.CG + c) * isp;
              const uint64_t wc = (m * d.CG + c) * ksp;
              for (uint64_t kz = 0; kz < w.Kernel3(0); ++kz) {
                const int64_t z =
                    int64_t(oz) * w.Stride3(0) - w.Pad3(0) + int64_t(kz) * w.Dilation3(0);
                if (z < 0 || z >= int64_t(w.In3(0))) continue;
                for (uint64_t ky = 0; ky < w.Kernel3(1); ++ky) {
                  const int64_t y =
                      int64_t(oy) * w.Stride3(1) - w.Pad3(1) + int64_t(ky) * w.Dilation3(1);
                  if (y < 0 || y >= int64_t(w.In3(1))) continue;
                  for (uint64_t kx = 0; kx < w.Kernel3(2); ++kx) {
                    const int64_t xx =
                        int64_t(ox) * w.Stride3(2) - w.Pad3(2) + int64_t(kx) * w.Dilation3(2);
                    if (xx < 0 || xx >= int64_t(w.In3(2))) continue;
                    const uint64_t k = c * ksp + (kz * w.Kernel3(1) + ky) * w.Kernel3(2) + kx;
                    if (k < k_begin || k >= k_end) continue;
                    s += in[0].data[xc + (uint64_t(z) * w.In3(1) + uint64_t(y)) * w.In3(2) +
                                    uint64_t(xx)] *
                         in[1].data[wc + (kz * w.Kernel3(1) + ky) * w.Kernel3(2) + kx];
                  }
                }
              }
            }
            out.data[o++] = ApplyActivation(act, s);
          }
        }
      }
    }
  }
  return {std::move(out)};
}

// Split-K: the K range of one slice, a multiple of the 16-wide tile step.
uint64_t SplitChunk(uint64_t K, uint64_t split) {
  return (((K + split - 1) / split) + 15) / 16 * 16;
}

// CPU adapters run Conv through the shape-generic kernel (conv/direct, parameter block);
// GPUs keep the workgroup-memory tiles, specialised to the shape (docs/adr/0006), and so does
// a forced tiling anywhere.
bool UsesParamBlock(const ConvDims& d, const DeviceCaps& caps, uint64_t split) {
  return !StagedTiles(d, caps) && split == 1;
}

ConvParamBlock ConvParams(const ConvDims& d, const Activation& act) {
  ConvParamBlock b = WindowParams(d.N, d.C, d.M, d.CG, d.MG, d.group, d.win, act);
  const uint64_t per_wg = kDirectWg * (IsDepthwise(d) ? 4 : 2);
  b.v[kXBlocks] = int64_t((d.win.out_size() + per_wg - 1) / per_wg);
  return b;
}

// The template data of Conv (split = 1) and of its split-K partial sums (split > 1: K in
// chunks of KC, one per wg.z slice; no bias, no activation: alknet.SplitKSum adds those).
// `generic`: the record binds a parameter block (Conv does, alknet.ConvPartial does not).
Result<hbs::Value> ConvContext(const OpNode& node, const Attributes& at, const DeviceCaps& caps,
                               uint64_t split, bool generic = false) {
  ALKNET_ASSIGN_OR_RETURN(ConvDims d, ConvShapes(node, at));
  const uint64_t P = d.win.out_size();
  const bool depthwise = IsDepthwise(d), pointwise = !depthwise && IsPointwise(d);
  if (generic && UsesParamBlock(d, caps, split)) {
    // Only what selects the kernel: the shapes are in the parameter block.
    const Activation act = ActivationOf(at);
    ALKNET_TRY(CheckParams(node, ConvParams(d, act)));
    hbs::Object o;
    o.set("param_block", true);
    o.set("depthwise", depthwise);
    o.set("pointwise", pointwise);
    o.set("has_bias", d.has_bias);
    AddActivationContext(act, o, /*from_params=*/true);
    return hbs::Value(std::move(o));
  }
  ALKNET_ASSIGN_OR_RETURN(const ConvTiling t, ChooseConvTiling(node, d, caps));
  using K = ConvTiling::Kernel;
  hbs::Object o;
  o.set("param_block", false);
  o.set("N", d.N);
  o.set("C", d.C);
  o.set("M", d.M);
  o.set("CG", d.CG);
  o.set("MG", d.MG);
  o.set("group", d.group);
  o.set("K", d.K);
  o.set("P", P);
  o.set("total", d.N * d.M * ((P + 3) / 4));  // depthwise: four positions per invocation
  AddWindowContext(d.win, o);
  o.set("has_bias", d.has_bias && split == 1);
  o.set("depthwise", depthwise);
  o.set("pointwise", pointwise);
  o.set("shared_tiles", t.kernel == K::kStaged);
  o.set("tiled", !depthwise && t.kernel == K::kTiled);
  o.set("x_vec4", pointwise && P % 4 == 0);
  // W as vec4: the tiled paths' row loads and the direct 1x1 path's four-k steps; the
  // direct general path reads one tap at a time.
  o.set("w_vec4", !depthwise && d.K % 4 == 0 && (t.kernel != K::kDirect || pointwise));
  o.set("out_vec4", !depthwise && P % 4 == 0);
  o.set("TX", t.wx());
  o.set("TY", t.wy());
  o.set("TN", t.bn);
  o.set("TM", t.bm);
  if (t.kernel == K::kTiled) AddGemmTileContext(t, o);
  AddActivationContext(split == 1 ? ActivationOf(at) : Activation{}, o);
  o.set("split_k", split > 1);
  o.set("SPLIT", split);
  o.set("KC", SplitChunk(d.K, split));
  return hbs::Value(std::move(o));
}

DispatchPlan ConvDispatch(const OpNode& node, const ConvDims& d, const DeviceCaps& caps,
                          uint64_t split, bool generic = false) {
  DispatchPlan p;
  if (generic && UsesParamBlock(d, caps, split)) {
    // x: position blocks (the kernel loops past the limit), y: (group, 8-channel block) or the
    // channel (depthwise), z: batch.
    const ConvParamBlock b = ConvParams(d, Activation{});
    p.kind = DispatchPlan::Kind::kGrid;
    p.workgroup_size = {uint32_t(kDirectWg), 1, 1};
    p.groups = {std::min<uint64_t>(uint64_t(b.v[kXBlocks]), caps.max_workgroups_per_dimension),
                IsDepthwise(d) ? d.M : d.group * uint64_t(b.v[kMBlocks]), d.N};
    return p;
  }
  if (IsDepthwise(d)) {
    p.invocations = d.N * d.M * ((d.win.out_size() + 3) / 4);
    return p;
  }
  // A variant that cannot run fails in ConvContext with its message; any plan does until then.
  auto chosen = ChooseConvTiling(node, d, caps);
  const ConvTiling t = chosen.ok() ? *chosen : ConvTiling{};
  p.kind = DispatchPlan::Kind::kGrid;
  p.workgroup_size = {t.wx(), t.wy(), 1};
  p.groups = {(d.win.out_size() + t.bn - 1) / t.bn, (d.MG + t.bm - 1) / t.bm,
              d.N * d.group * split};
  return p;
}

// GPUs (workgroup-memory tiles): a GEMM of few output blocks but a long K (a batch-1 ResNet's
// 7x7 and 14x14 stages: 32-56 workgroups, K up to 4608) leaves most of the device idle and
// each workgroup walking all of K. Splitting K into slices of at least 256 gives about 256
// workgroups. 1 = no split (CPU adapters, depthwise, grids that already fill the device).
uint64_t SplitFor(const OpNode& node, const ConvDims& d, const DeviceCaps& caps) {
  if (!StagedTiles(d, caps) || IsDepthwise(d) || d.K < 512) return 1;
  const DispatchPlan p = ConvDispatch(node, d, caps, 1);
  const uint64_t blocks = p.groups[0] * p.groups[1] * p.groups[2];
  if (blocks >= 64) return 1;
  uint64_t split = std::min<uint64_t>((256 + blocks - 1) / blocks, d.K / 256);
  split = std::min<uint64_t>(split, 16);
  if (split <= 1) return 1;
  // Slices are whole 16-wide tile steps; the last one may be shorter.
  const uint64_t kc = SplitChunk(d.K, split);
  return (d.K + kc - 1) / kc;
}

std::vector<AttributeSpec> ConvAttributes() {
  std::vector<AttributeSpec> a = WindowAttributes();
  a.push_back({"group", AttrValue(int64_t{1}), false, {}});
  a.push_back({"alknet.activation", AttrValue(std::string()), false, &ValidateActivation});
  return a;
}

OpRecord ConvRecord() {
  OpRecord r;
  r.name = "Conv";
  r.opset_min = 1;
  r.family = "conv";
  r.shader = "conv/conv";
  r.contract = {.dtypes = {{DType::kF32}}, .contiguous = true};
  r.summary =
      "N-d convolution (1-D to 3-D): groups, dilations, strides, pads, auto_pad, optional bias";
  r.min_inputs = 2;
  r.max_inputs = 3;
  r.attributes = ConvAttributes();
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(ConvDims d, ConvShapes(node, at));
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, ConvOutShape(d)}};
  };
  r.context = [](const OpNode& node, const Attributes& at, const DeviceCaps& caps) {
    return ConvContext(node, at, caps, 1, /*generic=*/true);
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps& caps) {
    return ConvDispatch(node, *ConvShapes(node, at), caps, 1, /*generic=*/true);
  };
  r.params = [](const OpNode& node, const Attributes& at, const DeviceCaps& caps) {
    const ConvDims d = *ConvShapes(node, at);
    if (!UsesParamBlock(d, caps, 1)) return std::vector<uint32_t>{};
    return ParamWords(ConvParams(d, ActivationOf(at)));
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    ConvDims d = *ConvShapes(node, at);
    return ConvReference(d, ActivationOf(at), in, ConvOutShape(d));
  };
  r.specialize = [](const OpNode& node, const Attributes& at,
                    const DeviceCaps& caps) -> std::optional<Graph> {
    auto d = ConvShapes(node, at);
    if (!d.ok()) return std::nullopt;
    const uint64_t split = SplitFor(node, *d, caps);
    if (split <= 1) return std::nullopt;
    // alknet.ConvPartial: [split, N, M, spatial...] partial sums over K slices; then
    // alknet.SplitKSum adds them up with the bias and the activation.
    Graph g(static_cast<int>(node.inputs.size()));
    Attributes partial_at = at;
    partial_at.erase("alknet.activation");
    partial_at["alknet.split"] = static_cast<int64_t>(split);
    const int partial = g.Add("alknet.ConvPartial", {0, 1}, std::move(partial_at), 1);
    std::vector<int> sum_in{partial};
    if (d->has_bias) sum_in.push_back(2);
    g.outputs = {
        g.Add("alknet.SplitKSum", sum_in, {{"alknet.activation", at.at("alknet.activation")}}, 1)};
    return g;
  };
  // Sums of up to a few hundred products of values in [-1, 1].
  r.hints = {-1, 1, 2e-5, 1e-4};
  auto ints = [](std::vector<int64_t> v) { return AttrValue(std::move(v)); };
  r.test_cases = {
      {{Shape{2, 3, 9, 11}, Shape{5, 3, 3, 3}, Shape{5}},
       {{"pads", ints({1, 0, 2, 1})},
        {"strides", ints({2, 1})},
        {"alknet.activation", AttrValue(std::string("Relu"))}},
       {},
       "2-D, asymmetric pads, stride, bias, fused Relu"},
      {{Shape{1, 4, 17}, Shape{6, 2, 3}, std::nullopt},
       {{"group", AttrValue(int64_t{2})},
        {"dilations", ints({2})},
        {"auto_pad", AttrValue(std::string("SAME_LOWER"))},
        {"alknet.activation", AttrValue(std::string("LeakyRelu:0.1"))}},
       {},
       "1-D, groups, dilation, SAME_LOWER"},
      {{Shape{1, 6, 7, 9}, Shape{12, 1, 3, 3}, Shape{12}},
       {{"group", AttrValue(int64_t{6})},
        {"pads", ints({1, 1, 1, 1})},
        {"strides", ints({2, 2})},
        {"alknet.activation", AttrValue(std::string("Clip:0:0.5"))}},
       {},
       "depthwise, multiplier 2, Clip"},
      // 2 x 32 groups of 4 x 256: enough blocks for the 64 x 64 tiles at little cost.
      {{Shape{2, 64, 16, 16}, Shape{128, 2, 1, 1}, Shape{128}},
       {{"group", AttrValue(int64_t{32})},
        {"alknet.activation", AttrValue(std::string("HardSwish"))}},
       {},
       "1x1 pointwise, 32 groups (64 x 64 blocks), HardSwish"},
      {{Shape{1, 2, 5, 4, 6}, Shape{3, 2, 2, 3, 2}, Shape{3}},
       {{"auto_pad", AttrValue(std::string("SAME_UPPER"))},
        {"strides", ints({1, 2, 1})},
        {"alknet.activation", AttrValue(std::string("Sigmoid"))}},
       {},
       "3-D, SAME_UPPER, Sigmoid"},
      // K = 576 over a 7x7 output: with workgroup-memory tiles (the GPU variant of the
      // test) few blocks, so Conv runs split along K (alknet.ConvPartial + SplitKSum).
      {{Shape{1, 64, 7, 7}, Shape{40, 64, 3, 3}, Shape{40}},
       {{"pads", ints({1, 1, 1, 1})}, {"alknet.activation", AttrValue(std::string("Relu"))}},
       {},
       "3x3, K = 576 on 7x7 (split along K on GPUs), bias, Relu"},
  };
  return r;
}

// ---------------------------------------------------------------------------------------
// ConvTranspose: y[n, m, o] = B[m] + sum x[n, c, i] W[c, m, k] over o = i * s + k * d - pad.

struct ConvTDims {
  uint64_t N = 0, C = 0, M = 0, group = 1, CG = 0, MG = 0;
  Window win;  // in: X's spatial extent, out: Y's
  bool has_bias = false;
};

Result<ConvTDims> ConvTShapes(const OpNode& node, const Attributes& at) {
  const Shape& x = node.inputs[0].shape;
  const Shape& w = node.inputs[1].shape;
  if (x.size() < 3 || x.size() > 5 || w.size() != x.size()) {
    return Error{ErrorCode::kShape,
                 node.Describe() + ": X " + ShapeToString(x) + " and W " + ShapeToString(w) +
                     " must be [N, C, D1..Dk] / [C, M/group, k1..kk] with 1 to 3 spatial axes"};
  }
  ConvTDims d;
  d.group = static_cast<uint64_t>(std::get<int64_t>(at.at("group")));
  d.N = x[0];
  d.C = x[1];
  if (d.group < 1 || w[0] != d.C || d.C % d.group != 0) {
    return Error{ErrorCode::kShape, node.Describe() + ": W " + ShapeToString(w) +
                                        " must have W[0] = C = " + std::to_string(d.C) +
                                        ", divisible by group = " + std::to_string(d.group)};
  }
  d.CG = d.C / d.group;
  d.MG = w[1];
  d.M = d.MG * d.group;
  Window& win = d.win;
  win.rank = x.size() - 2;
  const size_t k = win.rank;
  win.in.assign(x.begin() + 2, x.end());
  win.kernel.assign(w.begin() + 2, w.end());
  const auto& ks = Ints(at, "kernel_shape");
  if (!ks.empty() && (ks.size() != k || !std::equal(ks.begin(), ks.end(), win.kernel.begin(),
                                                    [](int64_t a, uint64_t b) {
                                                      return a >= 0 && uint64_t(a) == b;
                                                    }))) {
    return Error{ErrorCode::kShape,
                 node.Describe() + ": kernel_shape does not match W " + ShapeToString(w)};
  }
  auto list = [&](const char* name, int64_t fill, size_t n, std::vector<int64_t>* out) -> Status {
    const auto& v = Ints(at, name);
    if (v.empty()) {
      out->assign(n, fill);
      return Ok{};
    }
    if (v.size() != n) {
      return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": attribute '" + name +
                                                     "' has " + std::to_string(v.size()) +
                                                     " values; expected " + std::to_string(n)};
    }
    *out = v;
    return Ok{};
  };
  std::vector<int64_t> pads, out_pad;
  ALKNET_TRY(list("strides", 1, k, &win.stride));
  ALKNET_TRY(list("dilations", 1, k, &win.dilation));
  ALKNET_TRY(list("pads", 0, 2 * k, &pads));
  ALKNET_TRY(list("output_padding", 0, k, &out_pad));
  const auto& out_shape = Ints(at, "output_shape");
  if (!out_shape.empty() && out_shape.size() != k && out_shape.size() != k + 2) {
    return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": output_shape has " +
                                                   std::to_string(out_shape.size()) +
                                                   " values; expected " + std::to_string(k) +
                                                   " (spatial) or " + std::to_string(k + 2)};
  }
  const std::string& auto_pad = std::get<std::string>(at.at("auto_pad"));
  win.pad_begin.assign(k, 0);
  win.pad_end.assign(k, 0);
  win.out.assign(k, 0);
  for (size_t i = 0; i < k; ++i) {
    const int64_t s = win.stride[i], dl = win.dilation[i];
    if (s < 1 || dl < 1 || win.kernel[i] < 1 || pads[i] < 0 || pads[i + k] < 0 || out_pad[i] < 0) {
      return Error{ErrorCode::kInvalidAttribute,
                   node.Describe() +
                       ": strides and dilations must be >= 1, pads and "
                       "output_padding >= 0 (axis " +
                       std::to_string(i) + ")"};
    }
    const int64_t in = static_cast<int64_t>(win.in[i]);
    const int64_t span = (static_cast<int64_t>(win.kernel[i]) - 1) * dl + 1;
    const int64_t full = s * (in - 1) + out_pad[i] + span;  // output extent before padding
    int64_t out = 0;
    const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
    if (!out_shape.empty() || same) {
      // Pads follow from the requested extent (output_shape, or in * stride for SAME);
      // SAME_UPPER puts the odd one at the end, as the ONNX backend tests expect.
      out = !out_shape.empty() ? out_shape[out_shape.size() - k + i] : in * s;
      const int64_t total = std::max<int64_t>(0, full - out);
      const bool upper = auto_pad != "SAME_LOWER";
      win.pad_begin[i] = upper ? total / 2 : total - total / 2;
      win.pad_end[i] = total - win.pad_begin[i];
    } else {
      if (auto_pad == "NOTSET") {
        win.pad_begin[i] = pads[i];
        win.pad_end[i] = pads[i + k];
      }
      out = full - win.pad_begin[i] - win.pad_end[i];
    }
    if (out < 1) {
      return Error{ErrorCode::kShape, node.Describe() + ": the output extent on spatial axis " +
                                          std::to_string(i) + " would be " + std::to_string(out)};
    }
    win.out[i] = static_cast<uint64_t>(out);
  }
  d.has_bias = node.has_input(2);
  if (d.has_bias && node.inputs[2].shape != Shape{d.M}) {
    return Error{ErrorCode::kShape, node.Describe() + ": B " + ShapeToString(node.inputs[2].shape) +
                                        " must be [M] = [" + std::to_string(d.M) + "]"};
  }
  return d;
}

// The output split by stride phase (conv/conv_transpose.wgsl.hbs): QD x QH x QW positions
// per phase, SD SH SW phases.
ConvParamBlock ConvTParams(const ConvTDims& d, const Activation& act) {
  ConvParamBlock b = WindowParams(d.N, d.C, d.M, d.CG, d.MG, d.group, d.win, act);
  uint64_t q[3], phases = 1;
  for (int a = 0; a < 3; ++a) {
    const uint64_t s = uint64_t(d.win.Stride3(a));
    q[a] = (d.win.Out3(a) + s - 1) / s;
    // Saturates past i32 (CheckParams refuses it) rather than wrapping.
    phases = s > uint64_t(INT32_MAX) || phases > uint64_t(INT32_MAX) ? uint64_t(INT32_MAX) + 1
                                                                     : phases * s;
  }
  b.v[kPhases] = int64_t(phases);
  b.v[kQ] = int64_t(q[0] * q[1] * q[2]);
  b.v[kQH] = int64_t(q[1]);
  b.v[kQW] = int64_t(q[2]);
  b.v[kXBlocks] = int64_t((q[0] * q[1] * q[2] + 2 * kGenericWg - 1) / (2 * kGenericWg));
  return b;
}

Shape ConvTOutShape(const ConvTDims& d) {
  Shape s{d.N, d.M};
  s.insert(s.end(), d.win.out.begin(), d.win.out.end());
  return s;
}

OpRecord ConvTransposeRecord() {
  OpRecord r;
  r.name = "ConvTranspose";
  r.opset_min = 1;
  r.family = "conv";
  r.shader = "conv/conv_transpose";
  r.contract = {.dtypes = {{DType::kF32}}, .contiguous = true};
  r.summary =
      "transposed N-d convolution (1-D to 3-D): groups, dilations, strides, pads, output_padding, "
      "output_shape";
  r.min_inputs = 2;
  r.max_inputs = 3;
  r.attributes = ConvAttributes();
  r.attributes.push_back({"output_padding", AttrValue(std::vector<int64_t>{}), false, {}});
  r.attributes.push_back({"output_shape", AttrValue(std::vector<int64_t>{}), false, {}});
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(ConvTDims d, ConvTShapes(node, at));
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, ConvTOutShape(d)}};
  };
  // Shape-generic on every device (conv/conv_transpose.wgsl.hbs): only the bias and the fused
  // activation select the pipeline.
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps&) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(ConvTDims d, ConvTShapes(node, at));
    const Activation act = ActivationOf(at);
    ALKNET_TRY(CheckParams(node, ConvTParams(d, act)));
    hbs::Object o;
    o.set("has_bias", d.has_bias);
    AddActivationContext(act, o, /*from_params=*/true);
    return hbs::Value(std::move(o));
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps& caps) {
    ConvTDims d = *ConvTShapes(node, at);
    const ConvParamBlock b = ConvTParams(d, Activation{});
    DispatchPlan p;
    p.kind = DispatchPlan::Kind::kGrid;
    p.workgroup_size = {uint32_t(kGenericWg), 1, 1};
    p.groups = {std::min<uint64_t>(uint64_t(b.v[kXBlocks]), caps.max_workgroups_per_dimension),
                d.group * uint64_t(b.v[kMBlocks]), d.N * uint64_t(b.v[kPhases])};
    return p;
  };
  r.params = [](const OpNode& node, const Attributes& at, const DeviceCaps&) {
    return ParamWords(ConvTParams(*ConvTShapes(node, at), ActivationOf(at)));
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    ConvTDims d = *ConvTShapes(node, at);
    const Activation act = ActivationOf(at);
    const Window& w = d.win;
    RefTensor out{DType::kF32, ConvTOutShape(d),
                  std::vector<double>(d.N * d.M * w.out_size(), 0.0)};
    const uint64_t isp = w.in_size(), osp = w.out_size(), ksp = w.kernel_size();
    // Scatter form (the definition), independent of the kernel's gather form.
    for (uint64_t n = 0; n < d.N; ++n) {
      for (uint64_t c = 0; c < d.C; ++c) {
        const uint64_t g = c / d.CG;
        for (uint64_t i = 0; i < isp; ++i) {
          const uint64_t iz = i / (w.In3(1) * w.In3(2)), iy = (i / w.In3(2)) % w.In3(1),
                         ix = i % w.In3(2);
          const double xv = in[0].data[(n * d.C + c) * isp + i];
          for (uint64_t ml = 0; ml < d.MG; ++ml) {
            const uint64_t m = g * d.MG + ml;
            for (uint64_t k = 0; k < ksp; ++k) {
              const uint64_t kz = k / (w.Kernel3(1) * w.Kernel3(2)),
                             ky = (k / w.Kernel3(2)) % w.Kernel3(1), kx = k % w.Kernel3(2);
              const int64_t oz =
                  int64_t(iz) * w.Stride3(0) + int64_t(kz) * w.Dilation3(0) - w.Pad3(0);
              const int64_t oy =
                  int64_t(iy) * w.Stride3(1) + int64_t(ky) * w.Dilation3(1) - w.Pad3(1);
              const int64_t ox =
                  int64_t(ix) * w.Stride3(2) + int64_t(kx) * w.Dilation3(2) - w.Pad3(2);
              if (oz < 0 || oy < 0 || ox < 0 || oz >= int64_t(w.Out3(0)) ||
                  oy >= int64_t(w.Out3(1)) || ox >= int64_t(w.Out3(2))) {
                continue;
              }
              out.data[(n * d.M + m) * osp + (uint64_t(oz) * w.Out3(1) + uint64_t(oy)) * w.Out3(2) +
                       uint64_t(ox)] += xv * in[1].data[(c * d.MG + ml) * ksp + k];
            }
          }
        }
      }
    }
    for (uint64_t n = 0; n < d.N; ++n) {
      for (uint64_t m = 0; m < d.M; ++m) {
        for (uint64_t o = 0; o < osp; ++o) {
          double& v = out.data[(n * d.M + m) * osp + o];
          v = ApplyActivation(act, v + (d.has_bias ? in[2].data[m] : 0.0));
        }
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-1, 1, 2e-5, 1e-4};
  auto ints = [](std::vector<int64_t> v) { return AttrValue(std::move(v)); };
  r.test_cases = {
      {{Shape{1, 2, 4, 5}, Shape{2, 3, 3, 3}, Shape{3}},
       {{"strides", ints({3, 2})}, {"pads", ints({1, 2, 0, 1})}, {"output_padding", ints({1, 1})}},
       {},
       "2-D, strides, pads, output_padding, bias"},
      {{Shape{2, 4, 6}, Shape{4, 2, 3}, std::nullopt},
       {{"group", AttrValue(int64_t{2})},
        {"dilations", ints({2})},
        {"strides", ints({2})},
        {"output_shape", ints({14})},
        {"alknet.activation", AttrValue(std::string("Relu"))}},
       {},
       "1-D, groups, dilation, output_shape, Relu"},
      {{Shape{1, 1, 2, 3, 3}, Shape{1, 2, 2, 2, 3}, std::nullopt},
       {{"auto_pad", AttrValue(std::string("SAME_UPPER"))}, {"strides", ints({2, 1, 2})}},
       {},
       "3-D, SAME_UPPER"},
  };
  return r;
}

}  // namespace

// alknet.ConvPartial: Conv's GEMM over one K slice per leading index s (no bias, no
// activation): out[s, n, m, p] = sum over k in [s KC, (s + 1) KC) of W[m, k] col[k, p].
OpRecord ConvPartialRecord() {
  OpRecord r;
  r.name = "alknet.ConvPartial";
  r.family = "internal";
  r.shader = "conv/conv";
  r.contract = {.dtypes = {{DType::kF32}}, .contiguous = true};
  r.summary = "split-K partial sums of Conv over K slices (Conv's specialization for GPUs)";
  r.min_inputs = 2;
  r.max_inputs = 2;
  r.attributes = ConvAttributes();
  r.attributes.pop_back();  // no alknet.activation: SplitKSum applies it
  r.attributes.push_back({"alknet.split", AttrValue(int64_t{2}), false, [](const AttrValue& v) {
                            const int64_t n = std::get<int64_t>(v);
                            return n >= 1 && n <= 64 ? std::string() : std::string("must be 1..64");
                          }});
  auto split_of = [](const Attributes& at) {
    return static_cast<uint64_t>(std::get<int64_t>(at.at("alknet.split")));
  };
  auto with_act = [](Attributes at) {
    at.erase("alknet.split");
    at["alknet.activation"] = std::string();
    return at;
  };
  r.infer = [split_of](const OpNode& node,
                       const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(ConvDims d, ConvShapes(node, at));
    if (IsDepthwise(d)) {
      return Error{ErrorCode::kUnsupported,
                   node.Describe() + ": depthwise convolutions are not split along K"};
    }
    Shape out = ConvOutShape(d);
    out.insert(out.begin(), split_of(at));
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, out}};
  };
  r.context = [split_of, with_act](const OpNode& node, const Attributes& at,
                                   const DeviceCaps& caps) {
    return ConvContext(node, with_act(at), caps, split_of(at));
  };
  r.dispatch = [split_of, with_act](const OpNode& node, const Attributes& at,
                                    const DeviceCaps& caps) {
    return ConvDispatch(node, *ConvShapes(node, with_act(at)), caps, split_of(at));
  };
  r.reference = [split_of](const OpNode& node, const Attributes& at,
                           const std::vector<RefTensor>& in) {
    ConvDims d = *ConvShapes(node, at);
    const uint64_t split = split_of(at), kc = SplitChunk(d.K, split);
    const Shape one = ConvOutShape(d);
    RefTensor out{DType::kF32, {}, {}};
    out.shape = one;
    out.shape.insert(out.shape.begin(), split);
    for (uint64_t s = 0; s < split; ++s) {
      auto part = ConvReference(d, Activation{}, in, one, s * kc, (s + 1) * kc);
      out.data.insert(out.data.end(), part[0].data.begin(), part[0].data.end());
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-1, 1, 2e-5, 1e-4};
  auto ints = [](std::vector<int64_t> v) { return AttrValue(std::move(v)); };
  r.test_cases = {
      {{Shape{1, 40, 7, 7}, Shape{24, 40, 3, 3}},
       {{"pads", ints({1, 1, 1, 1})}, {"alknet.split", AttrValue(int64_t{3})}},
       {},
       "3x3, K = 360 in 3 slices"},
      {{Shape{2, 96, 5, 5}, Shape{16, 48, 1, 1}},
       {{"group", AttrValue(int64_t{2})}, {"alknet.split", AttrValue(int64_t{4})}},
       {},
       "1x1, 2 groups, 4 slices"},
  };
  return r;
}

// alknet.SplitKSum: y[n, m, p] = act(sum over s of partial[s, n, m, p] + B[m]).
OpRecord SplitKSumRecord() {
  OpRecord r;
  r.name = "alknet.SplitKSum";
  r.family = "internal";
  r.shader = "conv/splitk_sum";
  r.contract = {.dtypes = {{DType::kF32}}, .contiguous = true};
  r.summary = "sums split-K partials, adds the bias and applies the fused activation";
  r.min_inputs = 1;
  r.max_inputs = 2;
  r.attributes = {{"alknet.activation", AttrValue(std::string()), false, &ValidateActivation}};
  r.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    const Shape& in = node.inputs[0].shape;
    if (in.size() < 3) {
      return Error{ErrorCode::kShape, node.Describe() + ": partials must be [S, N, M, ...]"};
    }
    if (node.has_input(1) && node.inputs[1].shape != Shape{in[2]}) {
      return Error{ErrorCode::kShape,
                   node.Describe() + ": B must be [M] = [" + std::to_string(in[2]) + "]"};
    }
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, Shape(in.begin() + 1, in.end())}};
  };
  auto dims = [](const OpNode& node) {
    const Shape& in = node.inputs[0].shape;
    uint64_t sp = 1;
    for (size_t i = 3; i < in.size(); ++i) sp *= in[i];
    const uint64_t total = in[1] * in[2] * sp;
    return std::array<uint64_t, 4>{in[0], in[2], sp, total};
  };
  r.context = [dims](const OpNode& node, const Attributes& at,
                     const DeviceCaps&) -> Result<hbs::Value> {
    const auto [S, M, SP, total] = dims(node);
    hbs::Object o;
    o.set("S", S);
    o.set("M", M);
    o.set("SP", SP);
    o.set("total", total);
    o.set("has_bias", node.has_input(1));
    AddActivationContext(ActivationOf(at), o);
    return hbs::Value(std::move(o));
  };
  r.dispatch = [dims](const OpNode& node, const Attributes&, const DeviceCaps&) {
    DispatchPlan p;
    p.invocations = dims(node)[3];
    return p;
  };
  r.reference = [dims](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const auto [S, M, SP, total] = dims(node);
    const Activation act = ActivationOf(at);
    RefTensor out{DType::kF32, Shape(in[0].shape.begin() + 1, in[0].shape.end()),
                  std::vector<double>(total)};
    for (uint64_t i = 0; i < total; ++i) {
      double v = node.has_input(1) ? in[1].data[(i / SP) % M] : 0.0;
      for (uint64_t s = 0; s < S; ++s) v += in[0].data[s * total + i];
      out.data[i] = ApplyActivation(act, v);
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-1, 1, 1e-5, 1e-5};
  r.test_cases = {
      {{Shape{3, 2, 5, 4, 3}, Shape{5}},
       {{"alknet.activation", AttrValue(std::string("Relu"))}},
       {},
       "3 slices, bias, Relu"},
      {{Shape{4, 1, 7, 9}, std::nullopt},
       {{"alknet.activation", AttrValue(std::string("Clip:0:0.5"))}},
       {},
       "1-D, Clip"},
  };
  return r;
}

void AddConvOps(OpTable& table) {
  table.Add(ConvRecord());
  table.Add(ConvPartialRecord());
  table.Add(SplitKSumRecord());
  table.Add(ConvTransposeRecord());
}

}  // namespace alknet::compute::ops
