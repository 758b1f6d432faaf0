// Call signatures, written as text in the record and parsed once at registration:
//   "(t: tensor, axis: int?) -> map"
//   "(...items: any) -> list"
// Types: any null bool int float number(int or float) string bytes list map tensor.
// "?" marks a trailing parameter that may be omitted; "..." a last parameter that repeats.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "alknet/call/error.h"
#include "alknet/call/value.h"

namespace alknet::call {

enum class Type : std::uint8_t {
  kAny,
  kNull,
  kBool,
  kInt,
  kFloat,
  kNumber,
  kString,
  kBytes,
  kList,
  kMap,
  kTensor,
};

std::string_view TypeName(Type type);
bool TypeAccepts(Type type, ValueKind kind);

struct Param {
  std::string name;
  Type type = Type::kAny;
  bool optional = false;
  bool variadic = false;
};

struct Signature {
  std::vector<Param> params;
  Type result = Type::kAny;

  // The canonical text form; parsing it gives the same Signature back.
  std::string ToString() const;
};

Result<Signature> ParseSignature(std::string_view text);

// Checks arity and every argument's type. The error names the call, the parameter, what was
// expected and what was given.
Status CheckArguments(std::string_view call, const Signature& signature,
                      std::span<const Value> args);

}  // namespace alknet::call
