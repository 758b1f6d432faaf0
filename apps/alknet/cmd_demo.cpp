// `alknet demo`: a small GPU compute job with a checked result, on whatever adapter is there.
// (Until the tensor compute issue lands, this is the README's "main job".)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "alknet/base/json.h"
#include "alknet/webgpu/context.h"
#include "command.h"
#include "options.h"

namespace {

namespace wg = alknet::webgpu;

constexpr const char* kHelp =
    "Usage: alknet demo [--elements N] [--json]\n\n"
    "Runs a WebGPU compute kernel (a damped oscillator evaluated at N points) and checks every\n"
    "result against a float64 CPU reference. Exit code 1 if any element is off.\n";

// x(t) = exp(-0.1 t) * cos(2 t) + 0.5 * sin(t), per element.
constexpr const char* kKernel = R"(
@group(0) @binding(0) var<storage, read> t: array<f32>;
@group(0) @binding(1) var<storage, read_write> x: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) n: vec3u) {
  let i = gid.x + gid.y * n.x * 256u;
  if (i >= arrayLength(&x)) { return; }
  let ti = t[i];
  x[i] = exp(-0.1 * ti) * cos(2.0 * ti) + 0.5 * sin(ti);
}
)";

int RunDemo(std::span<const std::string_view> args) {
  uint64_t n = 1000003;
  bool json = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-h" || args[i] == "--help") {
      std::fputs(kHelp, stdout);
      return alknet::cli::kExitOk;
    } else if (args[i] == "--json") {
      json = true;
    } else if (args[i] == "--elements" && i + 1 < args.size()) {
      auto v = alknet::cli::ParseUnsignedOption("--elements", args[++i], 1);
      if (!v) {
        std::fprintf(stderr, "alknet demo: %s\n", v.error().message.c_str());
        return alknet::cli::kExitUsage;
      }
      n = *v;
    } else {
      std::fprintf(stderr, "alknet demo: unknown option '%s'\n\n%s", std::string(args[i]).c_str(),
                   kHelp);
      return alknet::cli::kExitUsage;
    }
  }
  auto fail = [](const wg::Error& e) {
    std::fprintf(stderr, "alknet demo: %s\n", e.ToString().c_str());
    return e.code == wg::ErrorCode::kLibraryNotFound || e.code == wg::ErrorCode::kSymbolMissing ||
                   e.code == wg::ErrorCode::kNoAdapter
               ? alknet::cli::kExitEnvironment
               : alknet::cli::kExitFailure;
  };
  const auto t0 = std::chrono::steady_clock::now();
  auto ctx = wg::Context::Create();
  if (!ctx) return fail(ctx.error());
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(0.0f, 20.0f);
  std::vector<float> t(n), x(n, std::nanf(""));
  for (auto& v : t) v = dist(rng);

  auto tb = (*ctx)->CreateBuffer(n * 4, wg::kStorageUsage, "t");
  if (!tb) return fail(tb.error());
  auto xb = (*ctx)->CreateBuffer(n * 4, wg::kStorageUsage, "x");
  if (!xb) return fail(xb.error());
  if (auto s = (*ctx)->Write(*tb, 0, std::as_bytes(std::span(t))); !s) return fail(s.error());
  auto kernel =
      (*ctx)->GetKernel({.wgsl = kKernel,
                         .bindings = {wg::BindingType::kReadOnlyStorage, wg::BindingType::kStorage},
                         .label = "oscillator"});
  if (!kernel) return fail(kernel.error());
  auto grid = (*ctx)->GridFor(n, 256);
  if (!grid) return fail(grid.error());
  wg::Recorder rec = (*ctx)->BeginCommands();
  const wg::BufferBinding bindings[] = {{&*tb}, {&*xb}};
  if (auto s = rec.Dispatch(**kernel, bindings, *grid); !s) return fail(s.error());
  if (auto s = (*ctx)->Submit(std::move(rec)); !s) return fail(s.error());
  if (auto s = (*ctx)->Read(*xb, 0, std::as_writable_bytes(std::span(x))); !s)
    return fail(s.error());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  double max_err = 0;
  uint64_t bad = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const double ti = t[i];
    const double ref = std::exp(-0.1 * ti) * std::cos(2.0 * ti) + 0.5 * std::sin(ti);
    const double err = std::fabs(double(x[i]) - ref);
    if (!(err <= 1e-4)) ++bad;  // NaN counts as bad
    if (err > max_err || std::isnan(err)) max_err = std::isnan(err) ? INFINITY : err;
  }
  if (json) {
    // maxAbsError is infinite when a result is NaN; JSON has no infinity, so it is null.
    const alknet::base::json::Value doc =
        alknet::base::json::Object{{"adapter", (*ctx)->adapter().Summary()},
                                   {"elements", n},
                                   {"maxAbsError", max_err},
                                   {"mismatches", bad},
                                   {"seconds", seconds},
                                   {"ok", bad == 0}};
    std::printf("%s\n", alknet::base::json::Write(doc).c_str());
  } else {
    std::printf("demo: x(t) = exp(-0.1t)cos(2t) + 0.5sin(t) at %llu points on %s\n",
                static_cast<unsigned long long>(n), (*ctx)->adapter().Summary().c_str());
    std::printf("  max |gpu - float64 cpu| = %.3g over %llu elements, %llu above 1e-4\n", max_err,
                static_cast<unsigned long long>(n), static_cast<unsigned long long>(bad));
    std::printf("  %s in %.1f ms (device setup, upload, compile, dispatch, readback)\n",
                bad == 0 ? "OK" : "FAILED", seconds * 1e3);
  }
  return bad == 0 ? alknet::cli::kExitOk : alknet::cli::kExitFailure;
}

const alknet::cli::Registration kRegistration{
    {"demo", "Run a small checked GPU compute job", &RunDemo}};

}  // namespace
