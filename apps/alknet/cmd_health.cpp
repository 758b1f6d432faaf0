// alknet health: asks a server's standard gRPC health service whether it takes calls.
#include <cstdio>
#include <string>

#include "alknet/call-grpc/remote.h"
#include "alknet/call/json.h"
#include "command.h"
#include "options.h"
#include "registry_setup.h"

namespace alknet::cli {
namespace {

namespace ac = alknet::call;

constexpr const char* kUsage =
    "Usage: alknet health --remote TARGET [--service NAME] [--timeout MS] [--json]\n"
    "                     [--tls] [--tls-ca FILE] [--tls-server-name NAME]\n\n"
    "Asks an alknet serve worker's standard gRPC health service (grpc.health.v1.Health/Check)\n"
    "whether it takes calls. No token is needed: the answer says only SERVING or NOT_SERVING\n"
    "(draining after SIGTERM, or its GPU device was lost). TARGET is HOST:PORT (a pool target\n"
    "asks one of its workers). --service defaults to alknet.call.wire.Calls (\"\" = the\n"
    "server as a whole); --timeout defaults to 5000.\n\n"
    "  --json   {\"target\": ..., \"service\": ..., \"status\": \"SERVING\"}\n\n"
    "Exit codes: 0 SERVING, 1 not serving (NOT_SERVING, SERVICE_UNKNOWN, UNKNOWN), 2 usage,\n"
    "3 the server cannot be reached.\n";

int Usage(const std::string& why) {
  std::fprintf(stderr, "alknet health: %s\n\n%s", why.c_str(), kUsage);
  return kExitUsage;
}

int RunHealth(std::span<const std::string_view> args) {
  if (WantsHelp(args)) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  bool json = false;
  std::string service = "alknet.call.wire.Calls";
  std::uint64_t timeout_ms = 5000;
  TargetFlags target;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string error;
    if (target.Consume(args, i, error)) {
      if (!error.empty()) return Usage(error);
    } else if (args[i] == "--json") {
      json = true;
    } else if (args[i] == "--service") {
      if (i + 1 >= args.size()) return Usage("--service needs a name");
      service = std::string(args[++i]);
    } else if (args[i] == "--timeout") {
      if (i + 1 >= args.size()) return Usage("--timeout needs milliseconds");
      auto v = ParseUnsignedOption("--timeout", args[++i], 1, 3'600'000);
      if (!v) return Usage(v.error().message);
      timeout_ms = *v;
    } else {
      return Usage("unknown option '" + std::string(args[i]) + "'");
    }
  }
  if (target.remote.empty()) return Usage("--remote TARGET is required");
  ac::RemoteOptions o;
  o.address = target.remote;
  o.tls = target.tls;
  o.tls_server_name = target.tls_name;
  if (!target.tls_ca.empty()) {
    auto pem = ac::ReadTextFile(target.tls_ca);
    if (!pem) return Usage(pem.error().message);
    o.tls_root_pem = *pem;
  }
  auto status = ac::CheckHealth(o, service, std::chrono::milliseconds(timeout_ms));
  if (!status) {
    std::fprintf(stderr, "alknet health: %s\n", TerminalText(status.error().ToString()).c_str());
    if (status.error().code == ac::ErrorCode::kInvalidArgument) return kExitUsage;
    return status.error().code == ac::ErrorCode::kUnavailable ||
                   status.error().code == ac::ErrorCode::kDeadlineExceeded
               ? kExitEnvironment
               : kExitFailure;
  }
  if (json) {
    ac::Value::Map m;
    m.emplace("target", target.remote);
    m.emplace("service", service);
    m.emplace("status", *status);
    std::printf("%s\n", ac::ToJson(ac::Value(std::move(m))).c_str());
  } else {
    std::printf("%s\n", status->c_str());
  }
  return *status == "SERVING" ? kExitOk : kExitFailure;
}

const Registration kReg{
    {"health", "Ask a server's gRPC health service (SERVING or not)", &RunHealth}};

}  // namespace
}  // namespace alknet::cli
