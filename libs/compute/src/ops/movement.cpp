// Data movement and shape ops. Most are views: no shader runs, the output shares the input's
// storage with a new layout (Reshape, Flatten: a new shape over contiguous data; Transpose,
// Squeeze, Unsqueeze, Expand, Slice with positive steps, Split: strides and an offset over any
// layout). Tile, DepthToSpace and SpaceToDepth are views followed by the executor's contiguous
// copy. Concat, Pad and Slice with negative steps have kernels (shaders/movement/).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "ops/elementwise.h"
#include "ops/families.h"
#include "ops/movement.h"
#include "ops/random.h"

namespace alknet::compute::ops {

namespace {

// Reshape's target: 0 copies the input dimension (unless allowzero), one -1 is inferred.
Result<Shape> ReshapeTarget(const OpNode& node, const Attributes& at) {
  const RefTensor* shape = node.value(1);
  const Shape& in = node.inputs[0].shape;
  if (shape->shape.size() != 1) {
    return Error{ErrorCode::kShape, node.Describe() + ": the shape input must be 1-D, got " +
                                        ShapeToString(shape->shape)};
  }
  const bool allowzero = std::get<int64_t>(at.at("allowzero")) != 0;
  Shape out;
  int infer_at = -1;
  uint64_t known = 1;
  for (size_t i = 0; i < shape->data.size(); ++i) {
    const int64_t d = static_cast<int64_t>(shape->data[i]);
    if (d == -1) {
      if (infer_at >= 0)
        return Error{ErrorCode::kShape, node.Describe() + ": more than one -1 in the target shape"};
      infer_at = static_cast<int>(i);
      out.push_back(1);
      continue;
    }
    if (d < -1)
      return Error{ErrorCode::kShape,
                   node.Describe() + ": negative dimension " + std::to_string(d)};
    uint64_t v = static_cast<uint64_t>(d);
    if (d == 0 && !allowzero) {
      if (i >= in.size()) {
        return Error{ErrorCode::kShape, node.Describe() + ": 0 at position " + std::to_string(i) +
                                            " copies an input dimension the rank-" +
                                            std::to_string(in.size()) + " input does not have"};
      }
      v = in[i];
    }
    out.push_back(v);
    known *= v;
  }
  const uint64_t total = node.inputs[0].elements();
  if (infer_at >= 0) {
    if (known == 0 || total % known != 0) {
      return Error{ErrorCode::kShape,
                   node.Describe() + ": cannot infer the -1 dimension: " + std::to_string(total) +
                       " elements do not divide by " + std::to_string(known)};
    }
    out[infer_at] = total / known;
    known = total;
  }
  if (known != total) {
    return Error{ErrorCode::kShape, node.Describe() + ": target " + ShapeToString(out) + " holds " +
                                        std::to_string(known) + " elements, the input " +
                                        std::to_string(total)};
  }
  return out;
}

OpRecord ReshapeRecord() {
  OpRecord r;
  r.name = "Reshape";
  r.opset_min = 5;
  r.family = "movement";
  r.summary = "the same elements under a new shape (a view; no copy for contiguous input)";
  r.min_inputs = r.max_inputs = 2;
  r.host_inputs = {1};
  r.attributes = {{"allowzero", AttrValue(int64_t{0}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(Shape s, ReshapeTarget(node, at));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, s}};
  };
  r.view = [](const OpNode& node, const Attributes& at) -> Result<TensorDesc> {
    ALKNET_ASSIGN_OR_RETURN(Shape s, ReshapeTarget(node, at));
    TensorDesc d{node.inputs[0].dtype, s};
    d.offset = node.inputs[0].offset;
    return d;
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    return std::vector<RefTensor>{
        RefTensor{in[0].dtype, ReshapeTarget(node, at).value(), in[0].data}};
  };
  r.test_dtypes = {DType::kF32, DType::kI32};
  auto shape = [](std::vector<double> v) {
    return RefTensor{DType::kI32, {v.size()}, std::move(v)};
  };
  r.test_cases = {
      {{Shape{2, 3, 4}, Shape{3}}, {}, {{1, shape({4, -1, 2})}}, "infer -1"},
      {{Shape{2, 3, 4}, Shape{2}}, {}, {{1, shape({0, 12})}}, "0 copies"},
      {{Shape{5, 7}, Shape{1}}, {}, {{1, shape({35})}}, "flatten"},
  };
  return r;
}

using Ints = std::vector<int64_t>;

Ints IntsAttr(const Attributes& at, const std::string& name) {
  auto it = at.find(name);
  return it == at.end() ? Ints{} : std::get<Ints>(it->second);
}

bool HasAttr(const Attributes& at, const std::string& name) { return at.count(name) != 0; }

// A record whose output is input 0 under the layout `view` returns; `infer` takes the shape
// from the same function, so the two cannot disagree.
OpRecord ViewRecord(std::string name, int opset_min, int opset_max, std::string summary,
                    bool composes,
                    std::function<Result<TensorDesc>(const OpNode&, const Attributes&)> view) {
  OpRecord r;
  r.name = std::move(name);
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "movement";
  r.summary = std::move(summary);
  r.accepts_views = composes;
  // An empty result reads nothing: a plain layout spares consumers index math over
  // zero-extent dimensions.
  r.view = [view](const OpNode& node, const Attributes& at) -> Result<TensorDesc> {
    ALKNET_ASSIGN_OR_RETURN(TensorDesc d, view(node, at));
    if (d.elements() == 0) return TensorDesc{d.dtype, d.shape};
    return d;
  };
  r.infer = [view](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(TensorDesc d, view(node, at));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, d.shape}};
  };
  r.reference = [view](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    TensorDesc layout = view(node, at).value();
    return std::vector<RefTensor>{StridedRead(
        in[0], layout.shape, static_cast<int64_t>(layout.offset), layout.EffectiveStrides())};
  };
  r.test_dtypes = {DType::kF32};
  return r;
}

// --- Transpose ------------------------------------------------------------------------------

Result<TensorDesc> TransposeView(const OpNode& node, const Attributes& at) {
  const TensorDesc& in = node.inputs[0];
  const size_t rank = in.shape.size();
  Ints perm = IntsAttr(at, "perm");
  if (!HasAttr(at, "perm")) {
    for (size_t i = rank; i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  }
  if (perm.size() != rank) {
    return Error{ErrorCode::kInvalidAttribute,
                 node.Describe() + ": perm has " + std::to_string(perm.size()) +
                     " entries for a rank-" + std::to_string(rank) + " input"};
  }
  std::vector<bool> seen(rank, false);
  const std::vector<int64_t> st = in.EffectiveStrides();
  TensorDesc d{in.dtype, {}, {}, in.offset};
  for (int64_t p : perm) {
    if (p < 0) p += static_cast<int64_t>(rank);
    if (p < 0 || p >= static_cast<int64_t>(rank) || seen[p]) {
      return Error{ErrorCode::kInvalidAttribute,
                   node.Describe() + ": perm " + AttrToString(at.at("perm")) +
                       " is not a permutation of 0.." + std::to_string(rank - 1)};
    }
    seen[p] = true;
    d.shape.push_back(in.shape[p]);
    d.strides.push_back(st[p]);
  }
  return d;
}

// --- Squeeze / Unsqueeze / Flatten
// ----------------------------------------------------------------

Result<Ints> AxesOf(const OpNode& node, const Attributes& at, bool from_input,
                    const std::string& what) {
  if (from_input) {
    if (!node.has_input(1)) return Ints{};
    return HostInts(node, 1, what);
  }
  return IntsAttr(at, "axes");
}

Result<TensorDesc> SqueezeView(const OpNode& node, const Attributes& at, bool from_input) {
  const TensorDesc& in = node.inputs[0];
  ALKNET_ASSIGN_OR_RETURN(Ints axes, AxesOf(node, at, from_input, "axes"));
  std::vector<bool> drop(in.shape.size(), false);
  const bool all = axes.empty() && !(from_input ? node.has_input(1) : HasAttr(at, "axes"));
  for (int64_t a : axes) {
    ALKNET_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(node, a, in.shape.size(), "axis"));
    if (in.shape[ax] != 1) {
      return Error{ErrorCode::kShape, node.Describe() + ": axis " + std::to_string(a) +
                                          " has extent " + std::to_string(in.shape[ax]) +
                                          ", not 1"};
    }
    drop[ax] = true;
  }
  const std::vector<int64_t> st = in.EffectiveStrides();
  TensorDesc d{in.dtype, {}, {}, in.offset};
  for (size_t k = 0; k < in.shape.size(); ++k) {
    if (drop[k] || (all && in.shape[k] == 1)) continue;
    d.shape.push_back(in.shape[k]);
    d.strides.push_back(st[k]);
  }
  return d;
}

Result<TensorDesc> UnsqueezeView(const OpNode& node, const Attributes& at, bool from_input) {
  const TensorDesc& in = node.inputs[0];
  ALKNET_ASSIGN_OR_RETURN(Ints axes, AxesOf(node, at, from_input, "axes"));
  const size_t rank = in.shape.size() + axes.size();
  std::vector<bool> added(rank, false);
  for (int64_t a : axes) {
    ALKNET_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(node, a, rank, "axis"));
    if (added[ax])
      return Error{ErrorCode::kInvalidAttribute,
                   node.Describe() + ": axis " + std::to_string(a) + " is repeated"};
    added[ax] = true;
  }
  const std::vector<int64_t> st = in.EffectiveStrides();
  TensorDesc d{in.dtype, {}, {}, in.offset};
  size_t k = 0;
  for (size_t o = 0; o < rank; ++o) {
    if (added[o]) {
      d.shape.push_back(1);
      d.strides.push_back(0);
    } else {
      d.shape.push_back(in.shape[k]);
      d.strides.push_back(st[k]);
      ++k;
    }
  }
  return d;
}

Result<TensorDesc> FlattenView(const OpNode& node, const Attributes& at) {
  const TensorDesc& in = node.inputs[0];
  // axis is in [-rank, rank]: negative counts from the back, rank gives [prod, 1].
  const int64_t rank = static_cast<int64_t>(in.shape.size());
  int64_t axis = std::get<int64_t>(at.at("axis"));
  if (axis < -rank || axis > rank) {
    return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": axis " + std::to_string(axis) +
                                                   " is out of range [" + std::to_string(-rank) +
                                                   ", " + std::to_string(rank) + "]"};
  }
  if (axis < 0) axis += rank;
  uint64_t a = 1, b = 1;
  for (size_t k = 0; k < in.shape.size(); ++k)
    (static_cast<int64_t>(k) < axis ? a : b) *= in.shape[k];
  TensorDesc d{in.dtype, {a, b}};
  d.offset = in.offset;
  return d;
}

// --- Expand -------------------------------------------------------------------------------------

Result<TensorDesc> ExpandView(const OpNode& node, const Attributes&) {
  const TensorDesc& in = node.inputs[0];
  ALKNET_ASSIGN_OR_RETURN(Ints target, HostInts(node, 1, "shape"));
  Shape want;
  for (int64_t v : target) {
    if (v < 0)
      return Error{ErrorCode::kShape, node.Describe() + ": negative extent in the shape input"};
    want.push_back(static_cast<uint64_t>(v));
  }
  ALKNET_ASSIGN_OR_RETURN(Shape out, BroadcastShapes({in.shape, want}));
  const std::vector<int64_t> st = in.EffectiveStrides();
  TensorDesc d{in.dtype, out, std::vector<int64_t>(out.size(), 0), in.offset};
  const size_t lead = out.size() - in.shape.size();
  for (size_t k = 0; k < in.shape.size(); ++k) {
    d.strides[lead + k] = in.shape[k] == 1 && out[lead + k] != 1 ? 0 : st[k];
  }
  return d;
}

// --- Slice and the internal strided records ----------------------------------------------------

struct SliceSpec {
  Ints starts, steps;  // one per dimension of the input
  Shape shape;
};

// ONNX Slice: negative starts/ends count from the end, then clamp to [0, dim] (positive
// steps) or [-1, dim-1] (negative steps).
Result<SliceSpec> SliceOf(const OpNode& node, const Ints& starts, const Ints& ends, Ints axes,
                          Ints steps) {
  const Shape& in = node.inputs[0].shape;
  const size_t rank = in.size();
  if (starts.size() != ends.size()) {
    return Error{ErrorCode::kShape, node.Describe() + ": starts and ends differ in length"};
  }
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size()) {
    return Error{ErrorCode::kShape,
                 node.Describe() + ": starts, ends, axes and steps differ in length"};
  }
  SliceSpec s{Ints(rank, 0), Ints(rank, 1), in};
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    ALKNET_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(node, axes[i], rank, "axis"));
    if (seen[ax])
      return Error{ErrorCode::kInvalidArgument,
                   node.Describe() + ": axis " + std::to_string(axes[i]) + " is repeated"};
    seen[ax] = true;
    const int64_t dim = static_cast<int64_t>(in[ax]);
    const int64_t step = steps[i];
    if (step == 0) return Error{ErrorCode::kInvalidArgument, node.Describe() + ": a step is 0"};
    int64_t b = starts[i], e = ends[i];
    if (b < 0) b += dim;  // INT64_MIN + dim cannot overflow
    if (e < 0) e += dim;
    if (step > 0) {
      b = std::clamp<int64_t>(b, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
    } else {
      b = std::clamp<int64_t>(b, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
    }
    int64_t count = 0;
    if (step > 0 && e > b) count = (e - b + step - 1) / step;
    if (step < 0 && b > e) count = (b - e + (-step) - 1) / (-step);
    s.starts[ax] = count > 0 ? b : 0;
    s.steps[ax] = step;
    s.shape[ax] = static_cast<uint64_t>(count);
  }
  return s;
}

Result<SliceSpec> SliceSpecOf(const OpNode& node, const Attributes& at) {
  if (node.opset < 10) {
    return SliceOf(node, IntsAttr(at, "starts"), IntsAttr(at, "ends"), IntsAttr(at, "axes"), {});
  }
  ALKNET_ASSIGN_OR_RETURN(Ints starts, HostInts(node, 1, "starts"));
  ALKNET_ASSIGN_OR_RETURN(Ints ends, HostInts(node, 2, "ends"));
  Ints axes, steps;
  if (node.has_input(3)) {
    ALKNET_ASSIGN_OR_RETURN(axes, HostInts(node, 3, "axes"));
  }
  if (node.has_input(4)) {
    ALKNET_ASSIGN_OR_RETURN(steps, HostInts(node, 4, "steps"));
  }
  return SliceOf(node, starts, ends, axes, steps);
}

// The internal strided records' spec, from their attributes.
Result<SliceSpec> StridedSpec(const OpNode& node, const Attributes& at) {
  SliceSpec s{IntsAttr(at, "starts"), IntsAttr(at, "steps"), {}};
  for (int64_t v : IntsAttr(at, "shape")) s.shape.push_back(static_cast<uint64_t>(v));
  const size_t rank = node.inputs[0].shape.size();
  if (s.starts.size() != rank || s.steps.size() != rank || s.shape.size() != rank) {
    return Error{ErrorCode::kInvalidAttribute,
                 node.Describe() + ": starts, steps and shape need one entry per dimension"};
  }
  for (size_t d = 0; d < rank; ++d) {
    if (s.shape[d] == 0) continue;
    const int64_t last = s.starts[d] + static_cast<int64_t>(s.shape[d] - 1) * s.steps[d];
    const int64_t dim = static_cast<int64_t>(node.inputs[0].shape[d]);
    if (s.starts[d] < 0 || s.starts[d] >= dim || last < 0 || last >= dim) {
      return Error{ErrorCode::kShape,
                   node.Describe() + ": the strided read leaves dimension " + std::to_string(d)};
    }
  }
  return s;
}

// The layout of a slice over `in` (any layout): offset and strides in storage elements.
TensorDesc SliceLayout(const TensorDesc& in, const SliceSpec& s) {
  const std::vector<int64_t> st = in.EffectiveStrides();
  TensorDesc d{in.dtype, s.shape, std::vector<int64_t>(s.shape.size()), in.offset};
  int64_t off = static_cast<int64_t>(in.offset);
  for (size_t k = 0; k < s.shape.size(); ++k) {
    off += s.starts[k] * st[k];
    d.strides[k] = st[k] * s.steps[k];
  }
  d.offset = static_cast<uint64_t>(off);
  if (d.elements() == 0) return TensorDesc{in.dtype, s.shape};
  return d;
}

Attributes StridedAttrs(const SliceSpec& s) {
  return {
      {"starts", s.starts}, {"steps", s.steps}, {"shape", Ints(s.shape.begin(), s.shape.end())}};
}

std::vector<AttributeSpec> StridedAttrSpecs() {
  return {{"starts", std::nullopt, false, {}},
          {"steps", std::nullopt, false, {}},
          {"shape", std::nullopt, false, {}}};
}

OpRecord SliceViewRecord() {
  OpRecord r =
      ViewRecord("alknet.SliceView", 1, 99, "a strided view with positive steps (Slice, Split)",
                 true, [](const OpNode& node, const Attributes& at) -> Result<TensorDesc> {
                   ALKNET_ASSIGN_OR_RETURN(SliceSpec s, StridedSpec(node, at));
                   for (int64_t st : s.steps) {
                     if (st <= 0)
                       return Error{ErrorCode::kInvalidAttribute,
                                    node.Describe() + ": steps must be positive in a view"};
                   }
                   return SliceLayout(node.inputs[0], s);
                 });
  r.family = "internal";
  r.attributes = StridedAttrSpecs();
  r.test_cases = {{{Shape{6, 7}},
                   {{"starts", Ints{1, 2}}, {"steps", Ints{2, 3}}, {"shape", Ints{3, 2}}},
                   {},
                   "steps"}};
  return r;
}

OpRecord StridedCopyRecord() {
  OpRecord r;
  r.name = "alknet.StridedCopy";
  r.family = "internal";
  r.shader = "movement/strided";
  r.summary = "a strided read with any steps, negative included (Slice)";
  r.accepts_views = true;
  r.attributes = StridedAttrSpecs();
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(SliceSpec s, StridedSpec(node, at));
    ALKNET_TRY(CheckIndexable(node, node.inputs[0].elements() + node.inputs[0].offset));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, s.shape}};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(SliceSpec s, StridedSpec(node, at));
    TensorDesc layout = SliceLayout(node.inputs[0], s);
    hbs::Value ctx = LinearContext(layout.elements(), 1, caps);
    ctx.as_object().set("offset", static_cast<long long>(layout.offset));
    ctx.as_object().set("terms", hbs::Value(CoordTerms(layout.shape, layout.strides)));
    return ctx;
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps& caps) {
    return LinearDispatch(node.outputs.at(0).elements(), caps);
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    TensorDesc layout =
        SliceLayout(TensorDesc{in[0].dtype, in[0].shape}, StridedSpec(node, at).value());
    return std::vector<RefTensor>{
        StridedRead(in[0], layout.shape, static_cast<int64_t>(layout.offset), layout.strides)};
  };
  r.test_cases = {{{Shape{6, 7}},
                   {{"starts", Ints{5, 1}}, {"steps", Ints{-2, 3}}, {"shape", Ints{3, 2}}},
                   {},
                   "negative"}};
  return r;
}

OpRecord SliceRecord(int opset_min, int opset_max) {
  OpRecord r;
  r.name = "Slice";
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "movement";
  r.summary = "elements [start, end) by step along some axes (a view for positive steps)";
  r.accepts_views = true;
  if (opset_min < 10) {
    r.attributes = {{"starts", std::nullopt, false, {}},
                    {"ends", std::nullopt, false, {}},
                    {"axes", std::nullopt, true, {}}};
  } else {
    r.min_inputs = 3;
    r.max_inputs = 5;
    r.host_inputs = {1, 2, 3, 4};
  }
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(SliceSpec s, SliceSpecOf(node, at));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, s.shape}};
  };
  r.decompose = [](const OpNode& node, const Attributes& at) -> Result<Graph> {
    ALKNET_ASSIGN_OR_RETURN(SliceSpec s, SliceSpecOf(node, at));
    const bool forward =
        std::all_of(s.steps.begin(), s.steps.end(), [](int64_t v) { return v > 0; });
    Graph g(static_cast<int>(node.inputs.size()));
    g.outputs = {g.Add(forward ? "alknet.SliceView" : "alknet.StridedCopy", {0}, StridedAttrs(s))};
    return g;
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    SliceSpec s = SliceSpecOf(node, at).value();
    TensorDesc layout = SliceLayout(TensorDesc{in[0].dtype, in[0].shape}, s);
    return std::vector<RefTensor>{
        StridedRead(in[0], layout.shape, static_cast<int64_t>(layout.offset), layout.strides)};
  };
  r.test_dtypes = {DType::kF32};
  if (opset_min < 10) {
    r.test_cases = {{{Shape{5, 6, 7}},
                     {{"starts", Ints{1, -4}}, {"ends", Ints{1000, -1}}, {"axes", Ints{0, 2}}},
                     {},
                     "attrs"}};
  } else {
    r.test_cases = {
        {{Shape{5, 6, 7}, Shape{2}, Shape{2}, Shape{2}, Shape{2}},
         {},
         {{1, *IntList({1, -1})},
          {2, *IntList({1000, -1000})},
          {3, *IntList({0, -1})},
          {4, *IntList({2, -2})}},
         "negative step"},
        {{Shape{5, 6, 7}, Shape{1}, Shape{1}, std::nullopt, std::nullopt},
         {},
         {{1, *IntList({-3})}, {2, *IntList({INT32_MAX})}},
         "default axes"},
    };
  }
  return r;
}

// --- Split
// ----------------------------------------------------------------------------------------

// Split sizes: the `split` list (attribute or input), else `num_outputs` (opset 18; earlier
// opsets accept it too, as the way to state an equal split's output count, which ONNX takes
// from the node's output list), else the node's outputs when the caller filled them in.
Result<std::vector<uint64_t>> SplitSizes(const OpNode& node, const Attributes& at,
                                         int64_t* axis_out) {
  const Shape& in = node.inputs[0].shape;
  ALKNET_ASSIGN_OR_RETURN(int64_t axis,
                          NormalizeAxis(node, std::get<int64_t>(at.at("axis")), in.size(), "axis"));
  *axis_out = axis;
  const uint64_t dim = in[axis];
  Ints split;
  bool given = false;
  if (node.opset >= 13 || node.has_input(1)) {
    if (node.has_input(1)) {
      ALKNET_ASSIGN_OR_RETURN(split, HostInts(node, 1, "split"));
      given = true;
    }
  } else if (HasAttr(at, "split")) {
    split = IntsAttr(at, "split");
    given = true;
  }
  std::vector<uint64_t> sizes;
  if (given) {
    uint64_t sum = 0;
    for (int64_t v : split) {
      if (v < 0) return Error{ErrorCode::kShape, node.Describe() + ": negative split size"};
      sizes.push_back(static_cast<uint64_t>(v));
      sum += static_cast<uint64_t>(v);
    }
    if (sum != dim) {
      return Error{ErrorCode::kShape, node.Describe() + ": split sizes add up to " +
                                          std::to_string(sum) + ", the axis has " +
                                          std::to_string(dim)};
    }
    return sizes;
  }
  int64_t n = HasAttr(at, "num_outputs") ? std::get<int64_t>(at.at("num_outputs"))
                                         : static_cast<int64_t>(node.outputs.size());
  if (n <= 0) {
    return Error{ErrorCode::kInvalidAttribute,
                 node.Describe() +
                     ": an equal split needs its output count: set num_outputs "
                     "(or pass the node's outputs)"};
  }
  const uint64_t each = (dim + static_cast<uint64_t>(n) - 1) / static_cast<uint64_t>(n);
  if (node.opset < 18 && dim % static_cast<uint64_t>(n) != 0) {
    return Error{ErrorCode::kShape, node.Describe() + ": axis extent " + std::to_string(dim) +
                                        " does not split into " + std::to_string(n) +
                                        " equal parts"};
  }
  uint64_t left = dim;
  for (int64_t k = 0; k < n; ++k) {
    sizes.push_back(std::min(each, left));
    left -= sizes.back();
  }
  return sizes;
}

std::vector<SliceSpec> SplitSpecs(const Shape& in, int64_t axis,
                                  const std::vector<uint64_t>& sizes) {
  std::vector<SliceSpec> out;
  uint64_t start = 0;
  for (uint64_t sz : sizes) {
    SliceSpec s{Ints(in.size(), 0), Ints(in.size(), 1), in};
    s.starts[axis] = sz > 0 ? static_cast<int64_t>(start) : 0;
    s.shape[axis] = sz;
    start += sz;
    out.push_back(s);
  }
  return out;
}

OpRecord SplitRecord(int opset_min, int opset_max) {
  OpRecord r;
  r.name = "Split";
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "movement";
  r.summary = "consecutive pieces along an axis (views; sizes given, or equal parts)";
  r.accepts_views = true;
  r.max_inputs = 2;
  r.attributes = {{"axis", AttrValue(int64_t{0}), false, {}},
                  {"num_outputs", std::nullopt, true, {}}};
  if (opset_min < 13) r.attributes.push_back({"split", std::nullopt, true, {}});
  r.host_inputs = {1};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    int64_t axis = 0;
    ALKNET_ASSIGN_OR_RETURN(auto sizes, SplitSizes(node, at, &axis));
    std::vector<TensorDesc> outs;
    for (const SliceSpec& s : SplitSpecs(node.inputs[0].shape, axis, sizes))
      outs.push_back({node.inputs[0].dtype, s.shape});
    return outs;
  };
  r.decompose = [](const OpNode& node, const Attributes& at) -> Result<Graph> {
    int64_t axis = 0;
    ALKNET_ASSIGN_OR_RETURN(auto sizes, SplitSizes(node, at, &axis));
    Graph g(static_cast<int>(node.inputs.size()));
    for (const SliceSpec& s : SplitSpecs(node.inputs[0].shape, axis, sizes)) {
      g.outputs.push_back(g.Add("alknet.SliceView", {0}, StridedAttrs(s)));
    }
    return g;
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    int64_t axis = 0;
    auto sizes = SplitSizes(node, at, &axis).value();
    std::vector<RefTensor> outs;
    for (const SliceSpec& s : SplitSpecs(in[0].shape, axis, sizes)) {
      TensorDesc layout = SliceLayout(TensorDesc{in[0].dtype, in[0].shape}, s);
      outs.push_back(
          StridedRead(in[0], layout.shape, static_cast<int64_t>(layout.offset), layout.strides));
    }
    return outs;
  };
  if (opset_min < 13) {
    r.test_cases = {
        {{Shape{4, 6}}, {{"axis", int64_t{1}}, {"split", Ints{1, 3, 2}}}, {}, "sizes attribute"},
        {{Shape{4, 6}}, {{"num_outputs", int64_t{2}}}, {}, "equal"}};
  } else {
    r.test_cases = {
        {{Shape{4, 6}, Shape{2}}, {{"axis", int64_t{-1}}}, {{1, *IntList({4, 2})}}, "sizes input"},
        {{Shape{5, 6}, std::nullopt}, {{"num_outputs", int64_t{3}}}, {}, "uneven (18)"}};
    if (opset_min < 18)
      r.test_cases[1] = {{Shape{6, 5}, std::nullopt}, {{"num_outputs", int64_t{3}}}, {}, "equal"};
  }
  return r;
}

// --- Concat
// -----------------------------------------------------------------------------------------

// At most this many inputs per kernel: with the output, WebGPU's default limit of 8 storage
// buffers per shader stage. More inputs concatenate in a tree.
constexpr size_t kConcatFanIn = 7;

Result<int64_t> ConcatAxis(const OpNode& node, const Attributes& at) {
  if (!HasAttr(at, "axis") && node.opset >= 4) {
    return Error{ErrorCode::kInvalidAttribute,
                 node.Describe() + ": required attribute 'axis' is missing"};
  }
  const int64_t axis = HasAttr(at, "axis") ? std::get<int64_t>(at.at("axis")) : 1;
  return NormalizeAxis(node, axis, node.inputs.at(0).shape.size(), "axis");
}

Result<std::vector<TensorDesc>> ConcatInfer(const OpNode& node, const Attributes& at) {
  ALKNET_ASSIGN_OR_RETURN(int64_t axis, ConcatAxis(node, at));
  Shape out = node.inputs[0].shape;
  out[axis] = 0;
  for (const TensorDesc& in : node.inputs) {
    bool ok = in.shape.size() == out.size() && in.dtype == node.inputs[0].dtype;
    for (size_t d = 0; ok && d < out.size(); ++d)
      ok = d == static_cast<size_t>(axis) || in.shape[d] == out[d];
    if (!ok) {
      return Error{ErrorCode::kShape,
                   node.Describe() + ": inputs must share dtype, rank and every extent but axis " +
                       std::to_string(axis)};
    }
    out[axis] += in.shape[axis];
  }
  return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, out}};
}

struct ConcatLines {
  uint64_t inner = 1, total = 0;
};

ConcatLines ConcatLinesOf(const Shape& out, int64_t axis) {
  ConcatLines l;
  for (size_t d = static_cast<size_t>(axis) + 1; d < out.size(); ++d) l.inner *= out[d];
  l.total = out[axis];
  return l;
}

std::vector<RefTensor> ConcatReference(const OpNode& node, const Attributes& at,
                                       const std::vector<RefTensor>& in) {
  const int64_t axis = ConcatAxis(node, at).value();
  const TensorDesc& od = node.outputs.at(0);
  RefTensor out{od.dtype, od.shape, {}};
  uint64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= od.shape[d];
  for (uint64_t o = 0; o < outer; ++o) {
    for (const RefTensor& t : in) {
      const uint64_t run = t.data.size() / std::max<uint64_t>(outer, 1);
      out.data.insert(out.data.end(), t.data.begin() + static_cast<long>(o * run),
                      t.data.begin() + static_cast<long>((o + 1) * run));
    }
  }
  return {out};
}

OpRecord ConcatKernelRecord() {
  OpRecord r;
  r.name = "alknet.Concat";
  r.family = "internal";
  r.shader = "movement/concat";
  r.summary = "Concat of up to 7 inputs in one kernel";
  r.min_inputs = 1;
  r.max_inputs = kConcatFanIn;
  r.attributes = {{"axis", AttrValue(int64_t{0}), false, {}}};
  r.infer = ConcatInfer;
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(int64_t axis, ConcatAxis(node, at));
    const Shape& out = node.outputs.at(0).shape;
    ALKNET_TRY(CheckIndexable(node, node.outputs[0].elements()));
    ConcatLines l = ConcatLinesOf(out, axis);
    const uint32_t vec = l.inner % 4 == 0 ? 4 : 1;
    hbs::Array parts;
    uint64_t start = 0;
    for (const TensorDesc& in : node.inputs) {
      parts.push_back(hbs::Value::object(
          {{"start", start}, {"end", start + in.shape[axis]}, {"rows", in.shape[axis]}}));
      start += in.shape[axis];
    }
    hbs::Value ctx = LinearContext(node.outputs[0].elements() / vec, vec, caps);
    ctx.as_object().set("inner", std::max<uint64_t>(1, l.inner / vec));
    ctx.as_object().set("total", std::max<uint64_t>(1, l.total));
    ctx.as_object().set("parts", hbs::Value(std::move(parts)));
    return ctx;
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps& caps) {
    ConcatLines l = ConcatLinesOf(node.outputs.at(0).shape, ConcatAxis(node, at).value());
    return LinearDispatch(node.outputs[0].elements() / (l.inner % 4 == 0 ? 4 : 1), caps);
  };
  r.reference = ConcatReference;
  r.test_dtypes = {DType::kF32, DType::kI32};
  r.test_cases = {
      {{Shape{2, 3, 4}, Shape{2, 1, 4}, Shape{2, 5, 4}}, {{"axis", int64_t{1}}}, {}, "vec4"}};
  return r;
}

OpRecord ConcatRecord() {
  OpRecord r;
  r.name = "Concat";
  r.family = "movement";
  r.summary = "inputs joined along an axis";
  r.min_inputs = 1;
  r.max_inputs = 4096;
  r.attributes = {{"axis", std::nullopt, true, {}}};
  r.infer = ConcatInfer;
  r.decompose = [](const OpNode& node, const Attributes& at) -> Result<Graph> {
    ALKNET_ASSIGN_OR_RETURN(int64_t axis, ConcatAxis(node, at));
    Graph g(static_cast<int>(node.inputs.size()));
    std::vector<int> vals(node.inputs.size());
    std::iota(vals.begin(), vals.end(), 0);
    if (vals.size() == 1) {
      g.outputs = {g.Add("Identity", {0})};
      return g;
    }
    while (vals.size() > kConcatFanIn) {
      std::vector<int> next;
      for (size_t k = 0; k < vals.size(); k += kConcatFanIn) {
        std::vector<int> chunk(
            vals.begin() + static_cast<long>(k),
            vals.begin() + static_cast<long>(std::min(vals.size(), k + kConcatFanIn)));
        next.push_back(chunk.size() == 1 ? chunk[0]
                                         : g.Add("alknet.Concat", chunk, {{"axis", axis}}));
      }
      vals = next;
    }
    g.outputs = {g.Add("alknet.Concat", vals, {{"axis", axis}})};
    return g;
  };
  r.reference = ConcatReference;
  r.test_cases = {{{Shape{3, 2}, Shape{3, 1}, Shape{3, 3}}, {{"axis", int64_t{-1}}}, {}, "axis -1"},
                  {std::vector<std::optional<Shape>>(9, Shape{2, 3}),
                   {{"axis", int64_t{0}}},
                   {},
                   "9 inputs (a tree)"}};
  return r;
}

// --- Pad
// --------------------------------------------------------------------------------------------

struct PadSpec {
  Ints pads;  // begin per dimension, then end per dimension
  double value = 0;
  std::string mode;
};

Result<PadSpec> PadSpecOf(const OpNode& node, const Attributes& at) {
  const size_t rank = node.inputs[0].shape.size();
  PadSpec p;
  p.mode = std::get<std::string>(at.at("mode"));
  Ints pads;
  if (node.opset < 11) {
    pads = IntsAttr(at, node.opset < 2 ? "paddings" : "pads");
    p.value = std::get<double>(at.at("value"));
  } else {
    ALKNET_ASSIGN_OR_RETURN(pads, HostInts(node, 1, "pads"));
    if (node.has_input(2)) {
      std::vector<double> v = HostValues(node, 2);
      if (v.size() != 1)
        return Error{ErrorCode::kShape, node.Describe() + ": constant_value must hold one value"};
      p.value = v[0];
    }
  }
  Ints axes;
  if (node.opset >= 18 && node.has_input(3)) {
    ALKNET_ASSIGN_OR_RETURN(axes, HostInts(node, 3, "axes"));
  } else {
    for (size_t d = 0; d < rank; ++d) axes.push_back(static_cast<int64_t>(d));
  }
  if (pads.size() != 2 * axes.size()) {
    return Error{ErrorCode::kShape, node.Describe() + ": pads has " + std::to_string(pads.size()) +
                                        " entries; " + std::to_string(2 * axes.size()) +
                                        " expected (begin and end per axis)"};
  }
  p.pads.assign(2 * rank, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    ALKNET_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(node, axes[i], rank, "axis"));
    p.pads[ax] = pads[i];
    p.pads[rank + ax] = pads[axes.size() + i];
  }
  for (size_t d = 0; d < rank; ++d) {
    const int64_t out =
        static_cast<int64_t>(node.inputs[0].shape[d]) + p.pads[d] + p.pads[rank + d];
    if (out < 0)
      return Error{ErrorCode::kShape, node.Describe() + ": pads remove more than dimension " +
                                          std::to_string(d) + " holds"};
    if (p.mode != "constant" && node.inputs[0].shape[d] == 0 && out > 0) {
      return Error{ErrorCode::kShape,
                   node.Describe() + ": mode " + p.mode + " cannot pad an empty dimension"};
    }
  }
  return p;
}

Shape PaddedShape(const Shape& in, const Ints& pads) {
  Shape out(in.size());
  for (size_t d = 0; d < in.size(); ++d) {
    out[d] = static_cast<uint64_t>(static_cast<int64_t>(in[d]) + pads[d] + pads[in.size() + d]);
  }
  return out;
}

// The input coordinate an output coordinate reads, or -1 for the constant.
int64_t PadSource(int64_t x, int64_t size, const std::string& mode) {
  if (x >= 0 && x < size) return x;
  if (mode == "constant") return -1;
  if (mode == "edge") return std::clamp<int64_t>(x, 0, size - 1);
  if (mode == "wrap") return ((x % size) + size) % size;
  if (size == 1) return 0;
  const int64_t period = 2 * (size - 1);
  x = ((x % period) + period) % period;
  return x >= size ? period - x : x;
}

OpRecord PadRecord(int opset_min, int opset_max) {
  OpRecord r;
  r.name = "Pad";
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "movement";
  r.shader = "movement/pad";
  r.summary = "pads (or crops, when negative) each dimension: constant, edge, reflect or wrap";
  // wrap is opset 19's; earlier opsets accept it too (no model of theirs carries it, and its
  // meaning is fixed).
  auto mode = [](const AttrValue& v) {
    const std::string& m = std::get<std::string>(v);
    return m == "constant" || m == "edge" || m == "reflect" || m == "wrap"
               ? std::string()
               : std::string("must be constant, edge, reflect or wrap");
  };
  r.attributes = {{"mode", AttrValue(std::string("constant")), false, mode}};
  if (opset_min < 11) {
    r.attributes.push_back({opset_min < 2 ? "paddings" : "pads", std::nullopt, false, {}});
    r.attributes.push_back({"value", AttrValue(0.0), false, FiniteFloat});
  } else {
    r.min_inputs = 2;
    r.max_inputs = opset_min >= 18 ? 4 : 3;
    r.host_inputs = {1, 2, 3};
  }
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(PadSpec p, PadSpecOf(node, at));
    TensorDesc o{node.inputs[0].dtype, PaddedShape(node.inputs[0].shape, p.pads)};
    ALKNET_TRY(CheckIndexable(node, std::max(o.elements(), node.inputs[0].elements())));
    return std::vector<TensorDesc>{o};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(PadSpec p, PadSpecOf(node, at));
    const Shape& in = node.inputs[0].shape;
    const Shape out = node.outputs.at(0).shape;
    const Shape st = ContiguousStridesOf(in);
    hbs::Array dims;
    for (size_t d = in.size(); d-- > 0;) {
      const int64_t size = static_cast<int64_t>(in[d]);
      dims.push_back(hbs::Value::object(
          {{"extent", std::max<uint64_t>(1, out[d])},
           {"pad", static_cast<long long>(p.pads[d])},
           {"size", static_cast<long long>(size)},
           {"period", static_cast<long long>(std::max<int64_t>(1, 2 * (size - 1)))},
           {"stride", st[d]}}));
    }
    hbs::Value ctx = LinearContext(node.outputs[0].elements(), 1, caps);
    const DType dt = node.outputs[0].dtype;
    const bool is_float = dt == DType::kF32 || dt == DType::kF16;
    ctx.as_object().set("mode", p.mode);
    ctx.as_object().set("value", is_float ? FloatLiteral(p.value)
                                          : std::to_string(static_cast<long long>(WrapInt(
                                                p.value, dt == DType::kBool ? DType::kU32 : dt))));
    ctx.as_object().set("dims", hbs::Value(std::move(dims)));
    return ctx;
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps& caps) {
    return LinearDispatch(node.outputs.at(0).elements(), caps);
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    PadSpec p = PadSpecOf(node, at).value();
    // The value takes the data's type (ONNX types constant_value like the data).
    if (in[0].dtype != DType::kF32 && in[0].dtype != DType::kF16)
      p.value = WrapInt(p.value, in[0].dtype);
    if (in[0].dtype == DType::kBool) p.value = p.value != 0;
    const Shape& is = in[0].shape;
    const Shape os = PaddedShape(is, p.pads);
    const Shape st = ContiguousStridesOf(is);
    RefTensor out{in[0].dtype, os, {}};
    std::vector<uint64_t> c(os.size(), 0);
    uint64_t n = 1;
    for (uint64_t d : os) n *= d;
    for (uint64_t i = 0; i < n; ++i) {
      int64_t off = 0;
      bool inside = true;
      for (size_t d = 0; d < os.size(); ++d) {
        const int64_t x =
            PadSource(static_cast<int64_t>(c[d]) - p.pads[d], static_cast<int64_t>(is[d]), p.mode);
        if (x < 0) inside = false;
        off += x * static_cast<int64_t>(st[d]);
      }
      out.data.push_back(inside ? in[0].data[static_cast<size_t>(off)] : p.value);
      for (size_t d = os.size(); d-- > 0;) {
        if (++c[d] < os[d]) break;
        c[d] = 0;
      }
    }
    return std::vector<RefTensor>{out};
  };
  r.test_dtypes = {DType::kF32, DType::kI32};
  if (opset_min < 11) {
    const char* pads = opset_min < 2 ? "paddings" : "pads";
    r.test_cases = {{{Shape{3, 4}}, {{pads, Ints{1, 2, 0, 1}}, {"value", 1.5}}, {}, "constant"},
                    {{Shape{3, 4}},
                     {{pads, Ints{2, 3, 1, 2}}, {"mode", std::string("reflect")}},
                     {},
                     "reflect"}};
  } else {
    r.test_cases = {
        {{Shape{2, 3, 4}, Shape{6}, Shape{}},
         {},
         {{1, *IntList({0, 1, -1, 1, 2, 2})}, {2, RefTensor{DType::kF32, {}, {2.5}}}},
         "constant, crop"},
        {{Shape{2, 3, 4}, Shape{6}},
         {{"mode", std::string("edge")}},
         {{1, *IntList({1, 2, 3, 0, 1, 2})}},
         "edge"},
        {{Shape{3, 4}, Shape{4}},
         {{"mode", std::string("wrap")}},
         {{1, *IntList({2, 3, 1, 5})}},
         "wrap"},
    };
    if (opset_min >= 18) {
      r.test_cases.push_back({{Shape{3, 4}, Shape{2}, std::nullopt, Shape{1}},
                              {{"mode", std::string("reflect")}},
                              {{1, *IntList({2, 3})}, {3, *IntList({-1})}},
                              "axes"});
    }
  }
  return r;
}

// --- Tile, DepthToSpace, SpaceToDepth: views then one copy ---------------------------------------

// A Reshape node reading a fixed target (allowzero: empty dimensions stay empty).
int AddReshape(Graph& g, int value, const Shape& target) {
  const int id = g.Add("Reshape", {value, Graph::kAbsent}, {{"allowzero", int64_t{1}}}, 17);
  g.nodes.back().input_values = {nullptr, IntList(Ints(target.begin(), target.end()))};
  return id;
}

OpRecord TileRecord() {
  OpRecord r;
  r.name = "Tile";
  r.opset_min = 6;
  r.family = "movement";
  r.summary = "the input repeated along each dimension (an expanded view, then one copy)";
  r.accepts_views = true;  // the inner Reshape copies a strided input; no copy before that
  r.min_inputs = r.max_inputs = 2;
  r.host_inputs = {1};
  auto repeats = [](const OpNode& node) -> Result<Ints> {
    ALKNET_ASSIGN_OR_RETURN(Ints rep, HostInts(node, 1, "repeats"));
    if (rep.size() != node.inputs[0].shape.size()) {
      return Error{ErrorCode::kShape, node.Describe() + ": repeats has " +
                                          std::to_string(rep.size()) + " entries for a rank-" +
                                          std::to_string(node.inputs[0].shape.size()) + " input"};
    }
    for (int64_t v : rep) {
      if (v < 0) return Error{ErrorCode::kShape, node.Describe() + ": negative repeat"};
    }
    return rep;
  };
  r.infer = [repeats](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(Ints rep, repeats(node));
    TensorDesc o{node.inputs[0].dtype, node.inputs[0].shape};
    for (size_t d = 0; d < rep.size(); ++d) {
      const auto r = static_cast<uint64_t>(rep[d]);
      if (r != 0 && o.shape[d] > static_cast<uint64_t>(INT64_MAX) / r) {
        return Error{ErrorCode::kLimit, node.Describe() + ": dimension " + std::to_string(d) +
                                            " repeated " + std::to_string(r) +
                                            " times has more than 2^63-1 elements"};
      }
      o.shape[d] *= r;
    }
    return std::vector<TensorDesc>{o};
  };
  r.decompose = [repeats](const OpNode& node, const Attributes&) -> Result<Graph> {
    ALKNET_ASSIGN_OR_RETURN(Ints rep, repeats(node));
    const Shape& in = node.inputs[0].shape;
    Shape split, expanded, out;
    for (size_t d = 0; d < in.size(); ++d) {
      split.insert(split.end(), {1, in[d]});
      expanded.insert(expanded.end(), {static_cast<uint64_t>(rep[d]), in[d]});
      out.push_back(in[d] * static_cast<uint64_t>(rep[d]));
    }
    Graph g(2);
    const int s = AddReshape(g, 0, split);
    const int e = g.Add("Expand", {s, Graph::kAbsent});
    g.nodes.back().input_values = {nullptr, IntList(Ints(expanded.begin(), expanded.end()))};
    g.outputs = {AddReshape(g, e, out)};
    return g;
  };
  r.reference = [](const OpNode& node, const Attributes&, const std::vector<RefTensor>& in) {
    const Shape& is = in[0].shape;
    const Shape& os = node.outputs.at(0).shape;
    const Shape st = ContiguousStridesOf(is);
    RefTensor out{in[0].dtype, os, {}};
    std::vector<uint64_t> c(os.size(), 0);
    for (uint64_t i = 0; i < node.outputs[0].elements(); ++i) {
      uint64_t off = 0;
      for (size_t d = 0; d < os.size(); ++d) off += (c[d] % is[d]) * st[d];
      out.data.push_back(in[0].data[off]);
      for (size_t d = os.size(); d-- > 0;) {
        if (++c[d] < os[d]) break;
        c[d] = 0;
      }
    }
    return std::vector<RefTensor>{out};
  };
  r.test_dtypes = {DType::kF32, DType::kI32};
  r.test_cases = {{{Shape{2, 3, 4}, Shape{3}}, {}, {{1, *IntList({2, 1, 3})}}, "3-D"},
                  {{Shape{5}, Shape{1}}, {}, {{1, *IntList({4})}}, "1-D"}};
  return r;
}

// DepthToSpace and SpaceToDepth as reshape - transpose - reshape; `perm` and the 6-D shape
// follow the ONNX definitions of each mode.
struct BlockPlan {
  Shape six, out;
  Ints perm;
};

Result<BlockPlan> BlockPlanOf(const OpNode& node, const Attributes& at, bool to_space) {
  const Shape& s = node.inputs[0].shape;
  if (s.size() != 4)
    return Error{ErrorCode::kShape, node.Describe() + ": the input must be 4-D (N, C, H, W)"};
  const int64_t b64 = std::get<int64_t>(at.at("blocksize"));
  if (b64 <= 0)
    return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": blocksize must be positive"};
  const uint64_t b = static_cast<uint64_t>(b64), n = s[0], c = s[1], h = s[2], w = s[3];
  BlockPlan p;
  if (to_space) {
    if (c % (b * b) != 0) {
      return Error{ErrorCode::kShape, node.Describe() + ": channels " + std::to_string(c) +
                                          " do not divide by blocksize^2"};
    }
    const bool crd = std::get<std::string>(at.at("mode")) == "CRD";
    p.six = crd ? Shape{n, c / (b * b), b, b, h, w} : Shape{n, b, b, c / (b * b), h, w};
    p.perm = crd ? Ints{0, 1, 4, 2, 5, 3} : Ints{0, 3, 4, 1, 5, 2};
    p.out = {n, c / (b * b), h * b, w * b};
  } else {
    if (h % b != 0 || w % b != 0) {
      return Error{ErrorCode::kShape,
                   node.Describe() + ": height and width must divide by blocksize"};
    }
    p.six = {n, c, h / b, b, w / b, b};
    p.perm = {0, 3, 5, 1, 2, 4};
    p.out = {n, c * b * b, h / b, w / b};
  }
  return p;
}

OpRecord BlockRecord(const char* name, bool to_space) {
  OpRecord r;
  r.name = name;
  r.family = "movement";
  r.summary = to_space ? "channel blocks moved into space (DCR or CRD order)"
                       : "spatial blocks moved into channels";
  r.accepts_views = true;  // as Tile: the inner Reshape makes the one copy
  r.attributes = {{"blocksize", std::nullopt, false, {}}};
  if (to_space) {
    r.attributes.push_back({"mode", AttrValue(std::string("DCR")), false, [](const AttrValue& v) {
                              const std::string& m = std::get<std::string>(v);
                              return m == "DCR" || m == "CRD" ? std::string()
                                                              : std::string("must be DCR or CRD");
                            }});
  }
  r.infer = [to_space](const OpNode& node,
                       const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(BlockPlan p, BlockPlanOf(node, at, to_space));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, p.out}};
  };
  r.decompose = [to_space](const OpNode& node, const Attributes& at) -> Result<Graph> {
    ALKNET_ASSIGN_OR_RETURN(BlockPlan p, BlockPlanOf(node, at, to_space));
    Graph g(1);
    const int six = AddReshape(g, 0, p.six);
    const int t = g.Add("Transpose", {six}, {{"perm", p.perm}});
    g.outputs = {AddReshape(g, t, p.out)};
    return g;
  };
  r.reference = [to_space](const OpNode& node, const Attributes& at,
                           const std::vector<RefTensor>& in) {
    // Direct index formulas from the ONNX operator documents, not the reshape route.
    BlockPlan p = BlockPlanOf(node, at, to_space).value();
    const Shape& s = in[0].shape;
    const uint64_t b = static_cast<uint64_t>(std::get<int64_t>(at.at("blocksize")));
    const bool crd = to_space && std::get<std::string>(at.at("mode")) == "CRD";
    RefTensor out{in[0].dtype, p.out, {}};
    auto at4 = [&](uint64_t n, uint64_t c, uint64_t h, uint64_t w) {
      return in[0].data[((n * s[1] + c) * s[2] + h) * s[3] + w];
    };
    for (uint64_t n = 0; n < p.out[0]; ++n)
      for (uint64_t c = 0; c < p.out[1]; ++c)
        for (uint64_t y = 0; y < p.out[2]; ++y)
          for (uint64_t x = 0; x < p.out[3]; ++x) {
            if (to_space) {
              const uint64_t by = y % b, bx = x % b;
              const uint64_t ic = crd ? c * b * b + by * b + bx : (by * b + bx) * p.out[1] + c;
              out.data.push_back(at4(n, ic, y / b, x / b));
            } else {
              const uint64_t blk = c / s[1], ic = c % s[1];
              out.data.push_back(at4(n, ic, y * b + blk / b, x * b + blk % b));
            }
          }
    return std::vector<RefTensor>{out};
  };
  if (to_space) {
    r.test_cases = {{{Shape{2, 8, 3, 2}}, {{"blocksize", int64_t{2}}}, {}, "DCR"},
                    {{Shape{1, 18, 2, 3}},
                     {{"blocksize", int64_t{3}}, {"mode", std::string("CRD")}},
                     {},
                     "CRD"}};
  } else {
    r.test_cases = {{{Shape{2, 3, 4, 6}}, {{"blocksize", int64_t{2}}}, {}, "blocksize 2"}};
  }
  return r;
}

// --- Dropout: inference is the identity; training mode drops with RandomUniformLike ------------

// Whether a node drops elements (opset 12+: training_mode true and a ratio above 0), and its
// ratio (refused outside [0, 1)).
Result<std::pair<bool, double>> DropoutMode(const OpNode& node) {
  if (node.opset < 12 || !node.has_input(2)) return std::pair{false, 0.0};
  std::vector<double> training = HostValues(node, 2);
  std::vector<double> ratio = node.has_input(1) ? HostValues(node, 1) : std::vector<double>{0.5};
  const double r = ratio.empty() ? 0.5 : ratio[0];
  if (!(r >= 0 && r < 1)) {
    return Error{ErrorCode::kInvalidArgument,
                 node.Describe() + ": ratio must be in [0, 1), got " + std::to_string(r)};
  }
  return std::pair{!training.empty() && training[0] != 0 && r != 0, r};
}

double DropoutSeed(const Attributes& at) {
  auto it = at.find("seed");
  return it == at.end() ? 0.0 : static_cast<double>(std::get<int64_t>(it->second));
}

// The mask output exists only when the caller asks for it (node.outputs holds two entries):
// the executor states no output count of its own, and most graphs drop it.
OpRecord DropoutRecord(int opset_min, int opset_max) {
  OpRecord r;
  r.name = "Dropout";
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "movement";
  r.summary = opset_min < 12
                  ? "inference: the input unchanged (the optional mask is all true)"
                  : "the input unchanged, or with training_mode each element kept with "
                    "probability 1 - ratio and scaled by 1 / (1 - ratio) (RandomUniformLike's "
                    "generator, seeded)";
  r.accepts_views = true;
  if (opset_min < 12) {
    r.attributes = {{"ratio", AttrValue(0.5), false, {}},
                    {"is_test", std::nullopt, true, {}},
                    {"consumed_inputs", std::nullopt, true, {}}};
  } else {
    r.max_inputs = 3;
    r.host_inputs = {1, 2};
    r.attributes = {{"seed", std::nullopt, true, {}}};
  }
  auto mask_type = [](const OpNode& node) {
    return node.opset >= 10 ? DType::kBool : node.inputs[0].dtype;
  };
  r.infer = [mask_type](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(auto mode, DropoutMode(node));
    if (mode.first && node.inputs[0].dtype != DType::kF32 && node.inputs[0].dtype != DType::kF16) {
      return Error{ErrorCode::kUnsupported,
                   node.Describe() + ": training mode drops float data only (f32, f16)"};
    }
    std::vector<TensorDesc> outs{TensorDesc{node.inputs[0].dtype, node.inputs[0].shape}};
    if (node.outputs.size() >= 2) outs.push_back(TensorDesc{mask_type(node), node.inputs[0].shape});
    return outs;
  };
  r.decompose = [mask_type](const OpNode& node, const Attributes& at) -> Result<Graph> {
    ALKNET_ASSIGN_OR_RETURN(auto mode, DropoutMode(node));
    Graph g(static_cast<int>(node.inputs.size()));
    const Shape& s = node.inputs[0].shape;
    const DType dt = node.inputs[0].dtype;
    if (mode.first) {
      const double keep = ToF32(1.0 - mode.second);
      const int u =
          g.Add("RandomUniformLike", {0}, {{"seed", DropoutSeed(at)}, {"dtype", int64_t{1}}}, 1);
      const int m = g.Add("Less", {u, Graph::kAbsent}, {}, 13);
      g.nodes.back().input_values = {nullptr, MakeConst(DType::kF32, {}, {keep})};
      const int scaled = g.Add("Mul", {0, Graph::kAbsent}, {}, 14);
      g.nodes.back().input_values = {nullptr,
                                     MakeConst(dt, {}, {ToF32(1.0 / (1.0 - mode.second))})};
      const int y = g.Add("Where", {m, scaled, Graph::kAbsent}, {}, 16);
      g.nodes.back().input_values = {nullptr, nullptr, MakeConst(dt, {}, {0.0})};
      g.outputs = {y};
      if (node.outputs.size() >= 2) g.outputs.push_back(m);
      return g;
    }
    g.outputs = {0};
    if (node.outputs.size() >= 2) {
      // A stride-0 view of one `true`: no memory per element.
      g.outputs.push_back(g.Add("Expand", {Graph::kAbsent, Graph::kAbsent}));
      g.nodes.back().input_values = {MakeConst(mask_type(node), {}, {1.0}),
                                     IntList(Ints(s.begin(), s.end()))};
    }
    return g;
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const auto mode = DropoutMode(node).value();
    std::vector<RefTensor> outs{in[0]};
    RefTensor mask{node.outputs.size() >= 2 ? node.outputs[1].dtype : DType::kBool, in[0].shape,
                   std::vector<double>(in[0].data.size(), 1.0)};
    if (mode.first) {
      const double keep = ToF32(1.0 - mode.second);
      const double scale = ToF32(1.0 / (1.0 - mode.second));
      const double seed = DropoutSeed(at);
      for (size_t i = 0; i < in[0].data.size(); ++i) {
        const bool kept = UniformDraw(i, seed) < keep;
        mask.data[i] = kept ? 1.0 : 0.0;
        outs[0].data[i] = kept ? ToF32(in[0].data[i] * scale) : 0.0;
      }
    }
    if (node.outputs.size() >= 2) outs.push_back(std::move(mask));
    return outs;
  };
  if (opset_min < 12) {
    r.test_cases = {{{Shape{3, 5}}, {{"ratio", 0.3}}, {}, "ratio"}};
  } else {
    r.test_cases = {
        {{Shape{3, 5}, Shape{}, Shape{}},
         {},
         {{1, RefTensor{DType::kF32, {}, {0.0}}}, {2, RefTensor{DType::kBool, {}, {1.0}}}},
         "training, ratio 0"},
        {{Shape{7, 33}, Shape{}, Shape{}},
         {{"seed", int64_t{11}}},
         {{1, RefTensor{DType::kF32, {}, {0.3}}}, {2, RefTensor{DType::kBool, {}, {1.0}}}},
         "training, ratio 0.3"}};
  }
  return r;
}

}  // namespace

void AddMovementOps(OpTable& table) {
  table.Add(ReshapeRecord());
  OpRecord transpose =
      ViewRecord("Transpose", 1, 99, "dimensions permuted (a strided view)", true, TransposeView);
  transpose.attributes = {{"perm", std::nullopt, true, {}}};
  transpose.test_dtypes = {DType::kF32, DType::kI32};
  transpose.test_cases = {{{Shape{3, 4, 5}}, {{"perm", Ints{2, 0, 1}}}, {}, "perm"},
                          {{Shape{2, 1, 3}}, {}, {}, "reversed"}};
  table.Add(std::move(transpose));
  for (auto [lo, hi] : {std::pair{1, 12}, std::pair{13, 99}}) {
    const bool input = lo >= 13;
    OpRecord sq = ViewRecord(
        "Squeeze", lo, hi, "size-1 dimensions removed (a view)", true,
        [input](const OpNode& n, const Attributes& a) { return SqueezeView(n, a, input); });
    OpRecord unsq = ViewRecord(
        "Unsqueeze", lo, hi, "size-1 dimensions inserted (a view)", true,
        [input](const OpNode& n, const Attributes& a) { return UnsqueezeView(n, a, input); });
    if (input) {
      sq.max_inputs = 2;
      sq.host_inputs = {1};
      unsq.min_inputs = unsq.max_inputs = 2;
      unsq.host_inputs = {1};
      sq.test_cases = {{{Shape{3, 1, 5, 1}, Shape{1}}, {}, {{1, *IntList({-1})}}, "axes input"},
                       {{Shape{1, 4, 1}, std::nullopt}, {}, {}, "all"}};
      unsq.test_cases = {{{Shape{3, 5}, Shape{2}}, {}, {{1, *IntList({-1, 0})}}, "axes input"}};
    } else {
      sq.attributes = {{"axes", std::nullopt, true, {}}};
      unsq.attributes = {{"axes", std::nullopt, false, {}}};
      sq.test_cases = {{{Shape{3, 1, 5, 1}}, {{"axes", Ints{1}}}, {}, "axes"}};
      unsq.test_cases = {{{Shape{3, 5}}, {{"axes", Ints{1, 3}}}, {}, "axes"}};
    }
    table.Add(std::move(sq));
    table.Add(std::move(unsq));
  }
  OpRecord flatten = ViewRecord("Flatten", 1, 99, "2-D view [prod(dims[:axis]), prod(dims[axis:])]",
                                false, FlattenView);
  flatten.attributes = {{"axis", AttrValue(int64_t{1}), false, {}}};
  flatten.test_cases = {{{Shape{2, 3, 4}}, {{"axis", int64_t{-1}}}, {}, "axis -1"},
                        {{Shape{2, 3, 4}}, {{"axis", int64_t{0}}}, {}, "axis 0"}};
  table.Add(std::move(flatten));
  OpRecord expand =
      ViewRecord("Expand", 8, 99, "broadcast to a shape (a stride-0 view)", true, ExpandView);
  expand.min_inputs = expand.max_inputs = 2;
  expand.host_inputs = {1};
  expand.test_dtypes = {DType::kF32, DType::kI32};
  expand.test_cases = {{{Shape{3, 1}, Shape{3}}, {}, {{1, *IntList({2, 1, 6})}}, "grow rank"},
                       {{Shape{1, 4}, Shape{2}}, {}, {{1, *IntList({3, 1})}}, "smaller target"}};
  table.Add(std::move(expand));
  table.Add(SliceViewRecord());
  table.Add(StridedCopyRecord());
  table.Add(SliceRecord(1, 9));
  table.Add(SliceRecord(10, 99));
  table.Add(SplitRecord(1, 12));
  table.Add(SplitRecord(13, 17));
  table.Add(SplitRecord(18, 99));
  table.Add(ConcatKernelRecord());
  table.Add(ConcatRecord());
  table.Add(PadRecord(1, 1));
  table.Add(PadRecord(2, 10));
  table.Add(PadRecord(11, 17));
  table.Add(PadRecord(18, 99));
  table.Add(TileRecord());
  table.Add(BlockRecord("DepthToSpace", true));
  table.Add(BlockRecord("SpaceToDepth", false));
  table.Add(DropoutRecord(1, 11));
  table.Add(DropoutRecord(12, 99));
}

}  // namespace alknet::compute::ops
