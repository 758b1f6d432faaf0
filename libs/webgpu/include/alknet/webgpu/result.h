// The WebGPU layer's error type: every fallible call returns a [[nodiscard]] Result<T>.
#pragma once

#include <string>

#include "alknet/base/result.h"

namespace alknet::webgpu {

enum class ErrorCode {
  kLibraryNotFound,    // the webgpu.h library could not be loaded
  kSymbolMissing,      // the library lacks a function alknet needs
  kNoAdapter,          // no adapter matched, or the implementation offered none
  kDeviceRequest,      // the adapter refused to create a device
  kShaderCompilation,  // WGSL did not compile; the message carries line:column
  kValidation,         // a WebGPU validation error
  kOutOfMemory,        // a WebGPU out-of-memory error
  kInternal,           // a WebGPU internal error
  kDeviceLost,         // the device was lost; every later call fails with this
  kMapFailed,          // mapAsync did not succeed
  kTimeout,            // a wait ran past its deadline
  kInvalidArgument,    // alknet's own argument checks
};

const char* ErrorCodeName(ErrorCode code);

// "code: message" (ToString), for logs and CLI output.
using Error = base::CodedError<ErrorCode>;

template <typename T>
using Result = base::Result<T, Error>;
using Status = base::Result<void, Error>;
using base::Ok;

}  // namespace alknet::webgpu
