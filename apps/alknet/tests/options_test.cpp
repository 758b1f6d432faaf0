// The CLI's numeric option parser (apps/alknet/options.h). Valid values are checked against
// the standard library's own formatting of random numbers (to_string / printf round trips);
// refusals against hand-picked hostile inputs, each of which strtoul or atoi would accept.
#include "options.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>

namespace {

using alknet::cli::ParseDecimalOption;
using alknet::cli::ParseIntegerOption;
using alknet::cli::ParseUnsignedOption;
using alknet::cli::TerminalText;

TEST(ParseUnsignedOption, RoundTripsRandomValues) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 10000; ++i) {
    const std::uint64_t v = rng() >> (rng() % 64);
    const auto r = ParseUnsignedOption("--n", std::to_string(v));
    ASSERT_TRUE(r.ok()) << v << ": " << r.error().message;
    EXPECT_EQ(*r, v);
  }
  const auto max = std::numeric_limits<std::uint64_t>::max();
  ASSERT_TRUE(ParseUnsignedOption("--n", std::to_string(max)).ok());
  EXPECT_EQ(*ParseUnsignedOption("--n", std::to_string(max)), max);
  EXPECT_EQ(*ParseUnsignedOption("--n", "007"), 7u);
}

TEST(ParseUnsignedOption, RefusesWhatStrtoulWouldAccept) {
  for (const char* text : {"12abc", "1e3", "0x10", " 7", "7 ", "+7", "", "1.5", "1,000", "٣"}) {
    const auto r = ParseUnsignedOption("--elements", text);
    ASSERT_FALSE(r.ok()) << "'" << text << "' was accepted";
    EXPECT_EQ(r.error().message.rfind("--elements: '" + std::string(text) + "'", 0), 0u)
        << r.error().message;
    EXPECT_NE(r.error().message.find("not a whole number"), std::string::npos) << r.error().message;
  }
}

TEST(ParseUnsignedOption, RefusesNegativeAndOverflow) {
  auto r = ParseUnsignedOption("--alignment", "-1");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("--alignment: '-1' is negative"), std::string::npos);
  // One past 2^64 - 1, and far past it.
  for (const char* text : {"18446744073709551616", "99999999999999999999999"}) {
    r = ParseUnsignedOption("--n", text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.error().message.find("out of range"), std::string::npos) << r.error().message;
  }
}

TEST(ParseUnsignedOption, KeepsTheOptionRange) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t lo = rng() % 1000, hi = lo + rng() % 1000;
    const std::uint64_t v = rng() % 3000;
    const auto r = ParseUnsignedOption("--n", std::to_string(v), lo, hi);
    EXPECT_EQ(r.ok(), v >= lo && v <= hi) << v << " in [" << lo << ", " << hi << "]";
  }
  const auto r = ParseUnsignedOption("--max-concurrent", "0", 1, 100000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "--max-concurrent: '0' is out of range; it needs a number from 1 to 100000");
}

TEST(ParseIntegerOption, RoundTripsAndSigns) {
  std::mt19937_64 rng(3);
  for (int i = 0; i < 10000; ++i) {
    const auto v = static_cast<std::int64_t>(rng());
    const auto r = ParseIntegerOption("--k", std::to_string(v));
    ASSERT_TRUE(r.ok()) << v;
    EXPECT_EQ(*r, v);
  }
  const auto min = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(*ParseIntegerOption("--k", std::to_string(min)), min);
  EXPECT_FALSE(ParseIntegerOption("--k", "-9223372036854775809").ok());
  EXPECT_FALSE(ParseIntegerOption("--k", "9223372036854775808").ok());
  EXPECT_FALSE(ParseIntegerOption("--k", "-").ok());
  EXPECT_FALSE(ParseIntegerOption("--k", "--1").ok());
  EXPECT_FALSE(ParseIntegerOption("--k", "-1e3").ok());
  // A non-negative option says "negative", not "not a number".
  const auto r = ParseIntegerOption("--repeat", "-3", 0, 1000);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("--repeat: '-3' is negative"), std::string::npos);
}

TEST(ParseDecimalOption, MatchesPrintf) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> dist(0.001, 1e6);
  for (int i = 0; i < 10000; ++i) {
    char text[64];
    std::snprintf(text, sizeof text, "%.6f", dist(rng));
    const auto r = ParseDecimalOption("--timeout", text, 0, 1e7);
    ASSERT_TRUE(r.ok()) << text;
    EXPECT_EQ(*r, std::strtod(text, nullptr)) << text;
  }
  EXPECT_EQ(*ParseDecimalOption("--timeout", ".5", 0, 10), 0.5);
  EXPECT_EQ(*ParseDecimalOption("--timeout", "3.", 0, 10), 3.0);
}

TEST(ParseDecimalOption, RefusesExponentsSignsAndRange) {
  for (const char* text : {"1e3", "inf", "nan", "-1", "+1", "0x1p3", "", ".", "1..2", "2s", " 1"}) {
    const auto r = ParseDecimalOption("--timeout", text, 0, 1e6);
    ASSERT_FALSE(r.ok()) << "'" << text << "' was accepted";
    EXPECT_EQ(r.error().message.rfind("--timeout: '", 0), 0u) << r.error().message;
  }
  EXPECT_FALSE(ParseDecimalOption("--timeout", "0", 0, 10).ok());  // exclusive lower bound
  EXPECT_FALSE(ParseDecimalOption("--timeout", "10.5", 0, 10).ok());
  EXPECT_TRUE(ParseDecimalOption("--timeout", "10", 0, 10).ok());
}

// A remote server's strings (call docs, error messages) reach the terminal: no escape
// sequence, carriage return or C1 control may pass through raw.
TEST(TerminalText, EscapesControlCharacters) {
  EXPECT_EQ(TerminalText("plain doc, caf\xc3\xa9 \xe2\x9c\x93"),
            "plain doc, caf\xc3\xa9 \xe2\x9c\x93");
  EXPECT_EQ(TerminalText("\x1b]0;pwned\x07red\x1b[31m"), "\\x1b]0;pwned\\x07red\\x1b[31m");
  EXPECT_EQ(TerminalText("a\rb\nc\td\x7f"), "a\\x0db\\x0ac\\x09d\\x7f");
  EXPECT_EQ(TerminalText("csi \xc2\x9b"
                         "2J"),
            "csi \\x9b"
            "2J");  // U+009B, the 8-bit CSI
  EXPECT_EQ(TerminalText("bad \xff byte"), "bad \xef\xbf\xbd byte");
  for (int c = 0; c < 256; ++c) {
    const std::string out = TerminalText(std::string(1, static_cast<char>(c)));
    for (unsigned char ch : out) EXPECT_TRUE(ch >= 0x20 && ch != 0x7f) << c;
  }
}

}  // namespace
