// Index-driven movement (shaders/gather/): Gather, GatherElements, GatherND, ScatterElements
// (and the deprecated Scatter), ScatterND, OneHot, ReverseSequence (indexed by sequence_lens)
// and Compress (by a condition known at plan time). Indices live on the device as i32 (ONNX int64,
// range-checked at upload); negative ones count from the end of the axis.
#include <algorithm>
#include <cmath>

#include "ops/elementwise.h"
#include "ops/families.h"
#include "ops/movement.h"

namespace alknet::compute::ops {

namespace {

using Ints = std::vector<int64_t>;

const DTypeSet kIndexTypes = {DType::kI32, DType::kU32};

Status CheckIndexType(const OpNode& node, size_t i) {
  const DType d = node.inputs[i].dtype;
  if (d == DType::kI32 || d == DType::kU32) return Ok{};
  return Error{
      ErrorCode::kUnsupported,
      node.Describe() + ": indices must be integers (i32 on the device), got " + DTypeName(d)};
}

// Known indices are checked at plan time: ONNX calls an index outside [-n, n) an error, and
// the kernel would clamp it.
Status CheckKnownIndices(const OpNode& node, size_t i, uint64_t axis_len) {
  const RefTensor* v = node.value(i);
  if (v == nullptr) return Ok{};
  const double n = static_cast<double>(axis_len);
  for (double k : v->data) {
    if (k < -n || k >= n) {
      return Error{ErrorCode::kInvalidArgument, node.Describe() + ": index " +
                                                    std::to_string(static_cast<long long>(k)) +
                                                    " is outside [-" + std::to_string(axis_len) +
                                                    ", " + std::to_string(axis_len) + ")"};
    }
  }
  return Ok{};
}

// What the kernels do with an index: count from the end if negative, clamp into range.
uint64_t ResolveIndex(double k, uint64_t n) {
  int64_t v = static_cast<int64_t>(k);
  if (v < 0) v += static_cast<int64_t>(n);
  return static_cast<uint64_t>(
      std::clamp<int64_t>(v, 0, std::max<int64_t>(0, static_cast<int64_t>(n) - 1)));
}

int64_t AxisAttr(const Attributes& at) { return std::get<int64_t>(at.at("axis")); }

// --- Gather
// ---------------------------------------------------------------------------------------

struct GatherLines {
  uint64_t outer = 1, axis_len = 0, inner = 1, count = 1;
};

Result<GatherLines> GatherLinesOf(const OpNode& node, const Attributes& at, Shape* out) {
  const Shape& ds = node.inputs[0].shape;
  if (ds.empty()) return Error{ErrorCode::kShape, node.Describe() + ": data must have rank >= 1"};
  ALKNET_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, AxisAttr(at), ds.size(), "axis"));
  GatherLines l;
  l.axis_len = ds[axis];
  l.count = node.inputs[1].elements();
  Shape o;
  for (int64_t d = 0; d < static_cast<int64_t>(ds.size()); ++d) {
    if (d < axis) l.outer *= ds[d];
    if (d > axis) l.inner *= ds[d];
    if (d == axis)
      o.insert(o.end(), node.inputs[1].shape.begin(), node.inputs[1].shape.end());
    else
      o.push_back(ds[d]);
  }
  if (out) *out = o;
  return l;
}

OpRecord GatherRecord() {
  OpRecord r;
  r.name = "Gather";
  r.family = "gather";
  r.shader = "gather/gather";
  r.summary = "slices of one axis picked by an index tensor";
  r.min_inputs = r.max_inputs = 2;
  r.attributes = {{"axis", AttrValue(int64_t{0}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(CheckIndexType(node, 1));
    Shape out;
    ALKNET_ASSIGN_OR_RETURN(GatherLines l, GatherLinesOf(node, at, &out));
    ALKNET_TRY(CheckKnownIndices(node, 1, l.axis_len));
    ALKNET_TRY(CheckIndexable(
        node, std::max(node.inputs[0].elements(), TensorDesc{DType::kF32, out}.elements())));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, out}};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(GatherLines l, GatherLinesOf(node, at, nullptr));
    const uint32_t vec = l.inner % 4 == 0 ? 4 : 1;
    hbs::Value ctx = LinearContext(node.outputs.at(0).elements() / vec, vec, caps);
    ctx.as_object().set("inner", std::max<uint64_t>(1, l.inner / vec));
    ctx.as_object().set("count", std::max<uint64_t>(1, l.count));
    ctx.as_object().set("axis_len", std::max<uint64_t>(1, l.axis_len));
    return ctx;
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps& caps) {
    GatherLines l = GatherLinesOf(node, at, nullptr).value();
    return LinearDispatch(node.outputs.at(0).elements() / (l.inner % 4 == 0 ? 4 : 1), caps);
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    GatherLines l = GatherLinesOf(node, at, nullptr).value();
    RefTensor out{in[0].dtype, node.outputs.at(0).shape, {}};
    for (uint64_t o = 0; o < l.outer; ++o)
      for (uint64_t j = 0; j < l.count; ++j) {
        const uint64_t k = ResolveIndex(in[1].data[j], l.axis_len);
        for (uint64_t e = 0; e < l.inner; ++e)
          out.data.push_back(in[0].data[(o * l.axis_len + k) * l.inner + e]);
      }
    return std::vector<RefTensor>{out};
  };
  r.test_dtypes = {DType::kF32, DType::kI32};
  auto idx = [](Shape s, std::vector<double> v) {
    return RefTensor{DType::kI32, std::move(s), std::move(v)};
  };
  r.test_cases = {
      {{Shape{5, 4, 3}, Shape{2, 2}},
       {{"axis", int64_t{1}}},
       {{1, idx({2, 2}, {0, -1, 3, 1})}},
       "axis 1, negative"},
      {{Shape{6, 8}, Shape{}}, {}, {{1, idx({}, {-2})}}, "scalar index, vec4"},
  };
  return r;
}

// --- GatherElements / ScatterElements
// ----------------------------------------------------------------

OpRecord GatherElementsRecord() {
  OpRecord r;
  r.name = "GatherElements";
  r.opset_min = 11;
  r.family = "gather";
  r.shader = "gather/gather_elements";
  r.summary = "each output element reads data at its own coordinates, the axis one from indices";
  r.min_inputs = r.max_inputs = 2;
  r.attributes = {{"axis", AttrValue(int64_t{0}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(CheckIndexType(node, 1));
    const Shape& ds = node.inputs[0].shape;
    const Shape& is = node.inputs[1].shape;
    ALKNET_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, AxisAttr(at), ds.size(), "axis"));
    bool ok = ds.size() == is.size();
    for (size_t d = 0; ok && d < ds.size(); ++d)
      ok = static_cast<int64_t>(d) == axis || is[d] <= ds[d];
    if (!ok) {
      return Error{ErrorCode::kShape,
                   node.Describe() +
                       ": indices must have the data's rank and no larger extent off the axis"};
    }
    ALKNET_TRY(CheckKnownIndices(node, 1, ds[axis]));
    ALKNET_TRY(
        CheckIndexable(node, std::max(node.inputs[0].elements(), node.inputs[1].elements())));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, is}};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps& caps) -> Result<hbs::Value> {
    const Shape& ds = node.inputs[0].shape;
    const Shape& is = node.inputs[1].shape;
    ALKNET_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, AxisAttr(at), ds.size(), "axis"));
    const Shape st = ContiguousStridesOf(ds);
    hbs::Array dims;
    for (size_t d = is.size(); d-- > 0;) {
      dims.push_back(hbs::Value::object({{"extent", std::max<uint64_t>(1, is[d])},
                                         {"stride", st[d]},
                                         {"axis", static_cast<int64_t>(d) == axis}}));
    }
    hbs::Value ctx = LinearContext(node.outputs.at(0).elements(), 1, caps);
    ctx.as_object().set("dims", hbs::Value(std::move(dims)));
    ctx.as_object().set("axis_len", std::max<uint64_t>(1, ds[axis]));
    ctx.as_object().set("axis_stride", st[axis]);
    return ctx;
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps& caps) {
    return LinearDispatch(node.outputs.at(0).elements(), caps);
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const Shape& ds = in[0].shape;
    const Shape& is = in[1].shape;
    const int64_t axis = NormalizeAxis(node, AxisAttr(at), ds.size(), "axis").value();
    const Shape st = ContiguousStridesOf(ds);
    RefTensor out{in[0].dtype, is, {}};
    std::vector<uint64_t> c(is.size(), 0);
    for (size_t i = 0; i < in[1].data.size(); ++i) {
      uint64_t off = 0;
      for (size_t d = 0; d < is.size(); ++d) {
        const uint64_t x =
            static_cast<int64_t>(d) == axis ? ResolveIndex(in[1].data[i], ds[d]) : c[d];
        off += x * st[d];
      }
      out.data.push_back(in[0].data[off]);
      for (size_t d = is.size(); d-- > 0;) {
        if (++c[d] < is[d]) break;
        c[d] = 0;
      }
    }
    return std::vector<RefTensor>{out};
  };
  r.test_dtypes = {DType::kF32};
  r.test_cases = {
      {{Shape{3, 4}, Shape{2, 4}},
       {},
       {{1, RefTensor{DType::kI32, {2, 4}, {0, 2, -1, 1, 2, 0, 1, -3}}}},
       "axis 0"},
      {{Shape{2, 3, 5}, Shape{2, 3, 2}},
       {{"axis", int64_t{-1}}},
       {{1, RefTensor{DType::kI32, {2, 3, 2}, {4, 0, 1, 1, -1, 3, 2, 2, 0, 4, -5, 3}}}},
       "axis -1, smaller"},
  };
  return r;
}

OpRecord ScatterElementsRecord(const char* name, int opset_min, int opset_max,
                               std::vector<std::string> reductions) {
  OpRecord r;
  r.name = name;
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "gather";
  r.shader = "gather/scatter_elements";
  r.summary =
      reductions.size() > 1
          ? "a copy of data with updates written (or combined) at indexed positions along an axis"
          : "a copy of data with updates written at indexed positions along an axis";
  r.min_inputs = r.max_inputs = 3;
  r.attributes = {{"axis", AttrValue(int64_t{0}), false, {}}};
  if (reductions.size() > 1) {
    std::string allowed;
    for (const std::string& s : reductions) allowed += (allowed.empty() ? "" : ", ") + s;
    r.attributes.push_back({"reduction", AttrValue(std::string("none")), false,
                            [reductions, allowed](const AttrValue& v) {
                              const std::string& s = std::get<std::string>(v);
                              return std::find(reductions.begin(), reductions.end(), s) !=
                                             reductions.end()
                                         ? std::string()
                                         : "must be one of " + allowed;
                            }});
  }
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(CheckIndexType(node, 1));
    const Shape& ds = node.inputs[0].shape;
    const Shape& is = node.inputs[1].shape;
    ALKNET_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, AxisAttr(at), ds.size(), "axis"));
    bool ok = ds.size() == is.size() && node.inputs[2].shape == is;
    for (size_t d = 0; ok && d < ds.size(); ++d)
      ok = static_cast<int64_t>(d) == axis || is[d] <= ds[d];
    if (!ok) {
      return Error{ErrorCode::kShape,
                   node.Describe() +
                       ": indices and updates must share one shape, of the data's rank "
                       "and no larger extent off the axis"};
    }
    if (node.inputs[2].dtype != node.inputs[0].dtype) {
      return Error{ErrorCode::kUnsupported,
                   node.Describe() + ": updates must have the data's dtype"};
    }
    if (node.inputs[0].dtype == DType::kBool) {
      return Error{ErrorCode::kUnsupported,
                   node.Describe() + ": bool data is not supported (f32, f16, i32, u32)"};
    }
    ALKNET_TRY(CheckKnownIndices(node, 1, ds[axis]));
    ALKNET_TRY(
        CheckIndexable(node, std::max(node.inputs[0].elements(), node.inputs[1].elements())));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, ds}};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps& caps) -> Result<hbs::Value> {
    const Shape& ds = node.inputs[0].shape;
    const Shape& is = node.inputs[1].shape;
    ALKNET_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, AxisAttr(at), ds.size(), "axis"));
    const Shape ist = ContiguousStridesOf(is);
    hbs::Array dims;
    for (size_t d = ds.size(); d-- > 0;) {
      dims.push_back(hbs::Value::object({{"extent", std::max<uint64_t>(1, ds[d])},
                                         {"ind_extent", is[d]},
                                         {"ind_stride", ist[d]},
                                         {"axis", static_cast<int64_t>(d) == axis}}));
    }
    hbs::Value ctx = LinearContext(node.outputs.at(0).elements(), 1, caps);
    ctx.as_object().set("dims", hbs::Value(std::move(dims)));
    ctx.as_object().set("count", is[axis]);
    ctx.as_object().set("axis_len", ds[axis]);
    ctx.as_object().set("axis_stride", ist[axis]);
    ctx.as_object().set("reduction", at.count("reduction")
                                         ? std::get<std::string>(at.at("reduction"))
                                         : std::string("none"));
    return ctx;
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps& caps) {
    return LinearDispatch(node.outputs.at(0).elements(), caps);
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    // ONNX's definition: a copy of data, then each update in row-major order of indices.
    const Shape& ds = in[0].shape;
    const Shape& is = in[1].shape;
    const int64_t axis = NormalizeAxis(node, AxisAttr(at), ds.size(), "axis").value();
    const std::string red =
        at.count("reduction") ? std::get<std::string>(at.at("reduction")) : "none";
    const Shape st = ContiguousStridesOf(ds);
    RefTensor out = in[0];
    std::vector<uint64_t> c(is.size(), 0);
    for (size_t i = 0; i < in[1].data.size(); ++i) {
      uint64_t off = 0;
      for (size_t d = 0; d < is.size(); ++d) {
        off +=
            (static_cast<int64_t>(d) == axis ? ResolveIndex(in[1].data[i], ds[d]) : c[d]) * st[d];
      }
      double& v = out.data[off];
      const double u = in[2].data[i];
      if (red == "none") v = u;
      if (red == "add") v = v + u;
      if (red == "mul") v = v * u;
      if (red == "max") v = std::max(v, u);
      if (red == "min") v = std::min(v, u);
      if (out.dtype == DType::kF32) v = ToF32(v);
      v = WrapInt(v, out.dtype);
      for (size_t d = is.size(); d-- > 0;) {
        if (++c[d] < is[d]) break;
        c[d] = 0;
      }
    }
    return std::vector<RefTensor>{out};
  };
  r.test_dtypes = {DType::kF32, DType::kI32};
  const RefTensor dup{DType::kI32, {2, 3}, {1, 0, 1, -3, 1, 1}};
  r.test_cases = {{{Shape{4, 3}, Shape{2, 3}, Shape{2, 3}}, {}, {{1, dup}}, "axis 0, duplicates"},
                  {{Shape{2, 5}, Shape{2, 2}, Shape{2, 2}},
                   {{"axis", int64_t{1}}},
                   {{1, RefTensor{DType::kI32, {2, 2}, {4, -1, 0, 2}}}},
                   "axis 1"}};
  if (reductions.size() > 1) {
    r.test_cases.push_back({{Shape{4, 3}, Shape{2, 3}, Shape{2, 3}},
                            {{"reduction", std::string("add")}},
                            {{1, dup}},
                            "add"});
    r.test_cases.push_back({{Shape{4, 3}, Shape{2, 3}, Shape{2, 3}},
                            {{"reduction", reductions.back()}},
                            {{1, dup}},
                            reductions.back()});
  }
  return r;
}

// --- OneHot
// -----------------------------------------------------------------------------------------

struct OneHotPlan {
  uint64_t depth = 0, inner = 1;
  int64_t axis = 0;
  double off = 0, on = 1;
};

Result<OneHotPlan> OneHotPlanOf(const OpNode& node, const Attributes& at) {
  OneHotPlan p;
  const std::vector<double> depth = HostValues(node, 1);
  const std::vector<double> values = HostValues(node, 2);
  if (depth.size() != 1 || !(depth[0] >= 1)) {
    return Error{ErrorCode::kInvalidArgument,
                 node.Describe() + ": depth must be one positive value"};
  }
  if (values.size() != 2)
    return Error{ErrorCode::kShape, node.Describe() + ": values must hold [off, on]"};
  p.depth = static_cast<uint64_t>(depth[0]);
  p.off = values[0];
  p.on = values[1];
  const Shape& is = node.inputs[0].shape;
  ALKNET_ASSIGN_OR_RETURN(p.axis, NormalizeAxis(node, AxisAttr(at), is.size(), "axis", true));
  for (size_t d = static_cast<size_t>(p.axis); d < is.size(); ++d) p.inner *= is[d];
  return p;
}

OpRecord OneHotRecord() {
  OpRecord r;
  r.name = "OneHot";
  r.opset_min = 9;
  r.family = "gather";
  r.shader = "gather/onehot";
  r.summary = "indices expanded to one-hot rows of `depth` along an axis";
  r.min_inputs = r.max_inputs = 3;
  r.host_inputs = {1, 2};
  r.attributes = {{"axis", AttrValue(int64_t{-1}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(OneHotPlan p, OneHotPlanOf(node, at));
    Shape out = node.inputs[0].shape;
    out.insert(out.begin() + p.axis, p.depth);
    TensorDesc o{node.inputs[2].dtype, out};
    ALKNET_TRY(CheckIndexable(node, o.elements()));
    return std::vector<TensorDesc>{o};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(OneHotPlan p, OneHotPlanOf(node, at));
    const DType dt = node.outputs.at(0).dtype;
    const bool is_float = dt == DType::kF32 || dt == DType::kF16;
    auto lit = [&](double v) {
      return is_float ? FloatLiteral(v)
                      : std::to_string(static_cast<long long>(
                            WrapInt(v, dt == DType::kBool ? DType::kU32 : dt)));
    };
    hbs::Value ctx = LinearContext(node.outputs[0].elements(), 1, caps);
    ctx.as_object().set("inner", std::max<uint64_t>(1, p.inner));
    ctx.as_object().set("depth", p.depth);
    ctx.as_object().set("on", lit(dt == DType::kBool ? (p.on != 0) : p.on));
    ctx.as_object().set("off", lit(dt == DType::kBool ? (p.off != 0) : p.off));
    return ctx;
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps& caps) {
    return LinearDispatch(node.outputs.at(0).elements(), caps);
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    OneHotPlan p = OneHotPlanOf(node, at).value();
    const uint64_t outer = in[0].data.size() / std::max<uint64_t>(1, p.inner);
    RefTensor out{node.outputs.at(0).dtype, node.outputs[0].shape, {}};
    for (uint64_t o = 0; o < outer; ++o)
      for (uint64_t j = 0; j < p.depth; ++j)
        for (uint64_t e = 0; e < p.inner; ++e) {
          double k = std::trunc(in[0].data[o * p.inner + e]);
          if (k < 0) k += static_cast<double>(p.depth);
          out.data.push_back(k == static_cast<double>(j) ? p.on : p.off);
        }
    return std::vector<RefTensor>{out};
  };
  r.test_dtypes = {DType::kI32};
  r.test_cases = {
      {{Shape{2, 3}, Shape{}, Shape{2}},
       {},
       {{0, RefTensor{DType::kI32, {2, 3}, {0, 4, -1, 2, -5, 7}}},
        {1, RefTensor{DType::kF32, {}, {5}}},
        {2, RefTensor{DType::kF32, {2}, {-1, 3}}}},
       "float values, out of range"},
      {{Shape{4}, Shape{1}, Shape{2}},
       {{"axis", int64_t{0}}},
       {{0, RefTensor{DType::kI32, {4}, {1, 0, -2, 2}}},
        {1, RefTensor{DType::kI32, {1}, {3}}},
        {2, RefTensor{DType::kI32, {2}, {0, 1}}}},
       "axis 0, int values"},
  };
  return r;
}

// ---- GatherND ---------------------------------------------------------------------------------

struct GatherNDDims {
  uint64_t batch = 1;                      // product of the batch dimensions
  uint64_t rows = 1;                       // index tuples per batch
  uint64_t q = 0;                          // tuple length
  uint64_t slice = 1;                      // elements copied per tuple
  std::vector<uint64_t> extents, strides;  // of the q indexed data dimensions (strides in elements)
  uint64_t batch_stride = 0;               // data elements per batch
  Shape out;
};

Result<GatherNDDims> GatherNDShape(const OpNode& node, const Attributes& at) {
  const Shape& ds = node.inputs[0].shape;
  const Shape& is = node.inputs[1].shape;
  if (node.inputs[1].dtype != DType::kI32) {
    return Error{ErrorCode::kUnsupported,
                 node.Describe() + ": indices must be integers (i32 on the device)"};
  }
  const int64_t b = std::get<int64_t>(at.at("batch_dims"));
  if (is.empty() || ds.empty() || b < 0 ||
      static_cast<size_t>(b) >= std::min(ds.size(), is.size())) {
    return Error{ErrorCode::kShape,
                 node.Describe() + ": needs rank >= 1 operands and 0 <= batch_dims < min(ranks)"};
  }
  GatherNDDims g;
  g.q = is.back();
  if (static_cast<size_t>(b) + g.q > ds.size()) {
    return Error{ErrorCode::kShape, node.Describe() + ": index tuples of length " +
                                        std::to_string(g.q) + " exceed the data's rank " +
                                        std::to_string(ds.size()) + " after " + std::to_string(b) +
                                        " batch dimensions"};
  }
  for (int64_t k = 0; k < b; ++k) {
    if (ds[k] != is[k]) {
      return Error{ErrorCode::kShape, node.Describe() + ": batch dimension " + std::to_string(k) +
                                          " differs (" + std::to_string(ds[k]) + " vs " +
                                          std::to_string(is[k]) + ")"};
    }
    g.batch *= ds[k];
    g.out.push_back(ds[k]);
  }
  for (size_t k = static_cast<size_t>(b); k + 1 < is.size(); ++k) {
    g.rows *= is[k];
    g.out.push_back(is[k]);
  }
  const Shape dstr = ContiguousStridesOf(ds);
  for (size_t k = 0; k < g.q; ++k) {
    g.extents.push_back(ds[b + k]);
    g.strides.push_back(dstr[b + k]);
  }
  for (size_t k = static_cast<size_t>(b) + g.q; k < ds.size(); ++k) {
    g.slice *= ds[k];
    g.out.push_back(ds[k]);
  }
  g.batch_stride = b > 0 ? dstr[b - 1] : 0;
  return g;
}

hbs::Value TupleTerms(const std::vector<uint64_t>& extents, const std::vector<uint64_t>& strides) {
  hbs::Array terms;
  for (size_t k = 0; k < extents.size(); ++k) {
    terms.push_back(hbs::Value::object(
        {{"k", static_cast<long long>(k)}, {"extent", extents[k]}, {"stride", strides[k]}}));
  }
  return hbs::Value(std::move(terms));
}

OpRecord GatherNDRecord() {
  OpRecord r;
  r.name = "GatherND";
  r.opset_min = 11;
  r.family = "gather";
  r.shader = "gather/gathernd";
  r.summary =
      "slices of data addressed by index tuples (the last indices dimension), batch_dims leading";
  r.min_inputs = r.max_inputs = 2;
  r.attributes = {{"batch_dims", AttrValue(int64_t{0}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(GatherNDDims g, GatherNDShape(node, at));
    ALKNET_TRY(CheckIndexable(node, node.inputs[0].elements()));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, g.out}};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps&) -> Result<hbs::Value> {
    const GatherNDDims g = *GatherNDShape(node, at);
    return hbs::Value::object({{"n", g.batch * g.rows * g.slice},
                               {"rows", NonZero(g.rows)},
                               {"q", g.q},
                               {"slice", NonZero(g.slice)},
                               {"batch_stride", g.batch_stride},
                               {"terms", TupleTerms(g.extents, g.strides)}});
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps&) {
    const GatherNDDims g = *GatherNDShape(node, at);
    return LinearOver(g.batch * g.rows * g.slice);
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const GatherNDDims g = *GatherNDShape(node, at);
    RefTensor out{in[0].dtype, g.out, {}};
    for (uint64_t bt = 0; bt < g.batch; ++bt) {
      for (uint64_t row = 0; row < g.rows; ++row) {
        int64_t base = static_cast<int64_t>(bt * g.batch_stride);
        bool bad = false;
        for (uint64_t k = 0; k < g.q; ++k) {
          int64_t idx = static_cast<int64_t>(in[1].data[(bt * g.rows + row) * g.q + k]);
          if (idx < 0) idx += static_cast<int64_t>(g.extents[k]);
          if (idx < 0 || idx >= static_cast<int64_t>(g.extents[k])) bad = true;
          base += idx * static_cast<int64_t>(g.strides[k]);
        }
        for (uint64_t e = 0; e < g.slice; ++e) {
          out.data.push_back(bad ? 0.0 : in[0].data[static_cast<size_t>(base) + e]);
        }
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-4, 4, 0, 0};
  r.test_dtypes = {DType::kF32, DType::kI32};
  auto idx = [](Shape s, std::vector<double> v) {
    return RefTensor{DType::kI32, std::move(s), std::move(v)};
  };
  r.test_cases = {
      {{Shape{2, 2, 3}, Shape{2, 1, 2}},
       {},
       {{1, idx({2, 1, 2}, {0, 1, 1, -2})}},
       "slices, negative index"},
      {{Shape{3, 4}, Shape{3, 2}}, {}, {{1, idx({3, 2}, {0, 0, 2, 3, 1, -1})}}, "elements"},
      {{Shape{2, 3, 4}, Shape{2, 2, 1}},
       {{"batch_dims", int64_t{1}}},
       {{1, idx({2, 2, 1}, {2, 0, 1, 1})}},
       "batch_dims=1"},
  };
  return r;
}

// ---- ScatterND --------------------------------------------------------------------------------

struct ScatterNDDims {
  uint64_t rows = 1, q = 0, slice = 1;
  std::vector<uint64_t> extents, strides;
};

Result<ScatterNDDims> ScatterNDShape(const OpNode& node) {
  const Shape& ds = node.inputs[0].shape;
  const Shape& is = node.inputs[1].shape;
  const Shape& us = node.inputs[2].shape;
  if (node.inputs[1].dtype != DType::kI32) {
    return Error{ErrorCode::kUnsupported,
                 node.Describe() + ": indices must be integers (i32 on the device)"};
  }
  if (node.inputs[2].dtype != node.inputs[0].dtype) {
    return Error{ErrorCode::kUnsupported, node.Describe() + ": updates must have data's dtype"};
  }
  if (is.empty() || is.back() > ds.size()) {
    return Error{ErrorCode::kShape,
                 node.Describe() + ": indices must be [..., q] with q <= rank(data)"};
  }
  ScatterNDDims s;
  s.q = is.back();
  Shape want(is.begin(), is.end() - 1);
  for (size_t k = s.q; k < ds.size(); ++k) want.push_back(ds[k]);
  if (us != want) {
    return Error{ErrorCode::kShape, node.Describe() + ": updates must have shape " +
                                        ShapeToString(want) + ", got " + ShapeToString(us)};
  }
  for (size_t k = 0; k + 1 < is.size(); ++k) s.rows *= is[k];
  const Shape dstr = ContiguousStridesOf(ds);
  for (size_t k = 0; k < s.q; ++k) {
    s.extents.push_back(ds[k]);
    s.strides.push_back(dstr[k]);
  }
  for (size_t k = s.q; k < ds.size(); ++k) s.slice *= ds[k];
  return s;
}

OpRecord ScatterNDRecord(int opset_min, int opset_max, std::vector<std::string> reductions) {
  OpRecord r;
  r.name = "ScatterND";
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "gather";
  r.shader = "gather/scatternd";
  r.summary =
      "copy of data with slices addressed by index tuples replaced (or combined: reduction)";
  r.min_inputs = r.max_inputs = 3;
  if (reductions.size() > 1) {
    r.attributes = {
        {"reduction", AttrValue(std::string("none")), false, [reductions](const AttrValue& v) {
           for (const std::string& s : reductions) {
             if (s == std::get<std::string>(v)) return std::string();
           }
           std::string ok;
           for (const std::string& s : reductions) ok += (ok.empty() ? "" : ", ") + s;
           return "must be one of " + ok + " at this opset";
         }}};
  }
  r.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(ScatterNDShape(node));
    ALKNET_TRY(CheckIndexable(node, node.inputs[0].elements()));
    if (node.inputs[0].dtype == DType::kBool) {
      return Error{ErrorCode::kUnsupported,
                   node.Describe() + ": ScatterND on bool is not implemented"};
    }
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, node.inputs[0].shape}};
  };
  // One invocation per output element walks every update row in order and applies those
  // that address it: deterministic (the last write wins, reductions combine in index order)
  // and race-free, at O(elements x rows). Fine for the cache updates ScatterND mostly serves.
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps&) -> Result<hbs::Value> {
    const ScatterNDDims s = *ScatterNDShape(node);
    const std::string red =
        at.count("reduction") ? std::get<std::string>(at.at("reduction")) : "none";
    return hbs::Value::object({{"n", node.inputs[0].elements()},
                               {"rows", s.rows},
                               {"q", s.q},
                               {"slice", NonZero(s.slice)},
                               {"reduction", red},
                               {"terms", TupleTerms(s.extents, s.strides)}});
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps&) {
    return LinearOver(node.inputs[0].elements());
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const ScatterNDDims s = *ScatterNDShape(node);
    const std::string red =
        at.count("reduction") ? std::get<std::string>(at.at("reduction")) : "none";
    RefTensor out = in[0];
    for (uint64_t row = 0; row < s.rows; ++row) {
      int64_t base = 0;
      for (uint64_t k = 0; k < s.q; ++k) {
        int64_t idx = static_cast<int64_t>(in[1].data[row * s.q + k]);
        if (idx < 0) idx += static_cast<int64_t>(s.extents[k]);
        base += idx * static_cast<int64_t>(s.strides[k]);
      }
      for (uint64_t e = 0; e < s.slice; ++e) {
        double& o = out.data[static_cast<size_t>(base) + e];
        const double u = in[2].data[row * s.slice + e];
        if (red == "add")
          o += u;
        else if (red == "mul")
          o *= u;
        else if (red == "max")
          o = std::max(o, u);
        else if (red == "min")
          o = std::min(o, u);
        else
          o = u;
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-3, 3, 1e-6, 1e-6};
  auto idx = [](Shape sh, std::vector<double> v) {
    return RefTensor{DType::kI32, std::move(sh), std::move(v)};
  };
  r.test_cases = {
      {{Shape{4, 3, 2}, Shape{2, 1}, Shape{2, 3, 2}}, {}, {{1, idx({2, 1}, {0, 2})}}, "slices"},
      {{Shape{3, 4}, Shape{3, 2}, Shape{3}},
       {},
       {{1, idx({3, 2}, {0, 1, 2, -1, 1, 0})}},
       "elements"},
  };
  if (reductions.size() > 1) {
    r.test_cases.push_back({{Shape{4, 3}, Shape{3, 1}, Shape{3, 3}},
                            {{"reduction", std::string("add")}},
                            {{1, idx({3, 1}, {1, 3, 1})}},
                            "add, repeated index"});
    r.test_cases.push_back({{Shape{4, 3}, Shape{2, 1}, Shape{2, 3}},
                            {{"reduction", std::string("mul")}},
                            {{1, idx({2, 1}, {2, 2})}},
                            "mul, repeated index"});
  }
  r.test_dtypes = {DType::kF32, DType::kI32};
  return r;
}

// ---- ReverseSequence ---------------------------------------------------------------------------

OpRecord ReverseSequenceRecord() {
  OpRecord r;
  r.name = "ReverseSequence";
  r.opset_min = 10;
  r.family = "gather";
  r.shader = "gather/reversesequence";
  r.summary = "reverses the first sequence_lens[b] steps along time_axis of each batch entry";
  r.min_inputs = r.max_inputs = 2;
  r.attributes = {{"batch_axis", AttrValue(int64_t{1}), false, {}},
                  {"time_axis", AttrValue(int64_t{0}), false, {}}};
  auto check = [](const OpNode& node, const Attributes& at) -> Status {
    const Shape& s = node.inputs[0].shape;
    const int64_t b = std::get<int64_t>(at.at("batch_axis")),
                  t = std::get<int64_t>(at.at("time_axis"));
    if (s.size() < 2 || (b != 0 && b != 1) || (t != 0 && t != 1) || b == t) {
      return Error{ErrorCode::kInvalidAttribute,
                   node.Describe() + ": needs rank >= 2 and {batch_axis, time_axis} = {0, 1}"};
    }
    if (node.inputs[1].dtype != DType::kI32 || node.inputs[1].shape != Shape{s[b]}) {
      return Error{ErrorCode::kShape,
                   node.Describe() + ": sequence_lens must be i32[" + std::to_string(s[b]) + "]"};
    }
    return Ok{};
  };
  r.infer = [check](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(check(node, at));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, node.inputs[0].shape}};
  };
  struct Layout {
    uint64_t batch_extent, batch_stride, time_extent, time_stride;
  };
  auto layout = [](const OpNode& node, const Attributes& at) {
    const Shape& s = node.inputs[0].shape;
    const Shape st = ContiguousStridesOf(s);
    const auto b = static_cast<size_t>(std::get<int64_t>(at.at("batch_axis")));
    const auto t = static_cast<size_t>(std::get<int64_t>(at.at("time_axis")));
    return Layout{s[b], st[b], s[t], st[t]};
  };
  r.context = [layout](const OpNode& node, const Attributes& at,
                       const DeviceCaps&) -> Result<hbs::Value> {
    const Layout l = layout(node, at);
    return hbs::Value::object({{"n", node.inputs[0].elements()},
                               {"batch_extent", NonZero(l.batch_extent)},
                               {"batch_stride", NonZero(l.batch_stride)},
                               {"time_extent", NonZero(l.time_extent)},
                               {"time_stride", NonZero(l.time_stride)}});
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps&) {
    return LinearOver(node.inputs[0].elements());
  };
  r.reference = [layout](const OpNode& node, const Attributes& at,
                         const std::vector<RefTensor>& in) {
    const Layout l = layout(node, at);
    RefTensor out = in[0];
    for (uint64_t i = 0; i < out.data.size(); ++i) {
      const uint64_t b = (i / l.batch_stride) % l.batch_extent,
                     t = (i / l.time_stride) % l.time_extent;
      const int64_t len = std::clamp<int64_t>(static_cast<int64_t>(in[1].data[b]), 0,
                                              static_cast<int64_t>(l.time_extent));
      const uint64_t src_t = static_cast<int64_t>(t) < len ? static_cast<uint64_t>(len - 1) - t : t;
      out.data[i] = in[0].data[i + src_t * l.time_stride - t * l.time_stride];
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-4, 4, 0, 0};
  auto lens = [](std::vector<double> v) {
    return RefTensor{DType::kI32, {v.size()}, std::move(v)};
  };
  r.test_cases = {
      {{Shape{4, 3, 2}, Shape{3}}, {}, {{1, lens({4, 1, 3})}}, "time 0, batch 1"},
      {{Shape{3, 5}, Shape{3}},
       {{"batch_axis", int64_t{0}}, {"time_axis", int64_t{1}}},
       {{1, lens({5, 2, 0})}},
       "batch 0"},
  };
  return r;
}

// ---- Compress -----------------------------------------------------------------------------------

struct CompressPlan {
  std::vector<uint64_t> selected;  // kept positions along the axis (or of the flattened input)
  uint64_t outer = 1, axis_len = 1, inner = 1;
  Shape out;
};

Result<CompressPlan> PlanCompress(const OpNode& node, const Attributes& at) {
  const RefTensor* cond = node.value(1);
  if (cond->shape.size() != 1) {
    return Error{ErrorCode::kShape,
                 node.Describe() + ": condition must be 1-D, got " + ShapeToString(cond->shape)};
  }
  const Shape& s = node.inputs[0].shape;
  CompressPlan p;
  if (!at.count("axis")) {
    p.axis_len = node.inputs[0].elements();
  } else {
    int64_t axis = std::get<int64_t>(at.at("axis"));
    const auto rank = static_cast<int64_t>(s.size());
    if (axis < -rank || axis >= rank) {
      return Error{ErrorCode::kInvalidAttribute,
                   node.Describe() + ": axis " + std::to_string(axis) +
                       " is out of range for rank " + std::to_string(rank)};
    }
    if (axis < 0) axis += rank;
    for (int64_t d = 0; d < rank; ++d) {
      if (d < axis)
        p.outer *= s[d];
      else if (d == axis)
        p.axis_len = s[d];
      else
        p.inner *= s[d];
    }
  }
  // Entries past the axis select nothing; a shorter condition leaves the rest out (ONNX).
  for (uint64_t k = 0; k < std::min<uint64_t>(p.axis_len, cond->data.size()); ++k) {
    if (cond->data[k] != 0) p.selected.push_back(k);
  }
  if (!at.count("axis")) {
    p.out = {p.selected.size()};
  } else {
    p.out = s;
    int64_t axis = std::get<int64_t>(at.at("axis"));
    if (axis < 0) axis += static_cast<int64_t>(s.size());
    p.out[axis] = p.selected.size();
  }
  return p;
}

OpRecord CompressRecord() {
  OpRecord r;
  r.name = "Compress";
  r.opset_min = 9;
  r.family = "gather";
  r.shader = "gather/compress";
  r.summary =
      "slices along an axis (or elements of the flattened input) where condition is true; "
      "condition must be known at plan time";
  r.min_inputs = r.max_inputs = 2;
  r.host_inputs = {1};
  r.attributes = {{"axis", std::nullopt, true, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(CompressPlan p, PlanCompress(node, at));
    if (p.selected.size() > 65536) {
      return Error{ErrorCode::kLimit, node.Describe() + ": " + std::to_string(p.selected.size()) +
                                          " selected positions; the kernel inlines at most 65536"};
    }
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, p.out}};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps&) -> Result<hbs::Value> {
    const CompressPlan p = *PlanCompress(node, at);
    hbs::Array sel;
    for (uint64_t k : p.selected) sel.push_back(hbs::Value(k));
    if (sel.empty()) sel.push_back(hbs::Value(uint64_t{0}));
    uint64_t n = p.outer * p.selected.size() * p.inner;
    return hbs::Value::object({{"n", n},
                               {"kept", static_cast<uint64_t>(p.selected.size())},
                               {"axis_len", p.axis_len},
                               {"inner", NonZero(p.inner)},
                               {"selected", hbs::Value(std::move(sel))}});
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps&) {
    const CompressPlan p = *PlanCompress(node, at);
    return LinearOver(p.outer * p.selected.size() * p.inner);
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const CompressPlan p = *PlanCompress(node, at);
    RefTensor out{in[0].dtype, p.out, {}};
    for (uint64_t o = 0; o < p.outer; ++o) {
      for (uint64_t k : p.selected) {
        for (uint64_t i = 0; i < p.inner; ++i)
          out.data.push_back(in[0].data[(o * p.axis_len + k) * p.inner + i]);
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-4, 4, 0, 0};
  auto cond = [](std::vector<double> v) {
    return RefTensor{DType::kBool, {v.size()}, std::move(v)};
  };
  r.test_cases = {
      {{Shape{3, 2}, Shape{3}}, {{"axis", int64_t{0}}}, {{1, cond({0, 1, 1})}}, "axis 0"},
      {{Shape{3, 4, 2}, Shape{3}},
       {{"axis", int64_t{-2}}},
       {{1, cond({1, 0, 1})}},
       "axis -2, short condition"},
      {{Shape{3, 2}, Shape{5}}, {}, {{1, cond({0, 1, 0, 0, 1})}}, "flattened"},
  };
  return r;
}

}  // namespace

void AddGatherOps(OpTable& table) {
  table.Add(GatherRecord());
  table.Add(GatherElementsRecord());
  table.Add(ScatterElementsRecord("Scatter", 9, 10, {"none"}));
  table.Add(ScatterElementsRecord("ScatterElements", 11, 15, {"none"}));
  table.Add(ScatterElementsRecord("ScatterElements", 16, 17, {"none", "add", "mul"}));
  table.Add(ScatterElementsRecord("ScatterElements", 18, 99, {"none", "add", "mul", "max", "min"}));
  table.Add(OneHotRecord());
  table.Add(GatherNDRecord());
  table.Add(ScatterNDRecord(11, 15, {"none"}));
  table.Add(ScatterNDRecord(16, 17, {"none", "add", "mul"}));
  table.Add(ScatterNDRecord(18, 99, {"none", "add", "mul", "max", "min"}));
  table.Add(ReverseSequenceRecord());
  table.Add(CompressRecord());
}

}  // namespace alknet::compute::ops
