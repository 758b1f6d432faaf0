// Ops that pick positions along an axis: ArgMax, ArgMin (shaders/reduce/argmax.wgsl.hbs),
// Hardmax (the same search, a one-hot output) and TopK (shaders/reduce/topk.wgsl.hbs).
// The input is seen as [outer, axis, inner]; one invocation handles one (outer, inner) line.
// Indices are i32 on the device (the ONNX session maps int64 to i32).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ops/elementwise.h"
#include "ops/families.h"

namespace alknet::compute::ops {

namespace {

struct Lines {
  uint64_t outer = 1, axis_len = 1, inner = 1;
  size_t axis = 0;
};

// `flatten`: Hardmax before opset 13 treats every dimension from `axis` on as the axis.
Result<Lines> SplitAt(const OpNode& node, int64_t axis, bool flatten) {
  const Shape& s = node.inputs[0].shape;
  const int64_t rank = static_cast<int64_t>(s.size());
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1) || (rank == 0 && !flatten)) {
    return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": axis " + std::to_string(axis) +
                                                   " is out of range for rank " +
                                                   std::to_string(rank)};
  }
  if (axis < 0) axis += rank;
  Lines l;
  l.axis = static_cast<size_t>(axis);
  for (int64_t d = 0; d < rank; ++d) {
    if (d < axis)
      l.outer *= s[d];
    else if (d == axis || flatten)
      l.axis_len *= s[d];
    else
      l.inner *= s[d];
  }
  return l;
}

Result<std::vector<TensorDesc>> CheckInput(const OpNode& node, const DTypeSet& allowed) {
  const TensorDesc& x = node.inputs[0];
  if (std::find(allowed.begin(), allowed.end(), x.dtype) == allowed.end()) {
    return Error{ErrorCode::kUnsupported,
                 node.Describe() + ": " + node.op_type + " does not take " + DTypeName(x.dtype)};
  }
  return std::vector<TensorDesc>{};
}

hbs::Value LineContext(const Lines& l) {
  return hbs::Value::object({{"outer", l.outer}, {"axis_len", l.axis_len}, {"inner", l.inner}});
}

// Long lines get a workgroup each on GPUs; CPU adapters (no shared tiles: barriers are
// expensive there) keep one invocation per line.
bool UseWorkgroup(const Lines& l, const DeviceCaps& caps) {
  return caps.shared_memory_tiles && l.axis_len >= 256;
}

DispatchPlan LinePlan(const Lines& l, const DeviceCaps& caps) {
  DispatchPlan p;
  const uint64_t n = l.outer * l.inner;
  if (!UseWorkgroup(l, caps)) {
    p.invocations = n;
    return p;
  }
  const uint64_t max = caps.max_workgroups_per_dimension;
  p.kind = DispatchPlan::Kind::kGrid;
  p.groups = {std::min(n, max), (n + max - 1) / max, 1};
  p.workgroup_size = {256, 1, 1};
  return p;
}

// Position of the max (or min) on one line; ties: the first, or the last with select_last.
uint64_t ArgRef(const std::vector<double>& x, uint64_t base, const Lines& l, bool max, bool last) {
  uint64_t best = 0;
  for (uint64_t j = 1; j < l.axis_len; ++j) {
    const double v = x[base + j * l.inner], b = x[base + best * l.inner];
    if (max ? v > b : v < b)
      best = j;
    else if (last && v == b)
      best = j;
  }
  return best;
}

// ---- ArgMax, ArgMin, Hardmax --------------------------------------------------------------

OpRecord ArgRecord(const char* name, bool max, int opset_min, int opset_max, bool select_last) {
  OpRecord r;
  r.name = name;
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "reduce";
  r.shader = "reduce/argmax";
  r.summary = std::string("index (i32) of the ") + (max ? "largest" : "smallest") +
              " element along an axis";
  r.attributes = {{"axis", AttrValue(int64_t{0}), false, {}},
                  {"keepdims", AttrValue(int64_t{1}), false, {}}};
  if (select_last) r.attributes.push_back({"select_last_index", AttrValue(int64_t{0}), false, {}});
  auto out_shape = [](const OpNode& node, const Attributes& at, const Lines& l) {
    Shape s = node.inputs[0].shape;
    if (std::get<int64_t>(at.at("keepdims")) != 0)
      s[l.axis] = 1;
    else
      s.erase(s.begin() + static_cast<int64_t>(l.axis));
    return s;
  };
  r.infer = [out_shape](const OpNode& node,
                        const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(CheckInput(node, kSignedNum));
    ALKNET_ASSIGN_OR_RETURN(Lines l, SplitAt(node, std::get<int64_t>(at.at("axis")), false));
    if (l.axis_len == 0) {
      return Error{ErrorCode::kShape,
                   node.Describe() + ": the axis is empty; there is no index to return"};
    }
    return std::vector<TensorDesc>{TensorDesc{DType::kI32, out_shape(node, at, l)}};
  };
  auto last_of = [](const Attributes& at) {
    auto it = at.find("select_last_index");
    return it != at.end() && std::get<int64_t>(it->second) != 0;
  };
  r.context = [max, last_of](const OpNode& node, const Attributes& at,
                             const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(Lines l, SplitAt(node, std::get<int64_t>(at.at("axis")), false));
    hbs::Value v = LineContext(l);
    v.as_object().set("workgroup", UseWorkgroup(l, caps));
    v.as_object().set("max", max);
    v.as_object().set("last", last_of(at));
    v.as_object().set("hardmax", false);
    return v;
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps& caps) {
    return LinePlan(*SplitAt(node, std::get<int64_t>(at.at("axis")), false), caps);
  };
  r.reference = [max, last_of, out_shape](const OpNode& node, const Attributes& at,
                                          const std::vector<RefTensor>& in) {
    Lines l = *SplitAt(node, std::get<int64_t>(at.at("axis")), false);
    RefTensor out{DType::kI32, out_shape(node, at, l), {}};
    for (uint64_t o = 0; o < l.outer; ++o) {
      for (uint64_t i = 0; i < l.inner; ++i) {
        out.data.push_back(static_cast<double>(
            ArgRef(in[0].data, o * l.axis_len * l.inner + i, l, max, last_of(at))));
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-3, 3, 0, 0};
  r.test_dtypes = {DType::kF32,
                   DType::kI32};  // i32 data has ties, which exercise select_last_index
  Attributes a1{{"axis", AttrValue(int64_t{1})}};
  Attributes a2{{"axis", AttrValue(int64_t{-1})}, {"keepdims", AttrValue(int64_t{0})}};
  if (select_last) a2["select_last_index"] = AttrValue(int64_t{1});
  r.test_cases = {{{Shape{3, 4, 5}}, a1, {}, "axis 1"},
                  {{Shape{6, 7}}, a2, {}, "last axis, no keepdims"}};
  // A long axis (the workgroup kernel on GPUs); select_last_index matters with i32 ties.
  if (select_last) r.test_cases.push_back({{Shape{3, 700}}, a2, {}, "long axis"});
  return r;
}

OpRecord HardmaxRecord(int opset_min, int opset_max) {
  const bool flatten = opset_min < 13;
  OpRecord r;
  r.name = "Hardmax";
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "reduce";
  r.shader = "reduce/argmax";
  r.summary =
      flatten
          ? "1 at the first maximum of each row of the input flattened to 2-D at axis, 0 elsewhere"
          : "1 at the first maximum along an axis, 0 elsewhere";
  r.attributes = {{"axis", AttrValue(int64_t{flatten ? 1 : -1}), false, {}}};
  r.infer = [flatten](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(CheckInput(node, kFloat));
    ALKNET_TRY(SplitAt(node, std::get<int64_t>(at.at("axis")), flatten));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, node.inputs[0].shape}};
  };
  r.context = [flatten](const OpNode& node, const Attributes& at,
                        const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(Lines l, SplitAt(node, std::get<int64_t>(at.at("axis")), flatten));
    hbs::Value v = LineContext(l);
    v.as_object().set("workgroup", UseWorkgroup(l, caps));
    v.as_object().set("max", true);
    v.as_object().set("last", false);
    v.as_object().set("hardmax", true);
    return v;
  };
  r.dispatch = [flatten](const OpNode& node, const Attributes& at, const DeviceCaps& caps) {
    return LinePlan(*SplitAt(node, std::get<int64_t>(at.at("axis")), flatten), caps);
  };
  r.reference = [flatten](const OpNode& node, const Attributes& at,
                          const std::vector<RefTensor>& in) {
    Lines l = *SplitAt(node, std::get<int64_t>(at.at("axis")), flatten);
    RefTensor out{in[0].dtype, in[0].shape, std::vector<double>(in[0].data.size(), 0.0)};
    for (uint64_t o = 0; o < l.outer; ++o) {
      for (uint64_t i = 0; i < l.inner; ++i) {
        const uint64_t base = o * l.axis_len * l.inner + i;
        if (l.axis_len > 0)
          out.data[base + ArgRef(in[0].data, base, l, true, false) * l.inner] = 1.0;
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-3, 3, 0, 0};
  using A = Attributes;
  r.test_cases = {{{Shape{3, 4, 5}}, A{}, {}, "default axis"},
                  {{Shape{3, 4, 5}}, A{{"axis", AttrValue(int64_t{0})}}, {}, "axis 0"}};
  if (!flatten)
    r.test_cases.push_back(
        {{Shape{2, 600, 3}}, A{{"axis", AttrValue(int64_t{1})}}, {}, "long middle axis"});
  return r;
}

// ---- TopK -----------------------------------------------------------------------------------

enum class KFrom { kAttribute, kInput };

Result<uint64_t> TopKCount(const OpNode& node, const Attributes& at, KFrom from,
                           uint64_t axis_len) {
  int64_t k = 0;
  if (from == KFrom::kAttribute) {
    k = std::get<int64_t>(at.at("k"));
  } else {
    const RefTensor* v = node.value(1);
    if (v->data.size() != 1) {
      return Error{ErrorCode::kShape,
                   node.Describe() + ": K must hold one value, got " + ShapeToString(v->shape)};
    }
    k = static_cast<int64_t>(v->data[0]);
  }
  if (k < 0 || static_cast<uint64_t>(k) > axis_len) {
    return Error{ErrorCode::kShape, node.Describe() + ": k = " + std::to_string(k) +
                                        " must be in 0.." + std::to_string(axis_len) +
                                        " (the axis length)"};
  }
  return static_cast<uint64_t>(k);
}

OpRecord TopKRecord(int opset_min, int opset_max, KFrom from, bool largest_attr) {
  OpRecord r;
  r.name = "TopK";
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "reduce";
  r.shader = "reduce/topk";
  r.summary =
      "the k largest (or smallest) elements along an axis and their i32 indices; ties: lower index "
      "first";
  r.attributes = {{"axis", AttrValue(int64_t{-1}), false, {}}};
  if (from == KFrom::kAttribute) {
    r.attributes.push_back({"k", std::nullopt, false, {}});
  } else {
    r.min_inputs = r.max_inputs = 2;
    r.host_inputs = {1};
  }
  if (largest_attr) {
    r.attributes.push_back({"largest", AttrValue(int64_t{1}), false, {}});
    r.attributes.push_back({"sorted", AttrValue(int64_t{1}), false, {}});
  }
  struct Dims {
    Lines l;
    uint64_t k;
    Shape out;
  };
  auto dims = [from](const OpNode& node, const Attributes& at) -> Result<Dims> {
    Dims d;
    ALKNET_ASSIGN_OR_RETURN(d.l, SplitAt(node, std::get<int64_t>(at.at("axis")), false));
    ALKNET_ASSIGN_OR_RETURN(d.k, TopKCount(node, at, from, d.l.axis_len));
    d.out = node.inputs[0].shape;
    d.out[d.l.axis] = d.k;
    return d;
  };
  auto largest_of = [](const Attributes& at) {
    auto it = at.find("largest");
    return it == at.end() || std::get<int64_t>(it->second) != 0;
  };
  r.infer = [dims](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(CheckInput(node, kSignedNum));
    ALKNET_ASSIGN_OR_RETURN(Dims d, dims(node, at));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, d.out},
                                   TensorDesc{DType::kI32, d.out}};
  };
  r.context = [dims, largest_of](const OpNode& node, const Attributes& at,
                                 const DeviceCaps&) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(Dims d, dims(node, at));
    hbs::Value v = LineContext(d.l);
    v.as_object().set("k", d.k);
    v.as_object().set("largest", largest_of(at));
    return v;
  };
  r.dispatch = [dims](const OpNode& node, const Attributes& at, const DeviceCaps&) {
    Dims d = *dims(node, at);
    DispatchPlan p;
    p.invocations = d.k == 0 ? 0 : d.l.outer * d.l.inner;
    return p;
  };
  // Sorted output is always produced (sorted = 0 leaves the order to the implementation).
  r.reference = [dims, largest_of](const OpNode& node, const Attributes& at,
                                   const std::vector<RefTensor>& in) {
    Dims d = *dims(node, at);
    const bool largest = largest_of(at);
    RefTensor values{in[0].dtype, d.out, std::vector<double>(d.l.outer * d.k * d.l.inner)};
    RefTensor indices{DType::kI32, d.out, std::vector<double>(values.data.size())};
    std::vector<uint64_t> order(d.l.axis_len);
    for (uint64_t o = 0; o < d.l.outer; ++o) {
      for (uint64_t i = 0; i < d.l.inner; ++i) {
        const uint64_t base = o * d.l.axis_len * d.l.inner + i;
        auto at_ = [&](uint64_t j) { return in[0].data[base + j * d.l.inner]; };
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](uint64_t a, uint64_t b) {
          return largest ? at_(a) > at_(b) : at_(a) < at_(b);
        });
        for (uint64_t j = 0; j < d.k; ++j) {
          const uint64_t dst = o * d.k * d.l.inner + j * d.l.inner + i;
          values.data[dst] = at_(order[j]);
          indices.data[dst] = static_cast<double>(order[j]);
        }
      }
    }
    return std::vector<RefTensor>{std::move(values), std::move(indices)};
  };
  r.hints = {-3, 3, 0, 0};
  r.test_dtypes = {DType::kF32, DType::kI32};  // i32 data has ties: lower index first
  auto k_value = [](double k) { return RefTensor{DType::kI32, {1}, {k}}; };
  using A = Attributes;
  if (from == KFrom::kAttribute) {
    r.test_cases = {{{Shape{5, 6, 2}},
                     A{{"k", AttrValue(int64_t{3})}, {"axis", AttrValue(int64_t{1})}},
                     {},
                     "axis 1"}};
  } else {
    r.test_cases = {{{Shape{5, 6, 2}, Shape{1}},
                     A{{"axis", AttrValue(int64_t{-2})}},
                     {{1, k_value(6)}},
                     "k = axis"}};
    if (largest_attr) {
      r.test_cases.push_back({{Shape{4, 7}, Shape{1}},
                              A{{"largest", AttrValue(int64_t{0})}},
                              {{1, k_value(3)}},
                              "smallest"});
    }
  }
  return r;
}

}  // namespace

void AddArgTopKOps(OpTable& table) {
  table.Add(ArgRecord("ArgMax", true, 1, 11, false));
  table.Add(ArgRecord("ArgMax", true, 12, 99, true));
  table.Add(ArgRecord("ArgMin", false, 1, 11, false));
  table.Add(ArgRecord("ArgMin", false, 12, 99, true));
  table.Add(HardmaxRecord(1, 12));
  table.Add(HardmaxRecord(13, 99));
  table.Add(TopKRecord(1, 9, KFrom::kAttribute, false));
  table.Add(TopKRecord(10, 10, KFrom::kInput, false));
  table.Add(TopKRecord(11, 99, KFrom::kInput, true));
}

}  // namespace alknet::compute::ops
