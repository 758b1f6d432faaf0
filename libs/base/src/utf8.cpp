#include "alknet/base/utf8.h"

namespace alknet::base::utf8 {

namespace {
bool IsContinuation(unsigned char b) { return (b & 0xC0) == 0x80; }
}  // namespace

// RFC 3629 section 4: the second byte's range depends on the first (E0 A0..BF excludes
// overlong 3-byte forms, ED 80..9F excludes surrogates, F0 90..BF overlong 4-byte forms,
// F4 80..8F code points above U+10FFFF); other bytes are 80..BF.
Decoded DecodeFirst(std::string_view text) {
  if (text.empty()) return {0, 0, false};
  const auto b0 = static_cast<unsigned char>(text[0]);
  if (b0 < 0x80) return {b0, 1, true};
  std::size_t length;
  char32_t cp;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
    cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    cp = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    cp = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return {0, 1, false};  // a continuation byte, C0/C1 (always overlong) or F5..FF
  }
  if (text.size() < 2) return {0, 1, false};
  const auto b1 = static_cast<unsigned char>(text[1]);
  if (b1 < lo || b1 > hi) return {0, 1, false};
  cp = (cp << 6) | (b1 & 0x3F);
  for (std::size_t i = 2; i < length; ++i) {
    if (i >= text.size()) return {0, i, false};
    const auto b = static_cast<unsigned char>(text[i]);
    if (!IsContinuation(b)) return {0, i, false};
    cp = (cp << 6) | (b & 0x3F);
  }
  return {cp, length, true};
}

std::size_t FindInvalid(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const Decoded d = DecodeFirst(text.substr(i));
    if (!d.valid) return i;
    i += d.length;
  }
  return std::string_view::npos;
}

bool Append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    if (cp >= 0xD800 && cp <= 0xDFFF) return false;
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp <= 0x10FFFF) {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    return false;
  }
  return true;
}

std::string Sanitize(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const Decoded d = DecodeFirst(text.substr(i));
    if (d.valid) {
      out.append(text.substr(i, d.length));
    } else {
      Append(out, kReplacementCharacter);
    }
    i += d.length;
  }
  return out;
}

}  // namespace alknet::base::utf8
