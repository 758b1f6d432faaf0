#include "alknet/call/error.h"

namespace alknet::call {

std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kCancelled: return "cancelled";
    case ErrorCode::kUnknown: return "failed";
    case ErrorCode::kInvalidArgument: return "invalid argument";
    case ErrorCode::kDeadlineExceeded: return "deadline exceeded";
    case ErrorCode::kNotFound: return "not found";
    case ErrorCode::kAlreadyExists: return "already exists";
    case ErrorCode::kPermissionDenied: return "permission denied";
    case ErrorCode::kResourceExhausted: return "resource exhausted";
    case ErrorCode::kFailedPrecondition: return "failed precondition";
    case ErrorCode::kInternal: return "internal error";
    case ErrorCode::kUnavailable: return "unavailable";
    case ErrorCode::kUnauthenticated: return "unauthenticated";
  }
  return "unknown error code";
}

std::string Error::ToString() const {
  std::string out;
  if (!call.empty()) {
    out += call;
    out += ": ";
  }
  out += ErrorCodeName(code);
  out += ": ";
  out += message;
  return out;
}

}  // namespace alknet::call
