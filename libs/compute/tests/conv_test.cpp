// The shape-generic Conv and ConvTranspose kernels (parameter block, docs/adr/0006): results
// against the float64 references on shapes that used to get programs of their own, odd
// sizes, pads, dilations, groups and output_padding; and the number of pipelines a 100-layer
// CNN compiles stays bounded.
#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <set>
#include <string>

#include "alknet/compute/wgsl_generator.h"
#include "test_util.h"

namespace alknet::compute {
namespace {

using testing::SharedContext;

using Ints = std::vector<int64_t>;

// CPU adapters' variant (what lavapipe gets): Conv runs the parameter-block kernel, and
// elementwise, pool and Resize read their shapes from a parameter block too (ADR 0011).
DeviceCaps CpuCaps() {
  DeviceCaps caps = CapsOf(SharedContext());
  caps.shared_memory_tiles = false;
  return caps;
}

RefTensor Random(std::mt19937_64& rng, const Shape& shape, double scale = 1.0) {
  return testing::RandomTensor(rng, DType::kF32, shape, TestHints{-scale, scale, 0, 0});
}

// max |got - want| <= abs + rel * max |want|, reported with the worst index.
::testing::AssertionResult Near(const std::vector<double>& got, const std::vector<double>& want,
                                double abs, double rel) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure() << got.size() << " values, expected " << want.size();
  }
  double scale = 0, worst = 0;
  size_t at = 0;
  for (double v : want) scale = std::max(scale, std::fabs(v));
  for (size_t i = 0; i < got.size(); ++i) {
    const double e = std::fabs(got[i] - want[i]);
    if (!(e <= worst)) {
      worst = e;
      at = i;
    }
  }
  if (worst <= abs + rel * scale) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "max error " << worst << " at " << at << " (got " << got[at] << ", want " << want[at]
         << "; |ref| <= " << scale << ")";
}

struct OneCase {
  std::string op;
  Shape x, w;
  bool bias;
  Attributes attrs;
};

// Runs `c` on `ex` and checks it against ReferenceRun.
void Check(Executor& ex, const OneCase& c, std::mt19937_64& rng) {
  std::vector<RefTensor> in{Random(rng, c.x), Random(rng, c.w)};
  const uint64_t m =
      c.op == "Conv"
          ? c.w[0]
          : c.w[1] * static_cast<uint64_t>(std::get<int64_t>(
                         c.attrs.count("group") ? c.attrs.at("group") : AttrValue(int64_t{1})));
  if (c.bias) in.push_back(Random(rng, {m}));
  OpNode node{c.op, "t", 17, c.attrs, {}, {}};
  std::vector<Tensor> dev;
  for (const RefTensor& t : in) {
    node.inputs.push_back(TensorDesc{t.dtype, t.shape});
    auto up = ex.Upload(t.dtype, t.shape, testing::ToHost(t));
    ASSERT_TRUE(up.ok()) << up.error().ToString();
    dev.push_back(*up);
  }
  std::string what = c.op + " X" + ShapeToString(c.x) + " W" + ShapeToString(c.w);
  for (const auto& [k, v] : c.attrs) what += " " + k + "=" + AttrToString(v);
  auto ref = ReferenceRun(node, in);
  ASSERT_TRUE(ref.ok()) << what << ": " << ref.error().ToString();
  auto out = ex.Run(c.op, dev, c.attrs);
  ASSERT_TRUE(out.ok()) << what << ": " << out.error().ToString();
  auto host = ex.Download(*out);
  ASSERT_TRUE(host.ok()) << host.error().ToString();
  ASSERT_EQ(host->shape, (*ref)[0].shape) << what;
  EXPECT_TRUE(Near(testing::FromHost(*host), (*ref)[0].data, 1e-5, 2e-6)) << what;
}

std::vector<OneCase> ConvCases() {
  auto act = [](const char* a) { return AttrValue(std::string(a)); };
  return {
      // Shapes that used to be programs of their own, now one pipeline per kind.
      {"Conv", {1, 16, 9, 13}, {24, 16, 3, 3}, true, {{"pads", Ints{1, 1, 1, 1}}}},
      {"Conv", {1, 24, 10, 14}, {24, 24, 3, 3}, true, {{"pads", Ints{1, 1, 1, 1}}}},
      {"Conv", {2, 8, 7, 5}, {20, 8, 3, 3}, false, {{"strides", Ints{2, 2}}}},
      // The pathological layer's kind: 3x3 96 -> 24 (smaller spatial extent).
      {"Conv",
       {1, 96, 12, 17},
       {24, 96, 3, 3},
       true,
       {{"pads", Ints{1, 1, 1, 1}}, {"alknet.activation", act("Relu")}}},
      // Odd sizes, asymmetric pads, dilations, strides.
      {"Conv",
       {1, 5, 11, 7},
       {3, 5, 3, 2},
       true,
       {{"pads", Ints{2, 0, 1, 3}}, {"dilations", Ints{2, 3}}, {"strides", Ints{1, 2}}}},
      {"Conv",
       {1, 3, 31, 29},
       {13, 3, 5, 5},
       true,
       {{"pads", Ints{2, 2, 2, 2}},
        {"strides", Ints{3, 2}},
        {"alknet.activation", act("Clip:0:6")}}},
      // Groups (not depthwise) and channel blocks that end mid-block (MG = 12: 8 + 4).
      {"Conv",
       {1, 12, 9, 9},
       {36, 4, 3, 3},
       true,
       {{"group", int64_t{3}},
        {"pads", Ints{1, 1, 1, 1}},
        {"alknet.activation", act("HardSwish")}}},
      // General path, taps outside the channel loop (docs/adr/0028): a 7x7 output (one full
      // block of 32 positions and a partial one), odd channel counts; pads wider than the
      // kernel's reach (whole taps outside the input for edge positions) with dilation,
      // stride and groups.
      {"Conv",
       {1, 37, 7, 7},
       {19, 37, 3, 3},
       true,
       {{"pads", Ints{1, 1, 1, 1}}, {"alknet.activation", act("HardSwish")}}},
      {"Conv",
       {1, 11, 10, 9},
       {10, 11, 3, 3},
       true,
       {{"pads", Ints{0, 2, 1, 0}},
        {"dilations", Ints{2, 1}},
        {"strides", Ints{1, 2}},
        {"alknet.activation", act("LeakyRelu:0.3")}}},
      {"Conv",
       {2, 10, 6, 5},
       {15, 2, 3, 3},
       false,
       {{"group", int64_t{5}}, {"pads", Ints{3, 3, 3, 3}}, {"alknet.activation", act("Sigmoid")}}},
      // 1x1 (pointwise), positions not a multiple of anything.
      {"Conv", {2, 40, 7, 9}, {17, 40, 1, 1}, true, {{"alknet.activation", act("LeakyRelu:0.2")}}},
      {"Conv", {1, 64, 3, 3}, {130, 64, 1, 1}, false, {{"alknet.activation", act("Sigmoid")}}},
      // 1x1 with a stride: the general kernel.
      {"Conv", {1, 8, 9, 9}, {8, 8, 1, 1}, false, {{"strides", Ints{2, 2}}}},
      // Depthwise, with a multiplier, strides, dilation.
      {"Conv",
       {1, 7, 13, 11},
       {7, 1, 3, 3},
       true,
       {{"group", int64_t{7}}, {"pads", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}}},
      {"Conv",
       {2, 4, 9, 10},
       {8, 1, 5, 3},
       false,
       {{"group", int64_t{4}}, {"pads", Ints{2, 1, 2, 1}}, {"dilations", Ints{1, 2}}}},
      // 1-D and 3-D.
      {"Conv", {1, 6, 33}, {10, 3, 4}, true, {{"group", int64_t{2}}, {"strides", Ints{3}}}},
      {"Conv", {1, 3, 5, 6, 7}, {9, 3, 2, 3, 3}, true, {{"pads", Ints{1, 0, 1, 0, 1, 1}}}},
  };
}

std::vector<OneCase> ConvTransposeCases() {
  auto act = [](const char* a) { return AttrValue(std::string(a)); };
  return {
      // The pathological layer's kind: 2x2, stride 2, 24 -> 24.
      {"ConvTranspose", {1, 24, 10, 14}, {24, 24, 2, 2}, true, {{"strides", Ints{2, 2}}}},
      // Overlapping taps (kernel 4 > stride 2), pads, output_padding, odd sizes.
      {"ConvTranspose",
       {1, 5, 7, 9},
       {5, 11, 4, 4},
       true,
       {{"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}, {"output_padding", Ints{1, 0}}}},
      {"ConvTranspose",
       {2, 3, 5, 4},
       {3, 2, 3, 3},
       false,
       {{"strides", Ints{3, 2}},
        {"pads", Ints{1, 2, 0, 1}},
        {"output_padding", Ints{2, 1}},
        {"dilations", Ints{2, 1}},
        {"alknet.activation", act("Relu")}}},
      // Groups, stride 1 (one phase), dilation.
      {"ConvTranspose",
       {1, 6, 8, 7},
       {6, 5, 3, 3},
       true,
       {{"group", int64_t{2}},
        {"dilations", Ints{2, 2}},
        {"alknet.activation", act("Clip:-0.5:0.5")}}},
      // output_shape, SAME_UPPER, 1-D and 3-D.
      {"ConvTranspose",
       {1, 4, 9},
       {4, 3, 5},
       true,
       {{"strides", Ints{4}}, {"output_shape", Ints{37}}}},
      {"ConvTranspose",
       {1, 2, 3, 4, 5},
       {2, 3, 2, 3, 2},
       false,
       {{"strides", Ints{2, 1, 3}}, {"auto_pad", act("SAME_UPPER")}}},
  };
}

TEST(ConvParamBlock, MatchesFloat64Reference) {
  Executor ex(SharedContext(), ExecutorOptions{.poison_outputs = true, .caps = CpuCaps()});
  std::mt19937_64 rng(testing::Seed() + 11);
  for (const OneCase& c : ConvCases()) Check(ex, c, rng);
  for (const OneCase& c : ConvTransposeCases()) Check(ex, c, rng);
}

// Dispatches capped at 2 workgroups per dimension: the kernels loop over the position blocks
// the grid does not cover.
TEST(ConvParamBlock, PositionBlocksPastTheGridLimit) {
  DeviceCaps caps = CpuCaps();
  caps.max_workgroups_per_dimension = 2;
  Executor ex(SharedContext(), ExecutorOptions{.poison_outputs = true, .caps = caps});
  std::mt19937_64 rng(testing::Seed() + 12);
  Check(ex, {"Conv", {1, 2, 23, 29}, {2, 2, 3, 3}, true, {{"pads", Ints{1, 1, 1, 1}}}}, rng);
  Check(ex, {"Conv", {1, 2, 23, 29}, {2, 1, 3, 3}, false, {{"group", int64_t{2}}}}, rng);
  Check(ex, {"Conv", {1, 3, 20, 20}, {2, 3, 1, 1}, false, {}}, rng);
  // Two stride phases (z holds batch x phases, which the grid must fit).
  Check(ex, {"ConvTranspose", {1, 2, 13, 17}, {2, 2, 2, 2}, true, {{"strides", Ints{1, 2}}}}, rng);
}

// Conv's GEMM tilings forced on this adapter (ALKNET_CONV_VARIANT's values: what
// tools/h200-convtile measures on the H200): the parametric two-stage kernel at auto's big-GPU
// picks (64x128x8:8x8, 128x128x8:8x8), TM != TN, BK 64 (a K step past the 16-wide split-K
// slices), and today's one-stage 32x32 blocks forced. Shapes: channels
// and positions not multiples of the blocks, stride 2 with asymmetric pads, dilation, groups,
// batch > 1, 1-D and 3-D, 1x1 with and without vec4 rows, K shorter than one step, bias and
// each fused activation; a depthwise conv (which keeps its own kernel); and a long K on a
// small grid, which runs split along K (alknet.ConvPartial + SplitKSum) under the tiling.
TEST(ConvTilings, ForcedTilingsMatchFloat64) {
  webgpu::Context& ctx = SharedContext();
  auto act = [](const char* a) { return AttrValue(std::string(a)); };
  const std::vector<OneCase> cases = {
      {"Conv",
       {2, 13, 11, 9},
       {37, 13, 3, 3},
       true,
       {{"pads", Ints{1, 1, 1, 1}}, {"alknet.activation", act("Relu")}}},
      {"Conv",
       {1, 8, 15, 13},
       {20, 8, 3, 3},
       false,
       {{"strides", Ints{2, 2}},
        {"pads", Ints{1, 0, 2, 1}},
        {"alknet.activation", act("LeakyRelu:0.1")}}},
      {"Conv",
       {1, 6, 12, 10},
       {9, 6, 3, 3},
       true,
       {{"dilations", Ints{2, 1}},
        {"pads", Ints{2, 1, 2, 1}},
        {"alknet.activation", act("HardSwish")}}},
      {"Conv",
       {2, 12, 9, 9},
       {18, 4, 3, 3},
       true,
       {{"group", int64_t{3}}, {"alknet.activation", act("Clip:0:0.5")}}},
      {"Conv", {3, 20, 8, 8}, {36, 20, 1, 1}, true, {{"alknet.activation", act("Sigmoid")}}},
      {"Conv", {1, 19, 7, 5}, {33, 19, 1, 1}, false, {}},
      {"Conv", {2, 6, 33}, {10, 3, 4}, true, {{"group", int64_t{2}}, {"strides", Ints{3}}}},
      {"Conv", {1, 3, 5, 6, 7}, {9, 3, 2, 3, 3}, true, {{"pads", Ints{1, 0, 1, 0, 1, 1}}}},
      {"Conv",
       {1, 6, 7, 9},
       {6, 1, 3, 3},
       true,
       {{"group", int64_t{6}}, {"pads", Ints{1, 1, 1, 1}}}},
      {"Conv",
       {1, 64, 5, 5},
       {24, 64, 3, 3},
       true,
       {{"pads", Ints{1, 1, 1, 1}}, {"alknet.activation", act("Relu")}}},
  };
  // Each compile of a large unrolled shader costs llvmpipe seconds: every variant runs half
  // the cases (alternating, so each case meets two of the parametric tilings) and the split one.
  const char* variants[] = {"tile:64x128x8:8x8", "tile:128x128x8:8x8", "tile:128x64x16:8x4",
                            "tile:32x32x64:4x4", "tiled-small"};
  for (size_t vi = 0; vi < std::size(variants); ++vi) {
    const char* v = variants[vi];
    SCOPED_TRACE(std::string("conv_variant=") + v);
    DeviceCaps caps = CapsOf(ctx);
    caps.conv_variant = v;
    Executor ex(ctx, ExecutorOptions{.poison_outputs = true, .caps = caps});
    std::mt19937_64 rng(testing::Seed() + 21 + vi);
    for (size_t i = 0; i < cases.size(); ++i) {
      if ((i + vi) % 2 == 0 || i + 1 == cases.size()) Check(ex, cases[i], rng);
    }
    // The long-K case runs split along K under the forced tiling.
    const OpRecord& conv = *OpTable::Default().Find("Conv", 17);
    OpNode node{"Conv",
                "k",
                17,
                {{"pads", Ints{1, 1, 1, 1}}},
                {TensorDesc{DType::kF32, {1, 64, 5, 5}}, TensorDesc{DType::kF32, {24, 64, 3, 3}}},
                {}};
    auto at = OpTable::Default().ResolveAttributes(conv, node);
    ASSERT_TRUE(at.ok()) << at.error().ToString();
    auto g = conv.specialize(node, *at, caps);
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(g->nodes[0].op, "alknet.ConvPartial");
  }
}

// The automatic choice on a GPU's caps (16 KiB of workgroup memory, 256 invocations: WebGPU's
// defaults): the parametric kernel with 8x8 outputs per invocation for a batch-32 ResNet 3x3
// 64 -> 64 at 56x56 (25 x 32 blocks of 64 x 128), today's tiles and split-K for the batch-1
// 7x7 3x3 512 -> 512 (4 blocks of 128 x 128), and today's 32x32 blocks at batch 1 on 56x56
// (25 blocks of 64 x 128, 49 of 64 x 64).
TEST(ConvTilings, AutoPicksBigTilesForLargeGrids) {
  const DeviceCaps gpu;
  ASSERT_TRUE(gpu.shared_memory_tiles);
  WgslGenerator gen;
  const OpRecord& conv = *OpTable::Default().Find("Conv", 17);
  auto node = [](uint64_t n, uint64_t c, uint64_t hw) {
    return OpNode{"Conv",
                  "resnet",
                  17,
                  {{"pads", Ints{1, 1, 1, 1}}},
                  {TensorDesc{DType::kF32, {n, c, hw, hw}}, TensorDesc{DType::kF32, {c, c, 3, 3}}},
                  {}};
  };
  auto program = gen.Generate(node(32, 64, 56), gpu);
  ASSERT_TRUE(program.ok()) << program.error().ToString();
  EXPECT_NE(program->source.find("// kernel: conv tiled 64x128x8, 8x8 per invocation"),
            std::string::npos);
  EXPECT_EQ(program->workgroup_size, (std::array<uint32_t, 3>{16, 8, 1}));
  EXPECT_EQ(program->grid, (std::array<uint32_t, 3>{25, 1, 32}));
  // Until a GPU run measures them, a real adapter's caps keep them off (CapsOf): today's
  // one-stage 64x64 tiles.
  DeviceCaps measured_only = gpu;
  measured_only.unmeasured_gpu_tilings = false;
  program = gen.Generate(node(32, 64, 56), measured_only);
  ASSERT_TRUE(program.ok()) << program.error().ToString();
  EXPECT_EQ(program->source.find("kernel: conv tiled"), std::string::npos);
  EXPECT_EQ(program->workgroup_size, (std::array<uint32_t, 3>{16, 16, 1}));

  const OpNode late = node(1, 512, 7);
  program = gen.Generate(late, gpu);
  ASSERT_TRUE(program.ok()) << program.error().ToString();
  EXPECT_EQ(program->source.find("kernel: conv tiled"), std::string::npos);
  EXPECT_EQ(program->workgroup_size, (std::array<uint32_t, 3>{8, 8, 1}));
  auto at = OpTable::Default().ResolveAttributes(conv, late);
  ASSERT_TRUE(at.ok()) << at.error().ToString();
  auto split = conv.specialize(late, *at, gpu);
  ASSERT_TRUE(split.has_value());
  EXPECT_EQ(split->nodes[0].op, "alknet.ConvPartial");

  program = gen.Generate(node(1, 64, 56), gpu);
  ASSERT_TRUE(program.ok()) << program.error().ToString();
  EXPECT_EQ(program->source.find("kernel: conv tiled"), std::string::npos);
  EXPECT_EQ(program->workgroup_size, (std::array<uint32_t, 3>{8, 8, 1}));

  // A 128-channel layer gets 128-row blocks; CPU adapters keep their own kernel.
  program = gen.Generate(node(32, 128, 28), gpu);
  ASSERT_TRUE(program.ok()) << program.error().ToString();
  EXPECT_NE(program->source.find("// kernel: conv tiled 128x128x8, 8x8"), std::string::npos);
  DeviceCaps cpu;
  cpu.shared_memory_tiles = false;
  program = gen.Generate(node(32, 64, 56), cpu);
  ASSERT_TRUE(program.ok()) << program.error().ToString();
  EXPECT_EQ(program->source.find("kernel: conv tiled"), std::string::npos);
  EXPECT_FALSE(program->params.empty());  // the parameter-block kernel
}

// A misspelled variant, and tilings this device's limits refuse, are errors naming the
// variant, the spellings or the limit.
TEST(ConvTilings, BadVariantsAreClearErrors) {
  WgslGenerator gen;
  const OpNode node{"Conv",
                    "c",
                    17,
                    {},
                    {TensorDesc{DType::kF32, {1, 8, 9, 9}}, TensorDesc{DType::kF32, {16, 8, 3, 3}}},
                    {}};
  auto message = [&](const char* v) {
    DeviceCaps caps;
    caps.conv_variant = v;
    auto p = gen.Generate(node, caps);
    return p.ok() ? std::string("(generated)") : p.error().message;
  };
  std::string e = message("fastest");
  EXPECT_EQ(e.find("Conv 'c'"), 0u) << e;
  EXPECT_NE(e.find("unknown Conv variant 'fastest' (ALKNET_CONV_VARIANT): use auto, tiled, "
                   "tiled-small or tile:BMxBNxBK:TMxTN"),
            std::string::npos)
      << e;
  e = message("tile:128x128x8:8x8x");
  EXPECT_NE(e.find("unknown Conv variant"), std::string::npos) << e;
  e = message("tile:96x128x8:8x8");
  EXPECT_NE(e.find("cannot run: BM and BN must be powers of two"), std::string::npos) << e;
  e = message("tile:64x64x8:12x4");
  EXPECT_NE(e.find("TM and TN must be 4, 8 or 16"), std::string::npos) << e;
  e = message("tile:256x256x8:4x4");
  EXPECT_NE(e.find("64x64 invocations exceed the device's workgroup limits"), std::string::npos)
      << e;
  e = message("tile:128x128x16:8x8");
  EXPECT_NE(e.find("32768 bytes of workgroup memory exceed the device's 16384"), std::string::npos)
      << e;
}

// Layers of one kind with different shapes share one compiled pipeline (and one program per
// activation): the WGSL holds no shape.
TEST(ConvParamBlock, ShapesShareOnePipeline) {
  webgpu::Context& ctx = SharedContext();
  Executor ex(ctx, ExecutorOptions{.caps = CpuCaps()});
  std::mt19937_64 rng(testing::Seed() + 13);
  auto run = [&](const OneCase& c) { Check(ex, c, rng); };
  run({"Conv", {1, 4, 6, 6}, {8, 4, 3, 3}, false, {{"pads", Ints{1, 1, 1, 1}}}});
  const size_t after_first = ctx.cached_kernel_count();
  run({"Conv", {1, 9, 11, 5}, {13, 9, 3, 3}, false, {{"strides", Ints{2, 1}}}});
  run({"Conv", {2, 3, 7, 8}, {5, 3, 5, 1}, false, {{"dilations", Ints{1, 2}}}});
  run({"Conv", {1, 6, 5, 5}, {6, 3, 3, 3}, false, {{"group", int64_t{2}}}});
  // Only Download's helpers may add pipelines; the conv itself adds none.
  EXPECT_EQ(ctx.cached_kernel_count(), after_first);
}

// A generated 100-layer CNN (MobileNet-like blocks: 1x1 expansions, depthwise 3x3 with
// strides 1 and 2, 3x3 convs, projections, ConvTranspose upsampling; channels 8..48, spatial
// extents 5..40) compiles a bounded number of pipelines, and its output matches the float64
// references layer by layer.
TEST(ConvParamBlock, HundredLayerCnnCompilesFewPipelines) {
  // A context of its own: its pipeline cache starts empty, so the count is the graph's alone.
  auto created = webgpu::Context::Create();
  ASSERT_TRUE(created.ok()) << created.error().ToString();
  webgpu::Context& ctx = **created;
  Executor ex(ctx, ExecutorOptions{.caps = CpuCaps()});
  std::mt19937_64 rng(testing::Seed() + 14);
  const char* acts[] = {"", "Relu", "Clip:0:6", "HardSwish"};
  Graph g(1);
  std::vector<Tensor> dev;
  std::vector<RefTensor> ref_inputs;
  Shape shape{1, 8, 40, 36};
  RefTensor x = Random(rng, shape);
  ref_inputs.push_back(x);
  dev.push_back(*ex.Upload(DType::kF32, x.shape, testing::ToHost(x)));
  int value = 0;
  auto add_input = [&](const Shape& s, double scale) {
    RefTensor t = Random(rng, s, scale);
    dev.push_back(*ex.Upload(DType::kF32, t.shape, testing::ToHost(t)));
    ref_inputs.push_back(t);
    ++g.num_inputs;
    ++g.num_values;
    return static_cast<int>(ref_inputs.size()) - 1;
  };
  // Graph inputs (weights, biases) take the first value ids, so the layers are drawn first and
  // the nodes added afterwards.
  struct Pending {
    std::string op;
    Attributes at;
    int w, b;
  };
  std::vector<Pending> pending;
  std::uniform_int_distribution<int> pick(0, 99);
  uint64_t c = shape[1], h = shape[2], wd = shape[3];
  for (int i = 0; pending.size() < 100; ++i) {
    const Attributes act{{"alknet.activation", AttrValue(std::string(acts[pick(rng) % 4]))}};
    const int kind = i % 5;
    uint64_t m = c;
    Attributes at = act;
    Shape ws;
    std::string op = "Conv";
    if (kind == 0) {  // 1x1 expansion
      m = std::min<uint64_t>(48, c + 8 * (1 + pick(rng) % 3));
      ws = {m, c, 1, 1};
    } else if (kind == 1) {  // depthwise 3x3, sometimes strided
      const int64_t s = h > 10 && pick(rng) % 3 == 0 ? 2 : 1;
      at["group"] = int64_t(c);
      at["pads"] = Ints{1, 1, 1, 1};
      at["strides"] = Ints{s, s};
      ws = {c, 1, 3, 3};
      h = (h + 2 - 3) / s + 1;
      wd = (wd + 2 - 3) / s + 1;
    } else if (kind == 2) {  // 1x1 projection
      m = 8 + 4 * (pick(rng) % 6);
      ws = {m, c, 1, 1};
    } else if (kind == 3) {  // 3x3, or a ConvTranspose 2x2/2 upsampling when small
      if (h < 12 && pick(rng) % 2 == 0) {
        op = "ConvTranspose";
        // As in detector heads: Relu or nothing (so at most 3 x 4 + 2 = 14 programs can
        // exist, whatever the seed draws).
        at["alknet.activation"] = std::string(pick(rng) % 2 ? "Relu" : "");
        m = 8 + 8 * (pick(rng) % 3);
        at["strides"] = Ints{2, 2};
        ws = {c, m, 2, 2};
        h *= 2;
        wd *= 2;
      } else {
        m = 8 + 4 * (pick(rng) % 8);
        at["pads"] = Ints{1, 1, 1, 1};
        ws = {m, c, 3, 3};
      }
    } else {  // 3x3 with dilation 2 or a 5x5 stride 2 when large
      m = 8 + 8 * (pick(rng) % 4);
      if (h > 20) {
        at["pads"] = Ints{2, 2, 2, 2};
        at["strides"] = Ints{2, 2};
        ws = {m, c, 5, 5};
        h = (h + 4 - 5) / 2 + 1;
        wd = (wd + 4 - 5) / 2 + 1;
      } else {
        at["pads"] = Ints{2, 2, 2, 2};
        at["dilations"] = Ints{2, 2};
        ws = {m, c, 3, 3};
      }
    }
    uint64_t fan_in = 1;
    for (size_t k = 1; k < ws.size(); ++k) fan_in *= ws[k];
    if (op == "ConvTranspose") fan_in = ws[0];
    const int w = add_input(ws, std::sqrt(3.0 / double(fan_in)));
    const int b = add_input({m}, 0.1);
    pending.push_back({op, at, w, b});
    c = m;
  }
  // Nodes: value 0 is X, values 1.. the weights and biases; node outputs follow.
  for (const Pending& p : pending) {
    value = g.Add(p.op, {value, p.w, p.b}, p.at, 17);
  }
  g.outputs = {value};
  const size_t before = ctx.cached_kernel_count();
  auto out = ex.Run(g, dev);
  ASSERT_TRUE(out.ok()) << out.error().ToString();
  const size_t compiled = ctx.cached_kernel_count() - before;
  std::printf("[ pipelines] %zu compiled for %zu conv layers\n", compiled, pending.size());
  // Kinds: general, 1x1, depthwise (Conv) times 4 activations, ConvTranspose times 2, all with
  // bias: 14 at most; shape-specialised programs would be one per distinct layer (~100).
  EXPECT_LE(compiled, 15u) << "pipelines compiled for 100 conv layers";
  EXPECT_GE(compiled, 4u);  // the four kinds ran (the counter counts)
  // The float64 references, layer by layer.
  RefTensor cur = ref_inputs[0];
  for (const Pending& p : pending) {
    OpNode node{p.op, "", 17, p.at, {}, {}};
    std::vector<RefTensor> in{cur, ref_inputs[p.w], ref_inputs[p.b]};
    for (const RefTensor& t : in) node.inputs.push_back(TensorDesc{t.dtype, t.shape});
    auto r = ReferenceRun(node, in);
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    cur = (*r)[0];
  }
  auto host = ex.Download((*out)[0]);
  ASSERT_TRUE(host.ok());
  ASSERT_EQ(host->shape, cur.shape);
  EXPECT_TRUE(Near(testing::FromHost(*host), cur.data, 1e-4, 1e-4));
}

// A detector-like graph (docs/adr/0011-bounded-programs.md): 3x3 convs with fused
// activations, squeeze-excitation (GlobalAveragePool, HardSigmoid with varying alpha, a
// broadcasting Mul), residual Adds, MaxPool / AveragePool and nearest / linear Upsample, over
// about 25 distinct shapes. With shapes in the parameter block the pipelines are one per kind,
// not one per (kind, shape); the result matches the float64 references node by node.
TEST(BoundedPrograms, DetectorLikeGraphCompilesFewPipelines) {
  auto created = webgpu::Context::Create();
  ASSERT_TRUE(created.ok()) << created.error().ToString();
  webgpu::Context& ctx = **created;
  Executor ex(ctx, ExecutorOptions{.caps = CpuCaps()});
  std::mt19937_64 rng(testing::Seed() + 15);
  // Nodes are drawn first (weights are graph inputs and take the first value ids).
  struct Step {
    std::string op;
    Attributes at;
    std::vector<int> in;  // >= 0: a node output (index into steps); < 0: -1 - weight index
    int opset = 17;
  };
  std::vector<Step> steps;
  std::vector<RefTensor> weights;
  auto weight = [&](const Shape& s, double scale) {
    weights.push_back(Random(rng, s, scale));
    return -1 - static_cast<int>(weights.size() - 1);
  };
  const char* acts[] = {"", "Relu", "HardSwish"};
  const uint64_t chans[] = {8, 12, 16, 20, 24};
  uint64_t c = 8, h = 20, w = 24;
  int x = -1000;                 // the graph input
  std::set<std::string> shapes;  // (op, output shape): what shape-specialised programs key on
  for (int i = 0; i < 24; ++i) {
    const uint64_t m = i % 3 == 2 ? c : chans[(i * 7 + 3) % 5];
    steps.push_back(
        {"Conv",
         {{"pads", Ints{1, 1, 1, 1}}, {"alknet.activation", AttrValue(std::string(acts[i % 3]))}},
         {x, weight({m, c, 3, 3}, std::sqrt(3.0 / double(c * 9))), weight({m}, 0.1)}});
    const int y = static_cast<int>(steps.size()) - 1;
    steps.push_back({"GlobalAveragePool", {}, {y}});
    steps.push_back({"HardSigmoid",
                     {{"alpha", AttrValue(0.2 + 0.05 * (i % 3))}, {"beta", AttrValue(0.5)}},
                     {static_cast<int>(steps.size()) - 1}});
    steps.push_back({"Mul", {}, {y, static_cast<int>(steps.size()) - 1}});
    int out = static_cast<int>(steps.size()) - 1;
    if (m == c && x != -1000) {
      steps.push_back({"Add", {}, {out, x}});
      out = static_cast<int>(steps.size()) - 1;
    }
    for (const char* op : {"Conv", "GlobalAveragePool", "HardSigmoid", "Mul", "Add"}) {
      shapes.insert(std::string(op) + ShapeToString({1, m, h, w}));
    }
    c = m;
    if (i % 4 == 1 && h >= 8 && w >= 8) {
      if (i % 8 == 1) {
        steps.push_back(
            {"MaxPool", {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}}, {out}});
        h /= 2;
        w /= 2;
      } else {
        steps.push_back(
            {"AveragePool",
             {{"kernel_shape", Ints{3, 3}}, {"pads", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}},
             {out}});
        h = (h + 1) / 2;
        w = (w + 1) / 2;
      }
      out = static_cast<int>(steps.size()) - 1;
      shapes.insert(steps.back().op + ShapeToString({1, c, h, w}));
    } else if (i % 4 == 3 && h < 12) {
      steps.push_back({"Upsample",
                       {{"scales", std::vector<double>{1, 1, 2, 2}},
                        {"mode", AttrValue(std::string(i % 8 == 3 ? "nearest" : "linear"))}},
                       {out},
                       7});
      h *= 2;
      w *= 2;
      out = static_cast<int>(steps.size()) - 1;
      shapes.insert("Upsample" + ShapeToString({1, c, h, w}));
    }
    x = out;
  }
  // Values: 0 the input, 1..W the weights, then one per step.
  const int nw = static_cast<int>(weights.size());
  auto value_of = [&](int ref) { return ref == -1000 ? 0 : ref < 0 ? -ref : 1 + nw + ref; };
  Graph g(1 + nw);
  for (const Step& st : steps) {
    std::vector<int> ins;
    for (int r : st.in) ins.push_back(value_of(r));
    g.Add(st.op, ins, st.at, st.opset);
  }
  g.outputs = {g.num_values - 1};
  RefTensor input = Random(rng, {1, 8, 20, 24});
  std::vector<Tensor> dev{*ex.Upload(DType::kF32, input.shape, testing::ToHost(input))};
  for (const RefTensor& t : weights)
    dev.push_back(*ex.Upload(DType::kF32, t.shape, testing::ToHost(t)));
  const size_t before = ctx.cached_kernel_count();
  auto out = ex.Run(g, dev);
  ASSERT_TRUE(out.ok()) << out.error().ToString();
  const size_t compiled = ctx.cached_kernel_count() - before;
  std::printf("[ pipelines] %zu compiled for %zu nodes of %zu distinct (op, shape)\n", compiled,
              steps.size(), shapes.size());
  // Kinds: Conv 3x3 x 3 activations; GlobalAveragePool, HardSigmoid, broadcast Mul, Add,
  // MaxPool, AveragePool; Upsample nearest and linear: 11. Shape-specialised: one per
  // distinct (op, shape), far more than the bound.
  EXPECT_LE(compiled, 12u) << "pipelines compiled for " << steps.size() << " nodes";
  EXPECT_GT(shapes.size(), 2 * compiled);
  // The float64 references, node by node.
  std::vector<RefTensor> vals;
  auto ref_of = [&](int r) -> const RefTensor& {
    return r == -1000 ? input
           : r < 0    ? weights[static_cast<size_t>(-1 - r)]
                      : vals[static_cast<size_t>(r)];
  };
  for (const Step& st : steps) {
    OpNode node{st.op, "", st.opset, st.at, {}, {}};
    std::vector<RefTensor> in;
    for (int r : st.in) {
      in.push_back(ref_of(r));
      node.inputs.push_back(TensorDesc{in.back().dtype, in.back().shape});
    }
    auto r = ReferenceRun(node, in);
    ASSERT_TRUE(r.ok()) << st.op << ": " << r.error().ToString();
    vals.push_back((*r)[0]);
  }
  auto host = ex.Download((*out)[0]);
  ASSERT_TRUE(host.ok());
  ASSERT_EQ(host->shape, vals.back().shape);
  EXPECT_TRUE(Near(testing::FromHost(*host), vals.back().data, 1e-4, 1e-4));
}

// Elementwise, pool and Resize nodes of different shapes and float attributes share one
// pipeline per structure, and match the references (shapes that used to get programs of
// their own).
TEST(BoundedPrograms, ShapesShareOnePipeline) {
  webgpu::Context& ctx = SharedContext();
  Executor ex(ctx, ExecutorOptions{.caps = CpuCaps()});
  std::mt19937_64 rng(testing::Seed() + 16);
  auto check = [&](const std::string& op, const std::vector<Shape>& xs, const Attributes& at,
                   int opset = 17) {
    std::vector<RefTensor> in;
    std::vector<Tensor> dev;
    OpNode node{op, "", opset, at, {}, {}};
    for (const Shape& s : xs) {
      in.push_back(Random(rng, s));
      dev.push_back(*ex.Upload(DType::kF32, s, testing::ToHost(in.back())));
      node.inputs.push_back(TensorDesc{DType::kF32, s});
    }
    auto ref = ReferenceRun(node, in);
    ASSERT_TRUE(ref.ok()) << op << ": " << ref.error().ToString();
    auto out = ex.Run(op, dev, at, opset);
    ASSERT_TRUE(out.ok()) << op << ": " << out.error().ToString();
    auto host = ex.Download(*out);
    ASSERT_TRUE(host.ok());
    ASSERT_EQ(host->shape, (*ref)[0].shape) << op;
    EXPECT_TRUE(Near(testing::FromHost(*host), (*ref)[0].data, 1e-5, 1e-5)) << op;
  };
  struct Kind {
    std::string op;
    std::vector<std::vector<Shape>> shapes;
    std::vector<Attributes> attrs;
    int opset = 17;
  };
  const std::vector<Kind> kinds = {
      {"Add", {{{2, 5, 7}, {2, 5, 7}}, {{3, 9, 11}, {3, 9, 11}}}, {{}, {}}},
      {"Mul", {{{1, 6, 5, 7}, {1, 6, 1, 1}}, {{2, 3, 9, 4}, {2, 3, 1, 1}}}, {{}, {}}},
      {"Sub", {{{5, 7}, {7}}, {{3, 13}, {13}}}, {{}, {}}},
      {"HardSigmoid",
       {{{3, 5, 7}}, {{2, 9, 9}}},
       {{{"alpha", AttrValue(0.3)}}, {{"alpha", AttrValue(0.1)}, {"beta", AttrValue(0.25)}}}},
      {"LeakyRelu", {{{37}}, {{101}}}, {{{"alpha", AttrValue(0.05)}}, {{"alpha", AttrValue(0.3)}}}},
      {"MaxPool",
       {{{1, 3, 9, 11}}, {{2, 2, 6, 13}}},
       {{{"kernel_shape", Ints{3, 3}}, {"pads", Ints{1, 1, 1, 1}}},
        {{"kernel_shape", Ints{2, 3}}, {"strides", Ints{2, 1}}}}},
      {"AveragePool",
       {{{1, 3, 9, 11}}, {{1, 5, 7, 6}}},
       {{{"kernel_shape", Ints{3, 3}},
         {"pads", Ints{1, 1, 1, 1}},
         {"count_include_pad", int64_t{1}}},
        {{"kernel_shape", Ints{2, 2}},
         {"strides", Ints{2, 2}},
         {"count_include_pad", int64_t{1}}}}},
      {"GlobalAveragePool", {{{1, 7, 5, 9}}, {{2, 3, 11, 4}}}, {{}, {}}},
      {"Upsample",
       {{{1, 2, 3, 5}}, {{1, 3, 4, 2}}},
       {{{"scales", std::vector<double>{1, 1, 2, 2}}, {"mode", AttrValue(std::string("linear"))}},
        {{"scales", std::vector<double>{1, 1, 3, 2}}, {"mode", AttrValue(std::string("linear"))}}},
       7},
  };
  for (const Kind& k : kinds) {
    SCOPED_TRACE(k.op);
    check(k.op, k.shapes[0], k.attrs[0], k.opset);
    const size_t after_first = ctx.cached_kernel_count();
    check(k.op, k.shapes[1], k.attrs[1], k.opset);
    EXPECT_EQ(ctx.cached_kernel_count(), after_first)
        << k.op << ": a second shape compiled a pipeline";
  }
}

}  // namespace
}  // namespace alknet::compute
