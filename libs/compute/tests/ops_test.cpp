// Every op of the table against its float64 CPU reference, on random data (fresh seed per run,
// printed), odd sizes, broadcasting and strided views, with outputs poisoned before dispatch.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "test_util.h"

namespace alknet::compute {
namespace {

using testing::Close;
using testing::RandomTensor;
using testing::SharedContext;

struct Case {
  std::vector<Shape> shapes;
  Attributes attrs;
  bool transposed_view = false;  // input 0 is a transposed view of a [b, a] tensor
};

struct Param {
  const OpRecord* record;
  DType dtype;
};

std::string ParamName(const ::testing::TestParamInfo<Param>& p) {
  // Internal records are named "alknet.<Op>"; gtest names allow [A-Za-z0-9_] only.
  std::string name = p.param.record->name;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name + "_opset" + std::to_string(p.param.record->opset_min) + "_" +
         DTypeName(p.param.dtype);
}

std::vector<Param> AllParams() {
  std::vector<Param> out;
  for (const OpRecord& r : OpTable::Default().records()) {
    for (DType d : r.test_dtypes) out.push_back({&r, d});
  }
  return out;
}

// Each case is a distinct shader (shapes are compiled in), and lavapipe spends most of the
// suite's time compiling: f32 gets every layout, other dtypes the broadcasting case only.
// The vec4 path and rank 0 are covered for every op family by ElementwiseItemsPerInvocation.
std::vector<Case> CasesFor(const OpRecord& r, DType dtype) {
  const std::string& n = r.name;
  // MatMul and Gemm run every case on each kernel (OpTest below forces them in turn): odd
  // sizes (1, 17, 129: no multiple of any tile), small M (GEMV), batches with broadcasting.
  if (n == "MatMul") {
    return {{{{7, 13}, {13, 5}}},           {{{64, 64}, {64, 64}}},      {{{3, 65, 33}, {33, 67}}},
            {{{2, 1, 8, 16}, {3, 16, 12}}}, {{{13}, {13, 6}}},           {{{4, 13}, {13}}},
            {{{130, 96}, {96, 132}}},       {{{1, 129}, {129, 17}}},     {{{17, 1}, {1, 129}}},
            {{{129, 17}, {17, 129}}},       {{{2, 3, 17, 9}, {3, 9, 1}}}};
  }
  if (n == "Gemm") {
    return {{{{7, 13}, {13, 5}}},
            {{{7, 13}, {13, 5}, {5}}},
            {{{13, 7}, {13, 5}, {7, 1}}, {{"transA", int64_t{1}}}},
            {{{7, 13}, {5, 13}, {7, 5}}, {{"transB", int64_t{1}}, {"alpha", 0.5}, {"beta", 2.0}}},
            {{{70, 33}, {68, 33}, {}},
             {{"transA", int64_t{0}}, {"transB", int64_t{1}}, {"alpha", -1.5}}},
            {{{64, 32}, {32, 68}, {1, 68}}},
            {{{129, 17}, {33, 129}, {17, 33}},
             {{"transA", int64_t{1}}, {"transB", int64_t{1}}, {"alpha", 0.5}, {"beta", -2.0}}},
            {{{1, 129}, {31, 129}, {31}}, {{"transB", int64_t{1}}}},
            {{{3, 17}, {17, 129}, {3, 1}}, {{"beta", 0.25}}},
            {{{129, 1}, {129, 5}, {1, 5}}, {{"transA", int64_t{1}}, {"alpha", 2.0}}},
            {{{1, 2400}, {2400, 32}, {32}}},
            // The internal activation the gemm-activation pass folds into the epilogue.
            {{{7, 13}, {13, 5}, {5}}, {{"alknet.activation", std::string("Relu")}}},
            {{{1, 64}, {64, 100}, {100}}, {{"alknet.activation", std::string("Tanh")}}},
            {{{3, 17}, {33, 17}},
             {{"transB", int64_t{1}}, {"alknet.activation", std::string("Sigmoid")}}}};
  }
  if (n == "Softmax" || n == "LogSoftmax") {
    if (r.opset_min < 13)
      return {{{{3, 4, 5}}},
              {{{3, 4, 5}}, {{"axis", int64_t{0}}}},
              {{{2, 3, 7}}, {{"axis", int64_t{2}}}}};
    return {{{{3, 4, 5}}},
            {{{3, 4, 5}}, {{"axis", int64_t{0}}}},
            {{{3, 4, 5}}, {{"axis", int64_t{-2}}}},
            {{{1000}}},
            {{{7, 1, 9}}, {{"axis", int64_t{1}}}}};
  }
  std::vector<Case> cases;
  const uint32_t arity = r.name == "Where" || r.name == "Clip" ? r.max_inputs
                         : r.name == "Min" || r.name == "Max"  ? 3
                                                               : r.min_inputs;
  // cases[0] is the one every dtype runs.
  if (arity == 1) {
    cases = {{{{3, 5, 7}}}, {{{1031}}}, {{{7, 5}}, {}, true}};
  } else if (arity == 2) {
    cases = {{{{3, 1, 7}, {5, 1}}},
             {{{1031}, {1031}}},
             {{{2, 3, 4, 5}, {4, 1}}},
             {{{}, {6, 5}}},
             {{{5, 9}, {9}}, {}, true}};
    if (n == "PRelu")
      cases = {{{{3, 5, 7}, {5, 1}}},
               {{{1031}, {1031}}},
               {{{2, 3, 4, 5}, {}}},
               {{{5, 9}, {9}}, {}, true}};
  } else {
    cases = {{{{3, 5, 7}, {5, 7}, {1, 7}}}, {std::vector<Shape>(arity, Shape{1031})}};
    if (n == "Clip") cases = {{{{3, 5, 7}, {}, {}}}, {{{1031}, {}}}, {{{9, 7}, {}, {}}, {}, true}};
  }
  // Non-default attributes, so the template's parameters are exercised too.
  std::map<std::string, Attributes> extra = {
      {"LeakyRelu", {{"alpha", 0.2}}},
      {"Elu", {{"alpha", 0.5}}},
      {"Celu", {{"alpha", 2.0}}},
      {"Selu", {{"alpha", 1.5}, {"gamma", 2.0}}},
      {"HardSigmoid", {{"alpha", 0.3}, {"beta", 0.4}}},
      {"Gelu", {{"approximate", std::string("tanh")}}},
      {"Clip", {{"min", -1.5}, {"max", 2.25}}},
  };
  if (auto it = extra.find(n); it != extra.end() && !(n == "Clip" && r.opset_min >= 11)) {
    cases.push_back({cases[0].shapes, it->second});
  }
  if (dtype != DType::kF32) cases.resize(1);
  return cases;
}

class OpTest : public ::testing::TestWithParam<Param> {};

std::vector<RefTensor> Transpose2D(RefTensor t) {
  // t has shape [b, a]; the returned data is laid out [a, b].
  RefTensor o{t.dtype, {t.shape[1], t.shape[0]}, std::vector<double>(t.data.size())};
  for (uint64_t i = 0; i < t.shape[0]; ++i)
    for (uint64_t j = 0; j < t.shape[1]; ++j)
      o.data[j * t.shape[0] + i] = t.data[i * t.shape[1] + j];
  return {o};
}

void RunCase(const OpRecord& r, DType dtype, const Case& c, std::mt19937_64& rng, Executor& ex) {
  std::vector<RefTensor> ref_inputs;
  std::vector<Tensor> dev_inputs;
  std::string what = r.name + " " + DTypeName(dtype);
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    DType d = dtype;
    if (r.name == "Where" && i == 0) d = DType::kBool;
    Shape s = c.shapes[i];
    const bool view = c.transposed_view && i == 0;
    if (view) std::swap(s[0], s[1]);
    RefTensor t = RandomTensor(rng, d, s, r.hints);
    auto up = ex.Upload(d, s, testing::ToHost(t));
    ASSERT_TRUE(up.ok()) << up.error().ToString();
    Tensor dev = *up;
    if (view) {
      auto tv = dev.Transpose({1, 0});
      ASSERT_TRUE(tv.ok());
      dev = *tv;
      t = Transpose2D(t)[0];
    }
    what += " " + ShapeToString(c.shapes[i]) + (view ? "(view)" : "");
    ref_inputs.push_back(t);
    dev_inputs.push_back(dev);
  }
  for (const auto& [k, v] : c.attrs) what += " " + k + "=" + AttrToString(v);
  OpNode node{r.name, "t", r.opset_min, c.attrs, {}, {}};
  auto ref = ReferenceRun(node, ref_inputs);
  ASSERT_TRUE(ref.ok()) << what << ": " << ref.error().ToString();
  auto out = ex.Run(r.name, dev_inputs, c.attrs, r.opset_min);
  ASSERT_TRUE(out.ok()) << what << ": " << out.error().ToString();
  auto host = ex.Download(*out);
  ASSERT_TRUE(host.ok()) << host.error().ToString();
  ASSERT_EQ(host->shape, (*ref)[0].shape) << what;
  double abs_tol = r.hints.abs_tol, rel_tol = r.hints.rel_tol;
  if (dtype == DType::kF16) {
    abs_tol = std::max(abs_tol, 4e-3);
    rel_tol = std::max(rel_tol, 4e-3);
  }
  EXPECT_TRUE(Close(testing::FromHost(*host), (*ref)[0].data, abs_tol, rel_tol, what));
}

// A case the record states itself (OpRecord::test_cases): fixed values where given (host
// inputs always), random data elsewhere, absent inputs, every output compared.
void RunRecordCase(const OpRecord& r, DType dtype, const OpTestCase& c, std::mt19937_64& rng,
                   Executor& ex) {
  std::string what = r.name + " opset " + std::to_string(r.opset_min) + " " + DTypeName(dtype) +
                     (c.label.empty() ? "" : " [" + c.label + "]");
  Graph g(0);
  Graph::Node node;
  node.op = r.name;
  node.opset = r.opset_min;
  node.attributes = c.attrs;
  node.name = "t";
  std::vector<RefTensor> ref_inputs;
  std::vector<Tensor> dev_inputs;
  OpNode ref_node{r.name, "t", r.opset_min, c.attrs, {}, {}};
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    if (!c.shapes[i]) {
      node.inputs.push_back(Graph::kAbsent);
      node.input_values.push_back(nullptr);
      ref_inputs.push_back(RefTensor{});
      TensorDesc absent;
      absent.absent = true;
      ref_node.inputs.push_back(absent);
      continue;
    }
    auto fixed = c.values.find(i);
    RefTensor t =
        fixed != c.values.end() ? fixed->second : RandomTensor(rng, dtype, *c.shapes[i], r.hints);
    what += " " + std::string(DTypeName(t.dtype)) + ShapeToString(t.shape);
    ref_inputs.push_back(t);
    ref_node.inputs.push_back(TensorDesc{t.dtype, t.shape});
    if (r.is_host_input(i)) {
      node.inputs.push_back(Graph::kAbsent);
      node.input_values.push_back(std::make_shared<const RefTensor>(t));
      continue;
    }
    auto up = ex.Upload(t.dtype, t.shape, testing::ToHost(t));
    ASSERT_TRUE(up.ok()) << what << ": " << up.error().ToString();
    node.inputs.push_back(g.num_inputs);
    node.input_values.push_back(fixed != c.values.end() ? std::make_shared<const RefTensor>(t)
                                                        : nullptr);
    dev_inputs.push_back(*up);
    ++g.num_inputs;
  }
  for (const auto& [k, v] : c.attrs) what += " " + k + "=" + AttrToString(v);
  auto ref = ReferenceRun(ref_node, ref_inputs);
  ASSERT_TRUE(ref.ok()) << what << ": " << ref.error().ToString();
  g.num_values = g.num_inputs;
  node.first_output = g.num_values;
  node.output_count = static_cast<int>(ref->size());
  g.num_values += node.output_count;
  for (int o = 0; o < node.output_count; ++o) g.outputs.push_back(node.first_output + o);
  g.nodes.push_back(node);
  auto out = ex.Run(g, dev_inputs);
  ASSERT_TRUE(out.ok()) << what << ": " << out.error().ToString();
  for (size_t o = 0; o < out->size(); ++o) {
    auto host = ex.Download((*out)[o]);
    ASSERT_TRUE(host.ok()) << host.error().ToString();
    ASSERT_EQ(host->shape, (*ref)[o].shape) << what << " output " << o;
    ASSERT_EQ(host->dtype, (*ref)[o].dtype) << what << " output " << o;
    EXPECT_TRUE(Close(testing::FromHost(*host), (*ref)[o].data, r.hints.abs_tol, r.hints.rel_tol,
                      what + " output " + std::to_string(o)));
  }
}

TEST_P(OpTest, MatchesFloat64Reference) {
  const Param& p = GetParam();
  webgpu::Context& ctx = SharedContext();
  if (p.dtype == DType::kF16 && !ctx.HasFeature(WGPUFeatureName_ShaderF16)) {
    GTEST_SKIP() << "the adapter lacks shader-f16";
  }
  // Both MatMul, Conv and reduction kernels run everywhere: staged through workgroup memory
  // (what GPUs get) and straight from storage (what CPU adapters get). MatMul and Gemm run
  // each of their kernels (ALKNET_MATMUL_VARIANT's values) on every case, split-K too (the
  // small tiles: every case with K past 4 runs as 2 or 3 slices).
  std::vector<DeviceCaps> variants{CapsOf(ctx)};
  if (p.record->shader == "linalg/matmul") {
    variants.clear();
    for (const char* v :
         {"auto", "rows", "dot", "gemv", "tiled", "big", "tile:32x32x4:4x4:split3"}) {
      variants.push_back(CapsOf(ctx));
      variants.back().matmul_variant = v;
    }
  } else if (p.record->shader == "conv/conv" || p.record->shader == "reduce/reduce" ||
             p.record->shader == "reduce/argmax") {
    variants = {CapsOf(ctx), CapsOf(ctx)};
    variants[0].shared_memory_tiles = true;
    variants[1].shared_memory_tiles = false;
    if (p.record->shader == "conv/conv") {
      // And Conv's parametric two-stage tiling (ALKNET_CONV_VARIANT), split-K slices included.
      variants.push_back(CapsOf(ctx));
      variants.back().conv_variant = "tile:64x128x8:8x8";
    }
  } else if (p.record->params) {
    // Elementwise, pool and Resize: shapes rendered as constants (GPUs) and read from the
    // parameter block (CPU adapters, docs/adr/0011-bounded-programs.md).
    variants = {CapsOf(ctx), CapsOf(ctx)};
    variants[0].shared_memory_tiles = true;
    variants[1].shared_memory_tiles = false;
  }
  for (const DeviceCaps& caps : variants) {
    SCOPED_TRACE("matmul_variant=" + caps.matmul_variant + " conv_variant=" + caps.conv_variant +
                 " shared_memory_tiles=" + std::to_string(caps.shared_memory_tiles));
    Executor ex(ctx, ExecutorOptions{.poison_outputs = true, .caps = caps});
    std::mt19937_64 rng(testing::Seed() ^
                        std::hash<std::string>{}(p.record->name + DTypeName(p.dtype)));
    if (!p.record->test_cases.empty()) {
      for (const OpTestCase& c : p.record->test_cases)
        RunRecordCase(*p.record, p.dtype, c, rng, ex);
      continue;
    }
    for (const Case& c : CasesFor(*p.record, p.dtype)) {
      if (p.record->name == "Cast") {
        for (int64_t to : {1, 6, 9, 12}) {
          Case cc = c;
          cc.attrs["to"] = to;
          RunCase(*p.record, p.dtype, cc, rng, ex);
        }
        continue;
      }
      RunCase(*p.record, p.dtype, c, rng, ex);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllOps, OpTest, ::testing::ValuesIn(AllParams()), ParamName);

// The elementwise kernel's two shapes: one element per invocation (GPUs) and several
// (CPU adapters); the table run above uses whichever the device gets, this one the other.
TEST(OpSemantics, ElementwiseItemsPerInvocation) {
  webgpu::Context& ctx = SharedContext();
  for (uint32_t per : {1u, 3u}) {
    DeviceCaps caps = CapsOf(ctx);
    caps.items_per_invocation = per;
    caps.max_workgroups_per_dimension = 4;  // and spill the grid into y on the way
    Executor ex(ctx, ExecutorOptions{.poison_outputs = true, .caps = caps});
    std::mt19937_64 rng(testing::Seed() + per);
    const OpTable& t = OpTable::Default();
    RunCase(*t.Find("Abs", 13), DType::kF32, Case{{{4096}}}, rng, ex);  // vec4
    RunCase(*t.Find("Abs", 13), DType::kF32, Case{{{3001}}}, rng, ex);
    RunCase(*t.Find("Abs", 13), DType::kF32, Case{{{}}}, rng, ex);           // rank 0
    RunCase(*t.Find("Add", 14), DType::kF32, Case{{{0, 3}, {3}}}, rng, ex);  // no elements
    RunCase(*t.Find("Add", 14), DType::kF32, Case{{{4096}, {4096}}}, rng, ex);
    RunCase(*t.Find("Add", 14), DType::kI32, Case{{{3, 1, 7}, {5, 1}}}, rng, ex);
    RunCase(*t.Find("Less", 13), DType::kF32, Case{{{4096}, {4096}}}, rng, ex);  // vec4 bool out
    RunCase(*t.Find("Where", 16), DType::kI32, Case{{{7, 5}, {5}, {}}}, rng, ex);
    RunCase(*t.Find("Where", 16), DType::kF32, Case{{{4096}, {4096}, {4096}}}, rng, ex);
    RunCase(*t.Find("Max", 13), DType::kF32, Case{{{4096}, {4096}, {4096}}}, rng, ex);
    RunCase(*t.Find("Tanh", 13), DType::kF32, Case{{{9, 7}}, {}, true}, rng, ex);
    if (ctx.HasFeature(WGPUFeatureName_ShaderF16))
      RunCase(*t.Find("Gelu", 20), DType::kF16, Case{{{4096}}}, rng, ex);
  }
}

// MatMul's sizes are run-time parameters: MatMuls of one kind and layout (here M >= 8, rows
// not multiples of 4) compile one pipeline between them, and each still matches float64.
TEST(OpSemantics, MatMulShapesShareOnePipeline) {
  webgpu::Context& ctx = SharedContext();
  for (const char* variant : {"rows", "tiled", "big", "tile:128x64x8:8x4"}) {
    DeviceCaps caps = CapsOf(ctx);
    caps.matmul_variant = variant;
    Executor ex(ctx, ExecutorOptions{.caps = caps});
    std::mt19937_64 rng(testing::Seed() + 3);
    const OpRecord& r = *OpTable::Default().Find("MatMul", 13);
    const size_t before = ctx.cached_kernel_count();
    for (Shape s : {Shape{11, 23, 7}, Shape{131, 19, 37}, Shape{301, 3, 1}, Shape{9, 5, 2}}) {
      RunCase(r, DType::kF32, Case{{{s[0], s[1]}, {s[1], s[2]}}}, rng, ex);
    }
    EXPECT_LE(ctx.cached_kernel_count() - before, 1u) << variant;
  }
}

// The tiled template's other tilings (ALKNET_MATMUL_VARIANT=tile:BMxBNxBK:TMxTN, what
// tools/h200-gemm-sweep measures on the H200), forced on small and odd shapes: blocks larger
// than the matrices, sizes not multiples of 4 (scalar loads) and multiples (vec4), K shorter
// than one BK step and several steps, a batch, both transposes, Gemm's bias and scales.
TEST(OpSemantics, MatMulTilingsMatchFloat64) {
  webgpu::Context& ctx = SharedContext();
  const OpRecord& mm = *OpTable::Default().Find("MatMul", 13);
  const OpRecord& gemm = *OpTable::Default().Find("Gemm", 13);
  // Auto's big-GPU picks (256x128x16:16x8, 128x128x8:8x8), the first's register tiling with
  // BK 8 (24 KiB: lavapipe's 32 KiB holds it, not the 48 KiB one), TM != TN both ways, and a
  // block with fewer vec4 per tile than invocations (32x32x4). Each costs llvmpipe a few
  // compiles of a large unrolled shader, so the cases are few.
  for (const char* v : {"tile:256x128x16:16x8", "tile:256x128x8:16x8", "tile:128x128x8:8x8",
                        "tile:128x64x16:8x4", "tile:64x128x16:4x8", "tile:32x32x4:4x4"}) {
    SCOPED_TRACE(std::string("matmul_variant=") + v);
    DeviceCaps caps = CapsOf(ctx);
    caps.matmul_variant = v;
    Executor ex(ctx, ExecutorOptions{.poison_outputs = true, .caps = caps});
    // A tiling larger than this device's workgroup limits is refused with the reason (the
    // generator tests check that); it is reported here and the others still run.
    {
      auto probe = ex.generator().Generate(
          {"MatMul",
           "probe",
           13,
           {},
           {TensorDesc{DType::kF32, {8, 8}}, TensorDesc{DType::kF32, {8, 8}}},
           {}},
          ex.caps());
      if (!probe.ok() && probe.error().message.find("exceed the device") != std::string::npos) {
        std::printf("[ skipped  ] %s: %s\n", v, probe.error().message.c_str());
        continue;
      }
    }
    std::mt19937_64 rng(testing::Seed() + 5);
    RunCase(mm, DType::kF32, Case{{{37, 29}, {29, 45}}}, rng, ex);
    RunCase(mm, DType::kF32, Case{{{2, 3, 17, 12}, {12, 20}}}, rng, ex);  // vec4, batched
    RunCase(
        gemm, DType::kF32,
        Case{{{19, 33}, {41, 33}, {41}}, {{"transB", int64_t{1}}, {"alpha", 0.5}, {"beta", -2.0}}},
        rng, ex);
  }
}

// Split-K (ALKNET_MATMUL_VARIANT=tile:BMxBNxBK:TMxTN:splitS: alknet.MatMulPartial writes one
// partial product per K slice, alknet.MatMulSplitKSum adds them through Gemm's epilogue),
// forced with small tiles, one of BK 16 and auto's 256x128 register tiling with BK 8 (the BK
// 16 one needs 48 KiB, more than lavapipe has): square and non-square, K a multiple of the
// slices and ragged (the last slice shorter), batched with broadcasting (3-D, 4-D), Gemm's
// transposes, alpha and beta, C's broadcast forms and the fused activation.
TEST(OpSemantics, MatMulSplitKMatchesFloat64) {
  webgpu::Context& ctx = SharedContext();
  const OpTable& table = OpTable::Default();
  const OpRecord& mm = *table.Find("MatMul", 13);
  const OpRecord& gemm = *table.Find("Gemm", 13);
  for (const char* v :
       {"tile:32x32x4:4x4:split3", "tile:64x64x16:4x4:split4", "tile:256x128x8:16x8:split2"}) {
    SCOPED_TRACE(std::string("matmul_variant=") + v);
    DeviceCaps caps = CapsOf(ctx);
    caps.matmul_variant = v;
    Executor ex(ctx, ExecutorOptions{.poison_outputs = true, .caps = caps});
    // The variant really splits: MatMul's specialization is the two-node graph.
    {
      OpNode n{"MatMul",
               "probe",
               13,
               {},
               {TensorDesc{DType::kF32, {64, 100}}, TensorDesc{DType::kF32, {100, 64}}},
               {}};
      auto at = table.ResolveAttributes(mm, n);
      ASSERT_TRUE(at.ok());
      auto g = mm.specialize(n, *at, caps);
      ASSERT_TRUE(g.has_value());
      ASSERT_EQ(g->nodes.size(), 2u);
      EXPECT_EQ(g->nodes[0].op, "alknet.MatMulPartial");
      EXPECT_EQ(g->nodes[1].op, "alknet.MatMulSplitKSum");
    }
    std::mt19937_64 rng(testing::Seed() + 13);
    RunCase(mm, DType::kF32, Case{{{64, 64}, {64, 64}}}, rng, ex);           // vec4, K = S * BK
    RunCase(mm, DType::kF32, Case{{{37, 29}, {29, 45}}}, rng, ex);           // scalar loads, ragged
    RunCase(mm, DType::kF32, Case{{{70, 100}, {100, 33}}}, rng, ex);         // K not S * BK
    RunCase(mm, DType::kF32, Case{{{3, 20, 52}, {52, 24}}}, rng, ex);        // 3-D, B broadcast
    RunCase(mm, DType::kF32, Case{{{2, 1, 17, 40}, {3, 40, 12}}}, rng, ex);  // 4-D broadcast
    RunCase(mm, DType::kF32, Case{{{130}, {130, 9}}}, rng, ex);              // 1-D A
    RunCase(
        gemm, DType::kF32,
        Case{{{50, 19}, {50, 23}, {23}}, {{"transA", int64_t{1}}, {"alpha", 0.5}, {"beta", -2.0}}},
        rng, ex);
    RunCase(gemm, DType::kF32,
            Case{{{21, 70}, {30, 70}, {21, 1}}, {{"transB", int64_t{1}}, {"beta", 0.25}}}, rng, ex);
    RunCase(gemm, DType::kF32,
            Case{{{70, 21}, {30, 70}, {21, 30}},
                 {{"transA", int64_t{1}}, {"transB", int64_t{1}}, {"alpha", -1.5}}},
            rng, ex);
    RunCase(gemm, DType::kF32,
            Case{{{33, 90}, {90, 17}, {1, 17}}, {{"alknet.activation", std::string("Relu")}}}, rng,
            ex);
    RunCase(gemm, DType::kF32,
            Case{{{16, 64}, {64, 36}}, {{"alknet.activation", std::string("Relu")}}}, rng, ex);
  }
}

// The small-M kernel (ALKNET_MATMUL_VARIANT=gemv:CW, K split across a workgroup's lanes) with
// each of its widths forced, and auto (on this adapter's caps and on a GPU's), on every
// combination of small M, K around the four-k steps and long (2400, 4099: many steps per K
// slice, a tail), and N around the four-column groups and past one workgroup (257); then
// Gemm's transposes, scales and C's broadcast forms, and broadcast batches.
TEST(OpSemantics, MatMulGemvMatchesFloat64) {
  webgpu::Context& ctx = SharedContext();
  const OpRecord& mm = *OpTable::Default().Find("MatMul", 13);
  const OpRecord& gemm = *OpTable::Default().Find("Gemm", 13);
  std::vector<DeviceCaps> variants;
  for (const char* v : {"gemv:1", "gemv:4", "gemv:16", "auto", "auto-gpu"}) {
    variants.push_back(CapsOf(ctx));
    variants.back().matmul_variant = v;
    if (std::string(v) == "auto-gpu") {
      variants.back().matmul_variant = "auto";
      variants.back().shared_memory_tiles = true;
    }
  }
  for (size_t vi = 0; vi < variants.size(); ++vi) {
    const DeviceCaps& caps = variants[vi];
    SCOPED_TRACE("matmul_variant=" + caps.matmul_variant +
                 " shared_memory_tiles=" + std::to_string(caps.shared_memory_tiles));
    Executor ex(ctx, ExecutorOptions{.poison_outputs = true, .caps = caps});
    std::mt19937_64 rng(testing::Seed() + 11 + vi);
    // Every (K, N) pair, M cycling through its values (shifted per variant, so that each
    // variant meets each M at every K and at every N); auto only the long-K shapes.
    const bool forced = caps.matmul_variant != "auto";
    const uint64_t ms[] = {1, 2, 3, 5, 16};
    size_t mi = vi;
    for (uint64_t K : {1, 3, 4, 5, 2400, 4099}) {
      for (uint64_t N : {1, 3, 4, 32, 257}) {
        const uint64_t M = ms[mi++ % 5];
        if (!forced && K < 2400) continue;
        RunCase(mm, DType::kF32, Case{{{M, K}, {K, N}}}, rng, ex);
      }
      ++mi;
    }
    // Gemm: every transpose pair, alpha/beta, C as [N], [1, N], [M, 1], [M, N], a scalar, absent.
    auto c_of = [](int form, uint64_t M, uint64_t N) -> std::optional<Shape> {
      switch (form % 6) {
        case 0: return Shape{N};
        case 1: return Shape{1, N};
        case 2: return Shape{M, 1};
        case 3: return Shape{M, N};
        case 4: return Shape{};
        default: return std::nullopt;
      }
    };
    int form = 0;
    for (uint64_t M : {1, 3, 16}) {
      for (uint64_t K : {5, 2400}) {
        for (uint64_t N : {3, 32}) {
          for (int t = 0; t < 4; ++t) {
            const bool ta = t & 1, tb = t & 2;
            const std::optional<Shape> c = c_of(form++, M, N);
            Case g{{ta ? Shape{K, M} : Shape{M, K}, tb ? Shape{N, K} : Shape{K, N}},
                   {{"transA", int64_t{ta}}, {"transB", int64_t{tb}}, {"alpha", 0.75}}};
            if (c) {
              g.shapes.push_back(*c);
              g.attrs["beta"] = -1.5;
            }
            RunCase(gemm, DType::kF32, g, rng, ex);
          }
          ++form;  // so that each transpose pair meets every form of C
        }
      }
    }
    // Batches: broadcast A or B, 1-D operands.
    RunCase(mm, DType::kF32, Case{{{2, 3, 1, 40}, {3, 40, 33}}}, rng, ex);
    RunCase(mm, DType::kF32, Case{{{3, 5, 64}, {1, 64, 8}}}, rng, ex);
    RunCase(mm, DType::kF32, Case{{{4, 2, 7}, {7, 12}}}, rng, ex);
    RunCase(mm, DType::kF32, Case{{{130}, {130, 9}}}, rng, ex);
    RunCase(mm, DType::kF32, Case{{{3, 130}, {130}}}, rng, ex);
  }
}

// Float Mod needs fmod=1 (ONNX); the table's i32 run uses fmod=0 (Python) semantics.
TEST(OpSemantics, FloatModIsCFmod) {
  Executor ex(SharedContext(), ExecutorOptions{.poison_outputs = true});
  std::mt19937_64 rng(testing::Seed() + 1);
  const OpRecord* r = OpTable::Default().Find("Mod", 13);
  for (DType d : {DType::kF32, DType::kI32}) {
    Case c{{{3, 5, 7}, {5, 7}}, {{"fmod", int64_t{1}}}};
    RunCase(*r, d, c, rng, ex);
  }
}

// Negative bases with integral exponents have real results that WGSL's pow() does not give.
TEST(OpSemantics, PowWithIntegralExponentsOfNegativeBases) {
  Executor ex(SharedContext(), ExecutorOptions{.poison_outputs = true});
  OpRecord r = *OpTable::Default().Find("Pow", 13);
  r.hints = {-3, 3, 1e-5, 2e-5, true, true};  // integer-valued, non-zero
  std::mt19937_64 rng(testing::Seed() + 2);
  RunCase(r, DType::kF32, Case{{{1031}, {1031}}}, rng, ex);
}

// MatMulInteger and QLinearMatMul against an int64 host reference written here (not the
// records' own): random shapes with ragged edges (M, N, K off every multiple of the kernel's
// 4-row, 4-column blocks, K = 1, N past one workgroup's 256 columns), K and N multiples of 4
// (vec4 loads), zero points at the ends of their range, per-tensor and per-row/per-column
// parameters, broadcast batches; each case on the register-blocked kernel and, with workgroups
// limited to 4 invocations in x, on the one-output kernel it falls back to. Integer sums must be
// exact; requantized outputs too, except within 1e-3 of a rounding tie, where one step either way
// is allowed (f32 scales).
struct IntMatMulCase {
  bool quantized;
  bool int8;
  Shape a, b;
  int zp_kind;  // 0: per tensor, random; 1: per tensor at the range's ends; 2: per row/column
  const char* label;
};

TEST(IntegerMatMul, ExactAgainstInt64Reference) {
  webgpu::Context& ctx = SharedContext();
  std::mt19937_64 rng(testing::Seed() + 7);
  const std::vector<IntMatMulCase> cases = {
      {false, false, {1, 1}, {1, 1}, 1, "K = 1, 1x1"},
      {false, true, {5, 1}, {1, 7}, 1, "K = 1, int8 extremes"},
      {false, false, {6, 37}, {37, 259}, 2, "N past 256, per row and column"},
      {false, true, {3, 64}, {64, 3}, 2, "M, N below a block, int8 per row and column"},
      {false, false, {2, 1, 9, 13}, {3, 13, 6}, 0, "broadcast batch"},
      {true, false, {9, 21}, {21, 13}, 0, "uint8 per tensor"},
      {true, true, {2, 7, 33}, {33, 11}, 2, "int8 per row and column, batched A"},
      {true, false, {4, 1}, {1, 5}, 1, "K = 1, zero points 0 and 255"},
      // K and N multiples of 4: the vec4 loads.
      {false, false, {2, 6, 16}, {16, 264}, 2, "vec4 loads, N past 256, batched A"},
      {true, true, {7, 12}, {12, 8}, 1, "int8 vec4 loads, zero points -128 and 127"},
  };
  for (int fallback = 0; fallback < 2; ++fallback) {
    DeviceCaps caps = CapsOf(ctx);
    if (fallback) caps.max_workgroup_size_x = 4;  // below the blocked kernel's 8 lanes
    Executor ex(ctx, ExecutorOptions{.poison_outputs = true, .caps = caps});
    for (const IntMatMulCase& c : cases) {
      const std::string what = std::string(c.quantized ? "QLinearMatMul" : "MatMulInteger") + " [" +
                               c.label + "]" + (fallback ? " one-output kernel" : "");
      const DType dt = c.int8 ? DType::kI32 : DType::kU32;
      const int64_t lo = c.int8 ? -128 : 0, hi = c.int8 ? 127 : 255;
      auto ints = [&](Shape sh) {
        RefTensor t{dt, sh, {}};
        std::uniform_int_distribution<int64_t> u(lo, hi);
        for (uint64_t i = 0; i < CheckedElements(sh).value(); ++i)
          t.data.push_back(static_cast<double>(u(rng)));
        return t;
      };
      const uint64_t M = c.a[c.a.size() - 2], K = c.a.back(), N = c.b.back();
      RefTensor a = ints(c.a), b = ints(c.b);
      RefTensor azp = ints(c.zp_kind == 2 ? Shape{M} : Shape{});
      RefTensor bzp = ints(c.zp_kind == 2 ? Shape{N} : Shape{});
      if (c.zp_kind == 1) {
        azp.data = {static_cast<double>(hi)};
        bzp.data = {static_cast<double>(lo)};
      }
      // Scales put the requantized values around +-40 steps, so some saturate.
      std::uniform_real_distribution<double> us(0.5, 2.0);
      auto f32 = [](Shape sh, std::vector<double> v) {
        for (double& x : v) x = static_cast<float>(x);
        return RefTensor{DType::kF32, std::move(sh), std::move(v)};
      };
      std::vector<double> asv(c.zp_kind == 2 ? M : 1), bsv(c.zp_kind == 2 ? N : 1);
      for (double& v : asv) v = 0.01 * us(rng);
      for (double& v : bsv) v = 0.01 * us(rng);
      const RefTensor as = f32(c.zp_kind == 2 ? Shape{M} : Shape{}, asv);
      const RefTensor bs = f32(c.zp_kind == 2 ? Shape{N} : Shape{}, bsv);
      const RefTensor ys = f32({}, {1e-4 * 150.0 * std::sqrt(static_cast<double>(K)) / 40.0});
      RefTensor yzp{dt, {}, {c.zp_kind == 1 ? static_cast<double>(hi) : (c.int8 ? 3.0 : 120.0)}};
      std::vector<RefTensor> in;
      if (c.quantized) {
        in = {a, as, azp, b, bs, bzp, ys, yzp};
      } else {
        in = {a, b, azp, bzp};
      }
      // The reference: numpy broadcasting of the batch dimensions, int64 sums.
      const Shape ab(c.a.begin(), c.a.end() - 2), bb(c.b.begin(), c.b.end() - 2);
      const size_t rank = std::max(ab.size(), bb.size());
      Shape batch(rank, 1);
      for (size_t i = 0; i < rank; ++i) {
        const uint64_t ea = i + ab.size() >= rank ? ab[i + ab.size() - rank] : 1;
        const uint64_t eb = i + bb.size() >= rank ? bb[i + bb.size() - rank] : 1;
        batch[i] = std::max(ea, eb);
      }
      Shape out_shape = batch;
      out_shape.push_back(M);
      out_shape.push_back(N);
      const uint64_t nb = CheckedElements(batch).value();
      std::vector<int64_t> acc(nb * M * N);
      for (uint64_t bi = 0; bi < nb; ++bi) {
        uint64_t rest = bi, oa = 0, ob = 0, sa = 1, sb = 1;
        for (size_t i = rank; i-- > 0;) {
          const uint64_t coord = rest % batch[i];
          rest /= batch[i];
          const uint64_t ea = i + ab.size() >= rank ? ab[i + ab.size() - rank] : 1;
          const uint64_t eb = i + bb.size() >= rank ? bb[i + bb.size() - rank] : 1;
          oa += (ea == 1 ? 0 : coord) * sa;
          ob += (eb == 1 ? 0 : coord) * sb;
          sa *= ea;
          sb *= eb;
        }
        for (uint64_t m = 0; m < M; ++m) {
          for (uint64_t n = 0; n < N; ++n) {
            const auto za = static_cast<int64_t>(azp.data[azp.data.size() == 1 ? 0 : m]);
            const auto zb = static_cast<int64_t>(bzp.data[bzp.data.size() == 1 ? 0 : n]);
            int64_t sum = 0;
            for (uint64_t k = 0; k < K; ++k) {
              sum += (static_cast<int64_t>(a.data[(oa * M + m) * K + k]) - za) *
                     (static_cast<int64_t>(b.data[(ob * K + k) * N + n]) - zb);
            }
            acc[(bi * M + m) * N + n] = sum;
          }
        }
      }
      // The graph: one node, every input uploaded.
      Graph g(0);
      Graph::Node node;
      node.op = c.quantized ? "QLinearMatMul" : "MatMulInteger";
      node.opset = 10;
      node.name = "t";
      std::vector<Tensor> dev;
      for (const RefTensor& t : in) {
        auto up = ex.Upload(t.dtype, t.shape, testing::ToHost(t));
        ASSERT_TRUE(up.ok()) << what << ": " << up.error().ToString();
        node.inputs.push_back(g.num_inputs++);
        node.input_values.push_back(nullptr);
        dev.push_back(*up);
      }
      g.num_values = g.num_inputs;
      node.first_output = g.num_values;
      node.output_count = 1;
      g.num_values += 1;
      g.outputs.push_back(node.first_output);
      g.nodes.push_back(node);
      auto out = ex.Run(g, dev);
      ASSERT_TRUE(out.ok()) << what << ": " << out.error().ToString();
      auto host = ex.Download((*out)[0]);
      ASSERT_TRUE(host.ok()) << what << ": " << host.error().ToString();
      ASSERT_EQ(host->shape, out_shape) << what;
      ASSERT_EQ(host->dtype, c.quantized ? dt : DType::kI32) << what;
      const std::vector<double> got = testing::FromHost(*host);
      int wrong = 0;
      for (uint64_t i = 0; i < acc.size() && wrong < 5; ++i) {
        const uint64_t n = i % N, m = (i / N) % M;
        if (!c.quantized) {
          if (got[i] != static_cast<double>(acc[i])) {
            ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", want " << acc[i];
            ++wrong;
          }
          continue;
        }
        const double v = static_cast<double>(acc[i]) * as.data[as.data.size() == 1 ? 0 : m] *
                         bs.data[bs.data.size() == 1 ? 0 : n] / ys.data[0];
        auto requant = [&](double r) {
          return std::clamp(r + yzp.data[0], static_cast<double>(lo), static_cast<double>(hi));
        };
        const double want = requant(std::nearbyint(v));
        const bool near_tie = std::abs(std::abs(v - std::floor(v)) - 0.5) < 1e-3;
        const bool ok =
            got[i] == want ||
            (near_tie && (got[i] == requant(std::floor(v)) || got[i] == requant(std::ceil(v))));
        if (!ok) {
          ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", want " << want
                        << " (unrounded " << v << ")";
          ++wrong;
        }
      }
    }
  }
}

}  // namespace
}  // namespace alknet::compute
