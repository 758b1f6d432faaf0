// The ONNX Reduce* ops (Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare).
//
// Every one is a composite over one internal kernel, alknet.Reduce
// (shaders/reduce/reduce.wgsl.hbs), described by three parts: a map applied to each element (`pre`:
// x, |x|, x^2), an associative accumulator (`acc`: sum, prod, max, min, lse = log-sum-exp) and a
// map of the result (`post`: none, mean, sqrt, log). A long reduction over few outputs runs in two
// passes: the first splits each output's reduced range into chunks and writes one partial per
// chunk, the second combines the partials with the same accumulator (sum-like ops sum, lse merges
// lse values). So a reduction of a million elements to one value is ~2000 chunks of ~500 in
// parallel, then one chunk of ~2000, never one invocation walking a million.
//
// Axes: an attribute up to ReduceSum-12 / Reduce*-17, a host input from ReduceSum-13 /
// Reduce*-18 (with noop_with_empty_axes). No axes means all of them.
#include <algorithm>
#include <cmath>

#include "ops/elementwise.h"
#include "ops/families.h"

namespace alknet::compute::ops {

namespace {

constexpr const char* kInternal = "alknet.Reduce";

struct ReduceKind {
  const char* name;
  const char* pre;   // x, abs, square
  const char* acc;   // sum, prod, max, min, lse
  const char* post;  // none, mean, sqrt, log
  bool ints;  // i32 allowed (ONNX allows ints for all; we take them where the math stays integral)
};

constexpr ReduceKind kKinds[] = {
    {"ReduceSum", "x", "sum", "none", true},
    {"ReduceMean", "x", "sum", "mean", true},
    {"ReduceMax", "x", "max", "none", true},
    {"ReduceMin", "x", "min", "none", true},
    {"ReduceProd", "x", "prod", "none", true},
    {"ReduceL1", "abs", "sum", "none", true},
    {"ReduceL2", "square", "sum", "sqrt", false},
    {"ReduceLogSum", "x", "sum", "log", false},
    {"ReduceLogSumExp", "x", "lse", "none", false},
    {"ReduceSumSquare", "square", "sum", "none", true},
};

Error AxisError(const OpNode& node, int64_t axis, size_t rank) {
  return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": axis " + std::to_string(axis) +
                                                 " is out of range for rank " +
                                                 std::to_string(rank)};
}

// Which dimensions are reduced; nullopt = none (the noop case). `axes` empty = all.
Result<std::vector<bool>> ReducedDims(const OpNode& node, const std::vector<int64_t>& axes,
                                      size_t rank) {
  std::vector<bool> red(rank, axes.empty());
  for (int64_t a : axes) {
    const int64_t r = static_cast<int64_t>(rank);
    if (a < -r || a >= r) return AxisError(node, a, rank);
    red[a < 0 ? a + r : a] = true;
  }
  return red;
}

Shape OutputShape(const Shape& in, const std::vector<bool>& red, bool keepdims) {
  Shape out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!red[d])
      out.push_back(in[d]);
    else if (keepdims)
      out.push_back(1);
  }
  return out;
}

// ---- the internal kernel ----------------------------------------------------------------

struct Plan {
  std::vector<bool> red;
  uint64_t outputs = 1, count = 1, splits = 1, chunk = 1;
  Shape out_shape;
};

Result<Plan> InternalPlan(const OpNode& node, const Attributes& at) {
  const Shape& s = node.inputs[0].shape;
  Plan p;
  ALKNET_ASSIGN_OR_RETURN(
      p.red, ReducedDims(node, std::get<std::vector<int64_t>>(at.at("axes")), s.size()));
  for (size_t d = 0; d < s.size(); ++d) (p.red[d] ? p.count : p.outputs) *= s[d];
  p.splits = static_cast<uint64_t>(std::get<int64_t>(at.at("splits")));
  if (p.count == 0) {
    return Error{ErrorCode::kShape, node.Describe() + ": reduces over an empty dimension of " +
                                        ShapeToString(s) +
                                        " (unsupported: there is nothing to reduce)"};
  }
  if (p.splits < 1 || p.splits > p.count) {
    return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": splits " +
                                                   std::to_string(p.splits) + " must be in 1.." +
                                                   std::to_string(p.count)};
  }
  p.chunk = (p.count + p.splits - 1) / p.splits;
  if ((p.splits - 1) * p.chunk >= p.count) {
    return Error{ErrorCode::kInvalidAttribute,
                 node.Describe() + ": splits " + std::to_string(p.splits) +
                     " leaves an empty chunk of " + std::to_string(p.count)};
  }
  p.out_shape = OutputShape(s, p.red, std::get<int64_t>(at.at("keepdims")) != 0);
  if (p.splits > 1) p.out_shape.push_back(p.splits);
  return p;
}

// Index terms (innermost first) for the dimensions of one class, adjacent ones coalesced
// when the layout allows it, size-1 ones dropped.
hbs::Value Terms(const Shape& shape, const std::vector<int64_t>& strides,
                 const std::vector<bool>& red, bool want) {
  std::vector<std::pair<uint64_t, int64_t>> dims;  // (extent, stride), outermost first
  for (size_t d = 0; d < shape.size(); ++d) {
    if (red[d] != want || shape[d] == 1) continue;
    if (!dims.empty() && dims.back().second == strides[d] * static_cast<int64_t>(shape[d]) &&
        d > 0 && red[d - 1] == want) {
      dims.back() = {dims.back().first * shape[d], strides[d]};
    } else {
      dims.push_back({shape[d], strides[d]});
    }
  }
  hbs::Array terms;
  for (size_t t = dims.size(); t-- > 0;) {
    // A u32 expression: negative strides (reversed views) wrap, which u32 arithmetic undoes.
    const int64_t st = dims[t].second;
    std::string stride =
        st >= 0 ? std::to_string(st) + "u" : "bitcast<u32>(" + std::to_string(st) + "i)";
    terms.push_back(
        hbs::Value::object({{"extent", dims[t].first}, {"stride", stride}, {"last", t == 0}}));
  }
  return hbs::Value(std::move(terms));
}

// Wide reductions use a workgroup per (output, chunk) on GPUs; CPU adapters (no shared
// tiles: barriers are expensive there) keep one invocation per (output, chunk).
bool UseWorkgroup(const Plan& p, const DeviceCaps& caps) {
  return caps.shared_memory_tiles && p.chunk >= 256;
}

double Pre(const std::string& pre, double x) {
  if (pre == "abs") return std::fabs(x);
  if (pre == "square") return x * x;
  return x;
}

// The float64 reduction of `vals` (already through `pre`) with accumulator `acc`.
double Accumulate(const std::string& acc, const std::vector<double>& vals) {
  double a = acc == "prod" ? 1.0 : 0.0;
  if (acc == "max" || acc == "min" || acc == "lse") a = vals[0];
  for (double v : vals) {
    if (acc == "sum")
      a += v;
    else if (acc == "prod")
      a *= v;
    else if (acc == "max")
      a = std::max(a, v);
    else if (acc == "min")
      a = std::min(a, v);
    else
      a = std::max(a, v);  // lse: first the max
  }
  if (acc == "lse") {
    if (std::isinf(a) && a < 0) return a;
    double s = 0;
    for (double v : vals) s += std::exp(v - a);
    return a + std::log(s);
  }
  return a;
}

double Post(const std::string& post, double v, double count, bool integer) {
  if (post == "mean") return integer ? std::trunc(v / count) : v / count;
  if (post == "sqrt") return std::sqrt(v);
  if (post == "log") return std::log(v);
  return v;
}

// Reference of a reduction with optional splitting: output (o, s) reduces chunk s of the
// reduced range of output o (in row-major order of the reduced dimensions).
RefTensor ReduceRef(const RefTensor& x, const std::vector<bool>& red, bool keepdims,
                    const std::string& pre, const std::string& acc, const std::string& post,
                    uint64_t splits, double count) {
  const size_t rank = x.shape.size();
  uint64_t outputs = 1, reduced = 1;
  for (size_t d = 0; d < rank; ++d) (red[d] ? reduced : outputs) *= x.shape[d];
  const uint64_t chunk = (reduced + splits - 1) / splits;
  std::vector<std::vector<double>> groups(outputs * splits);
  const Shape strides = ContiguousStridesOf(x.shape);
  for (uint64_t i = 0; i < x.data.size(); ++i) {
    uint64_t o = 0, r = 0;
    for (size_t d = 0; d < rank; ++d) {
      const uint64_t c = (i / strides[d]) % x.shape[d];
      if (red[d])
        r = r * x.shape[d] + c;
      else
        o = o * x.shape[d] + c;
    }
    groups[o * splits + r / chunk].push_back(Pre(pre, x.data[i]));
  }
  RefTensor out{x.dtype, OutputShape(x.shape, red, keepdims), {}};
  if (splits > 1) out.shape.push_back(splits);
  const bool integer = x.dtype == DType::kI32 || x.dtype == DType::kU32;
  for (const auto& g : groups) out.data.push_back(Post(post, Accumulate(acc, g), count, integer));
  return out;
}

Result<std::vector<TensorDesc>> CheckDType(const OpNode& node, bool ints) {
  const DType d = node.inputs[0].dtype;
  if (d == DType::kF32 || d == DType::kF16 || (ints && d == DType::kI32))
    return std::vector<TensorDesc>{};
  return Error{ErrorCode::kUnsupported, node.Describe() + ": " + node.op_type + " takes f32, f16" +
                                            (ints ? ", i32" : "") + "; got " + DTypeName(d)};
}

OpRecord InternalRecord() {
  OpRecord r;
  r.name = kInternal;
  r.family = "internal";
  r.shader = "reduce/reduce";
  r.summary =
      "one pass of a reduction: pre-map, accumulate over the axes (in `splits` chunks), post-map";
  r.accepts_views = true;
  auto one_of = [](std::vector<std::string> allowed) {
    return [allowed](const AttrValue& v) {
      const auto& s = std::get<std::string>(v);
      return std::find(allowed.begin(), allowed.end(), s) != allowed.end()
                 ? std::string()
                 : std::string("is not a known choice");
    };
  };
  r.attributes = {
      {"axes", AttrValue(std::vector<int64_t>{}), false, {}},
      {"keepdims", AttrValue(int64_t{1}), false, {}},
      {"pre", AttrValue(std::string("x")), false, one_of({"x", "abs", "square"})},
      {"acc", AttrValue(std::string("sum")), false, one_of({"sum", "prod", "max", "min", "lse"})},
      {"post", AttrValue(std::string("none")), false, one_of({"none", "mean", "sqrt", "log"})},
      {"splits", AttrValue(int64_t{1}), false, {}},
      {"count", AttrValue(int64_t{0}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(CheckDType(node, true));
    ALKNET_ASSIGN_OR_RETURN(Plan p, InternalPlan(node, at));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, p.out_shape}};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(Plan p, InternalPlan(node, at));
    const TensorDesc& x = node.inputs[0];
    const std::vector<int64_t> strides = x.EffectiveStrides();
    const bool integer = x.dtype == DType::kI32;
    const auto& acc = std::get<std::string>(at.at("acc"));
    const auto& pre = std::get<std::string>(at.at("pre"));
    const auto& post = std::get<std::string>(at.at("post"));
    int64_t count = std::get<int64_t>(at.at("count"));
    if (count == 0) count = static_cast<int64_t>(p.count);
    return hbs::Value::object({{"outputs", p.outputs},
                               {"count", p.count},
                               {"splits", p.splits},
                               {"chunk", p.chunk},
                               {"offset", x.offset},
                               {"kept", Terms(x.shape, strides, p.red, false)},
                               {"reduced", Terms(x.shape, strides, p.red, true)},
                               {"workgroup", UseWorkgroup(p, caps)},
                               {"acc_ty", std::string(integer ? "i32" : "f32")},
                               {"pre_abs", pre == "abs"},
                               {"pre_square", pre == "square"},
                               {"acc_sum", acc == "sum"},
                               {"acc_prod", acc == "prod"},
                               {"acc_max", acc == "max"},
                               {"acc_min", acc == "min"},
                               {"acc_lse", acc == "lse"},
                               {"post_mean", post == "mean"},
                               {"post_sqrt", post == "sqrt"},
                               {"post_log", post == "log"},
                               {"mean_count", integer ? std::to_string(count) + "i"
                                                      : FloatLiteral(static_cast<double>(count))}});
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps& caps) {
    Plan p = *InternalPlan(node, at);
    DispatchPlan d;
    const uint64_t n = p.outputs * p.splits;
    if (!UseWorkgroup(p, caps)) {
      d.invocations = n;
      return d;
    }
    const uint64_t max = caps.max_workgroups_per_dimension;
    d.kind = DispatchPlan::Kind::kGrid;
    d.groups = {std::min(n, max), (n + max - 1) / max, 1};
    d.workgroup_size = {256, 1, 1};
    return d;
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    Plan p = *InternalPlan(node, at);
    int64_t count = std::get<int64_t>(at.at("count"));
    if (count == 0) count = static_cast<int64_t>(p.count);
    return std::vector<RefTensor>{
        ReduceRef(in[0], p.red, std::get<int64_t>(at.at("keepdims")) != 0,
                  std::get<std::string>(at.at("pre")), std::get<std::string>(at.at("acc")),
                  std::get<std::string>(at.at("post")), p.splits, static_cast<double>(count))};
  };
  r.hints = {-3, 3, 1e-4, 1e-5};
  r.test_dtypes = {DType::kF32};
  using V = std::vector<int64_t>;
  r.test_cases = {
      {{Shape{5, 300, 3}},
       {{"axes", AttrValue(V{1})},
        {"pre", AttrValue(std::string("square"))},
        {"splits", AttrValue(int64_t{4})}},
       {},
       "split partials"},
      {{Shape{4, 700}},
       {{"axes", AttrValue(V{1})},
        {"keepdims", AttrValue(int64_t{0})},
        {"acc", AttrValue(std::string("lse"))},
        {"post", AttrValue(std::string("none"))}},
       {},
       "lse"},
  };
  return r;
}

// ---- the ONNX records ------------------------------------------------------------------

struct Resolved {
  bool noop = false;  // noop_with_empty_axes and no axes: the output is the input
  std::vector<bool> red;
  Shape out_shape;
};

Result<Resolved> Resolve(const OpNode& node, const Attributes& at, bool axes_input) {
  std::vector<int64_t> axes;
  Resolved r;
  if (axes_input) {
    if (node.has_input(1)) {
      const RefTensor* v = node.value(1);
      if (v->shape.size() > 1) {
        return Error{ErrorCode::kShape,
                     node.Describe() + ": axes must be 1-D, got " + ShapeToString(v->shape)};
      }
      for (double a : v->data) axes.push_back(static_cast<int64_t>(a));
    }
    r.noop = axes.empty() && std::get<int64_t>(at.at("noop_with_empty_axes")) != 0;
  } else if (auto it = at.find("axes"); it != at.end()) {
    axes = std::get<std::vector<int64_t>>(it->second);
  }
  const Shape& s = node.inputs[0].shape;
  if (r.noop) {
    r.red.assign(s.size(), false);
    r.out_shape = s;
    return r;
  }
  std::vector<bool> seen(s.size(), false);
  for (int64_t a : axes) {
    const int64_t k = a < 0 ? a + static_cast<int64_t>(s.size()) : a;
    if (k >= 0 && k < static_cast<int64_t>(s.size()) && seen[k]) {
      return Error{ErrorCode::kInvalidAttribute,
                   node.Describe() + ": axis " + std::to_string(a) + " is listed twice"};
    }
    if (k >= 0 && k < static_cast<int64_t>(s.size())) seen[k] = true;
  }
  ALKNET_ASSIGN_OR_RETURN(r.red, ReducedDims(node, axes, s.size()));
  r.out_shape = OutputShape(s, r.red, std::get<int64_t>(at.at("keepdims")) != 0);
  return r;
}

OpRecord OnnxRecord(const ReduceKind& k, int opset_min, int opset_max, bool axes_input) {
  OpRecord r;
  r.name = k.name;
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "reduce";
  r.summary = std::string("reduction (pre ") + k.pre + ", " + k.acc + ", post " + k.post +
              ") over axes" + (axes_input ? " given as input 1" : " given as an attribute");
  r.accepts_views = true;
  r.min_inputs = 1;
  r.max_inputs = axes_input ? 2 : 1;
  if (axes_input) {
    r.host_inputs = {1};
    r.attributes = {{"keepdims", AttrValue(int64_t{1}), false, {}},
                    {"noop_with_empty_axes", AttrValue(int64_t{0}), false, {}}};
  } else {
    r.attributes = {{"keepdims", AttrValue(int64_t{1}), false, {}},
                    {"axes", std::nullopt, true, [](const AttrValue& v) {
                       return v.index() == 3 ? std::string()
                                             : std::string("must be a list of ints");
                     }}};
  }
  const bool ints = k.ints;
  r.infer = [ints, axes_input](const OpNode& node,
                               const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(CheckDType(node, ints));
    ALKNET_ASSIGN_OR_RETURN(Resolved rs, Resolve(node, at, axes_input));
    for (size_t d = 0; d < rs.red.size(); ++d) {
      if (rs.red[d] && node.inputs[0].shape[d] == 0) {
        return Error{ErrorCode::kShape, node.Describe() + ": reduces over the empty dimension " +
                                            std::to_string(d) + " of " +
                                            ShapeToString(node.inputs[0].shape) + " (unsupported)"};
      }
    }
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, rs.out_shape}};
  };
  r.decompose = [k, axes_input](const OpNode& node, const Attributes& at) -> Result<Graph> {
    ALKNET_ASSIGN_OR_RETURN(Resolved rs, Resolve(node, at, axes_input));
    Graph g(static_cast<int>(node.inputs.size()));
    if (rs.noop) {
      g.outputs = {g.Add("Identity", {0})};
      return g;
    }
    const Shape& s = node.inputs[0].shape;
    std::vector<int64_t> axes;
    uint64_t outputs = 1, count = 1;
    for (size_t d = 0; d < s.size(); ++d) {
      if (rs.red[d]) axes.push_back(static_cast<int64_t>(d));
      (rs.red[d] ? count : outputs) *= s[d];
    }
    // Split when the reduced range is long and the outputs too few to fill the device:
    // aim at >= 2048 (output, chunk) pairs with chunks of ~512 elements (long enough for a
    // workgroup of 256 on a GPU, short enough to spread over a CPU's threads).
    uint64_t splits = 1;
    if (count >= 2048 && outputs < 2048) {
      splits = std::min<uint64_t>((count + 511) / 512, (2048 + outputs - 1) / outputs);
      const uint64_t chunk = (count + splits - 1) / splits;
      splits = (count + chunk - 1) / chunk;
    }
    Attributes a{{"axes", AttrValue(axes)},
                 {"keepdims", at.at("keepdims")},
                 {"pre", AttrValue(std::string(k.pre))},
                 {"acc", AttrValue(std::string(k.acc))},
                 {"post", AttrValue(std::string(k.post))}};
    if (splits == 1) {
      g.outputs = {g.Add(kInternal, {0}, a)};
      return g;
    }
    a["post"] = std::string("none");
    a["splits"] = static_cast<int64_t>(splits);
    const int partials = g.Add(kInternal, {0}, a);
    const int64_t last = static_cast<int64_t>(rs.out_shape.size());
    Attributes b{{"axes", AttrValue(std::vector<int64_t>{last})},
                 {"keepdims", AttrValue(int64_t{0})},
                 {"acc", AttrValue(std::string(k.acc))},  // partials combine like elements
                 {"post", AttrValue(std::string(k.post))},
                 {"count", AttrValue(static_cast<int64_t>(count))}};
    g.outputs = {g.Add(kInternal, {partials}, b)};
    return g;
  };
  r.reference = [k, axes_input](const OpNode& node, const Attributes& at,
                                const std::vector<RefTensor>& in) {
    Resolved rs = *Resolve(node, at, axes_input);
    if (rs.noop) return std::vector<RefTensor>{in[0]};
    uint64_t count = 1;
    for (size_t d = 0; d < rs.red.size(); ++d) {
      if (rs.red[d]) count *= in[0].shape[d];
    }
    return std::vector<RefTensor>{ReduceRef(in[0], rs.red,
                                            std::get<int64_t>(at.at("keepdims")) != 0, k.pre, k.acc,
                                            k.post, 1, static_cast<double>(count))};
  };
  // Sums of thousands of f32 terms: the error grows with the length (~1e-4 absolute here).
  r.hints = {-3, 3, 2e-4, 1e-4};
  const std::string acc = k.acc, post = k.post;
  if (acc == "prod") r.hints = {0.8, 1.2, 1e-5, 2e-4};  // products of thousands stay within f32
  if (post == "log") r.hints = {0.1, 3, 1e-4, 1e-4};
  if (std::string(k.name) == "ReduceSum" || std::string(k.name) == "ReduceMax" ||
      std::string(k.name) == "ReduceMean") {
    r.test_dtypes = {DType::kF32, DType::kI32};
  }
  using V = std::vector<int64_t>;
  auto axes_value = [](std::vector<double> v) {
    return RefTensor{DType::kI32, {v.size()}, std::move(v)};
  };
  // The long case takes the two-pass path (5000 reduced elements, 3 outputs).
  const uint64_t long_len = 5000;
  if (axes_input) {
    r.test_cases = {
        {{Shape{3, 4, 5}, Shape{2}},
         {{"keepdims", AttrValue(int64_t{0})}},
         {{1, axes_value({-1, 0})}},
         "axes -1, 0"},
        {{Shape{3, 4}, Shape{0}},
         {{"noop_with_empty_axes", AttrValue(int64_t{1})}},
         {{1, axes_value({})}},
         "noop"},
        {{Shape{3, long_len}, std::nullopt}, {}, {}, "all, long"},
    };
  } else {
    r.test_cases = {
        {{Shape{3, 4, 5}}, {{"axes", AttrValue(V{1})}}, {}, "axis 1 keepdims"},
        {{Shape{2, 3, 4}}, {{"keepdims", AttrValue(int64_t{0})}}, {}, "all"},
        {{Shape{3, long_len}},
         {{"axes", AttrValue(V{-1})}, {"keepdims", AttrValue(int64_t{0})}},
         {},
         "long axis"},
    };
  }
  return r;
}

// ---- CumSum ---------------------------------------------------------------------------------

struct ScanLines {
  uint64_t outer = 1, axis_len = 1, inner = 1;
};

Result<ScanLines> ScanSplit(const OpNode& node) {
  const RefTensor* a = node.value(1);
  const Shape& s = node.inputs[0].shape;
  if (a->data.size() != 1) {
    return Error{ErrorCode::kShape,
                 node.Describe() + ": axis must hold one value, got " + ShapeToString(a->shape)};
  }
  const int64_t rank = static_cast<int64_t>(s.size());
  int64_t axis = static_cast<int64_t>(a->data[0]);
  if (axis < -rank || axis >= rank) return AxisError(node, axis, s.size());
  if (axis < 0) axis += rank;
  ScanLines l;
  for (int64_t d = 0; d < rank; ++d)
    (d < axis ? l.outer : d == axis ? l.axis_len : l.inner) *= s[d];
  return l;
}

OpRecord CumSumRecord() {
  OpRecord r;
  r.name = "CumSum";
  r.opset_min = 11;
  r.family = "reduce";
  r.shader = "reduce/cumsum";
  r.summary = "prefix sums along an axis (input 1), inclusive or exclusive, forwards or reversed";
  r.min_inputs = r.max_inputs = 2;
  r.host_inputs = {1};
  r.attributes = {{"exclusive", AttrValue(int64_t{0}), false, {}},
                  {"reverse", AttrValue(int64_t{0}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(CheckDType(node, true));
    ALKNET_TRY(ScanSplit(node));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, node.inputs[0].shape}};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps&) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(ScanLines l, ScanSplit(node));
    return hbs::Value::object(
        {{"outer", l.outer},
         {"axis_len", l.axis_len},
         {"inner", l.inner},
         {"exclusive", std::get<int64_t>(at.at("exclusive")) != 0},
         {"reverse", std::get<int64_t>(at.at("reverse")) != 0},
         {"acc_ty", std::string(node.inputs[0].dtype == DType::kI32 ? "i32" : "f32")}});
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps&) {
    ScanLines l = *ScanSplit(node);
    DispatchPlan p;
    p.invocations = l.outer * l.inner;
    return p;
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    ScanLines l = *ScanSplit(node);
    const bool exclusive = std::get<int64_t>(at.at("exclusive")) != 0,
               reverse = std::get<int64_t>(at.at("reverse")) != 0;
    RefTensor out{in[0].dtype, in[0].shape, std::vector<double>(in[0].data.size())};
    for (uint64_t o = 0; o < l.outer; ++o) {
      for (uint64_t i = 0; i < l.inner; ++i) {
        double sum = 0;
        for (uint64_t n = 0; n < l.axis_len; ++n) {
          const uint64_t j = reverse ? l.axis_len - 1 - n : n;
          const uint64_t at_ = (o * l.axis_len + j) * l.inner + i;
          if (exclusive) out.data[at_] = sum;
          sum += in[0].data[at_];
          if (!exclusive) out.data[at_] = sum;
        }
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-3, 3, 1e-5, 1e-5};
  r.test_dtypes = {DType::kF32, DType::kI32};
  auto axis = [](double a) { return RefTensor{DType::kI32, {}, {a}}; };
  using A = Attributes;
  r.test_cases = {{{Shape{4, 5, 3}, Shape{}}, A{}, {{1, axis(1)}}, "axis 1"},
                  {{Shape{7, 6}, Shape{}},
                   A{{"exclusive", AttrValue(int64_t{1})}, {"reverse", AttrValue(int64_t{1})}},
                   {{1, axis(-1)}},
                   "exclusive reverse"}};
  return r;
}

}  // namespace

void AddReduceOps(OpTable& table) {
  table.Add(InternalRecord());
  for (const ReduceKind& k : kKinds) {
    const bool sum = std::string(k.name) == "ReduceSum";
    const int split = sum ? 13 : 18;
    table.Add(OnnxRecord(k, 1, split - 1, false));
    table.Add(OnnxRecord(k, split, 99, true));
  }
  table.Add(CumSumRecord());
}

}  // namespace alknet::compute::ops
