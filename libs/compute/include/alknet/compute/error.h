// alknet-compute's one error type: every fallible call returns a [[nodiscard]] Result<T>.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace alknet::compute {

enum class ErrorCode {
  kUnknownOp,         // no record in the op table has this name (or this opset)
  kInvalidAttribute,  // an attribute is missing, has the wrong kind or an invalid value
  kUnsupported,       // the op exists but not for these shapes / dtypes / this device
  kShape,             // shapes that do not fit together (broadcast, matmul inner dims, reshape)
  kTemplate,          // a shader template failed to render (names template:line:col)
  kDevice,            // the WebGPU layer reported an error (validation, OOM, device lost...)
  kLimit,             // a device limit would be exceeded; the message names the limit
  kInvalidArgument,   // a caller error outside the above (bad graph, bad tensor view)
};

const char* ErrorCodeName(ErrorCode code);

struct Error {
  ErrorCode code;
  std::string message;
  std::string ToString() const;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design, like std::expected
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
  Error&& take_error() { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

struct Ok {};
using Status = Result<Ok>;

}  // namespace alknet::compute

#define ALKNET_COMPUTE_CAT_(a, b) a##b
#define ALKNET_COMPUTE_CAT(a, b) ALKNET_COMPUTE_CAT_(a, b)
#define COMPUTE_TRY(expr)                                                   \
  do {                                                                      \
    auto compute_try_ = (expr);                                             \
    if (!compute_try_.ok()) return compute_try_.take_error();              \
  } while (0)
#define COMPUTE_ASSIGN_OR_RETURN(lhs, expr)                                 \
  auto ALKNET_COMPUTE_CAT(compute_r_, __LINE__) = (expr);                   \
  if (!ALKNET_COMPUTE_CAT(compute_r_, __LINE__).ok())                       \
    return ALKNET_COMPUTE_CAT(compute_r_, __LINE__).take_error();           \
  lhs = std::move(ALKNET_COMPUTE_CAT(compute_r_, __LINE__)).value()
