// CI smoke run of a fuzz target without libFuzzer: every corpus file with the target's
// extension, then seeded random mutations of each (bit flips, truncations, byte stores).
// Linked with libs/tensor/fuzz/fuzz_reader.cpp (.mtf, the long sanitizer run is
// tools/fuzz-tensor) and with each target of libs/tensor/convert/fuzz/.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: fuzz_replay CORPUS_DIR MUTATIONS_PER_FILE [EXTENSION (.mtf)]\n");
    return 2;
  }
  const int mutations = std::atoi(argv[2]);
  const std::string extension = argc == 4 ? argv[3] : ".mtf";
  std::mt19937_64 rng(12345);
  size_t runs = 0;
  for (const auto& e : std::filesystem::directory_iterator(argv[1])) {
    if (e.path().extension() != extension) continue;
    std::ifstream f(e.path(), std::ios::binary);
    const std::vector<uint8_t> seed((std::istreambuf_iterator<char>(f)),
                                    std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(seed.data(), seed.size());
    ++runs;
    for (int m = 0; m < mutations; ++m) {
      std::vector<uint8_t> v = seed;
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < edits && !v.empty(); ++k) {
        const size_t at = rng() % v.size();
        switch (rng() % 3) {
          case 0: v[at] ^= static_cast<uint8_t>(1u << (rng() % 8)); break;
          case 1: v[at] = static_cast<uint8_t>(rng()); break;
          case 2: v.resize(at); break;
        }
      }
      LLVMFuzzerTestOneInput(v.data(), v.size());
      ++runs;
    }
  }
  if (runs == 0) {
    std::fprintf(stderr, "fuzz_replay: no %s file in %s\n", extension.c_str(), argv[1]);
    return 1;
  }
  std::printf("fuzz_replay: %zu inputs, no crash\n", runs);
  return 0;
}
