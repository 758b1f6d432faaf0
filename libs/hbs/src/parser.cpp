// Recursive-descent parser for the grammar of handlebars.js src/handlebars.yy, followed by the
// same whitespace pass (compiler/whitespace-control.js) and the compile-time decisions of
// compiler/compiler.js (literal-to-path, helper classification, block-parameter slots).
#include <algorithm>
#include <optional>

#include "alknet/hbs/error.h"
#include "ast.h"
#include "lexer.h"

namespace alknet::hbs::detail {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

StripFlags strip_flags(const std::string& open, const std::string& close) {
  StripFlags f;
  f.open = open.size() > 2 && open[2] == '~';
  f.close = close.size() >= 3 && close[close.size() - 3] == '~';
  return f;
}

// yy.id: "[foo bar]" names the key "foo bar" (brackets only, no newline inside).
std::string bracket_id(const std::string& token) {
  if (token.size() >= 2 && token.front() == '[' && token.back() == ']' &&
      token.find_first_of("\r\n") == std::string::npos) {
    return token.substr(1, token.size() - 2);
  }
  return token;
}

// compiler/helpers.js scopedId: /^\.|this\b/ on the original text.
bool scoped_id(const std::string& original) {
  if (!original.empty() && original[0] == '.') return true;
  for (std::size_t i = original.find("this"); i != std::string::npos;
       i = original.find("this", i + 1)) {
    std::size_t after = i + 4;
    if (after >= original.size()) return true;
    char c = original[after];
    bool word =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!word) return true;
  }
  return false;
}

struct OpenBlock {
  std::string open_text;
  Call call;
  std::vector<std::string> block_params;
  StripFlags strip;
  Loc loc;
};

struct InverseChain {
  StripFlags strip;
  std::unique_ptr<Program> program;
  bool chain = false;
};

struct CloseBlock {
  std::string original;
  StripFlags strip;
  Loc loc;
};

class Parser {
 public:
  Parser(std::string_view source, std::string name)
      : source_(source), name_(std::move(name)), toks_(tokenize(source, name_)) {}

  std::unique_ptr<Template> parse() {
    auto tpl = std::make_unique<Template>();
    tpl->name = name_;
    tpl->root = parse_program();
    if (peek().type != Tok::kEof) unexpected("a statement");
    return tpl;
  }

 private:
  const Token& peek(std::size_t ahead = 0) const {
    std::size_t i = std::min(i_ + ahead, toks_.size() - 1);
    return toks_[i];
  }
  const Token& take() {
    const Token& t = toks_[i_];
    if (i_ + 1 < toks_.size()) ++i_;
    return t;
  }

  [[noreturn]] void fail(Loc loc, const std::string& what) const {
    throw ParseError(what, name_, loc.line, loc.column);
  }

  [[noreturn]] void unexpected(const std::string& expected) const {
    const Token& t = peek();
    std::string got = token_name(t.type);
    if (t.type == Tok::kId || t.type == Tok::kInvalid || t.type == Tok::kString ||
        t.type == Tok::kNumber)
      got += " '" + t.text + "'";
    fail(t.loc, "expected " + expected + ", got " + got);
  }

  const Token& expect(Tok type, const std::string& expected) {
    if (peek().type != type) {
      if (type == Tok::kClose && peek().type == Tok::kCloseUnescaped) {
        // WGSL writes `}` right after a mustache: `{{x}}}` reads as a triple-stash close.
        fail(peek().loc,
             "'}}}' closes a '{{' mustache: Handlebars reads '}}}' as the end of a '{{{' "
             "triple-stash. If the last '}' belongs to the output (WGSL/C code), put a space or a "
             "line break between '}}' and '}'");
      }
      unexpected(expected);
    }
    return take();
  }

  static bool ends_program(Tok t) {
    return t == Tok::kOpenEndBlock || t == Tok::kInverse || t == Tok::kOpenInverseChain ||
           t == Tok::kEof || t == Tok::kEndRawBlock;
  }

  // Recursion guard: blocks and subexpressions nest at most kMaxNesting deep, so hostile input
  // cannot overflow the stack here, in the later passes or in the AST's destructors.
  static constexpr int kMaxNesting = 200;
  struct NestGuard {
    NestGuard(Parser& p, Loc loc) : p_(p) {
      if (++p_.nesting_ > kMaxNesting)
        p_.fail(loc, "blocks and subexpressions nest deeper than " + std::to_string(kMaxNesting));
    }
    ~NestGuard() { --p_.nesting_; }
    Parser& p_;
  };

  Program parse_program() {
    NestGuard guard(*this, peek().loc);
    Program p;
    while (!ends_program(peek().type)) p.body.push_back(parse_statement());
    return p;
  }

  Statement parse_statement() {
    const Token& t = peek();
    switch (t.type) {
      case Tok::kContent: {
        Statement s;
        s.type = Statement::Type::kContent;
        s.loc = t.loc;
        s.original = s.value = take().text;
        return s;
      }
      case Tok::kComment: {
        Statement s;
        s.type = Statement::Type::kComment;
        s.loc = t.loc;
        s.strip = strip_flags(t.text, t.text);
        take();
        return s;
      }
      case Tok::kOpen:
      case Tok::kOpenUnescaped: return parse_mustache();
      case Tok::kOpenBlock: return parse_block(false);
      case Tok::kOpenInverse: return parse_block(true);
      case Tok::kOpenRawBlock: return parse_raw_block();
      case Tok::kOpenPartial: return parse_partial();
      case Tok::kOpenPartialBlock: return parse_partial_block();
      default: unexpected("a statement");
    }
  }

  // pathSegments: ID (SEP ID)*, prepared as in compiler/helpers.js preparePath.
  ExprPtr parse_path(bool data, Loc loc) {
    auto e = std::make_unique<Expr>();
    e->type = Expr::Type::kPath;
    e->loc = loc;
    e->data = data;
    std::string original = data ? "@" : "";
    std::string sep;
    for (;;) {
      const Token& id = expect(Tok::kId, "an identifier");
      std::string part = bracket_id(id.text);
      bool literal = part != id.text;
      original += sep + part;
      if (!literal && (part == ".." || part == "." || part == "this")) {
        if (!e->parts.empty())
          fail(loc, "invalid path '" + original + "': '" + part + "' may only start a path");
        if (part == "..") ++e->depth;
      } else {
        e->parts.push_back(part);
      }
      if (peek().type != Tok::kSep) break;
      sep = take().text;
    }
    e->original = original;
    e->scoped = scoped_id(original);
    return e;
  }

  static std::string js_number_text(double d) {
    std::string s;
    append_js_number(s, d);
    return s;
  }

  ExprPtr literal(Loc loc, Value v, std::string original) {
    auto e = std::make_unique<Expr>();
    e->type = Expr::Type::kLiteral;
    e->loc = loc;
    e->literal = std::move(v);
    e->original = std::move(original);
    return e;
  }

  // helperName: path | dataName | STRING | NUMBER | BOOLEAN | UNDEFINED | NULL
  bool starts_helper_name(Tok t) const {
    return t == Tok::kId || t == Tok::kData || t == Tok::kString || t == Tok::kNumber ||
           t == Tok::kBoolean || t == Tok::kUndefined || t == Tok::kNull;
  }

  ExprPtr parse_helper_name() {
    const Token& t = peek();
    Loc loc = t.loc;
    switch (t.type) {
      case Tok::kId: return parse_path(false, loc);
      case Tok::kData: take(); return parse_path(true, loc);
      case Tok::kString: {
        std::string s = take().text;
        auto e = literal(loc, Value(s), s);
        e->is_string_literal = true;
        return e;
      }
      case Tok::kNumber: {
        std::string text = take().text;
        Value v;
        if (text.find('.') == std::string::npos && text.size() < 16) {
          v = Value(std::stoll(text));
        } else {
          v = Value(std::stod(text));
        }
        double d = v.as_number();
        return literal(loc, std::move(v), js_number_text(d));
      }
      case Tok::kBoolean: {
        bool b = take().text == "true";
        return literal(loc, Value(b), b ? "true" : "false");
      }
      case Tok::kUndefined: take(); return literal(loc, Value(), "undefined");
      case Tok::kNull: take(); return literal(loc, Value(nullptr), "null");
      default: unexpected("a helper name or value");
    }
  }

  ExprPtr parse_sexpr() {
    NestGuard guard(*this, peek().loc);
    Loc loc = expect(Tok::kOpenSexpr, "'('").loc;
    auto e = std::make_unique<Expr>();
    e->type = Expr::Type::kSubExpr;
    e->loc = loc;
    e->call = std::make_unique<Call>();
    e->call->path = parse_helper_name();
    parse_params_and_hash(*e->call);
    expect(Tok::kCloseSexpr, "')'");
    return e;
  }

  ExprPtr parse_param() {
    if (peek().type == Tok::kOpenSexpr) return parse_sexpr();
    return parse_helper_name();
  }

  void parse_params_and_hash(Call& call) {
    for (;;) {
      Tok t = peek().type;
      if (t == Tok::kId && peek(1).type == Tok::kEquals) break;
      if (t == Tok::kOpenSexpr || starts_helper_name(t)) {
        call.params.push_back(parse_param());
        continue;
      }
      break;
    }
    while (peek().type == Tok::kId && peek(1).type == Tok::kEquals) {
      std::string key = bracket_id(take().text);
      take();
      call.hash.push_back(HashPair{std::move(key), parse_param()});
    }
    // handlebars.js assigns hash pairs last to first, so the hash object's key order is reversed
    // (and of two equal keys the first one written wins); keep that order.
    std::reverse(call.hash.begin(), call.hash.end());
    for (std::size_t i = 0; i < call.hash.size(); ++i) {
      for (std::size_t j = i + 1; j < call.hash.size();) {
        if (call.hash[j].key == call.hash[i].key) {
          call.hash[i].value = std::move(call.hash[j].value);
          call.hash.erase(call.hash.begin() + static_cast<std::ptrdiff_t>(j));
        } else {
          ++j;
        }
      }
    }
    // handlebars.js leaves `key=undefined` (the literal) out of the hash object it builds.
    std::erase_if(call.hash, [](const HashPair& h) {
      return h.value->type == Expr::Type::kLiteral && h.value->literal.is_undefined();
    });
  }

  Statement parse_mustache() {
    const Token& open = take();
    Statement s;
    s.loc = open.loc;
    s.call.path = parse_helper_name();
    parse_params_and_hash(s.call);
    bool unescaped_open = open.type == Tok::kOpenUnescaped;
    const Token& close =
        unescaped_open ? expect(Tok::kCloseUnescaped, "'}}}'") : expect(Tok::kClose, "'}}'");
    s.strip = strip_flags(open.text, close.text);
    char flag = open.text.size() > 3 ? open.text[3] : open.text[2];
    s.escaped = flag != '{' && flag != '&';
    s.type = open.text.find('*') != std::string::npos ? Statement::Type::kDecorator
                                                      : Statement::Type::kMustache;
    return s;
  }

  OpenBlock parse_open_block() {
    const Token& open = take();
    OpenBlock ob;
    ob.open_text = open.text;
    ob.loc = open.loc;
    ob.call.path = parse_helper_name();
    parse_params_and_hash(ob.call);
    if (peek().type == Tok::kOpenBlockParams) {
      take();
      do {
        ob.block_params.push_back(bracket_id(expect(Tok::kId, "a block parameter name").text));
      } while (peek().type == Tok::kId);
      expect(Tok::kCloseBlockParams, "'|'");
    }
    const Token& close = expect(Tok::kClose, "'}}'");
    ob.strip = strip_flags(open.text, close.text);
    return ob;
  }

  CloseBlock parse_close_block() {
    const Token& open = expect(Tok::kOpenEndBlock, "'{{/name}}'");
    CloseBlock cb;
    cb.loc = open.loc;
    ExprPtr path = parse_helper_name();
    cb.original = path->original;
    const Token& close = expect(Tok::kClose, "'}}'");
    cb.strip = strip_flags(open.text, close.text);
    return cb;
  }

  void validate_close(const OpenBlock& open, const std::string& close, Loc close_loc) const {
    if (open.call.path->original != close) {
      fail(close_loc, "'{{/" + close + "}}' does not close '" + open.call.path->original +
                          "' (opened at line " + std::to_string(open.loc.line) + ":" +
                          std::to_string(open.loc.column) + ")");
    }
  }

  // compiler/helpers.js prepareBlock.
  Statement prepare_block(OpenBlock open, std::unique_ptr<Program> program,
                          std::optional<InverseChain> inverse_and_program, const CloseBlock* close,
                          const StripFlags* close_strip, bool inverted) {
    if (close) validate_close(open, close->original, close->loc);
    bool decorator = open.open_text.find('*') != std::string::npos;
    program->block_params = std::move(open.block_params);
    Statement s;
    s.type = decorator ? Statement::Type::kDecoratorBlock : Statement::Type::kBlock;
    s.loc = open.loc;
    std::unique_ptr<Program> inverse;
    if (inverse_and_program) {
      if (decorator) fail(open.loc, "unexpected '{{else}}' in a decorator block");
      if (inverse_and_program->chain && close_strip)
        inverse_and_program->program->body[0].close_strip = *close_strip;
      s.inverse_strip = inverse_and_program->strip;
      inverse = std::move(inverse_and_program->program);
    }
    if (inverted) std::swap(program, inverse);
    s.call = std::move(open.call);
    s.program = std::move(program);
    s.inverse = std::move(inverse);
    s.open_strip = open.strip;
    if (close_strip) s.close_strip = *close_strip;
    return s;
  }

  std::optional<InverseChain> parse_inverse_chain() {
    if (peek().type == Tok::kInverse) {
      const Token& t = take();
      InverseChain ic;
      ic.strip = strip_flags(t.text, t.text);
      ic.program = std::make_unique<Program>(parse_program());
      return ic;
    }
    OpenBlock open = parse_open_block();
    StripFlags open_strip = open.strip;
    auto program = std::make_unique<Program>(parse_program());
    std::optional<InverseChain> inner;
    if (peek().type == Tok::kInverse || peek().type == Tok::kOpenInverseChain)
      inner = parse_inverse_chain();
    std::optional<StripFlags> inner_strip;
    if (inner) inner_strip = inner->strip;
    Statement block = prepare_block(std::move(open), std::move(program), std::move(inner), nullptr,
                                    inner_strip ? &*inner_strip : nullptr, false);
    InverseChain ic;
    ic.strip = open_strip;
    ic.program = std::make_unique<Program>();
    ic.program->body.push_back(std::move(block));
    ic.program->chained = true;
    ic.chain = true;
    return ic;
  }

  Statement parse_block(bool inverted) {
    OpenBlock open = parse_open_block();
    auto program = std::make_unique<Program>(parse_program());
    std::optional<InverseChain> inverse;
    if (!inverted) {
      if (peek().type == Tok::kInverse || peek().type == Tok::kOpenInverseChain)
        inverse = parse_inverse_chain();
    } else if (peek().type == Tok::kInverse) {
      const Token& t = take();
      InverseChain ic;
      ic.strip = strip_flags(t.text, t.text);
      ic.program = std::make_unique<Program>(parse_program());
      inverse = std::move(ic);
    }
    if (peek().type != Tok::kOpenEndBlock) {
      if (peek().type == Tok::kEof)
        fail(open.loc, "'{{" + std::string(inverted ? "^" : "#") + open.call.path->original +
                           "}}' is never closed: add '{{/" + open.call.path->original + "}}'");
      unexpected("'{{/" + open.call.path->original + "}}'");
    }
    CloseBlock close = parse_close_block();
    return prepare_block(std::move(open), std::move(program), std::move(inverse), &close,
                         &close.strip, inverted);
  }

  Statement parse_raw_block() {
    const Token& open_tok = take();
    OpenBlock open;
    open.loc = open_tok.loc;
    open.call.path = parse_helper_name();
    parse_params_and_hash(open.call);
    expect(Tok::kCloseRawBlock, "'}}}}'");
    auto program = std::make_unique<Program>();
    while (peek().type == Tok::kContent) {
      Statement c;
      c.type = Statement::Type::kContent;
      c.loc = peek().loc;
      c.original = c.value = take().text;
      program->body.push_back(std::move(c));
    }
    if (peek().type != Tok::kEndRawBlock) unexpected("'{{{{/" + open.call.path->original + "}}}}'");
    const Token& end = take();
    validate_close(open, end.text, end.loc);
    Statement s;
    s.type = Statement::Type::kBlock;
    s.loc = open.loc;
    s.call = std::move(open.call);
    s.program = std::move(program);
    return s;
  }

  // partialName: helperName | sexpr
  ExprPtr parse_partial_name() {
    if (peek().type == Tok::kOpenSexpr) return parse_sexpr();
    return parse_helper_name();
  }

  Statement parse_partial() {
    const Token& open = take();
    Statement s;
    s.type = Statement::Type::kPartial;
    s.loc = open.loc;
    s.call.path = parse_partial_name();
    parse_params_and_hash(s.call);
    const Token& close = expect(Tok::kClose, "'}}'");
    s.strip = strip_flags(open.text, close.text);
    return s;
  }

  Statement parse_partial_block() {
    const Token& open_tok = take();
    OpenBlock open;
    open.loc = open_tok.loc;
    open.call.path = parse_partial_name();
    parse_params_and_hash(open.call);
    const Token& close_tok = expect(Tok::kClose, "'}}'");
    open.strip = strip_flags(open_tok.text, close_tok.text);
    auto program = std::make_unique<Program>(parse_program());
    if (peek().type != Tok::kOpenEndBlock) unexpected("'{{/" + open.call.path->original + "}}'");
    CloseBlock close = parse_close_block();
    validate_close(open, close.original, close.loc);
    Statement s;
    s.type = Statement::Type::kPartialBlock;
    s.loc = open.loc;
    s.call = std::move(open.call);
    s.program = std::move(program);
    s.open_strip = open.strip;
    s.close_strip = close.strip;
    return s;
  }

  std::string_view source_;
  std::string name_;
  std::vector<Token> toks_;
  std::size_t i_ = 0;
  int nesting_ = 0;
};

// ---- WhitespaceControl (compiler/whitespace-control.js) ----

struct StandaloneInfo {
  bool open = false, close = false;
  bool open_standalone = false, close_standalone = false, inline_standalone = false;
};

// /\r?\n\s*?$/ (or with (^|\r?\n) when `start_ok`) on text: ends with a newline plus spaces.
bool ends_with_newline_ws(const std::string& s, bool start_ok) {
  // \s*? may span several lines: the maximal trailing whitespace run must hold a newline.
  std::size_t j = s.size();
  while (j > 0 && is_space(s[j - 1])) --j;
  bool has_newline = s.find('\n', j) != std::string::npos;
  if (has_newline) return true;
  return start_ok && j == 0;
}

// /^\s*?\r?\n/ (or (\r?\n|$) when `end_ok`): starts with spaces and a newline.
bool starts_with_ws_newline(const std::string& s, bool end_ok) {
  std::size_t j = 0;
  while (j < s.size() && is_space(s[j])) ++j;
  bool has_newline = s.find('\n') < j;
  if (has_newline) return true;
  return end_ok && j == s.size();
}

bool is_prev_whitespace(const std::vector<Statement>& body, std::size_t i, bool is_root) {
  if (i == 0) return is_root;
  const Statement& prev = body[i - 1];
  if (prev.type != Statement::Type::kContent) return false;
  bool sibling = i >= 2;
  return ends_with_newline_ws(prev.original, !(sibling || !is_root));
}

bool is_next_whitespace(const std::vector<Statement>& body, std::ptrdiff_t i, bool is_root) {
  std::size_t n = static_cast<std::size_t>(i + 1);
  if (n >= body.size()) return is_root;
  const Statement& next = body[n];
  if (next.type != Statement::Type::kContent) return false;
  bool sibling = n + 1 < body.size();
  return starts_with_ws_newline(next.original, !(sibling || !is_root));
}

// omitRight: the content after position i (i == -1: the first node).
void omit_right(std::vector<Statement>& body, std::ptrdiff_t i, bool multiple) {
  std::size_t n = static_cast<std::size_t>(i + 1);
  if (n >= body.size()) return;
  Statement& cur = body[n];
  if (cur.type != Statement::Type::kContent || (!multiple && cur.right_stripped)) return;
  std::string& v = cur.value;
  std::size_t cut = 0;
  if (multiple) {
    while (cut < v.size() && is_space(v[cut])) ++cut;
  } else {
    while (cut < v.size() && (v[cut] == ' ' || v[cut] == '\t')) ++cut;
    if (cut < v.size() && v[cut] == '\r') {
      if (cut + 1 < v.size() && v[cut + 1] == '\n') cut += 2;
    } else if (cut < v.size() && v[cut] == '\n') {
      ++cut;
    }
  }
  if (cut > 0) v.erase(0, cut);
  cur.right_stripped = cut > 0;
}

// omitLeft: the content before position i (i == size: the last node). Returns leftStripped.
bool omit_left(std::vector<Statement>& body, std::size_t i, bool multiple) {
  if (i == 0 || i > body.size()) return false;
  Statement& cur = body[i - 1];
  if (cur.type != Statement::Type::kContent || (!multiple && cur.left_stripped)) return false;
  std::string& v = cur.value;
  std::size_t keep = v.size();
  if (multiple) {
    while (keep > 0 && is_space(v[keep - 1])) --keep;
  } else {
    while (keep > 0 && (v[keep - 1] == ' ' || v[keep - 1] == '\t')) --keep;
  }
  bool changed = keep != v.size();
  v.resize(keep);
  cur.left_stripped = changed;
  return changed;
}

class WhitespaceControl {
 public:
  void program(Program& p) {
    bool is_root = !root_seen_;
    root_seen_ = true;
    auto& body = p.body;
    for (std::size_t i = 0; i < body.size(); ++i) {
      Statement& cur = body[i];
      std::optional<StandaloneInfo> strip = accept(cur);
      if (!strip) continue;
      bool prev_ws = is_prev_whitespace(body, i, is_root);
      bool next_ws = is_next_whitespace(body, static_cast<std::ptrdiff_t>(i), is_root);
      bool open_standalone = strip->open_standalone && prev_ws;
      bool close_standalone = strip->close_standalone && next_ws;
      bool inline_standalone = strip->inline_standalone && prev_ws && next_ws;
      const auto si = static_cast<std::ptrdiff_t>(i);
      if (strip->close) omit_right(body, si, true);
      if (strip->open) omit_left(body, i, true);
      if (inline_standalone) {
        omit_right(body, si, false);
        if (omit_left(body, i, false) && cur.type == Statement::Type::kPartial) {
          const std::string& o = body[i - 1].original;
          std::size_t k = o.size();
          while (k > 0 && (o[k - 1] == ' ' || o[k - 1] == '\t')) --k;
          cur.indent = o.substr(k);
        }
      }
      if (open_standalone) {
        Program& inner = cur.program ? *cur.program : *cur.inverse;
        omit_right(inner.body, -1, false);
        omit_left(body, i, false);
      }
      if (close_standalone) {
        omit_right(body, si, false);
        Program& inner = cur.inverse ? *cur.inverse : *cur.program;
        omit_left(inner.body, inner.body.size(), false);
      }
    }
  }

 private:
  std::optional<StandaloneInfo> accept(Statement& s) {
    switch (s.type) {
      case Statement::Type::kContent: return std::nullopt;
      case Statement::Type::kMustache:
      case Statement::Type::kDecorator: {
        StandaloneInfo info;
        info.open = s.strip.open;
        info.close = s.strip.close;
        return info;
      }
      case Statement::Type::kPartial:
      case Statement::Type::kComment: {
        StandaloneInfo info;
        info.inline_standalone = true;
        info.open = s.strip.open;
        info.close = s.strip.close;
        return info;
      }
      case Statement::Type::kBlock:
      case Statement::Type::kDecoratorBlock:
      case Statement::Type::kPartialBlock: return block(s);
    }
    return std::nullopt;
  }

  StandaloneInfo block(Statement& b) {
    if (b.program) program(*b.program);
    if (b.inverse) program(*b.inverse);
    Program& prog = b.program ? *b.program : *b.inverse;
    Program* inverse = b.program ? b.inverse.get() : nullptr;
    Program* first_inverse = inverse;
    Program* last_inverse = inverse;
    if (inverse && inverse->chained) {
      first_inverse = inverse->body[0].program.get();
      while (last_inverse->chained) {
        last_inverse = last_inverse->body.back().program.get();
      }
    }
    StandaloneInfo strip;
    strip.open = b.open_strip.open;
    strip.close = b.close_strip.close;
    strip.open_standalone = is_next_whitespace(prog.body, -1, false);
    strip.close_standalone =
        is_prev_whitespace((first_inverse ? *first_inverse : prog).body,
                           (first_inverse ? *first_inverse : prog).body.size(), false);
    if (b.open_strip.close) omit_right(prog.body, -1, true);
    if (inverse) {
      if (b.inverse_strip.open) omit_left(prog.body, prog.body.size(), true);
      if (b.inverse_strip.close) omit_right(first_inverse->body, -1, true);
      if (b.close_strip.open) omit_left(last_inverse->body, last_inverse->body.size(), true);
      if (is_prev_whitespace(prog.body, prog.body.size(), false) &&
          is_next_whitespace(first_inverse->body, -1, false)) {
        omit_left(prog.body, prog.body.size(), false);
        omit_right(first_inverse->body, -1, false);
      }
    } else if (b.close_strip.open) {
      omit_left(prog.body, prog.body.size(), true);
    }
    return strip;
  }

  bool root_seen_ = false;
};

// ---- compile-time resolution (compiler/compiler.js) ----

bool is_known_helper(const std::string& name) {
  static const char* const kKnown[] = {
      "helperMissing", "blockHelperMissing", "each", "if", "unless", "with", "log", "lookup"};
  return std::any_of(std::begin(kKnown), std::end(kKnown),
                     [&](const char* k) { return name == k; });
}

class Resolver {
 public:
  explicit Resolver(const std::string& name) : name_(name) {}

  void program(Program& p) {
    p.js_simple = p.body.size() == 1;
    // Whitespace control is done: text it emptied is dead weight in every render.
    std::erase_if(p.body, [](const Statement& s) {
      return s.type == Statement::Type::kContent && s.value.empty();
    });
    bool pushed = !p.block_params.empty();
    if (pushed) scopes_.push_back(&p.block_params);
    for (auto& s : p.body) statement(s, p);
    if (pushed) scopes_.pop_back();
  }

 private:
  [[noreturn]] void fail(Loc loc, const std::string& what) const {
    throw ParseError(what, name_, loc.line, loc.column);
  }

  bool find_block_param(const std::string& name, int& level, int& index) const {
    for (std::size_t d = 0; d < scopes_.size(); ++d) {
      const auto& params = *scopes_[scopes_.size() - 1 - d];
      auto it = std::find(params.begin(), params.end(), name);
      if (it != params.end()) {
        level = static_cast<int>(d);
        index = static_cast<int>(it - params.begin());
        return true;
      }
    }
    return false;
  }

  void expr(Expr& e) {
    switch (e.type) {
      case Expr::Type::kPath:
        if (e.depth == 0 && !e.scoped && !e.parts.empty())
          find_block_param(e.parts[0], e.block_param_level, e.block_param_index);
        break;
      case Expr::Type::kLiteral: break;
      case Expr::Type::kSubExpr: call(*e.call, true); break;
    }
  }

  // transformLiteralToPath: `{{"foo"}}` and `{{true}}` look up a key of that name.
  static void literal_to_path(Call& c) {
    if (c.path->type != Expr::Type::kLiteral) return;
    Expr& p = *c.path;
    p.type = Expr::Type::kPath;
    p.parts = {p.original};
    p.data = false;
    p.depth = 0;
    p.scoped = false;
  }

  void call(Call& c, bool is_sexpr) {
    literal_to_path(c);
    expr(*c.path);
    for (auto& p : c.params) expr(*p);
    for (auto& h : c.hash) expr(*h.value);
    const Expr& path = *c.path;
    bool simple = path.parts.size() == 1 && !path.scoped && path.depth == 0;
    bool block_param = simple && path.block_param_level >= 0;
    bool helper = !block_param && (is_sexpr || !c.params.empty() || !c.hash.empty());
    bool eligible = !block_param && (helper || simple);
    if (eligible && !helper && is_known_helper(path.parts[0])) helper = true;
    c.kind = helper ? CallKind::kHelper : eligible ? CallKind::kAmbiguous : CallKind::kSimple;
  }

  void partial_call(Statement& s) {
    if (s.call.params.size() > 1)
      fail(s.loc, "a partial takes at most one context argument, got " +
                      std::to_string(s.call.params.size()) + " (use hash arguments: name=value)");
    if (s.call.path->type == Expr::Type::kSubExpr) call(*s.call.path->call, true);
    for (auto& p : s.call.params) expr(*p);
    for (auto& h : s.call.hash) expr(*h.value);
  }

  void statement(Statement& s, Program& owner) {
    switch (s.type) {
      case Statement::Type::kContent:
      case Statement::Type::kComment: return;
      case Statement::Type::kMustache: call(s.call, false); return;
      case Statement::Type::kBlock:
        call(s.call, false);
        if (s.program) program(*s.program);
        if (s.inverse) program(*s.inverse);
        return;
      case Statement::Type::kPartial: partial_call(s); return;
      case Statement::Type::kPartialBlock:
        partial_call(s);
        program(*s.program);
        return;
      case Statement::Type::kDecorator:
        fail(s.loc, "decorator '" + s.call.path->original +
                        "' is not supported (only the {{#*inline \"name\"}} block decorator is)");
      case Statement::Type::kDecoratorBlock: {
        if (s.call.path->original != "inline")
          fail(s.loc, "decorator '" + s.call.path->original +
                          "' is not supported (only the {{#*inline \"name\"}} block decorator is)");
        if (s.call.params.size() > 1 ||
            (s.call.params.size() == 1 && s.call.params[0]->type != Expr::Type::kLiteral))
          fail(s.loc,
               "{{#*inline}} needs the partial name as its one argument, e.g. "
               "{{#*inline \"name\"}}");
        // Inline partials render as partials: a fresh scope, no block params from outside.
        auto saved = std::move(scopes_);
        scopes_.clear();
        program(*s.program);
        scopes_ = std::move(saved);
        // No name registers the partial "undefined", as handlebars.js does.
        owner.inline_partials.emplace_back(
            s.call.params.empty() ? "undefined" : s.call.params[0]->original, s.program.get());
        return;
      }
    }
  }

  const std::string& name_;
  std::vector<const std::vector<std::string>*> scopes_;
};

}  // namespace

std::unique_ptr<Template> parse_template(std::string_view source, std::string name) {
  auto tpl = Parser(source, std::move(name)).parse();
  WhitespaceControl().program(tpl->root);
  Resolver(tpl->name).program(tpl->root);
  return tpl;
}

}  // namespace alknet::hbs::detail
