// SHA-256 throughput: alknet's GPU kernels (K inlined / switch table / const array) against
// OpenSSL on the host's cores, on the same messages, in one run; digests are cross-checked.
//
//   bench_sha256 [--small-count N] [--large-count N] [--large-bytes B] [--min-seconds S] [--json]
//
// Rows: 64-byte messages (hashes/s; --small-bytes 55 for single-block messages), 1 MiB
// messages in batch mode (GB/s), one long message in single-message mode (GB/s).
// On the H200: --small-count 16777216 --small-bytes 55 --large-count 1024.
#include <openssl/sha.h>

#include <cstring>
#include <random>
#include <thread>

#include "alknet/compute/sha256.h"
#include "bench_util.h"

namespace ac = alknet::compute;
namespace wg = alknet::webgpu;

namespace {

struct Row {
  std::string what;
  double alknet[3] = {0, 0, 0};  // inline, switch, array
  double ssl1 = 0, ssln = 0;
  const char* unit;
};

// OpenSSL over `msgs` split across `threads`; returns messages per second.
double OpenSslRate(const std::vector<std::span<const std::byte>>& msgs, unsigned threads,
                   double min_seconds) {
  auto t0 = bench::Clock::now();
  uint64_t done = 0;
  do {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        unsigned char d[32];
        for (size_t i = t; i < msgs.size(); i += threads)
          SHA256(reinterpret_cast<const unsigned char*>(msgs[i].data()), msgs[i].size(), d);
      });
    }
    for (auto& th : pool) th.join();
    done += msgs.size();
  } while (bench::Seconds(t0, bench::Clock::now()) < min_seconds);
  return done / bench::Seconds(t0, bench::Clock::now());
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t small_count = 1 << 20, small_bytes = 64, large_count = 64, large_bytes = 1 << 20,
           stream_bytes = 64ull << 20;
  double min_seconds = 1.0;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--small-count" && i + 1 < argc)
      small_count = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--small-bytes" && i + 1 < argc)
      small_bytes = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--large-count" && i + 1 < argc)
      large_count = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--large-bytes" && i + 1 < argc)
      large_bytes = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--stream-bytes" && i + 1 < argc)
      stream_bytes = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--min-seconds" && i + 1 < argc)
      min_seconds = std::atof(argv[++i]);
    else if (a == "--json")
      json = true;
    else {
      std::fprintf(stderr,
                   "usage: bench_sha256 [--small-count N] [--small-bytes B] [--large-count N] "
                   "[--large-bytes B] "
                   "[--stream-bytes B] [--min-seconds S] [--json]\n");
      return 2;
    }
  }
  auto ctx = bench::Must(wg::Context::Create(), "WebGPU context");
  ac::Executor ex(*ctx);
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::mt19937_64 rng(1);
  auto random_bytes = [&](uint64_t n) {
    std::vector<std::byte> v(n);
    for (auto& b : v) b = static_cast<std::byte>(rng());
    return v;
  };

  auto measure = [&](const std::vector<std::span<const std::byte>>& msgs, const char* mode,
                     uint32_t wg_size, const char* layout = "indexed", uint32_t per = 1) {
    ac::Sha256 sha(
        ex, {.k_mode = mode, .workgroup_size = wg_size, .layout = layout, .per_invocation = per});
    auto prepared = bench::Must(sha.Prepare(msgs), "prepare");
    if (auto st = sha.Dispatch(prepared, true); !st.ok())
      bench::Die(st.error().ToString());  // compile
    if (auto w = ctx->WaitIdle(); !w.ok()) bench::Die(w.error().ToString());
    auto t0 = bench::Clock::now();
    int reps = 0;
    do {
      if (auto st = sha.Dispatch(prepared); !st.ok()) bench::Die(st.error().ToString());
      if (auto w = ctx->WaitIdle(); !w.ok()) bench::Die(w.error().ToString());
      ++reps;
    } while (bench::Seconds(t0, bench::Clock::now()) < min_seconds);
    const double rate = reps * double(msgs.size()) / bench::Seconds(t0, bench::Clock::now());
    auto digests = bench::Must(sha.Finish(prepared), "read digests");
    for (size_t i = 0; i < msgs.size(); i += std::max<size_t>(1, msgs.size() / 97)) {
      ac::Sha256Digest want;
      SHA256(reinterpret_cast<const unsigned char*>(msgs[i].data()), msgs[i].size(), want.data());
      if (digests[i] != want)
        bench::Die(std::string("digest mismatch (") + mode + ") at message " + std::to_string(i));
    }
    return rate;
  };

  std::vector<Row> rows;
  struct Fixed {
    uint32_t per, wg;
    double rate = 0;
  };
  std::vector<Fixed> fixed = {{1, 64}, {2, 64}, {4, 64}, {1, 128}, {1, 256}, {2, 128}};
  const char* modes[] = {"inline", "switch", "array"};
  {
    auto data = random_bytes(small_count * small_bytes);
    std::vector<std::span<const std::byte>> msgs;
    for (uint64_t i = 0; i < small_count; ++i)
      msgs.emplace_back(data.data() + small_bytes * i, small_bytes);
    // 64 bytes take two blocks with the padding; up to 55 bytes take one.
    Row r{std::to_string(small_bytes) + "-byte messages", {}, 0, 0, "M hashes/s"};
    for (int m = 0; m < 3; ++m) r.alknet[m] = measure(msgs, modes[m], 64) / 1e6;
    // Equal lengths: the fixed-length kernel (what HashBatch picks for such a batch).
    if (small_bytes <= ac::kSha256MaxFixedLength) {
      for (Fixed& f : fixed) f.rate = measure(msgs, "inline", f.wg, "fixed", f.per) / 1e6;
    }
    r.ssl1 = OpenSslRate(msgs, 1, min_seconds) / 1e6;
    r.ssln = OpenSslRate(msgs, cores, min_seconds) / 1e6;
    rows.push_back(r);
  }
  {
    auto data = random_bytes(large_count * large_bytes);
    std::vector<std::span<const std::byte>> msgs;
    for (uint64_t i = 0; i < large_count; ++i)
      msgs.emplace_back(data.data() + large_bytes * i, large_bytes);
    // Few long messages: small workgroups so every core (or SM) gets some.
    Row r{std::to_string(large_bytes >> 10) + " KiB messages x" + std::to_string(large_count),
          {},
          0,
          0,
          "GB/s"};
    const double gb = large_bytes / 1e9;
    r.alknet[0] = measure(msgs, "inline", 8) * gb;
    r.ssl1 = OpenSslRate(msgs, 1, min_seconds) * gb;
    r.ssln = OpenSslRate(msgs, cores, min_seconds) * gb;
    rows.push_back(r);
  }
  {
    auto data = random_bytes(stream_bytes);
    ac::Sha256 sha(ex);
    auto d = bench::Must(sha.HashOne(data), "stream (warm-up)");
    auto t0 = bench::Clock::now();
    int reps = 0;
    do {
      d = bench::Must(sha.HashOne(data), "stream");
      ++reps;
    } while (bench::Seconds(t0, bench::Clock::now()) < min_seconds);
    const double s = bench::Seconds(t0, bench::Clock::now()) / reps;
    ac::Sha256Digest want;
    SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), want.data());
    if (d != want) bench::Die("stream digest mismatch");
    std::vector<std::span<const std::byte>> one{data};
    Row r{"one " + std::to_string(stream_bytes >> 20) + " MiB message (stream)", {}, 0, 0, "GB/s"};
    r.alknet[0] = stream_bytes / s / 1e9;
    r.ssl1 = OpenSslRate(one, 1, min_seconds) * stream_bytes / 1e9;
    rows.push_back(r);
  }

  if (json) {
    std::printf("{\"adapter\": \"%s\", \"cores\": %u, \"rows\": [",
                ctx->adapter().Summary().c_str(), cores);
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      std::printf(
          "%s{\"what\": \"%s\", \"unit\": \"%s\", \"inline\": %.3f, \"switch\": %.3f, \"array\": "
          "%.3f, "
          "\"openssl_1\": %.3f, \"openssl_n\": %.3f}",
          i ? ", " : "", r.what.c_str(), r.unit, r.alknet[0], r.alknet[1], r.alknet[2], r.ssl1,
          r.ssln);
    }
    std::printf("], \"fixed\": [");
    for (size_t i = 0; i < fixed.size(); ++i) {
      std::printf("%s{\"per_invocation\": %u, \"workgroup_size\": %u, \"rate\": %.3f}",
                  i ? ", " : "", fixed[i].per, fixed[i].wg, fixed[i].rate);
    }
    std::printf("]}\n");
  } else {
    std::printf("adapter: %s; OpenSSL on %u cores\n", ctx->adapter().Summary().c_str(), cores);
    std::printf("%-34s %-11s %9s %9s %9s %11s %11s %8s\n", "", "unit", "inline", "switch", "array",
                "OpenSSL 1t", "OpenSSL Nt", "ratio");
    for (const Row& r : rows) {
      const double peer = r.ssln > 0 ? r.ssln : r.ssl1;
      std::printf("%-34s %-11s %9.3f %9.3f %9.3f %11.3f %11.3f %8.3f\n", r.what.c_str(), r.unit,
                  r.alknet[0], r.alknet[1], r.alknet[2], r.ssl1, r.ssln, r.alknet[0] / peer);
    }
    std::printf(
        "(ratio: alknet inline / OpenSSL on all cores, or 1 thread for the stream row; 0 = not "
        "run; the columns above use the indexed layout)\n");
    std::printf("fixed-length kernel (K inlined), %llu-byte messages, M hashes/s:\n",
                static_cast<unsigned long long>(small_bytes));
    for (const Fixed& f : fixed) {
      std::printf("  %u per invocation, workgroup %4u: %11.3f  (%.2fx indexed inline)\n", f.per,
                  f.wg, f.rate,
                  rows.empty() || rows[0].alknet[0] == 0 ? 0 : f.rate / rows[0].alknet[0]);
    }
  }
  return 0;
}
