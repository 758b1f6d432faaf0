// The gRPC side of `alknet serve`: one bidirectional stream per call (see proto/calls.proto).
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "alknet/base/file.h"
#include "alknet/call-grpc/remote.h"
#include "tensor_payload.h"
#include "wire.h"

namespace alknet::call {

bool IsLoopbackAddress(std::string_view host_port) {
  std::string_view host = host_port;
  if (!host.empty() && host.front() == '[') {
    const auto close = host.find(']');
    if (close == std::string_view::npos) return false;
    host = host.substr(1, close - 1);
    return host == "::1";
  }
  host = host.substr(0, host.rfind(':'));
  if (host == "localhost") return true;
  // Any 127.0.0.0/8 address, written as four decimal octets.
  if (host.substr(0, 4) != "127.") return false;
  int dots = 0;
  for (char c : host) {
    if (c == '.')
      ++dots;
    else if (c < '0' || c > '9')
      return false;
  }
  return dots == 3;
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  // The loop runs over the longer length whatever the contents; only lengths leak.
  const std::size_t n = std::max(a.size(), b.size());
  unsigned diff = a.size() ^ b.size();
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? a[i] : 0;
    const unsigned char y = i < b.size() ? b[i] : 0;
    diff |= x ^ y;
  }
  return diff == 0;
}

namespace {

using Stream = ServerStream;

grpc::Status Fail(grpc::ServerContext* ctx, ErrorCode code, std::string_view call,
                  std::string message) {
  if (!call.empty()) ctx->AddTrailingMetadata(kCallKey, std::string(call));
  return grpc::Status(static_cast<grpc::StatusCode>(code), std::move(message));
}

// Sends a payload as chunks of at most `chunk` bytes, each a view of the payload's memory.
bool SendPayload(Stream* stream, const std::shared_ptr<const EncodedPayload>& payload,
                 std::size_t chunk) {
  StreamFrame frame;
  frame.is_chunk = true;
  frame.keep = payload;
  for (auto piece : payload->pieces) {
    while (!piece.empty()) {
      const std::size_t n = std::min(chunk, piece.size());
      frame.out_chunk = piece.first(n);
      if (!stream->Write(frame)) return false;
      piece = piece.subspan(n);
    }
  }
  return true;
}

}  // namespace

struct CallServer::Impl {
  CallsService<Impl> service{this};
  CallRegistry* registry = nullptr;
  ServerOptions options;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  std::atomic<int> in_flight{0};
  std::atomic<std::uint64_t> refused{0};

  grpc::Status CheckToken(grpc::ServerContext* ctx) {
    if (options.token.empty()) return grpc::Status::OK;
    const auto& md = ctx->client_metadata();
    auto it = md.find("authorization");
    const std::string expected = "Bearer " + options.token;
    if (it == md.end() ||
        !ConstantTimeEquals(std::string_view(it->second.data(), it->second.size()), expected)) {
      refused.fetch_add(1);
      return Fail(ctx, ErrorCode::kUnauthenticated, {},
                  "missing or wrong bearer token (pass --token-file or set ALKNET_TOKEN)");
    }
    return grpc::Status::OK;
  }

  grpc::Status List(grpc::ServerContext* ctx, const wire::ListRequest*, wire::ListReply* reply) {
    if (auto s = CheckToken(ctx); !s.ok()) return s;
    for (const auto& info : registry->Infos()) {
      auto* c = reply->add_calls();
      c->set_name(info.name);
      c->set_signature(info.signature);
      c->set_owner(info.owner);
      c->set_async(info.flags.execution == Execution::kAsync);
      c->set_side_effects(info.flags.side_effects);
      c->set_doc(info.doc);
    }
    return grpc::Status::OK;
  }

  grpc::Status Invoke(grpc::ServerContext* ctx, Stream* stream) {
    if (auto s = CheckToken(ctx); !s.ok()) return s;
    // The slot is taken before anything is read, so a flood of calls costs the server
    // nothing beyond this counter.
    struct Slot {
      std::atomic<int>& n;
      ~Slot() { n.fetch_sub(1); }
    } slot{in_flight};
    if (in_flight.fetch_add(1) >= options.limits.max_concurrent_calls) {
      refused.fetch_add(1);
      return Fail(ctx, ErrorCode::kResourceExhausted, {},
                  "the server is running its limit of " +
                      std::to_string(options.limits.max_concurrent_calls) +
                      " concurrent calls (--max-concurrent); retry later");
    }

    StreamFrame frame;
    if (!stream->Read(&frame)) {
      return Fail(ctx, ErrorCode::kCancelled, {}, "the client closed the stream before the header");
    }
    if (frame.is_chunk || frame.control.body_case() != wire::Frame::kHeader) {
      return Fail(ctx, ErrorCode::kInvalidArgument, {},
                  "malformed request: the first frame must be a header");
    }
    wire::Header header = std::move(*frame.control.mutable_header());
    const std::string& name = header.call();
    const CallRecord* record = registry->Find(name);
    if (!record) {
      return Fail(ctx, ErrorCode::kNotFound, name,
                  "no call named '" + name + "' is registered on this server");
    }
    const std::uint64_t payload_bytes = header.payload_bytes();
    if (payload_bytes > options.limits.max_tensor_bytes) {
      refused.fetch_add(1);
      return Fail(ctx, ErrorCode::kResourceExhausted, name,
                  "the call's tensors take " + std::to_string(payload_bytes) +
                      " bytes; this server accepts at most " +
                      std::to_string(options.limits.max_tensor_bytes) + " (--max-tensor-bytes)");
    }

    // Reassemble the payload; a hostile sender can neither overrun it nor make it grow.
    std::shared_ptr<std::byte[]> buffer;
    if (payload_bytes) buffer = AllocatePayload(payload_bytes);
    std::uint64_t received = 0;
    while (received < payload_bytes) {
      if (!stream->Read(&frame)) {
        if (ctx->IsCancelled()) {
          return Fail(ctx, ErrorCode::kCancelled, name, "the client went away mid-stream");
        }
        return Fail(ctx, ErrorCode::kInvalidArgument, name,
                    "malformed request: the stream ended after " + std::to_string(received) +
                        " of " + std::to_string(payload_bytes) + " payload bytes");
      }
      if (!frame.is_chunk) {
        return Fail(ctx, ErrorCode::kInvalidArgument, name,
                    "malformed request: expected a payload chunk after the header");
      }
      if (frame.in_size > payload_bytes - received) {
        return Fail(ctx, ErrorCode::kInvalidArgument, name,
                    "malformed request: payload chunks exceed the declared " +
                        std::to_string(payload_bytes) + " bytes");
      }
      frame.CopyChunkTo(buffer.get() + received);
      received += frame.in_size;
    }

    std::vector<Tensor> tensors;
    if (payload_bytes) {
      auto decoded = DecodePayload(buffer, payload_bytes);
      if (!decoded) return Fail(ctx, ErrorCode::kInvalidArgument, name, decoded.error().message);
      tensors = std::move(*decoded);
    }
    std::vector<Value> args;
    args.reserve(header.args_size());
    for (const auto& a : header.args()) {
      auto v = FromWire(a, tensors);
      if (!v) {
        return Fail(ctx, ErrorCode::kInvalidArgument, name,
                    "malformed request: " + v.error().message);
      }
      args.push_back(std::move(*v));
    }

    // The client's deadline travels with the call, capped by the server's per-call limit.
    CallOptions call_options;
    const auto limit = Clock::now() + options.limits.max_call_time;
    call_options.deadline = limit;
    const auto client_deadline = ctx->deadline();
    if (client_deadline != std::chrono::system_clock::time_point::max()) {
      const auto remaining = client_deadline - std::chrono::system_clock::now();
      const auto from_client =
          Clock::now() + std::chrono::duration_cast<Clock::duration>(remaining);
      if (from_client < limit) call_options.deadline = from_client;
    }
    auto result =
        registry->Invoke(*record, args, call_options, [ctx] { return ctx->IsCancelled(); });
    if (!result) {
      const Error& e = result.error();
      std::string message = e.message;
      if (e.code == ErrorCode::kDeadlineExceeded && call_options.deadline == limit) {
        message += " (the server's --max-call-time of " +
                   std::to_string(options.limits.max_call_time.count()) + " ms)";
      }
      return Fail(ctx, e.code, e.call, std::move(message));
    }

    std::vector<Tensor> out_tensors;
    StreamFrame reply;
    ToWire(*result, reply.control.mutable_result()->mutable_value(), out_tensors);
    auto encoded = EncodePayload(std::move(out_tensors));
    if (!encoded) {
      return Fail(ctx, ErrorCode::kInternal, name,
                  "cannot encode the result: " + encoded.error().message);
    }
    auto payload = std::make_shared<const EncodedPayload>(std::move(*encoded));
    reply.control.mutable_result()->set_payload_bytes(payload->size);
    if (!stream->Write(reply) ||
        !SendPayload(stream, payload,
                     std::min<std::size_t>(options.limits.max_message_bytes / 2, 4u << 20))) {
      return Fail(ctx, ErrorCode::kCancelled, name, "the client went away while receiving");
    }
    return grpc::Status::OK;
  }
};

CallServer::CallServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

CallServer::~CallServer() { Shutdown(); }

Result<std::unique_ptr<CallServer>> CallServer::Start(CallRegistry& registry,
                                                      ServerOptions options) {
  if (options.token.empty() && !IsLoopbackAddress(options.listen)) {
    return MakeError(ErrorCode::kFailedPrecondition,
                     "refusing to listen on " + options.listen +
                         " without a token: anything but loopback needs --token-file or "
                         "ALKNET_TOKEN (or reach a loopback server through an SSH tunnel)");
  }
  if (options.tls_cert_pem.empty() != options.tls_key_pem.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "TLS needs both a certificate and a key (--tls-cert and --tls-key)");
  }
  if (options.limits.max_concurrent_calls < 1 || options.limits.max_message_bytes < 1024) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "limits: --max-concurrent must be >= 1 and --max-message-bytes >= 1024");
  }
  registry.Seal();  // a served registry never changes under its clients

  auto impl = std::make_unique<Impl>();
  impl->registry = &registry;
  impl->options = std::move(options);
  std::shared_ptr<grpc::ServerCredentials> creds;
  if (impl->options.tls_cert_pem.empty()) {
    creds = grpc::InsecureServerCredentials();
  } else {
    grpc::SslServerCredentialsOptions ssl;
    ssl.pem_key_cert_pairs.push_back({impl->options.tls_key_pem, impl->options.tls_cert_pem});
    creds = grpc::SslServerCredentials(ssl);
  }
  grpc::ServerBuilder builder;
  builder.AddListeningPort(impl->options.listen, creds, &impl->port);
  builder.RegisterService(&impl->service);
  builder.SetMaxReceiveMessageSize(static_cast<int>(impl->options.limits.max_message_bytes));
  builder.SetMaxSendMessageSize(static_cast<int>(impl->options.limits.max_message_bytes));
  ApplyTransportTuning([&](const char* key, int v) { builder.AddChannelArgument(key, v); });
  impl->server = builder.BuildAndStart();
  if (!impl->server || impl->port == 0) {
    return MakeError(ErrorCode::kUnavailable,
                     "cannot listen on " + impl->options.listen +
                         " (address in use, malformed, or TLS key/certificate unreadable)");
  }
  return std::unique_ptr<CallServer>(new CallServer(std::move(impl)));
}

int CallServer::port() const { return impl_->port; }

std::string CallServer::address() const {
  const std::string& listen = impl_->options.listen;
  return listen.substr(0, listen.rfind(':')) + ":" + std::to_string(impl_->port);
}

void CallServer::Wait() { impl_->server->Wait(); }

void CallServer::Shutdown() {
  if (impl_ && impl_->server) {
    impl_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  }
}

std::uint64_t CallServer::refused_calls() const { return impl_->refused.load(); }

}  // namespace alknet::call

namespace alknet::call {

namespace {
// Regular files only (a FIFO or /dev/zero is refused, not read forever), up to a cap
// (alknet/base/file.h).
Result<std::string> ReadCapped(const std::string& path, std::uint64_t max_bytes) {
  auto text = base::ReadRegularFile(path, max_bytes);
  if (!text) return MakeError(ErrorCode::kNotFound, "cannot read " + text.error().message);
  return std::move(text).value();
}
}  // namespace

Result<std::string> ReadTextFile(const std::string& path) { return ReadCapped(path, 2ull << 30); }

Result<std::string> LoadToken(const std::string& token_file) {
  std::string token;
  if (!token_file.empty()) {
    auto text = ReadCapped(token_file, 64 << 10);
    if (!text) return text;
    token = text->substr(0, text->find_first_of("\r\n"));
    if (token.empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "token file " + token_file + " is empty (its first line is the token)");
    }
    return token;
  }
  if (const char* env = std::getenv("ALKNET_TOKEN")) token = env;
  return token;
}

}  // namespace alknet::call
