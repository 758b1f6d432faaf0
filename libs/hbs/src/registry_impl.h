// Registry internals shared by registry.cpp, render.cpp and helpers.cpp.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "alknet/hbs/registry.h"
#include "ast.h"

namespace alknet::hbs {

namespace detail {

// Helpers that need the renderer's internals (block rendering, data frames) are native.
enum class NativeHelper {
  kNone,  // an ordinary Helper function
  kIf,
  kUnless,
  kEach,
  kWith,
  kLookup,
  kLog,
  kTimes,
};

struct HelperEntry {
  NativeHelper native = NativeHelper::kNone;
  Helper fn;
  bool lenient_args = false;
};

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

template <typename T>
using StringMap = std::unordered_map<std::string, T, StringHash, std::equal_to<>>;

void register_builtin_helpers(Registry::Impl& impl);

// Prepares tpl for rendering against the registry's current helpers and templates: points every
// call site at the helper of its name and every static partial call at the template of its name
// (or nullptr), and builds each program's op list. Rerun whenever either set changes.
void bind_template(Template& tpl, const StringMap<HelperEntry>& helpers,
                   const StringMap<std::unique_ptr<Template>>& templates);

}  // namespace detail

struct Registry::Impl {
  bool strict = true;
  bool escape_html = false;
  RenderLimits limits;
  detail::StringMap<std::unique_ptr<detail::Template>> templates;
  detail::StringMap<detail::HelperEntry> helpers;
  std::function<void(int, std::string_view)> logger;
};

namespace detail {
// Renders tpl with context into out (render.cpp).
void render_template(const Registry::Impl& impl, const Template& tpl, const Value& context,
                     std::string& out);
}  // namespace detail

}  // namespace alknet::hbs
