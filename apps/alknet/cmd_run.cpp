// `alknet run FILE.js [args...]`: runs an ES module with the event loop until nothing is left.
#include <cstdio>
#include <string>
#include <vector>

#include "alknet/runtime/cli_flags.h"
#include "alknet/runtime/runtime.h"
#include "command.h"

namespace {

namespace rt = alknet::runtime;

constexpr const char* kHelp =
    "Usage: alknet run [options] FILE.js [args...]\n\n"
    "Runs FILE.js as an ES module (SpiderMonkey), then the event loop until no timer, promise\n"
    "job or GPU work is left. Arguments after FILE.js go to the script (alknet:process args).\n\n"
    "Exit codes: 0 ok; 1 uncaught error or unhandled rejection (printed with file:line:col);\n"
    "the code passed to exit(); 2 bad command line; 3 the JavaScript engine could not start.\n\n";

int RunRun(std::span<const std::string_view> args) {
  rt::RuntimeOptions options;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    if (args[i] == "-h" || args[i] == "--help") {
      std::printf("%s%s", kHelp, rt::kRuntimeFlagsHelp);
      return alknet::cli::kExitOk;
    }
    auto used = rt::ParseRuntimeFlag(args, i, options);
    if (!used) {
      std::fprintf(stderr, "alknet run: %s\n", used.error().message.c_str());
      return alknet::cli::kExitUsage;
    }
    if (*used == 0) break;
    i += *used - 1;
  }
  if (i >= args.size()) {
    std::fprintf(stderr, "alknet run: missing FILE.js\n\n%s", kHelp);
    return alknet::cli::kExitUsage;
  }
  if (args[i].size() > 1 && args[i][0] == '-') {
    std::fprintf(stderr, "alknet run: unknown option '%s' (see alknet run --help)\n",
                 std::string(args[i]).c_str());
    return alknet::cli::kExitUsage;
  }
  std::string file(args[i]);
  for (size_t j = i + 1; j < args.size(); ++j) options.args.emplace_back(args[j]);
  const bool has_import_map = options.import_map.has_value();
  auto runtime = rt::Runtime::Create(std::move(options));
  if (!runtime) {
    std::fprintf(stderr, "alknet run: %s\n", runtime.error().message.c_str());
    return has_import_map ? alknet::cli::kExitUsage : alknet::cli::kExitEnvironment;
  }
  return (*runtime)->RunFile(file);
}

const alknet::cli::Registration kReg{{"run", "Run a JavaScript module (WebGPU, ES modules)", &RunRun}};

}  // namespace
