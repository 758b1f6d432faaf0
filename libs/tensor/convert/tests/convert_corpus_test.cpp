// The foreign-format corpus (corpus/make_corpus.py): files written by numpy, Python's zipfile
// and an independent safetensors writer. expected.txt, written by the same script, says what
// each file holds (tensors with numpy's own bytes) or which error it must raise.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "alknet/tensor/convert/npy.h"
#include "alknet/tensor/convert/npz.h"
#include "alknet/tensor/convert/safetensors.h"

namespace alknet::tensor::convert {
namespace {

const std::filesystem::path kCorpus = ALKNET_CONVERT_CORPUS;

struct ExpectedTensor {
  std::string name, dtype, shape, hex;
};
struct Expected {
  std::string file;
  size_t count = 0;
  std::vector<ExpectedTensor> tensors;
  std::map<std::string, std::string> metadata;
  std::string error_code, error_text;
};

std::map<std::string, Expected> LoadManifest() {
  std::map<std::string, Expected> out;
  std::ifstream f(kCorpus / "expected.txt");
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream s(line);
    std::string kind, file;
    s >> kind >> file;
    Expected& e = out[file];
    e.file = file;
    if (kind == "N") {
      s >> e.count;
    } else if (kind == "T") {
      ExpectedTensor t;
      s >> t.name >> t.dtype >> t.shape >> t.hex;
      e.tensors.push_back(t);
    } else if (kind == "M") {
      std::string k, v;
      s >> k;
      std::getline(s >> std::ws, v);
      e.metadata[k] = v;
    } else if (kind == "E") {
      s >> e.error_code;
      std::getline(s >> std::ws, e.error_text);
    }
  }
  return out;
}

std::vector<std::string> CorpusFiles() {
  std::vector<std::string> names;
  for (const auto& [name, e] : LoadManifest()) names.push_back(name);
  return names;
}

Result<ForeignFile> ReadAny(const ByteSource& src, const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  if (ext == ".npy") return ReadNpy(src, path.stem().string());
  if (ext == ".npz") return ReadNpz(src);
  if (ext == ".safetensors") return ReadSafetensors(src);
  return Error(ErrorCode::kInvalidArgument, "no reader for " + ext);
}

std::string ShapeText(const std::vector<uint64_t>& shape) {
  if (shape.empty()) return "-";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

std::string Hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (unsigned char c : bytes) {
    s += digits[c >> 4];
    s += digits[c & 15];
  }
  return s.empty() ? "-" : s;
}

class ConvertCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(ConvertCorpus, ReaderMatchesTheReference) {
  const Expected e = LoadManifest().at(GetParam());
  const auto path = kCorpus / e.file;
  ASSERT_TRUE(std::filesystem::exists(path)) << path;
  auto file = FileSource::Open(path);
  ASSERT_TRUE(file.ok()) << file.error().ToString();
  std::ifstream in(path, std::ios::binary);
  const std::string whole((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const MemorySource memory(path.string(), std::as_bytes(std::span(whole.data(), whole.size())));

  for (const ByteSource* src :
       {static_cast<const ByteSource*>(file->get()), static_cast<const ByteSource*>(&memory)}) {
    auto r = ReadAny(*src, path);
    if (!e.error_code.empty()) {
      ASSERT_FALSE(r.ok()) << e.file << " was accepted";
      EXPECT_EQ(ErrorCodeName(r.error().code()), e.error_code) << r.error().ToString();
      EXPECT_NE(r.error().message().find(e.error_text), std::string::npos)
          << "message lacks '" << e.error_text << "': " << r.error().message();
      // The message names the file, so a user knows which input is bad.
      EXPECT_NE(r.error().message().find(e.file), std::string::npos) << r.error().message();
      continue;
    }
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    ASSERT_EQ(r->tensors.size(), e.count);
    for (const ExpectedTensor& want : e.tensors) {
      const SourceTensor* got = nullptr;
      for (const auto& t : r->tensors) {
        if (t.name == want.name) got = &t;
      }
      ASSERT_NE(got, nullptr) << "no tensor " << want.name;
      EXPECT_EQ(Info(got->dtype).name, want.dtype) << want.name;
      EXPECT_EQ(ShapeText(got->shape), want.shape) << want.name;
      auto bytes = src->ReadString(got->offset, got->byte_length);
      ASSERT_TRUE(bytes.ok()) << bytes.error().ToString();
      EXPECT_EQ(Hex(*bytes), want.hex) << want.name;
    }
    ASSERT_EQ(r->metadata.size(), e.metadata.size());
    for (const auto& m : r->metadata) EXPECT_EQ(e.metadata.at(m.key), m.value) << m.key;
    for (size_t i = 1; i < r->tensors.size(); ++i) {
      EXPECT_LE(r->tensors[i - 1].offset + r->tensors[i - 1].byte_length, r->tensors[i].offset)
          << "tensors are not in the order of their bytes";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Files, ConvertCorpus, ::testing::ValuesIn(CorpusFiles()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return n;
                         });

TEST(ConvertCorpus, EveryFileIsInTheManifest) {
  const auto manifest = LoadManifest();
  ASSERT_GT(manifest.size(), 90u);
  for (const auto& e : std::filesystem::directory_iterator(kCorpus)) {
    const std::string name = e.path().filename().string();
    if (name == "expected.txt" || name == "make_corpus.py") continue;
    EXPECT_TRUE(manifest.count(name)) << name << " is not in expected.txt";
  }
}

}  // namespace
}  // namespace alknet::tensor::convert
