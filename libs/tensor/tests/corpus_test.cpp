// The conformance corpus (docs/metatensor-format.md section 8): files written by an independent
// encoder (corpus/make_corpus.py). Every bad file must be rejected with the rule number its name
// starts with; every good file must pass strict validation with checksums.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "alknet/tensor/tensor.h"

namespace alknet::tensor {
namespace {

std::vector<std::string> CorpusFiles() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(ALKNET_TENSOR_CORPUS)) {
    if (e.path().extension() == ".mtf") names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

ReadOptions Strict() {
  ReadOptions o;
  o.strict_padding = true;
  o.verify_checksums = true;
  return o;
}

class Corpus : public ::testing::TestWithParam<std::string> {};

TEST_P(Corpus, ReaderReportsTheExpectedRule) {
  const std::string name = GetParam();
  const auto path = std::filesystem::path(ALKNET_TENSOR_CORPUS) / name;
  for (Access access : {Access::kMap, Access::kPread}) {
    ReadOptions o = Strict();
    o.access = access;
    auto r = Reader::Open(path, o);
    if (name.rfind("good-", 0) == 0) {
      ASSERT_TRUE(r.ok()) << name << ": " << r.error().ToString();
      for (size_t i = 0; i < r->tensors().size(); ++i) {
        auto t = r->Tensor(i);
        ASSERT_TRUE(t.ok()) << t.error().ToString();
        EXPECT_EQ(t->data.size(), r->tensors()[i].byte_length);
      }
    } else {
      ASSERT_EQ(name[0], 'r');
      const int expected = std::stoi(name.substr(1, 2));
      ASSERT_FALSE(r.ok()) << name << " was accepted";
      EXPECT_EQ(r.error().rule(), expected) << name << ": " << r.error().ToString();
      // The message names the file, so a user knows which input is bad.
      EXPECT_NE(r.error().message().find(name), std::string::npos) << r.error().message();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Files, Corpus, ::testing::ValuesIn(CorpusFiles()), [](const auto& info) {
  std::string n = info.param.substr(0, info.param.size() - 4);
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
});

TEST(CorpusCoverage, EveryRuleHasABadFile) {
  std::vector<bool> seen(37, false);
  for (const auto& n : CorpusFiles()) {
    if (n[0] == 'r') seen[std::stoi(n.substr(1, 2))] = true;
  }
  for (int rule = 1; rule <= 36; ++rule)
    EXPECT_TRUE(seen[rule]) << "no corpus file for rule " << rule;
}

TEST(CorpusContent, GoodBasicHasTheEncodersValues) {
  auto r = Reader::Open(std::filesystem::path(ALKNET_TENSOR_CORPUS) / "good-basic.mtf", Strict());
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  ASSERT_EQ(r->tensors().size(), 2u);
  auto a = r->Find("a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->dtype(), DType::kF32);
  EXPECT_EQ(std::vector<uint64_t>(a->shape().begin(), a->shape().end()),
            (std::vector<uint64_t>{2, 3}));
  for (size_t i = 0; i < a->data.size(); ++i) {
    EXPECT_EQ(static_cast<uint8_t>(a->data[i]), static_cast<uint8_t>(i * 7 + 3));
  }
  const auto* name = r->FindMetadata("name");
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(std::get<std::string>(*name), "tiny");
}

TEST(CorpusContent, MetadataOfEveryTypeAndUnknownTypesSkipped) {
  auto r =
      Reader::Open(std::filesystem::path(ALKNET_TENSOR_CORPUS) / "good-metadata.mtf", Strict());
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->skipped_metadata_count(), 1u);
  EXPECT_EQ(std::get<bool>(*r->FindMetadata("flag")), true);
  EXPECT_EQ(std::get<int64_t>(*r->FindMetadata("i")), -5);
  EXPECT_EQ(std::get<uint64_t>(*r->FindMetadata("u")), uint64_t{1} << 63);
  EXPECT_EQ(std::get<double>(*r->FindMetadata("f")), 0.5);
  EXPECT_EQ(std::get<std::string>(*r->FindMetadata("s")), "h\xc3\xa9llo");
  EXPECT_EQ(std::get<Bytes>(*r->FindMetadata("raw")).size(), 2u);
  EXPECT_EQ(std::get<std::vector<bool>>(*r->FindMetadata("bools")),
            (std::vector<bool>{true, false}));
  EXPECT_EQ(std::get<std::vector<int64_t>>(*r->FindMetadata("ints")),
            (std::vector<int64_t>{-1, 2}));
  EXPECT_EQ(std::get<std::vector<uint64_t>>(*r->FindMetadata("uints")), (std::vector<uint64_t>{7}));
  EXPECT_EQ(std::get<std::vector<double>>(*r->FindMetadata("floats")), (std::vector<double>{1.5}));
  EXPECT_EQ(std::get<std::vector<std::string>>(*r->FindMetadata("strs")),
            (std::vector<std::string>{"x", ""}));
  EXPECT_EQ(r->FindMetadata("future"), nullptr);
}

}  // namespace
}  // namespace alknet::tensor
