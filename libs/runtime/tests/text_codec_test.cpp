// UTF-8 encoding/decoding. Valid text is checked against the standard library's codecvt (a
// second implementation); malformed input is compared with node's TextDecoder by the
// runtime.node_agrees.web_apis test.
#include "text_codec.h"

#include <gtest/gtest.h>

#include <codecvt>
#include <locale>
#include <random>

namespace alknet::runtime::text {
namespace {

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
std::string ReferenceUtf8(const std::u16string& s) {
  std::wstring_convert<std::codecvt_utf8_utf16<char16_t>, char16_t> conv;
  return conv.to_bytes(s);
}
#pragma GCC diagnostic pop

std::u16string RandomValidUtf16(std::mt19937& rng, size_t code_points) {
  std::u16string s;
  std::uniform_int_distribution<int> plane(0, 3);
  for (size_t i = 0; i < code_points; ++i) {
    uint32_t cp;
    switch (plane(rng)) {
      case 0: cp = std::uniform_int_distribution<uint32_t>(0, 0x7F)(rng); break;
      case 1: cp = std::uniform_int_distribution<uint32_t>(0x80, 0x7FF)(rng); break;
      case 2:
        do cp = std::uniform_int_distribution<uint32_t>(0x800, 0xFFFF)(rng);
        while (cp >= 0xD800 && cp < 0xE000);
        break;
      default: cp = std::uniform_int_distribution<uint32_t>(0x10000, 0x10FFFF)(rng);
    }
    if (cp < 0x10000) {
      s += static_cast<char16_t>(cp);
    } else {
      s += static_cast<char16_t>(0xD800 + ((cp - 0x10000) >> 10));
      s += static_cast<char16_t>(0xDC00 + ((cp - 0x10000) & 0x3FF));
    }
  }
  return s;
}

TEST(TextCodec, ValidTextMatchesCodecvtBothWays) {
  std::mt19937 rng(1234);
  for (int round = 0; round < 500; ++round) {
    std::u16string s = RandomValidUtf16(rng, round % 37);
    std::string utf8 = EncodeUtf8(s);
    ASSERT_EQ(utf8, ReferenceUtf8(s));
    std::u16string back;
    auto r = DecodeUtf8(std::span(reinterpret_cast<const uint8_t*>(utf8.data()), utf8.size()),
                        /*fatal=*/true, /*stream=*/false, back);
    ASSERT_TRUE(r.ok);
    ASSERT_EQ(back, s);
  }
}

TEST(TextCodec, EncodeIntoNeverSplitsACodePoint) {
  std::mt19937 rng(99);
  for (int round = 0; round < 300; ++round) {
    std::u16string s = RandomValidUtf16(rng, 12);
    std::string full = EncodeUtf8(s);
    std::vector<uint8_t> buf(round % (full.size() + 2));
    auto r = EncodeUtf8Into(s, buf);
    ASSERT_LE(r.written, buf.size());
    // What was written is exactly the encoding of what was read.
    ASSERT_EQ(std::string(reinterpret_cast<const char*>(buf.data()), r.written),
              EncodeUtf8(s.substr(0, r.read)));
    // And nothing more would have fitted.
    if (r.read < s.size()) {
      size_t next = (s[r.read] >= 0xD800 && s[r.read] < 0xDC00) ? 2 : 1;
      ASSERT_GT(r.written + EncodeUtf8(s.substr(r.read, next)).size(), buf.size());
    }
  }
}

TEST(TextCodec, StreamingDecodeEqualsOneShotAtEverySplit) {
  std::mt19937 rng(7);
  for (int round = 0; round < 100; ++round) {
    std::string utf8 = EncodeUtf8(RandomValidUtf16(rng, 10));
    auto bytes = std::span(reinterpret_cast<const uint8_t*>(utf8.data()), utf8.size());
    for (size_t split = 0; split <= bytes.size(); ++split) {
      std::u16string out;
      auto first = DecodeUtf8(bytes.subspan(0, split), false, /*stream=*/true, out);
      std::vector<uint8_t> rest(bytes.begin() + first.consumed, bytes.end());
      auto second = DecodeUtf8(rest, false, false, out);
      ASSERT_TRUE(first.ok && second.ok);
      std::u16string whole;
      (void)DecodeUtf8(bytes, false, false, whole);
      ASSERT_EQ(out, whole) << "split at " << split;
    }
  }
}

TEST(TextCodec, FatalModeRejectsWhatReplacementModeReplaces) {
  const std::vector<std::vector<uint8_t>> bad = {
      {0xFF}, {0xC0, 0x80}, {0xED, 0xA0, 0x80}, {0xF4, 0x90, 0x80, 0x80}, {0xE2, 0x82}};
  for (const auto& b : bad) {
    std::u16string out;
    EXPECT_FALSE(DecodeUtf8(b, true, false, out).ok);
    out.clear();
    EXPECT_TRUE(DecodeUtf8(b, false, false, out).ok);
    EXPECT_NE(out.find(u'\uFFFD'), std::u16string::npos);
  }
}

}  // namespace
}  // namespace alknet::runtime::text
