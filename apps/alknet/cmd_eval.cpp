// `alknet eval 'code'`: runs source text as an ES module (imports and top-level await work).
#include <cstdio>
#include <string>

#include "alknet/runtime/cli_flags.h"
#include "alknet/runtime/runtime.h"
#include "command.h"
#include "js_host.h"

namespace {

namespace rt = alknet::runtime;

constexpr const char* kHelp =
    "Usage: alknet eval [options] [-p|--print] 'CODE' [args...]\n\n"
    "Runs CODE as an ES module whose relative imports resolve against the working directory,\n"
    "then the event loop. With --print, CODE is an expression (or script) whose value is\n"
    "printed as console.log would, after awaiting it if it is a promise.\n\n"
    "Exit codes: 0 ok; 1 uncaught error or unhandled rejection; the code passed to exit();\n"
    "2 bad command line; 3 the JavaScript engine could not start.\n\n";

int RunEval(std::span<const std::string_view> args) {
  rt::RuntimeOptions options;
  bool print = false;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    if (args[i] == "-h" || args[i] == "--help") {
      std::printf("%s%s", kHelp, rt::kRuntimeFlagsHelp);
      return alknet::cli::kExitOk;
    }
    if (args[i] == "-p" || args[i] == "--print") {
      print = true;
      continue;
    }
    auto used = rt::ParseRuntimeFlag(args, i, options);
    if (!used) {
      std::fprintf(stderr, "alknet eval: %s\n", used.error().message.c_str());
      return alknet::cli::kExitUsage;
    }
    if (*used == 0) break;
    i += *used - 1;
  }
  if (i >= args.size()) {
    std::fprintf(stderr, "alknet eval: missing CODE\n\n%s", kHelp);
    return alknet::cli::kExitUsage;
  }
  std::string code(args[i]);
  for (size_t j = i + 1; j < args.size(); ++j) options.args.emplace_back(args[j]);
  // The same built-ins as `alknet run`: alknet:call on the local registry, alknet:compute.
  std::unique_ptr<rt::Runtime> runtime;
  if (int code = alknet::cli::CreateJsRuntime("eval", std::move(options), &runtime); code != 0)
    return code;
  if (!print) return runtime->RunSource(code);
  auto value = runtime->EvalRepl(code);
  if (runtime->exit_requested()) return runtime->exit_code();
  if (!value) {
    std::fprintf(stderr, "%s\n", value.error().message.c_str());
    return alknet::cli::kExitFailure;
  }
  std::printf("%s\n", value->c_str());
  return alknet::cli::kExitOk;
}

const alknet::cli::Registration kReg{
    {"eval", "Evaluate JavaScript given on the command line", &RunEval}};

}  // namespace
