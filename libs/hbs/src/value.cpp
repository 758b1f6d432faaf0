#include "alknet/hbs/value.h"

#include "alknet/base/json.h"

#include <charconv>
#include <cmath>
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
    case Kind::kNull: return false;
    case Kind::kBool: return as_bool();
    case Kind::kInt: return as_int() != 0;
    case Kind::kDouble: return as_double() != 0 && !std::isnan(as_double());
    case Kind::kString: return !as_string().empty();
    case Kind::kArray:
    case Kind::kObject: return true;
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
    case Kind::kNull: return;
    case Kind::kBool: out += as_bool() ? "true" : "false"; return;
    case Kind::kInt: {
      char buf[24];
      auto res = std::to_chars(buf, buf + sizeof buf, as_int());
      out.append(buf, static_cast<std::size_t>(res.ptr - buf));
      return;
    }
    case Kind::kDouble: append_js_number(out, as_double()); return;
    case Kind::kString: out += as_string(); return;
    case Kind::kArray: {
      bool first = true;
      for (const auto& item : as_array()) {
        if (!first) out += ',';
        first = false;
        item.append_js_string(out);
      }
      return;
    }
    case Kind::kObject: out += "[object Object]"; return;
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
    case Kind::kNull: return true;
    case Kind::kBool: return as_bool() == other.as_bool();
    case Kind::kString: return as_string() == other.as_string();
    case Kind::kArray: return as_array() == other.as_array();
    case Kind::kObject: return as_object() == other.as_object();
    default: return false;
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

void append_json(std::string& out, const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kUndefined:
    case Value::Kind::kNull: out += "null"; return;
    case Value::Kind::kDouble:
      if (!std::isfinite(v.as_double())) {
        out += "null";
        return;
      }
      [[fallthrough]];
    case Value::Kind::kBool:
    case Value::Kind::kInt: v.append_js_string(out); return;
    case Value::Kind::kString: base::json::AppendQuoted(out, v.as_string()); return;
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
        base::json::AppendQuoted(out, key);
        out += ':';
        append_json(out, item);
      }
      out += '}';
      return;
    }
  }
}

// JSON.parse's view of a document: a duplicate key keeps its first position and takes the last
// value; an integer beyond int64 is a double, as every number is in JavaScript.
Value from_json(const base::json::Value& j) {
  using Kind = base::json::Value::Kind;
  switch (j.kind()) {
    case Kind::kNull: return Value(nullptr);
    case Kind::kBool: return Value(j.as_bool());
    case Kind::kInt: return Value(static_cast<long long>(j.as_int()));
    case Kind::kUint:
    case Kind::kDouble: return Value(j.as_double());
    case Kind::kString: return Value(j.as_string());
    case Kind::kArray: {
      Array a;
      a.reserve(j.as_array().size());
      for (const auto& item : j.as_array()) a.push_back(from_json(item));
      return Value(std::move(a));
    }
    case Kind::kObject: {
      Object o;
      for (const auto& [key, item] : j.as_object()) o.set(key, from_json(item));
      return Value(std::move(o));
    }
  }
  return Value();
}

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

Value parse_json(std::string_view text) {
  base::json::ParseOptions options;
  options.max_depth = 512;
  options.duplicate_keys = base::json::DuplicateKeys::kLastWins;
  auto doc = base::json::Parse(text, options);
  if (!doc.ok()) {
    const auto& e = doc.error();
    throw JsonError(e.message, static_cast<int>(e.line), static_cast<int>(e.column));
  }
  return from_json(*doc);
}

}  // namespace alknet::hbs
