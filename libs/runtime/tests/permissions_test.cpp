#include "alknet/runtime/permissions.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

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

// Item 1 of the hardening issue: the check normalised "/x/pwned\0/../granted/z" to a path inside
// the grant while open() stopped at the NUL and created /x/pwned.
TEST_F(PermissionsTest, NulBytesAreRefusedBeforeNormalising) {
  using namespace std::string_literals;
  Permissions p;
  ASSERT_TRUE(*p.ParseFlag("--allow-write=" + (root_ / "granted").string()));
  const fs::path sneaky = (root_ / "pwned").string() + "\0/../granted/z"s;
  auto check = p.CheckWrite(sneaky);
  ASSERT_FALSE(check.ok());
  EXPECT_NE(check.error().message.find("NUL"), std::string::npos) << check.error().message;
  EXPECT_FALSE(p.OpenWrite(sneaky).ok());
  EXPECT_FALSE(fs::exists(root_ / "pwned"));
  EXPECT_FALSE(fs::exists(root_ / "granted" / "z"));
  Permissions all;
  ASSERT_TRUE(*all.ParseFlag("-A"));
  EXPECT_FALSE(all.OpenWrite(sneaky).ok());
  EXPECT_FALSE(fs::exists(root_ / "pwned"));
}

// Item 2: a dangling link inside the grant pointing outside; CanonicalPath cannot resolve it,
// so only opening beneath the grant without following links keeps the write inside.
TEST_F(PermissionsTest, WritesNeverFollowADanglingLink) {
  Permissions p;
  ASSERT_TRUE(*p.ParseFlag("--allow-write=" + (root_ / "granted").string()));
  fs::create_symlink(root_ / "other" / "outside.txt", root_ / "granted" / "d");
  auto fd = p.OpenWrite(root_ / "granted" / "d");
  ASSERT_FALSE(fd.ok());
  EXPECT_NE(fd.error().message.find("symbolic link"), std::string::npos) << fd.error().message;
  EXPECT_FALSE(fs::exists(root_ / "other" / "outside.txt"));
  Permissions all;
  ASSERT_TRUE(*all.ParseFlag("-A"));
  EXPECT_FALSE(all.OpenWrite(root_ / "granted" / "d").ok());
  EXPECT_FALSE(fs::exists(root_ / "other" / "outside.txt"));
}

// alknet:tensor write(): the directory that holds the file is opened beneath the grant, and the
// temporary file is created and renamed through that descriptor, so a later swap of the
// directory for a link cannot redirect the rename.
TEST_F(PermissionsTest, WriteDirectoryIsOpenedBeneathTheGrantAndHeld) {
  Permissions p;
  ASSERT_TRUE(*p.ParseFlag("--allow-write=" + (root_ / "granted").string()));
  for (const fs::path& target :
       {root_ / "granted" / "sub" / "t.mtf", root_ / "granted" / "t.mtf"}) {
    auto e = p.OpenWriteDirectory(target);
    ASSERT_TRUE(e.ok()) << e.error().message;
    EXPECT_EQ(e->name, "t.mtf");
    const int fd = ::openat(e->dir.get(), "t.tmp", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    ASSERT_GE(fd, 0);
    ::close(fd);
    if (target.parent_path() == root_ / "granted" / "sub") {
      fs::rename(root_ / "granted" / "sub", root_ / "granted" / "moved");
      fs::create_directory_symlink(root_ / "other", root_ / "granted" / "sub");
    }
    ASSERT_EQ(::renameat(e->dir.get(), "t.tmp", e->dir.get(), e->name.c_str()), 0);
    EXPECT_FALSE(fs::exists(root_ / "other" / "t.mtf"));
  }
  EXPECT_TRUE(fs::exists(root_ / "granted" / "moved" / "t.mtf"));
  EXPECT_TRUE(fs::exists(root_ / "granted" / "t.mtf"));
  // Now granted/sub is a link to other/: it resolves outside the grant, so it is refused.
  EXPECT_FALSE(p.OpenWriteDirectory(root_ / "granted" / "sub" / "x").ok());
  fs::create_directory_symlink(root_ / "granted" / "moved", root_ / "granted" / "inner");
  fs::create_directories(root_ / "granted" / "moved" / "deeper");
  auto inner = p.OpenWriteDirectory(root_ / "granted" / "inner" / "deeper" / "x");
  // CanonicalPath resolves "inner" to "moved" (inside the grant), so this opens moved/deeper.
  ASSERT_TRUE(inner.ok()) << inner.error().message;
  EXPECT_FALSE(p.OpenWriteDirectory(root_ / "other" / "x").ok());
  EXPECT_FALSE(p.OpenWriteDirectory(root_ / "granted" / "..").ok());
  EXPECT_FALSE(
      p.OpenWriteDirectory((root_ / "granted" / "x").string() + std::string("\0/y", 3)).ok());
}

TEST_F(PermissionsTest, OpenReadsInsideTheGrantAndOnlyRegularFiles) {
  Permissions p;
  ASSERT_TRUE(*p.ParseFlag("--allow-read=" + (root_ / "granted").string()));
  std::ofstream(root_ / "granted" / "sub" / "in.txt") << "inside";
  auto text = p.ReadFile(root_ / "granted" / "sub" / "in.txt", 1 << 20);
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(*text, "inside");
  EXPECT_FALSE(p.ReadFile(root_ / "granted" / "sub" / "in.txt", 5).ok());  // over the cap
  auto denied = p.ReadFile(root_ / "other" / "secret.txt", 1 << 20);
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.error().message.rfind("Requires read access", 0), 0u) << denied.error().message;
  ASSERT_EQ(::mkfifo((root_ / "granted" / "fifo").c_str(), 0600), 0);
  auto fifo = p.OpenRead(root_ / "granted" / "fifo");
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(fifo.error().message.find("FIFO"), std::string::npos) << fifo.error().message;
  // A grant of one file opens that file.
  Permissions one;
  ASSERT_TRUE(*one.ParseFlag("--allow-read=" + (root_ / "other" / "secret.txt").string()));
  EXPECT_EQ(*one.ReadFile(root_ / "other" / "secret.txt", 100), "x");
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
