#include "alknet/compute/tensor.h"

#include <algorithm>

namespace alknet::compute {

Tensor::Tensor(std::shared_ptr<webgpu::Buffer> storage, DType dtype, Shape shape)
    : storage_(std::move(storage)) {
  desc_.dtype = dtype;
  desc_.shape = std::move(shape);
  desc_.strides = desc_.EffectiveStrides();
}

Tensor::Tensor(std::shared_ptr<webgpu::Buffer> storage, TensorDesc layout)
    : storage_(std::move(storage)), desc_(std::move(layout)) {
  desc_.absent = false;
  if (desc_.strides.empty()) desc_.strides = desc_.EffectiveStrides();
}

Result<Tensor> Tensor::Reshape(Shape shape) const {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  if (n != elements()) {
    return Error{ErrorCode::kShape, "cannot reshape " + DescToString(desc_) + " to " +
                                        ShapeToString(shape) + ": element counts differ (" +
                                        std::to_string(elements()) + " vs " + std::to_string(n) +
                                        ")"};
  }
  if (!contiguous()) {
    return Error{ErrorCode::kShape, "cannot reshape the strided view " + DescToString(desc_) +
                                        " without a copy; run Identity on it first"};
  }
  return Tensor(storage_, dtype(), std::move(shape));
}

Result<Tensor> Tensor::Transpose(const std::vector<size_t>& perm) const {
  if (perm.size() != rank()) {
    return Error{ErrorCode::kShape, "permutation of " + std::to_string(perm.size()) +
                                        " axes for a rank-" + std::to_string(rank()) + " tensor"};
  }
  std::vector<bool> seen(rank(), false);
  Tensor t = *this;
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] >= rank() || seen[perm[i]]) {
      return Error{ErrorCode::kShape,
                   "permutation is not a permutation of 0.." + std::to_string(rank() - 1)};
    }
    seen[perm[i]] = true;
    t.desc_.shape[i] = desc_.shape[perm[i]];
    t.desc_.strides[i] = desc_.strides[perm[i]];
  }
  return t;
}

Result<Tensor> Tensor::Slice(size_t axis, uint64_t start, uint64_t end) const {
  if (axis >= rank() || start > end || end > desc_.shape[axis]) {
    return Error{ErrorCode::kShape, "slice [" + std::to_string(start) + ", " + std::to_string(end) +
                                        ") of axis " + std::to_string(axis) + " is outside " +
                                        DescToString(desc_)};
  }
  Tensor t = *this;
  t.desc_.shape[axis] = end - start;
  t.desc_.offset += start * static_cast<uint64_t>(desc_.strides[axis]);
  return t;
}

Result<Tensor> Tensor::Expand(const Shape& shape) const {
  ALKNET_ASSIGN_OR_RETURN(Shape b, BroadcastShapes({desc_.shape, shape}));
  if (b != shape) {
    return Error{ErrorCode::kShape,
                 "cannot expand " + DescToString(desc_) + " to " + ShapeToString(shape)};
  }
  Tensor t = *this;
  t.desc_.shape = shape;
  t.desc_.strides.assign(shape.size(), 0);
  const size_t lead = shape.size() - rank();
  for (size_t k = 0; k < rank(); ++k) {
    t.desc_.strides[lead + k] = desc_.shape[k] == 1 ? 0 : desc_.strides[k];
  }
  return t;
}

}  // namespace alknet::compute
