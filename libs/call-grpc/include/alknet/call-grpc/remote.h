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
  // All payloads being received or held by running calls at once; a call whose header
  // declares more than what is left is refused before anything is buffered.
  std::uint64_t max_total_tensor_bytes = 8ull << 30;
  int max_concurrent_calls = 64;
  // From the first frame of a call to its result, upload included; enforced on a call that
  // waits for the device and between the dispatches of a running one.
  std::chrono::milliseconds max_call_time{10 * 60 * 1000};
  // The longest a call's stream may stay silent (no frame from the client while it uploads,
  // no progress while the result streams back); the stream is then reset.
  std::chrono::milliseconds idle_timeout{30 * 1000};
  // A connection with no call in flight for this long is closed (GOAWAY); one that never
  // completes the HTTP/2 handshake is closed after idle_timeout.
  std::chrono::milliseconds max_connection_idle{5 * 60 * 1000};
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
  // Streams reset for staying silent past idle_timeout or for outliving max_call_time.
  std::uint64_t timed_out_streams() const;
  // Payload bytes reserved right now by calls in flight (max_total_tensor_bytes caps it).
  std::uint64_t reserved_tensor_bytes() const;

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
// ALKNET_TOKEN, else empty. An unreadable or empty file, or a token CheckToken refuses, is
// an error.
Result<std::string> LoadToken(const std::string& token_file);

// A bearer token travels as an HTTP/2 header value, so it must be printable ASCII
// (0x21..0x7e: no space, tab, newline or non-ASCII byte). `source` names where it came
// from in the error ("ALKNET_TOKEN", "token file t.txt", "connect() option token").
Status CheckToken(std::string_view token, std::string_view source);

// Reads a whole file (PEM certificates and keys); the error names the file and errno.
Result<std::string> ReadTextFile(const std::string& path);

// "127.0.0.1:N", "[::1]:N", "localhost:N" (any 127/8 address counts).
bool IsLoopbackAddress(std::string_view host_port);

// Equal contents, in time that depends only on the lengths (bearer token checks).
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace alknet::call
