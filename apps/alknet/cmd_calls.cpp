// alknet calls: lists the registry (local, or a server's with --remote).
#include <cstdio>
#include <string>

#include "alknet/call-grpc/remote.h"
#include "alknet/call/builtins.h"
#include "alknet/call/json.h"
#include "command.h"
#include "options.h"
#include "registry_setup.h"

namespace alknet::cli {
namespace {

namespace ac = alknet::call;

constexpr const char* kUsage =
    "Usage: alknet calls [--json] [--remote HOST:PORT [--token-file FILE] [--tls]\n"
    "                    [--tls-ca FILE] [--tls-server-name NAME]]\n\n"
    "Lists every registered call: name, signature, owning component, flags.\n"
    "With --remote, lists a server's registry (alknet serve); this is also its health check.\n"
    "The token comes from --token-file or $ALKNET_TOKEN.\n\n"
    "Exit codes: 0 ok, 1 the server refused, 2 usage, 3 the server cannot be reached.\n";

int Usage(const std::string& why) {
  std::fprintf(stderr, "alknet calls: %s\n\n%s", why.c_str(), kUsage);
  return kExitUsage;
}

int RunCalls(std::span<const std::string_view> args) {
  if (WantsHelp(args)) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  bool json = false;
  TargetFlags target;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string error;
    if (target.Consume(args, i, error)) {
      if (!error.empty()) return Usage(error);
    } else if (args[i] == "--json") {
      json = true;
    } else {
      return Usage("unknown option '" + std::string(args[i]) + "'");
    }
  }

  auto opened = OpenTarget(target);
  if (!opened) {
    if (!target.remote.empty()) return Usage(opened.error().message);
    std::fprintf(stderr, "alknet calls: %s\n", opened.error().ToString().c_str());
    return kExitFailure;
  }
  ac::Result<std::vector<ac::CallInfo>> calls = (*opened)->List();
  if (!calls) {
    std::fprintf(stderr, "alknet calls: %s\n", TerminalText(calls.error().ToString()).c_str());
    return calls.error().code == ac::ErrorCode::kUnavailable ? kExitEnvironment : kExitFailure;
  }
  if (json) {
    std::printf("%s\n", ac::CallInfosToJson(*calls).c_str());
    return kExitOk;
  }
  // A remote server chooses every string below: printed through TerminalText, so none can
  // carry escape sequences to this terminal.
  std::size_t width = 0;
  for (const auto& c : *calls) width = std::max(width, TerminalText(c.name).size());
  for (const auto& c : *calls) {
    std::string flags;
    if (c.flags.execution == ac::Execution::kAsync) flags += " async";
    if (c.flags.side_effects) flags += " side-effects";
    std::printf("%-*s %s  [%s%s]\n", static_cast<int>(width), TerminalText(c.name).c_str(),
                TerminalText(c.signature).c_str(), TerminalText(c.owner).c_str(), flags.c_str());
    if (!c.doc.empty()) {
      std::printf("%-*s   %s\n", static_cast<int>(width), "", TerminalText(c.doc).c_str());
    }
  }
  return kExitOk;
}

const Registration kReg{{"calls", "List registered calls (local or --remote)", &RunCalls}};

}  // namespace
}  // namespace alknet::cli
