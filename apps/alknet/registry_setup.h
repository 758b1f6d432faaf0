// The registry every CLI command serves or calls: alknet-call's built-ins plus the compute
// ops and SHA-256, so `alknet call`, `alknet calls` and `alknet serve` see the same records;
// and the flags that point `call`/`calls` at a remote server instead.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "alknet/call/registry.h"

namespace alknet::cli {

call::Status RegisterAllCalls(call::CallRegistry& registry);

// --remote TARGET (HOST:PORT, or a pool: ipv4:A:P,B:P, dns:///NAME:PORT), --token-file FILE, --tls,
// --tls-ca FILE, --tls-server-name NAME.
struct TargetFlags {
  std::string remote, token_file, tls_ca, tls_name;
  bool tls = false;
  unsigned concurrency = 8;  // a remote target's calls in flight through InvokeAsync

  // If args[i] is one of these flags, consumes it (and its value, advancing i) and returns
  // true; a missing value sets `error`.
  bool Consume(std::span<const std::string_view> args, std::size_t& i, std::string& error);
};

// Without --remote: the local registry, every call registered, sealed. With it: a connected
// RemoteRegistry (token from --token-file or $ALKNET_TOKEN).
call::Result<std::unique_ptr<call::CallTarget>> OpenTarget(const TargetFlags& flags);

}  // namespace alknet::cli
