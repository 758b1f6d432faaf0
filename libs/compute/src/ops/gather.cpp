// Index-driven movement: Gather, GatherElements, ScatterElements (and the deprecated Scatter),
// OneHot (shaders/movement/). Indices live on the device as i32 (ONNX int64, range-checked at
// upload); negative ones count from the end of the axis.
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
  return Error{ErrorCode::kUnsupported, node.Describe() + ": indices must be integers (i32 on the device), got " +
                                            DTypeName(d)};
}

// Known indices are checked at plan time: ONNX calls an index outside [-n, n) an error, and
// the kernel would clamp it.
Status CheckKnownIndices(const OpNode& node, size_t i, uint64_t axis_len) {
  const RefTensor* v = node.value(i);
  if (v == nullptr) return Ok{};
  const double n = static_cast<double>(axis_len);
  for (double k : v->data) {
    if (k < -n || k >= n) {
      return Error{ErrorCode::kInvalidArgument, node.Describe() + ": index " + std::to_string(static_cast<long long>(k)) +
                                                    " is outside [-" + std::to_string(axis_len) + ", " +
                                                    std::to_string(axis_len) + ")"};
    }
  }
  return Ok{};
}

// What the kernels do with an index: count from the end if negative, clamp into range.
uint64_t ResolveIndex(double k, uint64_t n) {
  int64_t v = static_cast<int64_t>(k);
  if (v < 0) v += static_cast<int64_t>(n);
  return static_cast<uint64_t>(std::clamp<int64_t>(v, 0, std::max<int64_t>(0, static_cast<int64_t>(n) - 1)));
}

int64_t AxisAttr(const Attributes& at) { return std::get<int64_t>(at.at("axis")); }

// --- Gather ---------------------------------------------------------------------------------------

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
    if (d == axis) o.insert(o.end(), node.inputs[1].shape.begin(), node.inputs[1].shape.end());
    else o.push_back(ds[d]);
  }
  if (out) *out = o;
  return l;
}

OpRecord GatherRecord() {
  OpRecord r;
  r.name = "Gather";
  r.family = "movement";
  r.shader = "movement/gather";
  r.summary = "slices of one axis picked by an index tensor";
  r.min_inputs = r.max_inputs = 2;
  r.attributes = {{"axis", AttrValue(int64_t{0}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(CheckIndexType(node, 1));
    Shape out;
    ALKNET_ASSIGN_OR_RETURN(GatherLines l, GatherLinesOf(node, at, &out));
    ALKNET_TRY(CheckKnownIndices(node, 1, l.axis_len));
    ALKNET_TRY(CheckIndexable(node, std::max(node.inputs[0].elements(), TensorDesc{DType::kF32, out}.elements())));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, out}};
  };
  r.context = [](const OpNode& node, const Attributes& at, const DeviceCaps& caps) -> Result<hbs::Value> {
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
        for (uint64_t e = 0; e < l.inner; ++e) out.data.push_back(in[0].data[(o * l.axis_len + k) * l.inner + e]);
      }
    return std::vector<RefTensor>{out};
  };
  r.test_dtypes = {DType::kF32, DType::kI32};
  auto idx = [](Shape s, std::vector<double> v) { return RefTensor{DType::kI32, std::move(s), std::move(v)}; };
  r.test_cases = {
      {{Shape{5, 4, 3}, Shape{2, 2}}, {{"axis", int64_t{1}}}, {{1, idx({2, 2}, {0, -1, 3, 1})}}, "axis 1, negative"},
      {{Shape{6, 8}, Shape{}}, {}, {{1, idx({}, {-2})}}, "scalar index, vec4"},
  };
  return r;
}

// --- GatherElements / ScatterElements ----------------------------------------------------------------

OpRecord GatherElementsRecord() {
  OpRecord r;
  r.name = "GatherElements";
  r.opset_min = 11;
  r.family = "movement";
  r.shader = "movement/gather_elements";
  r.summary = "each output element reads data at its own coordinates, the axis one from indices";
  r.min_inputs = r.max_inputs = 2;
  r.attributes = {{"axis", AttrValue(int64_t{0}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(CheckIndexType(node, 1));
    const Shape& ds = node.inputs[0].shape;
    const Shape& is = node.inputs[1].shape;
    ALKNET_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(node, AxisAttr(at), ds.size(), "axis"));
    bool ok = ds.size() == is.size();
    for (size_t d = 0; ok && d < ds.size(); ++d) ok = static_cast<int64_t>(d) == axis || is[d] <= ds[d];
    if (!ok) {
      return Error{ErrorCode::kShape, node.Describe() + ": indices must have the data's rank and no larger extent off the axis"};
    }
    ALKNET_TRY(CheckKnownIndices(node, 1, ds[axis]));
    ALKNET_TRY(CheckIndexable(node, std::max(node.inputs[0].elements(), node.inputs[1].elements())));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, is}};
  };
  r.context = [](const OpNode& node, const Attributes& at, const DeviceCaps& caps) -> Result<hbs::Value> {
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
        const uint64_t x = static_cast<int64_t>(d) == axis ? ResolveIndex(in[1].data[i], ds[d]) : c[d];
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
      {{Shape{3, 4}, Shape{2, 4}}, {}, {{1, RefTensor{DType::kI32, {2, 4}, {0, 2, -1, 1, 2, 0, 1, -3}}}}, "axis 0"},
      {{Shape{2, 3, 5}, Shape{2, 3, 2}}, {{"axis", int64_t{-1}}},
       {{1, RefTensor{DType::kI32, {2, 3, 2}, {4, 0, 1, 1, -1, 3, 2, 2, 0, 4, -5, 3}}}}, "axis -1, smaller"},
  };
  return r;
}

OpRecord ScatterElementsRecord(const char* name, int opset_min, int opset_max, std::vector<std::string> reductions) {
  OpRecord r;
  r.name = name;
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "movement";
  r.shader = "movement/scatter_elements";
  r.summary = reductions.size() > 1 ? "a copy of data with updates written (or combined) at indexed positions along an axis"
                                    : "a copy of data with updates written at indexed positions along an axis";
  r.min_inputs = r.max_inputs = 3;
  r.attributes = {{"axis", AttrValue(int64_t{0}), false, {}}};
  if (reductions.size() > 1) {
    std::string allowed;
    for (const std::string& s : reductions) allowed += (allowed.empty() ? "" : ", ") + s;
    r.attributes.push_back({"reduction", AttrValue(std::string("none")), false, [reductions, allowed](const AttrValue& v) {
                              const std::string& s = std::get<std::string>(v);
                              return std::find(reductions.begin(), reductions.end(), s) != reductions.end()
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
    for (size_t d = 0; ok && d < ds.size(); ++d) ok = static_cast<int64_t>(d) == axis || is[d] <= ds[d];
    if (!ok) {
      return Error{ErrorCode::kShape, node.Describe() + ": indices and updates must share one shape, of the data's rank "
                                                          "and no larger extent off the axis"};
    }
    if (node.inputs[2].dtype != node.inputs[0].dtype) {
      return Error{ErrorCode::kUnsupported, node.Describe() + ": updates must have the data's dtype"};
    }
    if (node.inputs[0].dtype == DType::kBool) {
      return Error{ErrorCode::kUnsupported, node.Describe() + ": bool data is not supported (f32, f16, i32, u32)"};
    }
    ALKNET_TRY(CheckKnownIndices(node, 1, ds[axis]));
    ALKNET_TRY(CheckIndexable(node, std::max(node.inputs[0].elements(), node.inputs[1].elements())));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, ds}};
  };
  r.context = [](const OpNode& node, const Attributes& at, const DeviceCaps& caps) -> Result<hbs::Value> {
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
    ctx.as_object().set("reduction", at.count("reduction") ? std::get<std::string>(at.at("reduction")) : std::string("none"));
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
    const std::string red = at.count("reduction") ? std::get<std::string>(at.at("reduction")) : "none";
    const Shape st = ContiguousStridesOf(ds);
    RefTensor out = in[0];
    std::vector<uint64_t> c(is.size(), 0);
    for (size_t i = 0; i < in[1].data.size(); ++i) {
      uint64_t off = 0;
      for (size_t d = 0; d < is.size(); ++d) {
        off += (static_cast<int64_t>(d) == axis ? ResolveIndex(in[1].data[i], ds[d]) : c[d]) * st[d];
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
                  {{Shape{2, 5}, Shape{2, 2}, Shape{2, 2}}, {{"axis", int64_t{1}}},
                   {{1, RefTensor{DType::kI32, {2, 2}, {4, -1, 0, 2}}}}, "axis 1"}};
  if (reductions.size() > 1) {
    r.test_cases.push_back({{Shape{4, 3}, Shape{2, 3}, Shape{2, 3}}, {{"reduction", std::string("add")}}, {{1, dup}}, "add"});
    r.test_cases.push_back({{Shape{4, 3}, Shape{2, 3}, Shape{2, 3}}, {{"reduction", reductions.back()}}, {{1, dup}}, reductions.back()});
  }
  return r;
}

// --- OneHot -----------------------------------------------------------------------------------------

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
    return Error{ErrorCode::kInvalidArgument, node.Describe() + ": depth must be one positive value"};
  }
  if (values.size() != 2) return Error{ErrorCode::kShape, node.Describe() + ": values must hold [off, on]"};
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
  r.family = "movement";
  r.shader = "movement/onehot";
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
  r.context = [](const OpNode& node, const Attributes& at, const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(OneHotPlan p, OneHotPlanOf(node, at));
    const DType dt = node.outputs.at(0).dtype;
    const bool is_float = dt == DType::kF32 || dt == DType::kF16;
    auto lit = [&](double v) {
      return is_float ? FloatLiteral(v) : std::to_string(static_cast<long long>(WrapInt(v, dt == DType::kBool ? DType::kU32 : dt)));
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
      {{Shape{2, 3}, Shape{}, Shape{2}}, {},
       {{0, RefTensor{DType::kI32, {2, 3}, {0, 4, -1, 2, -5, 7}}}, {1, RefTensor{DType::kF32, {}, {5}}},
        {2, RefTensor{DType::kF32, {2}, {-1, 3}}}}, "float values, out of range"},
      {{Shape{4}, Shape{1}, Shape{2}}, {{"axis", int64_t{0}}},
       {{0, RefTensor{DType::kI32, {4}, {1, 0, -2, 2}}}, {1, RefTensor{DType::kI32, {1}, {3}}},
        {2, RefTensor{DType::kI32, {2}, {0, 1}}}}, "axis 0, int values"},
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
}

}  // namespace alknet::compute::ops
