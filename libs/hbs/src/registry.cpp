#include "alknet/hbs/registry.h"

#include <cstdio>
#include <new>
#include <stdexcept>

#include "registry_impl.h"

namespace alknet::hbs {

namespace detail {
namespace {

class TemplateBinder {
 public:
  TemplateBinder(const StringMap<HelperEntry>& helpers,
                 const StringMap<std::unique_ptr<Template>>& templates)
      : helpers_(helpers), templates_(templates) {}

  void program(Program& p) {
    for (Statement& s : p.body) {
      if (s.type == Statement::Type::kPartial || s.type == Statement::Type::kPartialBlock) {
        partial(s.call);
        if (s.program) program(*s.program);
        continue;
      }
      call(s.call);
      if (s.program) program(*s.program);
      if (s.inverse) program(*s.inverse);
    }
    p.ops.clear();
    for (const Statement& s : p.body) {
      Op op;
      op.kind = Op::Kind::kStatement;
      op.escaped = s.escaped;
      op.statement = &s;
      if (s.type == Statement::Type::kContent) {
        op.kind = Op::Kind::kText;
        op.text = s.value;
      } else if (s.type == Statement::Type::kMustache && !s.call.helper &&
                 s.call.kind != CallKind::kHelper) {
        op.kind = Op::Kind::kLookup;
      } else if (s.type == Statement::Type::kComment ||
                 s.type == Statement::Type::kDecoratorBlock) {
        continue;
      }
      p.ops.push_back(op);
    }
    // Fuse text + lookup pairs.
    std::vector<Op> fused;
    for (std::size_t i = 0; i < p.ops.size(); ++i) {
      if (p.ops[i].kind == Op::Kind::kText && i + 1 < p.ops.size() &&
          p.ops[i + 1].kind == Op::Kind::kLookup) {
        Op op = p.ops[i + 1];
        op.kind = Op::Kind::kTextLookup;
        op.text = p.ops[i].text;
        fused.push_back(op);
        ++i;
      } else {
        fused.push_back(p.ops[i]);
      }
    }
    p.ops = std::move(fused);
    // Runs of pieces joined by `+`; the ones between two statements are grouped (see Op).
    // handlebars.js compiles every piece to an inline expression except a block whose name could
    // be a helper or a value (`{{#name}}`, no arguments): that one becomes statements.
    auto is_block = [](const Op& op) {
      return op.kind == Op::Kind::kStatement && op.statement->type == Statement::Type::kBlock &&
             op.statement->call.kind == CallKind::kAmbiguous;
    };
    p.js_starts_with_block = !p.ops.empty() && is_block(p.ops.front());
    for (std::size_t i = 0; i < p.ops.size();) {
      if (is_block(p.ops[i])) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < p.ops.size() && !is_block(p.ops[j])) ++j;
      if (i > 0 && j < p.ops.size()) {
        p.ops[i].js_group_open = true;
        p.ops[j - 1].js_group_close = true;
      }
      i = j;
    }
  }

 private:
  void expr(Expr* e) {
    if (e && e->type == Expr::Type::kSubExpr) call(*e->call);
  }
  void partial(Call& c) {
    expr(c.path.get());
    for (auto& p : c.params) expr(p.get());
    for (auto& h : c.hash) expr(h.value.get());
    c.partial = nullptr;
    if (c.path->type == Expr::Type::kSubExpr) return;
    auto it = templates_.find(c.path->original);
    if (it != templates_.end()) c.partial = it->second.get();
  }
  void call(Call& c) {
    if (!c.path) return;
    expr(c.path.get());
    for (auto& p : c.params) expr(p.get());
    for (auto& h : c.hash) expr(h.value.get());
    c.helper = nullptr;
    const Expr& p = *c.path;
    if (c.kind == CallKind::kSimple || p.type != Expr::Type::kPath || p.parts.size() != 1 ||
        p.depth != 0 || p.scoped)
      return;
    auto it = helpers_.find(p.parts[0]);
    if (it != helpers_.end()) c.helper = &it->second;
  }
  const StringMap<HelperEntry>& helpers_;
  const StringMap<std::unique_ptr<Template>>& templates_;
};

}  // namespace

void bind_template(Template& tpl, const StringMap<HelperEntry>& helpers,
                   const StringMap<std::unique_ptr<Template>>& templates) {
  TemplateBinder(helpers, templates).program(tpl.root);
}

}  // namespace detail

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

namespace {

void check_template_size(const RenderLimits& limits, std::string_view source,
                         const std::string& name) {
  if (source.size() > limits.max_template_bytes) {
    throw ParseError(
        "template of " + std::to_string(source.size()) + " bytes is over the limit of " +
            std::to_string(limits.max_template_bytes) + " (RenderLimits::max_template_bytes)",
        name, 1, 1);
  }
}

// An allocation that fails deep inside a render (a value too large for the machine) ends the
// render like any other limit, not the process.
template <typename F>
void guard_memory(F&& render, std::string_view name) {
  try {
    render();
  } catch (const std::bad_alloc&) {
    throw RenderError("out of memory while rendering", std::string(name), 1, 1);
  } catch (const std::length_error&) {
    throw RenderError("a value grew past the largest possible string", std::string(name), 1, 1);
  }
}

}  // namespace

void Registry::register_template_string(std::string name, std::string_view source,
                                        std::string source_name) {
  if (source_name.empty()) source_name = name;
  check_template_size(impl_->limits, source, source_name);
  auto tpl = detail::parse_template(source, std::move(source_name));
  impl_->templates.insert_or_assign(std::move(name), std::move(tpl));
  // Partial calls everywhere may now resolve to the new (or replaced) template.
  rebind();
}

void Registry::rebind() {
  for (auto& entry : impl_->templates)
    detail::bind_template(*entry.second, impl_->helpers, impl_->templates);
}

bool Registry::has_template(std::string_view name) const {
  return impl_->templates.find(name) != impl_->templates.end();
}

void Registry::register_helper(std::string name, Helper helper, bool lenient_args) {
  detail::HelperEntry e;
  e.fn = std::move(helper);
  e.lenient_args = lenient_args;
  bool is_new = impl_->helpers.find(name) == impl_->helpers.end();
  impl_->helpers.insert_or_assign(std::move(name), std::move(e));
  // A new name may turn `{{name}}` in an existing template from a lookup into a helper call.
  if (is_new) rebind();
}

void Registry::render_to(std::string& out, std::string_view name, const Value& context) const {
  auto it = impl_->templates.find(name);
  if (it == impl_->templates.end())
    throw RenderError("template '" + std::string(name) + "' is not registered", std::string(name),
                      1, 1);
  guard_memory([&] { detail::render_template(*impl_, *it->second, context, out); }, name);
}

std::string Registry::render(std::string_view name, const Value& context) const {
  std::string out;
  render_to(out, name, context);
  return out;
}

std::string Registry::render_template(std::string_view source, const Value& context) const {
  check_template_size(impl_->limits, source, "<inline>");
  auto tpl = detail::parse_template(source, "<inline>");
  detail::bind_template(*tpl, impl_->helpers, impl_->templates);
  std::string out;
  guard_memory([&] { detail::render_template(*impl_, *tpl, context, out); }, "<inline>");
  return out;
}

}  // namespace alknet::hbs
