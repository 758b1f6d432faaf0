// TensorView: a borrowed, zero-copy view of one tensor of a metatensor file or buffer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "alknet/tensor/dtype.h"

namespace alknet::tensor {

// Everything the index says about a tensor; owned by the Reader that produced it.
struct TensorInfo {
  std::string_view name;  // UTF-8, non-empty, unique in the file
  DType dtype;
  std::span<const uint64_t> shape;   // rank = shape.size(); rank 0 is a scalar
  uint64_t offset = 0;               // absolute byte offset in the file or buffer
  uint64_t byte_length = 0;          // == ByteLength(dtype, shape)
  std::optional<uint32_t> checksum;  // CRC32C of the bytes, when the writer stored one
};

// A tensor with its bytes. All spans point into memory the Reader owns or borrows (the file
// mapping or the caller's buffer): valid while the Reader lives, never copied.
struct TensorView {
  const TensorInfo* info = nullptr;
  std::span<const std::byte> data;

  std::string_view name() const { return info->name; }
  DType dtype() const { return info->dtype; }
  std::span<const uint64_t> shape() const { return info->shape; }
  size_t rank() const { return info->shape.size(); }
};

}  // namespace alknet::tensor
