#include "alknet/base/json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "alknet/base/utf8.h"

namespace alknet::base::json {

// ---- Object and Value

Object::Object(std::initializer_list<Member> members) {
  for (const auto& m : members) set(m.first, m.second);
}

const Value* Object::find(std::string_view key) const {
  for (const auto& m : members_) {
    if (m.first == key) return &m.second;
  }
  return nullptr;
}

Value* Object::find(std::string_view key) {
  for (auto& m : members_) {
    if (m.first == key) return &m.second;
  }
  return nullptr;
}

Value& Object::set(std::string key, Value value) {
  if (Value* existing = find(key)) {
    *existing = std::move(value);
    return *existing;
  }
  return append(std::move(key), std::move(value));
}

Value& Object::append(std::string key, Value value) {
  members_.emplace_back(std::move(key), std::move(value));
  return members_.back().second;
}

bool Object::operator==(const Object& other) const { return members_ == other.members_; }

double Value::as_double() const {
  switch (kind()) {
    case Kind::kInt: return static_cast<double>(as_int());
    case Kind::kUint: return static_cast<double>(as_uint());
    default: return std::get<double>(data_);
  }
}

std::optional<std::int64_t> Value::to_int64() const {
  if (kind() == Kind::kInt) return as_int();
  return std::nullopt;
}

std::optional<std::uint64_t> Value::to_uint64() const {
  if (kind() == Kind::kUint) return as_uint();
  if (kind() == Kind::kInt && as_int() >= 0) return static_cast<std::uint64_t>(as_int());
  return std::nullopt;
}

const Value* Value::find(std::string_view key) const {
  return is_object() ? as_object().find(key) : nullptr;
}

bool Value::operator==(const Value& other) const {
  if (is_double() && other.is_double()) {
    // Bitwise, so that -0.0 and 0.0 differ and the comparison is an equivalence.
    const double a = std::get<double>(data_), b = std::get<double>(other.data_);
    return std::memcmp(&a, &b, sizeof a) == 0;
  }
  return data_ == other.data_;
}

std::string_view Value::KindName(Kind kind) {
  switch (kind) {
    case Kind::kNull: return "null";
    case Kind::kBool: return "boolean";
    case Kind::kInt:
    case Kind::kUint: return "integer";
    case Kind::kDouble: return "number";
    case Kind::kString: return "string";
    case Kind::kArray: return "array";
    case Kind::kObject: return "object";
  }
  return "?";
}

// ---- Reading

std::string ParseError::ToString() const {
  return std::to_string(line) + ":" + std::to_string(column) + ": " + message;
}

namespace {

// Objects larger than this get a hash index while the parser checks for duplicate keys, so a
// hostile object with a million keys costs linear time, not quadratic.
constexpr std::size_t kIndexedObjectSize = 16;

std::string Printable(char c) {
  const auto b = static_cast<unsigned char>(c);
  if (b >= 0x20 && b < 0x7F) return std::string(1, c);
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string("\\x") + kHex[b >> 4] + kHex[b & 15];
}

class Parser {
 public:
  Parser(std::string_view text, const ParseOptions& options) : s_(text), options_(options) {}

  Result<Value, ParseError> ParseDocument() {
    if (s_.size() > options_.max_size) {
      return Error(0, "the text is " + std::to_string(s_.size()) +
                          " bytes, more than the limit of " + std::to_string(options_.max_size));
    }
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") {
      return Error(0, "a byte order mark is not allowed at the start of JSON text");
    }
    Value v;
    if (!ParseValue(v, 0)) return std::move(*error_);
    SkipSpace();
    if (pos_ != s_.size()) return Error(pos_, "unexpected text after the JSON value");
    return v;
  }

 private:
  // Records the first error; returns false so that callers can `return Fail(...)`.
  bool Fail(std::size_t at, std::string message) {
    error_ = Error(at, std::move(message));
    return false;
  }

  ParseError Error(std::size_t at, std::string message) const {
    ParseError e;
    e.message = std::move(message);
    e.offset = at;
    e.line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < at && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++e.line;
        line_start = i + 1;
      }
    }
    e.column = 1;
    for (std::size_t i = line_start; i < at && i < s_.size(); ++i) {
      if ((static_cast<unsigned char>(s_[i]) & 0xC0) != 0x80) ++e.column;
    }
    return e;
  }

  // RFC 8259 section 2: whitespace is space, tab, line feed and carriage return only.
  void SkipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool ParseValue(Value& out, std::size_t depth) {
    SkipSpace();
    if (pos_ >= s_.size()) return Fail(pos_, "expected a value, found the end of the text");
    const char c = s_[pos_];
    switch (c) {
      case '{':
      case '[':
        if (depth >= options_.max_depth) {
          return Fail(pos_, "arrays and objects nested deeper than " +
                                std::to_string(options_.max_depth) + " levels");
        }
        return c == '{' ? ParseObject(out, depth + 1) : ParseArray(out, depth + 1);
      case '"': {
        std::string str;
        if (!ParseString(str)) return false;
        out = Value(std::move(str));
        return true;
      }
      case '-':
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7':
      case '8':
      case '9': return ParseNumber(out);
      default: return ParseLiteral(out);
    }
  }

  bool ParseLiteral(Value& out) {
    const std::size_t start = pos_;
    std::size_t end = pos_;
    while (end < s_.size() &&
           ((s_[end] >= 'a' && s_[end] <= 'z') || (s_[end] >= 'A' && s_[end] <= 'Z'))) {
      ++end;
    }
    const std::string_view word = s_.substr(start, end - start);
    if (word.empty()) {
      return Fail(start,
                  "unexpected character '" + Printable(s_[start]) + "' where a value was expected");
    }
    if (word == "true") {
      out = Value(true);
    } else if (word == "false") {
      out = Value(false);
    } else if (word == "null") {
      out = Value(nullptr);
    } else {
      return Fail(start, "unexpected '" + std::string(word.substr(0, 32)) +
                             "' where a value was expected (the literals are true, false, null)");
    }
    pos_ = end;
    return true;
  }

  std::size_t Digits() {
    const std::size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    return pos_ - start;
  }

  // RFC 8259 section 6: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
  bool ParseNumber(Value& out) {
    const std::size_t start = pos_;
    const bool negative = s_[pos_] == '-';
    if (negative) ++pos_;
    const std::size_t int_start = pos_;
    const std::size_t int_digits = Digits();
    if (int_digits == 0) return Fail(pos_, "expected a digit after '-'");
    if (int_digits > 1 && s_[int_start] == '0') {
      return Fail(int_start, "a number cannot start with 0 (JSON has no leading zeros)");
    }
    bool integer = true;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      integer = false;
      if (Digits() == 0) return Fail(pos_, "expected a digit after the decimal point");
    }
    std::size_t exp_start = 0;
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      integer = false;
      exp_start = pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (Digits() == 0) return Fail(pos_, "expected a digit in the exponent");
    }
    const char* first = s_.data() + start;
    const char* last = s_.data() + pos_;
    const std::string_view token(first, static_cast<std::size_t>(last - first));
    if (integer) {
      std::int64_t i;
      if (auto [p, ec] = std::from_chars(first, last, i); ec == std::errc() && p == last) {
        out = Value(i);
        return true;
      }
      std::uint64_t u;
      if (!negative) {
        if (auto [p, ec] = std::from_chars(first, last, u); ec == std::errc() && p == last) {
          out = Value(u);
          return true;
        }
      }
      if (!options_.big_integers_as_double) {
        return Fail(start, "integer " + std::string(token.substr(0, 40)) +
                               (token.size() > 40 ? "..." : "") +
                               " does not fit in int64 or uint64");
      }
    }
    double d;
    auto [p, ec] = std::from_chars(first, last, d);
    if (ec == std::errc::result_out_of_range) {
      // from_chars reports underflow and overflow alike; the decimal exponent of the first
      // significant digit tells them apart (a double spans about 1e-324 to 1e308).
      const std::size_t exponent_at = exp_start ? exp_start - int_start : 0;
      if (DecimalExponent(s_.substr(int_start, pos_ - int_start), exponent_at) > 0) {
        return Fail(start, "number " + std::string(token.substr(0, 40)) +
                               (token.size() > 40 ? "..." : "") + " is too large for a double");
      }
      d = negative ? -0.0 : 0.0;
    } else if (ec != std::errc() || p != last) {
      return Fail(start, "malformed number");  // unreachable: the grammar was checked above
    }
    out = Value(d);
    return true;
  }

  // The power of ten of the first nonzero digit of `number` (digits, optional fraction, and
  // when `exp_start` is nonzero an exponent whose sign or digits start there, after the 'e'),
  // saturating far beyond the range of a double.
  static long long DecimalExponent(std::string_view number, std::size_t exp_start) {
    const std::string_view mantissa = exp_start ? number.substr(0, exp_start - 1) : number;
    long long exponent = 0;
    if (exp_start) {
      std::size_t i = exp_start;
      bool neg = false;
      if (number[i] == '+' || number[i] == '-') neg = number[i++] == '-';
      for (; i < number.size(); ++i) {
        exponent = std::min<long long>(exponent * 10 + (number[i] - '0'), 1'000'000'000);
      }
      if (neg) exponent = -exponent;
    }
    const std::size_t point = mantissa.find('.');
    const std::size_t int_len = point == std::string_view::npos ? mantissa.size() : point;
    long long position = static_cast<long long>(int_len) - 1;  // power of ten of mantissa[0]
    for (char c : mantissa) {
      if (c == '.') continue;
      if (c != '0') return exponent + position;
      --position;
    }
    return exponent + position;
  }

  bool Hex4(std::uint32_t& out) {
    if (s_.size() - pos_ < 4) return Fail(pos_, "truncated \\u escape (it needs four hex digits)");
    out = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = s_[pos_];
      out <<= 4;
      if (h >= '0' && h <= '9')
        out |= static_cast<std::uint32_t>(h - '0');
      else if (h >= 'a' && h <= 'f')
        out |= static_cast<std::uint32_t>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        out |= static_cast<std::uint32_t>(h - 'A' + 10);
      else
        return Fail(pos_, "bad hex digit '" + Printable(h) + "' in \\u escape");
      ++pos_;
    }
    return true;
  }

  bool ParseString(std::string& out) {
    const std::size_t open = pos_++;
    for (;;) {
      // Copy the run of plain characters at once.
      const std::size_t run = pos_;
      while (pos_ < s_.size()) {
        const auto b = static_cast<unsigned char>(s_[pos_]);
        if (b == '"' || b == '\\' || b < 0x20 || b >= 0x80) break;
        ++pos_;
      }
      out.append(s_.substr(run, pos_ - run));
      if (pos_ >= s_.size()) return Fail(open, "unterminated string");
      const auto b = static_cast<unsigned char>(s_[pos_]);
      if (b == '"') {
        ++pos_;
        return true;
      }
      if (b < 0x20) {
        return Fail(pos_, "control character " + Printable(s_[pos_]) +
                              " in a string (write it as an escape such as \\n or \\u0001)");
      }
      if (b >= 0x80) {
        const utf8::Decoded d = utf8::DecodeFirst(s_.substr(pos_));
        if (!d.valid)
          return Fail(pos_, "invalid UTF-8 byte " + Printable(s_[pos_]) + " in a string");
        out.append(s_.substr(pos_, d.length));
        pos_ += d.length;
        continue;
      }
      // A backslash.
      const std::size_t escape = pos_++;
      if (pos_ >= s_.size()) return Fail(open, "unterminated string");
      const char e = s_[pos_++];
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
          std::uint32_t cp;
          if (!Hex4(cp)) return false;
          if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return Fail(
                escape,
                "unpaired low surrogate in \\u escape (a low surrogate must follow a high one)");
          }
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (s_.substr(pos_, 2) != "\\u") {
              return Fail(
                  escape,
                  "unpaired high surrogate in \\u escape (a \\uDC00-\\uDFFF escape must follow)");
            }
            pos_ += 2;
            std::uint32_t lo;
            if (!Hex4(lo)) return false;
            if (lo < 0xDC00 || lo > 0xDFFF) {
              return Fail(
                  escape,
                  "unpaired high surrogate in \\u escape (a \\uDC00-\\uDFFF escape must follow)");
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          utf8::Append(out, cp);
          break;
        }
        default: return Fail(escape, "bad escape '\\" + Printable(e) + "' in a string");
      }
    }
  }

  bool ParseArray(Value& out, std::size_t depth) {
    ++pos_;
    Array array;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
      out = Value(std::move(array));
      return true;
    }
    for (;;) {
      Value item;
      if (!ParseValue(item, depth)) return false;
      array.push_back(std::move(item));
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == ']') {
        ++pos_;
        out = Value(std::move(array));
        return true;
      }
      return Fail(pos_, pos_ < s_.size() ? "expected ',' or ']' after an array element"
                                         : "expected ',' or ']', found the end of the text");
    }
  }

  bool ParseObject(Value& out, std::size_t depth) {
    ++pos_;
    Object object;
    std::unordered_map<std::string, std::size_t> index;  // key -> member, for large objects
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      out = Value(std::move(object));
      return true;
    }
    for (;;) {
      SkipSpace();
      if (pos_ >= s_.size()) return Fail(pos_, "expected a string key, found the end of the text");
      if (s_[pos_] != '"') return Fail(pos_, "expected a string key in an object");
      const std::size_t key_at = pos_;
      std::string key;
      if (!ParseString(key)) return false;
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != ':')
        return Fail(pos_, "expected ':' after an object key");
      ++pos_;
      Value item;
      if (!ParseValue(item, depth)) return false;

      Value* existing = nullptr;
      if (object.size() < kIndexedObjectSize) {
        existing = const_cast<Value*>(std::as_const(object).find(key));
      } else {
        if (index.empty()) {
          for (std::size_t i = 0; i < object.size(); ++i)
            index.emplace(object.members()[i].first, i);
        }
        if (auto it = index.find(key); it != index.end()) {
          existing = const_cast<Value*>(&object.members()[it->second].second);
        }
      }
      if (existing) {
        if (options_.duplicate_keys == DuplicateKeys::kError) {
          std::string shown = key.size() > 40 ? key.substr(0, 40) + "..." : key;
          return Fail(key_at, "duplicate key \"" + shown + "\" in an object");
        }
        *existing = std::move(item);
      } else {
        if (!index.empty()) index.emplace(key, object.size());
        object.append(std::move(key), std::move(item));
      }

      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == '}') {
        ++pos_;
        out = Value(std::move(object));
        return true;
      }
      return Fail(pos_, pos_ < s_.size() ? "expected ',' or '}' after an object member"
                                         : "expected ',' or '}', found the end of the text");
    }
  }

  std::string_view s_;
  const ParseOptions& options_;
  std::size_t pos_ = 0;
  std::optional<ParseError> error_;
};

}  // namespace

Result<Value, ParseError> Parse(std::string_view text, const ParseOptions& options) {
  return Parser(text, options).ParseDocument();
}

// ---- Writing

void AppendQuoted(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  std::size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b >= 0x80) {
      const utf8::Decoded d = utf8::DecodeFirst(text.substr(i));
      if (d.valid) {
        out.append(text.substr(i, d.length));
      } else {
        utf8::Append(out, utf8::kReplacementCharacter);
      }
      i += d.length;
      continue;
    }
    switch (b) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (b < 0x20) {
          out += "\\u00";
          out += kHex[b >> 4];
          out += kHex[b & 15];
        } else {
          out += static_cast<char>(b);
        }
    }
    ++i;
  }
  out += '"';
}

void AppendDouble(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out += "null";
    return;
  }
  // The shortest digits that round-trip, in scientific form "-d.ddde+XX"; then Python's repr
  // rule: positional notation for decimal exponents -4..15 (with ".0" when there is no
  // fraction, so the text reads back as a double), scientific otherwise.
  char buf[40];
  const auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
  const std::size_t e = sci.find('e');
  int exp10 = 0;
  std::from_chars(sci.data() + e + (sci[e + 1] == '+' ? 2 : 1), sci.data() + sci.size(), exp10);
  if (exp10 < -4 || exp10 >= 16) {
    out += sci;
    return;
  }
  std::string_view mantissa = sci.substr(0, e);
  if (mantissa.front() == '-') {
    out += '-';
    mantissa.remove_prefix(1);
  }
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  if (exp10 < 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-exp10 - 1), '0');
    out += digits;
    return;
  }
  const auto int_len = static_cast<std::size_t>(exp10) + 1;
  if (digits.size() <= int_len) {
    out += digits;
    out.append(int_len - digits.size(), '0');
    out += ".0";
  } else {
    out.append(digits, 0, int_len);
    out += '.';
    out.append(digits, int_len);
  }
}

namespace {

void Newline(std::string& out, int indent, int level) {
  out += '\n';
  out.append(static_cast<std::size_t>(indent) * static_cast<std::size_t>(level), ' ');
}

void WriteValue(std::string& out, const Value& v, int indent, int level) {
  switch (v.kind()) {
    case Value::Kind::kNull: out += "null"; return;
    case Value::Kind::kBool: out += v.as_bool() ? "true" : "false"; return;
    case Value::Kind::kInt:
    case Value::Kind::kUint: {
      char buf[24];
      const auto res = v.kind() == Value::Kind::kInt
                           ? std::to_chars(buf, buf + sizeof buf, v.as_int())
                           : std::to_chars(buf, buf + sizeof buf, v.as_uint());
      out.append(buf, res.ptr);
      return;
    }
    case Value::Kind::kDouble: AppendDouble(out, v.as_double()); return;
    case Value::Kind::kString: AppendQuoted(out, v.as_string()); return;
    case Value::Kind::kArray: {
      const Array& a = v.as_array();
      out += '[';
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (i) out += ',';
        if (indent) Newline(out, indent, level + 1);
        WriteValue(out, a[i], indent, level + 1);
      }
      if (indent && !a.empty()) Newline(out, indent, level);
      out += ']';
      return;
    }
    case Value::Kind::kObject: {
      const Object& o = v.as_object();
      out += '{';
      bool first = true;
      for (const auto& [key, item] : o) {
        if (!first) out += ',';
        first = false;
        if (indent) Newline(out, indent, level + 1);
        AppendQuoted(out, key);
        out += indent ? ": " : ":";
        WriteValue(out, item, indent, level + 1);
      }
      if (indent && !o.empty()) Newline(out, indent, level);
      out += '}';
      return;
    }
  }
}

}  // namespace

std::string Write(const Value& value, const WriteOptions& options) {
  std::string out;
  WriteValue(out, value, options.indent > 0 ? options.indent : 0, 0);
  return out;
}

}  // namespace alknet::base::json
