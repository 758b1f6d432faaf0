// CI smoke run of fuzz_model.cpp without libFuzzer (ctest onnx_fuzz_replay): each seed model,
// every prefix of it (truncated protobuf), then seeded random mutations (bit flips, byte
// stores, truncations). Also replays a crash file found by the libFuzzer build:
//   onnx_fuzz_replay [--mutations N] FILE_OR_DIR...
// With ALKNET_FUZZ_LAST=FILE, each mutated input is written to FILE before it runs.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::uint8_t> ReadFile(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  long mutations = 200;
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--mutations" && i + 1 < argc) {
      char* end = nullptr;
      mutations = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || mutations < 0) {
        std::fprintf(stderr, "onnx_fuzz_replay: --mutations needs a non-negative integer\n");
        return 2;
      }
    } else if (std::filesystem::is_directory(a)) {
      for (const auto& e : std::filesystem::directory_iterator(a)) files.push_back(e.path());
    } else if (std::filesystem::is_regular_file(a)) {
      files.emplace_back(a);
    } else {
      std::fprintf(stderr, "onnx_fuzz_replay: no such file or folder: %s\n", argv[i]);
      return 2;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: onnx_fuzz_replay [--mutations N] FILE_OR_DIR...\n");
    return 2;
  }
  // ALKNET_FUZZ_LAST=FILE: keep the mutated input being run in FILE.
  const char* last = std::getenv("ALKNET_FUZZ_LAST");
  std::mt19937_64 rng(20261203);
  std::size_t runs = 0;
  for (const auto& path : files) {
    const std::vector<std::uint8_t> seed = ReadFile(path);
    for (std::size_t n = 0; n <= seed.size(); ++n) {
      LLVMFuzzerTestOneInput(seed.data(), n);
      ++runs;
    }
    for (long m = 0; m < mutations; ++m) {
      std::vector<std::uint8_t> v = seed;
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < edits && !v.empty(); ++k) {
        const std::size_t at = rng() % v.size();
        switch (rng() % 3) {
          case 0: v[at] ^= static_cast<std::uint8_t>(1u << (rng() % 8)); break;
          case 1: v[at] = static_cast<std::uint8_t>(rng()); break;
          case 2: v.resize(at); break;
        }
      }
      if (last != nullptr) {
        // Each input is written before it runs: after a crash, the file is the culprit.
        std::ofstream(last, std::ios::binary | std::ios::trunc)
            .write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size()));
      }
      LLVMFuzzerTestOneInput(v.data(), v.size());
      ++runs;
    }
  }
  std::printf("onnx_fuzz_replay: %zu files, %zu inputs, no crash\n", files.size(), runs);
  return 0;
}
