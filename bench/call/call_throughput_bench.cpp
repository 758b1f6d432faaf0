// Remote tensor throughput on loopback against a raw TCP copy of the same bytes, in the same
// run: N MiB go client -> server (upload: the server receives and decodes the payload) and
// server -> client (download), and the same bytes over a plain 127.0.0.1 socket.
//
//   call_throughput_bench [--mib 256] [--reps 3] [--chunk-kib 4096]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>

#include "alknet/call-grpc/remote.h"

namespace ac = alknet::call;
using Clock = std::chrono::steady_clock;

namespace {

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// A plain TCP copy of `src` into `dst`: one connection, write() and read() in large blocks,
// the peer a thread in this process, like the gRPC server.
double RawTcpSeconds(std::span<const std::byte> src, std::span<std::byte> dst) {
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (listener < 0 || bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(listener, 1) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::perror("raw tcp listener");
    std::exit(3);
  }
  const auto start = Clock::now();
  std::thread receiver([&] {
    const int fd = accept(listener, nullptr, nullptr);
    std::size_t got = 0;
    while (got < dst.size()) {
      const ssize_t n = read(fd, dst.data() + got, dst.size() - got);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    close(fd);
  });
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    std::perror("raw tcp connect");
    std::exit(3);
  }
  std::size_t sent = 0;
  while (sent < src.size()) {
    const ssize_t n =
        write(fd, src.data() + sent, std::min<std::size_t>(src.size() - sent, 4 << 20));
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  close(fd);
  receiver.join();
  const double s = Seconds(Clock::now() - start);
  close(listener);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t mib = 256;
  std::size_t chunk_kib = 4096;
  int reps = 3;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf(
          "Usage: call_throughput_bench [--mib N] [--chunk-kib N] [--reps N]\n\n"
          "Uploads and downloads one N MiB tensor (default 256) through alknet's gRPC call\n"
          "path on 127.0.0.1 and copies the same bytes over a raw TCP socket, --reps times\n"
          "(default 3); prints the best times and the median ratio to raw TCP. --chunk-kib\n"
          "sets the client's message size (default 4096). Exit 1 if bytes differ.\n");
      return 0;
    }
    const bool known = !std::strcmp(argv[i], "--mib") || !std::strcmp(argv[i], "--chunk-kib") ||
                       !std::strcmp(argv[i], "--reps");
    if (!known || i + 1 >= argc) {
      std::fprintf(stderr, "call_throughput_bench: unknown or incomplete option '%s' (--help)\n",
                   argv[i]);
      return 2;
    }
    const char* value = argv[++i];
    if (!std::strcmp(argv[i - 1], "--mib")) mib = std::strtoul(value, nullptr, 10);
    if (!std::strcmp(argv[i - 1], "--chunk-kib")) chunk_kib = std::strtoul(value, nullptr, 10);
    if (!std::strcmp(argv[i - 1], "--reps")) reps = std::atoi(value);
  }
  if (mib == 0 || chunk_kib == 0 || reps < 1) {
    std::fprintf(stderr, "call_throughput_bench: --mib, --chunk-kib and --reps must be >= 1\n");
    return 2;
  }
  const std::size_t bytes = mib << 20;

  // The source tensor, random so nothing compresses, and the server-side tensor to send back.
  std::vector<std::byte> data(bytes);
  std::mt19937_64 rng(1);
  for (std::size_t i = 0; i + 8 <= bytes; i += 8) {
    const std::uint64_t v = rng();
    std::memcpy(&data[i], &v, 8);
  }
  ac::Tensor tensor;
  tensor.dtype = "u8";
  tensor.shape = {static_cast<std::int64_t>(bytes)};
  tensor.data = data;

  ac::CallRegistry registry;
  ac::Component c;
  c.name = "bench";
  // Upload: the server has received and decoded the whole payload when this runs.
  c.calls.push_back(
      ac::CallDecl{"bench.sink", "(t: tensor) -> int",
                   [](ac::CallContext&, std::span<const ac::Value> args) -> ac::Result<ac::Value> {
                     return ac::Value(static_cast<std::int64_t>(args[0].as_tensor().data.size()));
                   }});
  c.calls.push_back(ac::CallDecl{
      "bench.source", "(bytes: int) -> tensor",
      [&tensor](ac::CallContext&, std::span<const ac::Value>) -> ac::Result<ac::Value> {
        return ac::Value(tensor);  // a view: the server streams straight from `data`
      }});
  if (!registry.AddComponent(std::move(c)).ok()) return 1;
  ac::ServerOptions so;
  so.listen = "127.0.0.1:0";
  so.token = "bench";
  so.limits.max_tensor_bytes = bytes + (1 << 20);
  so.limits.max_message_bytes =
      std::max<std::size_t>(so.limits.max_message_bytes, 4 * (chunk_kib << 10));
  auto server = ac::CallServer::Start(registry, so);
  if (!server) {
    std::fprintf(stderr, "%s\n", server.error().ToString().c_str());
    return 3;
  }
  ac::RemoteOptions ro;
  ro.address = (*server)->address();
  ro.token = "bench";
  ro.chunk_bytes = chunk_kib << 10;
  ro.max_message_bytes = std::max<std::size_t>(ro.max_message_bytes, 4 * ro.chunk_bytes);
  auto client = std::move(ac::RemoteRegistry::Connect(ro)).value();

  std::vector<std::byte> tcp_dst(bytes);
  double best_tcp = 1e30, best_up = 1e30, best_down = 1e30;
  // Each repetition times TCP, upload and download back to back; the ratio of each
  // repetition is taken, and the median reported, so a busy moment on a shared machine
  // skews one repetition's three numbers together rather than one side of the comparison.
  std::vector<double> up_ratio, down_ratio;
  bool exact = true;
  for (int r = 0; r < reps; ++r) {
    std::memset(tcp_dst.data(), 0, tcp_dst.size());
    const double tcp = RawTcpSeconds(data, tcp_dst);
    best_tcp = std::min(best_tcp, tcp);
    exact &= std::memcmp(tcp_dst.data(), data.data(), bytes) == 0;

    const ac::Value up_args[1] = {ac::Value(tensor)};
    auto t0 = Clock::now();
    auto up = client->Invoke("bench.sink", up_args);
    const double up_s = Seconds(Clock::now() - t0);
    best_up = std::min(best_up, up_s);
    up_ratio.push_back(tcp / up_s);
    if (!up.ok() || up->as_int() != static_cast<std::int64_t>(bytes)) {
      std::fprintf(stderr, "upload failed: %s\n", up.ok() ? "size" : up.error().ToString().c_str());
      return 1;
    }

    const ac::Value down_args[1] = {ac::Value(static_cast<std::int64_t>(bytes))};
    t0 = Clock::now();
    auto down = client->Invoke("bench.source", down_args);
    const double down_s = Seconds(Clock::now() - t0);
    best_down = std::min(best_down, down_s);
    down_ratio.push_back(tcp / down_s);
    if (!down.ok()) {
      std::fprintf(stderr, "download failed: %s\n", down.error().ToString().c_str());
      return 1;
    }
    const auto& t = down->as_tensor();
    exact &= t.data.size() == bytes && std::memcmp(t.data.data(), data.data(), bytes) == 0;
  }
  if (!exact) {
    std::fprintf(stderr, "bytes differ after a transfer\n");
    return 1;
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double gb = static_cast<double>(bytes) / 1e9;
  std::printf("tensor of %zu MiB, %d repetitions, bytes verified; best time, median ratio\n", mib,
              reps);
  std::printf("  raw TCP copy (127.0.0.1)     %7.3f s  %6.2f GB/s\n", best_tcp, gb / best_tcp);
  std::printf("  remote call upload           %7.3f s  %6.2f GB/s  %5.1f%% of raw TCP\n", best_up,
              gb / best_up, 100 * median(up_ratio));
  std::printf("  remote call download         %7.3f s  %6.2f GB/s  %5.1f%% of raw TCP\n", best_down,
              gb / best_down, 100 * median(down_ratio));
  return 0;
}
