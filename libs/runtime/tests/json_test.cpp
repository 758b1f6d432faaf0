// The JSON reader behind import maps and package.json: values against hand-checked documents,
// and a fuzz smoke run (random and mutated input must never crash; errors carry line:col).
// The full fuzzer is tests/fuzz_import_map.cpp (preset "fuzz").
#include "json.h"

#include <gtest/gtest.h>

#include <random>

#include "alknet/runtime/module_resolver.h"

namespace alknet::runtime::json {
namespace {

TEST(Json, ParsesEveryKindOfValue) {
  auto v = Parse(R"({"s": "a\"\\\/\n\u00e9\ud83d\ude00", "n": -1.5e2, "t": true, "f": false,
                    "z": null, "a": [1, [], {}], "dup": 1, "dup": 2})", "t.json");
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ(*v->get("s")->string(), "a\"\\/\n\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(std::get<double>(v->get("n")->v), -150.0);
  EXPECT_EQ(std::get<bool>(v->get("t")->v), true);
  EXPECT_TRUE(v->get("z")->is_null());
  EXPECT_EQ(v->get("a")->array()->size(), 3u);
  EXPECT_EQ(std::get<double>(v->get("dup")->v), 2.0) << "last duplicate wins, as JSON.parse";
  EXPECT_EQ(v->get("missing"), nullptr);
}

TEST(Json, ErrorsNameLineAndColumn) {
  struct Case {
    const char* text;
    const char* where;
  };
  for (const Case& c : {Case{"{\"a\": 1,}", "t.json:1:9: expected a string key"},
                        Case{"[1,\n 2\n 3]", "t.json:3:2: expected ',' or ']'"},
                        Case{"\"abc", "t.json:1:5: unterminated string"},
                        Case{"01", "t.json:1:2: unexpected text after the JSON value"},
                        Case{"{\"a\": tru}", "t.json:1:7: unexpected character 't'"},
                        Case{"\"\\x\"", "t.json:1:3: bad escape '\\x'"}}) {
    auto v = Parse(c.text, "t.json");
    ASSERT_FALSE(v) << c.text;
    EXPECT_EQ(v.error().message, c.where) << c.text;
  }
  std::string deep(10000, '[');
  EXPECT_NE(Parse(deep, "t.json").error().message.find("nesting too deep"), std::string::npos);
}

TEST(Json, FuzzSmoke) {
  std::mt19937 rng(42);
  const std::string seed = R"({"imports": {"a": "./a.js", "b/": "./b/"}, "scopes": {"./s/": {"a": "./x.js"}}})";
  const std::string alphabet = "{}[]\":,\\ ./abnrtu0123456789eE+-\n";
  for (int i = 0; i < 20000; ++i) {
    std::string text = seed;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % (text.size() + 1);
      switch (rng() % 3) {
        case 0: text.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
        case 1: if (pos < text.size()) text.erase(pos, 1); break;
        default: if (pos < text.size()) text[pos] = static_cast<char>(rng() % 256);
      }
    }
    auto v = Parse(text, "f.json");
    if (!v) {
      ASSERT_EQ(v.error().message.rfind("f.json:", 0), 0u) << v.error().message;
    }
    (void)ImportMap::Parse(text, "/f/map.json");
  }
}

}  // namespace
}  // namespace alknet::runtime::json
