// UTF-8 <-> UTF-16 as the WHATWG Encoding Standard defines them (TextEncoder/TextDecoder).
// Engine-independent so that it is tested on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace alknet::runtime::text {

// UTF-16 (possibly with lone surrogates, as JS strings may hold) to UTF-8; a lone surrogate
// becomes U+FFFD.
std::string EncodeUtf8(std::u16string_view in);

struct EncodeIntoResult {
  size_t read = 0;     // UTF-16 code units consumed
  size_t written = 0;  // bytes written
};
// Encodes as much as fits in `out` without splitting a code point (TextEncoder.encodeInto).
EncodeIntoResult EncodeUtf8Into(std::u16string_view in, std::span<uint8_t> out);

struct DecodeResult {
  bool ok = true;       // false: fatal mode met an invalid sequence (`out` is unspecified)
  size_t consumed = 0;  // bytes consumed; with `stream`, a trailing incomplete sequence is left
};
// UTF-8 to UTF-16. Invalid sequences become U+FFFD per "maximal subpart", as browsers do.
DecodeResult DecodeUtf8(std::span<const uint8_t> in, bool fatal, bool stream, std::u16string& out);

}  // namespace alknet::runtime::text
