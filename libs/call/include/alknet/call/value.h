// The values that calls take and return: null, bool, int64, float64, string, bytes, list,
// map and tensor. A tensor is a view (dtype, shape, bytes) plus the owner that keeps those
// bytes alive, so a tensor crosses a local call without a copy and a received tensor is a
// view into the buffer it arrived in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "alknet/call/error.h"

namespace alknet::call {

enum class ValueKind : std::uint8_t {
  kNull,
  kBool,
  kInt,
  kFloat,
  kString,
  kBytes,
  kList,
  kMap,
  kTensor,
};

std::string_view ValueKindName(ValueKind kind);

// Element size in bytes of a metatensor dtype name ("f32", "i64", "u8", "bool", "bf16", ...);
// 0 for an unknown name and for block dtypes (i4, q4_0, ...), which have no per-element size.
std::size_t DTypeSize(std::string_view dtype);

// The in-process form of a metatensor tensor (alknet/tensor/tensor_view.h): a TensorView's
// fields copied out, plus the owner that a TensorView leaves to its Reader.
struct Tensor {
  std::string dtype;  // metatensor dtype name, from the registry in docs/metatensor-format.md
  std::vector<std::int64_t> shape;
  std::span<const std::byte> data;
  // Shared, because one received buffer backs several tensors and a value may be handed to
  // another thread; the view itself never owns.
  std::shared_ptr<const void> owner;

  std::int64_t ElementCount() const;

  // A tensor that owns a copy of `bytes` (tests, CLI, small results).
  static Tensor Copy(std::string dtype, std::vector<std::int64_t> shape,
                     std::span<const std::byte> bytes);
  // A tensor that takes over `bytes`.
  static Tensor Adopt(std::string dtype, std::vector<std::int64_t> shape,
                      std::vector<std::byte> bytes);
  // Shape, dtype and byte count agree; the error says which rule failed.
  Status Validate() const;
};

using Bytes = std::vector<std::uint8_t>;

class Value {
 public:
  using List = std::vector<Value>;
  using Map = std::map<std::string, Value, std::less<>>;  // ordered: stable JSON and wire

  Value() = default;
  Value(std::nullptr_t) {}
  Value(bool b) : v_(b) {}
  Value(int i) : v_(static_cast<std::int64_t>(i)) {}
  Value(std::int64_t i) : v_(i) {}
  Value(double d) : v_(d) {}
  Value(const char* s) : v_(std::string(s)) {}
  Value(std::string s) : v_(std::move(s)) {}
  Value(std::string_view s) : v_(std::string(s)) {}
  Value(Bytes b) : v_(std::move(b)) {}
  Value(List l) : v_(std::move(l)) {}
  Value(Map m) : v_(std::move(m)) {}
  Value(Tensor t) : v_(std::move(t)) {}

  ValueKind kind() const { return static_cast<ValueKind>(v_.index()); }
  bool is_null() const { return kind() == ValueKind::kNull; }

  // Typed access; the caller checks kind() first (signatures guarantee it inside handlers).
  bool as_bool() const { return std::get<bool>(v_); }
  std::int64_t as_int() const { return std::get<std::int64_t>(v_); }
  double as_float() const { return std::get<double>(v_); }
  // int or float, as double (the "number" parameter type).
  double as_number() const;
  const std::string& as_string() const { return std::get<std::string>(v_); }
  const Bytes& as_bytes() const { return std::get<Bytes>(v_); }
  const List& as_list() const { return std::get<List>(v_); }
  List& as_list() { return std::get<List>(v_); }
  const Map& as_map() const { return std::get<Map>(v_); }
  Map& as_map() { return std::get<Map>(v_); }
  const Tensor& as_tensor() const { return std::get<Tensor>(v_); }
  Tensor& as_tensor() { return std::get<Tensor>(v_); }

  // Deep equality; tensors compare dtype, shape and bytes (bit for bit, so NaN == NaN).
  friend bool operator==(const Value& a, const Value& b);

 private:
  std::variant<std::monostate, bool, std::int64_t, double, std::string, Bytes, List, Map, Tensor>
      v_;
};

}  // namespace alknet::call
