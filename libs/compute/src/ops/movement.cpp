// Data movement and shape ops. Reshape is a view: no shader runs, the output shares the
// input's storage with a new shape (the executor makes a strided input contiguous first).
#include <string>

#include "ops/elementwise.h"
#include "ops/families.h"

namespace alknet::compute::ops {

namespace {

// Reshape's target: 0 copies the input dimension (unless allowzero), one -1 is inferred.
Result<Shape> ReshapeTarget(const OpNode& node, const Attributes& at) {
  const RefTensor* shape = node.value(1);
  const Shape& in = node.inputs[0].shape;
  if (shape->shape.size() != 1) {
    return Error{ErrorCode::kShape, node.Describe() + ": the shape input must be 1-D, got " + ShapeToString(shape->shape)};
  }
  const bool allowzero = std::get<int64_t>(at.at("allowzero")) != 0;
  Shape out;
  int infer_at = -1;
  uint64_t known = 1;
  for (size_t i = 0; i < shape->data.size(); ++i) {
    const int64_t d = static_cast<int64_t>(shape->data[i]);
    if (d == -1) {
      if (infer_at >= 0) return Error{ErrorCode::kShape, node.Describe() + ": more than one -1 in the target shape"};
      infer_at = static_cast<int>(i);
      out.push_back(1);
      continue;
    }
    if (d < -1) return Error{ErrorCode::kShape, node.Describe() + ": negative dimension " + std::to_string(d)};
    uint64_t v = static_cast<uint64_t>(d);
    if (d == 0 && !allowzero) {
      if (i >= in.size()) {
        return Error{ErrorCode::kShape, node.Describe() + ": 0 at position " + std::to_string(i) +
                                            " copies an input dimension the rank-" + std::to_string(in.size()) +
                                            " input does not have"};
      }
      v = in[i];
    }
    out.push_back(v);
    known *= v;
  }
  const uint64_t total = node.inputs[0].elements();
  if (infer_at >= 0) {
    if (known == 0 || total % known != 0) {
      return Error{ErrorCode::kShape, node.Describe() + ": cannot infer the -1 dimension: " + std::to_string(total) +
                                          " elements do not divide by " + std::to_string(known)};
    }
    out[infer_at] = total / known;
    known = total;
  }
  if (known != total) {
    return Error{ErrorCode::kShape, node.Describe() + ": target " + ShapeToString(out) + " holds " + std::to_string(known) +
                                        " elements, the input " + std::to_string(total)};
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
    COMPUTE_ASSIGN_OR_RETURN(Shape s, ReshapeTarget(node, at));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, s}};
  };
  r.view = [](const OpNode& node, const Attributes& at) -> Result<TensorDesc> {
    COMPUTE_ASSIGN_OR_RETURN(Shape s, ReshapeTarget(node, at));
    TensorDesc d{node.inputs[0].dtype, s};
    d.offset = node.inputs[0].offset;
    return d;
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    return std::vector<RefTensor>{RefTensor{in[0].dtype, ReshapeTarget(node, at).value(), in[0].data}};
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

}  // namespace

void AddMovementOps(OpTable& table) { table.Add(ReshapeRecord()); }

}  // namespace alknet::compute::ops
