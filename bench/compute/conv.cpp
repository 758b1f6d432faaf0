// Conv f32 latency at batch 1 (or --batch N) on layers of ResNet-50, MobileNetV2 and an OCR text
// detector (DB-style: the two layers llvmpipe used to run 15-40x slower than their neighbours):
// alknet's Conv kernels against im2col + OpenBLAS sgemm on the host's cores (depthwise: a
// direct loop, what a BLAS cannot do; ConvTranspose: sgemm + col2im), in the same run, on the
// same random tensors; the results are compared too. `first ms`: the first dispatch,
// including compiling the pipeline unless an earlier layer of the same kind compiled it. At
// batch N the peer runs image by image. ALKNET_CONV_VARIANT forces one tiling of alknet's
// Conv GEMM (tools/h200-convtile sweeps them).
//
//   bench_conv [--layers all|NAME,NAME] [--batch N] [--min-seconds 1] [--json]
#include <cblas.h>

#include <cmath>
#include <cstring>
#include <random>

#include "alknet/compute/executor.h"
#include "alknet/compute/wgsl_generator.h"
#include "bench_util.h"

namespace ac = alknet::compute;
namespace wg = alknet::webgpu;

namespace {

struct Layer {
  const char* name;
  uint64_t C, H, W, M, k, stride, pad, group;
  bool transpose = false;  // ConvTranspose (group 1): W is [C, M, k, k]
};

// (batch 1) ResNet-50: stem, a 3x3 and the 1x1s of stage 2, a late 3x3; MobileNetV2: an
// expansion 1x1, a depthwise 3x3 and a projection 1x1.
const Layer kLayers[] = {
    {"resnet_stem_7x7s2", 3, 224, 224, 64, 7, 2, 3, 1},
    {"resnet_3x3_64", 64, 56, 56, 64, 3, 1, 1, 1},
    {"resnet_1x1_256to64", 256, 56, 56, 64, 1, 1, 0, 1},
    {"resnet_1x1_64to256", 64, 56, 56, 256, 1, 1, 0, 1},
    {"resnet_3x3_512_7x7", 512, 7, 7, 512, 3, 1, 1, 1},
    {"mbv2_1x1_24to144", 24, 56, 56, 144, 1, 1, 0, 1},
    {"mbv2_dw3x3_144", 144, 56, 56, 144, 3, 1, 1, 144},
    {"mbv2_1x1_144to24", 144, 56, 56, 24, 1, 1, 0, 1},
    // OCR text detector (1x3x320x448 input): the FPN's 3x3 96 -> 24 at 1/4 scale and the
    // head's ConvTranspose 24 -> 24, 2x2 stride 2.
    {"ocr_3x3_96to24_80x112", 96, 80, 112, 24, 3, 1, 1, 1},
    {"ocr_convT_24_2x2s2", 24, 80, 112, 24, 2, 2, 0, 1, true},
};

uint64_t OutExtent(uint64_t in, const Layer& l) {
  if (l.transpose) return (in - 1) * l.stride + l.k - 2 * l.pad;
  return (in + 2 * l.pad - l.k) / l.stride + 1;
}

// The peer of ConvTranspose: col[M k k, H W] = W^T X (one sgemm), then col2im adds each
// column into the output windows.
void GemmConvTranspose(const Layer& l, const float* x, const std::vector<float>& w,
                       std::vector<float>& col, float* y) {
  const uint64_t HW = l.H * l.W, OH = OutExtent(l.H, l), OW = OutExtent(l.W, l);
  const uint64_t MK = l.M * l.k * l.k;
  cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, MK, HW, l.C, 1.0f, w.data(), MK, x, HW, 0.0f,
              col.data(), HW);
  std::fill(y, y + l.M * OH * OW, 0.0f);
  for (uint64_t m = 0; m < l.M; ++m)
    for (uint64_t ky = 0; ky < l.k; ++ky)
      for (uint64_t kx = 0; kx < l.k; ++kx) {
        const float* row = &col[((m * l.k + ky) * l.k + kx) * HW];
        for (uint64_t iy = 0; iy < l.H; ++iy) {
          const int64_t oy = int64_t(iy * l.stride + ky) - int64_t(l.pad);
          if (oy < 0 || oy >= int64_t(OH)) continue;
          for (uint64_t ix = 0; ix < l.W; ++ix) {
            const int64_t ox = int64_t(ix * l.stride + kx) - int64_t(l.pad);
            if (ox < 0 || ox >= int64_t(OW)) continue;
            y[(m * OH + oy) * OW + ox] += row[iy * l.W + ix];
          }
        }
      }
}

// The peer: im2col into a [C/g * k * k, OH * OW] matrix, then one sgemm per group; x and y
// are one image's.
void Im2colConv(const Layer& l, const float* x, const std::vector<float>& w,
                std::vector<float>& col, float* y) {
  if (l.transpose) return GemmConvTranspose(l, x, w, col, y);
  const uint64_t OH = OutExtent(l.H, l), OW = OutExtent(l.W, l), P = OH * OW;
  const uint64_t CG = l.C / l.group, MG = l.M / l.group, K = CG * l.k * l.k;
  if (CG == 1 && l.group > 1) {  // depthwise: direct loop
    for (uint64_t m = 0; m < l.M; ++m) {
      const float* xc = &x[(m / MG) * l.H * l.W];
      for (uint64_t oy = 0; oy < OH; ++oy) {
        for (uint64_t ox = 0; ox < OW; ++ox) {
          float s = 0;
          for (uint64_t ky = 0; ky < l.k; ++ky) {
            const int64_t iy = int64_t(oy * l.stride + ky) - int64_t(l.pad);
            if (iy < 0 || iy >= int64_t(l.H)) continue;
            for (uint64_t kx = 0; kx < l.k; ++kx) {
              const int64_t ix = int64_t(ox * l.stride + kx) - int64_t(l.pad);
              if (ix < 0 || ix >= int64_t(l.W)) continue;
              s += xc[iy * l.W + ix] * w[m * l.k * l.k + ky * l.k + kx];
            }
          }
          y[m * P + oy * OW + ox] = s;
        }
      }
    }
    return;
  }
  for (uint64_t g = 0; g < l.group; ++g) {
    const float* b = x + g * CG * l.H * l.W;
    if (!(l.k == 1 && l.stride == 1 && l.pad == 0)) {
      for (uint64_t c = 0; c < CG; ++c)
        for (uint64_t ky = 0; ky < l.k; ++ky)
          for (uint64_t kx = 0; kx < l.k; ++kx) {
            float* row = &col[((c * l.k + ky) * l.k + kx) * P];
            for (uint64_t oy = 0; oy < OH; ++oy) {
              const int64_t iy = int64_t(oy * l.stride + ky) - int64_t(l.pad);
              for (uint64_t ox = 0; ox < OW; ++ox) {
                const int64_t ix = int64_t(ox * l.stride + kx) - int64_t(l.pad);
                row[oy * OW + ox] = iy < 0 || iy >= int64_t(l.H) || ix < 0 || ix >= int64_t(l.W)
                                        ? 0.0f
                                        : x[((g * CG + c) * l.H + iy) * l.W + ix];
              }
            }
          }
      b = col.data();
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, MG, P, K, 1.0f, &w[g * MG * K], K, b, P,
                0.0f, &y[g * MG * P], P);
  }
}

}  // namespace

int main(int argc, char** argv) {
  double min_seconds = 1.0;
  bool json = false;
  std::string only = "all";
  uint64_t batch = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--min-seconds" && i + 1 < argc)
      min_seconds = std::atof(argv[++i]);
    else if (a == "--layers" && i + 1 < argc)
      only = argv[++i];
    else if (a == "--batch" && i + 1 < argc && std::atoi(argv[i + 1]) >= 1 &&
             std::atoi(argv[i + 1]) <= 1024)
      batch = static_cast<uint64_t>(std::atoi(argv[++i]));
    else if (a == "--json")
      json = true;
    else {
      std::fprintf(stderr,
                   "usage: bench_conv [--layers all|NAME,NAME] [--batch N (1-1024)] "
                   "[--min-seconds S] [--json]\n");
      return 2;
    }
  }
  auto ctx = bench::Must(wg::Context::Create(), "WebGPU context");
  ac::Executor ex(*ctx);
  if (!json) {
    std::printf(
        "adapter: %s; shared-memory tiles: %s; conv variant: %s; batch %llu; OpenBLAS %s, %d "
        "threads\n",
        ctx->adapter().Summary().c_str(), ex.caps().shared_memory_tiles ? "yes" : "no",
        ex.caps().conv_variant.c_str(), static_cast<unsigned long long>(batch),
        openblas_get_config(), openblas_get_num_threads());
    std::printf("%-22s %10s %10s %12s %12s %8s %10s %12s\n", "layer", "GFLOP", "first ms",
                "alknet ms", "peer ms", "ratio", "alknet GF/s", "max rel err");
  } else {
    std::printf("{\"adapter\": \"%s\", \"conv_variant\": \"%s\", \"batch\": %llu, \"results\": [",
                ctx->adapter().Summary().c_str(), ex.caps().conv_variant.c_str(),
                static_cast<unsigned long long>(batch));
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  double total_gpu = 0, total_cpu = 0;
  bool first = true;
  for (const Layer& l : kLayers) {
    if (only != "all" &&
        ("," + only + ",").find(std::string(",") + l.name + ",") == std::string::npos)
      continue;
    const uint64_t OH = OutExtent(l.H, l), OW = OutExtent(l.W, l), P = OH * OW;
    const uint64_t CG = l.C / l.group, K = CG * l.k * l.k;
    // ConvTranspose: the sgemm's column matrix is [M k k, H W].
    const uint64_t col_size = l.transpose ? l.M * l.k * l.k * l.H * l.W : K * P;
    const uint64_t x_image = l.C * l.H * l.W, y_image = l.M * P;
    std::vector<float> x(batch * x_image), w(l.M * K), y_gpu(batch * y_image),
        y_cpu(batch * y_image), col(col_size);
    for (float& v : x) v = u(rng);
    for (float& v : w) v = u(rng);
    auto tx =
        bench::Must(ex.Upload(ac::DType::kF32, {batch, l.C, l.H, l.W}, std::as_bytes(std::span(x))),
                    "upload X");
    auto tw = bench::Must(
        ex.Upload(ac::DType::kF32,
                  l.transpose ? ac::Shape{l.C, l.M, l.k, l.k} : ac::Shape{l.M, CG, l.k, l.k},
                  std::as_bytes(std::span(w))),
        "upload W");
    auto ty = bench::Must(ex.Empty(ac::DType::kF32, {batch, l.M, OH, OW}), "output");
    const int64_t s = int64_t(l.stride), p = int64_t(l.pad);
    ac::Attributes attrs{{"strides", std::vector<int64_t>{s, s}},
                         {"pads", std::vector<int64_t>{p, p, p, p}},
                         {"group", int64_t(l.group)}};
    ac::OpNode node{
        l.transpose ? "ConvTranspose" : "Conv", l.name, 17, attrs, {tx.desc(), tw.desc()}, {}};
    auto program = bench::Must(ex.generator().Generate(node, ex.caps()), "generate");
    auto record = [&](int count) {
      wg::Recorder rec = ctx->BeginCommands("bench conv");
      for (int k = 0; k < count; ++k) {
        auto st = ex.Dispatch(rec, program, {&tx.buffer(), &tw.buffer(), &ty.buffer()});
        if (!st.ok()) bench::Die(st.error().ToString());
      }
      auto st = ex.SubmitChecked(std::move(rec));
      if (!st.ok()) bench::Die(st.error().ToString());
      if (auto wt = ctx->WaitIdle(); !wt.ok()) bench::Die(wt.error().ToString());
    };
    auto t0 = bench::Clock::now();
    record(1);  // compile + warm up
    const double first_s = bench::Seconds(t0, bench::Clock::now());
    t0 = bench::Clock::now();
    record(1);
    const double one = bench::Seconds(t0, bench::Clock::now());
    const int reps = std::max(1, static_cast<int>(min_seconds / std::max(one, 1e-6)));
    t0 = bench::Clock::now();
    record(reps);
    const double gpu_s = bench::Seconds(t0, bench::Clock::now()) / reps;
    auto out = bench::Must(ex.Download(ty), "download");
    std::memcpy(y_gpu.data(), out.data.data(), y_gpu.size() * 4);

    auto peer = [&] {
      for (uint64_t n = 0; n < batch; ++n)
        Im2colConv(l, &x[n * x_image], w, col, &y_cpu[n * y_image]);
    };
    peer();  // warm up
    t0 = bench::Clock::now();
    int cpu_reps = 0;
    do {
      peer();
      ++cpu_reps;
    } while (bench::Seconds(t0, bench::Clock::now()) < min_seconds);
    const double cpu_s = bench::Seconds(t0, bench::Clock::now()) / cpu_reps;

    double max_rel = 0, scale = 0;
    for (float v : y_cpu) scale = std::max(scale, double(std::fabs(v)));
    for (size_t i = 0; i < y_cpu.size(); ++i)
      max_rel = std::max(max_rel, std::fabs(double(y_gpu[i]) - y_cpu[i]) / scale);
    const double gflop =
        batch * (l.transpose ? 2.0 * l.C * l.M * l.k * l.k * l.H * l.W : 2.0 * l.M * P * K) / 1e9;
    total_gpu += gpu_s;
    total_cpu += cpu_s;
    if (json) {
      std::printf(
          "%s{\"layer\": \"%s\", \"gflop\": %.4f, \"first_ms\": %.3f, \"alknet_ms\": %.4f, "
          "\"peer_ms\": %.4f, \"ratio\": %.3f, \"max_rel_err\": %.2e}",
          first ? "" : ", ", l.name, gflop, first_s * 1e3, gpu_s * 1e3, cpu_s * 1e3, gpu_s / cpu_s,
          max_rel);
    } else {
      std::printf("%-22s %10.4f %10.1f %12.3f %12.3f %8.2f %10.2f %12.2e\n", l.name, gflop,
                  first_s * 1e3, gpu_s * 1e3, cpu_s * 1e3, gpu_s / cpu_s, gflop / gpu_s, max_rel);
    }
    first = false;
    if (max_rel > 1e-4) bench::Die(std::string("alknet and the peer disagree on ") + l.name);
  }
  if (json) {
    std::printf("], \"total_alknet_ms\": %.3f, \"total_peer_ms\": %.3f}\n", total_gpu * 1e3,
                total_cpu * 1e3);
  } else {
    std::printf(
        "%-22s %10s %10s %12.3f %12.3f %8.2f   (ratio = alknet time / peer time; < 1: alknet "
        "faster)\n",
        "total", "", "", total_gpu * 1e3, total_cpu * 1e3, total_gpu / total_cpu);
  }
  return 0;
}
