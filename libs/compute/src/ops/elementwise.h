// Shared machinery for elementwise records (unary, activations, binary, Where, Clip, Cast):
// shape inference with numpy broadcasting, the template context for N-d index math, and the
// float64 reference loop.
#pragma once

#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "alknet/compute/op_table.h"

namespace alknet::compute::ops {

inline const DTypeSet kFloat = {DType::kF32, DType::kF16};
inline const DTypeSet kSignedNum = {DType::kF32, DType::kF16, DType::kI32};
inline const DTypeSet kNumeric = {DType::kF32, DType::kF16, DType::kI32, DType::kU32};
inline const DTypeSet kBoolOnly = {DType::kBool};
inline const DTypeSet kAny = {DType::kF32, DType::kF16, DType::kI32, DType::kU32, DType::kBool};

// Output dtype: the first input's (kSame), bool (comparisons), or from an attribute (Cast).
enum class OutType { kSame, kBool };

// Scalar reference: inputs at one output position -> output value.
using ScalarRef = std::function<double(std::span<const double> in, const Attributes& attrs)>;

// Accepts inputs whose dtype is in `allowed` (all equal when `same_dtype`) and whose shapes
// broadcast; the output takes the broadcast shape.
Result<std::vector<TensorDesc>> InferElementwise(const OpNode& node, const DTypeSet& allowed,
                                                 OutType out, bool same_dtype = true);
// The template data for N-d index math: op.n (invocations), op.vec (1 or 4), op.operands[j]
// with {direct, offset, terms:[{extent, stride, zero, last}]} (coalesced dimensions,
// innermost first), and each attribute (floats as literals).
Result<hbs::Value> ElementwiseContext(const OpNode& node, const Attributes& attrs,
                                      const DeviceCaps& caps);
DispatchPlan ElementwiseDispatch(const OpNode& node, const DeviceCaps& caps);
std::vector<RefTensor> ElementwiseReference(const OpNode& node, const Attributes& attrs,
                                            const std::vector<RefTensor>& inputs,
                                            const ScalarRef& f);

// A record with the elementwise infer/context/dispatch/reference filled in.
OpRecord ElementwiseRecord(std::string name, std::string shader, std::string summary,
                           DTypeSet allowed, OutType out, ScalarRef ref, uint32_t min_inputs = 1,
                           uint32_t max_inputs = 1);

// "1.5", "-2.0", "1e-05": a literal valid in shader source (WGSL and GLSL alike).
std::string FloatLiteral(double v);
// Rejects NaN and infinity (a literal would not compile).
std::string FiniteFloat(const AttrValue& v);

// ONNX TensorProto.DataType code -> the device dtype the ONNX session narrows it to (INT64 ->
// i32, UINT8 -> u32, DOUBLE -> f32, ...); strings, complex and bfloat16 are refused with the
// reason. `where` names the node and attribute for the message. (ops/select.cpp)
Result<DType> DeviceTypeOfOnnx(int64_t onnx_type, const std::string& where);
// The ONNX code of a device dtype (FLOAT, FLOAT16, INT32, UINT32, BOOL).
int64_t OnnxTypeOfDevice(DType d);

// Rounds like IEEE float32 (the dtype the GPU computes in), for references that must mimic it.
double ToF32(double v);

}  // namespace alknet::compute::ops
