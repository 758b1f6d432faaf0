// libFuzzer target: parse any bytes as a template and render it in strict and compat mode
// against a context that has every kind of value. Must never crash, hang or leak; ParseError,
// RenderError are the only acceptable failures.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "alknet/hbs/hbs.h"

namespace {

const alknet::hbs::Value& fuzz_context() {
  static const alknet::hbs::Value ctx = alknet::hbs::parse_json(R"({
    "a": 1, "b": -2.5, "s": "str<&>", "t": true, "f": false, "n": null, "e": "", "z": 0,
    "arr": [1, "x", null, [2, 3], {"k": "v"}], "ea": [], "eo": {},
    "o": {"k": "v", "o": {"k": 2}, "arr": [{"k": 1}, {"k": 2}]},
    "big": 9223372036854775807, "neg": -9223372036854775808, "p": "p"
  })");
  return ctx;
}

void render(std::string_view src, alknet::hbs::Mode mode) {
  alknet::hbs::Registry hbs(mode);
  hbs.set_limits(alknet::hbs::RenderLimits{64, 1 << 20, 20000});
  hbs.set_logger([](int, std::string_view) {});
  try {
    hbs.register_partial("p", "[{{this}}{{> @partial-block}}]");
    hbs.register_partial("q", "{{#each arr}}{{> p}}{{/each}}");
    hbs.register_template_string("t", src);
    // The template is also a partial of itself: recursion must stop at the limits.
    hbs.register_partial("self", src);
    hbs.render("t", fuzz_context());
  } catch (const alknet::hbs::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16384) return 0;
  std::string_view src(reinterpret_cast<const char*>(data), size);
  render(src, alknet::hbs::Mode::kStrict);
  render(src, alknet::hbs::Mode::kCompat);
  return 0;
}
