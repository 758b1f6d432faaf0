// A small JSON reader for the files the host reads before any engine runs (import maps,
// package.json). Errors carry line:col.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "alknet/runtime/result.h"

namespace alknet::runtime::json {

struct Value;
using Object = std::map<std::string, Value>;
using Array = std::vector<Value>;

struct Value {
  std::variant<std::nullptr_t, bool, double, std::string, std::shared_ptr<Array>,
               std::shared_ptr<Object>>
      v = nullptr;

  bool is_null() const { return v.index() == 0; }
  const std::string* string() const { return std::get_if<std::string>(&v); }
  const Object* object() const {
    auto p = std::get_if<std::shared_ptr<Object>>(&v);
    return p ? p->get() : nullptr;
  }
  const Array* array() const {
    auto p = std::get_if<std::shared_ptr<Array>>(&v);
    return p ? p->get() : nullptr;
  }
  // Member lookup; nullptr when this is not an object or lacks the key.
  const Value* get(std::string_view key) const;
};

// `name` prefixes error messages: "import-map.json:3:7: expected ','".
Result<Value> Parse(std::string_view text, std::string_view name);

}  // namespace alknet::runtime::json
