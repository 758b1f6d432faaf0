#include "alknet/runtime/module_resolver.h"

#include <gtest/gtest.h>

#include <fstream>

#include "alknet/runtime/permissions.h"

namespace alknet::runtime {
namespace {

namespace fs = std::filesystem;

// A throwaway project tree per test: write(path, text) creates the file and its directories.
class ResolverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("alknet_resolver_" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    root_ = CanonicalPath(root_);
    write("app/main.js", "");
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  ModuleLocation at(const std::string& rel) {
    ModuleLocation m;
    m.path = root_ / rel;
    return m;
  }
  Result<ModuleLocation> resolve(std::string_view spec, const std::string& from = "app/main.js",
                                 std::optional<ImportMap> map = std::nullopt) {
    ModuleResolver r({"fs", "process"}, std::move(map));
    ModuleLocation referrer = at(from);
    return r.Resolve(spec, &referrer);
  }
  std::string message(const Result<ModuleLocation>& r) { return r ? "" : r.error().message; }

  fs::path root_;
};

TEST_F(ResolverTest, RelativeAndAbsolutePaths) {
  write("app/lib/a.js", "");
  write("shared/b.mjs", "");
  auto a = resolve("./lib/a.js");
  ASSERT_TRUE(a) << message(a);
  EXPECT_EQ(a->path, root_ / "app/lib/a.js");
  EXPECT_EQ(a->kind, ModuleLocation::Kind::kFile);
  EXPECT_EQ(a->Url(), "file://" + (root_ / "app/lib/a.js").string());
  auto b = resolve("../shared/b.mjs", "app/lib/a.js");
  ASSERT_FALSE(b) << "relative to the importing module, not the main one";
  b = resolve("../../shared/b.mjs", "app/lib/a.js");
  ASSERT_TRUE(b) << message(b);
  auto abs = resolve("file://" + (root_ / "shared/b.mjs").string());
  ASSERT_TRUE(abs);
  EXPECT_EQ(abs->path, root_ / "shared/b.mjs");
}

TEST_F(ResolverTest, MissingFileSuggestsTheExtension) {
  write("app/lib/util.mjs", "");
  auto r = resolve("./lib/util");
  ASSERT_FALSE(r);
  EXPECT_NE(message(r).find("did you mean \"./lib/util.mjs\""), std::string::npos) << message(r);
}

TEST_F(ResolverTest, JsonModulesByExtension) {
  write("app/data.json", "{}");
  auto r = resolve("./data.json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->kind, ModuleLocation::Kind::kJson);
}

TEST_F(ResolverTest, BuiltinsAndUnknownSchemes) {
  auto fs_module = resolve("alknet:fs");
  ASSERT_TRUE(fs_module);
  EXPECT_EQ(fs_module->kind, ModuleLocation::Kind::kBuiltin);
  EXPECT_EQ(fs_module->Url(), "alknet:fs");
  EXPECT_NE(message(resolve("alknet:nope")).find("alknet:fs, alknet:process"), std::string::npos);
  EXPECT_NE(message(resolve("node:fs")).find("Node's built-in modules"), std::string::npos);
  EXPECT_NE(message(resolve("https://x.org/a.js")).find("unsupported URL scheme"),
            std::string::npos);
}

TEST_F(ResolverTest, PackageExportsWithConditionsSubpathsAndPatterns) {
  write("node_modules/pkg/package.json", R"({
    "name": "pkg", "main": "./cjs/index.js",
    "exports": {
      ".": {"node": {"require": "./cjs/index.js"}, "import": "./esm/index.js"},
      "./util": {"default": "./esm/util.js"},
      "./icons/*": "./esm/icons/*.js",
      "./icons/internal/*": null
    }})");
  write("node_modules/pkg/esm/index.js", "");
  write("node_modules/pkg/esm/util.js", "");
  write("node_modules/pkg/esm/icons/star.js", "");
  // Found by walking up from app/ to the project root.
  auto main = resolve("pkg");
  ASSERT_TRUE(main) << message(main);
  EXPECT_EQ(main->path, root_ / "node_modules/pkg/esm/index.js");
  auto util = resolve("pkg/util");
  ASSERT_TRUE(util) << message(util);
  EXPECT_EQ(util->path, root_ / "node_modules/pkg/esm/util.js");
  auto star = resolve("pkg/icons/star");
  ASSERT_TRUE(star) << message(star);
  EXPECT_EQ(star->path, root_ / "node_modules/pkg/esm/icons/star.js");
  EXPECT_NE(message(resolve("pkg/esm/util.js")).find("does not export \"./esm/util.js\""),
            std::string::npos);
  EXPECT_FALSE(resolve("pkg/icons/internal/x"));
}

TEST_F(ResolverTest, ModuleFieldThenMainForEsmPackages) {
  write("app/node_modules/with-module/package.json",
        R"({"main": "index.cjs", "module": "index.mjs"})");
  write("app/node_modules/with-module/index.mjs", "");
  write("app/node_modules/typed/package.json", R"({"type": "module"})");
  write("app/node_modules/typed/index.js", "");
  write("app/node_modules/@scope/deep/package.json",
        R"({"type": "module", "main": "lib/main.js"})");
  write("app/node_modules/@scope/deep/lib/main.js", "");
  write("app/node_modules/@scope/deep/lib/other.js", "");
  EXPECT_EQ(resolve("with-module")->path, root_ / "app/node_modules/with-module/index.mjs");
  EXPECT_EQ(resolve("typed")->path, root_ / "app/node_modules/typed/index.js");
  EXPECT_EQ(resolve("@scope/deep")->path, root_ / "app/node_modules/@scope/deep/lib/main.js");
  EXPECT_EQ(resolve("@scope/deep/lib/other.js")->path,
            root_ / "app/node_modules/@scope/deep/lib/other.js");
}

TEST_F(ResolverTest, CommonJsIsRefusedWithAnExplanation) {
  write("node_modules/cjs/package.json", R"({"main": "index.js"})");
  write("node_modules/cjs/index.js", "");
  write("node_modules/req/package.json", R"({"exports": {"require": "./index.js"}})");
  write("node_modules/req/index.js", "");
  write("app/legacy.cjs", "");
  for (auto spec : {"cjs", "req", "./legacy.cjs"}) {
    auto r = resolve(spec);
    ASSERT_FALSE(r) << spec;
    EXPECT_NE(message(r).find("CommonJS"), std::string::npos) << message(r);
  }
  auto missing = resolve("not-installed");
  EXPECT_NE(message(missing).find("Cannot find package \"not-installed\""), std::string::npos);
}

TEST_F(ResolverTest, ImportMapExactPrefixScopesAndBuiltins) {
  write("app/vendor/lib.js", "");
  write("app/vendor/scoped.js", "");
  write("app/vendor/lib/x.js", "");
  write("app/map.json", R"({
    "imports": {"lib": "./vendor/lib.js", "lib/": "./vendor/lib/", "p": "alknet:process"},
    "scopes": {"./vendor/": {"lib": "./vendor/scoped.js"}}})");
  auto map = ImportMap::Load(root_ / "app/map.json");
  ASSERT_TRUE(map) << map.error().message;
  EXPECT_EQ(resolve("lib", "app/main.js", *map)->path, root_ / "app/vendor/lib.js");
  EXPECT_EQ(resolve("lib/x.js", "app/main.js", *map)->path, root_ / "app/vendor/lib/x.js");
  EXPECT_EQ(resolve("lib", "app/vendor/lib/x.js", *map)->path, root_ / "app/vendor/scoped.js");
  EXPECT_EQ(resolve("p", "app/main.js", *map)->builtin, "process");
}

TEST_F(ResolverTest, ImportMapErrorsNameTheFileAndPlace) {
  auto bad_json = ImportMap::Parse("{\n  \"imports\": {\n    \"a\": 1,\n  }\n}", "/x/map.json");
  ASSERT_FALSE(bad_json);
  EXPECT_NE(bad_json.error().message.find("/x/map.json:4:3: expected a string key"),
            std::string::npos)
      << bad_json.error().message;
  auto slash = ImportMap::Parse(R"({"imports": {"a/": "./b"}})", "/x/map.json");
  ASSERT_FALSE(slash);
  EXPECT_NE(slash.error().message.find("must too"), std::string::npos);
  auto unknown = ImportMap::Parse(R"({"import": {}})", "/x/map.json");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown key \"import\""), std::string::npos);
  EXPECT_FALSE(ImportMap::Load(root_ / "missing.json"));
}

}  // namespace
}  // namespace alknet::runtime
