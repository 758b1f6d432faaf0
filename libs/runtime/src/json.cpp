#include "json.h"

#include <cstdlib>

namespace alknet::runtime::json {

const Value* Value::get(std::string_view key) const {
  const Object* o = object();
  if (o == nullptr) return nullptr;
  auto it = o->find(std::string(key));
  return it == o->end() ? nullptr : &it->second;
}

namespace {

class Parser {
 public:
  Parser(std::string_view text, std::string_view name) : s_(text), name_(name) {}

  Result<Value> ParseDocument() {
    Value v;
    if (!ParseValue(v, 0)) return MakeError(error_);
    SkipSpace();
    if (pos_ != s_.size()) return Fail("unexpected text after the JSON value");
    return v;
  }

 private:
  static constexpr int kMaxDepth = 256;

  Error Fail(std::string_view what) {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos_ && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    error_ = std::string(name_) + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " +
             std::string(what);
    return MakeError(error_);
  }
  bool Failed(std::string_view what) {
    Fail(what);
    return false;
  }

  void SkipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  bool ParseValue(Value& out, int depth) {
    if (depth > kMaxDepth) return Failed("nesting too deep");
    SkipSpace();
    if (pos_ >= s_.size()) return Failed("unexpected end of input");
    char c = s_[pos_];
    if (c == '{') return ParseObject(out, depth);
    if (c == '[') return ParseArray(out, depth);
    if (c == '"') {
      std::string str;
      if (!ParseString(str)) return false;
      out.v = std::move(str);
      return true;
    }
    if (Literal("true")) return out.v = true, true;
    if (Literal("false")) return out.v = false, true;
    if (Literal("null")) return out.v = nullptr, true;
    if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber(out);
    return Failed(std::string("unexpected character '") + c + "'");
  }

  bool ParseNumber(Value& out) {
    size_t start = pos_;
    if (s_[pos_] == '-') ++pos_;
    auto digits = [&] {
      size_t n = 0;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_, ++n;
      return n;
    };
    // JSON integers have no leading zeros: "0" stands alone ("01" is "0" then junk).
    if (pos_ < s_.size() && s_[pos_] == '0') {
      ++pos_;
    } else if (digits() == 0) {
      return Failed("expected a digit");
    }
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (digits() == 0) return Failed("expected a digit after '.'");
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (digits() == 0) return Failed("expected a digit in the exponent");
    }
    out.v = std::strtod(std::string(s_.substr(start, pos_ - start)).c_str(), nullptr);
    return true;
  }

  static void AppendUtf8(std::string& s, uint32_t cp) {
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else if (cp < 0x800) {
      s += static_cast<char>(0xC0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      s += static_cast<char>(0xE0 | (cp >> 12));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      s += static_cast<char>(0xF0 | (cp >> 18));
      s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool Hex4(uint32_t& out) {
    if (pos_ + 4 > s_.size()) return Failed("truncated \\u escape");
    out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s_[pos_++];
      out <<= 4;
      if (c >= '0' && c <= '9') out |= c - '0';
      else if (c >= 'a' && c <= 'f') out |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') out |= c - 'A' + 10;
      else return Failed("bad hex digit in \\u escape");
    }
    return true;
  }

  bool ParseString(std::string& out) {
    ++pos_;  // opening quote
    for (;;) {
      if (pos_ >= s_.size()) return Failed("unterminated string");
      char c = s_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return Failed("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) return Failed("unterminated escape");
      char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t cp;
          if (!Hex4(cp)) return false;
          if (cp >= 0xD800 && cp < 0xDC00 && s_.substr(pos_, 2) == "\\u") {
            size_t save = pos_;
            pos_ += 2;
            uint32_t lo;
            if (!Hex4(lo)) return false;
            if (lo >= 0xDC00 && lo < 0xE000) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else {
              pos_ = save;
            }
          }
          if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD;  // lone surrogate
          AppendUtf8(out, cp);
          break;
        }
        default: --pos_; return Failed(std::string("bad escape '\\") + e + "'");
      }
    }
  }

  bool ParseArray(Value& out, int depth) {
    ++pos_;
    auto arr = std::make_shared<Array>();
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
      out.v = arr;
      return true;
    }
    for (;;) {
      Value item;
      if (!ParseValue(item, depth + 1)) return false;
      arr->push_back(std::move(item));
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
      if (pos_ < s_.size() && s_[pos_] == ']') { ++pos_; break; }
      return Failed("expected ',' or ']'");
    }
    out.v = arr;
    return true;
  }

  bool ParseObject(Value& out, int depth) {
    ++pos_;
    auto obj = std::make_shared<Object>();
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      out.v = obj;
      return true;
    }
    for (;;) {
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != '"') return Failed("expected a string key");
      std::string key;
      if (!ParseString(key)) return false;
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != ':') return Failed("expected ':'");
      ++pos_;
      Value item;
      if (!ParseValue(item, depth + 1)) return false;
      (*obj)[key] = std::move(item);  // last duplicate wins, as in JSON.parse
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
      if (pos_ < s_.size() && s_[pos_] == '}') { ++pos_; break; }
      return Failed("expected ',' or '}'");
    }
    out.v = obj;
    return true;
  }

  std::string_view s_;
  std::string_view name_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

Result<Value> Parse(std::string_view text, std::string_view name) {
  return Parser(text, name).ParseDocument();
}

}  // namespace alknet::runtime::json
