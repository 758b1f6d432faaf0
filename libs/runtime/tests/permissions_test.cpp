#include "alknet/runtime/permissions.h"

#include <gtest/gtest.h>

#include <fstream>

namespace alknet::runtime {
namespace {

namespace fs = std::filesystem;

class PermissionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ =
        fs::temp_directory_path() /
        ("alknet_permissions_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "granted" / "sub");
    fs::create_directories(root_ / "other");
    std::ofstream(root_ / "other" / "secret.txt") << "x";
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(PermissionsTest, NothingIsGrantedByDefault) {
  Permissions p;
  auto read = p.CheckRead(root_ / "other" / "secret.txt");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find("run again with --allow-read"), std::string::npos)
      << read.error().message;
  EXPECT_NE(p.CheckWrite(root_ / "x").error().message.find("--allow-write"), std::string::npos);
  EXPECT_NE(p.CheckNet("example.com", 443).error().message.find("--allow-net"), std::string::npos);
  EXPECT_NE(p.CheckEnv("HOME").error().message.find("--allow-env"), std::string::npos);
}

TEST_F(PermissionsTest, FlagsGrantEverythingOfTheirKind) {
  Permissions p;
  EXPECT_TRUE(*p.ParseFlag("--allow-read"));
  EXPECT_TRUE(p.CheckRead("/etc/hostname").ok());
  EXPECT_FALSE(p.CheckWrite("/tmp/x").ok());
  EXPECT_FALSE(p.CheckEnv("HOME").ok());
  Permissions all;
  EXPECT_TRUE(*all.ParseFlag("-A"));
  EXPECT_TRUE(all.CheckWrite("/tmp/x").ok());
  EXPECT_TRUE(all.CheckNet("h", 1).ok());
  EXPECT_TRUE(all.CheckEnv("X").ok());
}

TEST_F(PermissionsTest, PathGrantsCoverTheirSubtreeOnly) {
  Permissions p;
  ASSERT_TRUE(*p.ParseFlag("--allow-read=" + (root_ / "granted").string()));
  EXPECT_TRUE(p.CheckRead(root_ / "granted").ok());
  EXPECT_TRUE(p.CheckRead(root_ / "granted" / "sub" / "new-file").ok());
  EXPECT_FALSE(p.CheckRead(root_ / "other" / "secret.txt").ok());
  // ".." cannot climb out, and a sibling sharing the prefix is not inside.
  EXPECT_FALSE(p.CheckRead(root_ / "granted" / ".." / "other" / "secret.txt").ok());
  fs::create_directories(root_ / "granted-not");
  EXPECT_FALSE(p.CheckRead(root_ / "granted-not" / "f").ok());
}

TEST_F(PermissionsTest, SymlinksAreResolvedBeforeTheCheck) {
  Permissions p;
  ASSERT_TRUE(*p.ParseFlag("--allow-read=" + (root_ / "granted").string()));
  fs::create_directory_symlink(root_ / "other", root_ / "granted" / "escape");
  auto s = p.CheckRead(root_ / "granted" / "escape" / "secret.txt");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find((root_ / "other" / "secret.txt").string()), std::string::npos)
      << "the message names the real path: " << s.error().message;
}

TEST_F(PermissionsTest, ListsAndHosts) {
  Permissions p;
  ASSERT_TRUE(*p.ParseFlag("--allow-net=example.com,10.0.0.1:8080"));
  EXPECT_TRUE(p.CheckNet("example.com", 443).ok());
  EXPECT_TRUE(p.CheckNet("10.0.0.1", 8080).ok());
  EXPECT_FALSE(p.CheckNet("10.0.0.1", 8081).ok());
  EXPECT_FALSE(p.CheckNet("example.org", 0).ok());
  ASSERT_TRUE(*p.ParseFlag("--allow-env=HOME,PATH"));
  EXPECT_TRUE(p.CheckEnv("PATH").ok());
  EXPECT_FALSE(p.CheckEnv("USER").ok());
}

TEST_F(PermissionsTest, MalformedAndForeignFlags) {
  Permissions p;
  EXPECT_FALSE(p.ParseFlag("--allow-read=").ok());
  EXPECT_FALSE(p.ParseFlag("--allow-net=a,,b").ok());
  auto other = p.ParseFlag("--import-map");
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(*other);
  EXPECT_FALSE(*p.ParseFlag("--allow-reader"));
}

TEST(PathIsWithin, ComparesWholeComponents) {
  EXPECT_TRUE(PathIsWithin("/a/b/c", "/a/b"));
  EXPECT_TRUE(PathIsWithin("/a/b", "/a/b"));
  EXPECT_TRUE(PathIsWithin("/a/b/c", "/a/b/"));
  EXPECT_FALSE(PathIsWithin("/a/bc", "/a/b"));
  EXPECT_FALSE(PathIsWithin("/a", "/a/b"));
  EXPECT_TRUE(PathIsWithin("/anything", "/"));
}

}  // namespace
}  // namespace alknet::runtime
