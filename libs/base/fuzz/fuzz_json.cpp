// libFuzzer target for alknet::base::json: any bytes must parse to a value or an error with a
// position inside the text, never crash; and a value must survive write -> parse -> write
// unchanged, compact and indented.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "alknet/base/json.h"

namespace json = alknet::base::json;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (auto duplicates : {json::DuplicateKeys::kError, json::DuplicateKeys::kLastWins}) {
    auto v = json::Parse(text, {.max_depth = 64, .duplicate_keys = duplicates});
    if (!v.ok()) {
      const json::ParseError& e = v.error();
      if (e.offset > size || e.line == 0 || e.column == 0 || e.message.empty()) std::abort();
      continue;
    }
    for (int indent : {0, 2}) {
      const std::string written = json::Write(*v, {.indent = indent});
      auto again = json::Parse(written, {.max_depth = 64});
      if (!again.ok() || !(*again == *v)) std::abort();
      if (json::Write(*again, {.indent = indent}) != written) std::abort();
    }
  }
  return 0;
}
