// The JSON-like value a template renders: the context, helper arguments and helper results.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace alknet::hbs {

class Value;

// Objects keep JavaScript's property order: integer-like keys ("0", "42") first in ascending
// order, then the other keys in insertion order, so `{{#each}}` over an object visits keys as
// handlebars.js does. Lookup is a linear scan: template contexts
// are small, and a scan over a few dozen keys beats hashing.
class Object {
 public:
  using Entry = std::pair<std::string, Value>;

  Object() = default;
  Object(std::initializer_list<Entry> entries);

  // Replaces an existing key in place (JSON.parse keeps the first position of a duplicate key).
  void set(std::string key, Value value);
  const Value* find(std::string_view key) const;
  Value* find(std::string_view key);
  std::size_t size() const;
  bool empty() const;
  const std::vector<Entry>& entries() const { return entries_; }
  bool operator==(const Object& other) const;

 private:
  std::vector<Entry> entries_;
};

using Array = std::vector<Value>;

class Value {
 public:
  enum class Kind : std::uint8_t {
    kUndefined,
    kNull,
    kBool,
    kInt,
    kDouble,
    kString,
    kArray,
    kObject
  };

  Value() = default;  // undefined
  Value(std::nullptr_t) : data_(Null{}) {}
  Value(bool b) : data_(b) {}
  Value(int i) : data_(static_cast<std::int64_t>(i)) {}
  Value(unsigned i) : data_(static_cast<std::int64_t>(i)) {}
  Value(long i) : data_(static_cast<std::int64_t>(i)) {}
  Value(long long i) : data_(static_cast<std::int64_t>(i)) {}
  Value(unsigned long i) : data_(static_cast<std::int64_t>(i)) {}
  Value(double d) : data_(d) {}
  Value(const char* s) : data_(std::string(s)) {}
  Value(std::string s) : data_(std::move(s)) {}
  Value(std::string_view s) : data_(std::string(s)) {}
  Value(Array a);
  Value(Object o);

  static Value undefined() { return Value(); }
  static Value null() { return Value(nullptr); }
  static Value array(std::initializer_list<Value> items) { return Value(Array(items)); }
  static Value object(std::initializer_list<Object::Entry> entries) {
    return Value(Object(entries));
  }

  Kind kind() const { return static_cast<Kind>(data_.index()); }
  bool is_undefined() const { return kind() == Kind::kUndefined; }
  bool is_null() const { return kind() == Kind::kNull; }
  bool is_nullish() const { return kind() <= Kind::kNull; }
  bool is_bool() const { return kind() == Kind::kBool; }
  bool is_int() const { return kind() == Kind::kInt; }
  bool is_double() const { return kind() == Kind::kDouble; }
  bool is_number() const { return is_int() || is_double(); }
  bool is_string() const { return kind() == Kind::kString; }
  bool is_array() const { return kind() == Kind::kArray; }
  bool is_object() const { return kind() == Kind::kObject; }

  // Unchecked accessors: call only after the matching is_*().
  bool as_bool() const { return std::get<bool>(data_); }
  std::int64_t as_int() const { return std::get<std::int64_t>(data_); }
  double as_double() const { return std::get<double>(data_); }
  double as_number() const { return is_int() ? static_cast<double>(as_int()) : as_double(); }
  const std::string& as_string() const { return std::get<std::string>(data_); }
  const Array& as_array() const { return *std::get<std::shared_ptr<Array>>(data_); }
  const Object& as_object() const { return *std::get<std::shared_ptr<Object>>(data_); }
  // Mutable access copies a shared array/object first (copy on write).
  Array& as_array();
  Object& as_object();

  // JavaScript truthiness (ToBoolean): false for undefined, null, false, 0, NaN and "".
  bool truthy() const;

  // JavaScript ToString, as string concatenation does it: arrays join their elements with ",",
  // objects become "[object Object]", undefined and null become "" (the template's view).
  std::string to_js_string() const;
  void append_js_string(std::string& out) const;

  // Deep equality; an int and a double compare by numeric value.
  bool operator==(const Value& other) const;

  // Serialises as JSON (undefined becomes null).
  std::string to_json() const;

  static std::string_view kind_name(Kind kind);

 private:
  struct Null {
    bool operator==(const Null&) const { return true; }
  };
  // Arrays and objects are shared between copies and copied on write, so copying a context
  // (partial hash arguments extend a copy, as handlebars.js does) costs no deep copy.
  std::variant<std::monostate, Null, bool, std::int64_t, double, std::string,
               std::shared_ptr<Array>, std::shared_ptr<Object>>
      data_;
};

inline Value::Value(Array a) : data_(std::make_shared<Array>(std::move(a))) {}
inline Value::Value(Object o) : data_(std::make_shared<Object>(std::move(o))) {}

inline std::size_t Object::size() const { return entries_.size(); }
inline bool Object::empty() const { return entries_.empty(); }

// Parses JSON text with alknet's one reader (alknet/base/json.h: strict RFC 8259, UTF-8 only)
// and gives JSON.parse's result: integers that fit in int64 become kInt, other numbers
// kDouble; a duplicate key keeps its first position and its last value. Throws JsonError with
// line:col on malformed input; nesting deeper than 512 is refused.
class JsonError : public std::exception {
 public:
  JsonError(std::string message, int line, int column);
  const char* what() const noexcept override { return what_.c_str(); }
  int line() const { return line_; }
  int column() const { return column_; }

 private:
  std::string what_;
  int line_;
  int column_;
};

Value parse_json(std::string_view text);

// Formats a double exactly as JavaScript's Number.prototype.toString does (shortest round-trip
// digits, exponent form below 1e-6 and from 1e21).
void append_js_number(std::string& out, double d);

}  // namespace alknet::hbs
