// Parse errors: distinct type, template name, line, column and a useful message.
#include <gtest/gtest.h>

#include "alknet/hbs/hbs.h"

namespace alknet::hbs {
namespace {

ParseError parse_error(std::string_view source, std::string name = "t.hbs") {
  Registry hbs;
  try {
    hbs.register_template_string(name, source);
  } catch (const ParseError& e) {
    return e;
  }
  ADD_FAILURE() << "no ParseError for: " << source;
  return ParseError("", "", 0, 0);
}

TEST(ParseError, TripleCurlyInWgslSuggestsASpace) {
  ParseError e =
      parse_error("struct S {\n  v: array<{{dtype}}, 4>,\n  w: {{dtype}}}\n", "gemm.wgsl.hbs");
  EXPECT_EQ(e.template_name(), "gemm.wgsl.hbs");
  EXPECT_EQ(e.line(), 3);
  EXPECT_EQ(e.column(), 13);
  EXPECT_NE(e.message().find("'}}}'"), std::string::npos);
  EXPECT_NE(e.message().find("space or a line break"), std::string::npos);
  EXPECT_NE(std::string(e.what()).find("gemm.wgsl.hbs:3:13"), std::string::npos);
}

TEST(ParseError, UnclosedBlockNamesTheOpening) {
  ParseError e = parse_error("a\n  {{#each items}}\n{{this}}");
  EXPECT_EQ(e.line(), 2);
  EXPECT_EQ(e.column(), 3);
  EXPECT_NE(e.message().find("never closed"), std::string::npos);
}

TEST(ParseError, MismatchedClose) {
  ParseError e = parse_error("{{#if a}}x{{/each}}");
  EXPECT_NE(e.message().find("does not close 'if'"), std::string::npos);
  EXPECT_EQ(e.column(), 11);
}

TEST(ParseError, LexicalErrors) {
  EXPECT_NE(parse_error("{{!-- open").message().find("unterminated comment"), std::string::npos);
  EXPECT_NE(parse_error("{{{{raw}}}} x").message().find("unterminated raw block"),
            std::string::npos);
  EXPECT_NE(parse_error(std::string("a\0b", 3)).message().find("NUL"), std::string::npos);
  ParseError e = parse_error("ok\n{{a b=}}");
  EXPECT_EQ(e.line(), 2);
}

TEST(ParseError, InvalidPathAndPartialArity) {
  EXPECT_NE(parse_error("{{foo.this}}").message().find("invalid path"), std::string::npos);
  EXPECT_NE(parse_error("{{> p a b}}").message().find("at most one context"), std::string::npos);
  EXPECT_NE(parse_error("{{* deco}}").message().find("not supported"), std::string::npos);
}

TEST(ParseError, DeepNestingIsRefusedNotACrash) {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "{{#a}}";
  EXPECT_NE(parse_error(deep).message().find("nest deeper"), std::string::npos);
  EXPECT_NE(parse_error([] {
              std::string s = "{{x ";
              for (int i = 0; i < 100000; ++i) s += "(a ";
              return s;
            }())
                .message()
                .find("nest deeper"),
            std::string::npos);
}

TEST(ParseError, IsNotARenderError) {
  Registry hbs;
  EXPECT_THROW(hbs.register_template_string("t", "{{"), ParseError);
  try {
    hbs.register_template_string("t", "{{");
  } catch (const RenderError&) {
    FAIL() << "a parse error must not be a RenderError";
  } catch (const Error&) {
  }
}

}  // namespace
}  // namespace alknet::hbs
