// Host-to-device upload paths of webgpu.h, timed in one run (issue 16 item 4: a 19 MB input
// upload was most of ResNet-50's batch-32 gap on the H200):
//   write          Context::Write in write mode (wgpuQueueWriteBuffer: Dawn copies into its own
//   staging
//                  memory), then the queue drained;
//   staged-new     a MapWrite|CopySrc buffer created mappedAtCreation per upload, filled,
//                  unmapped, copied with copyBufferToBuffer;
//   staged-pooled  one such buffer kept: mapAsync(Write) before each fill (what a pool that
//                  overlaps the next upload with the current run would do, minus the overlap);
//   ctx-staged     Context::Write with ALKNET_UPLOAD=staged: its pooled staging buffers (ADR
//                  0021), then the queue drained;
//   ctx-auto       Context::Write in auto mode, what the model path does (staged on GPUs for
//                  writes >= 1 MiB, writeBuffer on CPU adapters), then the queue drained;
//   memcpy         the same bytes copied host to host (the floor any path pays once).
// Every path's result is read back once and compared with the source bytes.
//
//   bench_upload [--sizes MiB,MiB,...] [--iterations K] [--json]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "alknet/webgpu/context.h"
#include "alknet/webgpu/procs.h"

namespace wg = alknet::webgpu;
using Clock = std::chrono::steady_clock;

namespace {

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "bench_upload: %s\n", what.c_str());
  std::exit(1);
}

template <typename R>
auto Must(R&& r, const char* what) {
  if (!r.ok()) Die(std::string(what) + ": " + r.error().ToString());
  return std::move(r).value();
}

void MustOk(const wg::Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + s.error().ToString());
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct MapWait {
  WGPUMapAsyncStatus status = WGPUMapAsyncStatus_Error;
};
void OnMap(WGPUMapAsyncStatus status, WGPUStringView, void* u1, void*) {
  static_cast<MapWait*>(u1)->status = status;
}

wg::BufferHandle StagingBuffer(wg::Context& ctx, uint64_t size, bool mapped) {
  WGPUBufferDescriptor d{};
  d.label = wg::Sv("upload staging");
  d.size = size;
  d.usage = WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopySrc;
  d.mappedAtCreation = mapped ? 1 : 0;
  return wg::BufferHandle::Adopt(wg::P().DeviceCreateBuffer(ctx.device(), &d));
}

void CopyAndDrain(wg::Context& ctx, const wg::BufferHandle& src, const wg::Buffer& dst,
                  uint64_t size) {
  wg::Recorder rec = ctx.BeginCommands("upload");
  wg::Buffer s;
  s.handle = src;  // a second reference (copy = AddRef)
  s.size = size;
  s.usage = WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopySrc;
  rec.Copy(s, 0, dst, 0, size);
  ctx.SubmitUnchecked(std::move(rec));
  MustOk(ctx.WaitIdle(), "wait");
}

void Check(wg::Context& ctx, const wg::Buffer& dst, const std::vector<std::byte>& src,
           const char* path) {
  std::vector<std::byte> back(src.size(), std::byte{0});
  MustOk(ctx.Read(dst, 0, back), "read back");
  if (std::memcmp(back.data(), src.data(), src.size()) != 0) {
    Die(std::string(path) + ": the device buffer differs from the uploaded bytes");
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<uint64_t> sizes_mib = {1, 19, 64};
  int iterations = 10;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--sizes" && i + 1 < argc) {
      sizes_mib.clear();
      std::string list = argv[++i];
      size_t pos = 0;
      while (pos <= list.size()) {
        const size_t comma = std::min(list.find(',', pos), list.size());
        const std::string item = list.substr(pos, comma - pos);
        char* end = nullptr;
        const unsigned long long v = std::strtoull(item.c_str(), &end, 10);
        if (item.empty() || *end != 0 || v == 0 || v > 4096)
          Die("--sizes: bad size '" + item + "'");
        sizes_mib.push_back(v);
        pos = comma + 1;
      }
    } else if (a == "--iterations" && i + 1 < argc) {
      iterations = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--json") {
      json = true;
    } else if (a == "--help" || a == "-h") {
      std::printf(
          "Usage: bench_upload [--sizes MiB,...] [--iterations K] [--json]\n"
          "Times host-to-device uploads: queue.writeBuffer, a mappedAtCreation staging buffer\n"
          "per upload, a pooled staging buffer remapped each time, Context::Write staged and\n"
          "in auto mode (what the model path does), and host memcpy.\n");
      return 0;
    } else {
      Die("unknown argument '" + a + "' (see --help)");
    }
  }
  auto ctx = Must(wg::Context::Create(), "device");
  if (!json) std::printf("adapter: %s\n", ctx->adapter().Summary().c_str());
  std::string rows;
  for (uint64_t mib : sizes_mib) {
    const uint64_t n = mib << 20;
    std::vector<std::byte> src(n);
    for (uint64_t i = 0; i < n; ++i) src[i] = static_cast<std::byte>((i * 2654435761u) >> 13);
    std::vector<std::byte> host(n);
    wg::Buffer dst = Must(ctx->CreateBuffer(n, wg::kStorageUsage, "upload dst"), "buffer");
    std::vector<double> t_write, t_new, t_pool, t_memcpy, t_ctx_staged, t_ctx_auto;
    auto time_context_write = [&](wg::UploadMode mode, std::vector<double>& times,
                                  const char* name) {
      ctx->set_upload_mode(mode);
      for (int it = 0; it <= iterations; ++it) {
        const auto t0 = Clock::now();
        MustOk(ctx->Write(dst, 0, src), name);
        MustOk(ctx->WaitIdle(), "wait");
        if (it > 0)
          times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      }
      Check(*ctx, dst, src, name);
    };
    time_context_write(wg::UploadMode::kWrite, t_write, "write");
    time_context_write(wg::UploadMode::kStaged, t_ctx_staged, "ctx-staged");
    time_context_write(wg::UploadMode::kAuto, t_ctx_auto, "ctx-auto");
    // staged-new
    for (int it = 0; it <= iterations; ++it) {
      const auto t0 = Clock::now();
      wg::BufferHandle s = StagingBuffer(*ctx, n, true);
      void* p = wg::P().BufferGetMappedRange(s.get(), 0, n);
      if (p == nullptr) Die("staged-new: no mapped range");
      std::memcpy(p, src.data(), n);
      wg::P().BufferUnmap(s.get());
      CopyAndDrain(*ctx, s, dst, n);
      if (it > 0)
        t_new.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    Check(*ctx, dst, src, "staged-new");
    // staged-pooled
    wg::BufferHandle pool = StagingBuffer(*ctx, n, true);
    bool mapped = true;
    for (int it = 0; it <= iterations; ++it) {
      const auto t0 = Clock::now();
      if (!mapped) {
        MapWait w;
        WGPUBufferMapCallbackInfo cb{};
        cb.mode = WGPUCallbackMode_WaitAnyOnly;
        cb.callback = &OnMap;
        cb.userdata1 = &w;
        MustOk(ctx->Wait(wg::P().BufferMapAsync(pool.get(), WGPUMapMode_Write, 0, n, cb),
                         std::chrono::seconds(60)),
               "mapAsync");
        if (w.status != WGPUMapAsyncStatus_Success) Die("staged-pooled: mapAsync failed");
      }
      void* p = wg::P().BufferGetMappedRange(pool.get(), 0, n);
      if (p == nullptr) Die("staged-pooled: no mapped range");
      std::memcpy(p, src.data(), n);
      wg::P().BufferUnmap(pool.get());
      mapped = false;
      CopyAndDrain(*ctx, pool, dst, n);
      if (it > 0)
        t_pool.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    Check(*ctx, dst, src, "staged-pooled");
    for (int it = 0; it <= iterations; ++it) {
      const auto t0 = Clock::now();
      std::memcpy(host.data(), src.data(), n);
      if (it > 0)
        t_memcpy.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    if (std::memcmp(host.data(), src.data(), n) != 0) Die("memcpy differs");
    const double w = Median(t_write), s1 = Median(t_new), s2 = Median(t_pool), m = Median(t_memcpy);
    const double cs = Median(t_ctx_staged), ca = Median(t_ctx_auto);
    auto gbs = [n](double ms) { return static_cast<double>(n) / (ms * 1e6); };
    if (json) {
      char line[512];
      std::snprintf(line, sizeof line,
                    "%s{\"mib\": %llu, \"write_ms\": %.3f, \"staged_new_ms\": %.3f, "
                    "\"staged_pooled_ms\": %.3f, \"ctx_staged_ms\": %.3f, \"ctx_auto_ms\": %.3f, "
                    "\"ctx_auto_staged\": %s, \"memcpy_ms\": %.3f}",
                    rows.empty() ? "" : ", ", static_cast<unsigned long long>(mib), w, s1, s2, cs,
                    ca, ctx->StagesWrite(n) ? "true" : "false", m);
      rows += line;
    } else {
      std::printf(
          "%4llu MiB  write %8.3f ms (%5.1f GB/s)  staged-new %8.3f ms (%5.1f)  staged-pooled "
          "%8.3f ms (%5.1f)  ctx-staged %8.3f ms (%5.1f)  ctx-auto[%s] %8.3f ms (%5.1f)  memcpy "
          "%7.3f ms (%5.1f)  write/ctx-auto %.2f\n",
          static_cast<unsigned long long>(mib), w, gbs(w), s1, gbs(s1), s2, gbs(s2), cs, gbs(cs),
          ctx->StagesWrite(n) ? "staged" : "write", ca, gbs(ca), m, gbs(m), w / ca);
    }
  }
  if (json) {
    std::printf("{\"adapter\": \"%s\", \"iterations\": %d, \"rows\": [%s]}\n",
                ctx->adapter().Summary().c_str(), iterations, rows.c_str());
  }
  return 0;
}
