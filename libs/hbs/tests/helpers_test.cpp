// The code-generation helpers (not in handlebars.js): arithmetic with overflow and
// division-by-zero errors, loops, comparisons.
#include <gtest/gtest.h>

#include <limits>

#include "alknet/hbs/hbs.h"

namespace alknet::hbs {
namespace {

std::string render(std::string_view src, const Value& ctx = Value::object({})) {
  return Registry().render_template(src, ctx);
}

std::string error_of(std::string_view src, const Value& ctx = Value::object({})) {
  try {
    Registry().render_template(src, ctx);
  } catch (const RenderError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Arithmetic, IntegersStayIntegers) {
  EXPECT_EQ(render("{{add 2 3}} {{sub 2 5}} {{mul 4 8 2}} {{div 7 2}} {{div -7 2}} {{mod 7 3}} "
                   "{{min 3 1 2}} {{max 3 9}}"),
            "5 -3 64 3 -3 1 1 9");
  EXPECT_EQ(render("{{mul tile 2}}u", Value::object({{"tile", 16}})), "32u");
}

TEST(Arithmetic, FloatsFollowJavaScriptFormatting) {
  EXPECT_EQ(render("{{add 0.1 0.2}} {{mul 1.5 2}} {{div 1 4.0}} {{mod 5.5 2}}"),
            "0.30000000000000004 3 0.25 1.5");
}

TEST(Arithmetic, OverflowAndDivisionByZeroAreErrors) {
  Value big = Value::object({{"m", std::numeric_limits<std::int64_t>::max()}});
  EXPECT_NE(error_of("{{add m 1}}", big).find("integer overflow"), std::string::npos);
  EXPECT_NE(error_of("{{mul m 2}}", big).find("integer overflow"), std::string::npos);
  EXPECT_NE(error_of("{{sub 0 m}}{{sub (sub 0 m) 2}}", big).find("integer overflow"),
            std::string::npos);
  EXPECT_NE(error_of("{{div 1 0}}").find("division by zero"), std::string::npos);
  EXPECT_NE(error_of("{{mod 1 0}}").find("division by zero"), std::string::npos);
  EXPECT_NE(error_of("{{div 1.5 0}}").find("division by zero"), std::string::npos);
  EXPECT_NE(error_of("\n {{add 1 'x'}}").find("not a number at <inline>:2:2"), std::string::npos);
  EXPECT_NE(error_of("{{sub 1 2 3}}").find("takes 2 argument"), std::string::npos);
}

TEST(Loops, RangeAndTimes) {
  EXPECT_EQ(render("{{#each (range 4)}}{{this}}{{/each}}"), "0123");
  EXPECT_EQ(render("{{#each (range 1 7 2)}}{{this}}{{/each}}"), "135");
  EXPECT_EQ(render("{{#each (range 3 0 -1)}}{{this}}{{/each}}"), "321");
  EXPECT_EQ(render("{{#times 3 as |i|}}{{i}}{{#unless @last}},{{/unless}}{{/times}}"), "0,1,2");
  EXPECT_EQ(
      render("{{#times n}}{{name}}{{@index}}{{/times}}", Value::object({{"n", 2}, {"name", "v"}})),
      "v0v1");
  EXPECT_NE(error_of("{{#times -1}}x{{/times}}").find("non-negative integer"), std::string::npos);
  EXPECT_NE(error_of("{{range 0 10 0}}").find("step"), std::string::npos);
}

TEST(Logic, ComparisonsAndTruthiness) {
  EXPECT_EQ(render("{{eq 1 1.0}} {{eq 'a' 'a'}} {{ne 1 2}} {{gt 2 1}} {{lt 'a' 'b'}} {{gte 2 2}} "
                   "{{lte 3 2}}"),
            "true true true true true true false");
  EXPECT_EQ(
      render("{{and 1 'x'}} {{and 1 0}} {{or 0 ''}} {{or 0 'y'}} {{not 0}} {{not (range 0)}}"),
      "true false false true true true");
  EXPECT_NE(error_of("{{gt 1 'a'}}").find("cannot compare"), std::string::npos);
  EXPECT_EQ(render("{{len xs}} {{len 'abc'}} {{len o}}",
                   Value::object({{"xs", Value::array({1, 2})}, {"o", Value::object({{"k", 1}})}})),
            "2 3 1");
}

TEST(Join, JoinsWithSeparator) {
  EXPECT_EQ(
      render("{{join xs ', '}}|{{join xs}}", Value::object({{"xs", Value::array({8, 8, 1})}})),
      "8, 8, 1|8,8,1");
}

}  // namespace
}  // namespace alknet::hbs
