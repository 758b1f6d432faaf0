#include "alknet/call/json.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace alknet::call {

namespace {

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string Base64(const Bytes& in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = (in[i] << 16) | (in[i + 1] << 8) | in[i + 2];
    out += kBase64[v >> 18];
    out += kBase64[(v >> 12) & 63];
    out += kBase64[(v >> 6) & 63];
    out += kBase64[v & 63];
  }
  if (i < in.size()) {
    const unsigned v = (in[i] << 16) | (i + 1 < in.size() ? in[i + 1] << 8 : 0);
    out += kBase64[v >> 18];
    out += kBase64[(v >> 12) & 63];
    out += i + 1 < in.size() ? kBase64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

void WriteString(std::string& out, std::string_view s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
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

void Write(std::string& out, const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull: out += "null"; return;
    case ValueKind::kBool: out += v.as_bool() ? "true" : "false"; return;
    case ValueKind::kInt: out += std::to_string(v.as_int()); return;
    case ValueKind::kFloat: {
      const double d = v.as_float();
      if (!std::isfinite(d)) {  // JSON has no NaN or infinity
        out += "null";
        return;
      }
      char buf[32];
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
      std::string_view text(buf, end - buf);
      out += text;
      // Keep it a float when read back.
      if (text.find_first_of(".eE") == std::string_view::npos) out += ".0";
      return;
    }
    case ValueKind::kString: WriteString(out, v.as_string()); return;
    case ValueKind::kBytes:
      out += "{\"$bytes\":\"";
      out += Base64(v.as_bytes());
      out += "\"}";
      return;
    case ValueKind::kList: {
      out += '[';
      bool first = true;
      for (const auto& item : v.as_list()) {
        if (!first) out += ',';
        first = false;
        Write(out, item);
      }
      out += ']';
      return;
    }
    case ValueKind::kMap: {
      out += '{';
      bool first = true;
      for (const auto& [k, item] : v.as_map()) {
        if (!first) out += ',';
        first = false;
        WriteString(out, k);
        out += ':';
        Write(out, item);
      }
      out += '}';
      return;
    }
    case ValueKind::kTensor: {
      const Tensor& t = v.as_tensor();
      out += "{\"$tensor\":{\"dtype\":";
      WriteString(out, t.dtype);
      out += ",\"shape\":[";
      for (std::size_t i = 0; i < t.shape.size(); ++i) {
        if (i) out += ',';
        out += std::to_string(t.shape[i]);
      }
      out += "],\"bytes\":" + std::to_string(t.data.size()) + "}}";
      return;
    }
  }
}

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  Result<Value> ParseDocument() {
    auto v = ParseValue(0);
    if (!v) return v;
    SkipSpace();
    if (pos_ != s_.size()) return Fail("unexpected text after the JSON value");
    return v;
  }

 private:
  static constexpr int kMaxDepth = 128;

  Error Fail(std::string what) const {
    return MakeError(ErrorCode::kInvalidArgument,
                     "JSON column " + std::to_string(pos_ + 1) + ": " + what);
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

  Result<Value> ParseValue(int depth) {
    if (depth > kMaxDepth) return Fail("nesting deeper than 128 levels");
    SkipSpace();
    if (pos_ >= s_.size()) return Fail("expected a value, found the end of the text");
    const char c = s_[pos_];
    if (c == '{') return ParseObject(depth);
    if (c == '[') return ParseArray(depth);
    if (c == '"') {
      auto str = ParseString();
      if (!str) return std::move(str).error();
      return Value(std::move(*str));
    }
    if (Literal("null")) return Value();
    if (Literal("true")) return Value(true);
    if (Literal("false")) return Value(false);
    if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber();
    return Fail(std::string("unexpected character '") + c + "'");
  }

  Result<Value> ParseNumber() {
    const std::size_t start = pos_;
    if (s_[pos_] == '-') ++pos_;
    auto digits = [&] {
      const std::size_t d = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      return pos_ - d;
    };
    const std::size_t int_start = pos_;
    const std::size_t int_digits = digits();
    if (int_digits == 0) return Fail("expected digits");
    if (int_digits > 1 && s_[int_start] == '0') return Fail("a number cannot start with 0");
    bool is_float = false;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      is_float = true;
      if (digits() == 0) return Fail("expected digits after '.'");
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      is_float = true;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (digits() == 0) return Fail("expected digits in the exponent");
    }
    const char* first = s_.data() + start;
    const char* last = s_.data() + pos_;
    if (!is_float) {
      std::int64_t i = 0;
      auto [p, ec] = std::from_chars(first, last, i);
      if (ec != std::errc() || p != last) {
        pos_ = start;
        return Fail("integer " + std::string(first, last) + " does not fit in int64");
      }
      return Value(i);
    }
    double d = 0;
    auto [p, ec] = std::from_chars(first, last, d);
    if (ec != std::errc() || p != last) {
      pos_ = start;
      return Fail("number " + std::string(first, last) + " is out of range");
    }
    return Value(d);
  }

  Result<std::string> ParseString() {
    ++pos_;  // opening quote
    std::string out;
    while (pos_ < s_.size()) {
      const unsigned char c = s_[pos_++];
      if (c == '"') return out;
      if (c < 0x20) return Fail("control character inside a string");
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      if (pos_ >= s_.size()) break;
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
          auto cp = Hex4();
          if (!cp) return std::move(cp).error();
          std::uint32_t code = *cp;
          if (code >= 0xD800 && code <= 0xDBFF) {
            if (!Literal("\\u")) return Fail("unpaired surrogate in \\u escape");
            auto lo = Hex4();
            if (!lo) return std::move(lo).error();
            if (*lo < 0xDC00 || *lo > 0xDFFF) return Fail("invalid low surrogate");
            code = 0x10000 + ((code - 0xD800) << 10) + (*lo - 0xDC00);
          } else if (code >= 0xDC00 && code <= 0xDFFF) {
            return Fail("unpaired surrogate in \\u escape");
          }
          AppendUtf8(out, code);
          break;
        }
        default: return Fail(std::string("unknown escape '\\") + e + "'");
      }
    }
    return Fail("unterminated string");
  }

  Result<std::uint32_t> Hex4() {
    if (pos_ + 4 > s_.size()) return Fail("truncated \\u escape");
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = s_[pos_++];
      v <<= 4;
      if (h >= '0' && h <= '9') v |= h - '0';
      else if (h >= 'a' && h <= 'f') v |= h - 'a' + 10;
      else if (h >= 'A' && h <= 'F') v |= h - 'A' + 10;
      else return Fail("bad hex digit in \\u escape");
    }
    return v;
  }

  static void AppendUtf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 63));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 63));
      out += static_cast<char>(0x80 | (cp & 63));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 63));
      out += static_cast<char>(0x80 | ((cp >> 6) & 63));
      out += static_cast<char>(0x80 | (cp & 63));
    }
  }

  Result<Value> ParseArray(int depth) {
    ++pos_;
    Value::List list;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
      return Value(std::move(list));
    }
    for (;;) {
      auto item = ParseValue(depth + 1);
      if (!item) return item;
      list.push_back(std::move(*item));
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == ']') {
        ++pos_;
        return Value(std::move(list));
      }
      return Fail("expected ',' or ']' in array");
    }
  }

  Result<Value> ParseObject(int depth) {
    ++pos_;
    Value::Map map;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      return Value(std::move(map));
    }
    for (;;) {
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != '"') return Fail("expected a string key in object");
      auto key = ParseString();
      if (!key) return std::move(key).error();
      SkipSpace();
      if (pos_ >= s_.size() || s_[pos_] != ':') return Fail("expected ':' after object key");
      ++pos_;
      auto item = ParseValue(depth + 1);
      if (!item) return item;
      if (map.count(*key)) return Fail("duplicate key \"" + *key + "\"");
      map.emplace(std::move(*key), std::move(*item));
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < s_.size() && s_[pos_] == '}') {
        ++pos_;
        return Value(std::move(map));
      }
      return Fail("expected ',' or '}' in object");
    }
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

}  // namespace

Result<Value> ParseJson(std::string_view text) { return Parser(text).ParseDocument(); }

std::string ToJson(const Value& value) {
  std::string out;
  Write(out, value);
  return out;
}

Value CallInfosToValue(const std::vector<CallInfo>& calls) {
  Value::List list;
  for (const auto& c : calls) {
    Value::Map m;
    m.emplace("name", c.name);
    m.emplace("signature", c.signature);
    m.emplace("owner", c.owner);
    m.emplace("async", c.flags.execution == Execution::kAsync);
    m.emplace("side_effects", c.flags.side_effects);
    m.emplace("doc", c.doc);
    list.emplace_back(std::move(m));
  }
  return Value(std::move(list));
}

std::string CallInfosToJson(const std::vector<CallInfo>& calls) {
  return ToJson(CallInfosToValue(calls));
}

}  // namespace alknet::call
