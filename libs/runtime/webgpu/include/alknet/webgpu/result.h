// The WebGPU layer's error type: every fallible call returns a [[nodiscard]] Result<T>.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace alknet::webgpu {

enum class ErrorCode {
  kLibraryNotFound,   // the webgpu.h library could not be loaded
  kSymbolMissing,     // the library lacks a function alknet needs
  kNoAdapter,         // no adapter matched, or the implementation offered none
  kDeviceRequest,     // the adapter refused to create a device
  kShaderCompilation, // WGSL did not compile; the message carries line:column
  kValidation,        // a WebGPU validation error
  kOutOfMemory,       // a WebGPU out-of-memory error
  kInternal,          // a WebGPU internal error
  kDeviceLost,        // the device was lost; every later call fails with this
  kMapFailed,         // mapAsync did not succeed
  kTimeout,           // a wait ran past its deadline
  kInvalidArgument,   // alknet's own argument checks
};

const char* ErrorCodeName(ErrorCode code);

struct Error {
  ErrorCode code;
  std::string message;

  // "code: message", for logs and CLI output.
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
  T& operator*() & { return value(); }

  const Error& error() const { return std::get<1>(v_); }
  Error&& take_error() { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

struct Ok {};
using Status = Result<Ok>;

}  // namespace alknet::webgpu

// Propagates an error from an expression returning Result<...>.
#define ALKNET_WGPU_CONCAT_(a, b) a##b
#define ALKNET_WGPU_CONCAT(a, b) ALKNET_WGPU_CONCAT_(a, b)
#define ALKNET_TRY(expr)                                       \
  do {                                                         \
    auto alknet_try_result_ = (expr);                          \
    if (!alknet_try_result_.ok()) return alknet_try_result_.take_error(); \
  } while (0)
// Declares `lhs` from a Result's value or returns its error.
#define ALKNET_ASSIGN_OR_RETURN(lhs, expr)                                        \
  auto ALKNET_WGPU_CONCAT(alknet_r_, __LINE__) = (expr);                          \
  if (!ALKNET_WGPU_CONCAT(alknet_r_, __LINE__).ok())                              \
    return ALKNET_WGPU_CONCAT(alknet_r_, __LINE__).take_error();                  \
  lhs = std::move(ALKNET_WGPU_CONCAT(alknet_r_, __LINE__)).value()
