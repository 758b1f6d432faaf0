// alknet-call-grpc, the remote transport of alknet-call. CallServer exposes a sealed CallRegistry;
// RemoteRegistry is a CallTarget whose calls run on that server. A call keeps its semantics across
// the wire: the same signature checks, the deadline travels with it, cancelling the client cancels
// the server-side call, and errors arrive with their code, message and call name.
//
// gRPC stays out of this header (it is heavy to compile); see src/server.cpp, src/client.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "alknet/call/connect.h"
#include "alknet/call/registry.h"

namespace alknet::call {

struct ServerLimits {
  std::size_t max_message_bytes = 8u << 20;     // one gRPC message: a header or a chunk
  std::uint64_t max_tensor_bytes = 4ull << 30;  // all tensors of one call, encoded
  int max_concurrent_calls = 64;
  std::chrono::milliseconds max_call_time{10 * 60 * 1000};
};

struct ServerOptions {
  std::string listen = "127.0.0.1:0";  // port 0 picks a free port (see CallServer::port)
  std::string token;                   // bearer token; empty only allowed on loopback
  std::string tls_cert_pem;            // both or neither: TLS on when set
  std::string tls_key_pem;
  ServerLimits limits;
};

class CallServer {
 public:
  // Refuses a non-loopback address without a token, and a half-configured TLS. Seals the
  // registry (a served registry never changes under its clients); it must outlive the server.
  static Result<std::unique_ptr<CallServer>> Start(CallRegistry& registry, ServerOptions options);
  ~CallServer();  // shuts down (in-flight calls are cancelled after a short grace period)

  int port() const;
  std::string address() const;  // host:port as bound, for clients
  // Blocks until Shutdown() is called from another thread.
  void Wait();
  void Shutdown();
  // Calls refused so far for a bad token or a limit (for tests and `alknet serve` logs).
  std::uint64_t refused_calls() const;

  struct Impl;

 private:
  explicit CallServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class RemoteRegistry final : public CallTarget {
 public:
  // Does not contact the server; the first call does (List() is a cheap health check).
  static Result<std::unique_ptr<RemoteRegistry>> Connect(RemoteOptions options);
  // Connect() as a RemoteConnector, for hosts that hand remote connections to layers that do
  // not link gRPC (the JS runtime's alknet:call).
  static RemoteConnector Connector();
  ~RemoteRegistry() override;

  Result<std::vector<CallInfo>> List() override;
  Result<Value> Invoke(std::string_view name, std::span<const Value> args,
                       const CallOptions& options = {}) override;
  using CallTarget::InvokeAsync;
  void InvokeAsync(std::string name, std::vector<Value> args, CallOptions options,
                   Callback done) override;

  struct Impl;

 private:
  explicit RemoteRegistry(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The bearer token: the first line of `token_file` when given, else the environment variable
// ALKNET_TOKEN, else empty. An unreadable or empty file is an error.
Result<std::string> LoadToken(const std::string& token_file);

// Reads a whole file (PEM certificates and keys); the error names the file and errno.
Result<std::string> ReadTextFile(const std::string& path);

// "127.0.0.1:N", "[::1]:N", "localhost:N" (any 127/8 address counts).
bool IsLoopbackAddress(std::string_view host_port);

// Equal contents, in time that depends only on the lengths (bearer token checks).
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace alknet::call
