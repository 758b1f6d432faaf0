// Elementwise and broadcast Add through the op table and executor, against the copy
// bandwidth of the same device (copyBufferToBuffer) and of the host (memcpy), in one run.
//
//   bench_elementwise [--elements N] [--min-seconds S] [--json]
//
// Bandwidth counts bytes read + bytes written per pass: Add reads two tensors and writes one
// (12 bytes per element); broadcast Add [N/C, C] + [C] reads ~1 and writes 1 (8 bytes); a
// copy reads and writes once (8 bytes).
#include <cstring>

#include "alknet/compute/executor.h"
#include "bench_util.h"

namespace ac = alknet::compute;
namespace wg = alknet::webgpu;

int main(int argc, char** argv) {
  uint64_t n = 16ull << 20;
  double min_seconds = 1.0;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--elements" && i + 1 < argc)
      n = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--min-seconds" && i + 1 < argc)
      min_seconds = std::atof(argv[++i]);
    else if (a == "--json")
      json = true;
    else {
      std::fprintf(stderr, "usage: bench_elementwise [--elements N] [--min-seconds S] [--json]\n");
      return 2;
    }
  }
  const uint64_t cols = 1024;
  n = std::max<uint64_t>(cols, n / cols * cols);
  auto ctx = bench::Must(wg::Context::Create(), "WebGPU context");
  ac::Executor ex(*ctx);
  std::vector<float> x(n), y(n);
  for (uint64_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 1000) * 0.5f;
    y[i] = static_cast<float>(i % 77);
  }
  auto tx = bench::Must(ex.Upload(ac::DType::kF32, {n}, std::as_bytes(std::span(x))), "upload");
  auto ty = bench::Must(ex.Upload(ac::DType::kF32, {n}, std::as_bytes(std::span(y))), "upload");
  auto tz = bench::Must(ex.Empty(ac::DType::kF32, {n}), "output");
  auto row = bench::Must(
      ex.Upload(ac::DType::kF32, {cols}, std::as_bytes(std::span(y.data(), cols))), "upload");

  // Time `count` passes of `record` in one command buffer; seconds per pass.
  auto timed = [&](auto&& record) {
    auto run = [&](int count) {
      wg::Recorder rec = ctx->BeginCommands("bench");
      for (int k = 0; k < count; ++k) record(rec);
      if (auto st = ex.SubmitChecked(std::move(rec)); !st.ok()) bench::Die(st.error().ToString());
      if (auto w = ctx->WaitIdle(); !w.ok()) bench::Die(w.error().ToString());
    };
    run(1);
    auto t0 = bench::Clock::now();
    run(1);
    const double one = bench::Seconds(t0, bench::Clock::now());
    const int reps = std::max(2, static_cast<int>(min_seconds / std::max(one, 1e-6)));
    t0 = bench::Clock::now();
    run(reps);
    return bench::Seconds(t0, bench::Clock::now()) / reps;
  };
  auto op_pass = [&](const ac::Tensor& a, const ac::Tensor& b, const char* label) {
    ac::OpNode node{"Add", label, 14, {}, {a.desc(), b.desc()}, {}};
    auto program = bench::Must(ex.generator().Generate(node, ex.caps()), "generate");
    return timed([&](wg::Recorder& rec) {
      if (auto st = ex.Dispatch(rec, program, {&a.buffer(), &b.buffer(), &tz.buffer()}); !st.ok())
        bench::Die(st.error().ToString());
    });
  };
  const double add_s = op_pass(tx, ty, "add");
  auto check = bench::Must(ex.Download(tz), "download");
  for (uint64_t i = 0; i < n; i += 9973) {
    float v;
    std::memcpy(&v, check.data.data() + 4 * i, 4);
    if (v != x[i] + y[i]) bench::Die("Add result wrong at " + std::to_string(i));
  }
  auto tx2 = bench::Must(tx.Reshape({n / cols, cols}), "reshape");
  const double bcast_s = op_pass(tx2, row, "broadcast_add");
  check = bench::Must(ex.Download(tz), "download");
  for (uint64_t i = 0; i < n; i += 9973) {
    float v;
    std::memcpy(&v, check.data.data() + 4 * i, 4);
    if (v != x[i] + y[i % cols]) bench::Die("broadcast Add result wrong at " + std::to_string(i));
  }
  const double copy_s =
      timed([&](wg::Recorder& rec) { rec.Copy(tx.buffer(), 0, tz.buffer(), 0, n * 4); });
  std::vector<float> host_dst(n);
  std::memcpy(host_dst.data(), x.data(), n * 4);
  auto t0 = bench::Clock::now();
  int reps = 0;
  do {
    std::memcpy(host_dst.data(), reps % 2 ? x.data() : y.data(), n * 4);
    ++reps;
  } while (bench::Seconds(t0, bench::Clock::now()) < min_seconds);
  const double memcpy_s = bench::Seconds(t0, bench::Clock::now()) / reps;

  const double mb = n * 4.0 / 1e9;
  const double add = 3 * mb / add_s, bcast = 2 * mb / bcast_s, copy = 2 * mb / copy_s,
               host = 2 * mb / memcpy_s;
  if (json) {
    std::printf(
        "{\"adapter\": \"%s\", \"elements\": %llu, \"add_gbs\": %.2f, \"broadcast_add_gbs\": %.2f, "
        "\"device_copy_gbs\": %.2f, \"memcpy_gbs\": %.2f}\n",
        ctx->adapter().Summary().c_str(), (unsigned long long)n, add, bcast, copy, host);
  } else {
    std::printf("adapter: %s; %llu f32 elements (%.0f MiB per tensor)\n",
                ctx->adapter().Summary().c_str(), (unsigned long long)n, n * 4.0 / (1 << 20));
    std::printf("  Add [N] + [N]            %8.2f GB/s  (%.2f of device copy)\n", add, add / copy);
    std::printf("  Add [N/%llu, %llu] + [%llu]  %8.2f GB/s  (%.2f of device copy)\n",
                (unsigned long long)cols, (unsigned long long)cols, (unsigned long long)cols, bcast,
                bcast / copy);
    std::printf("  device copy              %8.2f GB/s\n", copy);
    std::printf("  host memcpy              %8.2f GB/s\n", host);
  }
  return 0;
}
