// alknet-compute's one error type: every fallible call returns a [[nodiscard]] Result<T>.
#pragma once

#include <string>

#include "alknet/base/result.h"

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

using Error = base::CodedError<ErrorCode>;

template <typename T>
using Result = base::Result<T, Error>;
using Status = base::Result<void, Error>;
using base::Ok;

}  // namespace alknet::compute
