#include "lexer.h"

#include <algorithm>

#include "alknet/hbs/error.h"

namespace alknet::hbs::detail {

const char* token_name(Tok t) {
  switch (t) {
    case Tok::kContent: return "CONTENT";
    case Tok::kComment: return "COMMENT";
    case Tok::kOpenRawBlock: return "'{{{{'";
    case Tok::kCloseRawBlock: return "'}}}}'";
    case Tok::kEndRawBlock: return "END_RAW_BLOCK";
    case Tok::kOpenSexpr: return "'('";
    case Tok::kCloseSexpr: return "')'";
    case Tok::kOpenPartial: return "'{{>'";
    case Tok::kOpenPartialBlock: return "'{{#>'";
    case Tok::kOpenBlock: return "'{{#'";
    case Tok::kOpenEndBlock: return "'{{/'";
    case Tok::kInverse: return "'{{else}}'";
    case Tok::kOpenInverse: return "'{{^'";
    case Tok::kOpenInverseChain: return "'{{else'";
    case Tok::kOpenUnescaped: return "'{{{'";
    case Tok::kOpen: return "'{{'";
    case Tok::kEquals: return "'='";
    case Tok::kId: return "an identifier";
    case Tok::kSep: return "a path separator";
    case Tok::kCloseUnescaped: return "'}}}'";
    case Tok::kClose: return "'}}'";
    case Tok::kString: return "a string";
    case Tok::kData: return "'@'";
    case Tok::kBoolean: return "a boolean";
    case Tok::kUndefined: return "'undefined'";
    case Tok::kNull: return "'null'";
    case Tok::kNumber: return "a number";
    case Tok::kOpenBlockParams: return "'as |'";
    case Tok::kCloseBlockParams: return "'|'";
    case Tok::kInvalid: return "an invalid character";
    case Tok::kEof: return "end of input";
  }
  return "?";
}

Loc locate(std::string_view source, std::size_t pos) {
  Loc loc;
  pos = std::min(pos, source.size());
  for (std::size_t i = 0; i < pos; ++i) {
    if (source[i] == '\n') {
      ++loc.line;
      loc.column = 1;
    } else {
      ++loc.column;
    }
  }
  return loc;
}

namespace {

// JavaScript's \s restricted to ASCII (docs/handlebars.md lists this difference).
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
bool is_word(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
// The ID character class [^\s!"#%-,\.\/;->@\[-\^`\{-~].
bool is_id_char(char c) {
  if (is_space(c)) return false;
  unsigned char u = static_cast<unsigned char>(c);
  if (u >= 0x80) return true;
  if (c == '!' || c == '"' || c == '#') return false;
  if (c >= '%' && c <= ',') return false;
  if (c == '.' || c == '/') return false;
  if (c >= ';' && c <= '>') return false;
  if (c == '@') return false;
  if (c >= '[' && c <= '^') return false;
  if (c == '`') return false;
  if (c >= '{' && c <= '~') return false;
  return true;
}
// Lookaheads used by the rules: [=~}\s\/.)|] for IDs, [~}\s)] for literals.
bool id_lookahead(char c) {
  return c == '=' || c == '~' || c == '}' || is_space(c) || c == '/' || c == '.' || c == ')' ||
         c == '|';
}
bool literal_lookahead(char c) { return c == '~' || c == '}' || is_space(c) || c == ')'; }

enum class State { kInitial, kMu, kEmu, kCom, kRaw };

class Lexer {
 public:
  Lexer(std::string_view src, const std::string& name)
      : s_(src), name_(name), nul_(src.find('\0')) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      Token t = next();
      bool eof = t.type == Tok::kEof;
      out.push_back(std::move(t));
      if (eof) return out;
    }
  }

 private:
  bool at(std::size_t p, std::string_view w) const { return s_.substr(p, w.size()) == w; }
  char ch(std::size_t p) const { return p < s_.size() ? s_[p] : '\0'; }
  bool has(std::size_t p) const { return p < s_.size(); }

  [[noreturn]] void fail(std::size_t pos, const std::string& what) const {
    Loc l = locate(s_, pos);
    throw ParseError(what, name_, l.line, l.column);
  }

  Token make(Tok type, std::size_t start, std::size_t end, std::string text) {
    pos_ = end;
    return Token{type, std::move(text), start, locate_fast(start)};
  }
  Token make(Tok type, std::size_t start, std::size_t end) {
    return make(type, start, end, std::string(s_.substr(start, end - start)));
  }

  // Incremental line/column: tokens arrive in source order.
  Loc locate_fast(std::size_t pos) {
    for (; loc_pos_ < pos; ++loc_pos_) {
      if (s_[loc_pos_] == '\n') {
        ++loc_.line;
        loc_.column = 1;
      } else {
        ++loc_.column;
      }
    }
    return loc_;
  }

  State state() const { return stack_.back(); }
  void push(State st) { stack_.push_back(st); }
  void pop() {
    if (stack_.size() > 1) stack_.pop_back();
  }

  Token next() {
    for (;;) {
      switch (state()) {
        case State::kInitial: {
          if (pos_ >= s_.size()) return make(Tok::kEof, pos_, pos_, "");
          // Rule 0: text (no NUL) up to the next "{{".
          std::size_t open = s_.find("{{", pos_);
          if (nul_ != std::string_view::npos && nul_ < pos_) nul_ = s_.find('\0', pos_);
          std::size_t nul = nul_;
          if (open != std::string_view::npos && (nul == std::string_view::npos || nul > open)) {
            std::size_t start = pos_;
            std::string text(s_.substr(start, open - start));
            if (text.size() >= 2 && text.compare(text.size() - 2, 2, "\\\\") == 0) {
              text.pop_back();
              push(State::kMu);
            } else if (!text.empty() && text.back() == '\\') {
              text.pop_back();
              push(State::kEmu);
            } else {
              push(State::kMu);
            }
            pos_ = open;
            if (!text.empty())
              return Token{Tok::kContent, std::move(text), start, locate_fast(start)};
            continue;
          }
          // Rule 1: the rest of the text.
          std::size_t end = nul == std::string_view::npos ? s_.size() : nul;
          if (end > pos_) return make(Tok::kContent, pos_, end);
          fail(pos_, "NUL byte in template text");
        }
        case State::kEmu: {
          // Rule 2: at least two characters, up to the next "{{", "\{{", "\\{{" or the end.
          std::size_t start = pos_;
          std::size_t k = start + 2;
          for (;; ++k) {
            if (k > s_.size()) fail(start, "unexpected end of template after an escaped mustache");
            if (k == s_.size() || at(k, "{{") || at(k, "\\{{") || at(k, "\\\\{{")) break;
          }
          if (s_.substr(start, k - start).find('\0') != std::string_view::npos)
            fail(start, "NUL byte in template text");
          pop();
          return make(Tok::kContent, start, k);
        }
        case State::kCom: {
          // Rule 6: everything up to the first "--}}" or "--~}}".
          std::size_t start = pos_;
          for (std::size_t i = start; i < s_.size(); ++i) {
            if (at(i, "--}}")) {
              pop();
              return make(Tok::kComment, start, i + 4);
            }
            if (at(i, "--~}}")) {
              pop();
              return make(Tok::kComment, start, i + 5);
            }
          }
          fail(start, "unterminated comment: '{{!--' needs a matching '--}}'");
        }
        case State::kRaw: return lex_raw();
        case State::kMu: {
          Token t;
          if (lex_mu(t)) return t;
          continue;
        }
      }
    }
  }

  Token lex_raw() {
    std::size_t start = pos_;
    // Rule 3: a nested raw open.
    if (at(start, "{{{{") && ch(start + 4) != '/' && has(start + 4)) {
      push(State::kRaw);
      return make(Tok::kContent, start, start + 4);
    }
    // Rule 4: a raw close "{{{{/name}}}}".
    if (at(start, "{{{{/")) {
      std::size_t p = start + 5;
      while (has(p) && is_id_char(s_[p])) ++p;
      if (p > start + 5 && has(p) &&
          (s_[p] == '=' || s_[p] == '}' || is_space(s_[p]) || s_[p] == '/' || s_[p] == '.') &&
          at(p, "}}}}")) {
        pop();
        if (state() == State::kRaw) return make(Tok::kContent, start, p + 4);
        return make(Tok::kEndRawBlock, start, p + 4,
                    std::string(s_.substr(start + 5, p - start - 5)));
      }
    }
    // Rule 5: text up to the next "{{{{" (at least one character).
    std::size_t next = s_.find("{{{{", start + 1);
    if (next == std::string_view::npos)
      fail(start, "unterminated raw block: '{{{{name}}}}' needs a matching '{{{{/name}}}}'");
    if (s_.substr(start, next - start).find('\0') != std::string_view::npos)
      fail(start, "NUL byte in template text");
    return make(Tok::kContent, start, next);
  }

  // Matches "{{" "~"? at p; returns the index after it.
  std::size_t open_at(std::size_t p) const {
    if (!at(p, "{{")) return std::string_view::npos;
    p += 2;
    if (ch(p) == '~' && has(p)) ++p;
    return p;
  }

  bool lex_mu(Token& t) {
    const std::size_t p = pos_;
    if (p >= s_.size()) {  // rule 44
      t = make(Tok::kEof, p, p, "");
      return true;
    }
    char c = s_[p];
    if (c == '(') {
      t = make(Tok::kOpenSexpr, p, p + 1);
      return true;
    }
    if (c == ')') {
      t = make(Tok::kCloseSexpr, p, p + 1);
      return true;
    }
    if (at(p, "{{{{")) {
      t = make(Tok::kOpenRawBlock, p, p + 4);
      return true;
    }
    if (at(p, "}}}}")) {
      pop();
      push(State::kRaw);
      t = make(Tok::kCloseRawBlock, p, p + 4);
      return true;
    }
    std::size_t o = open_at(p);
    if (o != std::string_view::npos) {
      if (ch(o) == '>' && has(o)) {
        t = make(Tok::kOpenPartial, p, o + 1);
        return true;
      }
      if (at(o, "#>")) {
        t = make(Tok::kOpenPartialBlock, p, o + 2);
        return true;
      }
      if (ch(o) == '#' && has(o)) {
        std::size_t e = o + 1;
        if (ch(e) == '*' && has(e)) ++e;
        t = make(Tok::kOpenBlock, p, e);
        return true;
      }
      if (ch(o) == '/' && has(o)) {
        t = make(Tok::kOpenEndBlock, p, o + 1);
        return true;
      }
      if (ch(o) == '^' && has(o)) {  // rule 15: "{{^}}" is an inverse
        std::size_t e = o + 1;
        while (has(e) && is_space(s_[e])) ++e;
        if (ch(e) == '~' && has(e)) ++e;
        if (at(e, "}}")) {
          pop();
          t = make(Tok::kInverse, p, e + 2);
          return true;
        }
      }
      {  // rule 16: "{{else}}"
        std::size_t e = o;
        while (has(e) && is_space(s_[e])) ++e;
        if (at(e, "else")) {
          std::size_t f = e + 4;
          while (has(f) && is_space(s_[f])) ++f;
          if (ch(f) == '~' && has(f)) ++f;
          if (at(f, "}}")) {
            pop();
            t = make(Tok::kInverse, p, f + 2);
            return true;
          }
        }
      }
      if (ch(o) == '^' && has(o)) {
        t = make(Tok::kOpenInverse, p, o + 1);
        return true;
      }
      {  // rule 18: "{{else" followed by a word boundary
        std::size_t e = o;
        while (has(e) && is_space(s_[e])) ++e;
        if (at(e, "else") && !(has(e + 4) && is_word(s_[e + 4]))) {
          t = make(Tok::kOpenInverseChain, p, e + 4);
          return true;
        }
      }
      if (ch(o) == '{' && has(o)) {
        t = make(Tok::kOpenUnescaped, p, o + 1);
        return true;
      }
      if (ch(o) == '&' && has(o)) {
        t = make(Tok::kOpen, p, o + 1);
        return true;
      }
      if (at(o, "!--")) {  // rule 21: re-read from here in the comment state
        pop();
        push(State::kCom);
        return false;
      }
      if (ch(o) == '!' && has(o)) {  // rule 22
        std::size_t e = s_.find("}}", o + 1);
        if (e != std::string_view::npos) {
          pop();
          t = make(Tok::kComment, p, e + 2);
          return true;
        }
      }
      std::size_t e = o;  // rule 23
      if (ch(e) == '*' && has(e)) ++e;
      t = make(Tok::kOpen, p, e);
      return true;
    }
    if (c == '=') {
      t = make(Tok::kEquals, p, p + 1);
      return true;
    }
    if (at(p, "..")) {
      t = make(Tok::kId, p, p + 2);
      return true;
    }
    if (c == '.' && has(p + 1) && id_lookahead(s_[p + 1])) {
      t = make(Tok::kId, p, p + 1);
      return true;
    }
    if (c == '.' || c == '/') {
      t = make(Tok::kSep, p, p + 1);
      return true;
    }
    if (is_space(c)) {
      std::size_t e = p;
      while (has(e) && is_space(s_[e])) ++e;
      pos_ = e;
      return false;
    }
    if (at(p, "}}}") || at(p, "}~}}")) {
      pop();
      t = make(Tok::kCloseUnescaped, p, p + (s_[p + 1] == '~' ? 4 : 3));
      return true;
    }
    if (at(p, "}}") || at(p, "~}}")) {
      pop();
      t = make(Tok::kClose, p, p + (c == '~' ? 3 : 2));
      return true;
    }
    if (c == '"' || c == '\'') return lex_quoted(t, c);
    if (c == '@') {
      t = make(Tok::kData, p, p + 1);
      return true;
    }
    for (auto [word, type] : {std::pair{std::string_view("true"), Tok::kBoolean},
                              std::pair{std::string_view("false"), Tok::kBoolean},
                              std::pair{std::string_view("undefined"), Tok::kUndefined},
                              std::pair{std::string_view("null"), Tok::kNull}}) {
      if (at(p, word) && has(p + word.size()) && literal_lookahead(s_[p + word.size()])) {
        t = make(type, p, p + word.size());
        return true;
      }
    }
    {  // rule 38: -?[0-9]+(?:\.[0-9]+)? followed by a literal lookahead
      std::size_t e = p;
      if (ch(e) == '-' && has(e)) ++e;
      std::size_t d = e;
      while (has(e) && s_[e] >= '0' && s_[e] <= '9') ++e;
      if (e > d) {
        std::size_t int_end = e;
        if (ch(e) == '.' && has(e)) {
          std::size_t f = e + 1;
          while (has(f) && s_[f] >= '0' && s_[f] <= '9') ++f;
          if (f > e + 1 && has(f) && literal_lookahead(s_[f])) {
            t = make(Tok::kNumber, p, f);
            return true;
          }
        }
        if (has(int_end) && literal_lookahead(s_[int_end])) {
          t = make(Tok::kNumber, p, int_end);
          return true;
        }
      }
    }
    if (at(p, "as") && has(p + 2) && is_space(s_[p + 2])) {  // rule 39
      std::size_t e = p + 2;
      while (has(e) && is_space(s_[e])) ++e;
      if (ch(e) == '|' && has(e)) {
        t = make(Tok::kOpenBlockParams, p, e + 1);
        return true;
      }
    }
    if (c == '|') {
      t = make(Tok::kCloseBlockParams, p, p + 1);
      return true;
    }
    if (is_id_char(c)) {  // rule 41
      std::size_t e = p;
      while (has(e) && is_id_char(s_[e])) ++e;
      if (has(e) && id_lookahead(s_[e])) {
        t = make(Tok::kId, p, e);
        return true;
      }
    }
    if (c == '[') {  // rule 42: [...] with \] and \\ escapes
      std::size_t e;
      if (scan_delimited(p, ']', e)) {
        std::string raw(s_.substr(p, e - p));
        std::string text;
        for (std::size_t i = 0; i < raw.size(); ++i) {
          if (raw[i] == '\\' && i + 1 < raw.size() && (raw[i + 1] == '\\' || raw[i + 1] == ']')) {
            text += raw[++i];
          } else {
            text += raw[i];
          }
        }
        t = make(Tok::kId, p, e, std::move(text));
        return true;
      }
    }
    t = make(Tok::kInvalid, p, p + 1);  // rule 43
    return true;
  }

  // The regex /Q(\\Q|[^Q])*Q/ (greedy, with backtracking): escaped delimiters are skipped, and if
  // no bare delimiter follows, the match ends at the last escaped one. Sets end past the close.
  bool scan_delimited(std::size_t p, char close, std::size_t& end) const {
    std::size_t last_escaped = std::string_view::npos;
    for (std::size_t i = p + 1; i < s_.size(); ++i) {
      if (s_[i] == '\\' && i + 1 < s_.size() && s_[i + 1] == close) {
        last_escaped = i + 1;
        ++i;
        continue;
      }
      if (s_[i] == close) {
        end = i + 1;
        return true;
      }
    }
    if (last_escaped == std::string_view::npos) return false;
    end = last_escaped + 1;
    return true;
  }

  bool lex_quoted(Token& t, char q) {
    std::size_t p = pos_;
    std::size_t e;
    if (!scan_delimited(p, q, e)) {
      t = make(Tok::kInvalid, p, p + 1);
      return true;
    }
    std::string inner(s_.substr(p + 1, e - p - 2));
    std::string text;
    for (std::size_t i = 0; i < inner.size(); ++i) {
      if (inner[i] == '\\' && i + 1 < inner.size() && inner[i + 1] == q) continue;
      text += inner[i];
    }
    t = make(Tok::kString, p, e, std::move(text));
    return true;
  }

  std::string_view s_;
  const std::string& name_;
  std::size_t pos_ = 0;
  std::vector<State> stack_{State::kInitial};
  std::size_t loc_pos_ = 0;
  Loc loc_;
  std::size_t nul_;  // the next NUL byte at or after pos_ (cached: scanning each time is O(n^2))
};

}  // namespace

std::vector<Token> tokenize(std::string_view source, const std::string& template_name) {
  return Lexer(source, template_name).run();
}

}  // namespace alknet::hbs::detail
