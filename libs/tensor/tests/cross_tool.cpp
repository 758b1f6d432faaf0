// Cross-implementation checks with the Rust crate (bindings/rust, src/bin/mtf-cross.rs):
//   mtf_cross write DIR     writes cpp-after.mtf, cpp-before.mtf, cpp-trailer.mtf
//   mtf_cross read FILE...  checks each file holds the cross-test content: one tensor per dtype
//                           named after it, shape [2, 3, 64], byte i of tensor k equal to
//                           (31 i + 17 k + 7) mod 251, and the metadata below.
// Each side generates the expected content itself; neither reads the other's source.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "alknet/tensor/tensor.h"

using namespace alknet::tensor;

namespace {

std::vector<std::byte> Content(size_t k, uint64_t n) {
  std::vector<std::byte> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 31 + k * 17 + 7) % 251);
  return v;
}

const std::vector<uint64_t> kShape{2, 3, 64};

std::vector<MetadataEntry> Metadata() {
  return {
      {"s", std::string("h\xc3\xa9llo")},
      {"i", int64_t{-3}},
      {"u", UINT64_MAX},
      {"f", 0.25},
      {"b", true},
      {"raw", Bytes{std::byte{0}, std::byte{1}, std::byte{2}, std::byte{255}}},
      {"ab", std::vector<bool>{true, false}},
      {"ai", std::vector<int64_t>{1, -2}},
      {"au", std::vector<uint64_t>{5}},
      {"af", std::vector<double>{1.5, -0.5}},
      {"as", std::vector<std::string>{"x", "yz"}},
  };
}

int Write(const std::filesystem::path& dir) {
  struct Variant {
    const char* file;
    IndexPlacement placement;
    bool trailer;
  };
  for (const Variant& v : {Variant{"cpp-after.mtf", IndexPlacement::kAfterData, false},
                           Variant{"cpp-before.mtf", IndexPlacement::kBeforeData, false},
                           Variant{"cpp-trailer.mtf", IndexPlacement::kAfterData, true}}) {
    WriteOptions o;
    o.placement = v.placement;
    o.force_trailer = v.trailer;
    auto fw = FileWriter::Create(dir / v.file, o);
    if (!fw) {
      std::fprintf(stderr, "mtf_cross: %s\n", fw.error().ToString().c_str());
      return 1;
    }
    Writer& w = (*fw)->writer();
    Status s;
    for (auto& e : Metadata()) {
      if (s.ok()) s = w.SetMetadata(e.key, e.value);
    }
    const auto dtypes = AllDTypes();
    if (v.placement == IndexPlacement::kBeforeData) {
      for (size_t k = 0; k < dtypes.size() && s.ok(); ++k) {
        const auto bytes = Content(k, *ByteLength(dtypes[k].dtype, kShape));
        s = w.Declare(dtypes[k].name, dtypes[k].dtype, kShape, Crc32c(bytes));
      }
    }
    for (size_t k = 0; k < dtypes.size() && s.ok(); ++k) {
      s = w.AddTensor(dtypes[k].name, dtypes[k].dtype, kShape,
                      Content(k, *ByteLength(dtypes[k].dtype, kShape)));
    }
    if (s.ok()) s = (*fw)->Commit();
    if (!s.ok()) {
      std::fprintf(stderr, "mtf_cross: %s: %s\n", v.file, s.error().ToString().c_str());
      return 1;
    }
  }
  std::printf("mtf_cross: wrote cpp-after.mtf, cpp-before.mtf, cpp-trailer.mtf\n");
  return 0;
}

int Check(const char* path) {
  ReadOptions o;
  o.strict_padding = true;
  o.verify_checksums = true;
  auto r = Reader::Open(path, o);
  if (!r) {
    std::fprintf(stderr, "mtf_cross: %s\n", r.error().ToString().c_str());
    return 1;
  }
  const auto dtypes = AllDTypes();
  if (r->tensors().size() != dtypes.size()) {
    std::fprintf(stderr, "mtf_cross: %s: %zu tensors, want %zu\n", path, r->tensors().size(),
                 dtypes.size());
    return 1;
  }
  for (size_t k = 0; k < dtypes.size(); ++k) {
    auto t = r->Find(dtypes[k].name);
    const auto want = Content(k, *ByteLength(dtypes[k].dtype, kShape));
    if (!t || t->dtype() != dtypes[k].dtype ||
        std::vector<uint64_t>(t->shape().begin(), t->shape().end()) != kShape ||
        !std::equal(t->data.begin(), t->data.end(), want.begin(), want.end())) {
      std::fprintf(stderr, "mtf_cross: %s: tensor '%s' is missing or differs\n", path,
                   std::string(dtypes[k].name).c_str());
      return 1;
    }
  }
  for (const auto& e : Metadata()) {
    const MetadataValue* got = r->FindMetadata(e.key);
    if (got == nullptr || !(*got == e.value)) {
      std::fprintf(stderr, "mtf_cross: %s: metadata '%s' is missing or differs\n", path,
                   e.key.c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "write") == 0) return Write(argv[2]);
  if (argc >= 3 && std::strcmp(argv[1], "read") == 0) {
    for (int i = 2; i < argc; ++i) {
      if (Check(argv[i]) != 0) return 1;
    }
    std::printf("mtf_cross: %d file(s) match the cross-test content\n", argc - 2);
    return 0;
  }
  std::fprintf(stderr, "usage: mtf_cross write DIR | read FILE...\n");
  return 2;
}
