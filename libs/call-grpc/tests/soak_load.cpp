// Load for tools/soak-serve: the hostile loads of issue 18 item 5 against a running
// `alknet serve` on loopback, while a small call is timed every 250 ms. Every loop is bounded
// in count and in time (each ends at --seconds; each call has a client deadline), so the run
// stops by itself. Prints one JSON object: probe latencies and what each load saw.
//   alknet_soak_load --address 127.0.0.1:PORT --seconds S [--header-streams N]
//     [--uploads N --upload-bytes B --upload-fill B] [--matmul N] [--idle N] [--gpu-probe]
#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "alknet/call-grpc/remote.h"
#include "wire.h"

namespace alknet::call {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

struct Config {
  std::string address;
  std::string token;
  double seconds = 20;
  int header_streams = 8;
  int uploads = 2;
  std::uint64_t upload_bytes = 1ull << 30;
  std::uint64_t upload_fill = 64ull << 20;
  int matmul = 1;
  std::int64_t matmul_n = 2048;
  int idle = 8;
  bool gpu_probe = true;
};

struct Counters {
  std::atomic<std::uint64_t> header_streams{0}, header_refused{0}, uploads{0}, upload_bytes_sent{0},
      upload_ended{0}, matmul_calls{0}, matmul_stopped{0}, matmul_done{0}, idle_connections{0},
      idle_closed{0};
};

struct Probe {
  std::mutex mutex;
  std::vector<double> seconds;
  std::uint64_t failures = 0;
  std::string first_failure;
  void Add(double s, const std::string& failure) {
    std::lock_guard lock(mutex);
    seconds.push_back(s);
    if (!failure.empty() && failures++ == 0) first_failure = failure;
  }
};

std::chrono::system_clock::time_point DeadlineIn(std::chrono::milliseconds d) {
  return std::chrono::system_clock::now() + d;
}

StreamFrame Header(const std::string& call, std::uint64_t payload_bytes) {
  StreamFrame f;
  f.control.mutable_header()->set_call(call);
  f.control.mutable_header()->set_payload_bytes(payload_bytes);
  return f;
}

StreamFrame Chunk(std::shared_ptr<const std::string> bytes) {
  StreamFrame f;
  f.is_chunk = true;
  f.out_chunk = std::as_bytes(std::span(bytes->data(), bytes->size()));
  f.keep = std::move(bytes);
  return f;
}

class Soak {
 public:
  explicit Soak(Config c) : c_(std::move(c)), end_(Clock::now() + ToDuration(c_.seconds)) {}

  static Clock::duration ToDuration(double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  }
  bool Running() const { return Clock::now() < end_; }
  std::chrono::milliseconds Left() const {
    return std::max(1ms,
                    std::chrono::duration_cast<std::chrono::milliseconds>(end_ - Clock::now()));
  }

  std::shared_ptr<grpc::Channel> Channel() {
    grpc::ChannelArguments args;
    args.SetMaxSendMessageSize(64 << 20);
    args.SetMaxReceiveMessageSize(256 << 20);
    // Each load on its own connection, as separate clients would be.
    args.SetInt("grpc.use_local_subchannel_pool", 1);
    args.SetString("alknet.soak.id", std::to_string(next_channel_++));
    return grpc::CreateCustomChannel(c_.address, grpc::InsecureChannelCredentials(), args);
  }

  // Streams that send a header declaring 4 GiB, then nothing; each is refused or reset.
  void HeaderStreams() {
    for (std::uint64_t i = 0; i < 100000 && Running(); ++i) {
      auto ch = Channel();
      grpc::ClientContext ctx;
      if (!c_.token.empty()) ctx.AddMetadata("authorization", "Bearer " + c_.token);
      ctx.set_deadline(DeadlineIn(std::min<std::chrono::milliseconds>(Left(), 60s)));
      auto stream = OpenInvoke(ch.get(), &ctx);
      stream->Write(Header("tensor.info", 4ull << 30));
      counters_.header_streams++;
      StreamFrame ignored;
      while (stream->Read(&ignored)) {
      }
      const grpc::Status s = stream->Finish();
      if (s.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED ||
          s.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
        counters_.header_refused++;
        // Refused at once: retry at a bounded rate (10 a second per stream), not in a spin.
        std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(Left(), 100ms));
      }
    }
  }

  // Uploads that declare upload_bytes, send upload_fill of them, then stall until the
  // server's idle timeout (or call time) resets them.
  void Uploads() {
    auto chunk = std::make_shared<const std::string>(std::string(1 << 20, 'u'));
    for (std::uint64_t i = 0; i < 100000 && Running(); ++i) {
      auto ch = Channel();
      grpc::ClientContext ctx;
      if (!c_.token.empty()) ctx.AddMetadata("authorization", "Bearer " + c_.token);
      ctx.set_deadline(DeadlineIn(std::min<std::chrono::milliseconds>(Left(), 120s)));
      auto stream = OpenInvoke(ch.get(), &ctx);
      counters_.uploads++;
      bool open = stream->Write(Header("tensor.info", c_.upload_bytes));
      for (std::uint64_t sent = 0; open && sent + chunk->size() <= c_.upload_fill && Running();
           sent += chunk->size()) {
        open = stream->Write(Chunk(chunk));
        if (open) counters_.upload_bytes_sent += chunk->size();
      }
      StreamFrame ignored;
      while (stream->Read(&ignored)) {  // returns when the server resets the stream
      }
      stream->Finish();
      counters_.upload_ended++;
    }
  }

  // compute.mat_mul of n x n by n x n (f32): long on lavapipe; --max-call-time stops it.
  void MatMul() {
    RemoteOptions o;
    o.address = c_.address;
    o.token = c_.token;
    auto remote = RemoteRegistry::Connect(o);
    if (!remote.ok()) return;
    const std::int64_t n = c_.matmul_n;
    std::vector<std::byte> bytes(static_cast<std::size_t>(n * n) * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 4) {
      const float v = float((i / 4) % 7) * 0.125f;
      std::memcpy(bytes.data() + i, &v, 4);
    }
    const Tensor a = Tensor::Adopt("f32", {n, n}, bytes);
    for (std::uint64_t i = 0; i < 10000 && Running(); ++i) {
      std::vector<Value> args{Value(Value::List{Value(a), Value(a)})};
      counters_.matmul_calls++;
      auto r = (*remote)->Invoke(
          "compute.mat_mul", args,
          CallOptions::WithTimeout(std::min<std::chrono::milliseconds>(Left() + 1000ms, 30min)));
      if (r.ok()) {
        counters_.matmul_done++;
      } else {
        counters_.matmul_stopped++;
        if (r.error().code != ErrorCode::kDeadlineExceeded) std::this_thread::sleep_for(200ms);
      }
    }
  }

  // TCP connections that never speak (the server drops them after its idle timeout), and
  // gRPC channels that connect and then make no call (max-connection-idle closes them).
  void Idle() {
    const auto colon = c_.address.rfind(':');
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(std::atoi(c_.address.c_str() + colon + 1)));
    ::inet_pton(AF_INET, c_.address.substr(0, colon).c_str(), &addr.sin_addr);
    for (std::uint64_t i = 0; i < 100000 && Running(); ++i) {
      const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0) break;
      timeval tv{1, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
        counters_.idle_connections++;
        char buf[256];
        // Wait (in 1 s slices, bounded by the run) for the server to close it.
        while (Running()) {
          const ssize_t k = ::recv(fd, buf, sizeof buf, 0);
          if (k == 0 || (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            counters_.idle_closed++;
            break;
          }
        }
      } else {
        std::this_thread::sleep_for(100ms);
      }
      ::close(fd);
    }
  }

  // The small calls: a tensor.info (no GPU) and, with --gpu-probe, a 4-element compute.add
  // (waits its turn on the GPU behind the big mat_mul), every 250 ms.
  void Probes() {
    RemoteOptions o;
    o.address = c_.address;
    o.token = c_.token;
    auto remote = RemoteRegistry::Connect(o);
    if (!remote.ok()) {
      info_.Add(0, "connect: " + remote.error().ToString());
      return;
    }
    std::vector<std::byte> four(16);
    const Tensor t = Tensor::Adopt("f32", {4}, four);
    std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(Left(), 1500ms));
    for (std::uint64_t i = 0; i < 1000000 && Running(); ++i) {
      const auto tick = Clock::now();
      auto timed = [&](Probe& p, const char* call, std::vector<Value> args) {
        const auto t0 = Clock::now();
        auto r = (*remote)->Invoke(call, args, CallOptions::WithTimeout(10s));
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        p.Add(s, r.ok() ? "" : std::string(call) + ": " + r.error().ToString());
      };
      timed(info_, "tensor.info", {Value(t)});
      if (c_.gpu_probe) timed(gpu_, "compute.add", {Value(Value::List{Value(t), Value(t)})});
      std::this_thread::sleep_until(tick + 250ms);
    }
  }

  void Run() {
    std::vector<std::thread> threads;
    for (int i = 0; i < c_.header_streams; ++i) threads.emplace_back([this] { HeaderStreams(); });
    for (int i = 0; i < c_.uploads; ++i) threads.emplace_back([this] { Uploads(); });
    for (int i = 0; i < c_.matmul; ++i) threads.emplace_back([this] { MatMul(); });
    for (int i = 0; i < c_.idle; ++i) threads.emplace_back([this] { Idle(); });
    threads.emplace_back([this] { Probes(); });
    for (auto& t : threads) t.join();
  }

  static std::string Stats(Probe& p) {
    std::lock_guard lock(p.mutex);
    std::vector<double> v = p.seconds;
    std::sort(v.begin(), v.end());
    auto q = [&](double f) {
      return v.empty() ? 0.0 : v[std::min(v.size() - 1, std::size_t(f * v.size()))];
    };
    std::string fail = p.first_failure;
    for (char& ch : fail)
      if (ch == '"' || ch == '\\' || static_cast<unsigned char>(ch) < 0x20) ch = ' ';
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "{\"count\": %zu, \"failures\": %llu, \"p50_s\": %.4f, \"p99_s\": %.4f, "
                  "\"max_s\": %.4f, \"over_1s\": %zu, \"first_failure\": \"%s\"}",
                  v.size(), static_cast<unsigned long long>(p.failures), q(0.5), q(0.99),
                  v.empty() ? 0.0 : v.back(),
                  static_cast<std::size_t>(
                      std::count_if(v.begin(), v.end(), [](double s) { return s > 1.0; })),
                  fail.substr(0, 300).c_str());
    return buf;
  }

  void Print() {
    auto n = [](const std::atomic<std::uint64_t>& a) {
      return static_cast<unsigned long long>(a.load());
    };
    std::printf(
        "{\"seconds\": %.1f, \"probe_info\": %s, \"probe_gpu\": %s, \"header_streams\": %llu, "
        "\"header_refused\": %llu, \"uploads\": %llu, \"upload_bytes_sent\": %llu, "
        "\"upload_ended\": %llu, \"matmul_calls\": %llu, \"matmul_done\": %llu, "
        "\"matmul_stopped\": %llu, \"idle_connections\": %llu, \"idle_closed\": %llu}\n",
        c_.seconds, Stats(info_).c_str(), c_.gpu_probe ? Stats(gpu_).c_str() : "null",
        n(counters_.header_streams), n(counters_.header_refused), n(counters_.uploads),
        n(counters_.upload_bytes_sent), n(counters_.upload_ended), n(counters_.matmul_calls),
        n(counters_.matmul_done), n(counters_.matmul_stopped), n(counters_.idle_connections),
        n(counters_.idle_closed));
  }

 private:
  Config c_;
  Clock::time_point end_;
  std::atomic<int> next_channel_{0};
  Counters counters_;
  Probe info_, gpu_;
};

int Main(int argc, char** argv) {
  Config c;
  if (const char* t = std::getenv("ALKNET_TOKEN")) c.token = t;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "alknet_soak_load: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::puts(
          "alknet_soak_load --address HOST:PORT --seconds S [--header-streams N] [--uploads N]\n"
          "  [--upload-bytes B] [--upload-fill B] [--matmul N] [--matmul-n N] [--idle N]\n"
          "  [--no-gpu-probe]   (token: $ALKNET_TOKEN). Prints one JSON object; exit 0.");
      return 0;
    } else if (a == "--address") {
      c.address = next();
    } else if (a == "--seconds") {
      c.seconds = std::atof(next().c_str());
    } else if (a == "--header-streams") {
      c.header_streams = std::atoi(next().c_str());
    } else if (a == "--uploads") {
      c.uploads = std::atoi(next().c_str());
    } else if (a == "--upload-bytes") {
      c.upload_bytes = std::strtoull(next().c_str(), nullptr, 10);
    } else if (a == "--upload-fill") {
      c.upload_fill = std::strtoull(next().c_str(), nullptr, 10);
    } else if (a == "--matmul") {
      c.matmul = std::atoi(next().c_str());
    } else if (a == "--matmul-n") {
      c.matmul_n = std::atoll(next().c_str());
    } else if (a == "--idle") {
      c.idle = std::atoi(next().c_str());
    } else if (a == "--no-gpu-probe") {
      c.gpu_probe = false;
    } else {
      std::fprintf(stderr, "alknet_soak_load: unknown option %s (see --help)\n", a.c_str());
      return 2;
    }
  }
  if (c.address.empty() || c.seconds <= 0 || c.seconds > 7200 || c.matmul_n < 1 ||
      c.matmul_n > 16384) {
    std::fprintf(stderr, "alknet_soak_load: needs --address and 0 < --seconds <= 7200\n");
    return 2;
  }
  Soak soak(c);
  soak.Run();
  soak.Print();
  return 0;
}

}  // namespace
}  // namespace alknet::call

int main(int argc, char** argv) { return alknet::call::Main(argc, argv); }
