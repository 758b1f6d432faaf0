// alknet/base/file.h: the refusals are checked by what happens on disk (std::filesystem looks
// at the tree afterwards), for both ways OpenBeneath resolves (openat2 and the O_NOFOLLOW walk).
#include "alknet/base/file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace alknet::base {
namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;

class FileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "alknet-file-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    fs::create_directories(dir_ / "granted" / "sub");
  }
  void TearDown() override { fs::remove_all(dir_); }

  static void Put(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
  }
  static std::string Get(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  static std::string Contents(int fd) {
    auto r = ReadAllFd(fd, "fd", 1 << 20);
    return r.ok() ? *r : "<error: " + r.error().message + ">";
  }
  fs::path granted() const { return dir_ / "granted"; }
  fs::path dir_;
};

TEST_F(FileTest, PathTextRefusesNulAndEmpty) {
  EXPECT_TRUE(CheckPathText("/tmp/x").ok());
  EXPECT_FALSE(CheckPathText("").ok());
  auto r = CheckPathText("/tmp/pwned\0/../g/z"s);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("NUL"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("\\x00"), std::string::npos) << r.error().message;
}

TEST_F(FileTest, OpenRegularFileReadsAndRefusesSpecialFiles) {
  Put(dir_ / "a.txt", "hello");
  auto fd = OpenRegularFile((dir_ / "a.txt").string());
  ASSERT_TRUE(fd.ok()) << fd.error().message;
  EXPECT_EQ(Contents(fd->get()), "hello");
  EXPECT_EQ(::fcntl(fd->get(), F_GETFL) & O_NONBLOCK, 0);

  // A FIFO with no writer: a plain open() would block forever.
  ASSERT_EQ(::mkfifo((dir_ / "m.onnx").c_str(), 0600), 0);
  auto fifo = OpenRegularFile((dir_ / "m.onnx").string());
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(fifo.error().message.find("FIFO"), std::string::npos) << fifo.error().message;

  auto dev = OpenRegularFile("/dev/zero");
  ASSERT_FALSE(dev.ok());
  EXPECT_NE(dev.error().message.find("character device"), std::string::npos);
  auto d = OpenRegularFile(dir_.string());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("directory"), std::string::npos);
  auto nul = OpenRegularFile((dir_ / "a.txt").string() + "\0/x"s);
  EXPECT_FALSE(nul.ok());
  auto missing = OpenRegularFile((dir_ / "nope").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().sys_errno, ENOENT);
}

TEST_F(FileTest, ReadRegularFileHonoursTheCap) {
  const std::string text(1000, 'x');
  Put(dir_ / "t", text);
  auto ok = ReadRegularFile((dir_ / "t").string(), 1000);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(*ok, text);
  auto over = ReadRegularFile((dir_ / "t").string(), 999);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().message.find("cap of 999"), std::string::npos) << over.error().message;
  // A file whose size fstat does not know (procfs says 0) is capped while it is read.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::write(fds[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
  ::close(fds[1]);
  auto piped = ReadAllFd(fds[0], "pipe", 100);
  ::close(fds[0]);
  EXPECT_FALSE(piped.ok());
}

class BeneathTest : public FileTest, public ::testing::WithParamInterface<BeneathMethod> {};

TEST_P(BeneathTest, ReadsAndWritesInside) {
  Put(granted() / "sub" / "in.txt", "inside");
  auto r = OpenBeneath(granted().string(), "sub/in.txt", OpenMode::kRead, GetParam());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(Contents(r->get()), "inside");
  auto again = OpenBeneath(granted().string(), "./sub//in.txt", OpenMode::kRead, GetParam());
  EXPECT_TRUE(again.ok());

  {
    auto w = OpenBeneath(granted().string(), "sub/in.txt", OpenMode::kWriteTruncate, GetParam());
    ASSERT_TRUE(w.ok()) << w.error().message;
    ASSERT_EQ(::write(w->get(), "new", 3), 3);
  }
  EXPECT_EQ(Get(granted() / "sub" / "in.txt"), "new");  // truncated, then written
  {
    auto w = OpenBeneath(granted().string(), "created", OpenMode::kWriteTruncate, GetParam());
    ASSERT_TRUE(w.ok()) << w.error().message;
  }
  EXPECT_TRUE(fs::is_regular_file(granted() / "created"));
}

TEST_P(BeneathTest, DanglingLinkIsNeverCreatedThrough) {
  fs::create_symlink(dir_ / "outside.txt", granted() / "d");
  auto w = OpenBeneath(granted().string(), "d", OpenMode::kWriteTruncate, GetParam());
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().message.find("symbolic link"), std::string::npos) << w.error().message;
  EXPECT_FALSE(fs::exists(dir_ / "outside.txt"));
}

TEST_P(BeneathTest, LinksAnywhereAreRefused) {
  Put(dir_ / "secret", "secret");
  fs::create_symlink(dir_ / "secret", granted() / "to-secret");
  fs::create_symlink(dir_, granted() / "up");
  fs::create_symlink("in.txt", granted() / "sub" / "relative-link");
  Put(granted() / "sub" / "in.txt", "inside");
  for (const char* rel : {"to-secret", "up/secret", "sub/relative-link"}) {
    auto r = OpenBeneath(granted().string(), rel, OpenMode::kRead, GetParam());
    ASSERT_FALSE(r.ok()) << rel;
    EXPECT_NE(r.error().message.find("symbolic link"), std::string::npos)
        << rel << ": " << r.error().message;
  }
  auto w = OpenBeneath(granted().string(), "up/new", OpenMode::kWriteTruncate, GetParam());
  EXPECT_FALSE(w.ok());
  EXPECT_FALSE(fs::exists(dir_ / "new"));
  EXPECT_EQ(Get(dir_ / "secret"), "secret");
}

TEST_P(BeneathTest, DotDotAbsoluteAndNulAreRefused) {
  Put(dir_ / "secret", "secret");
  for (const std::string& rel :
       {"../secret"s, "sub/../../secret"s, "/etc/passwd"s, ""s, "."s, "pwned\0/../z"s}) {
    auto r = OpenBeneath(granted().string(), rel, OpenMode::kWriteTruncate, GetParam());
    EXPECT_FALSE(r.ok()) << rel;
  }
  EXPECT_EQ(Get(dir_ / "secret"), "secret");
  EXPECT_FALSE(fs::exists(granted() / "pwned"));
}

TEST_P(BeneathTest, SpecialFilesAreRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo((granted() / "fifo").c_str(), 0600), 0);
  auto r = OpenBeneath(granted().string(), "fifo", OpenMode::kRead, GetParam());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("FIFO"), std::string::npos) << r.error().message;
  auto w = OpenBeneath(granted().string(), "fifo", OpenMode::kWriteTruncate, GetParam());
  EXPECT_FALSE(w.ok());
  auto d = OpenBeneath(granted().string(), "sub", OpenMode::kRead, GetParam());
  EXPECT_FALSE(d.ok());
  auto dw = OpenBeneath(granted().string(), "sub", OpenMode::kWriteTruncate, GetParam());
  EXPECT_FALSE(dw.ok());
}

TEST_P(BeneathTest, DirectoriesOpenOnlyWithoutLinks) {
  auto d = OpenBeneath(granted().string(), "sub", OpenMode::kDirectory, GetParam());
  ASSERT_TRUE(d.ok()) << d.error().message;
  // The fd anchors *at calls: a file created through it lands in granted/sub.
  const int fd = ::openat(d->get(), "made", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ::close(fd);
  EXPECT_TRUE(fs::exists(granted() / "sub" / "made"));

  fs::create_symlink(dir_, granted() / "up");
  fs::create_symlink("sub", granted() / "alias");
  Put(granted() / "file", "x");
  for (const char* rel : {"up", "alias", "up/granted", "file", "../granted", "/tmp"}) {
    auto r = OpenBeneath(granted().string(), rel, OpenMode::kDirectory, GetParam());
    EXPECT_FALSE(r.ok()) << rel;
  }
  auto link = OpenBeneath(granted().string(), "alias", OpenMode::kDirectory, GetParam());
  ASSERT_FALSE(link.ok());
  EXPECT_NE(link.error().message.find("symbolic link"), std::string::npos) << link.error().message;
  ASSERT_EQ(::mkfifo((granted() / "fifo").c_str(), 0600), 0);
  EXPECT_FALSE(OpenBeneath(granted().string(), "fifo", OpenMode::kDirectory, GetParam()).ok());
}

INSTANTIATE_TEST_SUITE_P(Methods, BeneathTest,
                         ::testing::Values(BeneathMethod::kAuto, BeneathMethod::kWalk),
                         [](const auto& info) {
                           return info.param == BeneathMethod::kAuto ? "Auto" : "Walk";
                         });

}  // namespace
}  // namespace alknet::base
