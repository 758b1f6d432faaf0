// What an op node is, independent of any shader language: type, attributes, operand shapes
// and dtypes, opset. ShaderGenerator turns one of these into a shader; the executor builds them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "alknet/compute/error.h"
#include "alknet/tensor/dtype.h"

namespace alknet::compute {

using tensor::DType;
using Shape = std::vector<uint64_t>;

// A float64 tensor on the host: the CPU reference's currency, constant-folded values and
// TENSOR attributes. bool and integers up to 2^53 are exact in a double.
struct RefTensor {
  DType dtype = DType::kF32;
  std::vector<uint64_t> shape;
  std::vector<double> data;
};
using ConstValue = std::shared_ptr<const RefTensor>;

// ONNX attribute kinds we use: INT, FLOAT, STRING, INTS, FLOATS, TENSOR.
using AttrValue = std::variant<int64_t, double, std::string, std::vector<int64_t>,
                               std::vector<double>, ConstValue>;
using Attributes = std::map<std::string, AttrValue>;

std::string AttrToString(const AttrValue& v);

// An operand as the shader sees it. Empty `strides` means contiguous row-major; otherwise one
// stride per dimension in elements (0 = broadcast). `offset` is in elements. This is how
// zero-copy views (transposes, slices, expands) reach a kernel without a copy.
struct TensorDesc {
  DType dtype = DType::kF32;
  Shape shape;
  std::vector<int64_t> strides;
  uint64_t offset = 0;
  // An optional ONNX input left out (empty name) before a later one that is given. An absent
  // operand is never bound to a shader.
  bool absent = false;

  uint64_t elements() const;
  bool contiguous() const;  // row-major, offset 0
  std::vector<int64_t> EffectiveStrides() const;
};

struct OpNode {
  std::string op_type;  // "Add", "MatMul", ...
  std::string name;     // node name, for messages (may be empty)
  int opset = 17;
  Attributes attributes;
  std::vector<TensorDesc> inputs;
  std::vector<TensorDesc> outputs;  // filled by shape inference when empty
  // The values of inputs known when the node is planned (constants, initializers, folded
  // shape arithmetic); nullptr where unknown. Empty means none is known. Records read their
  // host inputs (OpRecord::host_inputs: Reshape's shape, Slice's starts, ...) from here.
  std::vector<ConstValue> input_values;

  // The known value of input i, or nullptr.
  const RefTensor* value(size_t i) const {
    return i < input_values.size() ? input_values[i].get() : nullptr;
  }
  bool has_input(size_t i) const { return i < inputs.size() && !inputs[i].absent; }

  // "Add 'node_3' (inputs f32[2,3], f32[3])": how error messages name a node.
  std::string Describe() const;
};

std::string ShapeToString(const Shape& s);
std::string DescToString(const TensorDesc& d);
const char* DTypeName(DType d);
// Bytes per element as stored on the device: bool takes a 32-bit word (WGSL has no 8-bit
// storage type), everything else its natural size.
uint32_t DeviceElementSize(DType d);

Shape ContiguousStridesOf(const Shape& shape);  // row-major strides in elements

// The element count of `shape`, or nullopt when it exceeds INT64_MAX (ONNX sizes are int64;
// a shape from a model must never wrap around to a small count).
std::optional<uint64_t> CheckedElements(const Shape& shape);
// CheckedElements(shape) * element_size, or nullopt past INT64_MAX.
std::optional<uint64_t> CheckedBytes(const Shape& shape, uint64_t element_size);
// An error naming `what` and `shape` unless both its element count and its size at
// `element_size` bytes per element fit in int64.
Status CheckShapeSize(const Shape& shape, uint64_t element_size, const std::string& what);
// numpy broadcasting of any number of shapes; an error names both shapes and the dimension.
Result<Shape> BroadcastShapes(const std::vector<Shape>& shapes);

}  // namespace alknet::compute
