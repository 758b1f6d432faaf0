// The command-line flags `alknet run`, `eval` and `repl` share: permissions and the import map.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "alknet/runtime/result.h"
#include "alknet/runtime/runtime.h"

namespace alknet::runtime {

// Parses the runtime flag at args[i] into `options`. Returns how many arguments it used: 0 when
// args[i] is not a runtime flag, 1 or 2 ("--import-map FILE"); an Error for a malformed flag.
Result<size_t> ParseRuntimeFlag(std::span<const std::string_view> args, size_t i,
                                RuntimeOptions& options);

// The flags' --help text.
extern const char kRuntimeFlagsHelp[];

}  // namespace alknet::runtime
