// The JSON files the host reads before any engine runs (import maps, package.json) go through
// alknet's one reader (alknet/base/json.h, tested in libs/base): here, what the runtime adds on
// top — errors that name the file, line and column; JSON.parse's duplicate-key rule; package
// "exports" conditions taken in the object's own order, as Node does — and a fuzz smoke run
// (mutated input never crashes, every rejection names the file). The full fuzzer is
// tests/fuzz_import_map.cpp (preset "fuzz").
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "alknet/runtime/module_resolver.h"
#include "alknet/runtime/permissions.h"

namespace alknet::runtime {
namespace {

namespace fs = std::filesystem;

TEST(JsonFiles, ImportMapErrorsNameFileLineAndColumn) {
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : {Case{R"({"imports": {"a": "./a.js",}})",
                             "/t/map.json:1:28: expected a string key in an object"},
                        Case{"{\"imports\": {\n  \"a\": \"./a.js\"\n  \"b\": \"./b.js\"}}",
                             "/t/map.json:3:3: expected ',' or '}' after an object member"},
                        Case{"{\"imports\": {\"\xc3\xa9\": \"./\xff.js\"}}",
                             "/t/map.json:1:22: invalid UTF-8 byte \\xff in a string"},
                        Case{"[1] x", "/t/map.json:1:5: unexpected text after the JSON value"},
                        Case{"[1]", "/t/map.json: an import map is a JSON object"}}) {
    auto map = ImportMap::Parse(c.text, "/t/map.json");
    ASSERT_FALSE(map) << c.text;
    EXPECT_EQ(map.error().message, c.message) << c.text;
  }
}

TEST(JsonFiles, DuplicateKeysLastWinsAsInJsonParse) {
  auto map = ImportMap::Parse(R"({"imports": {"a": "./x.js", "b": "./b.js", "a": "./y.js"}})",
                              "/t/map.json");
  ASSERT_TRUE(map) << map.error().message;
  EXPECT_EQ(map->imports.at("a"), "file:///t/y.js");
  EXPECT_EQ(map->imports.at("b"), "file:///t/b.js");
}

TEST(JsonFiles, ExportConditionsFollowTheObjectsKeyOrder) {
  // Node tries conditions in the order the package lists them; "import" comes first here,
  // although "alknet" sorts first.
  const fs::path root = fs::temp_directory_path() / "alknet_json_conditions";
  fs::remove_all(root);
  fs::create_directories(root / "node_modules/pkg");
  std::ofstream(root / "node_modules/pkg/package.json")
      << R"({"exports": {"import": "./b.js", "alknet": "./a.js"}})";
  std::ofstream(root / "node_modules/pkg/a.js") << "";
  std::ofstream(root / "node_modules/pkg/b.js") << "";
  std::ofstream(root / "main.js") << "";
  ModuleResolver resolver({}, std::nullopt);
  ModuleLocation referrer;
  referrer.path = CanonicalPath(root / "main.js");
  auto found = resolver.Resolve("pkg", &referrer);
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(found->path.filename(), "b.js");
  fs::remove_all(root);
}

TEST(JsonFiles, FuzzSmoke) {
  std::mt19937 rng(42);
  const std::string seed =
      R"({"imports": {"a": "./a.js", "b/": "./b/"}, "scopes": {"./s/": {"a": "./x.js"}}})";
  const std::string alphabet = "{}[]\":,\\ ./abnrtu0123456789eE+-\n";
  int rejected = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text = seed;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % (text.size() + 1);
      switch (rng() % 3) {
        case 0: text.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
        case 1:
          if (pos < text.size()) text.erase(pos, 1);
          break;
        default:
          if (pos < text.size()) text[pos] = static_cast<char>(rng() % 256);
      }
    }
    auto map = ImportMap::Parse(text, "/f/map.json");
    if (!map) {
      ++rejected;
      ASSERT_EQ(map.error().message.rfind("/f/map.json", 0), 0u) << map.error().message;
    }
  }
  EXPECT_GT(rejected, 1000);  // the mutations do reach the error paths
}

}  // namespace
}  // namespace alknet::runtime
