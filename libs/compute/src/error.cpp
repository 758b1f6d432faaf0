#include "alknet/compute/error.h"

namespace alknet::compute {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kUnknownOp: return "unknown op";
    case ErrorCode::kInvalidAttribute: return "invalid attribute";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kShape: return "shape error";
    case ErrorCode::kTemplate: return "template error";
    case ErrorCode::kDevice: return "device error";
    case ErrorCode::kLimit: return "device limit";
    case ErrorCode::kInvalidArgument: return "invalid argument";
  }
  return "error";
}

}  // namespace alknet::compute
