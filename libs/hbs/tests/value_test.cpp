// Value and JSON: the context type and its JavaScript string conversions.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "alknet/hbs/value.h"

namespace alknet::hbs {
namespace {

std::string js(double d) {
  std::string s;
  append_js_number(s, d);
  return s;
}

// Expected strings are what V8 prints for String(x) (checked with node).
TEST(JsNumber, MatchesNumberToString) {
  EXPECT_EQ(js(0), "0");
  EXPECT_EQ(js(-0.0), "0");
  EXPECT_EQ(js(1), "1");
  EXPECT_EQ(js(-1.5), "-1.5");
  EXPECT_EQ(js(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(js(1e21), "1e+21");
  EXPECT_EQ(js(1e20), "100000000000000000000");
  EXPECT_EQ(js(1.5e-7), "1.5e-7");
  EXPECT_EQ(js(1e-6), "0.000001");
  EXPECT_EQ(js(123456.789), "123456.789");
  EXPECT_EQ(js(5e-324), "5e-324");
  EXPECT_EQ(js(std::numeric_limits<double>::infinity()), "Infinity");
  EXPECT_EQ(js(std::nan("")), "NaN");
}

TEST(Value, JsStringOfCompoundValues) {
  Value arr =
      Value::array({1, "two", nullptr, Value::array({3, 4}), Value::object({{"x", 1}}), true});
  EXPECT_EQ(arr.to_js_string(), "1,two,,3,4,[object Object],true");
  EXPECT_EQ(Value().to_js_string(), "");
  EXPECT_EQ(Value(false).to_js_string(), "false");
  EXPECT_EQ(Value(2.0).to_js_string(), "2");
}

TEST(Value, CopiesShareUntilWritten) {
  Array xs;
  xs.emplace_back(1);
  xs.emplace_back(2);
  Object o;
  o.set("xs", Value(std::move(xs)));
  Value a(std::move(o));
  Value b = a;
  b.as_object().find("xs")->as_array().emplace_back(3);
  EXPECT_EQ(a.as_object().find("xs")->as_array().size(), 2u);
  EXPECT_EQ(b.as_object().find("xs")->as_array().size(), 3u);
  EXPECT_FALSE(a == b);
  b.as_object().find("xs")->as_array().pop_back();
  EXPECT_TRUE(a == b);
}

TEST(Value, Truthiness) {
  EXPECT_FALSE(Value().truthy());
  EXPECT_FALSE(Value(nullptr).truthy());
  EXPECT_FALSE(Value(0).truthy());
  EXPECT_FALSE(Value(std::nan("")).truthy());
  EXPECT_FALSE(Value("").truthy());
  EXPECT_TRUE(Value("0").truthy());
  EXPECT_TRUE(Value(Array{}).truthy());
  EXPECT_TRUE(Value(Object{}).truthy());
}

TEST(Json, ParsesAndKeepsKeyOrder) {
  Value v = parse_json(R"({"b": 1, "a": [true, null, -2.5e1, "x\u00e9\n"], "b": 3})");
  ASSERT_TRUE(v.is_object());
  const auto& e = v.as_object().entries();
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].first, "b");
  EXPECT_EQ(e[0].second.as_int(), 3);  // a duplicate key keeps its first position, last value
  const Array& a = e[1].second.as_array();
  EXPECT_TRUE(a[0].as_bool());
  EXPECT_TRUE(a[1].is_null());
  EXPECT_DOUBLE_EQ(a[2].as_double(), -25.0);
  EXPECT_EQ(a[3].as_string(), "x\xc3\xa9\n");
  EXPECT_EQ(v.to_json(), R"({"b":3,"a":[true,null,-25,"x)"
                         "\xc3\xa9"
                         R"(\n"]})");
}

TEST(Json, IntegerLikeKeysComeFirstAsInJavaScript) {
  Value v = parse_json(R"({"b": 1, "10": 2, "a": 3, "2": 4, "01": 5, "-1": 6})");
  std::string order;
  for (const auto& [k, _] : v.as_object().entries()) order += k + " ";
  EXPECT_EQ(order, "2 10 b a 01 -1 ");  // Object.keys(JSON.parse(...)) in node
}

TEST(Json, IntegersStayIntegers) {
  EXPECT_TRUE(parse_json("42").is_int());
  EXPECT_TRUE(parse_json("4.0").is_double());
  EXPECT_TRUE(parse_json("1e3").is_double());
  EXPECT_TRUE(parse_json("99999999999999999999").is_double());
}

TEST(Json, ErrorsNameLineAndColumn) {
  try {
    parse_json("{\n  \"a\": tru\n}");
    FAIL() << "no error";
  } catch (const JsonError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.column(), 8);
  }
  EXPECT_THROW(parse_json("[1,]"), JsonError);
  EXPECT_THROW(parse_json("{\"a\" 1}"), JsonError);
  EXPECT_THROW(parse_json("\"unterminated"), JsonError);
  EXPECT_THROW(parse_json("01"), JsonError);
  EXPECT_THROW(parse_json("[1] x"), JsonError);
  EXPECT_THROW(parse_json(std::string(600, '[') + std::string(600, ']')), JsonError);
}

}  // namespace
}  // namespace alknet::hbs
