// The start-up `alknet run`, `eval` and `repl` share: the extensions (libs/ext) installed once,
// alknet:call bound to the local registry unless the command set a target, remote connections
// through alknet-call-grpc, and the runtime created.
#pragma once

#include <memory>
#include <string_view>

#include "alknet/runtime/runtime.h"

namespace alknet::cli {

// Sets *out and returns kExitOk, or prints "alknet COMMAND: <error>" to stderr and returns the
// exit code to end with (kExitUsage for a bad --import-map, kExitEnvironment otherwise).
int CreateJsRuntime(std::string_view command, runtime::RuntimeOptions options,
                    std::unique_ptr<runtime::Runtime>* out);

}  // namespace alknet::cli
