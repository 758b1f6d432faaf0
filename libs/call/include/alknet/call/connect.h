// Remote connections as a hook: the registry layer names what a connection needs, the gRPC
// transport (alknet-call-grpc) provides it, and a host that wants remote calls hands one to the
// layers above (the JS runtime's `connect()`), so that none of them links gRPC itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "alknet/call/registry.h"

namespace alknet::call {

struct RemoteOptions {
  std::string address;  // host:port
  std::string token;    // sent as "authorization: Bearer <token>"
  bool tls = false;
  std::string tls_root_pem;     // trusted roots; empty with tls = the system's roots
  std::string tls_server_name;  // overrides the name checked against the certificate
  std::size_t chunk_bytes = 4u << 20;
  std::size_t max_message_bytes = 64u << 20;
  std::uint64_t max_result_tensor_bytes = 16ull << 30;
  unsigned async_threads = 8;  // calls in flight at once through InvokeAsync
};

// Opens a CallTarget on a remote server; alknet-call-grpc's RemoteRegistry::Connector() is one.
using RemoteConnector = std::function<Result<std::unique_ptr<CallTarget>>(RemoteOptions)>;

}  // namespace alknet::call
