// QuantizeLinear and DequantizeLinear (shaders/quantize/): elementwise with a scale and an
// optional zero point, per tensor (scalars) or per axis (1-D along `axis`). The per-axis
// operands are given the shape [C, 1, ..., 1] so the elementwise broadcasting index math
// reads them; the buffers are unchanged.
//
// The quantized dtype after the session's narrowing: uint8 -> u32, int8 -> i32. Before opset
// 21 those are the only quantized types, so u32 saturates to [0, 255] and i32 to [-128, 127];
// without a zero point the output is uint8.
#include <algorithm>
#include <cmath>

#include "ops/elementwise.h"
#include "ops/families.h"

namespace alknet::compute::ops {

namespace {

using In = std::span<const double>;

// The node with inputs 1 and 2 reshaped for broadcasting against input 0 at `axis`.
Result<OpNode> AlignToAxis(const OpNode& node, const Attributes& at) {
  OpNode n = node;
  const Shape& x = node.inputs[0].shape;
  const auto rank = static_cast<int64_t>(x.size());
  int64_t axis = std::get<int64_t>(at.at("axis"));
  for (size_t i = 1; i < n.inputs.size(); ++i) {
    if (!n.has_input(i)) continue;
    TensorDesc& d = n.inputs[i];
    if (d.elements() == 1 && d.shape.size() <= 1) {
      d.shape = {};
      continue;
    }
    if (axis < -rank || axis >= rank) {
      return Error{ErrorCode::kInvalidAttribute,
                   node.Describe() + ": axis " + std::to_string(axis) +
                       " is out of range for rank " + std::to_string(rank)};
    }
    const int64_t a = axis < 0 ? axis + rank : axis;
    if (d.shape.size() != 1 || d.shape[0] != x[a]) {
      return Error{ErrorCode::kShape, node.Describe() + ": input " + std::to_string(i) +
                                          " must be a scalar or 1-D of " + std::to_string(x[a]) +
                                          " (the extent of axis " + std::to_string(a) + "), got " +
                                          ShapeToString(d.shape)};
    }
    d.shape = Shape(static_cast<size_t>(rank - a), 1);
    d.shape[0] = x[a];
  }
  return n;
}

std::vector<RefTensor> AlignedRefs(const OpNode& aligned, std::vector<RefTensor> in) {
  for (size_t i = 1; i < in.size(); ++i) {
    if (aligned.has_input(i)) in[i].shape = aligned.inputs[i].shape;
  }
  return in;
}

struct Range {
  double lo, hi;
};

Range QuantizedRange(DType d) { return d == DType::kI32 ? Range{-128, 127} : Range{0, 255}; }

OpRecord QuantizeRecord() {
  OpRecord r;
  r.name = "QuantizeLinear";
  r.opset_min = 10;
  r.family = "quantize";
  r.shader = "quantize/quantizelinear";
  r.summary =
      "saturate(round(x / scale) + zero_point) to uint8 (u32) or int8 (i32), per tensor or per "
      "axis";
  r.min_inputs = 2;
  r.max_inputs = 3;
  r.attributes = {{"axis", AttrValue(int64_t{1}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    if (node.inputs[0].dtype != DType::kF32 || node.inputs[1].dtype != DType::kF32) {
      return Error{ErrorCode::kUnsupported, node.Describe() + ": x and scale must be f32"};
    }
    DType out = DType::kU32;
    if (node.has_input(2)) {
      out = node.inputs[2].dtype;
      if (out != DType::kU32 && out != DType::kI32) {
        return Error{
            ErrorCode::kUnsupported,
            node.Describe() + ": zero_point must be uint8 or int8 (u32 or i32 on the device)"};
      }
    }
    ALKNET_ASSIGN_OR_RETURN(OpNode aligned, AlignToAxis(node, at));
    ALKNET_TRY(
        InferElementwise(aligned, {DType::kF32, DType::kI32, DType::kU32}, OutType::kSame, false));
    return std::vector<TensorDesc>{TensorDesc{out, node.inputs[0].shape}};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(OpNode aligned, AlignToAxis(node, at));
    ALKNET_ASSIGN_OR_RETURN(hbs::Value ctx, ElementwiseContext(aligned, at, caps));
    const Range q = QuantizedRange(node.outputs.at(0).dtype);
    ctx.as_object().set("lo", FloatLiteral(q.lo));
    ctx.as_object().set("hi", FloatLiteral(q.hi));
    return ctx;
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps& caps) {
    return ElementwiseDispatch(AlignToAxis(node, at).value(), caps);  // the shapes the context used
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const OpNode aligned = AlignToAxis(node, at).value();
    const Range q = QuantizedRange(node.outputs.at(0).dtype);
    const bool zp = node.has_input(2);
    return ElementwiseReference(
        aligned, at, AlignedRefs(aligned, in), [q, zp](In x, const Attributes&) {
          // Half to even, like the ONNX reference (numpy rint) and WGSL round().
          const double v = std::nearbyint(ToF32(x[0] / x[1])) + (zp ? x[2] : 0.0);
          return std::clamp(v, q.lo, q.hi);
        });
  };
  r.hints = {-300, 300, 0, 0};
  auto t = [](DType d, Shape s, std::vector<double> v) {
    return RefTensor{d, std::move(s), std::move(v)};
  };
  r.test_cases = {
      {{Shape{3, 4, 5}, Shape{}, Shape{}},
       {},
       {{1, t(DType::kF32, {}, {2.0})}, {2, t(DType::kU32, {}, {128})}},
       "per tensor, uint8"},
      {{Shape{2, 3, 5}, Shape{3}, Shape{3}},
       {},
       {{1, t(DType::kF32, {3}, {1.0, 2.5, 0.5})}, {2, t(DType::kI32, {3}, {0, -10, 3})}},
       "per axis 1, int8"},
      {{Shape{4, 3}, Shape{3}, std::nullopt},
       {{"axis", int64_t{-1}}},
       {{1, t(DType::kF32, {3}, {3.0, 1.0, 4.0})}},
       "axis -1, no zero point"},
  };
  return r;
}

OpRecord DequantizeRecord() {
  OpRecord r;
  r.name = "DequantizeLinear";
  r.opset_min = 10;
  r.family = "quantize";
  r.shader = "quantize/dequantizelinear";
  r.summary = "(x - zero_point) * scale, per tensor or per axis";
  r.min_inputs = 2;
  r.max_inputs = 3;
  r.attributes = {{"axis", AttrValue(int64_t{1}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    const DType x = node.inputs[0].dtype;
    if ((x != DType::kU32 && x != DType::kI32) || node.inputs[1].dtype != DType::kF32 ||
        (node.has_input(2) && node.inputs[2].dtype != x)) {
      return Error{ErrorCode::kUnsupported,
                   node.Describe() +
                       ": x (and zero_point, of x's dtype) must be integers, "
                       "scale f32"};
    }
    ALKNET_ASSIGN_OR_RETURN(OpNode aligned, AlignToAxis(node, at));
    ALKNET_TRY(
        InferElementwise(aligned, {DType::kF32, DType::kI32, DType::kU32}, OutType::kSame, false));
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, node.inputs[0].shape}};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(OpNode aligned, AlignToAxis(node, at));
    return ElementwiseContext(aligned, at, caps);
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps& caps) {
    return ElementwiseDispatch(AlignToAxis(node, at).value(), caps);  // the shapes the context used
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const OpNode aligned = AlignToAxis(node, at).value();
    const bool zp = node.has_input(2);
    return ElementwiseReference(
        aligned, at, AlignedRefs(aligned, in),
        [zp](In x, const Attributes&) { return (x[0] - (zp ? x[2] : 0.0)) * x[1]; });
  };
  r.hints = {0, 255, 1e-6, 1e-6};
  r.test_dtypes = {DType::kU32};
  auto t = [](DType d, Shape s, std::vector<double> v) {
    return RefTensor{d, std::move(s), std::move(v)};
  };
  r.test_cases = {
      {{Shape{3, 4, 5}, Shape{}, Shape{}},
       {},
       {{1, t(DType::kF32, {}, {0.5})}, {2, t(DType::kU32, {}, {128})}},
       "per tensor"},
      {{Shape{2, 3, 5}, Shape{3}, Shape{3}},
       {},
       {{1, t(DType::kF32, {3}, {1.0, 2.5, 0.5})}, {2, t(DType::kU32, {3}, {0, 10, 3})}},
       "per axis 1"},
      {{Shape{4, 3}, Shape{3}, std::nullopt},
       {{"axis", int64_t{-1}}},
       {{1, t(DType::kF32, {3}, {3.0, 1.0, 4.0})}},
       "no zero point"},
  };
  return r;
}

// DynamicQuantizeLinear (uint8): scale and zero point from the data's range, which always
// includes 0 (ONNX): scale = (max(0, max x) - min(0, min x)) / 255, zero point =
// saturate(round(-min / scale)); then QuantizeLinear with them. The range comes from one
// workgroup reducing the whole tensor (alknet.DynamicQuantizeParams).
void DynamicParams(const std::vector<double>& x, double* scale, double* zp) {
  double lo = 0, hi = 0;
  for (double v : x) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  *scale = ToF32((hi - lo) / 255.0);
  *zp = std::clamp(std::nearbyint(ToF32(-lo / *scale)), 0.0, 255.0);
}

OpRecord DynamicParamsRecord() {
  OpRecord r;
  r.name = "alknet.DynamicQuantizeParams";
  r.family = "internal";
  r.shader = "quantize/dynamic_params";
  r.summary = "scale (f32) and uint8 zero point (u32) covering [min(0, x), max(0, x)]";
  r.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    if (node.inputs[0].dtype != DType::kF32) {
      return Error{ErrorCode::kUnsupported, node.Describe() + ": x must be f32"};
    }
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, {}}, TensorDesc{DType::kU32, {}}};
  };
  r.context = [](const OpNode& node, const Attributes&, const DeviceCaps&) -> Result<hbs::Value> {
    return hbs::Value::object({{"count", node.inputs[0].elements()}});
  };
  r.dispatch = [](const OpNode&, const Attributes&, const DeviceCaps&) {
    DispatchPlan p;
    p.kind = DispatchPlan::Kind::kGrid;
    p.groups = {1, 1, 1};
    p.workgroup_size = {64, 1, 1};
    return p;
  };
  r.reference = [](const OpNode&, const Attributes&, const std::vector<RefTensor>& in) {
    double scale = 0, zp = 0;
    DynamicParams(in[0].data, &scale, &zp);
    return std::vector<RefTensor>{RefTensor{DType::kF32, {}, {scale}},
                                  RefTensor{DType::kU32, {}, {zp}}};
  };
  r.hints = {-4, 6, 1e-6, 1e-6};
  r.test_cases = {{{Shape{3, 7}}, {}, {}, "small"}, {{Shape{1000}}, {}, {}, "strided sums"}};
  return r;
}

OpRecord DynamicQuantizeRecord() {
  OpRecord r;
  r.name = "DynamicQuantizeLinear";
  r.opset_min = 11;
  r.family = "quantize";
  r.summary =
      "uint8 quantization with scale and zero point computed from the data (outputs y, scale, zero "
      "point)";
  r.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    if (node.inputs[0].dtype != DType::kF32) {
      return Error{ErrorCode::kUnsupported, node.Describe() + ": x must be f32"};
    }
    return std::vector<TensorDesc>{TensorDesc{DType::kU32, node.inputs[0].shape},
                                   TensorDesc{DType::kF32, {}}, TensorDesc{DType::kU32, {}}};
  };
  r.decompose = [](const OpNode&, const Attributes&) -> Result<Graph> {
    Graph g(1);
    const int params = g.Add("alknet.DynamicQuantizeParams", {0}, {}, 17, 2);
    const int y = g.Add("QuantizeLinear", {0, params, params + 1}, {}, 13);
    g.outputs = {y, params, params + 1};
    return g;
  };
  r.reference = [](const OpNode&, const Attributes&, const std::vector<RefTensor>& in) {
    double scale = 0, zp = 0;
    DynamicParams(in[0].data, &scale, &zp);
    RefTensor y{DType::kU32, in[0].shape, {}};
    for (double v : in[0].data)
      y.data.push_back(std::clamp(std::nearbyint(ToF32(v / scale)) + zp, 0.0, 255.0));
    return std::vector<RefTensor>{std::move(y), RefTensor{DType::kF32, {}, {scale}},
                                  RefTensor{DType::kU32, {}, {zp}}};
  };
  r.hints = {-4, 6, 1e-6, 1e-6};
  r.test_cases = {{{Shape{3, 7}}, {}, {}, "mixed signs"}, {{Shape{257}}, {}, {}, "odd size"}};
  return r;
}

}  // namespace

void AddQuantizeOps(OpTable& table) {
  table.Add(QuantizeRecord());
  table.Add(DequantizeRecord());
  table.Add(DynamicParamsRecord());
  table.Add(DynamicQuantizeRecord());
}

}  // namespace alknet::compute::ops
