// `alknet warmup`: compiles the standard kernel set once, so that the driver's on-disk shader
// cache (Mesa's, on lavapipe) holds it and a model never seen before finds its pipelines
// there (docs/adr/0011-bounded-programs.md, docs/cli.md).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "alknet/base/json.h"
#include "alknet/compute/executor.h"
#include "alknet/webgpu/context.h"
#include "command.h"

namespace alknet::cli {
namespace {

namespace cp = alknet::compute;
namespace wg = alknet::webgpu;
namespace json = alknet::base::json;

constexpr const char* kHelp =
    "Usage: alknet warmup [--json] [--quiet]\n\n"
    "Compiles alknet's standard kernel set on this machine's adapter, so that the driver's\n"
    "on-disk shader cache holds it: a model run later, even one never seen before, finds its\n"
    "Conv, ConvTranspose, MatMul/Gemm, elementwise, pool and Resize pipelines there instead of\n"
    "compiling them (on a CPU adapter such as lavapipe each takes 0.1-1.5 s of LLVM). The set\n"
    "is shape-independent on CPU adapters, where those kernels read their shapes from a\n"
    "parameter block; kernels that are still specialised per shape (Softmax, reductions,\n"
    "Transpose/Concat copies, ...) are compiled on first use. Cheap to re-run: every pipeline\n"
    "is then a cache hit. On a GPU adapter pipelines are per shape and compile in\n"
    "milliseconds, so there is nothing to warm; the command says so and exits 0.\n\n"
    "Mesa keeps its cache in $MESA_SHADER_CACHE_DIR, else $XDG_CACHE_HOME/mesa_shader_cache,\n"
    "else ~/.cache/mesa_shader_cache.\n\n"
    "  --json    one JSON document: adapter, kernels (nodes run), pipelines (compiled by this\n"
    "            process), ms, cpu_adapter, failed [{kernel, error}]\n"
    "  --quiet   no progress bar\n\n"
    "Exit codes: 0 ok, 1 a kernel failed to compile or run, 2 usage, 3 no device.\n";

using Ints = std::vector<int64_t>;

// One node of the standard set: op, input shapes (all f32), attributes, opset.
struct Kernel {
  std::string label;
  std::string op;
  std::vector<cp::Shape> inputs;
  cp::Attributes attrs;
  int opset = 17;
};

// The standard set: one node per kernel kind alknet's CPU kernels distinguish. Shapes are
// small; what selects the pipeline is the kind (Conv: general / 1x1 / depthwise, activation,
// bias; elementwise: op, vec4 or scalar, broadcast pattern; pool kind; Resize taps).
std::vector<Kernel> StandardSet() {
  std::vector<Kernel> k;
  const char* acts[] = {"", "Relu", "Clip:0:6", "HardSwish", "Sigmoid", "LeakyRelu:0.1"};
  for (const char* act : acts) {
    const std::string a = act;
    const cp::Attributes fused{{"alknet.activation", a}};
    for (bool bias : {true, false}) {
      auto with = [&](std::vector<cp::Shape> in, const cp::Shape& b) {
        if (bias) in.push_back(b);
        return in;
      };
      const std::string tag = (a.empty() ? "none" : a) + (bias ? " +bias" : "");
      cp::Attributes pad1 = fused;
      pad1["pads"] = Ints{1, 1, 1, 1};
      k.push_back({"Conv 3x3 " + tag, "Conv", with({{1, 8, 10, 10}, {8, 8, 3, 3}}, {8}), pad1});
      k.push_back({"Conv 1x1 " + tag, "Conv", with({{1, 8, 10, 10}, {16, 8, 1, 1}}, {16}), fused});
      cp::Attributes dw = pad1;
      dw["group"] = int64_t{8};
      k.push_back({"Conv depthwise " + tag, "Conv", with({{1, 8, 10, 10}, {8, 1, 3, 3}}, {8}), dw});
      if (a.empty() || a == "Relu") {
        cp::Attributes up = fused;
        up["strides"] = Ints{2, 2};
        k.push_back({"ConvTranspose 2x2/2 " + tag, "ConvTranspose",
                     with({{1, 8, 5, 5}, {8, 8, 2, 2}}, {8}), up});
      }
    }
  }
  // MatMul / Gemm: the rows, dot, gemv and tiled kernels (sizes are uniforms everywhere; gemv
  // has one program per column-group width, picked from N: 1 for N <= 32, 4 up to 128).
  k.push_back({"MatMul 1x64x32", "MatMul", {{1, 64}, {64, 32}}, {}});
  k.push_back({"MatMul 64x64x64", "MatMul", {{64, 64}, {64, 64}}, {}});
  k.push_back({"MatMul batched", "MatMul", {{2, 8, 16}, {16, 8}}, {}});
  k.push_back({"Gemm transB +bias", "Gemm", {{4, 32}, {16, 32}, {16}}, {{"transB", int64_t{1}}}});
  k.push_back(
      {"Gemm 1xK transB +bias", "Gemm", {{1, 96}, {24, 96}, {24}}, {{"transB", int64_t{1}}}});
  k.push_back(
      {"Gemm 1x128 transB +bias", "Gemm", {{1, 96}, {128, 96}, {128}}, {{"transB", int64_t{1}}}});
  // Elementwise: unary at vec4 (n % 4 == 0) and scalar lengths; binary at the common
  // broadcast patterns of CNNs and transformers.
  for (const char* op : {"Relu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Exp", "Sqrt",
                         "Erf", "LeakyRelu", "Neg", "Reciprocal", "Abs"}) {
    k.push_back({std::string(op) + " vec4", op, {{1, 8, 4, 4}}, {}});
    k.push_back({std::string(op) + " scalar", op, {{1, 3, 5, 5}}, {}});
  }
  k.push_back({"Clip 0..6 vec4", "Clip", {{1, 8, 4, 4}}, {{"min", 0.0}, {"max", 6.0}}, 6});
  for (const char* op : {"Add", "Mul", "Sub", "Div"}) {
    const std::string o = op;
    k.push_back({o + " same shape vec4", o, {{1, 8, 4, 4}, {1, 8, 4, 4}}, {}});
    k.push_back({o + " same shape scalar", o, {{1, 3, 5, 5}, {1, 3, 5, 5}}, {}});
    k.push_back({o + " per channel", o, {{1, 8, 5, 5}, {1, 8, 1, 1}}, {}});
    k.push_back({o + " scalar operand", o, {{1, 8, 5, 5}, {}}, {}});
    k.push_back({o + " last axis", o, {{2, 5, 7}, {7}}, {}});
  }
  // Pools.
  k.push_back({"MaxPool 3x3/2",
               "MaxPool",
               {{1, 8, 9, 9}},
               {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}},
               12});
  k.push_back({"AveragePool 3x3",
               "AveragePool",
               {{1, 8, 9, 9}},
               {{"kernel_shape", Ints{3, 3}}, {"pads", Ints{1, 1, 1, 1}}},
               11});
  k.push_back({"AveragePool 3x3 count_include_pad",
               "AveragePool",
               {{1, 8, 9, 9}},
               {{"kernel_shape", Ints{3, 3}},
                {"pads", Ints{1, 1, 1, 1}},
                {"count_include_pad", int64_t{1}}},
               11});
  k.push_back({"GlobalAveragePool", "GlobalAveragePool", {{1, 8, 5, 5}}, {}});
  k.push_back({"GlobalMaxPool", "GlobalMaxPool", {{1, 8, 5, 5}}, {}});
  // Resize (through Upsample's attribute form: the same tap kernel as Resize).
  for (const char* mode : {"nearest", "linear"}) {
    k.push_back({std::string("Resize 4-D ") + mode,
                 "Upsample",
                 {{1, 4, 3, 5}},
                 {{"scales", std::vector<double>{1, 1, 2, 2}}, {"mode", std::string(mode)}},
                 7});
  }
  return k;
}

int RunWarmup(std::span<const std::string_view> args) {
  bool as_json = false, quiet = false;
  for (std::string_view a : args) {
    if (a == "-h" || a == "--help") {
      std::fputs(kHelp, stdout);
      return kExitOk;
    } else if (a == "--json") {
      as_json = true;
    } else if (a == "--quiet") {
      quiet = true;
    } else {
      std::fprintf(stderr, "alknet warmup: unknown option '%s'\n\n%s", std::string(a).c_str(),
                   kHelp);
      return kExitUsage;
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto created = wg::Context::Create();
  if (!created.ok()) {
    std::fprintf(stderr, "alknet warmup: %s\n", created.error().ToString().c_str());
    const auto code = created.error().code;
    return code == wg::ErrorCode::kLibraryNotFound || code == wg::ErrorCode::kSymbolMissing ||
                   code == wg::ErrorCode::kNoAdapter
               ? kExitEnvironment
               : kExitFailure;
  }
  wg::Context& ctx = **created;
  const bool cpu = ctx.adapter().type == WGPUAdapterType_CPU;
  std::vector<Kernel> set = cpu ? StandardSet() : std::vector<Kernel>{};
  cp::Executor ex(ctx);
  const size_t before = ctx.cached_kernel_count();
  const bool tty = !quiet && !as_json && ::isatty(2);
  json::Array failed;
  for (size_t i = 0; i < set.size(); ++i) {
    const Kernel& k = set[i];
    if (tty) {
      const int width = 30, filled = static_cast<int>(width * i / set.size());
      std::fprintf(stderr, "\r[%s%s] %zu/%zu  %-40.40s", std::string(filled, '#').c_str(),
                   std::string(width - filled, '.').c_str(), i + 1, set.size(), k.label.c_str());
      std::fflush(stderr);
    }
    std::vector<cp::Tensor> inputs;
    std::string error;
    for (const cp::Shape& s : k.inputs) {
      uint64_t n = 1;
      for (uint64_t d : s) n *= d;
      // Values in [0.5, 1.5): valid for every op of the set (Sqrt, Reciprocal, Div).
      std::vector<float> host(n);
      for (uint64_t e = 0; e < n; ++e) host[e] = 0.5f + static_cast<float>(e % 7) / 7.0f;
      auto t = ex.Upload(cp::DType::kF32, s, std::as_bytes(std::span<const float>(host)));
      if (!t.ok()) {
        error = t.error().ToString();
        break;
      }
      inputs.push_back(*t);
    }
    if (error.empty()) {
      auto out = ex.Run(k.op, inputs, k.attrs, k.opset);
      if (!out.ok()) error = out.error().ToString();
    }
    if (!error.empty()) failed.emplace_back(json::Object{{"kernel", k.label}, {"error", error}});
  }
  if (tty) std::fprintf(stderr, "\r%*s\r", 80, "");
  if (auto idle = ctx.WaitIdle(); !idle.ok() && failed.empty()) {
    failed.emplace_back(json::Object{{"kernel", "(device)"}, {"error", idle.error().ToString()}});
  }
  const size_t compiled = ctx.cached_kernel_count() - before;
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const bool ok = failed.empty();
  if (as_json) {
    json::Object doc{{"adapter", ctx.adapter().Summary()},
                     {"cpu_adapter", cpu},
                     {"kernels", static_cast<uint64_t>(set.size())},
                     {"pipelines", static_cast<uint64_t>(compiled)},
                     {"ms", ms},
                     {"failed", std::move(failed)}};
    std::printf("%s\n", json::Write(doc, {.indent = 1}).c_str());
  } else if (!cpu) {
    std::printf(
        "warmup: %s is a GPU adapter; its pipelines are specialised per shape and "
        "compile in milliseconds, nothing to warm\n",
        ctx.adapter().Summary().c_str());
  } else {
    for (const auto& f : failed) {
      const auto& o = f.as_object();
      std::fprintf(stderr, "alknet warmup: %s: %s\n", o.find("kernel")->as_string().c_str(),
                   o.find("error")->as_string().c_str());
    }
    std::printf("warmup: %zu kernels, %zu pipelines compiled in %.0f ms on %s%s\n", set.size(),
                compiled, ms, ctx.adapter().Summary().c_str(),
                ok ? "" : " (some kernels failed, above)");
  }
  return ok ? kExitOk : kExitFailure;
}

const Registration kRegistration{
    {"warmup", "Compile the standard kernel set into the driver's shader cache", &RunWarmup}};

}  // namespace
}  // namespace alknet::cli
