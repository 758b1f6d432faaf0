#include "alknet/hbs/registry.h"

#include <cstdio>

#include "registry_impl.h"

namespace alknet::hbs {

Error::Error(std::string message, std::string template_name, int line, int column)
    : std::runtime_error(message + " at " + template_name + ":" + std::to_string(line) + ":" +
                         std::to_string(column)),
      message_(std::move(message)),
      template_name_(std::move(template_name)),
      line_(line),
      column_(column) {}

Registry::Registry(Mode mode) : impl_(std::make_unique<Impl>()) {
  impl_->strict = mode == Mode::kStrict;
  impl_->escape_html = mode == Mode::kCompat;
  impl_->logger = [](int level, std::string_view message) {
    static const char* const kLevels[] = {"debug", "info", "warn", "error"};
    const char* l = level >= 0 && level <= 3 ? kLevels[level] : "log";
    std::fprintf(stderr, "hbs %s: %.*s\n", l, static_cast<int>(message.size()), message.data());
  };
  detail::register_builtin_helpers(*impl_);
}

Registry::~Registry() = default;
Registry::Registry(Registry&&) noexcept = default;
Registry& Registry::operator=(Registry&&) noexcept = default;

bool Registry::strict() const { return impl_->strict; }
bool Registry::escape_html() const { return impl_->escape_html; }
void Registry::set_strict(bool strict) { impl_->strict = strict; }
void Registry::set_escape_html(bool escape) { impl_->escape_html = escape; }
void Registry::set_limits(const RenderLimits& limits) { impl_->limits = limits; }
void Registry::set_logger(std::function<void(int, std::string_view)> logger) {
  impl_->logger = std::move(logger);
}

void Registry::register_template_string(std::string name, std::string_view source,
                                        std::string source_name) {
  if (source_name.empty()) source_name = name;
  auto tpl = detail::parse_template(source, std::move(source_name));
  impl_->templates.insert_or_assign(std::move(name), std::move(tpl));
}

bool Registry::has_template(std::string_view name) const {
  return impl_->templates.find(name) != impl_->templates.end();
}

void Registry::register_helper(std::string name, Helper helper, bool lenient_args) {
  detail::HelperEntry e;
  e.fn = std::move(helper);
  e.lenient_args = lenient_args;
  impl_->helpers.insert_or_assign(std::move(name), std::move(e));
}

void Registry::render_to(std::string& out, std::string_view name, const Value& context) const {
  auto it = impl_->templates.find(name);
  if (it == impl_->templates.end())
    throw RenderError("template '" + std::string(name) + "' is not registered", std::string(name),
                      1, 1);
  detail::render_template(*impl_, *it->second, context, out);
}

std::string Registry::render(std::string_view name, const Value& context) const {
  std::string out;
  render_to(out, name, context);
  return out;
}

std::string Registry::render_template(std::string_view source, const Value& context) const {
  auto tpl = detail::parse_template(source, "<inline>");
  std::string out;
  detail::render_template(*impl_, *tpl, context, out);
  return out;
}

}  // namespace alknet::hbs
