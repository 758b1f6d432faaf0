// Errors of alknet-call: every failure reaches the caller as an Error naming the call, never
// as a crash. The library returns Result<T>; it does not throw across its API.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "alknet/base/result.h"

namespace alknet::call {

// Kept in step with gRPC status codes where one exists, so the remote transport maps them
// one to one (the numeric values travel in trailing metadata).
enum class ErrorCode : std::uint8_t {
  kCancelled = 1,
  kUnknown = 2,          // a handler failed without saying how
  kInvalidArgument = 3,  // wrong arity or type at the call boundary, malformed request
  kDeadlineExceeded = 4,
  kNotFound = 5,            // no such call
  kAlreadyExists = 6,       // duplicate call or component name
  kPermissionDenied = 7,    // registration into a namespace owned by another component
  kResourceExhausted = 8,   // a server limit: message size, tensor bytes, concurrent calls
  kFailedPrecondition = 9,  // registry sealed, missing dependency
  kInternal = 13,           // a handler threw
  kUnavailable = 14,        // the remote server cannot be reached
  kUnauthenticated = 16,    // missing or wrong bearer token
};

std::string_view ErrorCodeName(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::kUnknown;
  std::string call;     // the call it happened in; empty for registry-level errors
  std::string message;  // what is wrong and, where it helps, how to fix it

  // "tensor.info: invalid argument: parameter 't' expects tensor, given int"
  std::string ToString() const;
};

inline Error MakeError(ErrorCode code, std::string message) {
  return Error{code, {}, std::move(message)};
}

template <typename T>
using Result = base::Result<T, Error>;
using Status = base::Result<void, Error>;
using base::Ok;

}  // namespace alknet::call
