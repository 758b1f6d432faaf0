// Remote connections as a hook: the registry layer names what a connection needs, the gRPC
// transport (alknet-call-grpc) provides it, and a host that wants remote calls hands one to the
// layers above (the JS runtime's `connect()`), so that none of them links gRPC itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "alknet/call/registry.h"

namespace alknet::call {

struct RemoteOptions {
  // One server (host:port) or a pool as a gRPC target: "ipv4:10.0.0.1:7000,10.0.0.2:7000",
  // "ipv6:[::1]:7000,[::1]:7001", "dns:///workers.example:7000" (every address the name
  // resolves to). Calls are spread over a pool's healthy workers (docs/remote.md, "Pools").
  std::string address;
  std::string token;  // sent as "authorization: Bearer <token>"
  bool tls = false;
  std::string tls_root_pem;     // trusted roots; empty with tls = the system's roots
  std::string tls_server_name;  // overrides the name checked against the certificate
  std::size_t chunk_bytes = 4u << 20;
  std::size_t max_message_bytes = 64u << 20;
  std::uint64_t max_result_tensor_bytes = 16ull << 30;
  unsigned async_threads = 8;  // calls in flight at once through InvokeAsync
  // A pool worker refusing the token is reported here once (its address and the error);
  // empty: a line "alknet: warning: ..." on stderr.
  std::function<void(const std::string&)> warn;
};

// One worker named by a target.
struct TargetEndpoint {
  std::string host;  // without brackets: "10.0.0.1", "::1", "workers.example"
  std::uint16_t port = 0;
};

struct ParsedTarget {
  std::vector<TargetEndpoint> endpoints;
  bool dns = false;   // "dns:///NAME:PORT": the workers are whatever NAME resolves to
  bool pool = false;  // several workers (an ipv4:/ipv6: list or a dns: name)
};

// Parses host:port, [v6]:port, ipv4:A:P,B:P..., ipv6:[A]:P,..., dns:///NAME:PORT (also
// dns:NAME:PORT). The error says which part is wrong. At most 1024 endpoints.
Result<ParsedTarget> ParseTarget(std::string_view target);

// Opens a CallTarget on a remote server; alknet-call-grpc's RemoteRegistry::Connector() is one.
using RemoteConnector = std::function<Result<std::unique_ptr<CallTarget>>(RemoteOptions)>;

}  // namespace alknet::call
