// alknet-hbs: Handlebars 4 for code generation.
//
//   alknet::hbs::Registry hbs;                       // strict, no HTML escaping
//   hbs.register_template_string("gemm", source);    // parsed once (throws ParseError)
//   std::string wgsl = hbs.render("gemm", context);  // rendered many times (throws RenderError)
//
// Registry::compat() behaves like handlebars.js defaults: HTML escaping, lenient lookups.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "alknet/hbs/error.h"
#include "alknet/hbs/value.h"

namespace alknet::hbs {

namespace detail {
class Renderer;
struct Scope;
struct Call;
struct Statement;
}  // namespace detail

// What a helper receives: handlebars.js's arguments plus `options`.
class HelperCall {
 public:
  std::string_view name() const { return name_; }
  std::size_t param_count() const { return param_count_; }
  // The i-th positional argument; undefined past the end.
  const Value& param(std::size_t i) const;
  // A hash argument (`name=value`), or nullptr.
  const Value* hash(std::string_view key) const;
  std::size_t hash_count() const { return hash_count_; }
  std::pair<std::string_view, const Value*> hash_entry(std::size_t i) const { return hash_[i]; }
  // The context the helper was called in (`this` in handlebars.js).
  const Value& context() const;
  // True for `{{#name}}...{{/name}}`; then fn/inverse render the block's two branches.
  bool is_block() const { return stmt_ != nullptr; }
  std::string fn(const Value& context) const;
  std::string fn() const { return fn(context()); }
  std::string inverse(const Value& context) const;
  std::string inverse() const { return inverse(context()); }
  bool strict() const;
  // Throws a RenderError that names the template, line and column of this call.
  [[noreturn]] void fail(const std::string& message) const;
  // A helper that loops or builds large values charges its work here: `steps` count against
  // RenderLimits::max_steps, and a value of `bytes` must fit RenderLimits::max_output. Both
  // throw the RenderError of fail() when over.
  void charge(std::uint64_t steps) const;
  void check_size(std::size_t bytes) const;

 private:
  friend class detail::Renderer;
  HelperCall() = default;
  const detail::Renderer* renderer_ = nullptr;
  const detail::Scope* scope_ = nullptr;
  const detail::Statement* stmt_ = nullptr;  // the block, or nullptr
  const void* loc_ = nullptr;                // detail::Loc of the call
  std::string_view name_;
  const Value* const* params_ = nullptr;
  std::size_t param_count_ = 0;
  const std::pair<std::string_view, const Value*>* hash_ = nullptr;
  std::size_t hash_count_ = 0;
};

// A helper returns the value to insert: for `{{name ...}}` it is escaped in compat mode, for a
// block it is inserted as text. Throw via call.fail(...) to report a bad argument.
using Helper = std::function<Value(const HelperCall& call)>;

enum class Mode {
  kStrict,  // code generation: no escaping; a missing variable, helper or partial is an error
  kCompat,  // handlebars.js defaults: HTML escaping, a missing variable renders as ""
};

// What one render (or one template) may cost; each is checked as the work happens, so a
// hostile template fails with a RenderError/ParseError in bounded time and memory.
struct RenderLimits {
  int max_depth = 512;                            // nested blocks and partials
  std::size_t max_output = std::size_t{1} << 28;  // bytes, also any one helper's string
  // Statements executed plus every loop iteration (an empty {{#each}} body counts too) and
  // the items helpers build (range: 4 per item, join: 1 per item). Well over what any code
  // generator needs; about a second of work.
  std::uint64_t max_steps = 1ull << 24;
  // Template source, checked before parsing: the parsed tree takes ~100x the text.
  std::size_t max_template_bytes = std::size_t{1} << 20;
};

class Registry {
 public:
  explicit Registry(Mode mode = Mode::kStrict);
  static Registry compat() { return Registry(Mode::kCompat); }
  ~Registry();
  Registry(Registry&&) noexcept;
  Registry& operator=(Registry&&) noexcept;

  bool strict() const;
  bool escape_html() const;
  void set_strict(bool strict);
  void set_escape_html(bool escape);
  void set_limits(const RenderLimits& limits);
  // Receives {{log ...}} output; the default writes to stderr.
  void set_logger(std::function<void(int level, std::string_view message)> logger);

  // Parses and stores a template; it also serves as a partial of that name. `source_name`
  // names it in error messages (default: name). Throws ParseError.
  void register_template_string(std::string name, std::string_view source,
                                std::string source_name = {});
  void register_partial(std::string name, std::string_view source) {
    register_template_string(std::move(name), source);
  }
  // Files embedded by CMake's alknet_embed_files(): each registers under its relative path
  // without the ".hbs" suffix ("pool/conv.wgsl.hbs" -> "pool/conv.wgsl").
  template <typename EmbeddedFile>
  void register_embedded(const EmbeddedFile* files, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      std::string path(files[i].name);
      std::string name = path;
      if (name.size() > 4 && name.compare(name.size() - 4, 4, ".hbs") == 0)
        name.resize(name.size() - 4);
      register_template_string(std::move(name), files[i].contents, std::move(path));
    }
  }
  bool has_template(std::string_view name) const;

  // `lenient_args`: in strict mode, a missing variable passed straight to this helper arrives as
  // undefined instead of failing the render (what `default` needs).
  void register_helper(std::string name, Helper helper, bool lenient_args = false);

  // Throws RenderError (unknown template, missing variable/helper/partial, helper failure).
  std::string render(std::string_view name, const Value& context) const;
  void render_to(std::string& out, std::string_view name, const Value& context) const;
  // Parses and renders a one-off template named "<inline>".
  std::string render_template(std::string_view source, const Value& context) const;

  struct Impl;

 private:
  void rebind();
  std::unique_ptr<Impl> impl_;
};

}  // namespace alknet::hbs
