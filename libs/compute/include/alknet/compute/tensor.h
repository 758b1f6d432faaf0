// Tensor: a device buffer with dtype, shape, strides and offset. Reshape, Transpose, Slice and
// Expand are views: they share the buffer (the storage is reference-counted because several
// views may outlive the tensor they came from) and change only the layout. Elementwise ops
// read views directly through their strides; ops that need contiguous operands get a copy
// from the executor.
#pragma once

#include <memory>
#include <vector>

#include "alknet/compute/error.h"
#include "alknet/compute/op.h"
#include "alknet/webgpu/context.h"

namespace alknet::compute {

class Tensor {
 public:
  Tensor() = default;
  // Takes a buffer holding `shape` elements of `dtype`, contiguous from offset 0.
  Tensor(std::shared_ptr<webgpu::Buffer> storage, DType dtype, Shape shape);
  // A view of `storage` with an explicit layout (empty strides: row-major). The caller
  // guarantees the layout stays inside the buffer.
  Tensor(std::shared_ptr<webgpu::Buffer> storage, TensorDesc layout);

  bool valid() const { return storage_ != nullptr; }
  DType dtype() const { return desc_.dtype; }
  const Shape& shape() const { return desc_.shape; }
  size_t rank() const { return desc_.shape.size(); }
  uint64_t elements() const { return desc_.elements(); }
  // Strides in elements; always filled (row-major for a fresh tensor).
  const std::vector<int64_t>& strides() const { return desc_.strides; }
  uint64_t offset() const { return desc_.offset; }
  bool contiguous() const { return desc_.contiguous(); }
  const TensorDesc& desc() const { return desc_; }
  const webgpu::Buffer& buffer() const { return *storage_; }
  const std::shared_ptr<webgpu::Buffer>& storage() const { return storage_; }

  // A new shape with the same element count; contiguous tensors only (no copy).
  Result<Tensor> Reshape(Shape shape) const;
  // Dimension i of the result is dimension perm[i] of this tensor.
  Result<Tensor> Transpose(const std::vector<size_t>& perm) const;
  // Elements [start, end) of one axis.
  Result<Tensor> Slice(size_t axis, uint64_t start, uint64_t end) const;
  // numpy broadcast_to: size-1 (or missing leading) dimensions repeat with stride 0.
  Result<Tensor> Expand(const Shape& shape) const;

 private:
  std::shared_ptr<webgpu::Buffer> storage_;
  TensorDesc desc_;
};

}  // namespace alknet::compute
