#include "alknet/hbs/value.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace alknet::hbs {

Object::Object(std::initializer_list<Entry> entries) {
  for (const auto& e : entries) set(e.first, e.second);
}

namespace {
// A canonical array index ("0", "17"; not "01" or "-1"), which JavaScript orders first.
bool index_key(std::string_view key, std::uint64_t& index) {
  if (key.empty() || key.size() > 10 || (key.size() > 1 && key[0] == '0')) return false;
  std::uint64_t v = 0;
  for (char c : key) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (v >= 4294967295ull) return false;
  index = v;
  return true;
}
}  // namespace

void Object::set(std::string key, Value value) {
  if (Value* existing = find(key)) {
    *existing = std::move(value);
    return;
  }
  // JavaScript property order: integer-like keys ascending, then the others as inserted.
  std::uint64_t index;
  if (index_key(key, index)) {
    auto pos = entries_.begin();
    std::uint64_t other;
    while (pos != entries_.end() && index_key(pos->first, other) && other < index) ++pos;
    entries_.emplace(pos, std::move(key), std::move(value));
    return;
  }
  entries_.emplace_back(std::move(key), std::move(value));
}

// Lookups run once per mustache: compare length, first and last byte before calling memcmp
// (keys like tile_m / tile_n / tile_k differ only at the end).
static bool same_key(const std::string& a, std::string_view b) {
  const std::size_t n = b.size();
  return a.size() == n &&
         (n == 0 || (a[0] == b[0] && a[n - 1] == b[n - 1] &&
                     (n <= 2 || std::memcmp(a.data() + 1, b.data() + 1, n - 2) == 0)));
}

const Value* Object::find(std::string_view key) const {
  for (const auto& e : entries_) {
    if (same_key(e.first, key)) return &e.second;
  }
  return nullptr;
}

Value* Object::find(std::string_view key) {
  for (auto& e : entries_) {
    if (same_key(e.first, key)) return &e.second;
  }
  return nullptr;
}

bool Object::operator==(const Object& other) const {
  if (entries_.size() != other.entries_.size()) return false;
  for (const auto& e : entries_) {
    const Value* v = other.find(e.first);
    if (!v || !(*v == e.second)) return false;
  }
  return true;
}

bool Value::truthy() const {
  switch (kind()) {
    case Kind::kUndefined:
    case Kind::kNull:
      return false;
    case Kind::kBool:
      return as_bool();
    case Kind::kInt:
      return as_int() != 0;
    case Kind::kDouble:
      return as_double() != 0 && !std::isnan(as_double());
    case Kind::kString:
      return !as_string().empty();
    case Kind::kArray:
    case Kind::kObject:
      return true;
  }
  return false;
}

void append_js_number(std::string& out, double d) {
  if (std::isnan(d)) {
    out += "NaN";
    return;
  }
  if (std::isinf(d)) {
    out += d < 0 ? "-Infinity" : "Infinity";
    return;
  }
  if (d == 0) {  // also -0, which JavaScript prints as "0"
    out += '0';
    return;
  }
  // Shortest round-trip digits in scientific form "d.ddde±x", then ECMA-262 Number::toString.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
  bool negative = sci.front() == '-';
  if (negative) sci.remove_prefix(1);
  std::size_t e_pos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e_pos)) {
    if (c != '.') digits += c;
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  int exp10 = 0;
  std::from_chars(sci.data() + e_pos + (sci[e_pos + 1] == '+' ? 2 : 1), sci.data() + sci.size(),
                  exp10);
  const int k = static_cast<int>(digits.size());
  const int n = exp10 + 1;
  if (negative) out += '-';
  if (k <= n && n <= 21) {
    out += digits;
    out.append(static_cast<std::size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out.append(digits, 0, static_cast<std::size_t>(n));
    out += '.';
    out.append(digits, static_cast<std::size_t>(n));
  } else if (-6 < n && n <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-n), '0');
    out += digits;
  } else {
    out += digits[0];
    if (k > 1) {
      out += '.';
      out.append(digits, 1);
    }
    out += 'e';
    out += n - 1 >= 0 ? '+' : '-';
    out += std::to_string(std::abs(n - 1));
  }
}

void Value::append_js_string(std::string& out) const {
  switch (kind()) {
    case Kind::kUndefined:
    case Kind::kNull:
      return;
    case Kind::kBool:
      out += as_bool() ? "true" : "false";
      return;
    case Kind::kInt: {
      char buf[24];
      auto res = std::to_chars(buf, buf + sizeof buf, as_int());
      out.append(buf, static_cast<std::size_t>(res.ptr - buf));
      return;
    }
    case Kind::kDouble:
      append_js_number(out, as_double());
      return;
    case Kind::kString:
      out += as_string();
      return;
    case Kind::kArray: {
      bool first = true;
      for (const auto& item : as_array()) {
        if (!first) out += ',';
        first = false;
        item.append_js_string(out);
      }
      return;
    }
    case Kind::kObject:
      out += "[object Object]";
      return;
  }
}

std::string Value::to_js_string() const {
  std::string out;
  append_js_string(out);
  return out;
}

bool Value::operator==(const Value& other) const {
  if (is_number() && other.is_number()) {
    if (is_int() && other.is_int()) return as_int() == other.as_int();
    return as_number() == other.as_number();
  }
  if (kind() != other.kind()) return false;
  switch (kind()) {
    case Kind::kUndefined:
    case Kind::kNull:
      return true;
    case Kind::kBool:
      return as_bool() == other.as_bool();
    case Kind::kString:
      return as_string() == other.as_string();
    case Kind::kArray:
      return as_array() == other.as_array();
    case Kind::kObject:
      return as_object() == other.as_object();
    default:
      return false;
  }
}

Array& Value::as_array() {
  auto& p = std::get<std::shared_ptr<Array>>(data_);
  if (p.use_count() > 1) p = std::make_shared<Array>(*p);
  return *p;
}

Object& Value::as_object() {
  auto& p = std::get<std::shared_ptr<Object>>(data_);
  if (p.use_count() > 1) p = std::make_shared<Object>(*p);
  return *p;
}

std::string_view Value::kind_name(Kind kind) {
  switch (kind) {
    case Kind::kUndefined: return "undefined";
    case Kind::kNull: return "null";
    case Kind::kBool: return "boolean";
    case Kind::kInt: return "integer";
    case Kind::kDouble: return "number";
    case Kind::kString: return "string";
    case Kind::kArray: return "array";
    case Kind::kObject: return "object";
  }
  return "?";
}

namespace {

void append_json_string(std::string& out, const std::string& s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
}

void append_json(std::string& out, const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kUndefined:
    case Value::Kind::kNull:
      out += "null";
      return;
    case Value::Kind::kDouble:
      if (!std::isfinite(v.as_double())) {
        out += "null";
        return;
      }
      [[fallthrough]];
    case Value::Kind::kBool:
    case Value::Kind::kInt:
      v.append_js_string(out);
      return;
    case Value::Kind::kString:
      append_json_string(out, v.as_string());
      return;
    case Value::Kind::kArray: {
      out += '[';
      bool first = true;
      for (const auto& item : v.as_array()) {
        if (!first) out += ',';
        first = false;
        append_json(out, item);
      }
      out += ']';
      return;
    }
    case Value::Kind::kObject: {
      out += '{';
      bool first = true;
      for (const auto& [key, item] : v.as_object().entries()) {
        if (!first) out += ',';
        first = false;
        append_json_string(out, key);
        out += ':';
        append_json(out, item);
      }
      out += '}';
      return;
    }
  }
}

class JsonParser {
 public:
  explicit JsonParser(std::string_view text) : text_(text) {}

  Value parse_document() {
    skip_ws();
    Value v = parse_value(0);
    skip_ws();
    if (pos_ != text_.size()) fail("unexpected text after the JSON value");
    return v;
  }

 private:
  static constexpr int kMaxDepth = 512;

  [[noreturn]] void fail(const std::string& what) const {
    int line = 1, col = 1;
    for (std::size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw JsonError(what, line, col);
  }

  void skip_ws() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool consume_word(std::string_view w) {
    if (text_.substr(pos_, w.size()) == w) {
      pos_ += w.size();
      return true;
    }
    return false;
  }

  Value parse_value(int depth) {
    if (depth > kMaxDepth) fail("JSON nested deeper than 512 levels");
    if (pos_ >= text_.size()) fail("unexpected end of JSON input");
    char c = text_[pos_];
    if (c == '{') return parse_object(depth);
    if (c == '[') return parse_array(depth);
    if (c == '"') return Value(parse_string());
    if (c == '-' || (c >= '0' && c <= '9')) return parse_number();
    if (consume_word("true")) return Value(true);
    if (consume_word("false")) return Value(false);
    if (consume_word("null")) return Value(nullptr);
    fail(std::string("unexpected character '") + c + "' where a JSON value was expected");
  }

  Value parse_object(int depth) {
    ++pos_;
    Object obj;
    skip_ws();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return Value(std::move(obj));
    }
    for (;;) {
      skip_ws();
      if (pos_ >= text_.size() || text_[pos_] != '"') fail("expected a string key in JSON object");
      std::string key = parse_string();
      skip_ws();
      if (pos_ >= text_.size() || text_[pos_] != ':') fail("expected ':' after JSON object key");
      ++pos_;
      skip_ws();
      Value v = parse_value(depth + 1);
      obj.set(std::move(key), std::move(v));
      skip_ws();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == '}') {
        ++pos_;
        return Value(std::move(obj));
      }
      fail("expected ',' or '}' in JSON object");
    }
  }

  Value parse_array(int depth) {
    ++pos_;
    Array arr;
    skip_ws();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return Value(std::move(arr));
    }
    for (;;) {
      skip_ws();
      arr.push_back(parse_value(depth + 1));
      skip_ws();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == ']') {
        ++pos_;
        return Value(std::move(arr));
      }
      fail("expected ',' or ']' in JSON array");
    }
  }

  unsigned parse_hex4() {
    if (pos_ + 4 > text_.size()) fail("truncated \\u escape in JSON string");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<unsigned>(c - 'A' + 10);
      else fail("bad hex digit in \\u escape");
    }
    return v;
  }

  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string parse_string() {
    ++pos_;  // opening quote
    std::string out;
    for (;;) {
      if (pos_ >= text_.size()) fail("unterminated JSON string");
      char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) {
        --pos_;
        fail("control character in JSON string (escape it)");
      }
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) fail("unterminated JSON string");
      char e = text_[pos_++];
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
          unsigned cp = parse_hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && text_.substr(pos_, 2) == "\\u") {
            std::size_t save = pos_;
            pos_ += 2;
            unsigned lo = parse_hex4();
            if (lo >= 0xDC00 && lo < 0xE000) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else {
              pos_ = save;
            }
          }
          append_utf8(out, cp);
          break;
        }
        default:
          --pos_;
          fail(std::string("bad escape '\\") + e + "' in JSON string");
      }
    }
  }

  Value parse_number() {
    std::size_t start = pos_;
    bool is_float = false;
    if (text_[pos_] == '-') ++pos_;
    auto digits = [&] {
      std::size_t s = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ - s;
    };
    if (pos_ < text_.size() && text_[pos_] == '0') {
      ++pos_;
    } else if (digits() == 0) {
      fail("malformed JSON number");
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      is_float = true;
      if (digits() == 0) fail("malformed JSON number: digits expected after '.'");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      is_float = true;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (digits() == 0) fail("malformed JSON number: digits expected in exponent");
    }
    const char* b = text_.data() + start;
    const char* e = text_.data() + pos_;
    if (!is_float) {
      std::int64_t i = 0;
      auto res = std::from_chars(b, e, i);
      if (res.ec == std::errc() && res.ptr == e) return Value(i);
    }
    double d = 0;
    auto res = std::from_chars(b, e, d);
    if (res.ec == std::errc::result_out_of_range) {
      // from_chars refuses overflow; JSON.parse gives ±Infinity or 0.
      d = std::strtod(std::string(b, e).c_str(), nullptr);
    }
    return Value(d);
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

std::string Value::to_json() const {
  std::string out;
  append_json(out, *this);
  return out;
}

JsonError::JsonError(std::string message, int line, int column)
    : what_("invalid JSON at " + std::to_string(line) + ":" + std::to_string(column) + ": " +
            message),
      line_(line),
      column_(column) {}

Value parse_json(std::string_view text) { return JsonParser(text).parse_document(); }

}  // namespace alknet::hbs
