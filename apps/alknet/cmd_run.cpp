// `alknet run FILE.js [args...]`: runs an ES module with the event loop until nothing is left.
#include <cstdio>
#include <string>
#include <vector>

#include "alknet/call-grpc/remote.h"
#include "alknet/runtime/cli_flags.h"
#include "alknet/runtime/runtime.h"
#include "command.h"
#include "js_host.h"
#include "registry_setup.h"

namespace {

namespace rt = alknet::runtime;

constexpr const char* kHelp =
    "Usage: alknet run [options] FILE.js [args...]\n\n"
    "Runs FILE.js as an ES module (SpiderMonkey), then the event loop until no timer, promise\n"
    "job or GPU work is left. Arguments after FILE.js go to the script (alknet:process args).\n\n"
    "alknet:call reaches the local registry (the calls `alknet calls` lists). With --remote it\n"
    "reaches an `alknet serve` process instead; the script itself still runs here.\n\n"
    "Registry options:\n"
    "  --remote HOST:PORT     bind alknet:call's call()/list() to the registry at HOST:PORT\n"
    "  --token T              bearer token for --remote (else --token-file, else $ALKNET_TOKEN)\n"
    "  --token-file FILE      read the token from the first line of FILE\n"
    "  --tls, --tls-ca FILE, --tls-server-name NAME   TLS for --remote (as in `alknet call`)\n\n"
    "Exit codes: 0 ok; 1 uncaught error or unhandled rejection (printed with file:line:col);\n"
    "the code passed to exit(); 2 bad command line; 3 the JavaScript engine could not start.\n\n";

// The registry behind alknet:call: local (every CLI call, sealed), or the remote one. A remote
// is probed with List() so that a wrong address or token fails before the script starts.
alknet::call::Result<std::shared_ptr<alknet::call::CallTarget>> OpenCalls(
    const alknet::cli::TargetFlags& flags, const std::string* token) {
  if (flags.remote.empty() || token == nullptr) {
    auto target = alknet::cli::OpenTarget(flags);
    if (!target) return target.error();
    std::shared_ptr<alknet::call::CallTarget> shared = std::move(*target);
    if (!flags.remote.empty()) {
      if (auto probe = shared->List(); !probe) return probe.error();
    }
    return shared;
  }
  alknet::call::RemoteOptions o;
  o.address = flags.remote;
  o.token = *token;
  o.tls = flags.tls;
  o.tls_server_name = flags.tls_name;
  if (!flags.tls_ca.empty()) {
    auto pem = alknet::call::ReadTextFile(flags.tls_ca);
    if (!pem) return pem.error();
    o.tls_root_pem = *pem;
  }
  auto client = alknet::call::RemoteRegistry::Connect(o);
  if (!client) return client.error();
  std::shared_ptr<alknet::call::CallTarget> shared = std::move(*client);
  if (auto probe = shared->List(); !probe) return probe.error();
  return shared;
}

int RunRun(std::span<const std::string_view> args) {
  rt::RuntimeOptions options;
  alknet::cli::TargetFlags target;
  std::string token;
  bool has_token = false;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    if (args[i] == "-h" || args[i] == "--help") {
      std::printf("%s%s", kHelp, rt::kRuntimeFlagsHelp);
      return alknet::cli::kExitOk;
    }
    if (args[i] == "--token") {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "alknet run: --token needs a value\n");
        return alknet::cli::kExitUsage;
      }
      token = std::string(args[++i]);
      has_token = true;
      continue;
    }
    std::string flag_error;
    if (target.Consume(args, i, flag_error)) {
      if (!flag_error.empty()) {
        std::fprintf(stderr, "alknet run: %s\n", flag_error.c_str());
        return alknet::cli::kExitUsage;
      }
      continue;
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
  if (has_token && target.remote.empty()) {
    std::fprintf(stderr, "alknet run: --token is for --remote\n");
    return alknet::cli::kExitUsage;
  }
  auto calls = OpenCalls(target, has_token ? &token : nullptr);
  if (!calls) {
    std::fprintf(stderr, "alknet run: %s\n", calls.error().ToString().c_str());
    return target.remote.empty() ? alknet::cli::kExitEnvironment : alknet::cli::kExitFailure;
  }
  options.calls = std::move(*calls);
  std::unique_ptr<rt::Runtime> runtime;
  if (int code = alknet::cli::CreateJsRuntime("run", std::move(options), &runtime); code != 0)
    return code;
  return runtime->RunFile(file);
}

const alknet::cli::Registration kReg{
    {"run", "Run a JavaScript module (WebGPU, ES modules)", &RunRun}};

}  // namespace
