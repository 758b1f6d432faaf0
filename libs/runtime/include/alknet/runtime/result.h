// The runtime's error type: fallible calls return a [[nodiscard]] Result<T>. A JavaScript
// exception that escapes to the host becomes an Error whose message is already formatted for
// the user ("Uncaught TypeError: x is not a function\n    at main.js:3:5").
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace alknet::runtime {

struct Error {
  std::string message;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit, like std::expected
  Result(Error error) : v_(std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T& value() const& { return std::get<0>(v_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

struct Ok {};
using Status = Result<Ok>;

inline Error MakeError(std::string message) { return Error{std::move(message)}; }

}  // namespace alknet::runtime
