// libFuzzer target (preset "fuzz"): the JSON reader behind import maps and package.json, and
// the import-map validation on top of it. Must never crash; every rejection names line:col.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "alknet/runtime/module_resolver.h"
#include "json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = alknet::runtime::json::Parse(text, "fuzz.json");
  if (!doc && doc.error().message.rfind("fuzz.json:", 0) != 0) std::abort();
  (void)alknet::runtime::ImportMap::Parse(text, "/fuzz/map.json");
  return 0;
}
