#include "alknet/runtime/cli_flags.h"

#include <charconv>
#include <string>

namespace alknet::runtime {

const char kRuntimeFlagsHelp[] =
    "Permissions (after Deno; nothing is granted by default, the GPU always is):\n"
    "  --allow-read[=PATH,...]    read files (all, or below the given paths)\n"
    "  --allow-write[=PATH,...]   write files\n"
    "  --allow-net[=HOST[:PORT],...]  network access\n"
    "  --allow-env[=NAME,...]     read environment variables\n"
    "  -A, --allow-all            all of the above\n"
    "  Modules under the main script's directory, and in node_modules there or above it,\n"
    "  load without --allow-read; other module files need it.\n\n"
    "Modules:\n"
    "  --import-map FILE          resolve bare specifiers through this import map (JSON)\n\n"
    "GPU:\n"
    "  --gpu-timeout=MS           pending GPU work that finishes nothing for MS milliseconds\n"
    "                             is a hang: report it and exit with code 4 (default 300000;\n"
    "                             0 waits forever)\n\n"
    "JavaScript:\n"
    "  --max-heap=MIB             the JS heap's limit in MiB (default 4095, the most\n"
    "                             SpiderMonkey 102 takes: it counts in 32 bits)\n"
    "  --unhandled-rejections=MODE  a promise rejected with no handler fires\n"
    "                             'unhandledrejection' on globalThis; unless a listener calls\n"
    "                             preventDefault(): warn (default, as browsers) reports it and\n"
    "                             runs on, exiting with 1 at the end; throw (as Deno and Node)\n"
    "                             ends the script at once with exit code 1\n";

Result<size_t> ParseRuntimeFlag(std::span<const std::string_view> args, size_t i,
                                RuntimeOptions& options) {
  std::string_view arg = args[i];
  if (arg == "--import-map") {
    if (i + 1 >= args.size()) return MakeError("--import-map needs a FILE");
    options.import_map = std::string(args[i + 1]);
    return size_t{2};
  }
  if (arg.substr(0, 13) == "--import-map=") {
    options.import_map = std::string(arg.substr(13));
    return size_t{1};
  }
  if (arg.substr(0, 14) == "--gpu-timeout=") {
    std::string_view text = arg.substr(14);
    uint64_t ms = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
    if (ec != std::errc{} || end != text.data() + text.size() || ms > 86'400'000) {
      return MakeError("--gpu-timeout expects milliseconds (0 to 86400000), got '" +
                       std::string(text) + "'");
    }
    options.gpu_timeout = std::chrono::milliseconds(ms);
    return size_t{1};
  }
  if (arg.substr(0, 11) == "--max-heap=") {
    std::string_view text = arg.substr(11);
    uint64_t mib = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), mib);
    if (ec != std::errc{} || end != text.data() + text.size() || mib < 16 || mib > 4095) {
      return MakeError("--max-heap expects MiB from 16 to 4095, got '" + std::string(text) + "'");
    }
    options.max_heap_bytes = mib << 20;
    return size_t{1};
  }
  if (arg.substr(0, 23) == "--unhandled-rejections=") {
    std::string_view mode = arg.substr(23);
    if (mode != "throw" && mode != "warn") {
      return MakeError("--unhandled-rejections expects throw or warn, got '" + std::string(mode) +
                       "'");
    }
    options.unhandled_rejections_throw = mode == "throw";
    return size_t{1};
  }
  auto permission = options.permissions.ParseFlag(arg);
  if (!permission) return permission.error();
  return size_t{*permission ? 1u : 0u};
}

}  // namespace alknet::runtime
