// Runs the fuzz target without libFuzzer (the CI smoke run, and a way to replay a crash file in
// the default build): each seed file, then a bounded number of seeded mutations of it (byte
// flips and stores, JSON punctuation inserted, truncations). The long sanitizer run is the
// fuzz_json target of preset "fuzz".
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s SEED_DIR_OR_FILE MUTATIONS_PER_SEED\n", argv[0]);
    return 2;
  }
  const int mutations = std::atoi(argv[2]);
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(argv[1])) {
    for (const auto& e : std::filesystem::directory_iterator(argv[1])) files.push_back(e.path());
  } else {
    files.emplace_back(argv[1]);
  }
  if (files.empty()) {
    std::fprintf(stderr, "no seeds in %s\n", argv[1]);
    return 1;
  }
  static constexpr char kPunctuation[] = "{}[]\",:\\-+.eE0123456789tfnu \n";
  std::mt19937_64 rng(20240611);
  std::size_t runs = 0;
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    const std::string seed((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(seed.data()), seed.size());
    ++runs;
    for (int m = 0; m < mutations; ++m) {
      std::string s = seed;
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < edits; ++k) {
        const std::size_t at = s.empty() ? 0 : rng() % s.size();
        switch (rng() % 5) {
          case 0:
            if (!s.empty()) s[at] = static_cast<char>(s[at] ^ (1 << (rng() % 8)));
            break;
          case 1:
            if (!s.empty()) s[at] = static_cast<char>(rng());
            break;
          case 2: s.insert(at, 1, kPunctuation[rng() % (sizeof kPunctuation - 1)]); break;
          case 3:
            if (!s.empty()) s.erase(at, 1);
            break;
          case 4: s.resize(at); break;
        }
      }
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
      ++runs;
    }
  }
  std::printf("%zu inputs from %zu seeds: no crash, every value round-trips\n", runs, files.size());
  return 0;
}
