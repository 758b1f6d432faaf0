// libFuzzer target (preset "fuzz"): import-map parsing (alknet/base/json.h, fuzzed on its own
// in libs/base/fuzz, plus the import-map validation on top). Must never crash; every rejection
// names the file.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "alknet/runtime/module_resolver.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto map = alknet::runtime::ImportMap::Parse(text, "/fuzz/map.json");
  if (!map && map.error().message.rfind("/fuzz/map.json", 0) != 0) std::abort();
  return 0;
}
