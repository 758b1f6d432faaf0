// Elementwise bandwidth of a vectorised WGSL kernel against plain copies of the same bytes,
// in one run: host memcpy and a device-to-device copyBufferToBuffer.
//
//   bench_bandwidth [--bytes N] [--iterations K] [--json]
//
// Reported bandwidth counts bytes read + bytes written (2 x N per pass), for every row.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "alknet/webgpu/context.h"

namespace wg = alknet::webgpu;
using Clock = std::chrono::steady_clock;

namespace {

constexpr uint32_t kWorkgroup = 256;

// y = x * 2 + 1 on vec4<f32>. Each invocation handles PER_THREAD vec4s. One vec4 per
// invocation suits GPUs; several amortise lavapipe's per-invocation cost. Element i of
// invocation t is t + i * (all invocations), so each step of the loop is one coalesced sweep.
std::string KernelSource(uint32_t per_thread) {
  std::string s = R"(
const PER_THREAD: u32 = $Ku;
@group(0) @binding(0) var<storage, read> x: array<vec4f>;
@group(0) @binding(1) var<storage, read_write> y: array<vec4f>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) n: vec3u) {
  let threads = n.x * n.y * 256u;
  let t = gid.x + gid.y * n.x * 256u;
  let len = arrayLength(&y);
  for (var j = 0u; j < PER_THREAD; j++) {
    let i = t + j * threads;
    if (i < len) {
      y[i] = fma(x[i], vec4f(2.0), vec4f(1.0));
    }
  }
}
)";
  s.replace(s.find("$K"), 2, std::to_string(per_thread));
  return s;
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "bench_bandwidth: %s\n", what.c_str());
  std::exit(1);
}

template <typename T>
T Must(wg::Result<T> r, const char* what) {
  if (!r.ok()) Die(std::string(what) + ": " + r.error().ToString());
  return std::move(r).value();
}

bool rec_ok(const wg::Status& s) { return s.ok(); }

double GBs(uint64_t bytes, double seconds) { return double(bytes) / seconds / 1e9; }

}  // namespace

int main(int argc, char** argv) {
  uint64_t bytes = 0;
  int iterations = 10;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--bytes" && i + 1 < argc) {
      bytes = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--iterations" && i + 1 < argc) {
      iterations = std::atoi(argv[++i]);
    } else if (a == "--json") {
      json = true;
    } else if (a == "-h" || a == "--help") {
      std::printf(
          "Usage: bench_bandwidth [--bytes N] [--iterations K] [--json]\n"
          "Default N: 1 GiB on a GPU, 64 MiB on a CPU adapter (lavapipe).\n");
      return 0;
    } else {
      Die("unknown argument '" + a + "' (see --help)");
    }
  }
  auto ctx = Must(wg::Context::Create(), "creating a WebGPU context");
  const bool cpu = ctx->adapter().type == WGPUAdapterType_CPU;
  if (bytes == 0) bytes = cpu ? (uint64_t{64} << 20) : (uint64_t{1} << 30);
  bytes &= ~uint64_t{15};
  if (bytes > ctx->limits().maxStorageBufferBindingSize) {
    Die("--bytes exceeds the device limit maxStorageBufferBindingSize = " +
        std::to_string(ctx->limits().maxStorageBufferBindingSize));
  }
  const uint64_t n = bytes / 4;

  std::vector<float> host(n);
  for (uint64_t i = 0; i < n; ++i) host[i] = float(i % 1000) * 0.25f;
  auto x = Must(ctx->CreateBuffer(bytes, wg::kStorageUsage, "x"), "buffer x");
  auto y = Must(ctx->CreateBuffer(bytes, wg::kStorageUsage, "y"), "buffer y");
  const auto host_bytes = std::as_bytes(std::span(host));
  for (uint64_t off = 0; off < bytes; off += uint64_t{64} << 20) {
    const uint64_t len = std::min<uint64_t>(uint64_t{64} << 20, bytes - off);
    if (!ctx->Write(x, off, host_bytes.subspan(off, len)).ok()) Die("upload failed");
  }
  struct Variant {
    uint32_t per_thread;
    const wg::Kernel* kernel;
    wg::Grid grid;
    double seconds = 0;
  };
  std::vector<Variant> variants;
  for (uint32_t k : {1u, 4u, 16u}) {
    auto kernel = Must(
        ctx->GetKernel({.wgsl = KernelSource(k),
                        .bindings = {wg::BindingType::kReadOnlyStorage, wg::BindingType::kStorage},
                        .label = "fma_vec4_x" + std::to_string(k)}),
        "compiling the kernel");
    variants.push_back({k, kernel, Must(ctx->GridFor(bytes / 16 / k, kWorkgroup), "grid")});
  }
  const wg::BufferBinding bindings[] = {{&x}, {&y}};

  // Each measurement: `iterations` passes recorded into one command buffer, timed from submit
  // to queue idle; the best of 5 measurements is kept (first one is warm-up).
  auto measure = [&](auto record) {
    double best = 1e30;
    for (int rep = 0; rep < 6; ++rep) {
      wg::Recorder rec = ctx->BeginCommands();
      for (int it = 0; it < iterations; ++it) record(rec);
      if (auto w = ctx->WaitIdle(); !w.ok()) Die("wait: " + w.error().ToString());
      const auto t0 = Clock::now();
      auto s = ctx->Submit(std::move(rec));
      if (!s.ok()) Die("submit: " + s.error().ToString());
      if (auto w = ctx->WaitIdle(); !w.ok()) Die("wait: " + w.error().ToString());
      const double dt = std::chrono::duration<double>(Clock::now() - t0).count() / iterations;
      if (rep > 0) best = std::min(best, dt);
    }
    return best;
  };
  const Variant* best = nullptr;
  for (Variant& v : variants) {
    v.seconds = measure([&](wg::Recorder& rec) {
      if (!rec.Dispatch(*v.kernel, bindings, v.grid).ok()) Die("dispatch failed");
    });
    if (best == nullptr || v.seconds < best->seconds) best = &v;
  }
  const double t_kernel = best->seconds;
  const double t_d2d = measure([&](wg::Recorder& rec) { rec.Copy(x, 0, y, 0, bytes); });

  // Host memcpy of the same bytes (the peer on a CPU adapter).
  std::vector<float> dst(n);
  double t_memcpy = 1e30;
  for (int rep = 0; rep < 6; ++rep) {
    const auto t0 = Clock::now();
    for (int it = 0; it < iterations; ++it) {
      std::memcpy(dst.data(), host.data(), bytes);
      asm volatile("" ::"r"(dst.data()) : "memory");
    }
    const double dt = std::chrono::duration<double>(Clock::now() - t0).count() / iterations;
    if (rep > 0) t_memcpy = std::min(t_memcpy, dt);
  }

  // Every variant's output is checked in full: a fast wrong kernel is not a result.
  std::vector<float> out(n);
  for (const Variant& v : variants) {
    wg::Recorder clear = ctx->BeginCommands();
    clear.Clear(y, 0, bytes);
    if (!rec_ok(ctx->Submit(std::move(clear)))) Die("clear failed");
    wg::Recorder rec = ctx->BeginCommands();
    if (!rec.Dispatch(*v.kernel, bindings, v.grid).ok()) Die("dispatch failed");
    if (!rec_ok(ctx->Submit(std::move(rec)))) Die("submit failed");
    if (!ctx->Read(y, 0, std::as_writable_bytes(std::span(out))).ok()) Die("readback failed");
    for (uint64_t i = 0; i < n; ++i) {
      if (out[i] != host[i] * 2.0f + 1.0f) {
        Die("variant x" + std::to_string(v.per_thread) + " wrong at element " + std::to_string(i));
      }
    }
  }

  const uint64_t moved = 2 * bytes;
  const double kernel_gbs = GBs(moved, t_kernel), d2d_gbs = GBs(moved, t_d2d),
               memcpy_gbs = GBs(moved, t_memcpy);
  const double peer_gbs = cpu ? memcpy_gbs : d2d_gbs;
  if (json) {
    std::printf(
        "{\"adapter\":\"%s\",\"bytes\":%llu,\"iterations\":%d,\"kernel_gbs\":%.2f,\"per_thread\":%"
        "u,"
        "\"d2d_copy_gbs\":%.2f,\"host_memcpy_gbs\":%.2f,\"peer\":\"%s\",\"ratio\":%.3f}\n",
        ctx->adapter().Summary().c_str(), static_cast<unsigned long long>(bytes), iterations,
        kernel_gbs, best->per_thread, d2d_gbs, memcpy_gbs,
        cpu ? "host memcpy" : "WebGPU copyBufferToBuffer", kernel_gbs / peer_gbs);
  } else {
    std::printf("adapter: %s\n", ctx->adapter().Summary().c_str());
    std::printf("bytes per pass: %llu read + %llu written, %d passes per measurement\n",
                static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(bytes),
                iterations);
    for (const Variant& v : variants) {
      std::printf("  WGSL fma vec4, %2u/thread  %10.1f GB/s\n", v.per_thread,
                  GBs(moved, v.seconds));
    }
    std::printf("  copyBufferToBuffer (d2d) %10.1f GB/s\n", d2d_gbs);
    std::printf("  host memcpy              %10.1f GB/s\n", memcpy_gbs);
    std::printf("ratio best kernel (%u/thread) / %s: %.3f\n", best->per_thread,
                cpu ? "host memcpy" : "WebGPU copyBufferToBuffer", kernel_gbs / peer_gbs);
  }
  return 0;
}
