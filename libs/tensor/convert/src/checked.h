// Private helpers of the foreign-format readers: error construction and bounds-checked
// little-endian loads from a buffer that was read whole.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "alknet/tensor/error.h"

namespace alknet::tensor::convert::detail {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the readers assume a LE host");

inline Error Fail(ErrorCode code, std::string_view where, std::string_view what) {
  std::string message(where);
  message += ": ";
  message += what;
  return Error(code, std::move(message));
}

// The n-byte (n <= 8) little-endian unsigned integer at buf[at], or nullopt when any of its
// bytes is outside buf.
inline std::optional<uint64_t> LoadLe(std::string_view buf, uint64_t at, unsigned n) {
  if (at > buf.size() || n > buf.size() - at) return std::nullopt;
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v |= uint64_t{static_cast<uint8_t>(buf[at + i])} << (8 * i);
  return v;
}

// Printable form of a name taken from a file, for messages: control bytes and quotes escaped,
// cut after 200 bytes.
std::string Quote(std::string_view name);

}  // namespace alknet::tensor::convert::detail
