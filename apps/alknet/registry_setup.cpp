#include "registry_setup.h"

#include "alknet/call-grpc/remote.h"
#include "alknet/call/builtins.h"
#include "alknet/compute-calls/calls.h"
#include "onnx_calls.h"

namespace alknet::cli {

call::Status RegisterAllCalls(call::CallRegistry& registry) {
  if (auto r = call::RegisterBuiltins(registry); !r) return r;
  if (auto r = registry.AddComponent(compute::ComputeComponent()); !r) return r;
  return registry.AddComponent(OnnxComponent());
}

bool TargetFlags::Consume(std::span<const std::string_view> args, std::size_t& i,
                          std::string& error) {
  const std::string_view a = args[i];
  auto value = [&](std::string& out, const char* what) {
    if (i + 1 >= args.size()) {
      error = std::string(a) + " needs " + what;
    } else {
      out = std::string(args[++i]);
    }
    return true;
  };
  if (a == "--tls") {
    tls = true;
    return true;
  }
  if (a == "--remote") return value(remote, "HOST:PORT");
  if (a == "--token-file") return value(token_file, "a file");
  if (a == "--tls-server-name") return value(tls_name, "a name");
  if (a == "--tls-ca") {
    tls = true;
    return value(tls_ca, "a file");
  }
  return false;
}

call::Result<std::unique_ptr<call::CallTarget>> OpenTarget(const TargetFlags& flags) {
  if (flags.remote.empty()) {
    auto registry = std::make_unique<call::CallRegistry>();
    if (auto r = RegisterAllCalls(*registry); !r) return r.error();
    registry->Seal();
    return std::unique_ptr<call::CallTarget>(std::move(registry));
  }
  call::RemoteOptions o;
  o.address = flags.remote;
  o.async_threads = flags.concurrency;
  auto token = call::LoadToken(flags.token_file);
  if (!token) return token.error();
  o.token = *token;
  o.tls = flags.tls;
  o.tls_server_name = flags.tls_name;
  if (!flags.tls_ca.empty()) {
    auto pem = call::ReadTextFile(flags.tls_ca);
    if (!pem) return pem.error();
    o.tls_root_pem = *pem;
  }
  auto client = call::RemoteRegistry::Connect(o);
  if (!client) return client.error();
  return std::unique_ptr<call::CallTarget>(std::move(*client));
}

}  // namespace alknet::cli
