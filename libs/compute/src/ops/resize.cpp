// Resize (opsets 10, 11-12, 13-17, 18+) and the deprecated Upsample (7-9): nearest (every
// nearest_mode), linear and cubic interpolation, one dimension at a time. The host computes,
// per dimension and output coordinate, which input coordinates contribute with what weight
// (the ONNX coordinate transform and rounding, in float64); the kernel
// (shaders/resize/resize) sums over those taps. So rounding ties (round_prefer_floor at
// x.5) are decided once, identically for the device and the reference. GridSample samples at
// arbitrary normalised points (shaders/resize/gridsample); RoiAlign samples bins of regions of
// interest bilinearly (shaders/resize/roialign).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops/elementwise.h"
#include "ops/families.h"
#include "ops/movement.h"
#include "ops/shape_params.h"

namespace alknet::compute::ops {

namespace {

using Ints = std::vector<int64_t>;

struct ResizePlan {
  std::string mode = "nearest";
  std::string transform = "half_pixel";
  std::string nearest_mode = "round_prefer_floor";  // or "simple" (opsets < 11)
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0;
  std::vector<double> scales;  // per dimension
  std::vector<double> roi;     // starts then ends, per dimension
  Shape out;
};

// One dimension's taps: `k` per output coordinate; index -1 marks extrapolation.
struct Taps {
  uint32_t k = 1;
  std::vector<int32_t> index;
  std::vector<double> weight;
};

double CubicWeight(double d, double a) {
  d = std::fabs(d);
  if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2) return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

// x in the output -> x in the input (ONNX Resize, coordinate_transformation_mode).
// The resized length is in_len * scale, unrounded (as the ONNX reference and its expected
// outputs have it; with sizes given the two agree).
double OriginalCoordinate(const ResizePlan& p, double x, uint64_t in_len, double scale,
                          double roi_start, double roi_end) {
  const std::string& t = p.transform;
  const double resized = static_cast<double>(in_len) * scale;
  if (t == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (t == "pytorch_half_pixel") return resized > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  if (t == "align_corners")
    return resized == 1 ? 0.0 : x * static_cast<double>(in_len - 1) / (resized - 1);
  if (t == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  if (t == "tf_crop_and_resize") {
    const double span = static_cast<double>(in_len) - 1;
    return resized > 1 ? roi_start * span + x * (roi_end - roi_start) * span / (resized - 1)
                       : 0.5 * (roi_start + roi_end) * span;
  }
  return x / scale;  // asymmetric
}

int64_t NearestIndex(const ResizePlan& p, double x, double scale) {
  const std::string& m = p.nearest_mode;
  if (m == "simple") return static_cast<int64_t>(scale < 1 ? std::ceil(x) : std::floor(x));
  if (m == "floor") return static_cast<int64_t>(std::floor(x));
  if (m == "ceil") return static_cast<int64_t>(std::ceil(x));
  const bool half = x == std::floor(x) + 0.5;
  if (half) return static_cast<int64_t>(m == "round_prefer_ceil" ? std::ceil(x) : std::floor(x));
  return static_cast<int64_t>(std::round(x));
}

Taps TapsOf(const ResizePlan& p, size_t d, uint64_t in_len) {
  const uint64_t out_len = p.out[d];
  const double scale = p.scales[d];
  const bool crop = p.transform == "tf_crop_and_resize";
  Taps t;
  const int64_t last = static_cast<int64_t>(in_len) - 1;
  auto clamp = [&](int64_t i) {
    return static_cast<int32_t>(std::clamp<int64_t>(i, 0, std::max<int64_t>(last, 0)));
  };
  if (!crop && in_len == out_len && scale == 1.0) {  // the identity, whatever the mode
    for (uint64_t x = 0; x < out_len; ++x) {
      t.index.push_back(static_cast<int32_t>(x));
      t.weight.push_back(1.0);
    }
    return t;
  }
  t.k = p.mode == "nearest" ? 1 : p.mode == "linear" ? 2 : 4;
  for (uint64_t x = 0; x < out_len; ++x) {
    const double xo = OriginalCoordinate(p, static_cast<double>(x), in_len, scale, p.roi[d],
                                         p.roi[p.out.size() + d]);
    if (crop && (xo < 0 || xo > static_cast<double>(last))) {
      for (uint32_t k = 0; k < t.k; ++k) {
        t.index.push_back(-1);
        t.weight.push_back(0);
      }
      continue;
    }
    if (t.k == 1) {
      t.index.push_back(clamp(NearestIndex(p, xo, scale)));
      t.weight.push_back(1.0);
      continue;
    }
    const double f = std::floor(xo);
    const double r = xo - f;
    const int64_t i0 = static_cast<int64_t>(f);
    if (t.k == 2) {
      t.index.insert(t.index.end(), {clamp(i0), clamp(i0 + 1)});
      t.weight.insert(t.weight.end(), {1 - r, r});
      continue;
    }
    double w[4] = {CubicWeight(1 + r, p.cubic_a), CubicWeight(r, p.cubic_a),
                   CubicWeight(1 - r, p.cubic_a), CubicWeight(2 - r, p.cubic_a)};
    double sum = 0;
    for (int k = 0; k < 4; ++k) {
      const int64_t i = i0 - 1 + k;
      if (p.exclude_outside && (i < 0 || i > last)) w[k] = 0;
      sum += w[k];
    }
    for (int k = 0; k < 4; ++k) {
      t.index.push_back(clamp(i0 - 1 + k));
      t.weight.push_back(p.exclude_outside && sum != 0 ? w[k] / sum : w[k]);
    }
  }
  return t;
}

// The reference: every output element is the weighted sum over its taps' combinations.
RefTensor ApplyTaps(const RefTensor& in, const Shape& out, const std::vector<Taps>& taps,
                    double extrapolation) {
  const Shape st = ContiguousStridesOf(in.shape);
  uint64_t n = 1;
  for (uint64_t d : out) n *= d;
  RefTensor o{in.dtype, out, {}};
  std::vector<uint64_t> c(out.size(), 0);
  for (uint64_t i = 0; i < n; ++i) {
    bool outside = false;
    for (size_t d = 0; d < out.size(); ++d) outside |= taps[d].index[c[d] * taps[d].k] < 0;
    double acc = 0;
    if (outside) {
      acc = extrapolation;
    } else {
      uint64_t combos = 1;
      for (const Taps& t : taps) combos *= t.k;
      for (uint64_t m = 0; m < combos; ++m) {
        uint64_t mm = m, off = 0;
        double w = 1;
        for (size_t d = out.size(); d-- > 0;) {
          const uint64_t e = c[d] * taps[d].k + mm % taps[d].k;
          mm /= taps[d].k;
          off += static_cast<uint64_t>(taps[d].index[e]) * st[d];
          w *= taps[d].weight[e];
        }
        acc += w * in.data[off];
      }
    }
    o.data.push_back(o.dtype == DType::kI32 || o.dtype == DType::kU32 ? WrapInt(acc, o.dtype)
                                                                      : acc);
    for (size_t d = out.size(); d-- > 0;) {
      if (++c[d] < out[d]) break;
      c[d] = 0;
    }
  }
  return o;
}

std::string StrAttr(const Attributes& at, const char* name, const char* fallback) {
  auto it = at.find(name);
  return it == at.end() ? fallback : std::get<std::string>(it->second);
}

// Everything the ONNX node says, for any opset: scales or sizes, the modes, the roi.
Result<ResizePlan> PlanOf(const OpNode& node, const Attributes& at) {
  const Shape& in = node.inputs[0].shape;
  const size_t rank = in.size();
  ResizePlan p;
  p.mode = StrAttr(at, "mode", "nearest");
  if (p.mode == "bilinear") p.mode = "linear";  // Upsample-7's name for it
  std::vector<double> scales;
  Ints sizes;
  if (node.op_type == "Upsample" || node.opset < 11) {
    p.transform = "asymmetric";
    p.nearest_mode = "simple";
    if (node.op_type == "Upsample" && node.opset < 9) {
      scales = std::get<std::vector<double>>(at.at("scales"));
    } else {
      scales = HostValues(node, 1);
    }
    if (p.mode == "cubic") {
      return Error{ErrorCode::kInvalidAttribute,
                   node.Describe() + ": mode cubic needs opset 11 (Resize)"};
    }
  } else {
    p.transform = StrAttr(at, "coordinate_transformation_mode", "half_pixel");
    p.nearest_mode = StrAttr(at, "nearest_mode", "round_prefer_floor");
    p.cubic_a = std::get<double>(at.at("cubic_coeff_a"));
    p.exclude_outside = std::get<int64_t>(at.at("exclude_outside")) != 0;
    p.extrapolation = std::get<double>(at.at("extrapolation_value"));
    if (node.has_input(1)) p.roi = HostValues(node, 1);
    if (node.has_input(2)) scales = HostValues(node, 2);
    if (node.has_input(3)) {
      ALKNET_ASSIGN_OR_RETURN(sizes, HostInts(node, 3, "sizes"));
    }
    if (at.count("antialias") && std::get<int64_t>(at.at("antialias")) != 0) {
      return Error{ErrorCode::kUnsupported, node.Describe() + ": antialias=1 is not implemented"};
    }
  }
  if (!scales.empty() && !sizes.empty()) {
    return Error{ErrorCode::kInvalidArgument, node.Describe() + ": give scales or sizes, not both"};
  }
  if (scales.empty() && sizes.empty()) {
    return Error{ErrorCode::kInvalidArgument,
                 node.Describe() + ": one of scales and sizes is required"};
  }
  // Opset 18's axes: the given scales/sizes/roi cover those dimensions, the rest stay as is.
  Ints axes;
  if (at.count("axes")) {
    for (int64_t a : std::get<Ints>(at.at("axes"))) {
      ALKNET_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(node, a, rank, "axis"));
      axes.push_back(ax);
    }
  } else {
    for (size_t d = 0; d < rank; ++d) axes.push_back(static_cast<int64_t>(d));
  }
  const size_t given = scales.empty() ? sizes.size() : scales.size();
  if (given != axes.size()) {
    return Error{ErrorCode::kShape, node.Describe() + ": " + (scales.empty() ? "sizes" : "scales") +
                                        " has " + std::to_string(given) + " entries for " +
                                        std::to_string(axes.size()) + " axes"};
  }
  std::vector<double> roi(2 * rank);
  for (size_t d = 0; d < rank; ++d) roi[rank + d] = 1.0;
  if (p.transform == "tf_crop_and_resize") {
    if (p.roi.size() != 2 * axes.size()) {
      return Error{ErrorCode::kShape, node.Describe() + ": tf_crop_and_resize needs roi with " +
                                          std::to_string(2 * axes.size()) + " values"};
    }
    for (size_t i = 0; i < axes.size(); ++i) {
      roi[axes[i]] = p.roi[i];
      roi[rank + axes[i]] = p.roi[axes.size() + i];
    }
  }
  p.roi = roi;
  p.scales.assign(rank, 1.0);
  p.out = in;
  if (!scales.empty()) {
    for (size_t i = 0; i < axes.size(); ++i) {
      const double s = ToF32(scales[i]);
      if (!(s > 0) || !std::isfinite(s))
        return Error{ErrorCode::kInvalidArgument, node.Describe() + ": scales must be positive"};
      p.scales[axes[i]] = s;
      p.out[axes[i]] = static_cast<uint64_t>(std::floor(static_cast<double>(in[axes[i]]) * s));
    }
  } else {
    const std::string policy = StrAttr(at, "keep_aspect_ratio_policy", "stretch");
    double common = policy == "not_larger" ? INFINITY : 0;
    for (size_t i = 0; i < axes.size(); ++i) {
      if (sizes[i] < 0) return Error{ErrorCode::kShape, node.Describe() + ": negative size"};
      const double s = static_cast<double>(sizes[i]) / static_cast<double>(in[axes[i]]);
      common = policy == "not_larger" ? std::min(common, s) : std::max(common, s);
      p.scales[axes[i]] = s;
      p.out[axes[i]] = static_cast<uint64_t>(sizes[i]);
    }
    if (policy != "stretch") {
      for (int64_t a : axes) {
        p.scales[a] = common;
        p.out[a] = static_cast<uint64_t>(std::floor(static_cast<double>(in[a]) * common + 0.5));
      }
    }
  }
  if (p.mode != "nearest" && node.inputs[0].dtype != DType::kF32 &&
      node.inputs[0].dtype != DType::kF16) {
    return Error{ErrorCode::kUnsupported,
                 node.Describe() + ": " + p.mode + " interpolation needs f32 or f16 data"};
  }
  return p;
}

struct TapTables {
  std::vector<Taps> dims;
  RefTensor index{DType::kI32, {0}, {}}, weight{DType::kF32, {0}, {}};
};

TapTables TablesOf(const ResizePlan& p, const Shape& in) {
  TapTables t;
  for (size_t d = 0; d < in.size(); ++d) {
    t.dims.push_back(TapsOf(p, d, in[d]));
    for (size_t k = 0; k < t.dims.back().index.size(); ++k) {
      t.index.data.push_back(t.dims.back().index[k]);
      t.weight.data.push_back(ToF32(t.dims.back().weight[k]));
    }
  }
  // A binding cannot be empty: one unused entry keeps an all-empty output valid.
  if (t.index.data.empty()) {
    t.index.data.push_back(0);
    t.weight.data.push_back(0);
  }
  t.index.shape = {t.index.data.size()};
  t.weight.shape = {t.weight.data.size()};
  return t;
}

OpRecord ResizeRecord(const char* name, int opset_min, int opset_max) {
  const bool upsample = std::string(name) == "Upsample";
  OpRecord r;
  r.name = name;
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "resize";
  r.summary = upsample || opset_min < 11
                  ? "nearest / linear resampling by scales (asymmetric coordinates)"
                  : "nearest / linear / cubic resampling to scales or sizes";
  auto one_of = [](std::vector<std::string> ok) {
    return [ok](const AttrValue& v) {
      const std::string& s = std::get<std::string>(v);
      std::string all;
      for (const std::string& o : ok) {
        if (o == s) return std::string();
        all += (all.empty() ? "" : ", ") + o;
      }
      return "must be one of " + all;
    };
  };
  if (upsample || opset_min < 11) {
    r.attributes = {{"mode", AttrValue(std::string("nearest")), false,
                     one_of({"nearest", "linear", "bilinear"})}};
    if (upsample && opset_min < 9) {
      r.attributes.push_back({"scales", std::nullopt, false, {}});
    } else {
      r.min_inputs = r.max_inputs = 2;
      r.host_inputs = {1};
    }
  } else {
    r.min_inputs = opset_min < 13 ? 3 : 1;
    r.max_inputs = 4;
    r.host_inputs = {1, 2, 3};
    r.attributes = {
        {"mode", AttrValue(std::string("nearest")), false, one_of({"nearest", "linear", "cubic"})},
        {"coordinate_transformation_mode", AttrValue(std::string("half_pixel")), false,
         one_of({"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                 "tf_half_pixel_for_nn", "tf_crop_and_resize"})},
        {"nearest_mode", AttrValue(std::string("round_prefer_floor")), false,
         one_of({"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})},
        {"cubic_coeff_a", AttrValue(-0.75), false, FiniteFloat},
        {"exclude_outside", AttrValue(int64_t{0}), false, {}},
        {"extrapolation_value", AttrValue(0.0), false, FiniteFloat},
    };
    if (opset_min >= 18) {
      r.attributes.push_back({"antialias", AttrValue(int64_t{0}), false, {}});
      r.attributes.push_back({"axes", std::nullopt, true, {}});
      r.attributes.push_back({"keep_aspect_ratio_policy", AttrValue(std::string("stretch")), false,
                              one_of({"stretch", "not_larger", "not_smaller"})});
    }
  }
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(ResizePlan p, PlanOf(node, at));
    TensorDesc o{node.inputs[0].dtype, p.out};
    ALKNET_TRY(CheckIndexable(node, std::max(o.elements(), node.inputs[0].elements())));
    return std::vector<TensorDesc>{o};
  };
  r.decompose = [](const OpNode& node, const Attributes& at) -> Result<Graph> {
    ALKNET_ASSIGN_OR_RETURN(ResizePlan p, PlanOf(node, at));
    TapTables t = TablesOf(p, node.inputs[0].shape);
    Ints taps;
    for (const Taps& d : t.dims) taps.push_back(d.k);
    Graph g(static_cast<int>(node.inputs.size()));
    g.outputs = {g.Add("alknet.ResizeTaps", {0, Graph::kAbsent, Graph::kAbsent},
                       {{"shape", Ints(p.out.begin(), p.out.end())},
                        {"taps", taps},
                        {"extrapolate", int64_t{p.transform == "tf_crop_and_resize"}},
                        {"extrapolation_value", p.extrapolation}})};
    g.nodes.back().input_values = {nullptr, std::make_shared<const RefTensor>(t.index),
                                   std::make_shared<const RefTensor>(t.weight)};
    return g;
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    ResizePlan p = PlanOf(node, at).value();
    return std::vector<RefTensor>{
        ApplyTaps(in[0], p.out, TablesOf(p, in[0].shape).dims, p.extrapolation)};
  };
  r.hints.abs_tol = 1e-5;
  r.hints.rel_tol = 1e-5;
  auto f32s = [](std::vector<double> v) {
    return RefTensor{DType::kF32, {v.size()}, std::move(v)};
  };
  if (upsample && opset_min < 9) {
    // The shapes of the opset 9/10 cases, so the kernels compile once for all three.
    r.test_cases = {
        {{Shape{1, 2, 3, 2}}, {{"scales", std::vector<double>{1, 1, 2, 3}}}, {}, "nearest"},
        {{Shape{2, 3, 4}},
         {{"scales", std::vector<double>{1, 1.5, 0.5}}, {"mode", std::string("linear")}},
         {},
         "linear"}};
  } else if (upsample || opset_min < 11) {
    r.test_cases = {{{Shape{1, 2, 3, 2}, Shape{4}}, {}, {{1, f32s({1, 1, 2, 3})}}, "nearest"},
                    {{Shape{2, 3, 4}, Shape{3}},
                     {{"mode", std::string("linear")}},
                     {{1, f32s({1, 1.5, 0.5})}},
                     "linear"}};
  } else {
    const std::optional<Shape> none;
    r.test_cases = {
        {{Shape{1, 2, 4, 5}, none, Shape{4}},
         {{"mode", std::string("linear")}},
         {{2, f32s({1, 1, 1.5, 0.6})}},
         "linear half_pixel scales"},
        {{Shape{1, 1, 5, 6}, none, none, Shape{4}},
         {{"mode", std::string("cubic")},
          {"exclude_outside", int64_t{1}},
          {"cubic_coeff_a", -0.5},
          {"coordinate_transformation_mode", std::string("align_corners")}},
         {{3, *IntList({1, 1, 7, 4})}},
         "cubic align_corners sizes"},
        {{Shape{2, 7, 3}, none, none, Shape{3}},
         {{"nearest_mode", std::string("round_prefer_ceil")},
          {"coordinate_transformation_mode", std::string("asymmetric")}},
         {{3, *IntList({2, 4, 5})}},
         "nearest round_prefer_ceil"},
        {{Shape{1, 4, 5}, Shape{6}, none, Shape{3}},
         {{"mode", std::string("linear")},
          {"coordinate_transformation_mode", std::string("tf_crop_and_resize")},
          {"extrapolation_value", 3.5}},
         {{1, f32s({0, 0.2, -0.1, 1, 0.9, 1.3})}, {3, *IntList({1, 3, 4})}},
         "tf_crop_and_resize"},
    };
    if (opset_min < 13) {
      for (OpTestCase& c : r.test_cases) {
        if (!c.shapes[1]) {
          c.shapes[1] = Shape{0};
          c.values[1] = RefTensor{DType::kF32, {0}, {}};
        }
        if (!c.shapes[2]) {
          c.shapes[2] = Shape{0};
          c.values[2] = RefTensor{DType::kF32, {0}, {}};
        }
      }
    }
  }
  return r;
}

// The template data of alknet.ResizeTaps and, with `from_params`, its parameter block: the
// output extents, tap-table bases, input strides and the extrapolation value become words of
// the block (shaders/resize/resize.wgsl.hbs reads `prm.w`), so the source depends only on the
// rank, the taps per dimension and the dtype (docs/adr/0011-bounded-programs.md).
struct ResizeBuild {
  hbs::Value ctx;
  std::vector<uint32_t> words;
};

Result<ResizeBuild> BuildResize(const OpNode& node, const Attributes& at, const DeviceCaps& caps,
                                bool from_params) {
  const Ints& taps = std::get<Ints>(at.at("taps"));
  const Shape& out = node.outputs.at(0).shape;
  const Shape st = ContiguousStridesOf(node.inputs[0].shape);
  ResizeBuild b;
  auto value = [&](uint64_t v) -> Result<std::string> {
    if (!from_params) return std::to_string(v) + "u";
    if (v > 0xFFFFFFFFu) {
      return Error{ErrorCode::kLimit, node.Describe() + ": " + std::to_string(v) +
                                          " exceeds the Resize kernel's 32-bit indexing"};
    }
    b.words.push_back(static_cast<uint32_t>(v));
    const size_t k = b.words.size() - 1;
    return "prm.w[" + std::to_string(k / 4) + "]." + "xyzw"[k % 4];
  };
  const uint64_t n = node.outputs[0].elements();
  std::vector<uint64_t> base(out.size(), 0);
  uint64_t acc = 0, combos = 1;
  for (size_t d = 0; d < out.size(); ++d) {
    base[d] = acc;
    acc += out[d] * static_cast<uint64_t>(taps[d]);
    combos *= static_cast<uint64_t>(taps[d]);
  }
  ALKNET_ASSIGN_OR_RETURN(std::string limit, value(n));
  hbs::Array dims;
  for (size_t d = out.size(); d-- > 0;) {
    ALKNET_ASSIGN_OR_RETURN(std::string extent, value(std::max<uint64_t>(1, out[d])));
    ALKNET_ASSIGN_OR_RETURN(std::string first, value(base[d]));
    ALKNET_ASSIGN_OR_RETURN(std::string stride, value(st[d]));
    dims.push_back(hbs::Value::object({{"dim", static_cast<long long>(d)},
                                       {"extent", extent},
                                       {"base", first},
                                       {"taps", static_cast<long long>(taps[d])},
                                       {"stride", stride}}));
  }
  b.ctx = LinearContext(n, 1, caps);
  const DType dt = node.outputs[0].dtype;
  const bool is_float = dt == DType::kF32 || dt == DType::kF16;
  const double ev = std::get<double>(at.at("extrapolation_value"));
  b.ctx.as_object().set("limit", limit);
  b.ctx.as_object().set("dims", hbs::Value(std::move(dims)));
  b.ctx.as_object().set("combinations", combos);
  b.ctx.as_object().set("extrapolate", std::get<int64_t>(at.at("extrapolate")) != 0);
  if (from_params) {
    uint32_t bits = 0;
    if (is_float) {
      const float f = static_cast<float>(ev);
      std::memcpy(&bits, &f, sizeof bits);
    } else {
      bits = static_cast<uint32_t>(static_cast<int32_t>(std::trunc(ev)));
    }
    b.words.push_back(bits);
    const size_t k = b.words.size() - 1;
    const std::string word = "prm.w[" + std::to_string(k / 4) + "]." + "xyzw"[k % 4];
    b.ctx.as_object().set("extrapolation_value",
                          std::string(is_float ? "bitcast<f32>(" : "bitcast<i32>(") + word + ")");
    b.ctx.as_object().set("param_block", true);
    b.ctx.as_object().set("param_vec4s", static_cast<uint64_t>((b.words.size() + 3) / 4));
    b.words.resize((b.words.size() + 3) / 4 * 4, 0);
  } else {
    b.ctx.as_object().set("param_block", false);
    b.ctx.as_object().set(
        "extrapolation_value",
        is_float ? FloatLiteral(ev) : std::to_string(static_cast<long long>(std::trunc(ev))));
  }
  return b;
}

// The kernel behind every Resize: input 0 the data, 1 and 2 the tap tables.
OpRecord ResizeTapsRecord() {
  OpRecord r;
  r.name = "alknet.ResizeTaps";
  r.family = "internal";
  r.shader = "resize/resize";
  r.summary = "weighted sums over per-dimension taps (Resize, Upsample)";
  r.min_inputs = r.max_inputs = 3;
  r.attributes = {{"shape", std::nullopt, false, {}},
                  {"taps", std::nullopt, false, {}},
                  {"extrapolate", AttrValue(int64_t{0}), false, {}},
                  {"extrapolation_value", AttrValue(0.0), false, FiniteFloat}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    const Ints& shape = std::get<Ints>(at.at("shape"));
    const Ints& taps = std::get<Ints>(at.at("taps"));
    const Shape& in = node.inputs[0].shape;
    if (shape.size() != in.size() || taps.size() != in.size()) {
      return Error{ErrorCode::kInvalidAttribute,
                   node.Describe() + ": shape and taps need one entry per dimension"};
    }
    uint64_t need = 0;
    TensorDesc o{node.inputs[0].dtype, {}};
    for (size_t d = 0; d < in.size(); ++d) {
      o.shape.push_back(static_cast<uint64_t>(shape[d]));
      need += static_cast<uint64_t>(shape[d] * taps[d]);
    }
    if (node.inputs[1].dtype != DType::kI32 || node.inputs[2].dtype != DType::kF32 ||
        node.inputs[1].elements() < need || node.inputs[2].elements() < need) {
      return Error{ErrorCode::kShape, node.Describe() +
                                          ": the tap tables (i32 index, f32 weight) need " +
                                          std::to_string(need) + " entries"};
    }
    return std::vector<TensorDesc>{o};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(ResizeBuild b, BuildResize(node, at, caps, ShapesInParams(caps)));
    return std::move(b.ctx);
  };
  r.params = [](const OpNode& node, const Attributes& at,
                const DeviceCaps& caps) -> Result<std::vector<uint32_t>> {
    if (!ShapesInParams(caps)) return std::vector<uint32_t>{};
    ALKNET_ASSIGN_OR_RETURN(ResizeBuild b, BuildResize(node, at, caps, true));
    return std::move(b.words);
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps& caps) {
    return LinearDispatch(node.outputs.at(0).elements(), caps);
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const Ints& taps = std::get<Ints>(at.at("taps"));
    const Shape& out = node.outputs.at(0).shape;
    std::vector<Taps> dims;
    size_t pos = 0;
    for (size_t d = 0; d < out.size(); ++d) {
      Taps t;
      t.k = static_cast<uint32_t>(taps[d]);
      for (uint64_t e = 0; e < out[d] * t.k; ++e, ++pos) {
        t.index.push_back(static_cast<int32_t>(in[1].data[pos]));
        t.weight.push_back(in[2].data[pos]);
      }
      dims.push_back(t);
    }
    return std::vector<RefTensor>{
        ApplyTaps(in[0], out, dims, std::get<double>(at.at("extrapolation_value")))};
  };
  r.test_cases = {
      {{Shape{2, 3}, Shape{9}, Shape{9}},
       {{"shape", Ints{1, 4}}, {"taps", Ints{1, 2}}},
       {{1, RefTensor{DType::kI32, {9}, {1, 0, 1, 1, 2, 2, 2, 0, 0}}},
        {2, RefTensor{DType::kF32, {9}, {1, 0.25, 0.75, 0.5, 0.5, 1, 0, 0.125, 0.875}}}},
       "1 x 2 taps"}};
  return r;
}

// ---- GridSample (opset 16, 4-D) -----------------------------------------------------------------
// PyTorch's grid_sampler_2d, which the ONNX tests were generated from: grid (x, y) in [-1, 1]
// maps to input columns and rows (align_corners: -1 and 1 are the corner pixels' centres,
// else their outer edges); padding applies to the sample coordinate (bilinear, nearest) or to
// each of the 4x4 taps (bicubic, A = -0.75); zeros padding reads 0 outside.

struct GridSampleMode {
  int mode = 0;     // 0 bilinear, 1 nearest, 2 bicubic
  int padding = 0;  // 0 zeros, 1 border, 2 reflection
  bool align = false;
};

GridSampleMode GridMode(const Attributes& at) {
  GridSampleMode m;
  const std::string& mode = std::get<std::string>(at.at("mode"));
  const std::string& pad = std::get<std::string>(at.at("padding_mode"));
  m.mode = mode == "nearest" ? 1 : mode == "bicubic" ? 2 : 0;
  m.padding = pad == "border" ? 1 : pad == "reflection" ? 2 : 0;
  m.align = std::get<int64_t>(at.at("align_corners")) != 0;
  return m;
}

double Unnormalize(double g, double size, bool align) {
  return align ? (g + 1) / 2 * (size - 1) : ((g + 1) * size - 1) / 2;
}

double Reflect(double x, double twice_low, double twice_high) {
  if (twice_low == twice_high) return 0;
  const double lo = twice_low / 2, span = (twice_high - twice_low) / 2;
  x = std::fabs(x - lo);
  const double extra = std::fmod(x, span);
  const auto flips = static_cast<int64_t>(std::floor(x / span));
  return flips % 2 == 0 ? extra + lo : span - extra + lo;
}

double PadCoordinate(double x, double size, const GridSampleMode& m) {
  if (m.padding == 1) return std::clamp(x, 0.0, size - 1);
  if (m.padding == 2) {
    x = m.align ? Reflect(x, 0, 2 * (size - 1)) : Reflect(x, -1, 2 * size - 1);
    return std::clamp(x, 0.0, size - 1);
  }
  return x;
}

// PyTorch's bicubic kernel coefficient.
constexpr double kGridSampleCubicA = -0.75;

OpRecord GridSampleRecord() {
  OpRecord r;
  r.name = "GridSample";
  r.opset_min = 16;
  r.family = "resize";
  r.shader = "resize/gridsample";
  r.contract.dtypes = {{DType::kF32}};
  r.summary =
      "samples X [N, C, H, W] at the grid's normalised (x, y) points: bilinear, nearest or bicubic";
  r.min_inputs = r.max_inputs = 2;
  auto one_of = [](std::vector<std::string> ok) {
    return [ok](const AttrValue& v) {
      for (const std::string& s : ok) {
        if (s == std::get<std::string>(v)) return std::string();
      }
      std::string list;
      for (const std::string& s : ok) list += (list.empty() ? "\"" : ", \"") + s + "\"";
      return "must be one of " + list;
    };
  };
  r.attributes = {{"align_corners", AttrValue(int64_t{0}), false, {}},
                  {"mode", AttrValue(std::string("bilinear")), false,
                   one_of({"bilinear", "nearest", "bicubic"})},
                  {"padding_mode", AttrValue(std::string("zeros")), false,
                   one_of({"zeros", "border", "reflection"})}};
  r.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    const TensorDesc& x = node.inputs[0];
    const TensorDesc& g = node.inputs[1];
    if (x.shape.size() != 4 || g.shape.size() != 4 || g.shape[3] != 2 || g.shape[0] != x.shape[0]) {
      return Error{
          ErrorCode::kShape,
          node.Describe() + ": needs X [N, C, H, W] and grid [N, H_out, W_out, 2] (4-D only)"};
    }
    const Shape out{x.shape[0], x.shape[1], g.shape[1], g.shape[2]};
    TensorDesc o{DType::kF32, out};
    ALKNET_TRY(CheckIndexable(node, std::max(o.elements(), x.elements())));
    return std::vector<TensorDesc>{o};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps&) -> Result<hbs::Value> {
    const Shape& x = node.inputs[0].shape;
    const Shape& g = node.inputs[1].shape;
    const GridSampleMode m = GridMode(at);
    return hbs::Value::object({{"n", x[0] * x[1] * g[1] * g[2]},
                               {"c", NonZero(x[1])},
                               {"h", x[2]},
                               {"w", x[3]},
                               {"ho", NonZero(g[1])},
                               {"wo", NonZero(g[2])},
                               {"mode", static_cast<long long>(m.mode)},
                               {"padding", static_cast<long long>(m.padding)},
                               {"align", m.align}});
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps&) {
    const Shape& x = node.inputs[0].shape;
    const Shape& g = node.inputs[1].shape;
    return LinearOver(x[0] * x[1] * g[1] * g[2]);
  };
  r.reference = [](const OpNode&, const Attributes& at, const std::vector<RefTensor>& in) {
    const Shape& xs = in[0].shape;
    const Shape& gs = in[1].shape;
    const GridSampleMode m = GridMode(at);
    const uint64_t C = xs[1], H = xs[2], W = xs[3], HO = gs[1], WO = gs[2];
    RefTensor out{DType::kF32, {xs[0], C, HO, WO}, {}};
    for (uint64_t n = 0; n < xs[0]; ++n) {
      for (uint64_t c = 0; c < C; ++c) {
        const double* plane = in[0].data.data() + (n * C + c) * H * W;
        auto at_px = [&](int64_t yy, int64_t xx) {
          if (yy < 0 || xx < 0 || yy >= static_cast<int64_t>(H) || xx >= static_cast<int64_t>(W))
            return 0.0;
          return plane[static_cast<uint64_t>(yy) * W + static_cast<uint64_t>(xx)];
        };
        for (uint64_t h = 0; h < HO; ++h) {
          for (uint64_t w = 0; w < WO; ++w) {
            const double* gp = in[1].data.data() + ((n * HO + h) * WO + w) * 2;
            double ix = Unnormalize(gp[0], static_cast<double>(W), m.align);
            double iy = Unnormalize(gp[1], static_cast<double>(H), m.align);
            double v = 0;
            if (m.mode == 2) {
              const double fx = std::floor(ix), fy = std::floor(iy);
              for (int i = 0; i < 4; ++i) {
                for (int j = 0; j < 4; ++j) {
                  const double ty = fy - 1 + i, tx = fx - 1 + j;
                  const double py = PadCoordinate(ty, static_cast<double>(H), m);
                  const double px = PadCoordinate(tx, static_cast<double>(W), m);
                  v += CubicWeight(iy - ty, kGridSampleCubicA) *
                       CubicWeight(ix - tx, kGridSampleCubicA) *
                       at_px(static_cast<int64_t>(std::trunc(py)),
                             static_cast<int64_t>(std::trunc(px)));
                }
              }
            } else {
              ix = PadCoordinate(ix, static_cast<double>(W), m);
              iy = PadCoordinate(iy, static_cast<double>(H), m);
              if (m.mode == 1) {
                v = at_px(static_cast<int64_t>(std::nearbyint(iy)),
                          static_cast<int64_t>(std::nearbyint(ix)));
              } else {
                const double x0 = std::floor(ix), y0 = std::floor(iy);
                const double dx = ix - x0, dy = iy - y0;
                const auto X0 = static_cast<int64_t>(x0), Y0 = static_cast<int64_t>(y0);
                v = at_px(Y0, X0) * (1 - dx) * (1 - dy) + at_px(Y0, X0 + 1) * dx * (1 - dy) +
                    at_px(Y0 + 1, X0) * (1 - dx) * dy + at_px(Y0 + 1, X0 + 1) * dx * dy;
              }
            }
            out.data.push_back(v);
          }
        }
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  // Grid points from random data in [-1.2, 1.2] (a little outside, to exercise the padding).
  r.hints = {-1.2, 1.2, 2e-5, 1e-4};
  r.test_cases = {
      {{Shape{1, 2, 4, 5}, Shape{1, 3, 6, 2}}, {}, {}, "bilinear zeros"},
      {{Shape{2, 1, 3, 4}, Shape{2, 2, 5, 2}},
       {{"mode", std::string("bicubic")}, {"padding_mode", std::string("reflection")}},
       {},
       "bicubic reflection"},
      {{Shape{1, 1, 5, 3}, Shape{1, 4, 4, 2}},
       {{"mode", std::string("bilinear")},
        {"padding_mode", std::string("border")},
        {"align_corners", int64_t{1}}},
       {},
       "bilinear border align_corners"},
      {{Shape{1, 2, 4, 4}, Shape{1, 3, 3, 2}},
       {{"mode", std::string("nearest")},
        {"padding_mode", std::string("reflection")},
        {"align_corners", int64_t{1}}},
       {},
       "nearest reflection align_corners"},
  };
  return r;
}

// ---- RoiAlign -----------------------------------------------------------------------------
//
// Opset 10 (no pixel offset, rois at least 1x1) and 16 (coordinate_transformation_mode,
// half_pixel by default). Each output bin averages (or takes the largest weighted tap of) a
// grid of bilinear samples; with sampling_ratio 0 the grid is ceil(roi extent / bins), which
// depends on the rois' values, so the kernel computes it per roi. Samples more than one pixel
// outside X count as zeros (onnxruntime's and the ONNX reference's rule).

// The adaptive sampling grid's largest extent per axis: a roi spanning more than this many
// pixels per bin is sampled this many times (bounds the work a hostile roi can ask for).
constexpr int64_t kRoiMaxGrid = 256;

struct RoiParams {
  bool max = false, half_pixel = false;
  uint64_t oh = 1, ow = 1;
  int64_t sampling = 0;
  double scale = 1.0;
};

Result<RoiParams> RoiParamsOf(const OpNode& node, const Attributes& at) {
  RoiParams p;
  p.max = std::get<std::string>(at.at("mode")) == "max";
  p.half_pixel = at.count("coordinate_transformation_mode") &&
                 std::get<std::string>(at.at("coordinate_transformation_mode")) == "half_pixel";
  const int64_t oh = std::get<int64_t>(at.at("output_height"));
  const int64_t ow = std::get<int64_t>(at.at("output_width"));
  p.sampling = std::get<int64_t>(at.at("sampling_ratio"));
  p.scale = std::get<double>(at.at("spatial_scale"));
  if (oh < 1 || ow < 1 || oh > 65536 || ow > 65536 || p.sampling < 0 || p.sampling > 1024) {
    return Error{ErrorCode::kInvalidAttribute,
                 node.Describe() +
                     ": output_height and output_width must be in 1..65536, "
                     "sampling_ratio in 0..1024"};
  }
  p.oh = static_cast<uint64_t>(oh);
  p.ow = static_cast<uint64_t>(ow);
  const Shape& x = node.inputs[0].shape;
  const Shape& rois = node.inputs[1].shape;
  const Shape& bi = node.inputs[2].shape;
  if (x.size() != 4 || rois.size() != 2 || rois[1] != 4 || bi.size() != 1 || bi[0] != rois[0]) {
    return Error{ErrorCode::kShape, node.Describe() + ": X must be [N, C, H, W], rois [R, 4], " +
                                        "batch_indices [R]; got " + ShapeToString(x) + ", " +
                                        ShapeToString(rois) + ", " + ShapeToString(bi)};
  }
  return p;
}

OpRecord RoiAlignRecord(int opset_min, int opset_max) {
  OpRecord r;
  r.name = "RoiAlign";
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "resize";
  r.shader = "resize/roialign";
  r.summary = "per region of interest, bins of bilinear samples averaged (avg) or maxed (max)";
  r.min_inputs = r.max_inputs = 3;
  r.contract = {.dtypes = {{DType::kF32}, {DType::kF32}, {DType::kI32}}, .contiguous = true};
  auto mode = [](const AttrValue& v) {
    const std::string& s = std::get<std::string>(v);
    return s == "avg" || s == "max" ? std::string() : std::string("must be avg or max");
  };
  r.attributes = {{"mode", AttrValue(std::string("avg")), false, mode},
                  {"output_height", AttrValue(int64_t{1}), false, {}},
                  {"output_width", AttrValue(int64_t{1}), false, {}},
                  {"sampling_ratio", AttrValue(int64_t{0}), false, {}},
                  {"spatial_scale", AttrValue(1.0), false, {}}};
  if (opset_min >= 16) {
    r.attributes.push_back({"coordinate_transformation_mode", AttrValue(std::string("half_pixel")),
                            false, [](const AttrValue& v) {
                              const std::string& s = std::get<std::string>(v);
                              return s == "half_pixel" || s == "output_half_pixel"
                                         ? std::string()
                                         : std::string("must be half_pixel or output_half_pixel");
                            }});
  }
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(RoiParams p, RoiParamsOf(node, at));
    const Shape out{node.inputs[1].shape[0], node.inputs[0].shape[1], p.oh, p.ow};
    ALKNET_TRY(
        CheckIndexable(node, std::max(node.inputs[0].elements(), out[0] * out[1] * p.oh * p.ow)));
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, out}};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps&) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(RoiParams p, RoiParamsOf(node, at));
    const Shape& x = node.inputs[0].shape;
    hbs::Object o;
    o.set("N", x[0]);
    o.set("C", x[1]);
    // At least 1 (WGSL refuses H - 1u for a constant 0); `empty` turns every sample off.
    o.set("H", std::max<uint64_t>(1, x[2]));
    o.set("W", std::max<uint64_t>(1, x[3]));
    o.set("empty", x[2] == 0 || x[3] == 0);
    o.set("max_grid", kRoiMaxGrid);
    o.set("OH", p.oh);
    o.set("OW", p.ow);
    o.set("total", node.inputs[1].shape[0] * x[1] * p.oh * p.ow);
    o.set("sampling", p.sampling);
    o.set("scale", FloatLiteral(p.scale));
    o.set("offset", FloatLiteral(p.half_pixel ? 0.5 : 0.0));
    o.set("half_pixel", p.half_pixel);
    o.set("max", p.max);
    return hbs::Value(std::move(o));
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps&) {
    const RoiParams p = RoiParamsOf(node, at).value();
    return LinearOver(node.inputs[1].shape[0] * node.inputs[0].shape[1] * p.oh * p.ow);
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const RoiParams p = RoiParamsOf(node, at).value();
    const Shape& xs = in[0].shape;
    const uint64_t R = in[1].shape[0], C = xs[1], H = xs[2], W = xs[3];
    RefTensor out{DType::kF32, {R, C, p.oh, p.ow}, {}};
    const double off = p.half_pixel ? 0.5 : 0.0;
    for (uint64_t ri = 0; ri < R; ++ri) {
      const double* roi = in[1].data.data() + ri * 4;
      const double b = in[2].data[ri];
      const bool valid_batch = b >= 0 && b < double(xs[0]) && H > 0 && W > 0;
      const double x1 = roi[0] * p.scale - off, y1 = roi[1] * p.scale - off;
      double rw = roi[2] * p.scale - off - x1, rh = roi[3] * p.scale - off - y1;
      if (!p.half_pixel) {
        rw = std::max(rw, 1.0);
        rh = std::max(rh, 1.0);
      }
      const double bh = rh / double(p.oh), bw = rw / double(p.ow);
      auto grid = [&p](double extent, uint64_t bins) {
        if (p.sampling > 0) return p.sampling;
        const double g = std::ceil(ToF32(ToF32(extent) / double(bins)));
        if (!(g > 0)) return int64_t{0};  // NaN too
        return static_cast<int64_t>(std::min(g, double(kRoiMaxGrid)));
      };
      const int64_t gh = grid(rh, p.oh), gw = grid(rw, p.ow);
      const double count = double(std::max<int64_t>(gh * gw, 1));
      for (uint64_t c = 0; c < C; ++c) {
        const double* plane =
            valid_batch ? in[0].data.data() + (uint64_t(b) * C + c) * H * W : nullptr;
        for (uint64_t ph = 0; ph < p.oh; ++ph) {
          for (uint64_t pw = 0; pw < p.ow; ++pw) {
            double sum = 0, best = -INFINITY;
            bool any = false;
            for (int64_t iy = 0; iy < gh; ++iy) {
              const double y0 = y1 + double(ph) * bh + (double(iy) + 0.5) * bh / double(gh);
              for (int64_t ix = 0; ix < gw; ++ix) {
                const double x0 = x1 + double(pw) * bw + (double(ix) + 0.5) * bw / double(gw);
                if (plane == nullptr || y0 < -1.0 || y0 > double(H) || x0 < -1.0 ||
                    x0 > double(W)) {
                  if (p.max) {
                    best = std::max(best, 0.0);
                    any = true;
                  }
                  continue;
                }
                double y = std::max(y0, 0.0), x = std::max(x0, 0.0);
                uint64_t yl = uint64_t(y), xl = uint64_t(x), yh, xh;
                if (yl >= H - 1) {
                  yl = yh = H - 1;
                  y = double(yl);
                } else {
                  yh = yl + 1;
                }
                if (xl >= W - 1) {
                  xl = xh = W - 1;
                  x = double(xl);
                } else {
                  xh = xl + 1;
                }
                const double ly = y - double(yl), lx = x - double(xl), hy = 1 - ly, hx = 1 - lx;
                const double t1 = hy * hx * plane[yl * W + xl], t2 = hy * lx * plane[yl * W + xh];
                const double t3 = ly * hx * plane[yh * W + xl], t4 = ly * lx * plane[yh * W + xh];
                if (p.max) {
                  best = std::max({best, t1, t2, t3, t4});
                  any = true;
                } else {
                  sum += t1 + t2 + t3 + t4;
                }
              }
            }
            out.data.push_back(p.max ? (any ? best : 0.0) : sum / count);
          }
        }
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-3, 3, 1e-5, 1e-4};
  RefTensor rois{
      DType::kF32,
      {4, 4},
      {0.5, 0.5, 6.2, 5.1, 1.0, 2.0, 3.0, 3.5, -2.0, -1.0, 4.0, 9.5, 7.0, 1.0, 7.5, 1.2}};
  RefTensor batch{DType::kI32, {4}, {0, 1, 1, 0}};
  r.test_cases = {
      {{Shape{2, 3, 8, 7}, Shape{4, 4}, Shape{4}},
       {{"output_height", int64_t{3}}, {"output_width", int64_t{2}}},
       {{1, rois}, {2, batch}},
       "avg, adaptive sampling"},
      {{Shape{2, 3, 8, 7}, Shape{4, 4}, Shape{4}},
       {{"output_height", int64_t{2}},
        {"output_width", int64_t{4}},
        {"sampling_ratio", int64_t{2}},
        {"spatial_scale", 0.75},
        {"mode", std::string("max")}},
       {{1, rois}, {2, batch}},
       "max, sampling_ratio 2, spatial_scale"},
  };
  if (opset_min >= 16) {
    r.test_cases.push_back({{Shape{2, 3, 8, 7}, Shape{4, 4}, Shape{4}},
                            {{"output_height", int64_t{2}},
                             {"output_width", int64_t{2}},
                             {"coordinate_transformation_mode", std::string("output_half_pixel")}},
                            {{1, rois}, {2, batch}},
                            "output_half_pixel"});
  }
  return r;
}

}  // namespace

void AddResizeOps(OpTable& table) {
  table.Add(ResizeTapsRecord());
  table.Add(ResizeRecord("Upsample", 7, 8));
  table.Add(ResizeRecord("Upsample", 9, 9));
  table.Add(ResizeRecord("Resize", 10, 10));
  table.Add(ResizeRecord("Resize", 11, 12));
  table.Add(ResizeRecord("Resize", 13, 17));
  table.Add(ResizeRecord("Resize", 18, 99));
  table.Add(GridSampleRecord());
  table.Add(RoiAlignRecord(10, 15));
  table.Add(RoiAlignRecord(16, 99));
}

}  // namespace alknet::compute::ops
