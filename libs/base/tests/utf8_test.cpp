// UTF-8 helpers against the definition (RFC 3629 table of well-formed sequences) over every
// code point; the ill-formed side is checked against Python in json_test.cpp.
#include "alknet/base/utf8.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace alknet::base::utf8 {
namespace {

TEST(Utf8, EveryScalarValueEncodesAndDecodes) {
  for (std::uint32_t i = 0; i <= 0x10FFFF; ++i) {
    const char32_t cp = i;
    std::string s;
    const bool surrogate = cp >= 0xD800 && cp <= 0xDFFF;
    ASSERT_EQ(Append(s, cp), !surrogate) << i;
    if (surrogate) {
      ASSERT_TRUE(s.empty());
      continue;
    }
    const std::size_t expected_length = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    ASSERT_EQ(s.size(), expected_length) << i;
    const Decoded d = DecodeFirst(s);
    ASSERT_TRUE(d.valid) << i;
    ASSERT_EQ(static_cast<std::uint32_t>(d.code_point), i);
    ASSERT_EQ(d.length, expected_length);
    ASSERT_TRUE(IsValid(s));
  }
  std::string s;
  EXPECT_FALSE(Append(s, 0x110000));
  EXPECT_TRUE(s.empty());
}

TEST(Utf8, IllFormedSequencesAreFound) {
  EXPECT_EQ(FindInvalid("abc"), std::string_view::npos);
  EXPECT_EQ(FindInvalid("ab\xc3"), 2u);               // truncated
  EXPECT_EQ(FindInvalid("\xc0\x80"), 0u);             // overlong NUL
  EXPECT_EQ(FindInvalid("a\xed\xa0\x80"), 1u);        // surrogate U+D800
  EXPECT_EQ(FindInvalid("\xf4\x90\x80\x80"), 0u);     // above U+10FFFF
  EXPECT_EQ(FindInvalid("\xe2\x82\xac\x80"), 3u);     // lone continuation byte
  EXPECT_EQ(DecodeFirst("\xf0\x9f\x98").length, 3u);  // maximal subpart of a truncated emoji
  EXPECT_FALSE(DecodeFirst("").valid);
}

}  // namespace
}  // namespace alknet::base::utf8
