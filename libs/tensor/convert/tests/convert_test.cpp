// The foreign-format API beyond the corpus: the caps of ForeignLimits, the sources, and the
// .npy writer against numpy's own files.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "alknet/tensor/convert/npy.h"
#include "alknet/tensor/convert/npz.h"
#include "alknet/tensor/convert/safetensors.h"

namespace alknet::tensor::convert {
namespace {

const std::filesystem::path kCorpus = ALKNET_CONVERT_CORPUS;

std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::unique_ptr<FileSource> Open(const std::string& name) {
  auto f = FileSource::Open(kCorpus / name);
  EXPECT_TRUE(f.ok()) << f.error().ToString();
  return std::move(f).value();
}

void ExpectLimit(const Result<ForeignFile>& r, const std::string& text) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kForeignLimit) << r.error().ToString();
  EXPECT_NE(r.error().message().find(text), std::string::npos) << r.error().message();
}

TEST(ForeignLimits, TensorCount) {
  ForeignLimits l;
  l.max_tensors = 3;
  ExpectLimit(ReadNpz(*Open("good--savez.npz"), l), "9 members is over the cap of 3");
}

TEST(ForeignLimits, Rank) {
  ForeignLimits l;
  l.max_rank = 2;
  ExpectLimit(ReadNpy(*Open("good--i64.npy"), "i64", l), "more than 2 dimensions");
}

TEST(ForeignLimits, NpyHeaderBytes) {
  ForeignLimits l;
  l.max_npy_header_bytes = 32;
  ExpectLimit(ReadNpy(*Open("good--f32.npy"), "f32", l), "over the cap of 32");
}

TEST(ForeignLimits, CentralDirectoryBytes) {
  ForeignLimits l;
  l.max_central_directory_bytes = 100;
  ExpectLimit(ReadNpz(*Open("good--savez.npz"), l), "central directory of");
}

TEST(ForeignLimits, NameBytes) {
  ForeignLimits l;
  l.max_name_bytes = 5;  // "f32.npy" is 7
  ExpectLimit(ReadNpz(*Open("good--savez.npz"), l), "name is over the cap of 5 bytes");
}

TEST(ForeignLimits, SafetensorsHeaderBytes) {
  ForeignLimits l;
  l.max_header_bytes = 64;
  ExpectLimit(ReadSafetensors(*Open("good--st-basic.safetensors"), l), "over the cap of 64");
}

TEST(ForeignLimits, SafetensorsTensorCount) {
  ForeignLimits l;
  l.max_tensors = 2;
  ExpectLimit(ReadSafetensors(*Open("good--st-basic.safetensors"), l), "more than 2 tensors");
}

TEST(ForeignLimits, SafetensorsNameBytes) {
  ForeignLimits l;
  l.max_name_bytes = 2;
  ExpectLimit(ReadSafetensors(*Open("good--st-basic.safetensors"), l),
              "name is over the cap of 2 bytes");
}

TEST(FileSource, MissingFileIsAnIoErrorNamingIt) {
  auto f = FileSource::Open(kCorpus / "no-such-file.npy");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code(), ErrorCode::kIo);
  EXPECT_NE(f.error().message().find("no-such-file.npy"), std::string::npos);
}

TEST(FileSource, DirectoryIsRefused) {
  auto f = FileSource::Open(kCorpus);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message().find("not a regular file"), std::string::npos)
      << f.error().message();
}

// A FIFO with no writer: open() without O_NONBLOCK waited forever before the regular-file
// check (the alarm turns a regression into a failure instead of a hung test).
TEST(FileSource, FifoIsRefusedWithoutBlocking) {
  const auto fifo = std::filesystem::temp_directory_path() /
                    ("alknet-convert-fifo-" + std::to_string(::getpid()) + ".npy");
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ::alarm(30);
  auto f = FileSource::Open(fifo);
  ::alarm(0);
  std::filesystem::remove(fifo);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code(), ErrorCode::kIo);
  EXPECT_NE(f.error().message().find("FIFO"), std::string::npos) << f.error().message();
}

TEST(FileSource, NulByteIsRefused) {
  using namespace std::string_literals;
  auto f = FileSource::Open((kCorpus / "good--f32.npy").string() + "\0/../x"s);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.error().message().find("NUL"), std::string::npos) << f.error().message();
}

TEST(FileSource, ReadsPastTheEndAreErrors) {
  auto f = Open("good--f32.npy");
  std::byte b[4];
  EXPECT_TRUE(f->ReadAt(f->size() - 4, b).ok());
  auto r = f->ReadAt(f->size() - 3, b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kBadForeignFile);
  EXPECT_FALSE(f->ReadAt(~uint64_t{0}, b).ok());          // offset + size overflows
  EXPECT_FALSE(f->ReadString(4, ~uint64_t{0} - 1).ok());  // no allocation from a bad length
}

// numpy's np.save (format version 1.0) is the reference of the writer: rewriting each array
// numpy saved gives numpy's bytes back exactly.
TEST(NpyWriter, WritesWhatNumpyWrites) {
  int compared = 0;
  for (const auto& e : std::filesystem::directory_iterator(kCorpus)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("good--", 0) != 0 || e.path().extension() != ".npy") continue;
    if (name == "good--version2.npy" || name == "good--fortran-one-dim.npy")
      continue;  // not numpy's
    const std::string numpy_bytes = Slurp(e.path());
    auto src = Open(name);
    auto r = ReadNpy(*src, "t");
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    const SourceTensor& t = r->tensors[0];
    auto pre = NpyPreamble(t.dtype, t.shape);
    ASSERT_TRUE(pre.ok()) << pre.error().ToString();
    EXPECT_EQ(*pre, numpy_bytes.substr(0, t.offset)) << name;

    const auto out = std::filesystem::path(::testing::TempDir()) / ("rewrite-" + name);
    const auto data = std::as_bytes(std::span(numpy_bytes.data() + t.offset, t.byte_length));
    auto w = WriteNpyFile(out, t.dtype, t.shape, data);
    ASSERT_TRUE(w.ok()) << w.error().ToString();
    EXPECT_EQ(Slurp(out), numpy_bytes) << name;
    std::filesystem::remove(out);
    ++compared;
  }
  EXPECT_GE(compared, 9);
}

TEST(NpyWriter, RefusesWhatNumpyCannotHold) {
  const uint64_t shape[] = {2};
  auto p = NpyPreamble(DType::kBF16, shape);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(p.error().message().find("bf16"), std::string::npos) << p.error().message();

  const uint64_t huge[] = {uint64_t{1} << 40, uint64_t{1} << 40};
  EXPECT_FALSE(NpyPreamble(DType::kF32, huge).ok());

  const std::byte three[3] = {};
  auto w = WriteNpyFile(std::filesystem::path(::testing::TempDir()) / "short.npy", DType::kF32,
                        shape, three);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().code(), ErrorCode::kInvalidArgument);
}

TEST(NpyWriter, ReportsAnUnwritablePath) {
  const uint64_t shape[] = {1};
  const std::byte four[4] = {};
  auto w = WriteNpyFile(kCorpus / "no-such-dir" / "x.npy", DType::kF32, shape, four);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().code(), ErrorCode::kIo);
  EXPECT_NE(w.error().message().find("no-such-dir"), std::string::npos);
}

}  // namespace
}  // namespace alknet::tensor::convert
