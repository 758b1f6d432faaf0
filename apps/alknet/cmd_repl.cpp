// `alknet repl`: an interactive JavaScript prompt; promise results are awaited.
#include <cstdio>
#include <string>

#include "alknet/runtime/cli_flags.h"
#include "alknet/runtime/repl.h"
#include "alknet/runtime/runtime.h"
#include "command.h"
#include "js_host.h"

namespace {

namespace rt = alknet::runtime;

constexpr const char* kHelp =
    "Usage: alknet repl [options]\n\n"
    "An interactive prompt with line editing and history (libedit). Each input runs in the\n"
    "global scope; a promise result is awaited while the event loop runs, and `await` works\n"
    "at the top level. .exit or Ctrl-D leaves. With stdin not a terminal, lines are read\n"
    "plainly and each result printed, so a pipe can drive it.\n\n"
    "Options:\n"
    "  --history FILE   history file (default $ALKNET_REPL_HISTORY, else ~/.alknet_history)\n"
    "  -q, --quiet      no banner\n\n"
    "Exit codes: 0 at end of input; the code passed to exit(); 2 bad command line;\n"
    "3 the JavaScript engine could not start.\n\n";

int RunReplCommand(std::span<const std::string_view> args) {
  rt::RuntimeOptions options;
  rt::ReplOptions repl;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-h" || args[i] == "--help") {
      std::printf("%s%s", kHelp, rt::kRuntimeFlagsHelp);
      return alknet::cli::kExitOk;
    }
    if (args[i] == "-q" || args[i] == "--quiet") {
      repl.quiet = true;
      continue;
    }
    if (args[i] == "--history") {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "alknet repl: --history needs a FILE\n");
        return alknet::cli::kExitUsage;
      }
      repl.history_file = std::string(args[++i]);
      continue;
    }
    auto used = rt::ParseRuntimeFlag(args, i, options);
    if (!used) {
      std::fprintf(stderr, "alknet repl: %s\n", used.error().message.c_str());
      return alknet::cli::kExitUsage;
    }
    if (*used == 0) {
      std::fprintf(stderr, "alknet repl: unknown argument '%s' (see alknet repl --help)\n",
                   std::string(args[i]).c_str());
      return alknet::cli::kExitUsage;
    }
    i += *used - 1;
  }
  // The same built-ins as `alknet run`: alknet:call on the local registry, alknet:compute.
  std::unique_ptr<rt::Runtime> runtime;
  if (int code = alknet::cli::CreateJsRuntime("repl", std::move(options), &runtime); code != 0)
    return code;
  return rt::RunRepl(*runtime, repl);
}

const alknet::cli::Registration kReg{{"repl", "Interactive JavaScript prompt", &RunReplCommand}};

}  // namespace
