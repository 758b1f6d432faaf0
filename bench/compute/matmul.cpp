// MatMul f32 GFLOP/s: alknet's WGSL kernels against OpenBLAS sgemm on the host's cores, in the
// same run, on the same random matrices; the results are compared too. Then small-M Gemms
// (a GEMV with bias, as in a batch-1 MLP) against sgemm/sgemv, per call.
//
//   bench_matmul [--sizes 256,1024,2048] [--gemm 1x2400x32,...] [--min-seconds 1] [--json]
//
// ALKNET_MATMUL_VARIANT=rows|dot|gemv[:CW]|tiled|big|tile:BMxBNxBK:TMxTN[:splitS] forces a kernel
// or a tiling, split along K into S slices with :splitS (docs/adr/0005-matmul-kernels.md;
// tools/h200-gemm-sweep sweeps the tilings on the H200, tools/h200-splitk the splits). A split
// runs as the executor runs it: the two programs of the record's specialization.
// On the H200 (docs/gpu.md): --sizes 256,1024,2048,4096. cuBLAS is measured separately there
// (torch, TF32 off); this program prints alknet's figure and OpenBLAS on that host's CPU.
#include <cblas.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "alknet/compute/executor.h"
#include "alknet/compute/op_table.h"
#include "alknet/compute/wgsl_generator.h"
#include "bench_util.h"

namespace ac = alknet::compute;
namespace wg = alknet::webgpu;

namespace {

// "a,b,c" -> {"a", "b", "c"}; empty input -> {}.
std::vector<std::string_view> Split(std::string_view s, char sep = ',') {
  std::vector<std::string_view> out;
  while (!s.empty()) {
    const size_t at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) break;
    s.remove_prefix(at + 1);
  }
  return out;
}

// "1x2400x32" -> {1, 2400, 32}.
std::vector<uint64_t> ParseDims(std::string_view s) {
  std::vector<uint64_t> out;
  for (std::string_view d : Split(s, 'x'))
    out.push_back(std::strtoull(std::string(d).c_str(), nullptr, 10));
  return out;
}

// The programs one node runs as, in order, with their buffers: the record's own kernel, or the
// nodes of its device specialization (MatMul/Gemm split-K: alknet.MatMulPartial into a scratch
// tensor, then alknet.MatMulSplitKSum into `out`), as the executor would record them.
struct Plan {
  struct Step {
    ac::ShaderProgram program;
    std::vector<const wg::Buffer*> bindings;  // program.bindings less the parameter block
  };
  std::vector<Step> steps;
  std::vector<ac::Tensor> scratch;

  // "Op (kernel: ...) + ...": each program's op and the kernel line its source names.
  std::string Describe() const {
    std::string d;
    for (const Step& s : steps) {
      const size_t at = s.program.source.find("// kernel: ");
      const std::string kernel =
          at == std::string::npos
              ? std::string()
              : " (" + s.program.source.substr(at + 3, s.program.source.find('\n', at) - at - 3) +
                    ")";
      d += (d.empty() ? "" : " + ") + s.program.label.substr(0, s.program.label.find(':')) + kernel;
    }
    return d;
  }

  void Record(ac::Executor& ex, wg::Recorder& rec) const {
    for (const Step& s : steps) {
      auto st = ex.Dispatch(rec, s.program, s.bindings);
      if (!st.ok()) bench::Die(st.error().ToString());
    }
  }
};

Plan PlanNode(ac::Executor& ex, const ac::OpNode& node, const std::vector<ac::Tensor>& inputs,
              const ac::Tensor& out) {
  const ac::OpTable& table = ac::OpTable::Default();
  const ac::OpRecord* record = table.Find(node.op_type, node.opset);
  std::optional<ac::Graph> special;
  if (record != nullptr && record->specialize) {
    ac::OpNode n = node;
    n.outputs = bench::Must(table.Infer(n), "infer");
    const ac::Attributes at = bench::Must(table.ResolveAttributes(*record, n), "attributes");
    special = record->specialize(n, at, ex.caps());
  }
  Plan plan;
  if (!special) {
    std::vector<const wg::Buffer*> b;
    for (const ac::Tensor& t : inputs) b.push_back(&t.buffer());
    b.push_back(&out.buffer());
    plan.steps.push_back({bench::Must(ex.generator().Generate(node, ex.caps()), "generate"), b});
    return plan;
  }
  // Values of the specialization's graph: its inputs, then each node's outputs.
  std::vector<const ac::Tensor*> values(special->num_values, nullptr);
  for (size_t i = 0; i < inputs.size(); ++i) values[i] = &inputs[i];
  plan.scratch.reserve(special->nodes.size());  // `values` points into it
  for (const ac::Graph::Node& gn : special->nodes) {
    ac::OpNode n{gn.op, node.name, gn.opset, gn.attributes, {}, {}};
    for (int v : gn.inputs) n.inputs.push_back(values[v]->desc());
    ac::ShaderProgram program = bench::Must(ex.generator().Generate(n, ex.caps()), gn.op.c_str());
    if (gn.output_count != 1) bench::Die(gn.op + ": one output expected");
    if (gn.first_output == special->outputs[0]) {
      values[gn.first_output] = &out;
    } else {
      plan.scratch.push_back(
          bench::Must(ex.Empty(program.outputs[0].dtype, program.outputs[0].shape), "scratch"));
      values[gn.first_output] = &plan.scratch.back();
    }
    std::vector<const wg::Buffer*> b;
    for (const ac::ProgramBinding& pb : program.bindings) {
      if (pb.role == ac::ProgramBinding::Role::kInput)
        b.push_back(&values[gn.inputs[pb.index]]->buffer());
      if (pb.role == ac::ProgramBinding::Role::kOutput)
        b.push_back(&values[gn.first_output + pb.index]->buffer());
    }
    plan.steps.push_back({std::move(program), std::move(b)});
  }
  return plan;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<uint64_t> sizes = {256, 1024, 2048};
  double min_seconds = 1.0;
  bool json = false;
  std::string gemms = "1x2400x32,4x1024x1024";
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--sizes" && i + 1 < argc)
      sizes = bench::ParseList(argv[++i]);
    else if (a == "--min-seconds" && i + 1 < argc)
      min_seconds = std::atof(argv[++i]);
    else if (a == "--json")
      json = true;
    else if (a == "--gemm" && i + 1 < argc)
      gemms = argv[++i];
    else {
      std::fprintf(
          stderr,
          "usage: bench_matmul [--sizes 256,1024,2048] [--gemm MxKxN,...] [--min-seconds S] "
          "[--json]\n");
      return 2;
    }
  }
  auto ctx = bench::Must(wg::Context::Create(), "WebGPU context");
  ac::Executor ex(*ctx);
  if (!json) {
    std::printf("adapter: %s; OpenBLAS %s, %d threads\n", ctx->adapter().Summary().c_str(),
                openblas_get_config(), openblas_get_num_threads());
    std::printf("matmul variant: %s\n", ex.caps().matmul_variant.c_str());
    std::printf("%6s %14s %14s %8s %12s\n", "n", "alknet GFLOP/s", "sgemm GFLOP/s", "ratio",
                "max rel err");
  } else {
    std::printf("{\"adapter\": \"%s\", \"results\": [", ctx->adapter().Summary().c_str());
  }
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-1, 1);
  bool first = true;
  for (uint64_t n : sizes) {
    std::vector<float> a(n * n), b(n * n), c_gpu(n * n), c_cpu(n * n);
    for (float& v : a) v = u(rng);
    for (float& v : b) v = u(rng);
    auto ta =
        bench::Must(ex.Upload(ac::DType::kF32, {n, n}, std::as_bytes(std::span(a))), "upload A");
    auto tb =
        bench::Must(ex.Upload(ac::DType::kF32, {n, n}, std::as_bytes(std::span(b))), "upload B");
    auto tc = bench::Must(ex.Empty(ac::DType::kF32, {n, n}), "output");
    ac::OpNode node{"MatMul", "bench", 13, {}, {ta.desc(), tb.desc()}, {}};
    const Plan plan = PlanNode(ex, node, {ta, tb}, tc);
    if (!json && plan.steps.size() > 1)
      std::printf("  n = %llu runs as %s\n", (unsigned long long)n, plan.Describe().c_str());
    auto record = [&](int count) {
      wg::Recorder rec = ctx->BeginCommands("bench matmul");
      for (int k = 0; k < count; ++k) plan.Record(ex, rec);
      auto st = ex.SubmitChecked(std::move(rec));
      if (!st.ok()) bench::Die(st.error().ToString());
      if (auto w = ctx->WaitIdle(); !w.ok()) bench::Die(w.error().ToString());
    };
    record(1);  // compile + warm up
    // Calibrate: one timed dispatch, then enough to fill min_seconds in one command buffer.
    auto t0 = bench::Clock::now();
    record(1);
    const double one = bench::Seconds(t0, bench::Clock::now());
    const int reps = std::max(1, static_cast<int>(min_seconds / std::max(one, 1e-6)));
    t0 = bench::Clock::now();
    record(reps);
    const double gpu_s = bench::Seconds(t0, bench::Clock::now()) / reps;
    auto out = bench::Must(ex.Download(tc), "download");
    std::memcpy(c_gpu.data(), out.data.data(), n * n * 4);

    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n,
                0.0f, c_cpu.data(), n);  // warm up
    t0 = bench::Clock::now();
    int cpu_reps = 0;
    do {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(),
                  n, 0.0f, c_cpu.data(), n);
      ++cpu_reps;
    } while (bench::Seconds(t0, bench::Clock::now()) < min_seconds);
    const double cpu_s = bench::Seconds(t0, bench::Clock::now()) / cpu_reps;

    double max_rel = 0, scale = 0;
    for (float v : c_cpu) scale = std::max(scale, double(std::fabs(v)));
    for (size_t i = 0; i < c_cpu.size(); ++i)
      max_rel = std::max(max_rel, std::fabs(double(c_gpu[i]) - c_cpu[i]) / scale);
    const double flop = 2.0 * n * n * n;
    const double g = flop / gpu_s / 1e9, c = flop / cpu_s / 1e9;
    if (json) {
      std::printf(
          "%s{\"n\": %llu, \"alknet_gflops\": %.2f, \"sgemm_gflops\": %.2f, \"ratio\": %.3f, "
          "\"max_rel_err\": %.2e}",
          first ? "" : ", ", (unsigned long long)n, g, c, g / c, max_rel);
    } else {
      std::printf("%6llu %14.2f %14.2f %8.3f %12.2e\n", (unsigned long long)n, g, c, g / c,
                  max_rel);
    }
    first = false;
    if (max_rel > 1e-4) bench::Die("alknet and OpenBLAS disagree at n = " + std::to_string(n));
  }
  if (json) std::printf("], \"gemm\": [");
  if (!json && !gemms.empty()) {
    std::printf(
        "\nGemm with bias, Y = A B^T + c (transB=1) and A B + c (transB=0), time per call:\n");
    std::printf("%18s %7s %12s %12s %8s %12s\n", "M x K x N", "transB", "alknet ms", "sgemm ms",
                "ratio", "max rel err");
  }
  first = true;
  for (std::string_view spec : Split(gemms)) {
    const auto dims = ParseDims(spec);
    if (dims.size() != 3) bench::Die("--gemm takes MxKxN, got " + std::string(spec));
    const uint64_t M = dims[0], K = dims[1], N = dims[2];
    for (int64_t trans_b : {int64_t{1}, int64_t{0}}) {
      std::vector<float> a(M * K), b(K * N), bias(N), c_gpu(M * N), c_cpu(M * N);
      for (float& v : a) v = u(rng);
      for (float& v : b) v = u(rng);
      for (float& v : bias) v = u(rng);
      const ac::Shape b_shape = trans_b ? ac::Shape{N, K} : ac::Shape{K, N};
      auto ta = bench::Must(ex.Upload(ac::DType::kF32, {M, K}, std::as_bytes(std::span(a))), "A");
      auto tb = bench::Must(ex.Upload(ac::DType::kF32, b_shape, std::as_bytes(std::span(b))), "B");
      auto tcb = bench::Must(ex.Upload(ac::DType::kF32, {N}, std::as_bytes(std::span(bias))), "C");
      auto ty = bench::Must(ex.Empty(ac::DType::kF32, {M, N}), "output");
      ac::OpNode node{
          "Gemm", "bench", 13, {{"transB", trans_b}}, {ta.desc(), tb.desc(), tcb.desc()}, {}};
      const Plan plan = PlanNode(ex, node, {ta, tb, tcb}, ty);
      if (!json && plan.steps.size() > 1) {
        std::printf("  %s transB=%d runs as %s\n", std::string(spec).c_str(), int(trans_b),
                    plan.Describe().c_str());
      }
      auto record = [&](int count) {
        wg::Recorder rec = ctx->BeginCommands("bench gemm");
        for (int k = 0; k < count; ++k) plan.Record(ex, rec);
        auto st = ex.SubmitChecked(std::move(rec));
        if (!st.ok()) bench::Die(st.error().ToString());
        if (auto w = ctx->WaitIdle(); !w.ok()) bench::Die(w.error().ToString());
      };
      record(1);
      auto t0 = bench::Clock::now();
      record(1);
      const double one = bench::Seconds(t0, bench::Clock::now());
      const int reps = std::max(1, static_cast<int>(min_seconds / std::max(one, 1e-6)));
      t0 = bench::Clock::now();
      record(reps);
      const double gpu_s = bench::Seconds(t0, bench::Clock::now()) / reps;
      auto out = bench::Must(ex.Download(ty), "download");
      std::memcpy(c_gpu.data(), out.data.data(), M * N * 4);

      auto cpu = [&] {
        for (uint64_t m = 0; m < M; ++m) std::memcpy(&c_cpu[m * N], bias.data(), N * 4);
        cblas_sgemm(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, M, N, K, 1.0f,
                    a.data(), K, b.data(), trans_b ? K : N, 1.0f, c_cpu.data(), N);
      };
      cpu();
      t0 = bench::Clock::now();
      int cpu_reps = 0;
      do {
        cpu();
        ++cpu_reps;
      } while (bench::Seconds(t0, bench::Clock::now()) < min_seconds);
      const double cpu_s = bench::Seconds(t0, bench::Clock::now()) / cpu_reps;
      double max_rel = 0, scale = 0;
      for (float v : c_cpu) scale = std::max(scale, double(std::fabs(v)));
      for (size_t i = 0; i < c_cpu.size(); ++i)
        max_rel = std::max(max_rel, std::fabs(double(c_gpu[i]) - c_cpu[i]) / scale);
      if (json) {
        std::printf(
            "%s{\"m\": %llu, \"k\": %llu, \"n\": %llu, \"trans_b\": %d, \"alknet_ms\": %.4f, "
            "\"sgemm_ms\": %.4f, \"max_rel_err\": %.2e}",
            first ? "" : ", ", (unsigned long long)M, (unsigned long long)K, (unsigned long long)N,
            int(trans_b), gpu_s * 1e3, cpu_s * 1e3, max_rel);
      } else {
        std::printf("%18s %7d %12.4f %12.4f %8.3f %12.2e\n", std::string(spec).c_str(),
                    int(trans_b), gpu_s * 1e3, cpu_s * 1e3, cpu_s / gpu_s, max_rel);
      }
      first = false;
      if (max_rel > 1e-4) bench::Die("alknet and OpenBLAS disagree on Gemm " + std::string(spec));
    }
  }
  if (json) std::printf("]}\n");
  return 0;
}
