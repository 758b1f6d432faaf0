// Where, Clip, Cast: elementwise ops with dtype rules of their own (shaders/select/).
#include <cfloat>
#include <cmath>

#include "ops/elementwise.h"
#include "ops/families.h"

namespace alknet::compute::ops {

namespace {

using In = std::span<const double>;

const char* OnnxTypeName(int64_t t) {
  static const char* const kNames[] = {"UNDEFINED",  "FLOAT",   "UINT8",  "INT8",   "UINT16",
                                       "INT16",      "INT32",   "INT64",  "STRING", "BOOL",
                                       "FLOAT16",    "DOUBLE",  "UINT32", "UINT64", "COMPLEX64",
                                       "COMPLEX128", "BFLOAT16"};
  return t >= 0 && t < 17 ? kNames[t] : "unknown";
}

}  // namespace

// The ONNX session narrows what WGSL cannot store: 8/16/64-bit integers to i32 (signed) or
// u32 (unsigned), DOUBLE to f32 (values are range-checked on upload and converted back on
// download). A dtype code means the device dtype it lands on.
Result<DType> DeviceTypeOfOnnx(int64_t t, const std::string& where) {
  switch (t) {
    case 1:
    case 11: return DType::kF32;  // FLOAT, DOUBLE
    case 3:
    case 5:
    case 6:
    case 7: return DType::kI32;  // INT8, INT16, INT32, INT64
    case 2:
    case 4:
    case 12:
    case 13: return DType::kU32;  // UINT8, UINT16, UINT32, UINT64
    case 9: return DType::kBool;
    case 10: return DType::kF16;
    default: break;
  }
  return Error{ErrorCode::kUnsupported,
               where + ": ONNX dtype " + std::to_string(t) + " (" + OnnxTypeName(t) +
                   ") is not supported on the device (alknet computes in f32, f16, "
                   "i32, u32 and bool; strings, complex numbers and bfloat16 have no "
                   "WGSL representation)"};
}

int64_t OnnxTypeOfDevice(DType d) {
  switch (d) {
    case DType::kF32: return 1;
    case DType::kF16: return 10;
    case DType::kI32: return 6;
    case DType::kU32: return 12;
    case DType::kBool: return 9;
    default: return 0;
  }
}

namespace {

// ---- CastLike -----------------------------------------------------------------------------

OpRecord CastLikeRecord() {
  OpRecord r;
  r.name = "CastLike";
  r.opset_min = 15;
  r.family = "select";
  r.summary = "Cast to the dtype of the second input (only its dtype is read)";
  r.min_inputs = r.max_inputs = 2;
  r.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(InferElementwise(node, kAny, OutType::kSame, false));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[1].dtype, node.inputs[0].shape}};
  };
  r.decompose = [](const OpNode& node, const Attributes&) -> Result<Graph> {
    Graph g(2);
    g.outputs = {g.Add("Cast", {0}, {{"to", OnnxTypeOfDevice(node.inputs[1].dtype)}}, 13)};
    return g;
  };
  r.reference = [](const OpNode& node, const Attributes&, const std::vector<RefTensor>& in) {
    OpNode cast{"Cast",           node.name, 13, {{"to", OnnxTypeOfDevice(node.inputs[1].dtype)}},
                {node.inputs[0]}, {}};
    return ReferenceRun(cast, {in[0]}).value();
  };
  r.hints = {-4, 4, 0, 0};
  r.test_dtypes = {DType::kF32, DType::kI32};
  r.test_cases = {
      {{Shape{3, 4}, Shape{1}}, {}, {{1, RefTensor{DType::kI32, {1}, {0}}}}, "to i32"},
      {{Shape{3, 4}, Shape{1}}, {}, {{1, RefTensor{DType::kF32, {1}, {0}}}}, "to f32"},
      {{Shape{5}, Shape{1}}, {}, {{1, RefTensor{DType::kBool, {1}, {0}}}}, "to bool"},
  };
  return r;
}

}  // namespace

void AddSelectOps(OpTable& table) {
  OpRecord where = ElementwiseRecord(
      "Where", "select/where", "cond ? X : Y, broadcasting all three", kAny, OutType::kSame,
      [](In x, const Attributes&) { return x[0] != 0 ? x[1] : x[2]; }, 3, 3);
  where.opset_min = 9;
  where.hints = {-4, 4, 0, 0};
  where.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    if (node.inputs[0].dtype != DType::kBool) {
      return Error{ErrorCode::kUnsupported, node.Describe() + ": condition must be bool, got " +
                                                DTypeName(node.inputs[0].dtype)};
    }
    if (node.inputs[1].dtype != node.inputs[2].dtype) {
      return Error{ErrorCode::kUnsupported, node.Describe() + ": X and Y must share one dtype"};
    }
    ALKNET_ASSIGN_OR_RETURN(auto outs, InferElementwise(node, kAny, OutType::kSame, false));
    outs[0].dtype = node.inputs[1].dtype;
    return outs;
  };
  where.test_dtypes = {DType::kF32, DType::kI32};  // of X and Y; the condition is bool
  table.Add(std::move(where));

  OpRecord clip6 = ElementwiseRecord("Clip", "select/clip6", "clamp to [min, max] (attributes)",
                                     kFloat, OutType::kSame, [](In x, const Attributes& a) {
                                       double v = x[0];
                                       if (a.count("min"))
                                         v = std::max(v, ToF32(std::get<double>(a.at("min"))));
                                       if (a.count("max"))
                                         v = std::min(v, ToF32(std::get<double>(a.at("max"))));
                                       return v;
                                     });
  clip6.opset_min = 6;
  clip6.opset_max = 10;
  // Unset bounds leave that side open (the ONNX defaults are the dtype's extremes, which an
  // f16 literal could not even hold).
  auto bound = [](const AttrValue& v) {
    return v.index() == 1 ? FiniteFloat(v) : std::string("must be a float");
  };
  clip6.attributes = {{"min", std::nullopt, true, bound}, {"max", std::nullopt, true, bound}};
  clip6.hints = {-4, 4, 0, 0};
  table.Add(std::move(clip6));

  OpRecord clip = ElementwiseRecord(
      "Clip", "select/clip", "clamp to [min, max] (optional scalar inputs)", kNumeric,
      OutType::kSame,
      [](In x, const Attributes&) {
        double v = x[0];
        if (x.size() > 1) v = std::max(v, x[1]);
        if (x.size() > 2) v = std::min(v, x[2]);
        return v;
      },
      1, 3);
  clip.opset_min = 11;
  clip.hints = {-4, 4, 0, 0};
  clip.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    for (size_t i = 1; i < node.inputs.size(); ++i) {
      if (!node.has_input(i)) continue;
      if (node.inputs[i].elements() != 1) {
        return Error{ErrorCode::kShape, node.Describe() + ": " + (i == 1 ? "min" : "max") +
                                            " must be a scalar, got shape " +
                                            ShapeToString(node.inputs[i].shape)};
      }
    }
    ALKNET_ASSIGN_OR_RETURN(auto outs, InferElementwise(node, kNumeric, OutType::kSame));
    outs[0].shape = node.inputs[0].shape;  // scalar bounds never grow X
    return outs;
  };
  // An absent bound leaves its side open.
  clip.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const bool lo = node.has_input(1), hi = node.has_input(2);
    return ElementwiseReference(node, at, in, [lo, hi](In x, const Attributes&) {
      double v = x[0];
      if (lo) v = std::max(v, x[1]);
      if (hi) v = std::min(v, x[2]);
      return v;
    });
  };
  // Bounds are random like X (same dtype); min > max is fine, the order of ONNX's max/min
  // decides it.
  clip.test_cases = {
      {{Shape{3, 5, 7}, Shape{}, Shape{}}, {}, {}, "both bounds"},
      {{Shape{9, 7}, std::nullopt, Shape{}}, {}, {}, "max only (min absent)"},
      {{Shape{1031}, Shape{}}, {}, {}, "min only"},
      {{Shape{4, 4}, std::nullopt, std::nullopt}, {}, {}, "no bounds"},
  };
  table.Add(std::move(clip));

  OpRecord cast = ElementwiseRecord("Cast", "select/cast", "convert to the dtype `to`", kAny,
                                    OutType::kSame, [](In x, const Attributes&) { return x[0]; });
  cast.opset_min = 6;
  cast.attributes = {{"to", std::nullopt, false, [](const AttrValue& v) {
                        return v.index() == 0
                                   ? std::string()
                                   : std::string("must be an int (TensorProto.DataType)");
                      }}};
  cast.infer = [](const OpNode& node, const Attributes& attrs) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(auto outs, InferElementwise(node, kAny, OutType::kSame));
    ALKNET_ASSIGN_OR_RETURN(outs[0].dtype, DeviceTypeOfOnnx(std::get<int64_t>(attrs.at("to")),
                                                            node.Describe() + ": attribute 'to'"));
    return outs;
  };
  cast.reference = [](const OpNode& node, const Attributes& attrs,
                      const std::vector<RefTensor>& in) {
    const DType to = node.outputs.at(0).dtype;
    const bool from_float =
        node.inputs.at(0).dtype == DType::kF32 || node.inputs.at(0).dtype == DType::kF16;
    return ElementwiseReference(node, attrs, in, [to, from_float](In x, const Attributes&) {
      if (to == DType::kBool) return x[0] != 0 ? 1.0 : 0.0;
      // Between i32 and u32 the bits are kept (two's complement wrap, done by the caller).
      if (to == DType::kF32 || to == DType::kF16 || !from_float) return x[0];
      // WGSL float -> integer conversion truncates and saturates (ONNX leaves overflow undefined).
      if (to == DType::kU32) return std::clamp(std::trunc(x[0]), 0.0, 4294967295.0);
      return std::clamp(std::trunc(x[0]), -2147483648.0, 2147483647.0);
    });
  };
  table.Add(std::move(cast));
  table.Add(CastLikeRecord());
}

}  // namespace alknet::compute::ops
