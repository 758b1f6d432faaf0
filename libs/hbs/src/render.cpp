// The tree-walking renderer. Runtime semantics follow handlebars.js lib/handlebars/runtime.js
// (wrapProgram's depth stack, createFrame data frames, invokePartial and partial blocks) and the
// built-in helpers of lib/handlebars/helpers/. Output goes straight into one string; frames for
// depths, block params, data and inline partials are linked lists on the C++ stack, so capturing
// a scope (for {{> @partial-block}}) is a copy of six pointers.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "alknet/hbs/error.h"
#include "registry_impl.h"

namespace alknet::hbs::detail {

namespace {
const Value kUndefined;
}  // namespace

struct DepthNode {
  const Value* ctx;
  const DepthNode* parent;
};

struct ParamFrame {
  const Value* const* values;
  std::size_t count;
  const ParamFrame* parent;
};

struct PartialBlockClosure;

// handlebars.js data frame (`@root`, `@index`, ...). A field lives in the frame that set it;
// lookups walk to the nearest one, which equals createFrame's copy-on-create.
struct DataFrame {
  const DataFrame* parent = nullptr;
  const Value* root = nullptr;
  bool has_iteration = false;
  Value index, key, first, last;
  bool has_partial_block = false;
  const PartialBlockClosure* partial_block = nullptr;
};

struct InlineFrame {
  const Program* program;
  const Template* tpl;
  const InlineFrame* parent;
};

struct Scope {
  const Value* self;
  const DepthNode* depths;
  const ParamFrame* params;
  const DataFrame* data;
  const InlineFrame* inlines;
  const Template* tpl;
};

struct PartialBlockClosure {
  const Program* program;
  Scope captured;
  const PartialBlockClosure* outer;  // the @partial-block visible where the block was written
};

namespace {

// JavaScript `a != b` as wrapProgram uses it to decide whether a context is new.
double js_to_number(const Value& v, bool& ok) {
  ok = true;
  switch (v.kind()) {
    case Value::Kind::kBool: return v.as_bool() ? 1 : 0;
    case Value::Kind::kInt:
    case Value::Kind::kDouble: return v.as_number();
    case Value::Kind::kString: {
      const std::string& s = v.as_string();
      std::size_t b = s.find_first_not_of(" \t\n\r\v\f");
      if (b == std::string::npos) return 0;
      std::size_t e = s.find_last_not_of(" \t\n\r\v\f");
      std::string t = s.substr(b, e - b + 1);
      char* end = nullptr;
      double d = std::strtod(t.c_str(), &end);
      if (end != t.c_str() + t.size()) return std::nan("");
      return d;
    }
    default: ok = false; return 0;
  }
}

bool loosely_equal(const Value& a, const Value& b) {
  if (&a == &b) return true;
  if (a.is_nullish() || b.is_nullish()) return a.is_nullish() && b.is_nullish();
  if (a.is_array() || a.is_object() || b.is_array() || b.is_object()) return false;
  if (a.is_string() && b.is_string()) return a.as_string() == b.as_string();
  bool oka, okb;
  double x = js_to_number(a, oka), y = js_to_number(b, okb);
  return oka && okb && x == y;
}

bool is_empty(const Value& v) {  // utils.js isEmpty
  if (!v.truthy() && !(v.is_number() && v.as_number() == 0)) return true;
  return v.is_array() && v.as_array().empty();
}

// A canonical array index ("0", "17"; not "01" or "-1").
bool array_index(std::string_view key, std::size_t& index) {
  if (key.empty() || key.size() > 10 || (key.size() > 1 && key[0] == '0')) return false;
  std::uint64_t v = 0;
  for (char c : key) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (v >= 4294967295ull) return false;
  index = static_cast<std::size_t>(v);
  return true;
}

std::size_t utf16_length(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) n += c >= 0xF0 ? 2 : 1;
  }
  return n;
}

// lookupProperty: own properties only (no prototype access).
const Value* get_property(const Value& parent, std::string_view key, Value& scratch) {
  switch (parent.kind()) {
    case Value::Kind::kObject:
      return parent.as_object().find(key);
    case Value::Kind::kArray: {
      const Array& a = parent.as_array();
      if (key == "length") {
        Value n(static_cast<std::int64_t>(a.size()));
        scratch = std::move(n);
        return &scratch;
      }
      std::size_t i;
      if (array_index(key, i) && i < a.size()) return &a[i];
      return nullptr;
    }
    case Value::Kind::kString: {
      const std::string& s = parent.as_string();
      if (key == "length") {
        Value n(static_cast<std::int64_t>(utf16_length(s)));
        scratch = std::move(n);
        return &scratch;
      }
      std::size_t i;
      if (array_index(key, i) && i < s.size()) {
        Value c(std::string(1, s[i]));
        scratch = std::move(c);
        return &scratch;
      }
      return nullptr;
    }
    default:
      return nullptr;
  }
}

void escape_html_into(std::string& out, std::string_view s) {
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char* rep = nullptr;
    switch (s[i]) {
      case '&': rep = "&amp;"; break;
      case '<': rep = "&lt;"; break;
      case '>': rep = "&gt;"; break;
      case '"': rep = "&quot;"; break;
      case '\'': rep = "&#x27;"; break;
      case '`': rep = "&#x60;"; break;
      case '=': rep = "&#x3D;"; break;
      default: continue;
    }
    out.append(s.data() + run, i - run);
    out += rep;
    run = i + 1;
  }
  out.append(s.data() + run, s.size() - run);
}

void indent_into(std::string& out, const std::string& text, const std::string& indent) {
  std::size_t start = 0;
  for (;;) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      if (start < text.size()) {
        out += indent;
        out.append(text, start);
      }
      return;
    }
    out += indent;
    out.append(text, start, nl + 1 - start);
    start = nl + 1;
  }
}

// Argument storage for one helper call: values computed by the call (subexpressions, string
// lengths) live here, lookups into the context are pointers.
class Args {
 public:
  explicit Args(std::size_t n) : n_(n) {
    if (n > kInline) {
      heap_values_.resize(n);
      heap_ptrs_.resize(n);
    }
  }
  Value& scratch(std::size_t i) { return n_ > kInline ? heap_values_[i] : values_[i]; }
  const Value*& ptr(std::size_t i) { return n_ > kInline ? heap_ptrs_[i] : ptrs_[i]; }
  const Value* const* ptrs() const { return n_ > kInline ? heap_ptrs_.data() : ptrs_; }
  std::size_t size() const { return n_; }

 private:
  static constexpr std::size_t kInline = 4;
  std::size_t n_;
  Value values_[kInline];
  const Value* ptrs_[kInline] = {};
  std::vector<Value> heap_values_;
  std::vector<const Value*> heap_ptrs_;
};

}  // namespace

class Renderer {
 public:
  Renderer(const Registry::Impl& impl, std::string& out) : impl_(impl), out_(&out) {}

  void render_root(const Template& tpl, const Value& ctx) {
    DataFrame root;
    root.root = &ctx;
    DepthNode node{&ctx, nullptr};
    Scope base{&ctx, &node, nullptr, &root, nullptr, &tpl};
    program(tpl.root, ctx, base, nullptr, 0, nullptr);
  }

  std::string branch_to_string(const Program* p, const Value& ctx, const Scope& s) {
    std::string tmp;
    OutputSwap swap(*this, tmp);
    if (p) program(*p, ctx, s, nullptr, 0, nullptr);
    return tmp;
  }

  [[noreturn]] void fail(const Scope& s, Loc loc, const std::string& msg) const {
    throw RenderError(msg, s.tpl->name, loc.line, loc.column);
  }

  bool strict() const { return impl_.strict; }

 private:
  struct OutputSwap {
    OutputSwap(Renderer& r, std::string& tmp) : r_(r), saved_(r.out_) { r.out_ = &tmp; }
    ~OutputSwap() { r_.out_ = saved_; }
    Renderer& r_;
    std::string* saved_;
  };

  struct DepthGuard {
    explicit DepthGuard(int& d) : d_(d) { ++d_; }
    ~DepthGuard() { --d_; }
    int& d_;
  };

  // wrapProgram's prog(context, options): a new depth when the context changed, the block's
  // params, the program's inline partials, and the data frame the caller chose.
  void program(const Program& p, const Value& ctx, const Scope& outer, const Value* const* bp,
               std::size_t nbp, const DataFrame* data) {
    DepthGuard guard(depth_);
    if (depth_ > impl_.limits.max_depth) {
      Loc loc = p.body.empty() ? Loc{} : p.body.front().loc;
      fail(outer, loc, "nesting deeper than " + std::to_string(impl_.limits.max_depth) +
                           " blocks/partials (runaway recursion?)");
    }
    Scope s = outer;
    s.self = &ctx;
    DepthNode node{&ctx, outer.depths};
    if (!outer.depths || !loosely_equal(ctx, *outer.depths->ctx)) s.depths = &node;
    ParamFrame pf{bp, nbp, outer.params};
    if (!p.block_params.empty()) s.params = &pf;
    InlineFrame inl{&p, outer.tpl, outer.inlines};
    if (!p.inline_partials.empty()) s.inlines = &inl;
    if (data) s.data = data;
    for (const Statement& st : p.body) statement(st, s);
  }

  void branch(const Program* p, const Value& ctx, const Scope& s) {
    if (p) program(*p, ctx, s, nullptr, 0, nullptr);
  }

  void statement(const Statement& st, const Scope& s) {
    if (++steps_ > impl_.limits.max_steps)
      fail(s, st.loc, "render exceeded " + std::to_string(impl_.limits.max_steps) + " steps");
    switch (st.type) {
      case Statement::Type::kContent:
        out_->append(st.value);
        break;
      case Statement::Type::kComment:
      case Statement::Type::kDecorator:
      case Statement::Type::kDecoratorBlock:
        return;
      case Statement::Type::kMustache:
        mustache(st, s);
        break;
      case Statement::Type::kBlock:
        block(st, s);
        break;
      case Statement::Type::kPartial:
      case Statement::Type::kPartialBlock:
        partial(st, s);
        break;
    }
    if (out_->size() > impl_.limits.max_output)
      fail(s, st.loc, "output exceeded " + std::to_string(impl_.limits.max_output) + " bytes");
  }

  // ---- lookups ----

  static const Value* lookup_data(const DataFrame* f, std::string_view name) {
    for (; f; f = f->parent) {
      if (name == "root") {
        if (f->root) return f->root;
      } else if (f->has_iteration) {
        if (name == "index") return &f->index;
        if (name == "key") return &f->key;
        if (name == "first") return &f->first;
        if (name == "last") return &f->last;
      }
    }
    return nullptr;
  }

  static const PartialBlockClosure* current_partial_block(const DataFrame* f) {
    for (; f; f = f->parent) {
      if (f->has_partial_block) return f->partial_block;
    }
    return nullptr;
  }

  [[noreturn]] void missing(const Expr& e, const Scope& s, std::size_t part) const {
    std::string msg;
    if (e.data && part == 0) {
      msg = "'@" + e.parts[0] + "' is not defined here";
      if (e.parts[0] == "index" || e.parts[0] == "key" || e.parts[0] == "first" ||
          e.parts[0] == "last")
        msg += " (it exists only inside {{#each}} and {{#times}})";
    } else if (part == static_cast<std::size_t>(-1)) {
      msg = "'" + e.original + "' goes " + std::to_string(e.depth) +
            " level(s) up, past the outermost context";
    } else if (part == 0 && e.parts.size() == 1) {
      msg = "variable '" + e.original + "' not found";
    } else {
      std::string prefix;
      for (std::size_t i = 0; i < part; ++i) prefix += (i ? "." : "") + e.parts[i];
      msg = "variable '" + e.original + "' not found: '" + e.parts[part] + "' is not a key of " +
            (prefix.empty() ? std::string("the context") : "'" + prefix + "'");
    }
    fail(s, e.loc, msg + " (strict mode; use {{default name value}} for an optional value)");
  }

  const Value& eval_path(const Expr& e, const Scope& s, Value& scratch, bool lenient) {
    const Value* cur;
    std::size_t first = 0;
    const bool strict = impl_.strict && !lenient;
    if (e.block_param_level >= 0) {
      const ParamFrame* f = s.params;
      for (int i = 0; i < e.block_param_level && f; ++i) f = f->parent;
      auto idx = static_cast<std::size_t>(e.block_param_index);
      cur = (f && idx < f->count && f->values[idx]) ? f->values[idx] : &kUndefined;
      first = 1;
    } else if (e.data) {
      const DataFrame* f = s.data;
      for (int i = 0; i < e.depth && f; ++i) f = f->parent;
      cur = e.parts.empty() ? nullptr : lookup_data(f, e.parts[0]);
      if (!cur) {
        if (strict) missing(e, s, 0);
        return kUndefined;
      }
      first = 1;
    } else if (e.depth == 0) {
      cur = s.self;
    } else {
      const DepthNode* d = s.depths;
      for (int i = 0; i < e.depth && d; ++i) d = d->parent;
      if (!d) {
        if (strict) missing(e, s, static_cast<std::size_t>(-1));
        return kUndefined;
      }
      cur = d->ctx;
    }
    for (std::size_t i = first; i < e.parts.size(); ++i) {
      const Value* next = get_property(*cur, e.parts[i], scratch);
      if (!next) {
        if (strict) missing(e, s, i);
        return kUndefined;
      }
      cur = next;
    }
    return *cur;
  }

  const Value& eval(const Expr& e, const Scope& s, Value& scratch, bool lenient) {
    switch (e.type) {
      case Expr::Type::kLiteral:
        return e.literal;
      case Expr::Type::kPath:
        return eval_path(e, s, scratch, lenient);
      case Expr::Type::kSubExpr: {
        const Call& c = *e.call;
        const HelperEntry* h = find_helper(c);
        if (!h) missing_helper(c, s, e.loc);
        Value tmp;
        const Value& r = invoke(*h, c, s, nullptr, e.loc, tmp);
        if (&r != &tmp) {
          Value copy = r;
          scratch = std::move(copy);
        } else {
          scratch = std::move(tmp);
        }
        return scratch;
      }
    }
    return kUndefined;
  }

  const HelperEntry* find_helper(const Call& c) const {
    const Expr& p = *c.path;
    if (c.kind == CallKind::kSimple || p.parts.size() != 1 || p.depth != 0 || p.scoped)
      return nullptr;
    auto it = impl_.helpers.find(p.parts[0]);
    return it == impl_.helpers.end() ? nullptr : &it->second;
  }

  [[noreturn]] void missing_helper(const Call& c, const Scope& s, Loc loc) const {
    fail(s, loc, "helper '" + c.path->original + "' not found (register it with register_helper)");
  }

  // ---- statements ----

  void append_value(const Value& v, bool escape, const Scope& s, Loc loc) {
    if (impl_.strict && v.is_object())
      fail(s, loc, "cannot insert an object into the text (pick one of its keys)");
    if (!escape || !impl_.escape_html) {
      v.append_js_string(*out_);
    } else if (v.is_string()) {
      escape_html_into(*out_, v.as_string());
    } else {
      escape_html_into(*out_, v.to_js_string());
    }
  }

  void mustache(const Statement& st, const Scope& s) {
    const Call& c = st.call;
    Value scratch;
    const Value* v;
    if (const HelperEntry* h = find_helper(c)) {
      v = &invoke(*h, c, s, nullptr, st.loc, scratch);
    } else if (c.kind == CallKind::kHelper) {
      missing_helper(c, s, st.loc);
    } else {
      v = &eval_path(*c.path, s, scratch, false);
    }
    append_value(*v, st.escaped, s, st.loc);
  }

  void block(const Statement& st, const Scope& s) {
    const Call& c = st.call;
    if (const HelperEntry* h = find_helper(c)) {
      Value scratch;
      const Value& r = invoke(*h, c, s, &st, st.loc, scratch);
      r.append_js_string(*out_);
      return;
    }
    if (c.kind == CallKind::kHelper) missing_helper(c, s, st.loc);
    Value scratch;
    const Value& v = eval_path(*c.path, s, scratch, false);
    // blockHelperMissing
    if (v.is_bool() && v.as_bool()) {
      branch(st.program.get(), *s.self, s);
    } else if (v.is_nullish() || v.is_bool()) {
      branch(st.inverse.get(), *s.self, s);
    } else if (v.is_array()) {
      if (v.as_array().empty()) {
        branch(st.inverse.get(), *s.self, s);
      } else {
        each(st, v, s);
      }
    } else {
      branch(st.program.get(), v, s);
    }
  }

  // helpers/each.js
  void each(const Statement& st, const Value& v, const Scope& s) {
    DataFrame frame;
    frame.parent = s.data;
    frame.has_iteration = true;
    std::size_t count = 0;
    const Program* body = st.program.get();
    if (v.is_array()) {
      const Array& a = v.as_array();
      for (std::size_t i = 0; i < a.size(); ++i, ++count) {
        frame.index = Value(static_cast<std::int64_t>(i));
        frame.key = frame.index;
        frame.first = Value(i == 0);
        frame.last = Value(i + 1 == a.size());
        const Value* bp[2] = {&a[i], &frame.key};
        if (body) program(*body, a[i], s, bp, 2, &frame);
      }
    } else if (v.is_object()) {
      const auto& entries = v.as_object().entries();
      // Object.keys order: array-index keys ascending first, then the others as inserted.
      std::vector<std::size_t> order;
      std::vector<std::pair<std::size_t, std::size_t>> numeric;
      for (std::size_t i = 0; i < entries.size(); ++i) {
        std::size_t n;
        if (array_index(entries[i].first, n)) numeric.emplace_back(n, i);
      }
      if (!numeric.empty()) {
        std::sort(numeric.begin(), numeric.end());
        for (auto& [n, i] : numeric) order.push_back(i);
        for (std::size_t i = 0; i < entries.size(); ++i) {
          std::size_t n;
          if (!array_index(entries[i].first, n)) order.push_back(i);
        }
      }
      for (std::size_t k = 0; k < entries.size(); ++k, ++count) {
        std::size_t i = order.empty() ? k : order[k];
        frame.index = Value(static_cast<std::int64_t>(k));
        frame.key = Value(entries[i].first);
        frame.first = Value(k == 0);
        frame.last = Value(k + 1 == entries.size());
        const Value* bp[2] = {&entries[i].second, &frame.key};
        if (body) program(*body, entries[i].second, s, bp, 2, &frame);
      }
    }
    if (count == 0) branch(st.inverse.get(), *s.self, s);
  }

  // ---- helpers ----

  const Value& invoke(const HelperEntry& h, const Call& c, const Scope& s, const Statement* blk,
                      Loc loc, Value& scratch) {
    const std::string& name = c.path->parts[0];
    auto need_block = [&] {
      if (!blk) fail(s, loc, "'" + name + "' is a block helper: write {{#" + name + " ...}}...{{/" +
                                 name + "}}");
    };
    auto need_params = [&](std::size_t n) {
      if (c.params.size() != n)
        fail(s, loc, "#" + name + " takes exactly " + std::to_string(n) + " argument" +
                         (n == 1 ? "" : "s") + ", got " + std::to_string(c.params.size()));
    };
    switch (h.native) {
      case NativeHelper::kIf:
      case NativeHelper::kUnless: {
        need_block();
        need_params(1);
        Value tmp;
        const Value& cond = eval(*c.params[0], s, tmp, false);
        bool include_zero = false;
        for (const auto& hp : c.hash) {
          if (hp.key == "includeZero") {
            Value t2;
            include_zero = eval(*hp.value, s, t2, false).truthy();
          }
        }
        bool falsy = (!include_zero && !cond.truthy()) || is_empty(cond);
        if (h.native == NativeHelper::kUnless) falsy = !falsy;
        branch(falsy ? blk->inverse.get() : blk->program.get(), *s.self, s);
        return kUndefined;
      }
      case NativeHelper::kWith: {
        need_block();
        need_params(1);
        Value tmp;
        const Value& v = eval(*c.params[0], s, tmp, false);
        if (is_empty(v)) {
          branch(blk->inverse.get(), *s.self, s);
        } else if (blk->program) {
          const Value* bp[1] = {&v};
          program(*blk->program, v, s, bp, 1, nullptr);
        }
        return kUndefined;
      }
      case NativeHelper::kEach: {
        need_block();
        if (c.params.empty()) fail(s, loc, "#each needs the array or object to iterate");
        need_params(1);
        Value tmp;
        const Value& v = eval(*c.params[0], s, tmp, false);
        each(*blk, v, s);
        return kUndefined;
      }
      case NativeHelper::kTimes: {
        need_block();
        need_params(1);
        Value tmp;
        const Value& v = eval(*c.params[0], s, tmp, false);
        if (!v.is_number() || v.as_number() < 0 || v.as_number() != std::floor(v.as_number()))
          fail(s, loc, "#times needs a non-negative integer, got " + v.to_json());
        auto n = static_cast<std::int64_t>(v.as_number());
        DataFrame frame;
        frame.parent = s.data;
        frame.has_iteration = true;
        for (std::int64_t i = 0; i < n; ++i) {
          frame.index = Value(i);
          frame.key = frame.index;
          frame.first = Value(i == 0);
          frame.last = Value(i + 1 == n);
          const Value* bp[1] = {&frame.index};
          if (blk->program) program(*blk->program, *s.self, s, bp, 1, &frame);
        }
        if (n == 0) branch(blk->inverse.get(), *s.self, s);
        return kUndefined;
      }
      case NativeHelper::kLookup: {
        if (c.params.size() != 2)
          fail(s, loc, "lookup takes 2 arguments (object, key), got " +
                           std::to_string(c.params.size()));
        Value t1, t2;
        const Value& obj = eval(*c.params[0], s, t1, false);
        const Value& field = eval(*c.params[1], s, t2, false);
        if (!obj.truthy()) {
          if (impl_.strict) fail(s, loc, "lookup on " + obj.to_json() + ": not an object or array");
          scratch = obj;
          return scratch;
        }
        std::string key = field.to_js_string();
        Value prop_scratch;
        const Value* r = get_property(obj, key, prop_scratch);
        if (!r) {
          if (impl_.strict) fail(s, loc, "lookup: key '" + key + "' not found");
          return kUndefined;
        }
        if (r == &prop_scratch) {
          scratch = std::move(prop_scratch);
          return scratch;
        }
        return *r;
      }
      case NativeHelper::kLog: {
        std::string msg;
        for (std::size_t i = 0; i < c.params.size(); ++i) {
          Value tmp;
          const Value& v = eval(*c.params[i], s, tmp, false);
          if (i) msg += ' ';
          msg += v.is_string() ? v.as_string() : v.to_json();
        }
        int level = 1;
        for (const auto& hp : c.hash) {
          if (hp.key == "level") {
            Value tmp;
            const Value& lv = eval(*hp.value, s, tmp, false);
            if (lv.is_number()) level = static_cast<int>(lv.as_number());
            else if (lv.is_string()) {
              const std::string& l = lv.as_string();
              level = l == "debug" ? 0 : l == "info" ? 1 : l == "warn" ? 2 : l == "error" ? 3 : 1;
            }
          }
        }
        if (impl_.logger) impl_.logger(level, msg);
        return kUndefined;
      }
      case NativeHelper::kNone:
        break;
    }
    // An ordinary helper: evaluate the arguments, call it.
    Args args(c.params.size());
    for (std::size_t i = 0; i < c.params.size(); ++i)
      args.ptr(i) = &eval(*c.params[i], s, args.scratch(i), h.lenient_args);
    Args hash_vals(c.hash.size());
    std::vector<std::pair<std::string_view, const Value*>> hash;
    hash.reserve(c.hash.size());
    for (std::size_t i = 0; i < c.hash.size(); ++i) {
      hash.emplace_back(c.hash[i].key,
                        &eval(*c.hash[i].value, s, hash_vals.scratch(i), h.lenient_args));
    }
    HelperCall call;
    call.renderer_ = this;
    call.scope_ = &s;
    call.stmt_ = blk;
    call.loc_ = &loc;
    call.name_ = name;
    call.params_ = args.ptrs();
    call.param_count_ = args.size();
    call.hash_ = hash.data();
    call.hash_count_ = hash.size();
    scratch = h.fn(call);
    return scratch;
  }

  // ---- partials (runtime.js invokePartial / resolvePartial) ----

  struct Resolved {
    const Program* program = nullptr;
    const Template* tpl = nullptr;
    const PartialBlockClosure* closure = nullptr;
  };

  Resolved find_partial(std::string_view name, const Scope& s) const {
    Resolved r;
    for (const InlineFrame* f = s.inlines; f; f = f->parent) {
      const auto& list = f->program->inline_partials;
      for (auto it = list.rbegin(); it != list.rend(); ++it) {
        if (it->first == name) {
          r.program = it->second;
          r.tpl = f->tpl;
          return r;
        }
      }
    }
    auto it = impl_.templates.find(name);
    if (it != impl_.templates.end()) {
      r.program = &it->second->root;
      r.tpl = it->second.get();
    }
    return r;
  }

  void partial(const Statement& st, const Scope& s) {
    const Call& c = st.call;
    const bool is_block = st.type == Statement::Type::kPartialBlock;
    // The name: static, or the value of a subexpression (dynamic partial).
    std::string dynamic_name;
    std::string_view name;
    bool is_partial_block_ref = false;
    if (c.path->type == Expr::Type::kSubExpr) {
      Value tmp;
      dynamic_name = eval(*c.path, s, tmp, false).to_js_string();
      name = dynamic_name;
    } else {
      name = c.path->original;
      is_partial_block_ref = c.path->data && name == "@partial-block";
    }
    // The context: the argument, or the current context; hash arguments extend a copy.
    Value ctx_scratch;
    const Value* ctx = s.self;
    if (!c.params.empty()) ctx = &eval(*c.params[0], s, ctx_scratch, false);
    Value merged;
    if (!c.hash.empty()) {
      Object obj;
      if (ctx->is_object()) {
        obj = ctx->as_object();
      } else if (ctx->is_array()) {
        const Array& a = ctx->as_array();
        for (std::size_t i = 0; i < a.size(); ++i) obj.set(std::to_string(i), a[i]);
      } else if (ctx->is_string()) {
        const std::string& str = ctx->as_string();
        for (std::size_t i = 0; i < str.size(); ++i) obj.set(std::to_string(i), std::string(1, str[i]));
      }
      for (const auto& hp : c.hash) {
        Value tmp;
        obj.set(hp.key, eval(*hp.value, s, tmp, false));
      }
      merged = Value(std::move(obj));
      ctx = &merged;
    }

    const DataFrame* data = s.data;
    const InlineFrame* inlines = s.inlines;
    PartialBlockClosure closure{nullptr, s, nullptr};
    DataFrame block_frame;
    InlineFrame block_inlines{nullptr, s.tpl, nullptr};
    if (is_block) {
      closure.program = st.program.get();
      closure.outer = current_partial_block(s.data);
      block_frame.parent = s.data;
      block_frame.has_partial_block = true;
      block_frame.partial_block = &closure;
      data = &block_frame;
      if (!st.program->inline_partials.empty()) {
        block_inlines = InlineFrame{st.program.get(), s.tpl, inlines};
        inlines = &block_inlines;
      }
    }

    Resolved target;
    if (is_partial_block_ref) {
      target.closure = current_partial_block(s.data);
    } else {
      target = find_partial(name, Scope{s.self, s.depths, s.params, s.data, inlines, s.tpl});
    }
    if (!target.program && !target.closure && is_block) target.closure = &closure;
    if (!target.program && !target.closure) {
      if (is_partial_block_ref)
        fail(s, st.loc, "{{> @partial-block}} used outside a partial called as a block "
                        "({{#> name}}...{{/name}})");
      fail(s, st.loc, "partial '" + std::string(name) + "' not found");
    }

    std::string tmp;
    std::string* saved = out_;
    if (!st.indent.empty()) out_ = &tmp;
    struct Restore {
      std::string*& out;
      std::string* saved;
      ~Restore() { out = saved; }
    } restore{out_, saved};
    if (target.closure) {
      // partialBlockWrapper: the block renders in the scope where it was written, with the
      // @partial-block of that place.
      DataFrame f;
      f.parent = data;
      f.has_partial_block = true;
      f.partial_block = target.closure->outer;
      program(*target.closure->program, *ctx, target.closure->captured, nullptr, 0, &f);
    } else {
      DepthNode node{ctx, nullptr};
      Scope ps{ctx, &node, nullptr, data, inlines, target.tpl};
      program(*target.program, *ctx, ps, nullptr, 0, nullptr);
    }
    if (!st.indent.empty()) {
      out_ = saved;
      indent_into(*out_, tmp, st.indent);
    }
  }

  friend class alknet::hbs::HelperCall;
  const Registry::Impl& impl_;
  std::string* out_;
  int depth_ = 0;
  std::uint64_t steps_ = 0;
};

void render_template(const Registry::Impl& impl, const Template& tpl, const Value& context,
                     std::string& out) {
  Renderer r(impl, out);
  r.render_root(tpl, context);
}

}  // namespace alknet::hbs::detail

namespace alknet::hbs {

const Value& HelperCall::param(std::size_t i) const {
  return i < param_count_ ? *params_[i] : detail::kUndefined;
}

const Value* HelperCall::hash(std::string_view key) const {
  const Value* found = nullptr;
  for (std::size_t i = 0; i < hash_count_; ++i) {
    if (hash_[i].first == key) found = hash_[i].second;  // as JS assignment: the last one wins
  }
  return found;
}

const Value& HelperCall::context() const { return *scope_->self; }

std::string HelperCall::fn(const Value& ctx) const {
  if (!stmt_) return {};
  return const_cast<detail::Renderer*>(renderer_)->branch_to_string(stmt_->program.get(), ctx,
                                                                     *scope_);
}

std::string HelperCall::inverse(const Value& ctx) const {
  if (!stmt_) return {};
  return const_cast<detail::Renderer*>(renderer_)->branch_to_string(stmt_->inverse.get(), ctx,
                                                                     *scope_);
}

bool HelperCall::strict() const { return renderer_->strict(); }

void HelperCall::fail(const std::string& message) const {
  renderer_->fail(*scope_, *static_cast<const detail::Loc*>(loc_),
                  "helper '" + std::string(name_) + "': " + message);
}

}  // namespace alknet::hbs
