// The gRPC side of `alknet serve`: one bidirectional stream per call (see proto/calls.proto).
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

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

// Resets streams that stay blocked past their deadline. gRPC's synchronous Read and Write
// have no timeout of their own; ServerContext::TryCancel() from another thread makes them
// return false, so each blocking step of a call is armed here first and disarmed after.
class Watchdog {
 public:
  Watchdog() : thread_([this] { Run(); }) {}
  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

  // One stream's alarm. Disarm() returns only when the alarm cannot fire any more.
  class Alarm {
   public:
    Alarm(Watchdog& dog, grpc::ServerContext* ctx) : dog_(dog), ctx_(ctx) {}
    ~Alarm() { Disarm(); }
    void Arm(Clock::time_point deadline) {
      std::lock_guard lock(dog_.mutex_);
      if (armed_) dog_.alarms_.erase(it_);
      it_ = dog_.alarms_.emplace(deadline, this);
      armed_ = true;
      dog_.wake_.notify_all();
    }
    void Disarm() {
      std::lock_guard lock(dog_.mutex_);
      if (armed_) dog_.alarms_.erase(it_);
      armed_ = false;
    }
    bool fired() const { return fired_.load(); }

   private:
    friend class Watchdog;
    Watchdog& dog_;
    grpc::ServerContext* ctx_;
    std::multimap<Clock::time_point, Alarm*>::iterator it_;
    bool armed_ = false;  // guarded by dog_.mutex_
    std::atomic<bool> fired_{false};
  };

 private:
  void Run() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
      if (alarms_.empty()) {
        wake_.wait(lock);
        continue;
      }
      const auto first = alarms_.begin();
      if (Clock::now() < first->first) {
        wake_.wait_until(lock, first->first);
        continue;
      }
      Alarm* alarm = first->second;
      alarms_.erase(first);
      alarm->armed_ = false;
      alarm->fired_.store(true);
      fired_count_.fetch_add(1);
      alarm->ctx_->TryCancel();  // under the lock: Disarm() cannot return while this runs
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::multimap<Clock::time_point, Alarm*> alarms_;
  bool stop_ = false;

 public:
  std::atomic<std::uint64_t> fired_count_{0};

 private:
  std::thread thread_;  // last: starts after the members it uses
};

enum class ReadResult { kFrame, kClosed, kMalformed, kTimedOut, kCancelled };

// Reads one frame with the stream armed to reset at `deadline`. A frame the wire cannot
// parse is reported as such (the traits leave the reason in frame->malformed), not as a
// closed stream.
ReadResult ReadFrame(Stream* stream, grpc::ServerContext* ctx, Watchdog::Alarm& alarm,
                     Clock::time_point deadline, StreamFrame* frame) {
  frame->malformed.clear();
  alarm.Arm(deadline);
  const bool ok = stream->Read(frame);
  alarm.Disarm();
  if (ok) return ReadResult::kFrame;
  if (!frame->malformed.empty()) return ReadResult::kMalformed;
  if (alarm.fired()) return ReadResult::kTimedOut;
  if (ctx->IsCancelled()) return ReadResult::kCancelled;
  return ReadResult::kClosed;
}

// Payload bytes reserved against ServerLimits::max_total_tensor_bytes for one call.
class Reservation {
 public:
  explicit Reservation(std::atomic<std::uint64_t>& total) : total_(total) {}
  ~Reservation() { total_.fetch_sub(bytes_); }
  bool Take(std::uint64_t bytes, std::uint64_t limit) {
    std::uint64_t now = total_.load();
    do {
      if (bytes > limit || now > limit - bytes) return false;
    } while (!total_.compare_exchange_weak(now, now + bytes));
    bytes_ = bytes;
    return true;
  }

 private:
  std::atomic<std::uint64_t>& total_;
  std::uint64_t bytes_ = 0;
};

}  // namespace

std::uint64_t SmallCallReserve(const ServerLimits& limits) {
  const std::uint64_t budget = limits.max_total_tensor_bytes;
  const std::uint64_t reserve = limits.small_call_reserve
                                    ? *limits.small_call_reserve
                                    : std::min<std::uint64_t>(64ull << 20, budget / 16);
  return std::min(reserve, budget);
}

struct CallServer::Impl {
  // Before `server`: destroyed after it, so no handler can outlive the alarms' owner.
  Watchdog watchdog;
  std::atomic<std::uint64_t> reserved_bytes{0};
  CallsService<Impl> service{this};
  CallRegistry* registry = nullptr;
  ServerOptions options;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  std::atomic<int> in_flight{0};
  std::atomic<std::uint64_t> refused{0};
  std::atomic<std::uint64_t> calls_ok{0};
  std::atomic<std::uint64_t> calls_failed{0};
  std::atomic<bool> serving{true};
  const Clock::time_point started_at = Clock::now();
  // server.stats: answered by the server itself, listed beside the registry's calls.
  CallRecord stats_record;

  void MakeStatsRecord() {
    stats_record.name = kServerStatsCall;
    stats_record.signature_text = "() -> map";
    stats_record.signature = ParseSignature(stats_record.signature_text).value();
    stats_record.owner = "server";
    stats_record.flags = CallFlags{Execution::kSync, false, true};
    stats_record.doc =
        "this server's calls in flight (this one excluded), calls served and failed, refusals, "
        "serving or draining, and the device (queue depth, state)";
    stats_record.handler = [this](CallContext&, std::span<const Value>) -> Result<Value> {
      Value::Map m;
      m.emplace("serving", serving.load());
      m.emplace("in_flight", static_cast<std::int64_t>(std::max(0, in_flight.load() - 1)));
      m.emplace("max_concurrent", static_cast<std::int64_t>(options.limits.max_concurrent_calls));
      m.emplace("calls_ok", static_cast<std::int64_t>(calls_ok.load()));
      m.emplace("calls_failed", static_cast<std::int64_t>(calls_failed.load()));
      m.emplace("refused", static_cast<std::int64_t>(refused.load()));
      m.emplace("streams_reset", static_cast<std::int64_t>(watchdog.fired_count_.load()));
      m.emplace("reserved_tensor_bytes", static_cast<std::int64_t>(reserved_bytes.load()));
      m.emplace("uptime_ms",
                static_cast<std::int64_t>(
                    std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started_at)
                        .count()));
      if (options.stats) {
        for (auto& [k, v] : options.stats()) m.insert_or_assign(k, std::move(v));
      }
      return Value(std::move(m));
    };
  }

  const CallRecord* FindRecord(const std::string& name) const {
    if (name == kServerStatsCall) return &stats_record;
    return registry->Find(name);
  }

  std::string IdleMessage() const {
    return "the stream stayed silent for " + std::to_string(options.limits.idle_timeout.count()) +
           " ms (the server's --idle-timeout)";
  }

  // Sends a payload as chunks of at most `chunk` bytes, each a view of the payload's memory;
  // a client that stops reading for idle_timeout gets its stream reset.
  bool SendPayload(Stream* stream, Watchdog::Alarm& alarm,
                   const std::shared_ptr<const EncodedPayload>& payload, std::size_t chunk) {
    StreamFrame frame;
    frame.is_chunk = true;
    frame.keep = payload;
    for (auto piece : payload->pieces) {
      while (!piece.empty()) {
        const std::size_t n = std::min(chunk, piece.size());
        frame.out_chunk = piece.first(n);
        alarm.Arm(Clock::now() + options.limits.idle_timeout);
        const bool ok = stream->Write(frame);
        alarm.Disarm();
        if (!ok) return false;
        piece = piece.subspan(n);
      }
    }
    return true;
  }

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
    auto infos = registry->Infos();
    if (!registry->Find(kServerStatsCall)) {
      const CallRecord& r = stats_record;
      infos.push_back(CallInfo{r.name, r.signature_text, r.owner, r.flags, r.doc});
      std::sort(infos.begin(), infos.end(),
                [](const CallInfo& a, const CallInfo& b) { return a.name < b.name; });
    }
    for (const auto& info : infos) {
      auto* c = reply->add_calls();
      c->set_name(info.name);
      c->set_signature(info.signature);
      c->set_owner(info.owner);
      c->set_async(info.flags.execution == Execution::kAsync);
      c->set_side_effects(info.flags.side_effects);
      c->set_idempotent(info.flags.idempotent);
      c->set_doc(info.doc);
    }
    return grpc::Status::OK;
  }

  // One call: the body below, then the counters and the host's log line.
  grpc::Status Invoke(grpc::ServerContext* ctx, Stream* stream, bool idempotent_method) {
    CallLogEntry log;
    log.idempotent_method = idempotent_method;
    const grpc::Status status = InvokeBody(ctx, stream, idempotent_method, log);
    (status.ok() ? calls_ok : calls_failed).fetch_add(1);
    if (options.on_call) {
      log.peer = ctx->peer();
      log.status = static_cast<int>(status.error_code());
      if (!status.ok()) log.message = status.error_message();
      options.on_call(log);
    }
    return status;
  }

  grpc::Status InvokeBody(grpc::ServerContext* ctx, Stream* stream, bool idempotent_method,
                          CallLogEntry& log) {
    using Ms = std::chrono::duration<double, std::milli>;
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

    // The call's time runs from here: a slow upload counts against --max-call-time, and
    // every wait for the client is also cut off by --idle-timeout.
    const auto started = Clock::now();
    const auto limit = started + options.limits.max_call_time;
    Clock::time_point deadline = limit;
    const auto client_deadline = ctx->deadline();
    if (client_deadline != std::chrono::system_clock::time_point::max()) {
      const auto remaining = client_deadline - std::chrono::system_clock::now();
      const auto from_client = started + std::chrono::duration_cast<Clock::duration>(remaining);
      if (from_client < limit) deadline = from_client;
    }
    Watchdog::Alarm alarm(watchdog, ctx);
    auto wait_until = [&] {
      return std::min(deadline, Clock::now() + options.limits.idle_timeout);
    };
    // Why a read ended without a frame, as the status the server reports (and logs).
    auto read_failure = [&](ReadResult r, const StreamFrame& f, std::string_view call,
                            std::string closed_message) {
      switch (r) {
        case ReadResult::kMalformed:
          return Fail(ctx, ErrorCode::kInvalidArgument, call, "malformed frame: " + f.malformed);
        case ReadResult::kTimedOut:
          if (Clock::now() >= deadline) {
            return Fail(ctx, ErrorCode::kDeadlineExceeded, call,
                        "the upload ran past the call's deadline (the server's --max-call-time "
                        "is " +
                            std::to_string(options.limits.max_call_time.count()) + " ms)");
          }
          return Fail(ctx, ErrorCode::kDeadlineExceeded, call, IdleMessage());
        case ReadResult::kCancelled:
          return Fail(ctx, ErrorCode::kCancelled, call, "the client went away mid-stream");
        default: return Fail(ctx, ErrorCode::kInvalidArgument, call, std::move(closed_message));
      }
    };

    StreamFrame frame;
    if (auto r = ReadFrame(stream, ctx, alarm, wait_until(), &frame); r != ReadResult::kFrame) {
      if (r == ReadResult::kClosed) {
        return Fail(ctx, ErrorCode::kCancelled, {},
                    "the client closed the stream before the header");
      }
      return read_failure(r, frame, {}, {});
    }
    if (frame.is_chunk || frame.control.body_case() != wire::Frame::kHeader) {
      return Fail(ctx, ErrorCode::kInvalidArgument, {},
                  "malformed request: the first frame must be a header");
    }
    wire::Header header = std::move(*frame.control.mutable_header());
    const std::string& name = header.call();
    log.call = name;
    const CallRecord* record = FindRecord(name);
    if (!record) {
      return Fail(ctx, ErrorCode::kNotFound, name,
                  "no call named '" + name + "' is registered on this server");
    }
    if (idempotent_method && !record->flags.idempotent) {
      // The client would retry it on another worker if this one failed: refuse, so that a
      // call with effects never runs twice because a client guessed wrong.
      return Fail(ctx, ErrorCode::kFailedPrecondition, name,
                  "'" + name +
                      "' is not idempotent on this server, so it cannot be sent by the "
                      "retried method InvokeIdempotent (the client's call list is stale?)");
    }
    const std::uint64_t payload_bytes = header.payload_bytes();
    if (payload_bytes > options.limits.max_tensor_bytes) {
      refused.fetch_add(1);
      return Fail(ctx, ErrorCode::kResourceExhausted, name,
                  "the call's tensors take " + std::to_string(payload_bytes) +
                      " bytes; this server accepts at most " +
                      std::to_string(options.limits.max_tensor_bytes) + " (--max-tensor-bytes)");
    }
    // Declared bytes are reserved before any is buffered, so unfinished uploads together
    // never hold more than the total budget.
    // A large call may not take the share kept for small ones (--small-call-reserve).
    Reservation reservation(reserved_bytes);
    const std::uint64_t budget = options.limits.max_total_tensor_bytes;
    const bool small = payload_bytes <= kSmallCallBytes;
    const std::uint64_t share_limit = small ? budget : budget - SmallCallReserve(options.limits);
    if (!reservation.Take(payload_bytes, share_limit)) {
      refused.fetch_add(1);
      std::string why = "the call's tensors take " + std::to_string(payload_bytes) +
                        " bytes, over what is left of the server's budget of " +
                        std::to_string(budget) +
                        " bytes for all calls in flight (--max-total-tensor-bytes";
      if (!small) {
        why += "; " + std::to_string(budget - share_limit) +
               " of it is kept for calls of at most " + std::to_string(kSmallCallBytes) +
               " bytes, --small-call-reserve";
      }
      return Fail(ctx, ErrorCode::kResourceExhausted, name, why + "); retry later");
    }

    // Reassemble the payload; a hostile sender can neither overrun it nor make it grow.
    std::shared_ptr<std::byte[]> buffer;
    if (payload_bytes) buffer = AllocatePayload(payload_bytes);
    std::uint64_t received = 0;
    while (received < payload_bytes) {
      if (auto r = ReadFrame(stream, ctx, alarm, wait_until(), &frame); r != ReadResult::kFrame) {
        return read_failure(r, frame, name,
                            "malformed request: the stream ended after " +
                                std::to_string(received) + " of " + std::to_string(payload_bytes) +
                                " payload bytes");
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

    log.bytes_in = received;
    log.upload_ms = Ms(Clock::now() - started).count();

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
    call_options.deadline = deadline;
    call_options.queue_ns = std::make_shared<std::atomic<std::int64_t>>(0);
    const auto run_start = Clock::now();
    auto result =
        registry->Invoke(*record, args, call_options, [ctx] { return ctx->IsCancelled(); });
    log.run_ms = Ms(Clock::now() - run_start).count();
    log.queue_ms = static_cast<double>(call_options.queue_ns->load()) / 1e6;
    if (!result) {
      const Error& e = result.error();
      std::string message = e.message;
      if (e.code == ErrorCode::kDeadlineExceeded && deadline == limit) {
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
    log.bytes_out = payload->size;
    const auto send_start = Clock::now();
    struct SendTimer {
      CallLogEntry& log;
      Clock::time_point start;
      ~SendTimer() {
        log.send_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      }
    } send_timer{log, send_start};
    alarm.Arm(Clock::now() + options.limits.idle_timeout);
    const bool sent_header = stream->Write(reply);
    alarm.Disarm();
    if (!sent_header ||
        !SendPayload(stream, alarm, payload,
                     std::min<std::size_t>(options.limits.max_message_bytes / 2, 4u << 20))) {
      if (alarm.fired()) {
        return Fail(ctx, ErrorCode::kDeadlineExceeded, name,
                    IdleMessage() + " while the result was sent");
      }
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
  if (options.limits.idle_timeout.count() < 1 || options.limits.max_connection_idle.count() < 1 ||
      options.limits.max_call_time.count() < 1) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "limits: --max-call-time, --idle-timeout and --max-connection-idle must be "
                     ">= 1 ms");
  }
  if (!options.token.empty()) ALKNET_TRY(CheckToken(options.token, "the server's token"));
  registry.Seal();  // a served registry never changes under its clients

  auto impl = std::make_unique<Impl>();
  impl->registry = &registry;
  impl->options = std::move(options);
  impl->MakeStatsRecord();
  std::shared_ptr<grpc::ServerCredentials> creds;
  if (impl->options.tls_cert_pem.empty()) {
    creds = grpc::InsecureServerCredentials();
  } else {
    grpc::SslServerCredentialsOptions ssl;
    ssl.pem_key_cert_pairs.push_back({impl->options.tls_key_pem, impl->options.tls_cert_pem});
    creds = grpc::SslServerCredentials(ssl);
  }
  // The standard health service (grpc.health.v1), for pool clients and orchestrators' probes.
  // It needs no token: it says only whether this server takes calls.
  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(impl->options.listen, creds, &impl->port);
  builder.RegisterService(&impl->service);
  builder.SetMaxReceiveMessageSize(static_cast<int>(impl->options.limits.max_message_bytes));
  builder.SetMaxSendMessageSize(static_cast<int>(impl->options.limits.max_message_bytes));
  ApplyTransportTuning([&](const char* key, int v) { builder.AddChannelArgument(key, v); });
  TuneAllocatorForLargeMessages();
  auto clamp_ms = [](std::chrono::milliseconds ms) {
    return static_cast<int>(std::min<std::int64_t>(ms.count(), 1 << 30));
  };
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS,
                             clamp_ms(impl->options.limits.max_connection_idle));
  builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS,
                             clamp_ms(impl->options.limits.idle_timeout));
  impl->server = builder.BuildAndStart();
  if (!impl->server || impl->port == 0) {
    return MakeError(ErrorCode::kUnavailable,
                     "cannot listen on " + impl->options.listen +
                         " (address in use, malformed, or TLS key/certificate unreadable)");
  }
  if (auto* health = impl->server->GetHealthCheckService()) {
    health->SetServingStatus(true);
    health->SetServingStatus("alknet.call.wire.Calls", true);
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

std::uint64_t CallServer::timed_out_streams() const { return impl_->watchdog.fired_count_.load(); }

std::uint64_t CallServer::reserved_tensor_bytes() const { return impl_->reserved_bytes.load(); }

int CallServer::in_flight() const { return impl_->in_flight.load(); }

void CallServer::SetServing(bool serving) {
  impl_->serving.store(serving);
  if (auto* health = impl_->server->GetHealthCheckService()) health->SetServingStatus(serving);
}

bool CallServer::serving() const { return impl_->serving.load(); }

int CallServer::Drain(std::chrono::milliseconds timeout) {
  SetServing(false);
  const auto start = Clock::now();
  const auto until = start + timeout;
  // Give pool clients' health watches a moment to move new calls elsewhere before the
  // in-flight count is trusted; a call that still arrives after Shutdown() is refused at the
  // HTTP/2 level, which gRPC clients retry transparently on another worker.
  const auto settle = start + std::min<Clock::duration>(timeout, std::chrono::milliseconds(250));
  while (Clock::now() < settle) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  while (impl_->in_flight.load() > 0 && Clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const int left = impl_->in_flight.load();
  Shutdown();
  return left;
}

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

Status CheckToken(std::string_view token, std::string_view source) {
  for (std::size_t i = 0; i < token.size(); ++i) {
    const auto c = static_cast<unsigned char>(token[i]);
    if (c > 0x20 && c < 0x7f) continue;
    std::string what = c == '\n' || c == '\r' ? "a line break"
                       : c == ' '             ? "a space"
                       : c == '\t'            ? "a tab"
                       : c >= 0x80            ? "a non-ASCII byte"
                                              : "a control character";
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", c);
    return MakeError(ErrorCode::kInvalidArgument,
                     "the bearer token from " + std::string(source) + " has " + what + " (" + hex +
                         ") at byte " + std::to_string(i) +
                         "; a token must be printable ASCII without spaces (it travels as an "
                         "HTTP/2 header value); a trailing newline usually comes from echo or a "
                         "file read whole");
  }
  return Ok{};
}

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
    ALKNET_TRY(CheckToken(token, "token file " + token_file));
    return token;
  }
  if (const char* env = std::getenv("ALKNET_TOKEN")) token = env;
  ALKNET_TRY(CheckToken(token, "ALKNET_TOKEN"));
  return token;
}

}  // namespace alknet::call
