// RemoteRegistry: the client half of remote calls.
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>

#include "alknet/call-grpc/remote.h"
#include "alknet/call/worker_pool.h"
#include "tensor_payload.h"
#include "wire.h"

namespace alknet::call {

namespace {

// The channel's service config (gRPC's own mechanisms, docs/remote.md "Pools"): calls spread
// over every resolved worker with round_robin; a worker's standard health service decides
// whether it gets calls (NOT_SERVING while it drains or after its device was lost; a server
// without the service counts as healthy); List and InvokeIdempotent are retried on another
// worker when one fails with UNAVAILABLE before answering. Invoke (calls not marked idempotent)
// is never retried.
constexpr char kServiceConfig[] = R"({
  "loadBalancingConfig": [{"round_robin": {}}],
  "healthCheckConfig": {"serviceName": "alknet.call.wire.Calls"},
  "methodConfig": [{
    "name": [{"service": "alknet.call.wire.Calls", "method": "List"},
             {"service": "alknet.call.wire.Calls", "method": "InvokeIdempotent"}],
    "retryPolicy": {
      "maxAttempts": 5,
      "initialBackoff": "0.05s",
      "maxBackoff": "1s",
      "backoffMultiplier": 2,
      "retryableStatusCodes": ["UNAVAILABLE"]
    }
  }]
})";

// A call is retried only while gRPC still holds every message it sent: requests up to this
// size (the chunks are views of the payload, so holding them costs no copy).
constexpr int kRetryBufferBytes = 64 << 20;

}  // namespace

struct RemoteRegistry::Impl {
  RemoteOptions options;
  bool pool = false;
  std::shared_ptr<grpc::Channel> channel;
  // The server's idempotent calls, from its listing, fetched on the first call.
  std::mutex idempotent_mutex;
  bool idempotent_known = false;
  std::set<std::string, std::less<>> idempotent;

  bool IsIdempotent(std::string_view call, RemoteRegistry& self) {
    {
      std::lock_guard lock(idempotent_mutex);
      if (idempotent_known) return idempotent.count(call) > 0;
    }
    auto infos = self.List();
    std::lock_guard lock(idempotent_mutex);
    if (!infos) return false;  // unknown: not retried; the next call asks again
    idempotent.clear();
    for (const auto& info : *infos) {
      if (info.flags.idempotent) idempotent.insert(info.name);
    }
    idempotent_known = true;
    return idempotent.count(call) > 0;
  }
  std::size_t endpoints = 1;  // workers the target names (a dns: name counts as 1)

  // A pool worker that refuses the token (another token, or none configured) answers
  // UNAUTHENTICATED; an idempotent call then goes to the other workers (round_robin picks the
  // next one on each attempt), at most 2 attempts per named worker (4..16). Each refusing
  // worker is reported once per registry through options.warn (stderr by default); when every
  // attempt is refused, the error names every worker that refused.
  std::mutex warned_mutex;
  std::set<std::string> warned;
  template <typename T, typename Attempt>
  Result<T> WithFailover(bool idempotent, Attempt&& attempt) {
    std::string peer;
    Result<T> r = attempt(&peer);
    if (r || !pool || !idempotent || r.error().code != ErrorCode::kUnauthenticated) return r;
    const std::size_t tries = std::clamp<std::size_t>(2 * endpoints, 4, 16);
    std::set<std::string> refused;
    for (std::size_t i = 1;; ++i) {
      if (!peer.empty()) {
        refused.insert(peer);
        Warn(peer, r.error());
      }
      if (i >= tries) break;
      peer.clear();
      r = attempt(&peer);
      if (r || r.error().code != ErrorCode::kUnauthenticated) return r;
    }
    Error e = std::move(r).error();
    std::string names;
    for (const auto& p : refused) names += (names.empty() ? "" : ", ") + p;
    e.message += "; " + std::to_string(tries) + " attempts, every one refused (by " + names + ")";
    return e;
  }
  void Warn(const std::string& peer, const Error& e) {
    {
      std::lock_guard lock(warned_mutex);
      if (!warned.insert(peer).second) return;
    }
    const std::string text = "worker " + peer + " of " + options.address +
                             " refused this client's token (" + e.message +
                             "); idempotent calls go to the other workers";
    if (options.warn) {
      options.warn(text);
    } else {
      std::fprintf(stderr, "alknet: warning: %s\n", text.c_str());
    }
  }
  Result<Value> InvokeOnce(const std::string& call, bool idempotent, std::span<const Value> args,
                           const CallOptions& call_options, std::string* peer);

  std::once_flag workers_once;
  std::unique_ptr<WorkerPool> workers;

  void Prepare(grpc::ClientContext& ctx, const CallOptions& call_options) const {
    if (!options.token.empty()) ctx.AddMetadata("authorization", "Bearer " + options.token);
    if (call_options.deadline) {
      const auto remaining = *call_options.deadline - Clock::now();
      ctx.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::duration_cast<std::chrono::system_clock::duration>(remaining));
    }
  }

  Error Transport(const grpc::Status& status, const grpc::ClientContext& ctx, std::string_view call,
                  bool retried = false) const {
    Error e = FromStatus(status, ctx.GetServerTrailingMetadata(), call);
    if (e.code == ErrorCode::kUnavailable) {
      e.message = "cannot reach the alknet server at " + options.address + ": " + e.message;
    }
    // In a pool, say which worker answered (or failed), so a bad worker can be found.
    if (pool) {
      const std::string peer = ctx.peer();
      if (!peer.empty()) e.message += " (worker " + peer + ")";
      if (e.code == ErrorCode::kUnavailable && !retried && !call.empty()) {
        e.message += "; '" + std::string(call) +
                     "' is not idempotent, so it was not retried on another worker";
      }
    }
    return e;
  }
};

RemoteRegistry::RemoteRegistry(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RemoteRegistry::~RemoteRegistry() {
  // Join the workers before the channel goes: queued calls still use it.
  impl_->workers.reset();
}

Result<std::unique_ptr<RemoteRegistry>> RemoteRegistry::Connect(RemoteOptions options) {
  if (options.address.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "no server address (--remote HOST:PORT)");
  }
  auto target = ParseTarget(options.address);
  if (!target) return std::move(target).error();
  // gRPC asserts (aborting the process) on a header value it cannot send; refuse it here.
  if (auto ok = CheckToken(options.token, "the token option"); !ok) return std::move(ok).error();
  if (options.chunk_bytes == 0 || options.chunk_bytes > options.max_message_bytes / 2) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "chunk size must be between 1 byte and half the message size limit");
  }
  TuneAllocatorForLargeMessages();
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  impl->pool = target->pool;
  impl->endpoints = target->endpoints.size();
  std::shared_ptr<grpc::ChannelCredentials> creds;
  grpc::ChannelArguments args;
  args.SetServiceConfigJSON(kServiceConfig);
  args.SetInt(GRPC_ARG_ENABLE_RETRIES, 1);
  args.SetInt(GRPC_ARG_PER_RPC_RETRY_BUFFER_SIZE, kRetryBufferBytes);
  args.SetMaxReceiveMessageSize(static_cast<int>(impl->options.max_message_bytes));
  args.SetMaxSendMessageSize(static_cast<int>(impl->options.max_message_bytes));
  ApplyTransportTuning([&](const char* key, int v) { args.SetInt(key, v); });
  if (impl->options.tls) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = impl->options.tls_root_pem;
    creds = grpc::SslCredentials(ssl);
    if (!impl->options.tls_server_name.empty()) {
      args.SetSslTargetNameOverride(impl->options.tls_server_name);
    }
  } else {
    creds = grpc::InsecureChannelCredentials();
  }
  impl->channel = grpc::CreateCustomChannel(impl->options.address, creds, args);
  return std::unique_ptr<RemoteRegistry>(new RemoteRegistry(std::move(impl)));
}

Result<std::vector<CallInfo>> RemoteRegistry::List() {
  wire::ListReply reply;
  auto listed = impl_->WithFailover<bool>(true, [&](std::string* peer) -> Result<bool> {
    grpc::ClientContext ctx;
    impl_->Prepare(ctx, CallOptions::WithTimeout(std::chrono::seconds(30)));
    wire::ListRequest request;
    reply.Clear();
    const grpc::Status status = CallList(impl_->channel.get(), &ctx, request, &reply);
    if (!status.ok()) {
      *peer = ctx.peer();
      return impl_->Transport(status, ctx, "call.list", /*retried=*/true);
    }
    return true;
  });
  if (!listed) return std::move(listed).error();
  std::vector<CallInfo> out;
  for (const auto& c : reply.calls()) {
    out.push_back(CallInfo{c.name(), c.signature(), c.owner(),
                           CallFlags{c.async() ? Execution::kAsync : Execution::kSync,
                                     c.side_effects(), c.idempotent()},
                           c.doc()});
  }
  return out;
}

Result<Value> RemoteRegistry::Impl::InvokeOnce(const std::string& call, bool idempotent,
                                               std::span<const Value> args,
                                               const CallOptions& call_options, std::string* peer) {
  grpc::ClientContext ctx;
  Prepare(ctx, call_options);
  // Cancelling the token cancels the RPC, which the server sees as a cancelled context.
  const auto cancel_id = call_options.cancel.OnCancel([&ctx] { ctx.TryCancel(); });
  struct Unregister {
    const CancelToken& token;
    std::uint64_t id;
    ~Unregister() { token.RemoveCallback(id); }
  } unregister{call_options.cancel, cancel_id};

  StreamFrame frame;
  std::vector<Tensor> tensors;
  auto* header = frame.control.mutable_header();
  header->set_call(call);
  for (const auto& a : args) ToWire(a, header->add_args(), tensors);
  auto encoded = EncodePayload(std::move(tensors));
  if (!encoded) return Error{ErrorCode::kInvalidArgument, call, encoded.error().message};
  auto payload = std::make_shared<const EncodedPayload>(std::move(*encoded));
  header->set_payload_bytes(payload->size);

  auto stream = OpenInvoke(channel.get(), &ctx, idempotent);
  // A failed write means the server already answered (an error) or went away: stop
  // sending and read the status.
  bool sending = stream->Write(frame);
  StreamFrame chunk;
  chunk.is_chunk = true;
  chunk.keep = payload;
  for (auto piece : payload->pieces) {
    while (sending && !piece.empty()) {
      const std::size_t n = std::min(this->options.chunk_bytes, piece.size());
      chunk.out_chunk = piece.first(n);
      sending = stream->Write(chunk);
      piece = piece.subspan(n);
    }
  }
  if (sending) stream->WritesDone();

  StreamFrame reply;
  const bool have_result =
      stream->Read(&reply) && !reply.is_chunk && reply.control.body_case() == wire::Frame::kResult;
  std::string malformed = reply.malformed;
  std::shared_ptr<std::byte[]> buffer;
  std::uint64_t payload_bytes = 0;
  std::string protocol_error;
  wire::Value result_value;
  if (have_result) {
    result_value = std::move(*reply.control.mutable_result()->mutable_value());
    payload_bytes = reply.control.result().payload_bytes();
    if (payload_bytes > this->options.max_result_tensor_bytes) {
      protocol_error = "the result's tensors take " + std::to_string(payload_bytes) +
                       " bytes, over this client's limit of " +
                       std::to_string(this->options.max_result_tensor_bytes);
      ctx.TryCancel();
    } else if (payload_bytes) {
      buffer = AllocatePayload(payload_bytes);
    }
    std::uint64_t received = 0;
    while (protocol_error.empty() && received < payload_bytes) {
      if (!stream->Read(&reply)) {
        if (!reply.malformed.empty()) {
          protocol_error = "the server sent a malformed frame: " + reply.malformed;
          ctx.TryCancel();
        }
        break;
      }
      if (!reply.is_chunk || reply.in_size > payload_bytes - received) {
        protocol_error = "the server sent a malformed result stream";
        ctx.TryCancel();
        break;
      }
      reply.CopyChunkTo(buffer.get() + received);
      received += reply.in_size;
    }
    if (protocol_error.empty() && received < payload_bytes) {
      protocol_error = "the result stream ended early";
    }
  }
  const grpc::Status status = stream->Finish();
  // When we cancelled (a bad result stream), our reason beats the CANCELLED status.
  const bool we_cancelled =
      protocol_error.size() && protocol_error != "the result stream ended early";
  if (we_cancelled) return Error{ErrorCode::kInternal, call, protocol_error};
  if (!status.ok()) {
    *peer = ctx.peer();
    return Transport(status, ctx, call, idempotent);
  }
  if (!protocol_error.empty()) return Error{ErrorCode::kInternal, call, protocol_error};
  if (!have_result) {
    return Error{ErrorCode::kInternal, call,
                 malformed.empty() ? "the server sent no result"
                                   : "the server sent a malformed frame: " + malformed};
  }

  std::vector<Tensor> out_tensors;
  if (payload_bytes) {
    auto decoded = DecodePayload(buffer, payload_bytes);
    if (!decoded) return Error{ErrorCode::kInternal, call, decoded.error().message};
    out_tensors = std::move(*decoded);
  }
  auto value = FromWire(result_value, out_tensors);
  if (!value) return Error{ErrorCode::kInternal, call, value.error().message};
  return value;
}

Result<Value> RemoteRegistry::Invoke(std::string_view name, std::span<const Value> args,
                                     const CallOptions& options) {
  const std::string call(name);
  if (options.cancel.IsCancelled()) {
    return Error{ErrorCode::kCancelled, call, "the call was cancelled"};
  }
  const bool idempotent = impl_->IsIdempotent(call, *this);
  return impl_->WithFailover<Value>(idempotent, [&](std::string* peer) {
    return impl_->InvokeOnce(call, idempotent, args, options, peer);
  });
}

Result<std::string> CheckHealth(const RemoteOptions& options, std::string_view service,
                                std::chrono::milliseconds timeout) {
  auto target = ParseTarget(options.address);
  if (!target) return std::move(target).error();
  if (service.size() > 1024) {
    return MakeError(ErrorCode::kInvalidArgument, "a health service name is at most 1024 bytes");
  }
  std::shared_ptr<grpc::ChannelCredentials> creds = grpc::InsecureChannelCredentials();
  grpc::ChannelArguments args;
  if (options.tls) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = options.tls_root_pem;
    creds = grpc::SslCredentials(ssl);
    if (!options.tls_server_name.empty()) args.SetSslTargetNameOverride(options.tls_server_name);
  }
  auto channel = grpc::CreateCustomChannel(options.address, creds, args);
  // HealthCheckRequest {string service = 1;}, encoded by hand (no generated code for it).
  std::string request;
  if (!service.empty()) {
    request.push_back(0x0a);
    std::size_t n = service.size();
    while (n >= 0x80) {
      request.push_back(static_cast<char>((n & 0x7f) | 0x80));
      n >>= 7;
    }
    request.push_back(static_cast<char>(n));
    request.append(service);
  }
  grpc::Slice slice(request);
  grpc::ByteBuffer in(&slice, 1), out;
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + timeout);
  ctx.set_wait_for_ready(false);
  const grpc::internal::RpcMethod method("/grpc.health.v1.Health/Check",
                                         grpc::internal::RpcMethod::NORMAL_RPC);
  const grpc::Status status = grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
      channel.get(), method, &ctx, in, &out);
  if (status.error_code() == grpc::StatusCode::NOT_FOUND) return std::string("SERVICE_UNKNOWN");
  if (!status.ok()) {
    Error e = FromStatus(status, ctx.GetServerTrailingMetadata(), "grpc.health.v1.Health/Check");
    if (e.code == ErrorCode::kUnavailable || e.code == ErrorCode::kDeadlineExceeded) {
      e.message = "cannot reach the alknet server at " + options.address + ": " + e.message;
    }
    return e;
  }
  // HealthCheckResponse {ServingStatus status = 1;}: UNKNOWN 0, SERVING 1, NOT_SERVING 2.
  std::vector<grpc::Slice> slices;
  std::string bytes;
  if (out.Dump(&slices).ok()) {
    for (const auto& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  int value = 0;
  if (bytes.size() == 2 && bytes[0] == 0x08) value = static_cast<unsigned char>(bytes[1]);
  switch (value) {
    case 1: return std::string("SERVING");
    case 2: return std::string("NOT_SERVING");
    case 3: return std::string("SERVICE_UNKNOWN");
    default: return std::string("UNKNOWN");
  }
}

RemoteConnector RemoteRegistry::Connector() {
  return [](RemoteOptions options) -> Result<std::unique_ptr<CallTarget>> {
    auto remote = Connect(std::move(options));
    if (!remote) return std::move(remote).error();
    return std::unique_ptr<CallTarget>(std::move(remote).value());
  };
}

void RemoteRegistry::InvokeAsync(std::string name, std::vector<Value> args, CallOptions options,
                                 Callback done) {
  std::call_once(impl_->workers_once, [this] {
    impl_->workers = std::make_unique<WorkerPool>(impl_->options.async_threads);
  });
  impl_->workers->Submit([this, name = std::move(name), args = std::move(args),
                          options = std::move(options),
                          done = std::move(done)] { done(Invoke(name, args, options)); });
}

}  // namespace alknet::call
