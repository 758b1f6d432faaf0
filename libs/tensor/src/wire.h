// Little-endian encoding helpers and UTF-8 validation shared by the reader and the writer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace alknet::tensor::wire {

// The format is little-endian only; alknet builds only for little-endian hosts.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "metatensor code assumes a LE host");

template <typename T>
T Load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T>
void Store(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof v);
}
template <typename T>
void Append(std::vector<std::byte>& out, T v) {
  const size_t at = out.size();
  out.resize(at + sizeof v);
  std::memcpy(out.data() + at, &v, sizeof v);
}
inline void AppendBytes(std::vector<std::byte>& out, const void* p, size_t n) {
  const auto* b = static_cast<const std::byte*>(p);
  out.insert(out.end(), b, b + n);
}

// Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above U+10FFFF.
bool ValidUtf8(std::string_view s);

inline uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

// Checked variant: false on overflow.
inline bool AlignUpChecked(uint64_t v, uint64_t a, uint64_t* out) {
  uint64_t t;
  if (__builtin_add_overflow(v, a - 1, &t)) return false;
  *out = t & ~(a - 1);
  return true;
}

}  // namespace alknet::tensor::wire
