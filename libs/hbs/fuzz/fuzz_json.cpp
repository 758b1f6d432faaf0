// libFuzzer target: the JSON reader behind `--data` and the conformance corpus.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "alknet/hbs/value.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    alknet::hbs::Value v =
        alknet::hbs::parse_json(std::string_view(reinterpret_cast<const char*>(data), size));
    // Serialising and re-reading must round-trip.
    alknet::hbs::Value again = alknet::hbs::parse_json(v.to_json());
    if (!(again == v) && v.to_json() != again.to_json()) __builtin_trap();
  } catch (const alknet::hbs::JsonError&) {
  }
  return 0;
}
