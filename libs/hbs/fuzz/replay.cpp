// Runs a fuzz target's entry point over files given on the command line (no libFuzzer needed),
// plus every prefix of each file: the cheap ctest smoke run of the fuzz targets, and a way to
// replay a crash file in the default build.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  std::size_t runs = 0;
  for (int i = 1; i < argc; ++i) {
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(argv[i])) {
      for (const auto& e : std::filesystem::directory_iterator(argv[i])) files.push_back(e.path());
    } else {
      files.emplace_back(argv[i]);
    }
    for (const auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      const std::string s = ss.str();
      for (std::size_t n = 0; n <= s.size(); ++n) {
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(s.data()), n);
        ++runs;
      }
    }
  }
  std::printf("%zu inputs ran clean\n", runs);
  return 0;
}
