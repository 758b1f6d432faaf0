// The alknet CLI: one file per subcommand (cmd_<name>.cpp), each registering itself here.
#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace alknet::cli {

// Exit codes shared by every subcommand (documented in docs/cli.md).
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,      // the operation ran and failed (a check did not pass, a file is invalid)
  kExitUsage = 2,        // bad command line
  kExitEnvironment = 3,  // the machine lacks something: no WebGPU library, no adapter
  kExitGpuHang = 4,      // GPU work made no progress within --gpu-timeout (cannot be cancelled)
};

struct Command {
  std::string_view name;
  std::string_view summary;
  // args excludes the program name and the subcommand name.
  int (*run)(std::span<const std::string_view> args);
};

// Subcommands register at static-initialisation time:
//   static const alknet::cli::Registration kReg{{"info", "List adapters", &RunInfo}};
struct Registration {
  explicit Registration(Command command);
};

const std::vector<Command>& AllCommands();

// True when args hold -h or --help.
bool WantsHelp(std::span<const std::string_view> args);

}  // namespace alknet::cli
