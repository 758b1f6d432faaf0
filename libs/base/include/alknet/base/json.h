// alknet's one JSON reader and writer (RFC 8259), for every library and the CLI.
//
// Reading is strict: the grammar of RFC 8259 and nothing more (no comments, trailing commas,
// NaN, single quotes or byte order mark), strings must be UTF-8 (RFC 8259 section 8.1) and a
// \u escape of a surrogate must be half of a pair (section 7). Numbers keep what the text says:
// an integer (no fraction, no exponent) within [-2^63, 2^64) is exact, other numbers are the
// nearest double, parsed without the C locale (std::from_chars). A number too large for a
// double is an error, not infinity, since the writer could not write it back. Limits on
// nesting depth and input size guard against hostile input. An error names what is wrong and
// where (line:column, both 1-based, the column counted in characters).
//
// Writing emits UTF-8 (bytes that are not UTF-8 become U+FFFD), escapes what RFC 8259 requires,
// and writes a double with the fewest digits that read back to the same double, in Python's
// float repr style ("0.1", "3.0", "1e-05", "1e+16"); output matches Python's json.dumps(...,
// ensure_ascii=False) with separators (",", ":") when compact and indent=N when indented.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "alknet/base/result.h"

namespace alknet::base::json {

class Value;
using Array = std::vector<Value>;

// An object keeps its members in the order of the text (or of insertion). Lookup is a linear
// scan, which beats hashing for the small objects JSON configuration holds; the parser keeps
// its own index for large objects while it checks for duplicate keys.
class Object {
 public:
  using Member = std::pair<std::string, Value>;

  Object() = default;
  Object(std::initializer_list<Member> members);

  const Value* find(std::string_view key) const;
  Value* find(std::string_view key);
  bool contains(std::string_view key) const { return find(key) != nullptr; }

  // Sets `key`: a new key goes last, an existing key keeps its position and takes the value
  // (what JavaScript's JSON.parse does with a duplicate key).
  Value& set(std::string key, Value value);
  // Appends without looking for an existing key; the caller knows it is new.
  Value& append(std::string key, Value value);

  std::size_t size() const;
  bool empty() const;
  const std::vector<Member>& members() const { return members_; }
  std::vector<Member>::const_iterator begin() const;
  std::vector<Member>::const_iterator end() const;

  // Same members in the same order.
  bool operator==(const Object& other) const;

 private:
  std::vector<Member> members_;
};

class Value {
 public:
  // kInt holds every integer in int64's range, kUint only those above it (up to 2^64 - 1).
  enum class Kind : std::uint8_t { kNull, kBool, kInt, kUint, kDouble, kString, kArray, kObject };

  Value() = default;  // null
  Value(std::nullptr_t) {}
  Value(bool b) : data_(b) {}
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                                             !std::is_same_v<T, char>,
                                         int> = 0>
  Value(T i) {
    if constexpr (std::is_signed_v<T>) {
      data_ = static_cast<std::int64_t>(i);
    } else if (static_cast<std::uint64_t>(i) <=
               static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      data_ = static_cast<std::int64_t>(i);
    } else {
      data_ = static_cast<std::uint64_t>(i);
    }
  }
  Value(double d) : data_(d) {}
  Value(float f) : data_(static_cast<double>(f)) {}
  Value(const char* s) : data_(std::string(s)) {}
  Value(std::string s) : data_(std::move(s)) {}
  Value(std::string_view s) : data_(std::string(s)) {}
  Value(Array a) : data_(std::move(a)) {}
  Value(Object o) : data_(std::move(o)) {}

  Kind kind() const { return static_cast<Kind>(data_.index()); }
  bool is_null() const { return kind() == Kind::kNull; }
  bool is_bool() const { return kind() == Kind::kBool; }
  bool is_integer() const { return kind() == Kind::kInt || kind() == Kind::kUint; }
  bool is_double() const { return kind() == Kind::kDouble; }
  bool is_number() const { return is_integer() || is_double(); }
  bool is_string() const { return kind() == Kind::kString; }
  bool is_array() const { return kind() == Kind::kArray; }
  bool is_object() const { return kind() == Kind::kObject; }

  // Unchecked accessors: call only after the matching kind() / is_*().
  bool as_bool() const { return std::get<bool>(data_); }
  std::int64_t as_int() const { return std::get<std::int64_t>(data_); }
  std::uint64_t as_uint() const { return std::get<std::uint64_t>(data_); }
  const std::string& as_string() const { return std::get<std::string>(data_); }
  std::string& as_string() { return std::get<std::string>(data_); }
  const Array& as_array() const { return std::get<Array>(data_); }
  Array& as_array() { return std::get<Array>(data_); }
  const Object& as_object() const { return std::get<Object>(data_); }
  Object& as_object() { return std::get<Object>(data_); }
  // Any number as a double (an integer above 2^53 rounds); call after is_number().
  double as_double() const;

  // Checked conversions: the value when it is a number that the type holds exactly.
  std::optional<std::int64_t> to_int64() const;
  std::optional<std::uint64_t> to_uint64() const;

  // Member lookup: nullptr when this is not an object or has no such key.
  const Value* find(std::string_view key) const;

  // Same kind and same contents; an int and a double are different values, as are 1 and 1.0
  // (the reader keeps that difference, so the comparison does too).
  bool operator==(const Value& other) const;

  static std::string_view KindName(Kind kind);

 private:
  std::variant<std::monostate, bool, std::int64_t, std::uint64_t, double, std::string, Array,
               Object>
      data_;
};

inline std::size_t Object::size() const { return members_.size(); }
inline bool Object::empty() const { return members_.empty(); }
inline std::vector<Object::Member>::const_iterator Object::begin() const {
  return members_.begin();
}
inline std::vector<Object::Member>::const_iterator Object::end() const { return members_.end(); }

// ---- Reading

enum class DuplicateKeys : std::uint8_t {
  kError,     // a repeated key is an error (the default: the text is ambiguous)
  kLastWins,  // the last value wins, at the first key's position (JavaScript's JSON.parse)
};

struct ParseOptions {
  std::size_t max_depth = 512;                   // arrays and objects nested deeper are refused
  std::size_t max_size = std::size_t{64} << 20;  // bytes of text
  DuplicateKeys duplicate_keys = DuplicateKeys::kError;
  // An integer outside [-2^63, 2^64) becomes the nearest double (as in JavaScript); false
  // makes it an error for callers that need integers exact.
  bool big_integers_as_double = true;
};

struct ParseError {
  std::string message;     // what is wrong, e.g. "expected ':' after an object key"
  std::size_t line = 0;    // 1-based
  std::size_t column = 0;  // 1-based, in characters (code points) from the line's start
  std::size_t offset = 0;  // byte offset into the text

  // "line:column: message"
  std::string ToString() const;
};

Result<Value, ParseError> Parse(std::string_view text, const ParseOptions& options = {});

// ---- Writing

struct WriteOptions {
  // 0: compact, no whitespace. N > 0: one member or element per line, indented N spaces per
  // level, ": " after keys.
  int indent = 0;
};

std::string Write(const Value& value, const WriteOptions& options = {});

// Appends `text` as a JSON string literal (quotes included).
void AppendQuoted(std::string& out, std::string_view text);
// Appends the shortest text that reads back as `d`; NaN and infinities, which JSON cannot
// express, become null (as JSON.stringify writes them).
void AppendDouble(std::string& out, double d);

}  // namespace alknet::base::json
