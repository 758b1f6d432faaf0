// Normalisations (ONNX Operators.md): BatchNormalization (inference; from opset 14 also
// training_mode with its running statistics), InstanceNormalization, LayerNormalization,
// MeanVarianceNormalization, LpNormalization, LRN.
//
// InstanceNormalization, LayerNormalization, MeanVarianceNormalization and LpNormalization
// share shaders/norm/moments.wgsl.hbs: the tensor is split into kept and reduced axes; one
// invocation per kept position walks its reduced elements (mean, then variance about it, then
// the output), reaching them through coalesced (extent, stride) terms.
#include <cmath>
#include <set>

#include "ops/elementwise.h"
#include "ops/families.h"

namespace alknet::compute::ops {

namespace {

double F(const Attributes& at, const char* name) { return std::get<double>(at.at(name)); }
int64_t I(const Attributes& at, const char* name) { return std::get<int64_t>(at.at(name)); }

Status RequireShape(const OpNode& node, size_t i, const Shape& want, const char* what) {
  if (node.inputs[i].shape != want) {
    return Error{ErrorCode::kShape, node.Describe() + ": " + what + " " +
                                        ShapeToString(node.inputs[i].shape) + " must be " +
                                        ShapeToString(want)};
  }
  return Ok{};
}

// ---------------------------------------------------------------------------------------
// BatchNormalization

struct BnDims {
  uint64_t N = 1, C = 1, inner = 1;
};

Result<BnDims> BnShapes(const OpNode& node) {
  const Shape& x = node.inputs[0].shape;
  if (x.size() < 2) {
    return Error{ErrorCode::kShape,
                 node.Describe() + ": X " + ShapeToString(x) + " must be [N, C, ...]"};
  }
  BnDims d{x[0], x[1], 1};
  for (size_t i = 2; i < x.size(); ++i) d.inner *= x[i];
  static const char* names[] = {"", "scale", "B", "mean", "var"};
  for (size_t i = 1; i < 5; ++i) ALKNET_TRY(RequireShape(node, i, Shape{d.C}, names[i]));
  return d;
}

bool Training(const OpNode& node, const Attributes& at) {
  return node.opset >= 14 && I(at, "training_mode") != 0;
}

OpRecord BatchNormRecord(int opset_min, int opset_max) {
  OpRecord r;
  r.name = "BatchNormalization";
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "norm";
  r.shader = "norm/batchnorm";
  r.contract = {.dtypes = {{DType::kF32}}, .contiguous = true};
  r.summary =
      opset_min >= 14
          ? "per-channel normalisation with given statistics, or (training_mode) batch statistics "
            "and updated running ones"
          : "per-channel normalisation with given statistics (inference)";
  r.min_inputs = r.max_inputs = 5;
  r.attributes = {{"epsilon", AttrValue(1e-5), false, &FiniteFloat},
                  {"momentum", AttrValue(0.9), false, &FiniteFloat}};
  if (opset_min < 9) {
    r.attributes.push_back(
        {"spatial", AttrValue(int64_t{1}), false, [](const AttrValue& v) {
           return std::get<int64_t>(v) == 1
                      ? std::string()
                      : std::string("must be 1 (per-element statistics are not implemented)");
         }});
  }
  if (opset_min < 7) r.attributes.push_back({"is_test", AttrValue(int64_t{0}), false, {}});
  if (opset_min >= 14) {
    r.attributes.push_back({"training_mode", AttrValue(int64_t{0}), false, [](const AttrValue& v) {
                              const int64_t f = std::get<int64_t>(v);
                              return f == 0 || f == 1 ? std::string()
                                                      : std::string("must be 0 or 1");
                            }});
  }
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(BnDims d, BnShapes(node));
    std::vector<TensorDesc> out{TensorDesc{DType::kF32, node.inputs[0].shape}};
    if (Training(node, at)) {
      out.push_back(TensorDesc{DType::kF32, {d.C}});
      out.push_back(TensorDesc{DType::kF32, {d.C}});
    }
    return out;
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps&) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(BnDims d, BnShapes(node));
    const bool training = Training(node, at);
    return hbs::Value::object({{"N", d.N},
                               {"C", d.C},
                               {"inner", d.inner},
                               {"total", node.inputs[0].elements()},
                               {"training", training},
                               {"epsilon", FloatLiteral(F(at, "epsilon"))},
                               {"momentum", FloatLiteral(F(at, "momentum"))}});
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps&) {
    DispatchPlan p;
    p.invocations = Training(node, at) ? node.inputs[0].shape[1] : node.inputs[0].elements();
    return p;
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    BnDims d = *BnShapes(node);
    const double eps = ToF32(F(at, "epsilon")), mom = ToF32(F(at, "momentum"));
    const bool training = Training(node, at);
    RefTensor y{DType::kF32, in[0].shape, std::vector<double>(in[0].data.size())};
    RefTensor rm{DType::kF32, {d.C}, std::vector<double>(d.C)}, rv = rm;
    for (uint64_t c = 0; c < d.C; ++c) {
      double mean = in[3].data[c], var = in[4].data[c];
      if (training) {
        double s = 0, q = 0;
        for (uint64_t n = 0; n < d.N; ++n)
          for (uint64_t i = 0; i < d.inner; ++i) s += in[0].data[(n * d.C + c) * d.inner + i];
        mean = s / double(d.N * d.inner);
        for (uint64_t n = 0; n < d.N; ++n)
          for (uint64_t i = 0; i < d.inner; ++i)
            q += std::pow(in[0].data[(n * d.C + c) * d.inner + i] - mean, 2);
        var = q / double(d.N * d.inner);
        rm.data[c] = in[3].data[c] * mom + mean * (1 - mom);
        rv.data[c] = in[4].data[c] * mom + var * (1 - mom);
      }
      const double k = in[1].data[c] / std::sqrt(var + eps);
      for (uint64_t n = 0; n < d.N; ++n)
        for (uint64_t i = 0; i < d.inner; ++i) {
          const uint64_t at_ = (n * d.C + c) * d.inner + i;
          y.data[at_] = (in[0].data[at_] - mean) * k + in[2].data[c];
        }
    }
    std::vector<RefTensor> out{std::move(y)};
    if (training) {
      out.push_back(std::move(rm));
      out.push_back(std::move(rv));
    }
    return out;
  };
  r.hints = {-3, 3, 1e-5, 1e-4};
  // var must be positive: fixed values.
  auto vec = [](std::vector<double> v) { return RefTensor{DType::kF32, {v.size()}, std::move(v)}; };
  std::map<size_t, RefTensor> stats3 = {{4, vec({0.5, 1.5, 2.0})}};
  std::map<size_t, RefTensor> stats5 = {{4, vec({0.25, 1.0, 3.0, 0.75, 1.25})}};
  r.test_cases = {
      {{Shape{2, 3, 4, 5}, Shape{3}, Shape{3}, Shape{3}, Shape{3}}, {}, stats3, "4-D"},
      {{Shape{3, 5}, Shape{5}, Shape{5}, Shape{5}, Shape{5}},
       {{"epsilon", AttrValue(1e-2)}},
       stats5,
       "2-D, epsilon"},
  };
  if (opset_min >= 14) {
    r.test_cases.push_back(
        {{Shape{2, 3, 4, 5}, Shape{3}, Shape{3}, Shape{3}, Shape{3}},
         {{"training_mode", AttrValue(int64_t{1})}, {"momentum", AttrValue(0.8)}},
         stats3,
         "training_mode"});
  }
  return r;
}

// ---------------------------------------------------------------------------------------
// Moments-based normalisations

enum class MomentsKind { kInstance, kLayer, kMvn, kLp };

struct MomentsPlan {
  std::vector<std::pair<uint64_t, uint64_t>> kept, reduced;  // (extent, stride), innermost first
  uint64_t kept_count = 1, reduced_count = 1;
  Shape stat_shape;  // X's shape with the reduced axes set to 1
};

MomentsPlan SplitAxes(const Shape& x, const std::set<size_t>& reduce) {
  MomentsPlan p;
  const Shape strides = ContiguousStridesOf(x);
  p.stat_shape = x;
  // Walk innermost first, merging neighbours of the same kind (their strides chain).
  for (size_t i = x.size(); i-- > 0;) {
    const bool red = reduce.count(i) > 0;
    auto& terms = red ? p.reduced : p.kept;
    (red ? p.reduced_count : p.kept_count) *= x[i];
    if (red) p.stat_shape[i] = 1;
    if (x[i] == 1) continue;
    const bool prev_same = i + 1 < x.size() && (reduce.count(i + 1) > 0) == red;
    if (prev_same && !terms.empty() && terms.back().second * terms.back().first == strides[i]) {
      terms.back().first *= x[i];
      terms.back().second = terms.back().second;  // innermost stride stays
    } else {
      terms.emplace_back(x[i], strides[i]);
    }
  }
  return p;
}

Result<std::set<size_t>> ReducedAxes(MomentsKind kind, const OpNode& node, const Attributes& at) {
  const Shape& x = node.inputs[0].shape;
  const int64_t rank = static_cast<int64_t>(x.size());
  auto norm_axis = [&](int64_t a) -> Result<size_t> {
    if (a < -rank || a >= rank) {
      return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": axis " + std::to_string(a) +
                                                     " is out of range for rank " +
                                                     std::to_string(rank)};
    }
    return static_cast<size_t>(a < 0 ? a + rank : a);
  };
  std::set<size_t> s;
  switch (kind) {
    case MomentsKind::kInstance:
      if (rank < 3) {
        return Error{ErrorCode::kShape,
                     node.Describe() + ": input " + ShapeToString(x) + " must be [N, C, D1, ...]"};
      }
      for (size_t i = 2; i < x.size(); ++i) s.insert(i);
      break;
    case MomentsKind::kLayer: {
      ALKNET_ASSIGN_OR_RETURN(size_t a, norm_axis(I(at, "axis")));
      for (size_t i = a; i < x.size(); ++i) s.insert(i);
      break;
    }
    case MomentsKind::kMvn:
      for (int64_t a : std::get<std::vector<int64_t>>(at.at("axes"))) {
        ALKNET_ASSIGN_OR_RETURN(size_t v, norm_axis(a));
        s.insert(v);
      }
      break;
    case MomentsKind::kLp: {
      ALKNET_ASSIGN_OR_RETURN(size_t a, norm_axis(I(at, "axis")));
      s.insert(a);
      break;
    }
  }
  return s;
}

Result<MomentsPlan> MomentsShapes(MomentsKind kind, const OpNode& node, const Attributes& at) {
  const Shape& x = node.inputs[0].shape;
  if (x.empty()) return Error{ErrorCode::kShape, node.Describe() + ": input must have rank >= 1"};
  ALKNET_ASSIGN_OR_RETURN(std::set<size_t> axes, ReducedAxes(kind, node, at));
  MomentsPlan p = SplitAxes(x, axes);
  if (kind == MomentsKind::kInstance) {
    ALKNET_TRY(RequireShape(node, 1, Shape{x[1]}, "scale"));
    ALKNET_TRY(RequireShape(node, 2, Shape{x[1]}, "B"));
  }
  if (kind == MomentsKind::kLayer) {
    // Scale and B broadcast to X[axis:]; supported when they hold exactly those elements
    // (leading 1s allowed), which is every exporter's form.
    for (size_t i = 1; i < 3; ++i) {
      if (!node.has_input(i)) continue;
      if (node.inputs[i].elements() != p.reduced_count) {
        return Error{ErrorCode::kUnsupported,
                     node.Describe() + ": input " + std::to_string(i) + " " +
                         ShapeToString(node.inputs[i].shape) +
                         " must hold the normalised shape's " + std::to_string(p.reduced_count) +
                         " elements (broadcasting a smaller one is not implemented)"};
      }
    }
  }
  if (kind == MomentsKind::kLp) {
    const int64_t pn = I(at, "p");
    if (pn != 1 && pn != 2) {
      return Error{ErrorCode::kInvalidAttribute,
                   node.Describe() + ": p must be 1 or 2, got " + std::to_string(pn)};
    }
  }
  return p;
}

// Outputs a node produces: LayerNormalization's Mean and InvStdDev only when asked for.
int64_t LayerOutputs(MomentsKind kind, const Attributes& at) {
  return kind == MomentsKind::kLayer ? I(at, "alknet.outputs") : 1;
}

hbs::Value Terms(const std::vector<std::pair<uint64_t, uint64_t>>& t) {
  hbs::Array a;
  for (const auto& [extent, stride] : t)
    a.push_back(hbs::Value::object({{"extent", extent}, {"stride", stride}}));
  return hbs::Value(std::move(a));
}

OpRecord MomentsRecord(MomentsKind kind) {
  OpRecord r;
  r.family = "norm";
  r.shader = "norm/moments";
  r.contract = {.dtypes = {{DType::kF32}}, .contiguous = true};
  switch (kind) {
    case MomentsKind::kInstance:
      r.name = "InstanceNormalization";
      r.opset_min = 6;
      r.summary =
          "per (batch, channel) normalisation over the spatial axes, then scale and B per channel";
      r.min_inputs = r.max_inputs = 3;
      r.attributes = {{"epsilon", AttrValue(1e-5), false, &FiniteFloat}};
      break;
    case MomentsKind::kLayer:
      r.name = "LayerNormalization";
      r.opset_min = 17;
      r.summary =
          "normalisation over the axes from `axis` on, then Scale and B; Mean and InvStdDev "
          "outputs";
      r.min_inputs = 2;
      r.max_inputs = 3;
      // Statistics are computed in f32 whatever stash_type says (f32 is its default).
      // alknet.outputs: how many of Y, Mean, InvStdDev the node asks for (the ONNX session
      // sets it to the node's output count; the executor needs the exact count).
      r.attributes = {
          {"axis", AttrValue(int64_t{-1}), false, {}},
          {"epsilon", AttrValue(1e-5), false, &FiniteFloat},
          {"stash_type", AttrValue(int64_t{1}), false, {}},
          {"alknet.outputs", AttrValue(int64_t{1}), false,
           [](const AttrValue& v) {
             const int64_t n = std::get<int64_t>(v);
             return n >= 1 && n <= 3 ? std::string() : std::string("must be 1, 2 or 3");
           }},
          // alknet.activation: "Relu" applies max(y, 0) to Y in the store (the
          // gemm-activation pass folds a Relu reading Y alone; Y only).
          {"alknet.activation", AttrValue(std::string()), false, [](const AttrValue& v) {
             const std::string& a = std::get<std::string>(v);
             return a.empty() || a == "Relu" ? std::string()
                                             : std::string("must be \"\" or \"Relu\"");
           }}};
      break;
    case MomentsKind::kMvn:
      r.name = "MeanVarianceNormalization";
      r.opset_min = 9;
      r.summary = "(X - mean) / (std + 1e-9) over the given axes";
      r.attributes = {{"axes", AttrValue(std::vector<int64_t>{0, 2, 3}), false, {}}};
      break;
    case MomentsKind::kLp:
      r.name = "LpNormalization";
      r.opset_min = 1;
      r.summary = "X divided by its L1 or L2 norm along one axis (a zero norm gives 0)";
      r.attributes = {{"axis", AttrValue(int64_t{-1}), false, {}},
                      {"p", AttrValue(int64_t{2}), false, {}}};
      break;
  }
  r.infer = [kind](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(MomentsPlan p, MomentsShapes(kind, node, at));
    std::vector<TensorDesc> out{TensorDesc{DType::kF32, node.inputs[0].shape}};
    for (int64_t k = 1; k < LayerOutputs(kind, at); ++k)
      out.push_back(TensorDesc{DType::kF32, p.stat_shape});
    return out;
  };
  r.context = [kind](const OpNode& node, const Attributes& at,
                     const DeviceCaps&) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(MomentsPlan p, MomentsShapes(kind, node, at));
    const bool has_eps = kind == MomentsKind::kInstance || kind == MomentsKind::kLayer;
    return hbs::Value::object(
        {{"kept_count", p.kept_count},
         {"reduced_count", p.reduced_count},
         {"kept", Terms(p.kept)},
         {"reduced", Terms(p.reduced)},
         {"instance", kind == MomentsKind::kInstance},
         {"layer", kind == MomentsKind::kLayer},
         {"mvn", kind == MomentsKind::kMvn},
         {"lp", kind == MomentsKind::kLp},
         {"p1", kind == MomentsKind::kLp && I(at, "p") == 1},
         {"act_relu", kind == MomentsKind::kLayer &&
                          std::get<std::string>(at.at("alknet.activation")) == "Relu"},
         {"has_mean", LayerOutputs(kind, at) >= 2},
         {"has_inv", LayerOutputs(kind, at) >= 3},
         {"has_bias",
          kind == MomentsKind::kInstance || (kind == MomentsKind::kLayer && node.has_input(2))},
         {"channels", kind == MomentsKind::kInstance ? node.inputs[0].shape[1] : 1},
         {"epsilon", FloatLiteral(has_eps ? F(at, "epsilon") : 0.0)}});
  };
  r.dispatch = [kind](const OpNode& node, const Attributes& at, const DeviceCaps&) {
    DispatchPlan d;
    d.invocations = MomentsShapes(kind, node, at)->kept_count;
    return d;
  };
  r.reference = [kind](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    MomentsPlan p = *MomentsShapes(kind, node, at);
    const Shape& x = in[0].shape;
    RefTensor y{DType::kF32, x, std::vector<double>(in[0].data.size())};
    RefTensor mean_t{DType::kF32, p.stat_shape, std::vector<double>(p.kept_count)}, inv_t = mean_t;
    // Independent of the kernel's term walk: enumerate every element, bucket it by its kept
    // coordinates.
    std::set<size_t> axes = *ReducedAxes(kind, node, at);
    const uint64_t total = in[0].data.size();
    std::vector<uint64_t> bucket(total), within(total);
    std::vector<uint64_t> coord(x.size(), 0);
    for (uint64_t e = 0; e < total; ++e) {
      uint64_t k = 0, r = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        if (axes.count(i))
          r = r * x[i] + coord[i];
        else
          k = k * x[i] + coord[i];
      }
      bucket[e] = k;
      within[e] = r;
      for (size_t i = x.size(); i-- > 0;) {
        if (++coord[i] < x[i]) break;
        coord[i] = 0;
      }
    }
    std::vector<double> sum(p.kept_count, 0), sq(p.kept_count, 0);
    const double n = double(p.reduced_count);
    for (uint64_t e = 0; e < total; ++e) sum[bucket[e]] += in[0].data[e];
    for (uint64_t e = 0; e < total; ++e) {
      const double v = in[0].data[e];
      if (kind == MomentsKind::kLp)
        sq[bucket[e]] += I(at, "p") == 1 ? std::fabs(v) : v * v;
      else
        sq[bucket[e]] += std::pow(v - sum[bucket[e]] / n, 2);
    }
    for (uint64_t e = 0; e < total; ++e) {
      const uint64_t k = bucket[e];
      const double v = in[0].data[e], mean = sum[k] / n, var = sq[k] / n;
      switch (kind) {
        case MomentsKind::kInstance: {
          const uint64_t c = k % x[1];
          y.data[e] =
              (v - mean) / std::sqrt(var + ToF32(F(at, "epsilon"))) * in[1].data[c] + in[2].data[c];
          break;
        }
        case MomentsKind::kLayer: {
          const double inv = 1.0 / std::sqrt(var + ToF32(F(at, "epsilon")));
          y.data[e] = (v - mean) * inv * in[1].data[within[e]] +
                      (node.has_input(2) ? in[2].data[within[e]] : 0.0);
          if (std::get<std::string>(at.at("alknet.activation")) == "Relu")
            y.data[e] = std::max(y.data[e], 0.0);
          mean_t.data[k] = mean;
          inv_t.data[k] = inv;
          break;
        }
        case MomentsKind::kMvn: y.data[e] = (v - mean) / (std::sqrt(var) + 1e-9); break;
        case MomentsKind::kLp: {
          const double norm = I(at, "p") == 1 ? sq[k] : std::sqrt(sq[k]);
          y.data[e] = norm == 0 ? 0.0 : v / norm;
          break;
        }
      }
    }
    std::vector<RefTensor> out{std::move(y)};
    if (LayerOutputs(kind, at) >= 2) out.push_back(std::move(mean_t));
    if (LayerOutputs(kind, at) >= 3) out.push_back(std::move(inv_t));
    return out;
  };
  r.hints = {-3, 3, 2e-5, 1e-4};
  auto ints = [](std::vector<int64_t> v) { return AttrValue(std::move(v)); };
  auto i64 = [](int64_t v) { return AttrValue(v); };
  switch (kind) {
    case MomentsKind::kInstance:
      r.test_cases = {{{Shape{2, 3, 4, 5}, Shape{3}, Shape{3}}, {}, {}, "4-D"},
                      {{Shape{1, 4, 7}, Shape{4}, Shape{4}},
                       {{"epsilon", AttrValue(1e-2)}},
                       {},
                       "3-D, epsilon"}};
      break;
    case MomentsKind::kLayer:
      r.test_cases = {
          {{Shape{2, 3, 4, 5}, Shape{5}, Shape{5}},
           {{"alknet.outputs", i64(3)}},
           {},
           "last axis, all outputs"},
          {{Shape{2, 3, 5}, Shape{3, 5}, std::nullopt},
           {{"axis", i64(1)}, {"epsilon", AttrValue(0.1)}, {"alknet.outputs", i64(2)}},
           {},
           "axis 1, no B, Mean"},
          {{Shape{3, 4}, Shape{3, 4}, Shape{3, 4}}, {{"axis", i64(0)}}, {}, "axis 0, Y only"},
          {{Shape{3, 40}, Shape{40}, Shape{40}},
           {{"alknet.activation", AttrValue(std::string("Relu"))}},
           {},
           "Relu folded in (internal)"}};
      break;
    case MomentsKind::kMvn:
      r.test_cases = {{{Shape{3, 3, 3, 2}}, {}, {}, "default axes"},
                      {{Shape{2, 5, 6}}, {{"axes", ints({1, 2})}}, {}, "trailing axes"},
                      {{Shape{4, 3, 5}}, {{"axes", ints({0, 2})}}, {}, "axes 0, 2"}};
      break;
    case MomentsKind::kLp:
      r.test_cases = {{{Shape{3, 4, 5}}, {}, {}, "L2, last axis"},
                      {{Shape{3, 4, 5}}, {{"axis", i64(1)}, {"p", i64(1)}}, {}, "L1, axis 1"}};
      break;
  }
  return r;
}

// ---------------------------------------------------------------------------------------
// LRN: y = x / (bias + alpha / size * sum of x^2 over nearby channels)^beta.

OpRecord LrnRecord() {
  OpRecord r;
  r.name = "LRN";
  r.opset_min = 1;
  r.family = "norm";
  r.shader = "norm/lrn";
  r.contract = {.dtypes = {{DType::kF32}}, .contiguous = true};
  r.summary = "local response normalisation across channels";
  r.attributes = {{"alpha", AttrValue(1e-4), false, &FiniteFloat},
                  {"beta", AttrValue(0.75), false, &FiniteFloat},
                  {"bias", AttrValue(1.0), false, &FiniteFloat},
                  {"size", std::nullopt, false, [](const AttrValue& v) {
                     const int64_t* s = std::get_if<int64_t>(&v);
                     return s != nullptr && *s >= 1 ? std::string()
                                                    : std::string("must be an int >= 1");
                   }}};
  auto dims = [](const OpNode& node) -> Result<std::array<uint64_t, 2>> {
    const Shape& x = node.inputs[0].shape;
    if (x.size() < 2)
      return Error{ErrorCode::kShape,
                   node.Describe() + ": X " + ShapeToString(x) + " must be [N, C, ...]"};
    uint64_t inner = 1;
    for (size_t i = 2; i < x.size(); ++i) inner *= x[i];
    return std::array<uint64_t, 2>{x[1], inner};
  };
  r.infer = [dims](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(dims(node));
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, node.inputs[0].shape}};
  };
  r.context = [dims](const OpNode& node, const Attributes& at,
                     const DeviceCaps&) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(auto d, dims(node));
    const int64_t size = I(at, "size");
    return hbs::Value::object({{"C", d[0]},
                               {"inner", d[1]},
                               {"total", node.inputs[0].elements()},
                               {"lo", (size - 1) / 2},
                               {"hi", size - 1 - (size - 1) / 2},
                               {"scale", FloatLiteral(F(at, "alpha") / double(size))},
                               {"beta", FloatLiteral(F(at, "beta"))},
                               {"bias", FloatLiteral(F(at, "bias"))}});
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps&) {
    DispatchPlan p;
    p.invocations = node.inputs[0].elements();
    return p;
  };
  r.reference = [dims](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    auto d = *dims(node);
    const int64_t size = I(at, "size"), C = int64_t(d[0]), inner = int64_t(d[1]);
    const double alpha = ToF32(F(at, "alpha")), beta = ToF32(F(at, "beta")),
                 bias = ToF32(F(at, "bias"));
    RefTensor y{DType::kF32, in[0].shape, std::vector<double>(in[0].data.size())};
    for (size_t e = 0; e < in[0].data.size(); ++e) {
      const int64_t c = (int64_t(e) / inner) % C;
      const int64_t base = int64_t(e) - c * inner;
      double s = 0;
      for (int64_t j = std::max<int64_t>(0, c - (size - 1) / 2);
           j <= std::min(C - 1, c + size - 1 - (size - 1) / 2); ++j) {
        s += in[0].data[base + j * inner] * in[0].data[base + j * inner];
      }
      y.data[e] = in[0].data[e] / std::pow(bias + alpha / double(size) * s, beta);
    }
    return std::vector<RefTensor>{std::move(y)};
  };
  r.hints = {-3, 3, 1e-5, 1e-4};
  r.test_cases = {{{Shape{2, 5, 3, 4}}, {{"size", AttrValue(int64_t{3})}}, {}, "size 3"},
                  {{Shape{1, 7, 6}},
                   {{"size", AttrValue(int64_t{4})},
                    {"alpha", AttrValue(0.02)},
                    {"beta", AttrValue(0.5)},
                    {"bias", AttrValue(2.0)}},
                   {},
                   "even size, attributes"}};
  return r;
}

}  // namespace

void AddNormOps(OpTable& table) {
  table.Add(BatchNormRecord(6, 6));
  table.Add(BatchNormRecord(7, 8));
  table.Add(BatchNormRecord(9, 13));
  table.Add(BatchNormRecord(14, 99));
  table.Add(MomentsRecord(MomentsKind::kInstance));
  table.Add(MomentsRecord(MomentsKind::kLayer));
  table.Add(MomentsRecord(MomentsKind::kMvn));
  table.Add(MomentsRecord(MomentsKind::kLp));
  table.Add(LrnRecord());
}

}  // namespace alknet::compute::ops
