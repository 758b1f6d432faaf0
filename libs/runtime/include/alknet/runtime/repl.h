// The read-eval-print loop of `alknet repl`: line editing and history through libedit when
// stdin is a terminal, plain lines otherwise (so it can be driven by a pipe).
#pragma once

#include <string>

#include "alknet/runtime/runtime.h"

namespace alknet::runtime {

struct ReplOptions {
  // History file; empty: no history. Default: $ALKNET_REPL_HISTORY, else ~/.alknet_history.
  std::string history_file;
  bool quiet = false;  // no banner
};

// Runs until end of input, `.exit`, or exit() from alknet:process. Returns the exit code:
// 0, or the code given to exit().
int RunRepl(Runtime& runtime, const ReplOptions& options);

}  // namespace alknet::runtime
