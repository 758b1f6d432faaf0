// Faults at the server: malformed requests, limits, deadlines, clients that vanish, floods.
// Each ends with a clear error for the offender and a server that still answers.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "remote_fixture.h"
#include "wire.h"

namespace alknet::call {
namespace {

using namespace std::chrono_literals;
using testing::RandomTensor;
using testing::RemoteFixture;

class RemoteFault : public RemoteFixture {
 protected:
  // A raw gRPC stream, for requests the well-behaved client never sends.
  struct RawCall {
    grpc::ClientContext ctx;
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<ClientStream> stream;
  };
  std::unique_ptr<RawCall> Raw() {
    auto raw = std::make_unique<RawCall>();
    raw->channel = grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials());
    raw->ctx.AddMetadata("authorization", std::string("Bearer ") + testing::kToken);
    raw->ctx.set_deadline(std::chrono::system_clock::now() + 20s);
    raw->stream = OpenInvoke(raw->channel.get(), &raw->ctx);
    return raw;
  }
  static StreamFrame Header(std::string call, std::uint64_t payload_bytes) {
    StreamFrame f;
    f.control.mutable_header()->set_call(std::move(call));
    f.control.mutable_header()->set_payload_bytes(payload_bytes);
    return f;
  }
  static StreamFrame Chunk(std::string bytes) {
    auto owned = std::make_shared<std::string>(std::move(bytes));
    StreamFrame f;
    f.is_chunk = true;
    f.out_chunk = std::as_bytes(std::span(owned->data(), owned->size()));
    f.keep = owned;
    return f;
  }
  static grpc::Status Finish(RawCall& raw) {
    raw.stream->WritesDone();
    StreamFrame ignored;
    while (raw.stream->Read(&ignored)) {
    }
    return raw.stream->Finish();
  }
};

TEST_F(RemoteFault, MalformedRequestsGetClearErrors) {
  struct Case {
    const char* what;
    std::vector<StreamFrame> frames;
    const char* needle;
  };
  StreamFrame bad_index = Header("test.echo", 0);
  bad_index.control.mutable_header()->add_args()->set_tensor(3);
  StreamFrame bad_map = Header("test.echo", 0);
  bad_map.control.mutable_header()->add_args()->mutable_map()->add_keys("only a key");
  std::vector<Case> cases;
  cases.push_back({"chunk first", {Chunk("xx")}, "first frame must be a header"});
  cases.push_back({"tensor index", {bad_index}, "refers to tensor 3"});
  cases.push_back({"map keys", {bad_map}, "1 keys but 0 values"});
  cases.push_back({"short payload",
                   {Header("test.echo", 100), Chunk(std::string(50, 'x'))},
                   "ended after 50 of 100"});
  cases.push_back({"long payload",
                   {Header("test.echo", 10), Chunk(std::string(11, 'x'))},
                   "exceed the declared 10"});
  cases.push_back({"garbage payload",
                   {Header("test.echo", 16), Chunk(std::string(16, 'x'))},
                   "malformed tensor payload"});
  cases.push_back({"header twice",
                   {Header("test.echo", 4), Header("test.echo", 0)},
                   "expected a payload chunk"});
  for (auto& c : cases) {
    auto raw = Raw();
    for (auto& f : c.frames) raw->stream->Write(f);
    const grpc::Status s = Finish(*raw);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << c.what;
    EXPECT_NE(s.error_message().find(c.needle), std::string::npos)
        << c.what << ": " << s.error_message();
  }
  // Unknown call: NOT_FOUND, named.
  auto raw = Raw();
  raw->stream->Write(Header("nope.nothing", 0));
  const grpc::Status s = Finish(*raw);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(s.error_message().find("nope.nothing"), std::string::npos);
  ExpectServerAnswers();
}

TEST_F(RemoteFault, ClientDisconnectMidStream) {
  for (int round = 0; round < 5; ++round) {
    auto raw = Raw();
    raw->stream->Write(Header("test.echo", 64u << 20));
    raw->stream->Write(Chunk(std::string(1 << 20, 'z')));
    raw->ctx.TryCancel();  // the client vanishes with 63 MiB still owed
    raw->stream->Finish();
  }
  // A client that goes away while a large result streams back to it.
  {
    auto client = Client();
    CancelSource source;
    CallOptions o;
    o.cancel = source.Token();
    auto fut = client->InvokeAsync("test.echo", {Value(RandomTensor("u8", {96 << 20}, 5))}, o);
    std::this_thread::sleep_for(5ms);
    source.Cancel();
    auto r = fut.get();
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, ErrorCode::kCancelled) << r.error().ToString();
    }
  }
  ExpectServerAnswers();
}

// 1,000 calls issued at once: 8 clients with 125 threads each, every call held on the
// server for 1 s, under a concurrency limit that admits them all. gRPC's sync server starts
// a thread per running call (about 1 ms each on 2 loaded cores), so the overlap reached on
// the server is printed and must be substantial, not necessarily all 1,000.
class RemoteFlood : public RemoteFixture {
 protected:
  void SetUp() override {
    ServerLimits limits;
    limits.max_concurrent_calls = 1000;
    StartServer(limits);
  }
};

TEST_F(RemoteFlood, ThousandConcurrentCallsFromEightClients) {
  constexpr int kClients = 8;
  constexpr int kCallsEach = 125;
  testing::g_overlap_peak = 0;
  std::vector<std::unique_ptr<RemoteRegistry>> clients;
  for (int i = 0; i < kClients; ++i) clients.push_back(Client(testing::kToken, kCallsEach));
  std::vector<std::future<Result<Value>>> futures;
  for (int i = 0; i < kCallsEach; ++i) {
    for (int c = 0; c < kClients; ++c) {
      futures.push_back(clients[c]->InvokeAsync(
          "test.overlap", {Value(1000), Value(i * kClients + c)}, CallOptions::WithTimeout(60s)));
    }
  }
  int ok = 0;
  for (std::size_t k = 0; k < futures.size(); ++k) {
    auto r = futures[k].get();
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    EXPECT_EQ(r->as_int(), static_cast<std::int64_t>(k));
    ++ok;
  }
  EXPECT_EQ(ok, kClients * kCallsEach);
  std::printf("1000 calls from 8 clients: at most %d running at once on the server\n",
              testing::g_overlap_peak.load());
  EXPECT_GE(testing::g_overlap_peak.load(), 200);
  ExpectServerAnswers();
}

// Over the limit, a flood gets clear refusals and the server stays healthy.
TEST_F(RemoteFault, FloodOverTheLimitIsRefusedCleanly) {
  constexpr int kClients = 8;
  constexpr int kCallsEach = 125;
  std::vector<std::unique_ptr<RemoteRegistry>> clients;
  for (int i = 0; i < kClients; ++i) clients.push_back(Client(testing::kToken, 32));
  std::vector<std::future<Result<Value>>> futures;
  for (int i = 0; i < kCallsEach; ++i) {
    for (int c = 0; c < kClients; ++c) {
      futures.push_back(clients[c]->InvokeAsync("test.overlap", {Value(20), Value(i)},
                                                CallOptions::WithTimeout(60s)));
    }
  }
  int ok = 0, refused = 0;
  for (auto& f : futures) {
    auto r = f.get();
    if (r.ok()) {
      ++ok;
    } else {
      // Over the server's concurrency limit (64) is the only acceptable failure.
      EXPECT_EQ(r.error().code, ErrorCode::kResourceExhausted) << r.error().ToString();
      ++refused;
    }
  }
  EXPECT_EQ(ok + refused, kClients * kCallsEach);
  EXPECT_GE(ok, 64);
  std::printf("flood of 1000 calls (256 in flight) against a limit of 64: %d ok, %d refused\n", ok,
              refused);
  ExpectServerAnswers();
}

class RemoteLimits : public RemoteFixture {
 protected:
  void SetUp() override {
    ServerLimits limits;
    limits.max_tensor_bytes = 1 << 20;
    limits.max_message_bytes = 256 << 10;
    limits.max_concurrent_calls = 4;
    limits.max_call_time = 1500ms;  // counted from the first frame: an upload under load must fit
    StartServer(limits);
  }
};

TEST_F(RemoteLimits, OversizedTensorIsRefusedBeforeItIsBuffered) {
  RemoteOptions o;
  o.address = server_->address();
  o.token = testing::kToken;
  o.chunk_bytes = 64 << 10;
  auto connected = RemoteRegistry::Connect(o);
  ASSERT_TRUE(connected.ok());
  auto client = std::move(connected).value();
  std::vector<Value> args{Value(RandomTensor("f32", {512, 1024}, 3))};  // 2 MiB
  auto r = client->Invoke("tensor.info", args);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kResourceExhausted);
  EXPECT_EQ(r.error().call, "tensor.info");
  EXPECT_NE(r.error().message.find("--max-tensor-bytes"), std::string::npos) << r.error().message;
  // Under the limit it works.
  std::vector<Value> small{Value(RandomTensor("f32", {128, 1024}, 3))};
  auto ok = client->Invoke("tensor.info", small);
  ASSERT_TRUE(ok.ok()) << ok.error().ToString();
  EXPECT_EQ(ok->as_map().at("bytes").as_int(), 512 << 10);
  ExpectServerAnswers();
}

TEST_F(RemoteLimits, OversizedMessageIsRefused) {
  auto client = Client();  // default 4 MiB chunks, over the server's 256 KiB messages
  std::vector<Value> args{Value(RandomTensor("u8", {900 << 10}, 4))};
  auto r = client->Invoke("tensor.info", args);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kResourceExhausted) << r.error().ToString();
  std::vector<Value> big_string{Value(std::string(300 << 10, 's'))};
  auto s = client->Invoke("test.echo", big_string);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kResourceExhausted) << s.error().ToString();
  ExpectServerAnswers();
}

TEST_F(RemoteLimits, ServerCallTimeLimit) {
  auto client = Client();
  std::vector<Value> args{Value(5000)};
  const auto start = Clock::now();
  auto r = client->Invoke("test.sleep", args);  // no client deadline: the server's applies
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kDeadlineExceeded);
  EXPECT_NE(r.error().message.find("--max-call-time"), std::string::npos) << r.error().message;
  EXPECT_LT(Clock::now() - start, 3s);
}

TEST_F(RemoteLimits, ConcurrencyLimitRefusesClearlyAndRecovers) {
  auto client = Client(testing::kToken, 12);
  std::vector<std::future<Result<Value>>> futures;
  for (int i = 0; i < 12; ++i) {
    futures.push_back(client->InvokeAsync("test.sleep", {Value(100)}));
  }
  int ok = 0, refused = 0;
  for (auto& f : futures) {
    auto r = f.get();
    if (r.ok()) {
      ++ok;
    } else {
      EXPECT_EQ(r.error().code, ErrorCode::kResourceExhausted) << r.error().ToString();
      EXPECT_NE(r.error().message.find("--max-concurrent"), std::string::npos);
      ++refused;
    }
  }
  EXPECT_GE(ok, 1);
  EXPECT_GE(refused, 1);
  EXPECT_GE(server_->refused_calls(), static_cast<std::uint64_t>(refused));
  ExpectServerAnswers();
}

// Stalled and trickling uploads, header-only floods, frames the wire cannot parse, idle
// connections: each is cut off by a limit in bounded time, and the server keeps answering.
class RemoteTimeouts : public RemoteFault {
 protected:
  void SetUp() override {
    ServerLimits limits;
    limits.max_tensor_bytes = 2 << 20;
    limits.max_total_tensor_bytes = 3 << 20;
    limits.max_message_bytes = 256 << 10;
    limits.max_concurrent_calls = 16;
    limits.max_call_time = 1500ms;
    limits.idle_timeout = 300ms;
    limits.max_connection_idle = 800ms;
    StartServer(limits);
  }
};

TEST_F(RemoteTimeouts, SilentUploadIsResetAfterTheIdleTimeout) {
  auto raw = Raw();  // its own deadline is 20 s: only the server's limit can end it sooner
  const auto start = Clock::now();
  ASSERT_TRUE(raw->stream->Write(Header("test.echo", 1 << 20)));
  StreamFrame ignored;
  EXPECT_FALSE(raw->stream->Read(&ignored));  // blocks until the server gives up
  const grpc::Status s = raw->stream->Finish();
  const auto took = Clock::now() - start;
  EXPECT_FALSE(s.ok());
  EXPECT_LT(took, 5s);
  EXPECT_GE(server_->timed_out_streams(), 1u);
  // The handler returns (and frees its reservation) just after the reset reaches us.
  for (int k = 0; k < 2000 && server_->reserved_tensor_bytes() != 0; ++k)
    std::this_thread::sleep_for(1ms);
  EXPECT_EQ(server_->reserved_tensor_bytes(), 0u);
  ExpectServerAnswers();
}

TEST_F(RemoteTimeouts, TricklingUploadIsCutAtTheCallTimeLimit) {
  auto raw = Raw();
  const auto start = Clock::now();
  ASSERT_TRUE(raw->stream->Write(Header("test.echo", 1 << 20)));
  // One byte every 100 ms keeps the stream under the idle timeout; the call time still ends it.
  for (int i = 0; i < 100 && raw->stream->Write(Chunk("x")); ++i)
    std::this_thread::sleep_for(100ms);
  const grpc::Status s = Finish(*raw);
  const auto took = Clock::now() - start;
  EXPECT_FALSE(s.ok());
  EXPECT_GE(took, 1400ms);
  EXPECT_LT(took, 5s);
  ExpectServerAnswers();
}

TEST_F(RemoteTimeouts, UnfinishedUploadsShareOneMemoryBudget) {
  // Each header declares 1 MiB and sends nothing more; the budget (3 MiB) admits three.
  std::vector<std::unique_ptr<RawCall>> held;
  for (int i = 0; i < 3; ++i) {
    held.push_back(Raw());
    ASSERT_TRUE(held.back()->stream->Write(Header("test.echo", 1 << 20)));
    // Written is not yet received: wait (bounded) for the reservation to appear.
    for (int k = 0; k < 200 && server_->reserved_tensor_bytes() < (i + 1u) << 20; ++k)
      std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(server_->reserved_tensor_bytes(), 3u << 20);
  auto extra = Raw();
  extra->stream->Write(Header("test.echo", 1 << 20));
  const grpc::Status refused = Finish(*extra);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(refused.error_message().find("--max-total-tensor-bytes"), std::string::npos)
      << refused.error_message();
  for (auto& h : held) h->ctx.TryCancel();
  for (auto& h : held) h->stream->Finish();
  for (int k = 0; k < 2000 && server_->reserved_tensor_bytes() != 0; ++k)
    std::this_thread::sleep_for(1ms);
  EXPECT_EQ(server_->reserved_tensor_bytes(), 0u);
  ExpectServerAnswers();
}

// A share of the total budget is kept for small calls: large unfinished uploads stop at the
// budget less the reserve, and a small call still gets through (before the reserve, the two
// 2 MiB uploads below filled the 4 MiB budget and every call was refused).
class RemoteReserve : public RemoteFault {
 protected:
  void SetUp() override {
    ServerLimits limits;
    limits.max_tensor_bytes = 2 << 20;
    limits.max_total_tensor_bytes = 4 << 20;
    limits.small_call_reserve = 1 << 20;
    limits.idle_timeout = 20s;  // the held uploads must outlive the test
    StartServer(limits);
  }
};

TEST(SmallCallReserve, DefaultIsASixteenthUpTo64MiBAndNeverMoreThanTheBudget) {
  ServerLimits l;
  EXPECT_EQ(SmallCallReserve(l), 64u << 20);  // 8 GiB budget
  l.max_total_tensor_bytes = 512u << 20;
  EXPECT_EQ(SmallCallReserve(l), 32u << 20);
  l.max_total_tensor_bytes = 3u << 20;
  EXPECT_EQ(SmallCallReserve(l), (3u << 20) / 16);
  l.small_call_reserve = 5u << 20;  // more than the budget: all of it
  EXPECT_EQ(SmallCallReserve(l), 3u << 20);
  l.small_call_reserve = 0;
  EXPECT_EQ(SmallCallReserve(l), 0u);
}

TEST_F(RemoteReserve, LargeUploadsCannotTakeTheShareOfSmallCalls) {
  std::vector<std::unique_ptr<RawCall>> held;
  grpc::Status refused;
  for (int i = 0; i < 4; ++i) {
    auto raw = Raw();
    ASSERT_TRUE(raw->stream->Write(Header("test.echo", 2 << 20)));
    for (int k = 0; k < 200 && server_->reserved_tensor_bytes() < (held.size() + 1) << 21; ++k)
      std::this_thread::sleep_for(1ms);
    if (server_->reserved_tensor_bytes() < (held.size() + 1) << 21) {
      refused = Finish(*raw);
      break;
    }
    held.push_back(std::move(raw));
  }
  // 4 MiB less the 1 MiB reserve admits one 2 MiB upload, not two.
  ASSERT_EQ(held.size(), 1u);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(refused.error_message().find("--small-call-reserve"), std::string::npos)
      << refused.error_message();
  // Small calls (at most kSmallCallBytes of tensors) use what is left, the reserve included.
  auto client = Client();
  std::vector<Value> args{Value(RandomTensor("u8", {900 << 10}, 7))};
  auto r = client->Invoke("test.echo", args, CallOptions::WithTimeout(10s));
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  ASSERT_EQ(r->as_list().size(), 1u);
  EXPECT_TRUE(r->as_list()[0] == args[0]);
  // A small header of exactly kSmallCallBytes may fill the budget to its last byte.
  auto small = Raw();
  ASSERT_TRUE(small->stream->Write(Header("test.echo", kSmallCallBytes)));
  auto small2 = Raw();
  ASSERT_TRUE(small2->stream->Write(Header("test.echo", kSmallCallBytes)));
  for (int k = 0; k < 2000 && server_->reserved_tensor_bytes() < 4u << 20; ++k)
    std::this_thread::sleep_for(1ms);
  EXPECT_EQ(server_->reserved_tensor_bytes(), 4u << 20);
  // Now full: a small call is refused too (the reserve is a share, not a bypass).
  auto extra = Raw();
  extra->stream->Write(Header("test.echo", 16));
  const grpc::Status full = Finish(*extra);
  EXPECT_EQ(full.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(full.error_message().find("--small-call-reserve"), std::string::npos)
      << full.error_message();
  held.push_back(std::move(small));
  held.push_back(std::move(small2));
  for (auto& h : held) h->ctx.TryCancel();
  for (auto& h : held) h->stream->Finish();
  for (int k = 0; k < 2000 && server_->reserved_tensor_bytes() != 0; ++k)
    std::this_thread::sleep_for(1ms);
  EXPECT_EQ(server_->reserved_tensor_bytes(), 0u);
  ExpectServerAnswers();
}

// Bytes sent as one message exactly as given, for frames StreamFrame cannot produce.
struct RawBytes {
  std::string bytes;
};

}  // namespace
}  // namespace alknet::call

namespace grpc {
template <>
class SerializationTraits<alknet::call::RawBytes, void> {
 public:
  static Status Serialize(const alknet::call::RawBytes& m, ByteBuffer* out, bool* own) {
    *own = true;
    Slice slice(m.bytes);
    *out = ByteBuffer(&slice, 1);
    return Status::OK;
  }
  static Status Deserialize(ByteBuffer* in, alknet::call::RawBytes* m) {
    std::vector<Slice> slices;
    if (!in->Dump(&slices).ok()) return Status(StatusCode::INTERNAL, "unreadable");
    m->bytes.clear();
    for (auto& sl : slices) m->bytes.append(reinterpret_cast<const char*>(sl.begin()), sl.size());
    in->Clear();
    return Status::OK;
  }
};
}  // namespace grpc

namespace alknet::call {
namespace {

TEST_F(RemoteTimeouts, MalformedFramesAreReportedAsSuch) {
  struct Case {
    const char* what;
    std::string bytes;
    const char* needle;
  };
  const std::vector<Case> cases = {
      {"unknown tag", "Zxyz", "unknown frame tag 0x5a"},
      {"empty message", "", "empty message"},
      {"bad protobuf", std::string("H\xff\xff\xff", 4), "unparsable control frame"},
  };
  auto channel = grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials());
  const grpc::internal::RpcMethod method(kInvokeMethod, grpc::internal::RpcMethod::BIDI_STREAMING);
  for (const auto& c : cases) {
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", std::string("Bearer ") + testing::kToken);
    ctx.set_deadline(std::chrono::system_clock::now() + 10s);
    std::unique_ptr<grpc::ClientReaderWriter<RawBytes, RawBytes>> stream(
        grpc::internal::ClientReaderWriterFactory<RawBytes, RawBytes>::Create(channel.get(), method,
                                                                              &ctx));
    stream->Write(RawBytes{c.bytes});
    stream->WritesDone();
    RawBytes ignored;
    while (stream->Read(&ignored)) {
    }
    const grpc::Status s = stream->Finish();
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << c.what << ": " << s.error_message();
    EXPECT_NE(s.error_message().find("malformed frame"), std::string::npos)
        << c.what << ": " << s.error_message();
    EXPECT_NE(s.error_message().find(c.needle), std::string::npos)
        << c.what << ": " << s.error_message();
  }
  ExpectServerAnswers();
}

TEST_F(RemoteTimeouts, IdleConnectionIsClosed) {
  auto channel = grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials());
  grpc::ClientContext ctx;
  ctx.AddMetadata("authorization", std::string("Bearer ") + testing::kToken);
  wire::ListRequest request;
  wire::ListReply reply;
  ASSERT_TRUE(CallList(channel.get(), &ctx, request, &reply).ok());
  ASSERT_EQ(channel->GetState(false), GRPC_CHANNEL_READY);
  // The server sends GOAWAY after 800 ms without a call; the channel then leaves READY.
  const auto start = Clock::now();
  while (channel->GetState(false) == GRPC_CHANNEL_READY && Clock::now() - start < 10s)
    std::this_thread::sleep_for(20ms);
  EXPECT_NE(channel->GetState(false), GRPC_CHANNEL_READY);
  EXPECT_LT(Clock::now() - start, 5s);
}

TEST_F(RemoteTimeouts, SilentTcpConnectionIsClosed) {
  // A peer that connects and never speaks HTTP/2 is dropped after the handshake timeout.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(server_->port()));
  ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  const auto start = Clock::now();
  char buf[256];
  ssize_t n = 0;
  // The server may send its own SETTINGS first; read until it closes (bounded by the timeout).
  for (int i = 0; i < 100; ++i) {
    n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
  }
  const auto took = Clock::now() - start;
  ::close(fd);
  EXPECT_LE(n, 0);
  EXPECT_LT(took, 5s);
}

}  // namespace
}  // namespace alknet::call
