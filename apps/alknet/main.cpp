#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "command.h"

namespace alknet::cli {

namespace {
std::vector<Command>& Registry() {
  static std::vector<Command> commands;
  return commands;
}
}  // namespace

Registration::Registration(Command command) { Registry().push_back(command); }

const std::vector<Command>& AllCommands() {
  auto& commands = Registry();
  std::sort(commands.begin(), commands.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  return commands;
}

bool WantsHelp(std::span<const std::string_view> args) {
  return std::any_of(args.begin(), args.end(),
                     [](std::string_view a) { return a == "-h" || a == "--help"; });
}

}  // namespace alknet::cli

namespace {

void PrintUsage(std::FILE* out) {
  std::fprintf(out,
               "alknet: GPU compute that runs everywhere WebGPU does\n\n"
               "Usage: alknet <command> [options]\n\nCommands:\n");
  for (const auto& c : alknet::cli::AllCommands()) {
    std::fprintf(out, "  %-12.*s %.*s\n", static_cast<int>(c.name.size()), c.name.data(),
                 static_cast<int>(c.summary.size()), c.summary.data());
  }
  std::fprintf(out, "\nRun 'alknet <command> --help' for a command's options.\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string_view> args(argv + 1, argv + argc);
  if (args.empty()) {
    PrintUsage(stderr);
    return alknet::cli::kExitUsage;
  }
  if (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    PrintUsage(stdout);
    return alknet::cli::kExitOk;
  }
  if (args[0] == "--version") {
    std::printf("alknet %s\n", ALKNET_VERSION);
    return alknet::cli::kExitOk;
  }
  for (const auto& c : alknet::cli::AllCommands()) {
    if (c.name == args[0]) {
      return c.run(std::span<const std::string_view>(args).subspan(1));
    }
  }
  std::fprintf(stderr, "alknet: unknown command '%s'\n\n", std::string(args[0]).c_str());
  PrintUsage(stderr);
  return alknet::cli::kExitUsage;
}
