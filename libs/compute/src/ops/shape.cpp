// Ops whose result is known on the host once shapes and host inputs are: Shape, Size,
// Constant, ConstantOfShape, Range. The ONNX session folds them with `reference`; on the
// device each is a composition that uploads the host-computed value (Graph::Node::
// input_values) and copies it, or, for ConstantOfShape, a stride-0 view of one element.
#include <cmath>

#include "ops/elementwise.h"
#include "ops/families.h"
#include "ops/movement.h"

namespace alknet::compute::ops {

namespace {

using Ints = std::vector<int64_t>;

// A graph whose one output is a copy of `value` (the executor uploads it).
Graph ConstGraph(int num_inputs, ConstValue value) {
  Graph g(num_inputs);
  g.outputs = {g.Add("Identity", {Graph::kAbsent})};
  g.nodes.back().input_values = {std::move(value)};
  return g;
}

// A host-computed op: infer from the value's dtype and shape, decompose into ConstGraph.
OpRecord FoldedRecord(std::string name, int opset_min, int opset_max, std::string summary,
                      std::function<Result<RefTensor>(const OpNode&, const Attributes&)> value) {
  OpRecord r;
  r.name = std::move(name);
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "shape";
  r.summary = std::move(summary);
  r.accepts_views = true;  // the inputs' data is never read
  r.infer = [value](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(RefTensor v, value(node, at));
    if (v.dtype != DType::kF32 && v.dtype != DType::kF16 && v.dtype != DType::kI32 &&
        v.dtype != DType::kU32 && v.dtype != DType::kBool) {
      return Error{ErrorCode::kUnsupported,
                   node.Describe() + ": dtype " + DTypeName(v.dtype) +
                       " cannot live on the device (f32, f16, i32, u32, bool)"};
    }
    return std::vector<TensorDesc>{TensorDesc{v.dtype, v.shape}};
  };
  r.decompose = [value](const OpNode& node, const Attributes& at) -> Result<Graph> {
    ALKNET_ASSIGN_OR_RETURN(RefTensor v, value(node, at));
    return ConstGraph(static_cast<int>(node.inputs.size()),
                      std::make_shared<const RefTensor>(std::move(v)));
  };
  r.reference = [value](const OpNode& node, const Attributes& at, const std::vector<RefTensor>&) {
    return std::vector<RefTensor>{value(node, at).value()};
  };
  return r;
}

Result<RefTensor> ShapeValue(const OpNode& node, const Attributes& at) {
  const Shape& s = node.inputs[0].shape;
  const int64_t rank = static_cast<int64_t>(s.size());
  int64_t start = at.count("start") ? std::get<int64_t>(at.at("start")) : 0;
  int64_t end = at.count("end") ? std::get<int64_t>(at.at("end")) : rank;
  // Opset 15: negative counts from the back, then both clamp to [0, rank].
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  RefTensor v{DType::kI32, {0}, {}};
  for (int64_t d = start; d < end; ++d) v.data.push_back(static_cast<double>(s[d]));
  v.shape[0] = v.data.size();
  return v;
}

Result<RefTensor> ConstantValue(const OpNode& node, const Attributes& at) {
  if (at.size() != 1) {
    return Error{ErrorCode::kInvalidAttribute,
                 node.Describe() +
                     ": exactly one of value, value_float, value_floats, "
                     "value_int, value_ints must be set"};
  }
  const auto& [name, v] = *at.begin();
  if (name == "value") {
    const ConstValue& t = std::get<ConstValue>(v);
    if (!t) return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": value holds no tensor"};
    return *t;
  }
  if (name == "value_float") return RefTensor{DType::kF32, {}, {ToF32(std::get<double>(v))}};
  if (name == "value_int")
    return RefTensor{DType::kI32, {}, {static_cast<double>(std::get<int64_t>(v))}};
  if (name == "value_floats") {
    std::vector<double> d = std::get<std::vector<double>>(v);
    for (double& x : d) x = ToF32(x);
    return RefTensor{DType::kF32, {d.size()}, d};
  }
  const Ints& l = std::get<Ints>(v);
  return RefTensor{DType::kI32, {l.size()}, std::vector<double>(l.begin(), l.end())};
}

// Range's element count: max(ceil((limit - start) / delta), 0), refused when not finite.
Result<uint64_t> RangeCount(const OpNode& node, double (&s)[3]) {
  for (size_t i = 0; i < 3; ++i) {
    std::vector<double> v = HostValues(node, i);
    if (v.size() != 1) {
      return Error{ErrorCode::kShape, node.Describe() + ": start, limit and delta must be scalars"};
    }
    s[i] = v[0];
  }
  if (s[2] == 0) return Error{ErrorCode::kInvalidArgument, node.Describe() + ": delta is 0"};
  const double n = std::ceil((s[1] - s[0]) / s[2]);
  if (!std::isfinite(n)) {
    return Error{ErrorCode::kInvalidArgument, node.Describe() + ": start " + std::to_string(s[0]) +
                                                  ", limit " + std::to_string(s[1]) +
                                                  " and delta " + std::to_string(s[2]) +
                                                  " give no finite element count"};
  }
  // The values are computed on the host in float64 (8 bytes each), also for the device path.
  constexpr double kMaxRange = double(uint64_t{1} << 27);
  if (n > kMaxRange) {
    return Error{ErrorCode::kLimit, node.Describe() + ": " + std::to_string(n) +
                                        " elements, more than Range computes (2^27)"};
  }
  return n > 0 ? static_cast<uint64_t>(n) : 0;
}

Result<RefTensor> RangeValue(const OpNode& node, const Attributes&) {
  double s[3];
  ALKNET_ASSIGN_OR_RETURN(uint64_t n, RangeCount(node, s));
  const DType dt = node.inputs[0].dtype;
  RefTensor v{dt, {n}, {}};
  // ONNX's definition accumulates: x_i = start + i * delta, in the output type.
  for (uint64_t i = 0; i < v.shape[0]; ++i) {
    const double x = s[0] + static_cast<double>(i) * s[2];
    v.data.push_back(dt == DType::kF32 ? ToF32(x) : WrapInt(x, dt));
  }
  return v;
}

// ConstantOfShape's shape and fill value: a RefTensor of that shape holding only the fill,
// and its element count (checked: a shape from the model must not wrap around).
Result<std::pair<RefTensor, uint64_t>> ConstantOfShapeFill(const OpNode& node,
                                                           const Attributes& at) {
  ALKNET_ASSIGN_OR_RETURN(Ints s, HostInts(node, 0, "shape"));
  RefTensor fill{DType::kF32, {1}, {0.0}};
  if (at.count("value")) {
    const ConstValue& t = std::get<ConstValue>(at.at("value"));
    if (!t || t->data.size() != 1) {
      return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": value must hold one element"};
    }
    fill = *t;
  }
  RefTensor v{fill.dtype, {}, {fill.data[0]}};
  for (int64_t d : s) {
    if (d < 0) return Error{ErrorCode::kShape, node.Describe() + ": negative extent"};
    v.shape.push_back(static_cast<uint64_t>(d));
  }
  ALKNET_TRY(CheckShapeSize(v.shape, DeviceElementSize(v.dtype), node.Describe()));
  if (v.dtype != DType::kF32 && v.dtype != DType::kF16 && v.dtype != DType::kI32 &&
      v.dtype != DType::kU32 && v.dtype != DType::kBool) {
    return Error{ErrorCode::kUnsupported,
                 node.Describe() + ": dtype " + DTypeName(v.dtype) +
                     " cannot live on the device (f32, f16, i32, u32, bool)"};
  }
  return std::make_pair(std::move(v), *CheckedElements(v.shape));
}

}  // namespace

void AddShapeOps(OpTable& table) {
  OpRecord shape =
      FoldedRecord("Shape", 1, 14, "the input's shape as a 1-D i32 tensor", ShapeValue);
  shape.test_cases = {{{Shape{3, 1, 4}}, {}, {}, "rank 3"}};
  table.Add(shape);
  shape = FoldedRecord("Shape", 15, 99, "the input's shape [start:end] as a 1-D i32 tensor",
                       ShapeValue);
  shape.attributes = {{"start", std::nullopt, true, {}}, {"end", std::nullopt, true, {}}};
  shape.test_cases = {
      {{Shape{3, 1, 4, 2}}, {{"start", int64_t{-3}}, {"end", int64_t{-1}}}, {}, "start, end"},
      {{Shape{3, 1, 4, 2}}, {{"start", int64_t{1}}, {"end", int64_t{10}}}, {}, "clamped"}};
  table.Add(shape);

  OpRecord size = FoldedRecord(
      "Size", 1, 99, "the input's element count as an i32 scalar",
      [](const OpNode& node, const Attributes&) -> Result<RefTensor> {
        return RefTensor{DType::kI32, {}, {static_cast<double>(node.inputs[0].elements())}};
      });
  size.test_cases = {{{Shape{3, 5, 2}}, {}, {}, "3-D"}};
  table.Add(size);

  OpRecord constant =
      FoldedRecord("Constant", 1, 99, "a tensor given by an attribute", ConstantValue);
  constant.min_inputs = constant.max_inputs = 0;
  constant.attributes = {
      {"value", std::nullopt, true, {}},
      {"value_float", std::nullopt, true, FiniteFloat},
      {"value_floats", std::nullopt, true, {}},
      {"value_int", std::nullopt, true, {}},
      {"value_ints", std::nullopt, true, {}},
      {"value_string", std::nullopt, true, [](const AttrValue&) {
         return std::string("is a string tensor, which cannot live on the device");
       }}};
  constant.test_cases = {
      {{}, {{"value", MakeConst(DType::kF32, {2, 3}, {1, -2, 3.5, 0, 5, 6})}}, {}, "value"},
      {{}, {{"value_ints", Ints{4, -1, 7}}}, {}, "value_ints"},
      {{}, {{"value_float", 2.5}}, {}, "value_float"},
  };
  table.Add(constant);

  OpRecord cos =
      FoldedRecord("ConstantOfShape", 9, 99, "a tensor of the given shape filled with one value",
                   [](const OpNode& node, const Attributes& at) -> Result<RefTensor> {
                     ALKNET_ASSIGN_OR_RETURN(auto v, ConstantOfShapeFill(node, at));
                     v.first.data.assign(v.second, v.first.data.at(0));
                     return std::move(v.first);
                   });
  // The shape without the values: they are only built when the node is folded (its output
  // small enough) and never on the device path (a stride-0 view).
  cos.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(auto v, ConstantOfShapeFill(node, at));
    return std::vector<TensorDesc>{TensorDesc{v.first.dtype, v.first.shape}};
  };
  cos.host_inputs = {0};
  cos.attributes = {{"value", std::nullopt, true, {}}};
  // A stride-0 view of the one value instead of a filled buffer.
  cos.decompose = [](const OpNode& node, const Attributes& at) -> Result<Graph> {
    ALKNET_ASSIGN_OR_RETURN(Ints s, HostInts(node, 0, "shape"));
    ConstValue fill = MakeConst(DType::kF32, {}, {0.0});
    if (at.count("value")) {
      const RefTensor& t = *std::get<ConstValue>(at.at("value"));
      fill = MakeConst(t.dtype, {}, {t.data.at(0)});
    }
    Graph g(1);
    g.outputs = {g.Add("Expand", {Graph::kAbsent, Graph::kAbsent})};
    g.nodes.back().input_values = {fill, IntList(s)};
    return g;
  };
  cos.test_cases = {{{Shape{3}}, {}, {{0, *IntList({2, 3, 4})}}, "default zero"},
                    {{Shape{2}},
                     {{"value", MakeConst(DType::kI32, {1}, {7})}},
                     {{0, *IntList({3, 2})}},
                     "i32 7"}};
  table.Add(cos);

  OpRecord range = FoldedRecord("Range", 11, 99,
                                "start, start + delta, ... up to limit (exclusive)", RangeValue);
  range.min_inputs = range.max_inputs = 3;
  range.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    double s[3];
    ALKNET_ASSIGN_OR_RETURN(uint64_t n, RangeCount(node, s));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, {n}}};
  };
  range.host_inputs = {0, 1, 2};
  range.test_cases = {{{Shape{}, Shape{}, Shape{}},
                       {},
                       {{0, RefTensor{DType::kF32, {}, {1.5}}},
                        {1, RefTensor{DType::kF32, {}, {9}}},
                        {2, RefTensor{DType::kF32, {}, {0.7}}}},
                       "f32"},
                      {{Shape{}, Shape{}, Shape{}},
                       {},
                       {{0, RefTensor{DType::kI32, {}, {10}}},
                        {1, RefTensor{DType::kI32, {}, {-3}}},
                        {2, RefTensor{DType::kI32, {}, {-4}}}},
                       "i32, negative delta"}};
  table.Add(range);
}

}  // namespace alknet::compute::ops
