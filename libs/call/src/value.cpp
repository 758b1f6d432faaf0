#include "alknet/call/value.h"

#include <cstring>
#include <limits>

#include "alknet/tensor/dtype.h"

namespace alknet::call {

std::string_view ValueKindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::kNull: return "null";
    case ValueKind::kBool: return "bool";
    case ValueKind::kInt: return "int";
    case ValueKind::kFloat: return "float";
    case ValueKind::kString: return "string";
    case ValueKind::kBytes: return "bytes";
    case ValueKind::kList: return "list";
    case ValueKind::kMap: return "map";
    case ValueKind::kTensor: return "tensor";
  }
  return "?";
}

std::size_t DTypeSize(std::string_view dtype) {
  const tensor::DTypeInfo* info = tensor::FindDType(dtype);
  if (!info || info->block_elements != 1) return 0;
  return info->block_bytes;
}

std::int64_t Tensor::ElementCount() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

Tensor Tensor::Copy(std::string dtype, std::vector<std::int64_t> shape,
                    std::span<const std::byte> bytes) {
  return Adopt(std::move(dtype), std::move(shape),
               std::vector<std::byte>(bytes.begin(), bytes.end()));
}

Tensor Tensor::Adopt(std::string dtype, std::vector<std::int64_t> shape,
                     std::vector<std::byte> bytes) {
  auto storage = std::make_shared<std::vector<std::byte>>(std::move(bytes));
  Tensor t;
  t.dtype = std::move(dtype);
  t.shape = std::move(shape);
  t.data = std::span<const std::byte>(storage->data(), storage->size());
  t.owner = std::move(storage);
  return t;
}

Status Tensor::Validate() const {
  const tensor::DTypeInfo* info = tensor::FindDType(dtype);
  if (!info) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "unknown tensor dtype '" + dtype + "' (see the metatensor dtype registry)");
  }
  std::vector<std::uint64_t> dims;
  dims.reserve(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "tensor dimension " + std::to_string(i) + " is negative");
    }
    dims.push_back(static_cast<std::uint64_t>(shape[i]));
  }
  // The format's own checked arithmetic: a hostile shape cannot wrap to a small byte count.
  auto bytes = tensor::ByteLength(info->dtype, dims);
  if (!bytes) return MakeError(ErrorCode::kInvalidArgument, bytes.error().message());
  if (*bytes != data.size()) {
    return MakeError(
        ErrorCode::kInvalidArgument, "tensor of dtype " + dtype + " and shape [" +
                                         [&] {
                                           std::string s;
                                           for (std::size_t i = 0; i < shape.size(); ++i) {
                                             if (i) s += ",";
                                             s += std::to_string(shape[i]);
                                           }
                                           return s;
                                         }() +
                                         "] needs " + std::to_string(*bytes) + " bytes, has " +
                                         std::to_string(data.size()));
  }
  return {};
}

double Value::as_number() const {
  return kind() == ValueKind::kInt ? static_cast<double>(as_int()) : as_float();
}

bool operator==(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case ValueKind::kNull: return true;
    case ValueKind::kBool: return a.as_bool() == b.as_bool();
    case ValueKind::kInt: return a.as_int() == b.as_int();
    case ValueKind::kFloat: {
      const double x = a.as_float(), y = b.as_float();
      return std::memcmp(&x, &y, sizeof x) == 0;  // bit-exact, as tensors
    }
    case ValueKind::kString: return a.as_string() == b.as_string();
    case ValueKind::kBytes: return a.as_bytes() == b.as_bytes();
    case ValueKind::kList: return a.as_list() == b.as_list();
    case ValueKind::kMap: return a.as_map() == b.as_map();
    case ValueKind::kTensor: {
      const Tensor& x = a.as_tensor();
      const Tensor& y = b.as_tensor();
      return x.dtype == y.dtype && x.shape == y.shape && x.data.size() == y.data.size() &&
             (x.data.empty() || std::memcmp(x.data.data(), y.data.data(), x.data.size()) == 0);
    }
  }
  return false;
}

}  // namespace alknet::call
