// The tree-walking renderer. Runtime semantics follow handlebars.js lib/handlebars/runtime.js
// (wrapProgram's depth stack, createFrame data frames, invokePartial and partial blocks) and the
// built-in helpers of lib/handlebars/helpers/. Output goes straight into one string; frames for
// depths, block params, data and inline partials are linked lists on the C++ stack, so capturing
// a scope (for {{> @partial-block}}) is a copy of six pointers.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <optional>

#include "alknet/hbs/error.h"
#include "registry_impl.h"

namespace alknet::hbs::detail {

namespace {
const Value kUndefined;
// Returned (by address) by the built-in block helpers that wrote their output themselves.
const Value kRendered;
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
  // Kept as plain fields (Values are built only when a template reads them): an iteration
  // step then costs a few stores.
  std::int64_t index = 0;
  std::int64_t count = 0;
  const std::string* key_name = nullptr;  // object iteration: the key; else @key == @index
  bool has_partial_block = false;
  const PartialBlockClosure* partial_block = nullptr;
};

struct InlineFrame {
  const Program* program;
  const Template* tpl;
  const InlineFrame* parent;
  // An inline partial keeps the depth stack of the place that declared it (handlebars.js runs
  // the inline decorator with the enclosing program's depths), so its `../` reaches there.
  const DepthNode* depths;
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

// Compat mode only. handlebars.js joins a program's pieces with JavaScript `+`, and a program
// whose first piece is `{{{x}}}` yields x's raw value, not a string. So when a number or a
// boolean meets another one, they are *added*: `{{{a}}}{{{a}}}` with a = 1 renders "2", and
// `{{{f}}}{{{f}}}` with f = false renders "0". To stay byte-identical we track, per program, the
// JavaScript value being built: empty, a string (already written to the output), or a pending
// number/boolean (not written yet). Any text written flushes the pending values of the
// enclosing programs first, outermost first, because a string absorbs them in order.
struct JsValue {
  enum class State : std::uint8_t { kEmpty, kString, kPrim };
  JsValue* parent = nullptr;
  State state = State::kEmpty;
  Value prim;  // kPrim: a number or boolean
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
    case Value::Kind::kObject: return parent.as_object().find(key);
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
    default: return nullptr;
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
    JsValue top{nullptr, JsValue::State::kString, {}};  // '' + main(...)
    JsScope js(*this, impl_.strict ? nullptr : &top);
    program(tpl.root, ctx, base, nullptr, 0, nullptr, /*root=*/true);
  }

  std::string branch_to_string(const Program* p, const Value& ctx, const Scope& s) {
    std::string tmp;
    OutputSwap swap(*this, tmp);
    JsValue top{nullptr, JsValue::State::kString, {}};
    JsScope js(*this, js_ ? &top : nullptr);
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

  // Makes `v` the current JavaScript value for the scope's lifetime.
  struct JsScope {
    JsScope(Renderer& r, JsValue* v) : r_(r), saved_(r.js_) { r.js_ = v; }
    ~JsScope() { r_.js_ = saved_; }
    Renderer& r_;
    JsValue* saved_;
  };

  // Text is about to be written: every enclosing value becomes a string, outermost first.
  void js_flush(JsValue* v) {
    if (!v || v->state == JsValue::State::kString) return;
    js_flush(v->parent);
    if (v->state == JsValue::State::kPrim) v->prim.append_js_string(*out_);
    v->state = JsValue::State::kString;
  }

  // v + p in JavaScript, for p a number or boolean.
  void js_add_prim(JsValue* v, const Value& p) {
    switch (v->state) {
      case JsValue::State::kEmpty:
        v->prim = p;
        v->state = JsValue::State::kPrim;
        break;
      case JsValue::State::kPrim: {
        auto num = [](const Value& x) {
          return x.is_bool() ? (x.as_bool() ? 1.0 : 0.0) : x.as_number();
        };
        v->prim = Value(num(v->prim) + num(p));
        break;
      }
      case JsValue::State::kString: p.append_js_string(*out_); break;
    }
  }

  // A finished inner value joins the enclosing one (`buffer += inner`).
  void js_join(JsValue& inner) {
    if (inner.state == JsValue::State::kEmpty) js_flush(&inner);  // the program returned ""
    if (inner.state == JsValue::State::kPrim) js_add_prim(inner.parent, inner.prim);
  }

  static bool js_prim(const Value& v) { return v.is_bool() || v.is_number(); }

  // wrapProgram's prog(context, options): a new depth when the context changed, the block's
  // params, the program's inline partials, and the data frame the caller chose.
  // root: the top program of a template; its inline partials see no depths beyond their own
  // context (handlebars.js passes [] there).
  void program(const Program& p, const Value& ctx, const Scope& outer, const Value* const* bp,
               std::size_t nbp, const DataFrame* data, bool root = false) {
    DepthGuard guard(depth_);
    if (depth_ > impl_.limits.max_depth) {
      Loc loc = p.body.empty() ? Loc{} : p.body.front().loc;
      fail(outer, loc,
           "nesting deeper than " + std::to_string(impl_.limits.max_depth) +
               " blocks/partials (runaway recursion?)");
    }
    Scope s = outer;
    s.self = &ctx;
    DepthNode node{&ctx, outer.depths};
    if (!outer.depths || !loosely_equal(ctx, *outer.depths->ctx)) s.depths = &node;
    ParamFrame pf{bp, nbp, outer.params};
    if (!p.block_params.empty()) s.params = &pf;
    InlineFrame inl{&p, outer.tpl, outer.inlines, root ? nullptr : outer.depths};
    if (!p.inline_partials.empty()) s.inlines = &inl;
    if (data) s.data = data;
    charge(s, p.body.empty() ? Loc{} : p.body.front().loc, p.ops.size());
    if (js_) {
      js_program(p, s);
    } else {
      for (const Op& op : p.ops) {  // run_op without the compat-mode bookkeeping
        switch (op.kind) {
          case Op::Kind::kText: out_->append(op.text); break;
          case Op::Kind::kTextLookup: out_->append(op.text); [[fallthrough]];
          case Op::Kind::kLookup:
            append_value(lookup(*op.statement->call.path, s), op.escaped, s, op.statement->loc);
            break;
          case Op::Kind::kStatement: statement(*op.statement, s); break;
        }
      }
    }
    // Checked per program rather than per statement: one body adds a bounded amount of text.
    if (out_->size() > impl_.limits.max_output)
      fail(s, p.body.empty() ? Loc{} : p.body.back().loc,
           "output exceeded " + std::to_string(impl_.limits.max_output) + " bytes");
  }

  // Counts work against max_steps: statements, each loop iteration (empty bodies included,
  // so `{{#times 1e15}}{{/times}}` ends), each item a helper builds.
  void charge(const Scope& s, Loc loc, std::uint64_t steps) const {
    steps_ += steps;
    if (steps_ > impl_.limits.max_steps) {
      fail(s, loc,
           "render exceeded " + std::to_string(impl_.limits.max_steps) +
               " steps (statements, loop iterations and helper items)");
    }
  }

  void check_output(const Scope& s, Loc loc, std::size_t size) const {
    if (size > impl_.limits.max_output)
      fail(s, loc, "output exceeded " + std::to_string(impl_.limits.max_output) + " bytes");
  }

  void run_op(const Op& op, const Scope& s) {
    switch (op.kind) {
      case Op::Kind::kText:
        if (js_) js_flush(js_);
        out_->append(op.text);
        break;
      case Op::Kind::kTextLookup:
        if (js_) js_flush(js_);
        out_->append(op.text);
        [[fallthrough]];
      case Op::Kind::kLookup:
        append_value(eval_path(*op.statement->call.path, s, lookup_scratch_, false), op.escaped, s,
                     op.statement->loc);
        break;
      case Op::Kind::kStatement: statement(*op.statement, s); break;
    }
  }

  // The program's ops with handlebars.js's value joining (see JsValue).
  void js_program(const Program& p, const Scope& s) {
    JsValue value{js_, JsValue::State::kEmpty, {}};
    JsScope scope(*this, &value);
    if (!p.js_simple && p.js_starts_with_block) js_flush(&value);  // buffer = ""
    JsValue group;
    for (const Op& op : p.ops) {
      if (op.js_group_open) {
        group = JsValue{&value, JsValue::State::kEmpty, {}};
        js_ = &group;
      }
      run_op(op, s);
      if (op.js_group_close) {
        js_ = &value;
        js_join(group);
      }
    }
    js_join(value);
  }

  void branch(const Program* p, const Value& ctx, const Scope& s) {
    if (p) {
      program(*p, ctx, s, nullptr, 0, nullptr);
    } else if (js_) {
      js_flush(js_);  // a missing branch is handlebars.js's noop, which returns ""
    }
  }

  void statement(const Statement& st, const Scope& s) {
    switch (st.type) {
      case Statement::Type::kContent: out_->append(st.value); break;
      case Statement::Type::kComment:
      case Statement::Type::kDecorator:
      case Statement::Type::kDecoratorBlock: return;
      case Statement::Type::kMustache: mustache(st, s); break;
      case Statement::Type::kBlock: block(st, s); break;
      case Statement::Type::kPartial:
      case Statement::Type::kPartialBlock: partial(st, s); break;
    }
  }

  // ---- lookups ----

  static const Value* lookup_data(const DataFrame* f, std::string_view name, Value& scratch) {
    for (; f; f = f->parent) {
      if (name == "root") {
        if (f->root) return f->root;
      } else if (f->has_iteration) {
        Value v;
        if (name == "index")
          v = Value(f->index);
        else if (name == "key")
          v = f->key_name ? Value(*f->key_name) : Value(f->index);
        else if (name == "first")
          v = Value(f->index == 0);
        else if (name == "last")
          v = Value(f->index + 1 == f->count);
        else
          continue;
        scratch = std::move(v);
        return &scratch;
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
    if (part == static_cast<std::size_t>(-1)) {
      msg = "'" + e.original + "' goes " + std::to_string(e.depth) +
            " level(s) up, past the outermost context";
    } else if (e.data && part == 0) {  // `@name`: eval_path sends `@.` to the context branch
      msg = "'@" + e.parts[0] + "' is not defined here";
      if (e.parts[0] == "index" || e.parts[0] == "key" || e.parts[0] == "first" ||
          e.parts[0] == "last")
        msg += " (it exists only inside {{#each}} and {{#times}})";
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

  // eval_path for `{{name}}`, with the two shapes generated code is made of handled inline: a
  // block param (`{{i}}`) and a key of the current object (`{{tile_k}}`).
  const Value& lookup(const Expr& e, const Scope& s) {
    if (e.parts.size() == 1) {
      if (e.block_param_level >= 0) {
        const ParamFrame* f = s.params;
        for (int i = 0; i < e.block_param_level && f; ++i) f = f->parent;
        auto idx = static_cast<std::size_t>(e.block_param_index);
        if (f && idx < f->count && f->values[idx]) return *f->values[idx];
      } else if (!e.data && e.depth == 0 && s.self->is_object()) {
        if (const Value* v = s.self->as_object().find(e.parts[0])) return *v;
      }
    }
    return eval_path(e, s, lookup_scratch_, false);
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
    } else if (e.data && !e.parts.empty()) {
      const DataFrame* f = s.data;
      for (int i = 0; i < e.depth && f; ++i) f = f->parent;
      cur = lookup_data(f, e.parts[0], scratch);
      if (!cur) {
        if (strict) missing(e, s, 0);
        return kUndefined;
      }
      first = 1;
    } else if (e.depth == 0) {  // also `@.` and `@this`: handlebars.js reads them as `this`
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
      case Expr::Type::kLiteral: return e.literal;
      case Expr::Type::kPath: return eval_path(e, s, scratch, lenient);
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

  static const HelperEntry* find_helper(const Call& c) { return c.helper; }

  [[noreturn]] void missing_helper(const Call& c, const Scope& s, Loc loc) const {
    fail(s, loc, "helper '" + c.path->original + "' not found (register it with register_helper)");
  }

  // ---- statements ----

  void append_value(const Value& v, bool escape, const Scope& s, Loc loc) {
    // The common cases of generated code inline: a string, or a small integer.
    if (!js_) {
      if (v.is_string() && !(escape && impl_.escape_html)) {
        out_->append(v.as_string());
        if (v.as_string().size() > 4096) check_output(s, loc, out_->size());
        return;
      }
      if (v.is_int() && static_cast<std::uint64_t>(v.as_int()) < 10) {
        out_->push_back(static_cast<char>('0' + v.as_int()));
        return;
      }
    }
    append_value_slow(v, escape, s, loc);
  }

  [[gnu::noinline]] void append_value_slow(const Value& v, bool escape, const Scope& s, Loc loc) {
    if (js_) {
      if (!(escape && impl_.escape_html) && js_prim(v)) {
        js_add_prim(js_, v);
        return;
      }
      js_flush(js_);
    }
    if (impl_.strict && v.is_object())
      fail(s, loc, "cannot insert an object into the text (pick one of its keys)");
    if (!escape || !impl_.escape_html) {
      v.append_js_string(*out_);
    } else if (v.is_string()) {
      escape_html_into(*out_, v.as_string());
    } else {
      escape_html_into(*out_, v.to_js_string());
    }
    check_output(s, loc, out_->size());
  }

  void mustache(const Statement& st, const Scope& s) {
    const Call& c = st.call;
    if (const HelperEntry* h = find_helper(c)) {
      Value scratch;
      append_value(invoke(*h, c, s, nullptr, st.loc, scratch), st.escaped, s, st.loc);
    } else if (c.kind == CallKind::kHelper) {
      missing_helper(c, s, st.loc);
    } else {
      // A plain lookup renders nothing in between, so one scratch value serves every call.
      append_value(eval_path(*c.path, s, lookup_scratch_, false), st.escaped, s, st.loc);
    }
  }

  void block(const Statement& st, const Scope& s) {
    const Call& c = st.call;
    if (const HelperEntry* h = find_helper(c)) {
      Value scratch;
      const Value& r = invoke(*h, c, s, &st, st.loc, scratch);
      if (&r == &kRendered) return;
      // handlebars.js: `{{#name}}` appends with `if (r != null) buffer += r`, other blocks are
      // an expression `(r != null ? r : "")` inside the running sum.
      if (js_ && (!r.is_nullish() || c.kind != CallKind::kAmbiguous)) {
        if (js_prim(r)) {
          js_add_prim(js_, r);
          return;
        }
        js_flush(js_);
      }
      r.append_js_string(*out_);
      check_output(s, st.loc, out_->size());
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
    // ret = '' + fn(item) + ...: a string as soon as there is one item.
    const bool iterates =
        (v.is_array() && !v.as_array().empty()) || (v.is_object() && !v.as_object().empty());
    JsValue ret{js_, JsValue::State::kEmpty, {}};
    std::optional<JsScope> js_scope;
    if (js_ && iterates) {
      js_flush(&ret);
      js_scope.emplace(*this, &ret);
    }
    DataFrame frame;
    frame.parent = s.data;
    frame.has_iteration = true;
    std::size_t count = 0;
    const Program* body = st.program.get();
    if (v.is_array()) {
      const Array& a = v.as_array();
      frame.count = static_cast<std::int64_t>(a.size());
      const bool wants_key = body && body->block_params.size() >= 2;
      Value key;
      for (std::size_t i = 0; i < a.size(); ++i, ++count) {
        charge(s, st.loc, 1);
        frame.index = static_cast<std::int64_t>(i);
        if (wants_key) key = Value(frame.index);
        const Value* bp[2] = {&a[i], &key};
        if (body) program(*body, a[i], s, bp, 2, &frame);
      }
    } else if (v.is_object()) {
      const auto& entries = v.as_object().entries();
      frame.count = static_cast<std::int64_t>(entries.size());
      const bool wants_key = body && body->block_params.size() >= 2;
      Value key;
      for (std::size_t k = 0; k < entries.size(); ++k, ++count) {
        charge(s, st.loc, 1);
        const std::size_t i = k;  // Object keeps JavaScript's key order
        frame.index = static_cast<std::int64_t>(k);
        frame.key_name = &entries[i].first;
        if (wants_key) key = Value(entries[i].first);
        const Value* bp[2] = {&entries[i].second, &key};
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
      if (!blk)
        fail(s, loc,
             "'" + name + "' is a block helper: write {{#" + name + " ...}}...{{/" + name + "}}");
    };
    auto need_params = [&](std::size_t n) {
      if (c.params.size() != n)
        fail(s, loc,
             "#" + name + " takes exactly " + std::to_string(n) + " argument" +
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
        return kRendered;
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
        } else {
          branch(nullptr, v, s);
        }
        return kRendered;
      }
      case NativeHelper::kEach: {
        need_block();
        if (c.params.empty()) fail(s, loc, "#each needs the array or object to iterate");
        need_params(1);
        Value tmp;
        const Value& v = eval(*c.params[0], s, tmp, false);
        each(*blk, v, s);
        return kRendered;
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
        JsValue ret{js_, JsValue::State::kEmpty, {}};
        std::optional<JsScope> js_scope;
        if (js_ && n > 0) {
          js_flush(&ret);
          js_scope.emplace(*this, &ret);
        }
        frame.count = n;
        const bool wants_index = blk->program && !blk->program->block_params.empty();
        Value index;
        for (std::int64_t i = 0; i < n; ++i) {
          charge(s, loc, 1);
          frame.index = i;
          if (wants_index) index = Value(i);
          const Value* bp[1] = {&index};
          if (blk->program) program(*blk->program, *s.self, s, bp, 1, &frame);
        }
        if (n == 0) branch(blk->inverse.get(), *s.self, s);
        return kRendered;
      }
      case NativeHelper::kLookup: {
        if (c.params.size() != 2)
          fail(s, loc,
               "lookup takes 2 arguments (object, key), got " + std::to_string(c.params.size()));
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
            if (lv.is_number())
              level = static_cast<int>(lv.as_number());
            else if (lv.is_string()) {
              const std::string& l = lv.as_string();
              level = l == "debug" ? 0 : l == "info" ? 1 : l == "warn" ? 2 : l == "error" ? 3 : 1;
            }
          }
        }
        if (impl_.logger) impl_.logger(level, msg);
        return kUndefined;
      }
      case NativeHelper::kNone: break;
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
    bool is_inline = false;
    const DepthNode* depths = nullptr;  // inline partials: the declaring place's depths
    const PartialBlockClosure* closure = nullptr;
  };

  Resolved find_partial(std::string_view name, const Template* bound, const Scope& s) const {
    Resolved r;
    for (const InlineFrame* f = s.inlines; f; f = f->parent) {
      const auto& list = f->program->inline_partials;
      for (auto it = list.rbegin(); it != list.rend(); ++it) {
        if (it->first == name) {
          r.program = it->second;
          r.tpl = f->tpl;
          r.is_inline = true;
          r.depths = f->depths;
          return r;
        }
      }
    }
    if (!bound) {
      auto it = impl_.templates.find(name);
      if (it != impl_.templates.end()) bound = it->second.get();
    }
    if (bound) {
      r.program = &bound->root;
      r.tpl = bound;
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
        for (std::size_t i = 0; i < str.size(); ++i)
          obj.set(std::to_string(i), std::string(1, str[i]));
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
    InlineFrame block_inlines{nullptr, s.tpl, nullptr, nullptr};
    if (is_block) {
      closure.program = st.program.get();
      closure.outer = current_partial_block(s.data);
      block_frame.parent = s.data;
      block_frame.has_partial_block = true;
      block_frame.partial_block = &closure;
      data = &block_frame;
      if (!st.program->inline_partials.empty()) {
        block_inlines = InlineFrame{st.program.get(), s.tpl, inlines, s.depths};
        inlines = &block_inlines;
      }
    }

    Resolved target;
    if (is_partial_block_ref) {
      target.closure = current_partial_block(s.data);
    } else {
      target =
          find_partial(name, c.partial, Scope{s.self, s.depths, s.params, s.data, inlines, s.tpl});
    }
    if (!target.program && !target.closure && is_block) target.closure = &closure;
    if (!target.program && !target.closure) {
      if (is_partial_block_ref)
        fail(s, st.loc,
             "{{> @partial-block}} used outside a partial called as a block "
             "({{#> name}}...{{/name}})");
      fail(s, st.loc, "partial '" + std::string(name) + "' not found");
    }

    // '' + partial(...): the result is a string, so what precedes it is text now.
    if (js_) js_flush(js_);
    JsValue js_top{nullptr, JsValue::State::kString, {}};
    JsScope js_scope(*this, js_ ? &js_top : nullptr);
    // Indented partials render into a scratch buffer first; buffers are reused per nesting level.
    std::string* tmp = nullptr;
    if (!st.indent.empty()) {
      if (indent_buffers_.size() <= static_cast<std::size_t>(indent_level_))
        indent_buffers_.emplace_back();
      tmp = &indent_buffers_[static_cast<std::size_t>(indent_level_)];
      tmp->clear();
    }
    struct Restore {
      Renderer& r;
      std::string* saved_out;
      int saved_level;
      ~Restore() {
        r.out_ = saved_out;
        r.indent_level_ = saved_level;
      }
    } restore{*this, out_, indent_level_};
    if (tmp) {
      out_ = tmp;
      ++indent_level_;
    }
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
      Scope ps{ctx, target.is_inline ? target.depths : &node, nullptr, data, inlines, target.tpl};
      program(*target.program, *ctx, ps, nullptr, 0, nullptr, /*root=*/!target.is_inline);
    }
    if (tmp) {
      out_ = restore.saved_out;
      indent_into(*out_, *tmp, st.indent);
    }
  }

  friend class alknet::hbs::HelperCall;
  const Registry::Impl& impl_;
  std::string* out_;
  int depth_ = 0;
  mutable std::uint64_t steps_ = 0;  // mutable: helpers charge through a const HelperCall
  Value lookup_scratch_;
  JsValue* js_ = nullptr;  // compat mode: the JavaScript value being built (see JsValue)
  std::deque<std::string> indent_buffers_;  // deque: growing it keeps references valid
  int indent_level_ = 0;
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

void HelperCall::charge(std::uint64_t steps) const {
  renderer_->charge(*scope_, *static_cast<const detail::Loc*>(loc_), steps);
}

void HelperCall::check_size(std::size_t bytes) const {
  renderer_->check_output(*scope_, *static_cast<const detail::Loc*>(loc_), bytes);
}

void HelperCall::fail(const std::string& message) const {
  renderer_->fail(*scope_, *static_cast<const detail::Loc*>(loc_),
                  "helper '" + std::string(name_) + "': " + message);
}

}  // namespace alknet::hbs
