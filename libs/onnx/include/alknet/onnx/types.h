// ONNX element types, host tensors in those types, and the one error type of alknet-onnx
// (alknet::compute's Error/Result: a model error is reported the same way an op error is).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "alknet/compute/error.h"
#include "alknet/compute/op.h"

namespace alknet::onnx {

using compute::Error;
using compute::ErrorCode;
using compute::Ok;
using compute::Status;
template <typename T>
using Result = compute::Result<T>;

// TensorProto.DataType (onnx.proto); the numbers are the file format's.
enum class ElemType : int32_t {
  kUndefined = 0,
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
};

// "float", "int64", ... (the ONNX names, lower case); "type 42" for unknown numbers.
std::string ElemTypeName(ElemType t);
// Bytes per element on the host (bool: 1); 0 for types alknet cannot hold (string, complex).
size_t ElemSize(ElemType t);
// The device dtype of an ONNX type (docs/adr/0002-onnx-dtypes.md), or an error naming
// `what` (a tensor or value) and the reason. FLOAT16 needs the device's shader-f16.
Result<compute::DType> DeviceTypeOf(ElemType t, bool shader_f16, const std::string& what);
// The ONNX type for a metatensor dtype (nullopt: none).
std::optional<ElemType> ElemTypeOf(compute::DType d);

// What a value is: a tensor, a sequence of values (ONNX sequence(tensor)), or an optional
// without a value (an optional holding a value is that value).
enum class ValueKind : uint8_t { kTensor, kSequence, kNone };

// A tensor in host memory in an ONNX type: little-endian, row-major, natural element size.
// Or (kind) a sequence of such tensors in `items`, or an empty optional.
struct Tensor {
  std::string name;
  ElemType type = ElemType::kFloat;  // a sequence: its elements' type
  std::vector<uint64_t> shape;
  std::vector<std::byte> data;
  ValueKind kind = ValueKind::kTensor;
  std::vector<Tensor> items;  // kSequence
  // A STRING tensor's elements (row-major; `data` stays empty): strings live on the host only
  // (docs/adr/0015-onnx-strings-on-the-host.md).
  std::vector<std::string> strings;

  uint64_t elements() const;
  // Element i as a double (int64 beyond 2^53 rounds; a string: NaN).
  double At(uint64_t i) const;
};

// A TensorProto file (the ONNX test data's input_N.pb / output_N.pb). External data is
// resolved against the file's directory with the same checks as model loading.
Result<Tensor> ReadTensorFile(const std::filesystem::path& path);
// A TensorProto, SequenceProto or OptionalProto file (`kind`: which one the model expects:
// kTensor a TensorProto, kSequence a SequenceProto of tensors, kNone an OptionalProto holding
// a tensor or a sequence of tensors, or nothing). Nested sequences, maps and sparse tensors are
// refused (kUnsupported).
Result<Tensor> ReadValueFile(const std::filesystem::path& path, ValueKind kind);

// The float64 form used for folding: device dtype (INT64 -> i32, ...) with exact values
// (no range check: host-side values such as Slice's INT64_MAX ends stay intact).
Result<compute::RefTensor> ToRef(const Tensor& t, bool shader_f16);
// Host bytes in the device dtype of `t`'s type, every value range-checked (an INT64 outside
// i32 is an error naming the tensor, never a silent truncation).
Result<std::vector<std::byte>> ToDeviceBytes(const Tensor& t, bool shader_f16);
// For a DOUBLE tensor: the index of its first finite element beyond float32's range (which the
// narrowing to f32 would turn into infinity), or nullopt. Other types: nullopt.
std::optional<uint64_t> FirstBeyondF32(const Tensor& t);
// A float64 value (device dtype) to host bytes of that device dtype, range-checked.
Result<std::vector<std::byte>> RefToDeviceBytes(const compute::RefTensor& r,
                                                const std::string& what);
// Device bytes (dtype `from`, as Executor::Download returns them) to the ONNX type `to`.
Result<Tensor> FromDevice(std::string name, compute::DType from, const std::vector<uint64_t>& shape,
                          const std::vector<std::byte>& bytes, ElemType to);
// A float64 value to the ONNX type `to` (host-folded outputs).
Result<Tensor> FromRef(std::string name, const compute::RefTensor& r, ElemType to);

}  // namespace alknet::onnx
