#include "alknet/call/value.h"

#include <cstring>
#include <limits>

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
  struct Entry {
    std::string_view name;
    std::size_t size;
  };
  static constexpr Entry kTable[] = {
      {"bool", 1}, {"u8", 1},  {"i8", 1},  {"u16", 2}, {"i16", 2},  {"f16", 2}, {"bf16", 2},
      {"u32", 4},  {"i32", 4}, {"f32", 4}, {"u64", 8}, {"i64", 8}, {"f64", 8},
  };
  for (const auto& e : kTable) {
    if (e.name == dtype) return e.size;
  }
  return 0;
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

Result<void> Tensor::Validate() const {
  const std::size_t elem = DTypeSize(dtype);
  if (elem == 0) {
    return MakeError(ErrorCode::kInvalidArgument, "unknown tensor dtype '" + dtype + "'");
  }
  // Checked product: a hostile shape must not wrap around to a small byte count.
  std::uint64_t count = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "tensor dimension " + std::to_string(i) + " is negative");
    }
    const auto d = static_cast<std::uint64_t>(shape[i]);
    if (d != 0 && count > std::numeric_limits<std::uint64_t>::max() / d / elem) {
      return MakeError(ErrorCode::kInvalidArgument, "tensor shape overflows 64-bit size");
    }
    count *= d;
  }
  if (count * elem != data.size()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "tensor of dtype " + dtype + " and " + std::to_string(count) +
                         " elements needs " + std::to_string(count * elem) + " bytes, has " +
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
