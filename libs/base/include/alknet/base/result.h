// The one result type of alknet's libraries: a value or an error, never an exception across a
// library's API. Each library keeps its own error type and says so once:
//
//   namespace alknet::compute {
//   template <typename T> using Result = base::Result<T, Error>;
//   using Status = base::Result<void, Error>;
//   }
//
// and returns `Ok{}` (or `{}`) for success of a Status. ALKNET_TRY and ALKNET_ASSIGN_OR_RETURN
// propagate an error to the caller, as Dawn's DAWN_TRY does. C++20 has no std::expected.
#pragma once

#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace alknet::base {

// The success of a Result<void, E>: `return Ok{};`.
struct Ok {};

// The error type of a library whose failures are a code and a message (alknet-compute,
// alknet-webgpu): `Error{ErrorCode::kShape, "..."}`. ToString() gives "<name>: <message>" with
// the name from the library's `ErrorCodeName(Code)`, found next to its enum.
template <typename Code>
struct CodedError {
  Code code;
  std::string message;

  std::string ToString() const { return std::string(ErrorCodeName(code)) + ": " + message; }
};

template <typename T, typename E>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<std::remove_cvref_t<T>, std::remove_cvref_t<E>>,
                "a Result's value and error types must differ");

 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(E error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }

  // The error; only valid when !ok(). Move it out with `std::move(result).error()`.
  const E& error() const& { return std::get<1>(v_); }
  E&& error() && { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, E> v_;
};

// Success or an error (a library's `Status`).
template <typename E>
class [[nodiscard]] Result<void, E> {
 public:
  Result() = default;
  Result(Ok) {}                                  // NOLINT: implicit by design (`return Ok{};`)
  Result(E error) : error_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }

  const E& error() const& { return *error_; }
  E&& error() && { return *std::move(error_); }

 private:
  std::optional<E> error_;
};

}  // namespace alknet::base

#define ALKNET_BASE_CAT_(a, b) a##b
#define ALKNET_BASE_CAT(a, b) ALKNET_BASE_CAT_(a, b)

// Returns the error of `expr` (any Result) from the enclosing function, whose return type
// must be constructible from that error.
#define ALKNET_TRY(expr)                                                        \
  do {                                                                          \
    auto alknet_try_result_ = (expr);                                           \
    if (!alknet_try_result_.ok()) return std::move(alknet_try_result_).error(); \
  } while (0)

// Declares `lhs` from the value of `expr` (a Result), or returns its error.
#define ALKNET_ASSIGN_OR_RETURN(lhs, expr)                               \
  auto ALKNET_BASE_CAT(alknet_result_, __LINE__) = (expr);               \
  if (!ALKNET_BASE_CAT(alknet_result_, __LINE__).ok())                   \
    return std::move(ALKNET_BASE_CAT(alknet_result_, __LINE__)).error(); \
  lhs = std::move(ALKNET_BASE_CAT(alknet_result_, __LINE__)).value()
