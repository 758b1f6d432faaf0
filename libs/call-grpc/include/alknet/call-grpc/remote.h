// alknet-call-grpc, the remote transport of alknet-call. CallServer exposes a sealed CallRegistry;
// RemoteRegistry is a CallTarget whose calls run on that server. A call keeps its semantics across
// the wire: the same signature checks, the deadline travels with it, cancelling the client cancels
// the server-side call, and errors arrive with their code, message and call name.
//
// gRPC stays out of this header (it is heavy to compile); see src/server.cpp, src/client.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "alknet/call/connect.h"
#include "alknet/call/registry.h"

namespace alknet::call {

// A call whose declared tensor payload is at most this is a small call: it may use
// ServerLimits::small_call_reserve.
inline constexpr std::uint64_t kSmallCallBytes = 1u << 20;

struct ServerLimits {
  std::size_t max_message_bytes = 8u << 20;     // one gRPC message: a header or a chunk
  std::uint64_t max_tensor_bytes = 4ull << 30;  // all tensors of one call, encoded
  // All payloads being received or held by running calls at once; a call whose header
  // declares more than what is left is refused before anything is buffered.
  std::uint64_t max_total_tensor_bytes = 8ull << 30;
  // The share of max_total_tensor_bytes kept for small calls (payload at most
  // kSmallCallBytes): a larger call is refused once the rest of the budget is taken, so
  // unfinished large uploads cannot lock small calls out. Unset: min(64 MiB, budget / 16).
  // Clamped to the budget.
  std::optional<std::uint64_t> small_call_reserve;
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

// The reserve ServerLimits::small_call_reserve gives (its default when unset), at most the
// budget.
std::uint64_t SmallCallReserve(const ServerLimits& limits);

// One finished (or refused) call as the server saw it: `alknet serve --json` prints one line
// of these per call.
struct CallLogEntry {
  std::string call;  // empty when the call was refused before its header was read
  std::string peer;  // gRPC's peer string, "ipv4:127.0.0.1:50312"
  bool idempotent_method = false;
  std::uint64_t bytes_in = 0;   // request tensor payload, as declared and received
  std::uint64_t bytes_out = 0;  // result tensor payload
  double upload_ms = 0;         // first frame to the whole payload received
  double queue_ms = 0;          // waiting for the device behind other calls (handlers report it)
  double run_ms = 0;            // the handler, queue time included
  double send_ms = 0;           // streaming the result back
  int status = 0;               // the gRPC status code (equal to alknet ErrorCode values); 0 = ok
  std::string message;          // the error's message; empty on success
};

// What `server.stats` (a call every server adds to its registry's listing) reports beyond the
// server's own counters; the host fills it (alknet serve: the device).
using ServerStatsHook = std::function<Value::Map()>;

struct ServerOptions {
  std::string listen = "127.0.0.1:0";  // port 0 picks a free port (see CallServer::port)
  std::string token;                   // bearer token; empty only allowed on loopback
  std::string tls_cert_pem;            // both or neither: TLS on when set
  std::string tls_key_pem;
  ServerLimits limits;
  // Called on a gRPC thread after each call, also refused ones; must be thread-safe and fast.
  std::function<void(const CallLogEntry&)> on_call;
  ServerStatsHook stats;
};

// The call every server answers itself (listed beside the registry's calls): in-flight calls,
// calls served and failed, refusals, reserved tensor bytes, serving/draining, and the host's
// stats hook (alknet serve: the device's queue depth and state).
inline constexpr char kServerStatsCall[] = "server.stats";

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
  // Calls being received, run or answered right now.
  int in_flight() const;

  // The standard gRPC health service (grpc.health.v1.Health, service "" and
  // "alknet.call.wire.Calls") reports SERVING after Start; false turns it NOT_SERVING, so pool
  // clients (healthCheckConfig) and Kubernetes probes stop sending calls here. Calls that
  // still arrive are served.
  void SetServing(bool serving);
  bool serving() const;
  // Graceful drain: NOT_SERVING, then waits until no call is in flight or `timeout` passed,
  // then Shutdown() (calls still running after 2 more seconds are cancelled). Returns how many
  // calls were still in flight when the wait ended (0 = drained cleanly).
  int Drain(std::chrono::milliseconds timeout);

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

// Asks a server's standard health service (grpc.health.v1.Health/Check) about `service`
// ("" = the whole server): "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN" or "UNKNOWN". No token
// is needed. With a pool target, one worker answers (the first round_robin picks). An
// unreachable server is an error (kUnavailable).
Result<std::string> CheckHealth(const RemoteOptions& options, std::string_view service,
                                std::chrono::milliseconds timeout);

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
