// alknet::base::json against Python's json module (vectors from json_reference.py: which texts
// are JSON, the exact value of each, and the writer's output byte for byte), then every error
// with its message and line:column, the options, and the writer's own cases.
#include "alknet/base/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "alknet/base/utf8.h"

namespace alknet::base::json {
namespace {

std::string FromHex(std::string_view hex) {
  if (hex == "-") return "";
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  }
  return out;
}

std::string Hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
  return out;
}

// The exact spelling json_reference.py's canon() gives a value.
std::string Canon(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNull: return "n";
    case Value::Kind::kBool: return v.as_bool() ? "t" : "f";
    case Value::Kind::kInt: return "i" + std::to_string(v.as_int());
    case Value::Kind::kUint: return "i" + std::to_string(v.as_uint());
    case Value::Kind::kDouble: {
      const double d = v.as_double();
      std::uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      char buf[17];
      std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(bits));
      return std::string("d") + buf;
    }
    case Value::Kind::kString: return "s" + Hex(v.as_string());
    case Value::Kind::kArray: {
      std::string out = "[";
      for (std::size_t i = 0; i < v.as_array().size(); ++i) {
        if (i) out += ',';
        out += Canon(v.as_array()[i]);
      }
      return out + "]";
    }
    case Value::Kind::kObject: {
      std::string out = "{";
      bool first = true;
      for (const auto& [k, item] : v.as_object()) {
        if (!first) out += ',';
        first = false;
        out += "s" + Hex(k) + ":" + Canon(item);
      }
      return out + "}";
    }
  }
  return "?";
}

TEST(JsonReference, MatchesPythonOnEveryVector) {
  std::ifstream in(ALKNET_JSON_REFERENCE_VECTORS);
  ASSERT_TRUE(in) << "missing " << ALKNET_JSON_REFERENCE_VECTORS;
  std::string line;
  int texts = 0, valid = 0, utf8_cases = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string first, second, compact, indented;
    fields >> first >> second >> compact >> indented;
    if (first == "u") {
      // The writer replaces ill-formed UTF-8 as Python's errors="replace" does.
      const std::string bytes = FromHex(second), replaced = FromHex(compact);
      EXPECT_EQ(utf8::Sanitize(bytes), replaced) << "bytes " << second;
      EXPECT_EQ(Write(Value(bytes)), Write(Value(replaced))) << "bytes " << second;
      ++utf8_cases;
      continue;
    }
    ++texts;
    const std::string text = FromHex(first);
    auto v = Parse(text);
    if (second == "!") {
      EXPECT_FALSE(v.ok()) << "accepted what Python rejects: " << text;
      continue;
    }
    ++valid;
    ASSERT_TRUE(v.ok()) << "rejected what Python accepts: " << text << "\n  "
                        << v.error().ToString();
    EXPECT_EQ(Canon(*v), second) << text;
    EXPECT_EQ(Write(*v), FromHex(compact)) << text;
    EXPECT_EQ(Write(*v, {.indent = 2}), FromHex(indented)) << text;
    // What the writer wrote reads back as the same value.
    auto again = Parse(Write(*v));
    ASSERT_TRUE(again.ok()) << again.error().ToString();
    EXPECT_TRUE(*again == *v) << text;
  }
  // The generator's counts: a truncated file must not pass.
  EXPECT_EQ(texts, 3000);
  EXPECT_GT(valid, 1000);
  EXPECT_EQ(utf8_cases, 500);
}

struct ErrorCase {
  std::string text;
  std::size_t line, column;
  std::string message;
};

TEST(JsonErrors, EachNamesWhatAndWhere) {
  const ErrorCase cases[] = {
      {"", 1, 1, "expected a value, found the end of the text"},
      {"  \n ", 2, 2, "expected a value, found the end of the text"},
      {"[1,", 1, 4, "expected a value, found the end of the text"},
      {"[1,]", 1, 4, "unexpected character ']' where a value was expected"},
      {"[1 2]", 1, 4, "expected ',' or ']' after an array element"},
      {"[1", 1, 3, "expected ',' or ']', found the end of the text"},
      {"{\"a\": 1,}", 1, 9, "expected a string key in an object"},
      {"{\"a\": 1", 1, 8, "expected ',' or '}', found the end of the text"},
      {"{\"a\": 1 \"b\": 2}", 1, 9, "expected ',' or '}' after an object member"},
      {"{", 1, 2, "expected a string key, found the end of the text"},
      {"{a: 1}", 1, 2, "expected a string key in an object"},
      {"{\"a\" 1}", 1, 6, "expected ':' after an object key"},
      {"{\"a\":1,\"a\":2}", 1, 8, "duplicate key \"a\" in an object"},
      {"1 2", 1, 3, "unexpected text after the JSON value"},
      {"[1]\n x", 2, 2, "unexpected text after the JSON value"},
      {"{\n  \"a\": tru\n}", 2, 8,
       "unexpected 'tru' where a value was expected (the literals are true, false, null)"},
      {"NaN", 1, 1,
       "unexpected 'NaN' where a value was expected (the literals are true, false, null)"},
      {"'a'", 1, 1, "unexpected character ''' where a value was expected"},
      {"\x01", 1, 1, "unexpected character '\\x01' where a value was expected"},
      {"\xef\xbb\xbf{}", 1, 1, "a byte order mark is not allowed at the start of JSON text"},
      {"-", 1, 2, "expected a digit after '-'"},
      {"-a", 1, 2, "expected a digit after '-'"},
      {"01", 1, 1, "a number cannot start with 0 (JSON has no leading zeros)"},
      {"-012", 1, 2, "a number cannot start with 0 (JSON has no leading zeros)"},
      {"1.", 1, 3, "expected a digit after the decimal point"},
      {"1.e5", 1, 3, "expected a digit after the decimal point"},
      {".5", 1, 1, "unexpected character '.' where a value was expected"},
      {"1e", 1, 3, "expected a digit in the exponent"},
      {"1e+", 1, 4, "expected a digit in the exponent"},
      {"[1e400]", 1, 2, "number 1e400 is too large for a double"},
      {"-1.8e308", 1, 1, "number -1.8e308 is too large for a double"},
      {"\"abc", 1, 1, "unterminated string"},
      {"[\"a\\", 1, 2, "unterminated string"},
      {"\"a\nb\"", 1, 3,
       "control character \\x0a in a string (write it as an escape such as \\n or \\u0001)"},
      {"\"\\x\"", 1, 2, "bad escape '\\x' in a string"},
      {"\"\\u12x4\"", 1, 6, "bad hex digit 'x' in \\u escape"},
      {"\"\\u12", 1, 4, "truncated \\u escape (it needs four hex digits)"},
      {"\"\\uzzzz\"", 1, 4, "bad hex digit 'z' in \\u escape"},
      {"\"ab\\ud800\"", 1, 4,
       "unpaired high surrogate in \\u escape (a \\uDC00-\\uDFFF escape must follow)"},
      {"\"\\ud800\\u0041\"", 1, 2,
       "unpaired high surrogate in \\u escape (a \\uDC00-\\uDFFF escape must follow)"},
      {"\"\\udc00\"", 1, 2,
       "unpaired low surrogate in \\u escape (a low surrogate must follow a high one)"},
      {"\"\xc3\xa9\xff\"", 1, 3, "invalid UTF-8 byte \\xff in a string"},
      {"\"\xed\xa0\x80\"", 1, 2, "invalid UTF-8 byte \\xed in a string"},
      {"[\"\xc3\xa9\",\n \"\xe2\x82\xac\xc0\"]", 2, 4, "invalid UTF-8 byte \\xc0 in a string"},
      {"[\"\xc3\xa9\xe2\x82\xac\", x]", 1, 8,
       "unexpected 'x' where a value was expected (the literals are true, false, null)"},
  };
  for (const ErrorCase& c : cases) {
    auto v = Parse(c.text);
    ASSERT_FALSE(v.ok()) << c.text;
    EXPECT_EQ(v.error().message, c.message) << c.text;
    EXPECT_EQ(v.error().line, c.line) << c.text;
    EXPECT_EQ(v.error().column, c.column) << c.text;
    EXPECT_EQ(v.error().ToString(),
              std::to_string(c.line) + ":" + std::to_string(c.column) + ": " + c.message);
  }
}

TEST(JsonErrors, NestingDepthIsLimited) {
  const std::string ok = std::string(512, '[') + std::string(512, ']');
  EXPECT_TRUE(Parse(ok).ok());
  const std::string deep = std::string(513, '[') + std::string(513, ']');
  auto v = Parse(deep);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message, "arrays and objects nested deeper than 512 levels");
  EXPECT_EQ(v.error().column, 513u);
  // Hostile depth far beyond any stack fails the same way, recursing only to the limit.
  EXPECT_FALSE(Parse(std::string(1'000'000, '[')).ok());
  std::string objects;
  for (int i = 0; i < 10; ++i) objects += "{\"a\":";
  EXPECT_EQ(Parse(objects + "1" + std::string(10, '}'), {.max_depth = 9}).error().message,
            "arrays and objects nested deeper than 9 levels");
  EXPECT_TRUE(Parse(objects + "1" + std::string(10, '}'), {.max_depth = 10}).ok());
}

TEST(JsonErrors, InputSizeIsLimited) {
  const std::string text = "[" + std::string(100, ' ') + "]";
  EXPECT_TRUE(Parse(text, {.max_size = 102}).ok());
  auto v = Parse(text, {.max_size = 101});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message, "the text is 102 bytes, more than the limit of 101");
}

TEST(JsonOptions, DuplicateKeysLastWinsAtTheFirstPosition) {
  auto v = Parse(R"({"b": 1, "a": 2, "b": 3})", {.duplicate_keys = DuplicateKeys::kLastWins});
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(Write(*v), R"({"b":3,"a":2})");  // JSON.parse's answer in node
}

TEST(JsonOptions, DuplicatesInLargeObjectsAreFound) {
  // Past the size where the parser indexes keys, both policies still see the duplicate.
  std::string text = "{";
  for (int i = 0; i < 100; ++i) text += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  text += "\"k42\":-1}";
  auto err = Parse(text);
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.error().message, "duplicate key \"k42\" in an object");
  EXPECT_EQ(err.error().offset, text.rfind("\"k42\""));
  auto v = Parse(text, {.duplicate_keys = DuplicateKeys::kLastWins});
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->as_object().size(), 100u);
  EXPECT_EQ(v->find("k42")->as_int(), -1);
  EXPECT_EQ(v->as_object().members()[42].first, "k42");
}

TEST(JsonOptions, BigIntegersCanBeRefused) {
  EXPECT_EQ(Parse("18446744073709551616")->as_double(), 18446744073709551616.0);
  auto v = Parse("[18446744073709551616]", {.big_integers_as_double = false});
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().message, "integer 18446744073709551616 does not fit in int64 or uint64");
  EXPECT_EQ(v.error().column, 2u);
  EXPECT_FALSE(Parse("-9223372036854775809", {.big_integers_as_double = false}).ok());
  EXPECT_TRUE(Parse("1e30", {.big_integers_as_double = false}).ok());  // not an integer text
}

TEST(JsonValue, IntegersAreExactTo64Bits) {
  EXPECT_EQ(Parse("-9223372036854775808")->as_int(), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(Parse("9223372036854775807")->kind(), Value::Kind::kInt);
  auto u = Parse("18446744073709551615");
  ASSERT_EQ(u->kind(), Value::Kind::kUint);
  EXPECT_EQ(u->as_uint(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(u->to_uint64(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(u->to_int64(), std::nullopt);
  EXPECT_EQ(Parse("-1")->to_uint64(), std::nullopt);
  EXPECT_EQ(Parse("7")->to_uint64(), 7u);
  EXPECT_EQ(Parse("7.0")->to_int64(), std::nullopt);  // a double stays a double
  EXPECT_EQ(Value(std::uint64_t{5}).kind(), Value::Kind::kInt);
  EXPECT_EQ(Value(std::numeric_limits<std::uint64_t>::max()).kind(), Value::Kind::kUint);
}

TEST(JsonValue, TinyNumbersUnderflowToSignedZero) {
  EXPECT_EQ(Write(*Parse("[1e-400, -1e-400, 0.0000000000000000000000001e-350]")), "[0.0,-0.0,0.0]");
}

TEST(JsonValue, ObjectsKeepInsertionOrderAndCompareByIt) {
  Object o{{"z", 1}, {"a", "x"}};
  o.set("m", Array{true, nullptr});
  o.set("z", 2.5);
  EXPECT_EQ(Write(Value(o)), R"({"z":2.5,"a":"x","m":[true,null]})");
  EXPECT_FALSE(Value(Object{{"a", 1}, {"b", 2}}) == Value(Object{{"b", 2}, {"a", 1}}));
  EXPECT_FALSE(Value(1) == Value(1.0));
  EXPECT_FALSE(Value(0.0) == Value(-0.0));
  EXPECT_EQ(Value(Object{{"a", 1}}).find("a")->as_int(), 1);
  EXPECT_EQ(Value(Array{}).find("a"), nullptr);
}

TEST(JsonWrite, EscapesAndFormats) {
  EXPECT_EQ(Write(Value(std::string("q\"b\\s/\b\f\n\r\t\x01\x1f\x7f\0z", 16))),
            "\"q\\\"b\\\\s/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\\u0000z\"");
  // Not UTF-8: each ill-formed subpart becomes U+FFFD, so the output always parses.
  EXPECT_EQ(Write(Value("a\xff"
                        "b\xe2\x82")),
            "\"a\xef\xbf\xbd"
            "b\xef\xbf\xbd\"");
  EXPECT_EQ(Write(Value(std::nan(""))), "null");
  EXPECT_EQ(Write(Value(-std::numeric_limits<double>::infinity())), "null");
  EXPECT_EQ(Write(Value(Array{}), {.indent = 2}), "[]");
  EXPECT_EQ(Write(Value(Object{{"a", Array{1, Object{}}}}), {.indent = 1}),
            "{\n \"a\": [\n  1,\n  {}\n ]\n}");
}

}  // namespace
}  // namespace alknet::base::json
