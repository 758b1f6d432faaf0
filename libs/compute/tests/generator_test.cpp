// WgslGenerator and the op table: golden WGSL per (op, variant), template patterns, and the
// errors an unsupported node gets (before any shader text exists).
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "alknet/compute/sha256.h"
#include "alknet/compute/wgsl_generator.h"
#include "test_util.h"

namespace alknet::compute {
namespace {

namespace fs = std::filesystem;

TensorDesc T(DType d, Shape s) { return TensorDesc{d, std::move(s)}; }

DeviceCaps GoldenCaps() {
  DeviceCaps c;  // fixed, so golden text does not depend on the machine
  c.shader_f16 = true;
  return c;
}

DeviceCaps CpuCaps() {
  DeviceCaps c = GoldenCaps();
  c.items_per_invocation = 8;
  c.shared_memory_tiles = false;
  return c;
}

DeviceCaps VariantCaps(const std::string& variant) {
  DeviceCaps c = GoldenCaps();
  c.matmul_variant = variant;
  return c;
}

DeviceCaps ConvVariantCaps(const std::string& variant) {
  DeviceCaps c = GoldenCaps();
  c.conv_variant = variant;
  return c;
}

struct Golden {
  std::string name;
  OpNode node;
  DeviceCaps caps = GoldenCaps();
};

// Each variant exercises a distinct template path; the rendered text is checked in under
// tests/golden/<name>.wgsl. Regenerate after an intended change with
//   ALKNET_UPDATE_GOLDEN=1 build/default/libs/compute/tests/compute_generator_tests
// and review the diff.
std::vector<Golden> GoldenNodes() {
  const DType f32 = DType::kF32;
  TensorDesc view = T(f32, {7, 5});
  view.strides = {1, 7};  // a transposed [5, 7]
  TensorDesc absent;
  absent.absent = true;
  return {
      {"abs_f32_scalar_path", {"Abs", "", 13, {}, {T(f32, {1031})}, {}}},
      {"abs_f32_vec4_path", {"Abs", "", 13, {}, {T(f32, {4096})}, {}}},
      {"abs_f32_cpu_8_per_invocation", {"Abs", "", 13, {}, {T(f32, {4096})}, {}}, CpuCaps()},
      {"erf_f32", {"Erf", "", 13, {}, {T(f32, {100})}, {}}},
      {"not_bool", {"Not", "", 13, {}, {T(DType::kBool, {9})}, {}}},
      {"add_f32_broadcast", {"Add", "", 14, {}, {T(f32, {3, 1, 7}), T(f32, {5, 1})}, {}}},
      {"add_i32_scalar_broadcast",
       {"Add", "", 14, {}, {T(DType::kI32, {}), T(DType::kI32, {6, 5})}, {}}},
      {"relu_f16", {"Relu", "", 14, {}, {T(DType::kF16, {64})}, {}}},
      {"leakyrelu_alpha", {"LeakyRelu", "", 16, {{"alpha", 0.25}}, {T(f32, {10})}, {}}},
      // CPU adapters: extents, strides and float attributes from the parameter block.
      {"add_f32_broadcast_param_block",
       {"Add", "", 14, {}, {T(f32, {3, 1, 7}), T(f32, {5, 1})}, {}},
       CpuCaps()},
      {"leakyrelu_alpha_param_block",
       {"LeakyRelu", "", 16, {{"alpha", 0.25}}, {T(f32, {10})}, {}},
       CpuCaps()},
      {"maxpool_3x3_pads",
       {"MaxPool",
        "",
        12,
        {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}},
        {T(f32, {1, 4, 9, 11})},
        {}}},
      {"maxpool_3x3_pads_param_block",
       {"MaxPool",
        "",
        12,
        {{"kernel_shape", std::vector<int64_t>{3, 3}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}},
        {T(f32, {1, 4, 9, 11})},
        {}},
       CpuCaps()},
      {"gelu_erf", {"Gelu", "", 20, {}, {T(f32, {10})}, {}}},
      {"gelu_tanh", {"Gelu", "", 20, {{"approximate", std::string("tanh")}}, {T(f32, {10})}, {}}},
      {"pow_f32", {"Pow", "", 15, {}, {T(f32, {10}), T(f32, {10})}, {}}},
      {"mod_i32_fmod0", {"Mod", "", 13, {}, {T(DType::kI32, {10}), T(DType::kI32, {10})}, {}}},
      {"max_variadic3",
       {"Max", "", 13, {}, {T(f32, {3, 5, 7}), T(f32, {5, 7}), T(f32, {1, 7})}, {}}},
      {"less_f32", {"Less", "", 13, {}, {T(f32, {8}), T(f32, {8})}, {}}},
      {"where_broadcast",
       {"Where", "", 16, {}, {T(DType::kBool, {4, 1}), T(f32, {4, 6}), T(f32, {6})}, {}}},
      {"clip6_min_only", {"Clip", "", 6, {{"min", -1.0}}, {T(f32, {10})}, {}}},
      {"clip13_bounds", {"Clip", "", 13, {}, {T(f32, {10}), T(f32, {}), T(f32, {})}, {}}},
      {"clip13_max_only",
       {"Clip", "", 13, {}, {T(DType::kI32, {10}), absent, T(DType::kI32, {})}, {}}},
      {"pow_i32_base_f32_exponent", {"Pow", "", 15, {}, {T(DType::kI32, {8}), T(f32, {8})}, {}}},
      {"nll_weighted_mean",
       {"NegativeLogLikelihoodLoss",
        "",
        13,
        {},
        {T(f32, {3, 5, 2}), T(DType::kI32, {3, 2}), T(f32, {5})},
        {}}},
      {"trilu_lower", {"Trilu", "", 14, {{"upper", int64_t{0}}}, {T(DType::kI32, {2, 3, 4})}, {}}},
      {"cast_f32_to_bool", {"Cast", "", 13, {{"to", int64_t{9}}}, {T(f32, {10})}, {}}},
      {"identity_transposed_view", {"Identity", "", 13, {}, {view}, {}}},
      {"matmul_vec4", {"MatMul", "", 13, {}, {T(f32, {64, 64}), T(f32, {64, 64})}, {}}},
      {"matmul_batched_odd", {"MatMul", "", 13, {}, {T(f32, {3, 65, 33}), T(f32, {33, 67})}, {}}},
      {"matmul_cpu_rows",
       {"MatMul", "", 13, {}, {T(f32, {64, 64}), T(f32, {64, 64})}, {}},
       CpuCaps()},
      {"matmul_big_tiles",
       {"MatMul", "", 13, {}, {T(f32, {64, 64}), T(f32, {64, 64})}, {}},
       VariantCaps("big")},
      {"matmul_tile_128x64x8_8x4_transb",
       {"Gemm", "", 13, {{"transB", int64_t{1}}}, {T(f32, {70, 36}), T(f32, {44, 36})}, {}},
       VariantCaps("tile:128x64x8:8x4")},
      // Split-K (MatMul's and Gemm's specialization where the grid is short): the tiled
      // kernel over one K slice per workgroup z, and the sum through Gemm's epilogue.
      {"matmul_splitk_partial",
       {"alknet.MatMulPartial",
        "",
        1,
        {{"alknet.split", int64_t{4}}, {"alknet.tile", std::string("tile:64x64x16:4x4")}},
        {T(f32, {2, 64, 256}), T(f32, {256, 64})},
        {}}},
      {"gemm_splitk_sum_bias_relu",
       {"alknet.MatMulSplitKSum",
        "",
        1,
        {{"alpha", 0.5}, {"alknet.activation", std::string("Relu")}},
        {T(f32, {4, 7, 5}), T(f32, {5})},
        {}}},
      {"gemm_dot_gemv_transb_bias",
       {"Gemm",
        "",
        13,
        {{"transB", int64_t{1}}},
        {T(f32, {1, 37}), T(f32, {5, 37}), T(f32, {5})},
        {}}},
      {"gemm_transb_bias",
       {"Gemm",
        "",
        13,
        {{"transB", int64_t{1}}, {"alpha", 0.5}},
        {T(f32, {7, 13}), T(f32, {5, 13}), T(f32, {5})},
        {}}},
      {"softmax_axis0", {"Softmax", "", 13, {{"axis", int64_t{0}}}, {T(f32, {3, 4, 5})}, {}}},
      {"logsoftmax_opset11_flatten", {"LogSoftmax", "", 11, {}, {T(f32, {3, 4, 5})}, {}}},
      // The activation partials (shaders/common/activation/) in a fused epilogue and a cell.
      {"conv_fused_sigmoid",
       {"Conv",
        "",
        11,
        {{"alknet.activation", std::string("Sigmoid")}},
        {T(f32, {1, 3, 8, 8}), T(f32, {4, 3, 3, 3})},
        {}}},
      // Conv's parametric two-stage tiling (conv/conv_tiled), forced: a general conv with
      // ragged channels and positions, bias and Relu.
      {"conv_tile_64x32x16_8x4_relu",
       {"Conv",
        "",
        11,
        {{"alknet.activation", std::string("Relu")}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}},
        {T(f32, {2, 5, 7, 9}), T(f32, {6, 5, 3, 3}), T(f32, {6})},
        {}},
       ConvVariantCaps("tile:64x32x16:8x4")},
      // CPU adapters: the shape-generic kernel reading the parameter block (conv/direct).
      {"conv_cpu_param_block_clip",
       {"Conv",
        "",
        11,
        {{"alknet.activation", std::string("Clip:0:6")},
         {"pads", std::vector<int64_t>{1, 1, 1, 1}}},
        {T(f32, {1, 8, 9, 9}), T(f32, {16, 8, 3, 3}), T(f32, {16})},
        {}},
       CpuCaps()},
      {"conv_transpose_fused_leakyrelu",
       {"ConvTranspose",
        "",
        11,
        {{"alknet.activation", std::string("LeakyRelu:0.1")}},
        {T(f32, {1, 2, 5, 5}), T(f32, {2, 3, 3, 3})},
        {}}},
      {"rnn_sequence_softplus_bidirectional",
       {"alknet.RnnSequence",
        "",
        17,
        {{"cell", std::string("RNN")},
         {"direction", std::string("bidirectional")},
         {"activations", std::string("Softplus, Sigmoid")}},
        {T(f32, {3, 2, 4}), T(f32, {2, 4, 5}), T(f32, {2, 5, 5})},
        {}}},
  };
}

// ALKNET_SOURCE_DIR points the test at a checkout elsewhere (the GPU machine runs the
// binary built here from another path).
fs::path SourceDir() {
  const char* env = std::getenv("ALKNET_SOURCE_DIR");
  return env ? fs::path(env) : fs::path(ALKNET_SOURCE_DIR);
}
fs::path GoldenDir() { return SourceDir() / "libs/compute/tests/golden"; }

void CheckGolden(const std::string& name, const std::string& text) {
  const fs::path file = GoldenDir() / (name + ".wgsl");
  if (std::getenv("ALKNET_UPDATE_GOLDEN")) {
    std::ofstream(file, std::ios::binary) << text;
    return;
  }
  std::ifstream in(file, std::ios::binary);
  ASSERT_TRUE(in) << file << " is missing; run with ALKNET_UPDATE_GOLDEN=1 to create it";
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(text, want.str()) << name << ": rendered WGSL differs from " << file
                              << " (ALKNET_UPDATE_GOLDEN=1 regenerates; review the diff)";
}

TEST(Golden, OpsRenderAsCheckedIn) {
  WgslGenerator gen;
  for (const Golden& g : GoldenNodes()) {
    auto p = gen.Generate(g.node, g.caps);
    ASSERT_TRUE(p.ok()) << g.name << ": " << p.error().ToString();
    CheckGolden(g.name, p->source);
  }
}

TEST(Golden, Sha256RendersAsCheckedIn) {
  Executor ex(testing::SharedContext());
  for (std::string mode : {"inline", "switch", "array"}) {
    Sha256 sha(ex, {.k_mode = mode});
    auto src = sha.BatchSource();
    ASSERT_TRUE(src.ok()) << src.error().ToString();
    CheckGolden("sha256_batch_" + mode, *src);
  }
  auto stream = Sha256(ex).StreamSource();
  ASSERT_TRUE(stream.ok());
  CheckGolden("sha256_stream_inline", *stream);
  // The fixed-length kernel for 55-byte messages (one block, the tail word masked) and two
  // per invocation.
  auto fixed = Sha256(ex, {.per_invocation = 2}).FixedSource(55);
  ASSERT_TRUE(fixed.ok()) << fixed.error().ToString();
  CheckGolden("sha256_fixed_55x2", *fixed);
}

// Every checked-in file has a variant that produces it: no stale goldens.
TEST(Golden, NoOrphanFiles) {
  std::set<std::string> names;
  for (const Golden& g : GoldenNodes()) names.insert(g.name + ".wgsl");
  for (std::string m : {"inline", "switch", "array"}) names.insert("sha256_batch_" + m + ".wgsl");
  names.insert("sha256_stream_inline.wgsl");
  names.insert("sha256_fixed_55x2.wgsl");
  for (const auto& e : fs::directory_iterator(GoldenDir())) {
    EXPECT_TRUE(names.count(e.path().filename().string())) << e.path() << " has no variant";
  }
}

// Every golden shader also compiles on the device (the text is not just stable but valid).
TEST(Golden, EveryVariantCompiles) {
  webgpu::Context& ctx = testing::SharedContext();
  WgslGenerator gen;
  for (const Golden& g : GoldenNodes()) {
    if (g.name == "relu_f16" && !ctx.HasFeature(WGPUFeatureName_ShaderF16)) continue;
    auto p = gen.Generate(g.node, g.caps);
    ASSERT_TRUE(p.ok());
    auto m = ctx.CompileWgsl(p->source, g.name);
    EXPECT_TRUE(m.ok()) << g.name << ": " << m.error().ToString();
  }
}

// docs/ops.md is rendered from the table, so it cannot drift from the code. After changing
// a record: ALKNET_UPDATE_GOLDEN=1 build/default/libs/compute/tests/compute_generator_tests
TEST(Golden, OpsDocMatchesTheTable) {
  std::string md =
      "# Ops (alknet-compute)\n\n"
      "Generated from the op table (`libs/compute/src/ops/`) by `compute_generator_tests`\n"
      "(`ALKNET_UPDATE_GOLDEN=1` regenerates it); a test fails when the two differ. Every op\n"
      "is checked against its float64 CPU reference on random data with the tolerance shown\n"
      "(|gpu - ref| <= abs + rel * |ref|; f16 runs with at least 4e-3 for both). As registry\n"
      "calls the ops are `compute.<snake_case name>` (see `alknet/compute-calls/calls.h`).\n\n"
      "The contract column is `OpRecord::contract`: the dtypes each input accepts (one list for\n"
      "all inputs, or per input separated by `;`, the last covering the rest) and whether the\n"
      "kernel needs contiguous inputs; `-` leaves the dtype rule to the record's `infer`.\n\n"
      "| op | opset | kernel | inputs | contract | attributes (default) | dtypes tested | "
      "tolerance abs / rel | what |\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const OpRecord& r : OpTable::Default().records()) {
    std::string attrs;
    for (const AttributeSpec& a : r.attributes) {
      attrs += (attrs.empty() ? "" : ", ") + a.name + " (" +
               (a.default_value ? AttrToString(*a.default_value)
                : a.optional    ? "unset"
                                : "required") +
               ")";
    }
    std::string contract;
    for (const DTypeSet& set : r.contract.dtypes) {
      std::string one;
      for (DType d : set) one += (one.empty() ? "" : ", ") + std::string(DTypeName(d));
      contract += (contract.empty() ? "" : "; ") + one;
    }
    if (contract.empty()) contract = "-";
    if (r.contract.contiguous) contract += ", contiguous";
    std::string dtypes;
    for (DType d : r.test_dtypes)
      dtypes += (dtypes.empty() ? "" : ", ") + std::string(DTypeName(d));
    char tol[64];
    std::snprintf(tol, sizeof tol, "%g / %g", r.hints.abs_tol, r.hints.rel_tol);
    const std::string opset = std::to_string(r.opset_min) +
                              (r.opset_max >= 99 ? "+" : ".." + std::to_string(r.opset_max));
    const std::string inputs = r.min_inputs == r.max_inputs ? std::to_string(r.min_inputs)
                                                            : std::to_string(r.min_inputs) + ".." +
                                                                  std::to_string(r.max_inputs);
    const std::string how = r.view        ? std::string("view (no shader)")
                            : r.decompose ? std::string("composite")
                                          : "`shaders/" + r.shader + ".wgsl.hbs`";
    md += "| " + r.name + " | " + opset + " | " + how + " | " + inputs + " | " + contract + " | " +
          (attrs.empty() ? "-" : attrs) + " | " + dtypes + " | " + tol + " | " + r.summary + " |\n";
  }
  const fs::path file = SourceDir() / "docs" / "ops.md";
  if (std::getenv("ALKNET_UPDATE_GOLDEN")) {
    std::ofstream(file, std::ios::binary) << md;
    return;
  }
  std::ifstream in(file, std::ios::binary);
  ASSERT_TRUE(in) << file << " is missing";
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(md, want.str()) << "docs/ops.md is out of date; regenerate with ALKNET_UPDATE_GOLDEN=1";
}

// ---- template patterns ------------------------------------------------------------------

TEST(Templates, EveryEmbeddedShaderIsRegistered) {
  WgslGenerator gen;
  for (const std::string& e : gen.TemplateErrors()) ADD_FAILURE() << e;
  auto ids = gen.TemplateIds();
  std::set<std::string> set(ids.begin(), ids.end());
  for (const OpRecord& r : OpTable::Default().records()) {
    if (r.view || r.decompose) {
      EXPECT_TRUE(r.shader.empty()) << r.name << " is a view or composite and names a shader too";
      continue;
    }
    EXPECT_TRUE(set.count(r.shader))
        << r.name << " names shaders/" << r.shader << ".wgsl.hbs, which is not embedded";
  }
  EXPECT_TRUE(set.count("common/index"));
  EXPECT_TRUE(set.count("crypto/sha256_compress"));
}

// MatMul's sizes travel in the uniform block: shapes of one kind render the same source (one
// compiled pipeline), and only the parameter words differ.
TEST(Templates, MatMulSourceExcludesTheSizes) {
  WgslGenerator gen;
  const DType f32 = DType::kF32;
  for (const char* variant : {"auto", "rows", "dot", "gemv", "gemv:4", "tiled", "big"}) {
    std::set<std::string> sources;
    std::set<std::vector<uint32_t>> params;
    for (Shape s : {Shape{17, 13, 5}, Shape{19, 21, 3}, Shape{129, 17, 33}, Shape{300, 3, 1}}) {
      OpNode n{"MatMul", "", 13, {}, {T(f32, {s[0], s[1]}), T(f32, {s[1], s[2]})}, {}};
      DeviceCaps caps = VariantCaps(variant);
      caps.shared_memory_tiles = false;  // auto: the rows kernel for every M > 16
      auto p = gen.Generate(n, caps);
      ASSERT_TRUE(p.ok()) << variant << ": " << p.error().ToString();
      sources.insert(p->source.substr(p->source.find('\n')));
      params.insert(p->params);
      EXPECT_EQ(p->bindings.back().role, ProgramBinding::Role::kParams);
    }
    // All four shapes are M > 16 with unaligned rows: one program per variant.
    EXPECT_EQ(sources.size(), 1u) << variant;
    EXPECT_EQ(params.size(), 4u) << variant;
  }
}

TEST(Templates, MatMulKernelFollowsTheCaps) {
  WgslGenerator gen;
  const DType f32 = DType::kF32;
  auto source = [&](Shape a, Shape b, DeviceCaps caps, Attributes at = {}) {
    OpNode n{at.empty() ? "MatMul" : "Gemm", "", 13, at, {T(f32, a), T(f32, b)}, {}};
    auto p = gen.Generate(n, caps);
    EXPECT_TRUE(p.ok()) << p.error().ToString();
    return p.ok() ? p->source : std::string();
  };
  DeviceCaps gpu = GoldenCaps();  // 16 KiB of workgroup memory: 128x128 tiles, BK 8
  const std::string k8 = source({2048, 2048}, {2048, 2048}, gpu);
  EXPECT_NE(k8.find("const BM = 128u;"), std::string::npos);
  EXPECT_NE(k8.find("const BK = 8u;"), std::string::npos);
  gpu.max_workgroup_storage_bytes = 49152;  // room for two 256x128 stages of BK 16
  const std::string big = source({2048, 2048}, {2048, 2048}, gpu);
  EXPECT_NE(big.find("const BM = 256u;"), std::string::npos);
  EXPECT_NE(big.find("const BN = 128u;"), std::string::npos);
  // ... but not when big tiles would leave the device with a handful of workgroups.
  EXPECT_NE(source({256, 256}, {256, 256}, gpu).find("const BM = 64u;"), std::string::npos);
  EXPECT_NE(source({1024, 1024}, {1024, 1024}, gpu).find("const BM = 64u;"), std::string::npos);
  // 8..16 rows with B as it is: 64x64 tiles on GPUs, the rows kernel on CPU adapters.
  EXPECT_NE(source({16, 4096}, {4096, 4096}, gpu).find("const BM = 64u;"), std::string::npos);
  EXPECT_NE(source({16, 4096}, {4096, 4096}, CpuCaps()).find("// kernel: rows"), std::string::npos);
  // Small M on GPUs: B as it is through the 64x64 tiles (measured on the H200), transposed B
  // the dot kernel (lanes walk K).
  EXPECT_NE(source({1, 64}, {64, 64}, gpu).find("const BM = 64u;"), std::string::npos);
  EXPECT_NE(source({4, 64}, {32, 64}, gpu, {{"transB", int64_t{1}}}).find("// kernel: dot"),
            std::string::npos);
  EXPECT_NE(source({512, 64}, {64, 64}, CpuCaps()).find("// kernel: rows"), std::string::npos);
  // Small M on CPU adapters: the gemv kernel, narrower column groups for narrower N; the rows
  // kernel where B is as it is and N gives it 4 or more workgroups.
  EXPECT_NE(source({1, 2400}, {2400, 32}, CpuCaps()).find("// kernel: gemv (1 column groups"),
            std::string::npos);
  EXPECT_NE(source({1, 128}, {128, 128}, CpuCaps(), {{"transB", int64_t{1}}})
                .find("// kernel: gemv (4 column groups"),
            std::string::npos);
  EXPECT_NE(source({2, 64}, {4096, 64}, CpuCaps(), {{"transB", int64_t{1}}})
                .find("// kernel: gemv (16 column groups"),
            std::string::npos);
  EXPECT_NE(source({4, 64}, {64, 1024}, CpuCaps()).find("// kernel: rows"), std::string::npos);
  // More row blocks than one grid dimension holds: the 64x64 tiles, whose blocks run along y.
  DeviceCaps small_grid = CpuCaps();
  small_grid.max_workgroups_per_dimension = 100;
  EXPECT_NE(source({512, 64}, {64, 64}, small_grid).find("const BM = 64u;"), std::string::npos);
  // More gemv column blocks than the grid holds: the rows kernel; forced, the reason.
  small_grid.max_workgroups_per_dimension = 8;
  EXPECT_NE(
      source({1, 64}, {1024, 64}, small_grid, {{"transB", int64_t{1}}}).find("// kernel: rows"),
      std::string::npos);
  small_grid.matmul_variant = "gemv:1";
  auto forced =
      gen.Generate({"MatMul", "m", 13, {}, {T(f32, {1, 64}), T(f32, {64, 1024})}, {}}, small_grid);
  ASSERT_FALSE(forced.ok());
  const Error& e = forced.error();
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_NE(e.message.find("'gemv:1' (ALKNET_MATMUL_VARIANT) cannot run: its grid exceeds"),
            std::string::npos)
      << e.message;
}

// Auto's split-K on GPUs: a grid of big tiles short of 128 workgroups with a long K runs as
// alknet.MatMulPartial + alknet.MatMulSplitKSum (the record's specialization); grids that
// already fill the device, short K, CPU adapters and thin outputs do not split.
TEST(Templates, MatMulSplitKFollowsTheCaps) {
  const DType f32 = DType::kF32;
  const OpTable& table = OpTable::Default();
  // The specialization's nodes as "op split tile", or "" when the record's own kernel runs.
  auto plan = [&](Shape a, Shape b, const DeviceCaps& caps, Attributes at = {},
                  std::optional<Shape> c = std::nullopt) {
    const char* op = at.empty() && !c ? "MatMul" : "Gemm";
    OpNode n{op, "m", 13, at, {T(f32, a), T(f32, b)}, {}};
    if (c) n.inputs.push_back(T(f32, *c));
    const OpRecord* r = table.Find(op, 13);
    auto resolved = table.ResolveAttributes(*r, n);
    EXPECT_TRUE(resolved.ok());
    auto g = r->specialize(n, *resolved, caps);
    if (!g) return std::string();
    EXPECT_EQ(g->nodes.size(), 2u);
    std::string s;
    for (const Graph::Node& node : g->nodes) {
      s += (s.empty() ? "" : " | ") + node.op;
      for (const auto& [k, v] : node.attributes) {
        if (k == "alknet.split" || k == "alknet.tile") s += " " + AttrToString(v);
      }
      s += " in" + std::to_string(node.inputs.size());
    }
    return s;
  };
  DeviceCaps gpu = GoldenCaps();
  gpu.max_workgroup_storage_bytes = 49152;  // the H200's: 256x128 tiles of BK 16
  // 1024^3: 32 workgroups of 256x128, K = 1024 in 4 slices of 256 -> 128 workgroups.
  EXPECT_EQ(plan({1024, 1024}, {1024, 1024}, gpu),
            "alknet.MatMulPartial 4 \"tile:256x128x16:16x8\" in2 | alknet.MatMulSplitKSum in1");
  // 2048 and 4096: 128 and 512 workgroups without splitting.
  EXPECT_EQ(plan({2048, 2048}, {2048, 2048}, gpu), "");
  EXPECT_EQ(plan({4096, 4096}, {4096, 4096}, gpu), "");
  // 512: 8 workgroups, K = 512 holds 2 slices of 256 -> 16: the 64x64 tiles' 64 instead.
  EXPECT_EQ(plan({512, 512}, {512, 512}, gpu), "");
  // K too short for two 256-long slices.
  EXPECT_EQ(plan({1024, 256}, {256, 1024}, gpu), "");
  // A thin output (M < BM) does not fill a 256-row tile.
  EXPECT_EQ(plan({64, 4096}, {4096, 4096}, gpu), "");
  // Gemm with transposes and C: C goes to the sum.
  EXPECT_EQ(plan({1024, 1024}, {1024, 1024}, gpu, {{"transB", int64_t{1}}}, Shape{1024}),
            "alknet.MatMulPartial 4 \"tile:256x128x16:16x8\" in2 | alknet.MatMulSplitKSum in2");
  // Batches count as workgroups: 4 x 32 = 128, no split.
  EXPECT_EQ(plan({4, 1024, 1024}, {1024, 1024}, gpu), "");
  // 16 KiB of workgroup memory: 128x128 tiles of BK 8, 64 workgroups at 1024 -> 2 slices.
  EXPECT_EQ(plan({1024, 1024}, {1024, 1024}, GoldenCaps()),
            "alknet.MatMulPartial 2 \"tile:128x128x8:8x8\" in2 | alknet.MatMulSplitKSum in1");
  // CPU adapters never split on their own.
  EXPECT_EQ(plan({1024, 1024}, {1024, 1024}, CpuCaps()), "");
  // Nor does a real adapter's auto until a GPU run measures split-K (CapsOf turns this off
  // unless ALKNET_GPU_TILINGS=new); a forced split still runs.
  DeviceCaps measured_only = gpu;
  measured_only.unmeasured_gpu_tilings = false;
  EXPECT_EQ(plan({1024, 1024}, {1024, 1024}, measured_only), "");
  // Forced: the slices K has (K = 40 in BK 16 steps: 3 of 16, 16, 8), at most S; one slice is
  // the tile as it is.
  EXPECT_EQ(plan({8, 40}, {40, 8}, VariantCaps("tile:64x64x16:4x4:split8")),
            "alknet.MatMulPartial 3 \"tile:64x64x16:4x4\" in2 | alknet.MatMulSplitKSum in1");
  EXPECT_EQ(plan({8, 16}, {16, 8}, VariantCaps("tile:64x64x16:4x4:split8")), "");
  EXPECT_EQ(plan({8, 40}, {40, 8}, VariantCaps("tile:64x64x16:4x4")), "");
}

TEST(Templates, WorkgroupSizeIsAParameter) {
  WgslGenerator gen;
  DeviceCaps caps;
  caps.linear_workgroup_size = 64;
  OpNode n{"Abs", "", 13, {}, {T(DType::kF32, {1001})}, {}};  // odd: the scalar path
  auto p = gen.Generate(n, caps);
  ASSERT_TRUE(p.ok());
  EXPECT_NE(p->source.find("@workgroup_size(64)"), std::string::npos);
  EXPECT_EQ(p->workgroup_size[0], 64u);
  EXPECT_EQ(p->grid[0], 16u);  // ceil(1001 / 64)
}

TEST(Templates, PartialsInlineSharedFragments) {
  WgslGenerator gen;
  OpNode n{"Add", "", 14, {}, {T(DType::kF32, {3, 1, 7}), T(DType::kF32, {5, 1})}, {}};
  auto p = gen.Generate(n, DeviceCaps{});
  ASSERT_TRUE(p.ok());
  // common/index renders one offset function per operand; broadcast dims step with stride 0.
  EXPECT_NE(p->source.find("fn in0_index(i: u32) -> u32"), std::string::npos);
  EXPECT_NE(p->source.find("fn in1_index(i: u32) -> u32"), std::string::npos);
  // Gelu pulls common/erf in; Erf too: one definition, shared.
  OpNode g{"Gelu", "", 20, {}, {T(DType::kF32, {4})}, {}};
  auto pg = gen.Generate(g, DeviceCaps{});
  ASSERT_TRUE(pg.ok());
  EXPECT_NE(pg->source.find("fn erf(x: T) -> T"), std::string::npos);
}

TEST(Templates, Sha256SwitchTableIsRenderedFromTheContextTable) {
  Executor ex(testing::SharedContext());
  auto src = Sha256(ex, {.k_mode = "switch"}).BatchSource();
  ASSERT_TRUE(src.ok());
  size_t cases = 0;
  for (size_t pos = 0; (pos = src->find("case ", pos)) != std::string::npos; ++pos) ++cases;
  EXPECT_EQ(cases, 64u);
  EXPECT_NE(src->find("case 0u: { return 0x428a2f98u; }"), std::string::npos);
  auto inl = Sha256(ex).BatchSource();
  ASSERT_TRUE(inl.ok());
  EXPECT_EQ(inl->find("switch"), std::string::npos);
  EXPECT_NE(inl->find("0xc67178f2u + w15"), std::string::npos);  // K_63 inlined in round 63
}

TEST(Templates, RenderErrorNamesTemplateLineAndColumn) {
  WgslGenerator gen;
  auto r = gen.Render("common/index", hbs::Value::object({}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kTemplate);
  EXPECT_NE(r.error().message.find("shaders/common/index.wgsl.hbs:"), std::string::npos)
      << r.error().message;
  auto missing = gen.Render("no/such", hbs::Value::object({}));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("shaders/no/such.wgsl.hbs"), std::string::npos);
}

// ---- errors before shader text -----------------------------------------------------------

Error GenerateError(const OpNode& n, DeviceCaps caps = {}) {
  WgslGenerator gen;
  auto p = gen.Generate(n, caps);
  EXPECT_FALSE(p.ok()) << n.Describe() << " unexpectedly generated";
  return p.ok() ? Error{ErrorCode::kInvalidArgument, ""} : p.error();
}

TEST(Errors, UnknownOpAndOpset) {
  Error e = GenerateError({"NoSuchOp", "c1", 13, {}, {T(DType::kF32, {1})}, {}});
  EXPECT_EQ(e.code, ErrorCode::kUnknownOp);
  EXPECT_NE(e.message.find("NoSuchOp 'c1'"), std::string::npos) << e.message;
  e = GenerateError({"Gelu", "", 13, {}, {T(DType::kF32, {1})}, {}});
  EXPECT_EQ(e.code, ErrorCode::kUnknownOp);
  EXPECT_NE(e.message.find("opset 13 is outside the supported range 20..99"), std::string::npos)
      << e.message;
}

// Windowed ops (Conv, pools) and normalisations name what does not fit.
TEST(Errors, ConvPoolNormShapesAndAttributes) {
  Error e = GenerateError({"Conv",
                           "c",
                           17,
                           {{"group", int64_t{2}}},
                           {T(DType::kF32, {1, 3, 8, 8}), T(DType::kF32, {4, 1, 3, 3})},
                           {}});
  EXPECT_EQ(e.code, ErrorCode::kShape);
  EXPECT_NE(e.message.find("with group = 2"), std::string::npos) << e.message;
  e = GenerateError({"Conv",
                     "c",
                     17,
                     {{"alknet.activation", std::string("Tanh")}},
                     {T(DType::kF32, {1, 3, 8, 8}), T(DType::kF32, {4, 3, 3, 3})},
                     {}});
  EXPECT_EQ(e.code, ErrorCode::kInvalidAttribute);
  EXPECT_NE(e.message.find("alknet.activation"), std::string::npos) << e.message;
  e = GenerateError(
      {"Conv", "c", 17, {}, {T(DType::kF32, {1, 3, 2, 2}), T(DType::kF32, {4, 3, 3, 3})}, {}});
  EXPECT_EQ(e.code, ErrorCode::kShape);
  EXPECT_NE(e.message.find("larger than the padded input"), std::string::npos) << e.message;
  e = GenerateError({"MaxPool",
                     "p",
                     12,
                     {{"kernel_shape", std::vector<int64_t>{3}}},
                     {T(DType::kF32, {1, 3, 8, 8})},
                     {}});
  EXPECT_EQ(e.code, ErrorCode::kInvalidAttribute);
  EXPECT_NE(e.message.find("kernel_shape must have one value per spatial axis (2)"),
            std::string::npos)
      << e.message;
  e = GenerateError(
      {"AveragePool",
       "p",
       12,
       {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"auto_pad", std::string("SAME")}},
       {T(DType::kF32, {1, 3, 8, 8})},
       {}});
  EXPECT_EQ(e.code, ErrorCode::kInvalidAttribute);
  EXPECT_NE(e.message.find("must be NOTSET, SAME_UPPER, SAME_LOWER or VALID"), std::string::npos)
      << e.message;
  e = GenerateError({"BatchNormalization",
                     "b",
                     15,
                     {},
                     {T(DType::kF32, {2, 3, 4}), T(DType::kF32, {3}), T(DType::kF32, {3}),
                      T(DType::kF32, {4}), T(DType::kF32, {3})},
                     {}});
  EXPECT_EQ(e.code, ErrorCode::kShape);
  EXPECT_NE(e.message.find("mean [4] must be [3]"), std::string::npos) << e.message;
  e = GenerateError({"LayerNormalization",
                     "l",
                     17,
                     {{"axis", int64_t{3}}},
                     {T(DType::kF32, {2, 3}), T(DType::kF32, {3})},
                     {}});
  EXPECT_EQ(e.code, ErrorCode::kInvalidAttribute);
  EXPECT_NE(e.message.find("axis 3 is out of range for rank 2"), std::string::npos) << e.message;
}

TEST(Errors, AttributesAreValidated) {
  Error e = GenerateError(
      {"LeakyRelu", "", 16, {{"alpha", std::string("big")}}, {T(DType::kF32, {1})}, {}});
  EXPECT_EQ(e.code, ErrorCode::kInvalidAttribute);
  EXPECT_NE(e.message.find("attribute 'alpha' must be float, got string"), std::string::npos)
      << e.message;
  e = GenerateError({"Relu", "", 16, {{"alpha", 1.0}}, {T(DType::kF32, {1})}, {}});
  EXPECT_NE(e.message.find("unknown attribute 'alpha' (Relu takes none)"), std::string::npos)
      << e.message;
  e = GenerateError({"Gemm",
                     "",
                     13,
                     {{"transA", int64_t{2}}},
                     {T(DType::kF32, {2, 2}), T(DType::kF32, {2, 2})},
                     {}});
  EXPECT_NE(e.message.find("'transA' = 2 must be 0 or 1"), std::string::npos) << e.message;
  e = GenerateError({"Cast", "", 13, {}, {T(DType::kF32, {1})}, {}});
  EXPECT_NE(e.message.find("required attribute 'to' is missing"), std::string::npos) << e.message;
  // DOUBLE (11) lands on f32 like every narrowed dtype; strings have no device form.
  e = GenerateError({"Cast", "", 13, {{"to", int64_t{8}}}, {T(DType::kF32, {1})}, {}});
  EXPECT_NE(e.message.find("ONNX dtype 8 (STRING) is not supported on the device"),
            std::string::npos)
      << e.message;
  e = GenerateError({"Mod", "", 13, {}, {T(DType::kF32, {1}), T(DType::kF32, {1})}, {}});
  EXPECT_NE(e.message.find("needs fmod=1"), std::string::npos) << e.message;
  e = GenerateError({"Softmax", "", 13, {{"axis", int64_t{3}}}, {T(DType::kF32, {2, 2})}, {}});
  EXPECT_NE(e.message.find("axis 3 is out of range for rank 2"), std::string::npos) << e.message;
}

TEST(Errors, UnsupportedDtypesSayWhatIsSupported) {
  Error e = GenerateError({"Sin", "s", 13, {}, {T(DType::kI32, {4})}, {}});
  EXPECT_EQ(e.code, ErrorCode::kUnsupported);
  EXPECT_NE(e.message.find("input 0 has dtype i32; Sin supports f32, f16"), std::string::npos)
      << e.message;
  e = GenerateError({"Add", "", 14, {}, {T(DType::kF64, {4}), T(DType::kF64, {4})}, {}});
  EXPECT_NE(e.message.find("has dtype f64"), std::string::npos) << e.message;
  e = GenerateError({"MatMul", "", 13, {}, {T(DType::kI32, {2, 2}), T(DType::kI32, {2, 2})}, {}});
  EXPECT_NE(e.message.find("input 0 has dtype i32; MatMul accepts f32"), std::string::npos)
      << e.message;
  DeviceCaps no_f16;
  no_f16.shader_f16 = false;
  e = GenerateError({"Relu", "", 14, {}, {T(DType::kF16, {4})}, {}}, no_f16);
  EXPECT_NE(e.message.find("needs the WebGPU feature shader-f16"), std::string::npos) << e.message;
  e = GenerateError(
      {"Where", "", 16, {}, {T(DType::kF32, {4}), T(DType::kF32, {4}), T(DType::kF32, {4})}, {}});
  EXPECT_NE(e.message.find("condition must be bool"), std::string::npos) << e.message;
}

// Forced split-K past the device's limits: the slices times the batches on workgroup z, the
// partial sums' buffer.
TEST(Errors, ImpossibleMatMulSplitIsExplained) {
  auto message = [](Shape a, Shape b, uint64_t max_groups, uint64_t max_bytes) {
    DeviceCaps caps;
    caps.matmul_variant = "tile:64x64x16:4x4:split8";
    caps.max_workgroups_per_dimension = static_cast<uint32_t>(max_groups);
    caps.max_storage_binding_bytes = max_bytes;
    return GenerateError({"MatMul", "m", 13, {}, {T(DType::kF32, a), T(DType::kF32, b)}, {}}, caps)
        .message;
  };
  EXPECT_NE(message({10, 4, 256}, {256, 4}, 64, 1 << 20).find("8 K slices of 10 batches exceed"),
            std::string::npos);
  EXPECT_NE(message({64, 256}, {256, 64}, 65535, 100000).find("the partial sums of 8 K slices"),
            std::string::npos);
}

TEST(Errors, UnknownMatMulVariantIsNamed) {
  DeviceCaps caps;
  caps.matmul_variant = "fastest";
  Error e = GenerateError(
      {"MatMul", "m", 13, {}, {T(DType::kF32, {4, 4}), T(DType::kF32, {4, 4})}, {}}, caps);
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_NE(e.message.find("unknown MatMul variant 'fastest' (ALKNET_MATMUL_VARIANT)"),
            std::string::npos)
      << e.message;
}

// A tiling the template or the device cannot run is refused with the reason, not rendered.
TEST(Errors, ImpossibleMatMulTileIsExplained) {
  for (const char* v :
       {"tile:128x128x16:4x4", "tile:96x64x16:4x4", "tile:256x256x64:8x8", "tile:64x64x16:2x4",
        "tile:64x64x16:4x4x", "gemv:3", "gemv:", "tile:64x64x16:4x4:split0",
        "tile:64x64x16:4x4:split65", "tile:64x64x16:4x4:split4x", "tile:96x64x16:4x4:split2"}) {
    DeviceCaps caps;
    caps.matmul_variant = v;
    Error e = GenerateError(
        {"MatMul", "m", 13, {}, {T(DType::kF32, {4, 4}), T(DType::kF32, {4, 4})}, {}}, caps);
    EXPECT_EQ(e.code, ErrorCode::kInvalidArgument) << v;
    EXPECT_NE(e.message.find(std::string("MatMul variant '") + v + "'"), std::string::npos)
        << e.message;
  }
}

// OpRecord::contract is checked by OpTable::Infer for every record that declares one: the
// message names the op, the input, the dtype given and the dtypes accepted, or the view.
TEST(Errors, InputContractNamesInputDtypeAndAccepted) {
  Error e = GenerateError(
      {"Conv", "c", 17, {}, {T(DType::kF32, {1, 3, 8, 8}), T(DType::kF16, {4, 3, 3, 3})}, {}});
  EXPECT_EQ(e.code, ErrorCode::kUnsupported);
  EXPECT_NE(e.message.find("Conv 'c'"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("input 1 has dtype f16; Conv accepts f32"), std::string::npos)
      << e.message;
  e = GenerateError({"Det", "d", 11, {}, {T(DType::kI32, {3, 3})}, {}});
  EXPECT_NE(e.message.find("input 0 has dtype i32; Det accepts f32"), std::string::npos)
      << e.message;
  // An absent optional input is not checked; a present one is (the last entry covers it).
  TensorDesc absent;
  absent.absent = true;
  e = GenerateError({"BatchNormalization",
                     "b",
                     15,
                     {},
                     {T(DType::kF32, {2, 3, 4}), T(DType::kF32, {3}), T(DType::kF32, {3}),
                      T(DType::kF32, {3}), T(DType::kI32, {3})},
                     {}});
  EXPECT_NE(e.message.find("input 4 has dtype i32; BatchNormalization accepts f32"),
            std::string::npos)
      << e.message;
  TensorDesc view = T(DType::kF32, {3, 4, 5});
  view.strides = {1, 3, 12};  // a permuted [5, 4, 3]
  e = GenerateError({"Softmax", "s", 13, {}, {view}, {}});
  EXPECT_NE(e.message.find("input 0 is a strided view; Softmax reads contiguous operands"),
            std::string::npos)
      << e.message;
  e = GenerateError({"MatMul", "m", 13, {}, {T(DType::kF32, {4, 5}), view}, {}});
  EXPECT_NE(e.message.find("input 1 is a strided view"), std::string::npos) << e.message;
}

// A contract is data the table can be checked for: a contiguous kernel cannot accept views,
// and a contract names no more inputs than the op takes.
TEST(Contracts, EveryRecordIsConsistent) {
  size_t declared = 0;
  for (const OpRecord& r : OpTable::Default().records()) {
    EXPECT_FALSE(r.contract.contiguous && r.accepts_views)
        << r.name << " needs contiguous inputs and accepts views";
    EXPECT_LE(r.contract.dtypes.size(), r.max_inputs) << r.name;
    for (const DTypeSet& set : r.contract.dtypes)
      EXPECT_FALSE(set.empty()) << r.name << " accepts no dtype at all";
    if (!r.contract.dtypes.empty()) ++declared;
  }
  EXPECT_GT(declared, 0u);
}

TEST(Errors, ShapesThatDoNotFit) {
  Error e = GenerateError({"Add", "", 14, {}, {T(DType::kF32, {3, 4}), T(DType::kF32, {5})}, {}});
  EXPECT_EQ(e.code, ErrorCode::kShape);
  EXPECT_NE(e.message.find("shapes [3,4] and [5] do not broadcast"), std::string::npos)
      << e.message;
  e = GenerateError({"MatMul", "", 13, {}, {T(DType::kF32, {3, 4}), T(DType::kF32, {5, 2})}, {}});
  EXPECT_NE(e.message.find("inner dimensions differ: A has K = 4, B has 5"), std::string::npos)
      << e.message;
  e = GenerateError({"PRelu", "", 16, {}, {T(DType::kF32, {4}), T(DType::kF32, {3, 4})}, {}});
  EXPECT_NE(e.message.find("unidirectional"), std::string::npos) << e.message;
  e = GenerateError({"Gemm",
                     "",
                     13,
                     {},
                     {T(DType::kF32, {2, 3}), T(DType::kF32, {3, 4}), T(DType::kF32, {3})},
                     {}});
  EXPECT_NE(e.message.find("does not broadcast to [M, N] = [2,4]"), std::string::npos) << e.message;
  e = GenerateError({"Add", "", 14, {}, {T(DType::kF32, {4})}, {}});
  EXPECT_NE(e.message.find("takes 2..2 inputs, got 1"), std::string::npos) << e.message;
}

// Reductions, selections, Einsum and the recurrent ops name what is wrong before any shader.
TEST(Errors, ReduceTopKEinsumRecurrent) {
  Error e = GenerateError(
      {"ReduceSum", "r", 11, {{"axes", std::vector<int64_t>{3}}}, {T(DType::kF32, {2, 2})}, {}});
  EXPECT_EQ(e.code, ErrorCode::kInvalidAttribute);
  EXPECT_NE(e.message.find("axis 3 is out of range for rank 2"), std::string::npos) << e.message;
  e = GenerateError({"ReduceSum", "r", 13, {}, {T(DType::kF32, {2, 2}), T(DType::kI32, {1})}, {}});
  EXPECT_NE(e.message.find("must be known when the graph is planned"), std::string::npos)
      << e.message;
  e = GenerateError({"ReduceL2", "", 13, {}, {T(DType::kI32, {2, 2})}, {}});
  EXPECT_NE(e.message.find("ReduceL2 takes f32, f16; got i32"), std::string::npos) << e.message;
  OpNode topk{"TopK", "", 11, {}, {T(DType::kF32, {3, 4}), T(DType::kI32, {1})}, {}};
  topk.input_values = {nullptr,
                       std::make_shared<const RefTensor>(RefTensor{DType::kI32, {1}, {5}})};
  e = GenerateError(topk);
  EXPECT_NE(e.message.find("k = 5 must be in 0..4"), std::string::npos) << e.message;
  e = GenerateError({"ArgMax", "", 13, {{"axis", int64_t{-3}}}, {T(DType::kF32, {3, 4})}, {}});
  EXPECT_NE(e.message.find("axis -3 is out of range for rank 2"), std::string::npos) << e.message;
  e = GenerateError({"Einsum",
                     "",
                     12,
                     {{"equation", std::string("ij,jk->ik")}},
                     {T(DType::kF32, {2, 3}), T(DType::kF32, {4, 5})},
                     {}});
  EXPECT_NE(e.message.find("subscript 'j' has extents 3 and 4"), std::string::npos) << e.message;
  e = GenerateError(
      {"Einsum", "", 12, {{"equation", std::string("ij->ix")}}, {T(DType::kF32, {2, 3})}, {}});
  EXPECT_NE(e.message.find("output subscript 'x'"), std::string::npos) << e.message;
  e = GenerateError(
      {"LSTM",
       "l",
       14,
       {},
       {T(DType::kF32, {4, 1, 3}), T(DType::kF32, {1, 12, 3}), T(DType::kF32, {1, 16, 4})},
       {}});
  EXPECT_NE(e.message.find("W must be [1,16,3]"), std::string::npos) << e.message;
  e = GenerateError(
      {"GRU",
       "g",
       14,
       {{"activations", std::string("Tanh")}},
       {T(DType::kF32, {4, 1, 3}), T(DType::kF32, {1, 12, 3}), T(DType::kF32, {1, 12, 4})},
       {}});
  EXPECT_NE(e.message.find("activations lists 1 functions; GRU with 1 direction(s) takes 2"),
            std::string::npos)
      << e.message;
}

TEST(Errors, DeviceLimitsAreNamed) {
  DeviceCaps small;
  small.max_workgroups_per_dimension = 4;
  // 4 x 256 invocations fit in x; more spill into y; beyond 4 x 4 groups it is an error.
  // (Odd sizes keep the scalar path: one invocation per element.)
  WgslGenerator gen;
  auto spill = gen.Generate({"Abs", "", 13, {}, {T(DType::kF32, {3001})}, {}}, small);
  ASSERT_TRUE(spill.ok());
  EXPECT_EQ(spill->grid[0], 4u);
  EXPECT_EQ(spill->grid[1], 3u);
  Error e = GenerateError({"Abs", "", 13, {}, {T(DType::kF32, {5001})}, {}}, small);
  EXPECT_EQ(e.code, ErrorCode::kLimit);
  EXPECT_NE(e.message.find("maxComputeWorkgroupsPerDimension"), std::string::npos) << e.message;
  e = GenerateError({"MatMul", "", 13, {}, {T(DType::kF32, {5, 2, 2}), T(DType::kF32, {2, 2})}, {}},
                    small);
  EXPECT_NE(e.message.find("needs 5 workgroups in dimension z; the device limit "
                           "maxComputeWorkgroupsPerDimension is 4"),
            std::string::npos)
      << e.message;
  DeviceCaps tiny;
  tiny.max_storage_binding_bytes = 1024;
  e = GenerateError({"Add", "", 14, {}, {T(DType::kF32, {300}), T(DType::kF32, {300})}, {}}, tiny);
  EXPECT_NE(e.message.find("1200 bytes; the device limit maxStorageBufferBindingSize is 1024"),
            std::string::npos)
      << e.message;
}

}  // namespace
}  // namespace alknet::compute
