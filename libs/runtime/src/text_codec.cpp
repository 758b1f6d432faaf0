#include "text_codec.h"

namespace alknet::runtime::text {

namespace {

// Reads one code point at in[i], replacing a lone surrogate with U+FFFD. Advances i.
uint32_t NextCodePoint(std::u16string_view in, size_t& i) {
  uint32_t c = in[i++];
  if (c >= 0xD800 && c < 0xDC00) {
    if (i < in.size() && in[i] >= 0xDC00 && in[i] < 0xE000) {
      return 0x10000 + ((c - 0xD800) << 10) + (in[i++] - 0xDC00);
    }
    return 0xFFFD;
  }
  if (c >= 0xDC00 && c < 0xE000) return 0xFFFD;
  return c;
}

size_t Utf8Length(uint32_t cp) { return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4; }

void PutUtf8(uint32_t cp, uint8_t* out) {
  switch (Utf8Length(cp)) {
    case 1: out[0] = static_cast<uint8_t>(cp); break;
    case 2:
      out[0] = static_cast<uint8_t>(0xC0 | (cp >> 6));
      out[1] = static_cast<uint8_t>(0x80 | (cp & 0x3F));
      break;
    case 3:
      out[0] = static_cast<uint8_t>(0xE0 | (cp >> 12));
      out[1] = static_cast<uint8_t>(0x80 | ((cp >> 6) & 0x3F));
      out[2] = static_cast<uint8_t>(0x80 | (cp & 0x3F));
      break;
    default:
      out[0] = static_cast<uint8_t>(0xF0 | (cp >> 18));
      out[1] = static_cast<uint8_t>(0x80 | ((cp >> 12) & 0x3F));
      out[2] = static_cast<uint8_t>(0x80 | ((cp >> 6) & 0x3F));
      out[3] = static_cast<uint8_t>(0x80 | (cp & 0x3F));
  }
}

void PutUtf16(uint32_t cp, std::u16string& out) {
  if (cp < 0x10000) {
    out += static_cast<char16_t>(cp);
  } else {
    cp -= 0x10000;
    out += static_cast<char16_t>(0xD800 + (cp >> 10));
    out += static_cast<char16_t>(0xDC00 + (cp & 0x3FF));
  }
}

}  // namespace

std::string EncodeUtf8(std::u16string_view in) {
  std::string out;
  out.reserve(in.size());
  uint8_t buf[4];
  for (size_t i = 0; i < in.size();) {
    uint32_t cp = NextCodePoint(in, i);
    PutUtf8(cp, buf);
    out.append(reinterpret_cast<const char*>(buf), Utf8Length(cp));
  }
  return out;
}

EncodeIntoResult EncodeUtf8Into(std::u16string_view in, std::span<uint8_t> out) {
  EncodeIntoResult r;
  while (r.read < in.size()) {
    size_t next = r.read;
    uint32_t cp = NextCodePoint(in, next);
    size_t n = Utf8Length(cp);
    if (r.written + n > out.size()) break;
    PutUtf8(cp, out.data() + r.written);
    r.written += n;
    r.read = next;
  }
  return r;
}

// The decoder of https://encoding.spec.whatwg.org/#utf-8-decoder.
DecodeResult DecodeUtf8(std::span<const uint8_t> in, bool fatal, bool stream, std::u16string& out) {
  DecodeResult r;
  uint32_t cp = 0;
  int needed = 0, seen = 0;
  uint8_t lower = 0x80, upper = 0xBF;
  size_t sequence_start = 0;
  out.reserve(out.size() + in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const uint8_t b = in[i];
    if (needed == 0) {
      sequence_start = i;
      if (b < 0x80) {
        out += static_cast<char16_t>(b);
      } else if (b >= 0xC2 && b <= 0xDF) {
        needed = 1;
        cp = b & 0x1F;
      } else if (b >= 0xE0 && b <= 0xEF) {
        if (b == 0xE0) lower = 0xA0;
        if (b == 0xED) upper = 0x9F;
        needed = 2;
        cp = b & 0x0F;
      } else if (b >= 0xF0 && b <= 0xF4) {
        if (b == 0xF0) lower = 0x90;
        if (b == 0xF4) upper = 0x8F;
        needed = 3;
        cp = b & 0x07;
      } else {
        if (fatal) return {false, i};
        out += u'\uFFFD';
      }
      continue;
    }
    if (b < lower || b > upper) {
      // The bytes so far are a maximal subpart: one U+FFFD, then b starts afresh.
      cp = 0;
      needed = seen = 0;
      lower = 0x80;
      upper = 0xBF;
      if (fatal) return {false, i};
      out += u'\uFFFD';
      --i;
      continue;
    }
    lower = 0x80;
    upper = 0xBF;
    cp = (cp << 6) | (b & 0x3F);
    if (++seen == needed) {
      PutUtf16(cp, out);
      cp = 0;
      needed = seen = 0;
    }
  }
  r.consumed = in.size();
  if (needed != 0) {
    if (stream) {
      r.consumed = sequence_start;
    } else {
      if (fatal) return {false, sequence_start};
      out += u'\uFFFD';
    }
  }
  return r;
}

}  // namespace alknet::runtime::text
