// The graph passes, each alone: the graph before and after (structure), and the rewritten
// graph's outputs on the device against the float64 references of the graph as built (every
// node's record `reference`, run on the CPU) and against the graph run without the passes.
// Plus the cases each fusion must leave alone, and the executor fusing a graph built in C++.
#include <gtest/gtest.h>

#include <random>

#include "alknet/compute/passes.h"
#include "test_util.h"

namespace alknet::compute {
namespace {

using testing::Close;
using testing::FromHost;
using testing::RandomTensor;
using testing::SharedContext;
using testing::ToHost;

// Runs `graph` in float64 with the records' references, node by node (no passes).
std::vector<RefTensor> ReferenceOf(const Graph& graph, const std::vector<RefTensor>& inputs) {
  std::vector<RefTensor> values(graph.num_values);
  for (size_t i = 0; i < inputs.size(); ++i) values[i] = inputs[i];
  for (const Graph::Node& n : graph.nodes) {
    OpNode node{n.op, n.name, n.opset, n.attributes, {}, {}};
    std::vector<RefTensor> ins;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const ConstValue known = i < n.input_values.size() ? n.input_values[i] : nullptr;
      RefTensor r = n.inputs[i] >= 0 ? values[n.inputs[i]] : known ? *known : RefTensor{};
      TensorDesc d{r.dtype, r.shape};
      d.absent = n.inputs[i] < 0 && !known;
      node.inputs.push_back(d);
      node.input_values.push_back(known ? known : std::make_shared<const RefTensor>(r));
      ins.push_back(std::move(r));
    }
    auto outs = ReferenceRun(node, ins);
    EXPECT_TRUE(outs.ok()) << outs.error().ToString();
    if (!outs.ok()) return {};
    for (int o = 0; o < n.output_count; ++o) values[n.first_output + o] = (*outs)[o];
  }
  std::vector<RefTensor> result;
  for (int v : graph.outputs) result.push_back(values[v]);
  return result;
}

std::vector<TensorDesc> DescsOf(const std::vector<RefTensor>& inputs) {
  std::vector<TensorDesc> d;
  for (const RefTensor& r : inputs) d.push_back(TensorDesc{r.dtype, r.shape});
  return d;
}

std::vector<std::string> OpsOf(const Graph& g) {
  std::vector<std::string> ops;
  for (const auto& n : g.nodes) ops.push_back(n.op);
  return ops;
}

std::vector<RefTensor> Randoms(const std::vector<Shape>& shapes, uint64_t salt,
                               DType dtype = DType::kF32) {
  std::mt19937_64 rng(testing::Seed() + salt);
  std::vector<RefTensor> out;
  for (const Shape& s : shapes) out.push_back(RandomTensor(rng, dtype, s, TestHints{}));
  return out;
}

struct DeviceRun {
  std::vector<std::vector<double>> outputs;
  uint64_t rewrites = 0;
  uint64_t dispatches = 0;
};

// Runs `graph` on the device with the passes on or off (outputs poisoned first).
DeviceRun RunOnDevice(const Graph& graph, const std::vector<RefTensor>& inputs, bool passes) {
  Executor ex(SharedContext(), ExecutorOptions{.poison_outputs = true, .run_passes = passes});
  std::vector<Tensor> ins;
  for (const RefTensor& r : inputs) {
    auto t = ex.Upload(r.dtype, r.shape, ToHost(r));
    EXPECT_TRUE(t.ok()) << t.error().ToString();
    if (!t.ok()) return {};
    ins.push_back(*t);
  }
  auto outs = ex.Run(graph, ins);
  EXPECT_TRUE(outs.ok()) << outs.error().ToString();
  if (!outs.ok()) return {};
  DeviceRun run;
  for (const Tensor& t : *outs) {
    auto h = ex.Download(t);
    EXPECT_TRUE(h.ok());
    if (h.ok()) run.outputs.push_back(FromHost(*h));
  }
  run.rewrites = ex.stats().graph_rewrites;
  run.dispatches = ex.stats().dispatches;
  return run;
}

// The passes' graph on the device matches the float64 reference of the graph as built, and
// so does the graph run without the passes.
void ExpectSameResults(const Graph& built, const std::vector<RefTensor>& inputs, double tol,
                       uint64_t rewrites) {
  const std::vector<RefTensor> want = ReferenceOf(built, inputs);
  const DeviceRun fused = RunOnDevice(built, inputs, true);
  const DeviceRun plain = RunOnDevice(built, inputs, false);
  ASSERT_EQ(fused.outputs.size(), want.size());
  ASSERT_EQ(plain.outputs.size(), want.size());
  EXPECT_EQ(fused.rewrites, rewrites);
  EXPECT_EQ(plain.rewrites, 0u);
  for (size_t o = 0; o < want.size(); ++o) {
    EXPECT_TRUE(
        Close(fused.outputs[o], want[o].data, tol, tol, "fused output " + std::to_string(o)));
    EXPECT_TRUE(
        Close(plain.outputs[o], want[o].data, tol, tol, "unfused output " + std::to_string(o)));
  }
}

// --- MatMul + Add -> Gemm -----------------------------------------------------------------

TEST(MatMulAddToGemm, FusesTheMatMulIntoOneGemmNamedAsTheAdd) {
  for (bool bias_first : {false, true}) {
    Graph g(3);  // x [5,7], w [7,3], b [3]
    const int mm = g.Add("MatMul", {0, 1});
    g.nodes.back().name = "mm";
    const int y = bias_first ? g.Add("Add", {2, mm}) : g.Add("Add", {mm, 2});
    g.nodes.back().name = "bias";
    g.outputs = {y};
    const Graph built = g;
    const auto inputs = Randoms({{5, 7}, {7, 3}, {3}}, 1);
    PassReport r = RunPasses(g, DescsOf(inputs));
    EXPECT_EQ(r.rewrites, 1);
    ASSERT_EQ(OpsOf(g), std::vector<std::string>{"Gemm"});
    const Graph::Node& gemm = g.nodes[0];
    EXPECT_EQ(gemm.name, "bias");
    EXPECT_EQ(gemm.opset, 13);
    EXPECT_TRUE(gemm.attributes.empty());
    EXPECT_EQ(gemm.inputs, (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(gemm.first_output, y);
    EXPECT_EQ(g.outputs, std::vector<int>{y});
    ExpectSameResults(built, inputs, 1e-4, 1);
  }
}

TEST(MatMulAddToGemm, LeavesMatMulsWithOtherReadersOrOtherShapes) {
  const auto descs = [](const std::vector<Shape>& shapes) {
    std::vector<TensorDesc> d;
    for (const Shape& s : shapes) d.push_back(TensorDesc{DType::kF32, s});
    return d;
  };
  {  // the product is also a graph output
    Graph g(3);
    const int mm = g.Add("MatMul", {0, 1});
    g.outputs = {g.Add("Add", {mm, 2}), mm};
    EXPECT_EQ(RunPasses(g, descs({{2, 4}, {4, 3}, {3}})).rewrites, 0);
    EXPECT_EQ(OpsOf(g), (std::vector<std::string>{"MatMul", "Add"}));
  }
  {  // the product has a second reader
    Graph g(3);
    const int mm = g.Add("MatMul", {0, 1});
    const int y = g.Add("Add", {mm, 2});
    g.outputs = {g.Add("Mul", {y, mm})};
    EXPECT_EQ(RunPasses(g, descs({{2, 4}, {4, 3}, {3}})).rewrites, 0);
  }
  {  // the Add reads the product twice
    Graph g(2);
    const int mm = g.Add("MatMul", {0, 1});
    g.outputs = {g.Add("Add", {mm, mm})};
    EXPECT_EQ(RunPasses(g, descs({{2, 4}, {4, 3}})).rewrites, 0);
  }
  {  // batched (3-D) MatMul: Gemm is 2-D only
    Graph g(3);
    const int mm = g.Add("MatMul", {0, 1});
    g.outputs = {g.Add("Add", {mm, 2})};
    EXPECT_EQ(RunPasses(g, descs({{2, 2, 4}, {4, 3}, {3}})).rewrites, 0);
  }
  {  // the bias broadcasts the sum beyond [M, N]: Gemm would not give the Add's shape
    Graph g(3);
    const int mm = g.Add("MatMul", {0, 1});
    g.outputs = {g.Add("Add", {mm, 2})};
    EXPECT_EQ(RunPasses(g, descs({{2, 4}, {4, 3}, {5, 2, 3}})).rewrites, 0);
  }
  {  // both operands are MatMuls read only by the Add: neither becomes the Gemm
    Graph g(4);
    const int a = g.Add("MatMul", {0, 1});
    const int b = g.Add("MatMul", {2, 3});
    g.outputs = {g.Add("Add", {a, b})};
    EXPECT_EQ(RunPasses(g, descs({{2, 4}, {4, 3}, {2, 5}, {5, 3}})).rewrites, 0);
    EXPECT_EQ(OpsOf(g), (std::vector<std::string>{"MatMul", "MatMul", "Add"}));
  }
}

// --- LayerNorm written out -> LayerNormalization ------------------------------------------

// x [.., D], gamma [D], beta [D], eps [] are graph inputs 0..3, eps also known on the host
// (as an ONNX initializer is) when `eps_known`. Returns the output.
RefTensor Eps(double eps) { return RefTensor{DType::kF32, {}, {eps}}; }
int WrittenOutLayerNorm(Graph& g, double eps, bool eps_known = true) {
  const int x = 0, gamma = 1, beta = 2;
  const Attributes last{{"axes", std::vector<int64_t>{-1}}, {"keepdims", int64_t{1}}};
  const int mean = g.Add("ReduceMean", {x}, last, 13);
  const int c = g.Add("Sub", {x, mean}, {}, 14);
  const int var = g.Add("ReduceMean", {g.Add("Mul", {c, c}, {}, 14)}, last, 13);
  const int v = g.Add("Add", {var, 3}, {}, 14);
  if (eps_known)
    g.nodes.back().input_values = {nullptr, std::make_shared<const RefTensor>(Eps(eps))};
  const int y = g.Add("Div", {c, g.Add("Sqrt", {v}, {}, 13)}, {}, 14);
  const int out = g.Add("Add", {g.Add("Mul", {y, gamma}, {}, 14), beta}, {}, 14);
  g.nodes.back().name = "ln_out";
  return out;
}

TEST(LayerNormFusion, FusesTheWrittenOutPatternIntoOneNode) {
  Graph g(4);
  const int ln = WrittenOutLayerNorm(g, 1e-3);
  g.outputs = {g.Add("Relu", {ln}, {}, 14)};
  const Graph built = g;
  auto inputs = Randoms({{3, 40}, {40}, {40}}, 7);
  inputs.push_back(Eps(1e-3));
  // Two rewrites: layer-norm, then gemm-activation folds the Relu into its store.
  EXPECT_EQ(RunPasses(g, DescsOf(inputs)).rewrites, 2);
  ASSERT_EQ(OpsOf(g), (std::vector<std::string>{"LayerNormalization"}));
  EXPECT_EQ(g.nodes[0].name, "ln_out");
  EXPECT_EQ(g.nodes[0].inputs, (std::vector<int>{0, 1, 2}));
  EXPECT_DOUBLE_EQ(std::get<double>(g.nodes[0].attributes.at("epsilon")), 1e-3);
  EXPECT_EQ(std::get<std::string>(g.nodes[0].attributes.at("alknet.activation")), "Relu");
  EXPECT_EQ(g.nodes[0].first_output, g.outputs[0]);
  ExpectSameResults(built, inputs, 1e-5, 2);
}

TEST(LayerNormFusion, LeavesOtherAxesAndIntermediatesReadElsewhere) {
  auto inputs = Randoms({{3, 40}, {40}, {40}}, 8);
  inputs.push_back(Eps(1e-5));
  {  // the centred value is also a graph output
    Graph g(4);
    const int ln = WrittenOutLayerNorm(g, 1e-5);
    g.outputs = {ln, g.nodes[1].first_output};
    EXPECT_EQ(RunPasses(g, DescsOf(inputs)).rewrites, 0);
  }
  {  // the mean over axis 0
    Graph g(4);
    const int ln = WrittenOutLayerNorm(g, 1e-5);
    g.nodes[0].attributes["axes"] = std::vector<int64_t>{0};
    g.outputs = {ln};
    EXPECT_EQ(RunPasses(g, DescsOf(inputs)).rewrites, 0);
  }
  {  // eps known only on the device
    Graph g(4);
    g.outputs = {WrittenOutLayerNorm(g, 1e-5, /*eps_known=*/false)};
    EXPECT_EQ(RunPasses(g, DescsOf(inputs)).rewrites, 0);
  }
}

// --- Add + Relu -> alknet.AddRelu -----------------------------------------------------------

TEST(AddReluFusion, FusesAFloatAddReadOnlyByARelu) {
  Graph g(2);  // a residual join with broadcasting
  const int s = g.Add("Add", {0, 1});
  g.nodes.back().name = "join";
  const int y = g.Add("Relu", {s});
  g.nodes.back().name = "relu";
  g.outputs = {y};
  const Graph built = g;
  const auto inputs = Randoms({{3, 1, 5}, {4, 1}}, 2);
  EXPECT_EQ(RunPasses(g, DescsOf(inputs)).rewrites, 1);
  ASSERT_EQ(OpsOf(g), std::vector<std::string>{"alknet.AddRelu"});
  EXPECT_EQ(g.nodes[0].name, "join");
  EXPECT_EQ(g.nodes[0].opset, 1);
  EXPECT_EQ(g.nodes[0].inputs, (std::vector<int>{0, 1}));
  EXPECT_EQ(g.nodes[0].first_output, y);
  ExpectSameResults(built, inputs, 1e-6, 1);
}

TEST(AddReluFusion, LeavesIntegerSumsAndSumsReadElsewhere) {
  {
    Graph g(2);
    g.outputs = {g.Add("Relu", {g.Add("Add", {0, 1})})};
    const std::vector<TensorDesc> ints = {TensorDesc{DType::kI32, {4}},
                                          TensorDesc{DType::kI32, {4}}};
    EXPECT_EQ(RunPasses(g, ints).rewrites, 0);
    EXPECT_EQ(OpsOf(g), (std::vector<std::string>{"Add", "Relu"}));
  }
  {
    Graph g(2);
    const int s = g.Add("Add", {0, 1});
    g.outputs = {g.Add("Relu", {s}), s};
    const std::vector<TensorDesc> f = {TensorDesc{DType::kF32, {4}}, TensorDesc{DType::kF32, {4}}};
    EXPECT_EQ(RunPasses(g, f).rewrites, 0);
  }
}

// --- Conv + activation ----------------------------------------------------------------------

TEST(ConvActivationFusion, PutsEachActivationInTheConvEpilogue) {
  struct Case {
    std::string op;
    Attributes attrs;
    int opset;
    std::vector<ConstValue> bounds;  // Clip (opset 11+) min, max; nullptr: absent
    std::string want;
  };
  const auto scalar = [](double v) {
    return std::make_shared<const RefTensor>(RefTensor{DType::kF32, {}, {v}});
  };
  const std::vector<Case> cases = {
      {"Relu", {}, 14, {}, "Relu"},
      {"Sigmoid", {}, 13, {}, "Sigmoid"},
      {"HardSwish", {}, 14, {}, "HardSwish"},
      {"LeakyRelu", {{"alpha", AttrValue(0.25)}}, 16, {}, "LeakyRelu:0.25"},
      {"LeakyRelu", {}, 16, {}, "LeakyRelu:0.01"},
      {"Clip", {}, 13, {scalar(-0.5), scalar(0.75)}, "Clip:-0.5:0.75"},
      {"Clip", {}, 13, {nullptr, scalar(1)}, "Clip:-3.4028234663852886e+38:1"},
      {"Clip", {{"min", AttrValue(0.0)}, {"max", AttrValue(6.0)}}, 6, {}, "Clip:0:6"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.want);
    Graph g(3);  // x [1,3,6,5], w [4,3,3,3], b [4]
    const int conv = g.Add("Conv", {0, 1, 2}, {{"pads", std::vector<int64_t>{1, 1, 1, 1}}}, 11);
    g.nodes.back().name = "conv";
    std::vector<int> ins = {conv};
    ins.resize(1 + c.bounds.size(), Graph::kAbsent);
    const int y = g.Add(c.op, ins, c.attrs, c.opset);
    if (!c.bounds.empty()) {
      g.nodes.back().input_values = {nullptr};
      for (const ConstValue& b : c.bounds) g.nodes.back().input_values.push_back(b);
    }
    g.outputs = {y};
    const Graph built = g;
    const auto inputs = Randoms({{1, 3, 6, 5}, {4, 3, 3, 3}, {4}}, 3);
    EXPECT_EQ(RunPasses(g, DescsOf(inputs)).rewrites, 1);
    ASSERT_EQ(OpsOf(g), std::vector<std::string>{"Conv"});
    EXPECT_EQ(g.nodes[0].name, "conv");
    EXPECT_EQ(g.nodes[0].opset, 11);
    EXPECT_EQ(g.nodes[0].first_output, y);
    EXPECT_EQ(g.nodes[0].inputs, (std::vector<int>{0, 1, 2}));
    ASSERT_TRUE(g.nodes[0].attributes.count("alknet.activation"));
    EXPECT_EQ(std::get<std::string>(g.nodes[0].attributes.at("alknet.activation")), c.want);
    EXPECT_TRUE(g.nodes[0].attributes.count("pads"));
    ExpectSameResults(built, inputs, 1e-4, 1);
  }
}

TEST(ConvActivationFusion, LeavesClipsWithBoundsKnownOnlyOnTheDevice) {
  Graph g(4);  // x, w, min as a device tensor, max
  const int conv = g.Add("Conv", {0, 1});
  g.outputs = {g.Add("Clip", {conv, 2, 3}, {}, 13)};
  const Graph built = g;
  auto inputs = Randoms({{1, 2, 5, 5}, {3, 2, 3, 3}, {}, {}}, 4);
  inputs[2].data = {-0.5};
  inputs[3].data = {0.5};
  EXPECT_EQ(RunPasses(g, DescsOf(inputs)).rewrites, 0);
  EXPECT_EQ(OpsOf(g), (std::vector<std::string>{"Conv", "Clip"}));
  ExpectSameResults(built, inputs, 1e-4, 0);
}

TEST(ConvActivationFusion, LeavesConvsThatAlreadyHaveAnActivationOrOtherReaders) {
  const std::vector<TensorDesc> d = {TensorDesc{DType::kF32, {1, 2, 5, 5}},
                                     TensorDesc{DType::kF32, {3, 2, 3, 3}}};
  {
    Graph g(2);
    const int conv = g.Add("Conv", {0, 1}, {{"alknet.activation", AttrValue(std::string("Relu"))}});
    g.outputs = {g.Add("Sigmoid", {conv})};
    EXPECT_EQ(RunPasses(g, d).rewrites, 0);
  }
  {
    Graph g(2);
    const int conv = g.Add("Conv", {0, 1});
    const int r = g.Add("Relu", {conv});
    g.outputs = {g.Add("Add", {r, conv})};
    EXPECT_EQ(RunPasses(g, d).rewrites, 0);
  }
}

// --- the passes together, run by the executor ------------------------------------------------

// --- Gemm epilogues: matmul-scale, gemm-activation ----------------------------------------

ConstValue Scalar(double v, Shape shape = {}) {
  return std::make_shared<const RefTensor>(RefTensor{DType::kF32, std::move(shape), {v}});
}

TEST(GemmEpilogueFusion, ScaleAndActivationFoldIntoOneGemm) {
  // The greedy decoder's step: Tanh(Gemm(..)) and Softmax(MatMul(x, m) * s); a Gemm with C
  // scaled (alpha and beta both), a Relu and a Sigmoid after MatMuls.
  for (const char* act : {"Tanh", "Relu", "Sigmoid"}) {
    SCOPED_TRACE(act);
    Graph g(5);  // x [3,9], w [9,5], c [5], s = 0.125 and t = -2 (known scalars)
    const int scores = g.Add("Mul", {g.Add("MatMul", {0, 1}), 3}, {}, 14);
    g.nodes.back().input_values = {nullptr, Scalar(0.125)};
    g.nodes.back().name = "scale";
    const int gemm = g.Add("Gemm", {0, 1, 2}, {{"beta", 0.5}}, 13);
    g.nodes.back().name = "gemm";
    const int scaled = g.Add("Mul", {4, gemm}, {}, 14);
    g.nodes.back().input_values = {Scalar(-2.0), nullptr};
    const int y = g.Add(act, {g.Add("MatMul", {0, 1})}, {}, 14);
    const int z = g.Add("Tanh", {scaled}, {}, 13);
    g.outputs = {scores, y, z};
    const Graph built = g;
    auto inputs = Randoms({{3, 9}, {9, 5}, {5}}, 21);
    inputs.push_back(RefTensor{DType::kF32, {}, {0.125}});
    inputs.push_back(RefTensor{DType::kF32, {}, {-2.0}});
    PassReport r = RunPasses(g, DescsOf(inputs));
    EXPECT_EQ(r.rewrites, 4);
    ASSERT_EQ(OpsOf(g), (std::vector<std::string>{"Gemm", "Gemm", "Gemm"}));
    const Graph::Node& s_gemm = g.nodes[0];
    EXPECT_EQ(s_gemm.name, "scale");
    EXPECT_EQ(s_gemm.inputs, (std::vector<int>{0, 1}));
    EXPECT_DOUBLE_EQ(std::get<double>(s_gemm.attributes.at("alpha")), 0.125);
    EXPECT_EQ(s_gemm.first_output, scores);
    const Graph::Node& act_gemm = g.nodes[1];
    EXPECT_EQ(std::get<std::string>(act_gemm.attributes.at("alknet.activation")), act);
    EXPECT_EQ(act_gemm.first_output, y);
    const Graph::Node& z_gemm = g.nodes[2];
    EXPECT_EQ(z_gemm.inputs, (std::vector<int>{0, 1, 2}));
    EXPECT_DOUBLE_EQ(std::get<double>(z_gemm.attributes.at("alpha")), -2.0);
    EXPECT_DOUBLE_EQ(std::get<double>(z_gemm.attributes.at("beta")), -1.0);
    EXPECT_EQ(std::get<std::string>(z_gemm.attributes.at("alknet.activation")), "Tanh");
    EXPECT_EQ(z_gemm.first_output, z);
    ExpectSameResults(built, inputs, 1e-5, 4);
  }
}

TEST(GemmEpilogueFusion, LeavesBatchedProductsUnknownScalesAndOtherReaders) {
  Graph g(4);  // a [2,3,4], b [4,5], s [1,1,1] known, x [3,4]
  const int batched = g.Add("Relu", {g.Add("MatMul", {0, 1})}, {}, 14);  // 3-D: no Gemm
  const int up = g.Add("Mul", {g.Add("MatMul", {3, 1}), 2}, {}, 14);     // s grows the rank
  g.nodes.back().input_values = {nullptr, Scalar(3.0, {1, 1, 1})};
  const int mm = g.Add("MatMul", {3, 1});
  const int unknown = g.Add("Mul", {mm, g.Add("ReduceMax", {mm}, {{"keepdims", int64_t{0}}}, 13)});
  const int leaky = g.Add("LeakyRelu", {g.Add("MatMul", {3, 1})}, {}, 16);
  g.outputs = {batched, up, unknown, leaky};
  const auto inputs = Randoms({{2, 3, 4}, {4, 5}, {1, 1, 1}, {3, 4}}, 22);
  const Graph built = g;
  EXPECT_EQ(RunPasses(g, DescsOf(inputs)).rewrites, 0);
  EXPECT_EQ(OpsOf(g), OpsOf(built));
}

// --- Gelu ------------------------------------------------------------------------------------

TEST(GeluFusion, FusesTheWrittenOutErfFormsIntoOneGelu) {
  // form 0: (x * 0.5) * (1 + Erf(x * (1/sqrt 2))); 1: (x * (Erf(x / sqrt 2) + 1)) * 0.5;
  // 2: x * ((1 + Erf(x / sqrt 2)) * 0.5).
  const double inv_sqrt2 = 0.70710678118654752, sqrt2 = 1.4142135623730951;
  for (int form = 0; form < 3; ++form) {
    SCOPED_TRACE(form);
    // x [4,33]; the constants as graph inputs with their values known: 1 the scale, 2 one,
    // 3 one half.
    Graph g(4);
    auto known = [&](double v, int at) {
      Graph::Node& n = g.nodes.back();
      n.input_values.assign(2, nullptr);
      n.input_values[at] = Scalar(v);
    };
    const int t = form == 0 ? g.Add("Mul", {0, 1}, {}, 14) : g.Add("Div", {0, 1}, {}, 14);
    known(form == 0 ? inv_sqrt2 : sqrt2, 1);
    const int e = g.Add("Erf", {t}, {}, 13);
    const int a = form == 1 ? g.Add("Add", {e, 2}, {}, 14) : g.Add("Add", {2, e}, {}, 14);
    known(1.0, form == 1 ? 1 : 0);
    int y;
    if (form == 0) {
      const int h = g.Add("Mul", {0, 3}, {}, 14);
      known(0.5, 1);
      y = g.Add("Mul", {h, a}, {}, 14);
    } else if (form == 1) {
      const int p = g.Add("Mul", {0, a}, {}, 14);
      y = g.Add("Mul", {p, 3}, {}, 14);
      known(0.5, 1);
    } else {
      const int h = g.Add("Mul", {a, 3}, {}, 14);
      known(0.5, 1);
      y = g.Add("Mul", {0, h}, {}, 14);
    }
    g.nodes.back().name = "gelu_out";
    g.outputs = {y};
    const Graph built = g;
    auto inputs = Randoms({{4, 33}}, 23);
    for (double v : {form == 0 ? inv_sqrt2 : sqrt2, 1.0, 0.5})
      inputs.push_back(RefTensor{DType::kF32, {}, {v}});
    EXPECT_EQ(RunPasses(g, DescsOf(inputs)).rewrites, 1);
    ASSERT_EQ(OpsOf(g), std::vector<std::string>{"Gelu"});
    EXPECT_EQ(g.nodes[0].name, "gelu_out");
    EXPECT_EQ(g.nodes[0].inputs, std::vector<int>{0});
    EXPECT_EQ(g.nodes[0].first_output, y);
    ExpectSameResults(built, inputs, 1e-5, 1);
  }
}

TEST(GeluFusion, LeavesOtherConstantsAndIntermediatesReadElsewhere) {
  for (int variant = 0; variant < 2; ++variant) {
    SCOPED_TRACE(variant);
    Graph g(2);
    const int t = g.Add("Div", {0, 1}, {}, 14);
    g.nodes.back().input_values = {nullptr, Scalar(variant == 0 ? 2.0 : 1.4142135623730951)};
    const int e = g.Add("Erf", {t}, {}, 13);
    const int a = g.Add("Add", {e, 1}, {}, 14);
    g.nodes.back().input_values = {nullptr, Scalar(1.0)};
    const int h = g.Add("Mul", {0, 1}, {}, 14);
    g.nodes.back().input_values = {nullptr, Scalar(0.5)};
    const int y = g.Add("Mul", {h, a}, {}, 14);
    g.outputs = {y};
    if (variant == 1) g.outputs.push_back(e);  // the Erf is read outside the pattern
    const auto inputs = Randoms({{3, 8}, {}}, 24);
    const Graph built = g;
    EXPECT_EQ(RunPasses(g, DescsOf(inputs)).rewrites, 0);
    EXPECT_EQ(OpsOf(g), OpsOf(built));
  }
}

// A graph built in C++ (no ONNX anywhere): the executor fuses it on its own, the results match
// the float64 references, and ExecutorOptions::run_passes = false runs it node for node.
TEST(ExecutorPasses, AGraphBuiltInCppGetsFused) {
  Graph g(5);  // x [2,3,8,8], w [4,3,3,3], w2 [36,6], bias [6], r [2,6]
  const int conv = g.Add("Conv", {0, 1}, {{"strides", std::vector<int64_t>{2, 2}}});
  const int act = g.Add("Relu", {conv});                     // -> Conv + Relu
  const int flat = g.Add("Reshape", {act, Graph::kAbsent});  // a view: [2, 36]
  g.nodes.back().input_values = {
      nullptr, std::make_shared<const RefTensor>(RefTensor{DType::kI32, {2}, {2, -1}})};
  const int mm = g.Add("MatMul", {flat, 2});
  const int lin = g.Add("Add", {mm, 3});  // -> Gemm
  const int join = g.Add("Add", {lin, 4});
  g.outputs = {g.Add("Relu", {join})};  // -> alknet.AddRelu
  const Graph built = g;
  const auto inputs = Randoms({{2, 3, 8, 8}, {4, 3, 3, 3}, {36, 6}, {6}, {2, 6}}, 5);

  PassReport r = RunPasses(g, DescsOf(inputs));
  EXPECT_EQ(r.rewrites, 3);
  ASSERT_EQ(r.per_pass.size(), 7u);
  for (const auto& [name, n] : r.per_pass) {
    const bool used =
        name == "matmul-add-to-gemm" || name == "add-relu" || name == "conv-activation";
    EXPECT_EQ(n, used ? 1 : 0) << name;
  }
  EXPECT_EQ(OpsOf(g), (std::vector<std::string>{"Conv", "Reshape", "Gemm", "alknet.AddRelu"}));
  ExpectSameResults(built, inputs, 1e-4, 3);

  // Fused: three dispatches fewer (each poisoned output costs one more).
  const DeviceRun fused = RunOnDevice(built, inputs, true);
  const DeviceRun plain = RunOnDevice(built, inputs, false);
  EXPECT_EQ(plain.dispatches - fused.dispatches, 6u);
}

// An Add read by a Relu whose other operand is a MatMul: Gemm comes first, so the Add is a
// Gemm, and the Relu then goes into the Gemm's epilogue.
TEST(ExecutorPasses, GemmTakesTheAddBeforeAddRelu) {
  Graph g(3);
  const int mm = g.Add("MatMul", {0, 1});
  g.outputs = {g.Add("Relu", {g.Add("Add", {mm, 2})})};
  const Graph built = g;
  const auto inputs = Randoms({{3, 5}, {5, 2}, {3, 2}}, 6);
  EXPECT_EQ(RunPasses(g, DescsOf(inputs)).rewrites, 2);
  EXPECT_EQ(OpsOf(g), (std::vector<std::string>{"Gemm"}));
  EXPECT_EQ(std::get<std::string>(g.nodes[0].attributes.at("alknet.activation")), "Relu");
  ExpectSameResults(built, inputs, 1e-4, 2);
}

// Malformed graphs are the executor's to refuse: the passes neither crash nor rewrite them.
TEST(ExecutorPasses, MalformedGraphsAreLeftForTheExecutorToRefuse) {
  Graph g(2);
  const int mm = g.Add("MatMul", {0, 7});  // value 7 does not exist
  g.outputs = {g.Add("Add", {mm, 1}), 42};
  const std::vector<TensorDesc> d = {TensorDesc{DType::kF32, {2, 2}}, TensorDesc{DType::kF32, {2}}};
  EXPECT_EQ(RunPasses(g, d).rewrites, 0);
  EXPECT_EQ(RunPasses(g, {}).rewrites, 0);  // fewer input descs than inputs

  Executor ex(SharedContext());
  auto a = ex.Upload(DType::kF32, {2, 2}, ToHost(RefTensor{DType::kF32, {2, 2}, {1, 2, 3, 4}}));
  auto b = ex.Upload(DType::kF32, {2}, ToHost(RefTensor{DType::kF32, {2}, {1, 2}}));
  ASSERT_TRUE(a.ok() && b.ok());
  auto out = ex.Run(g, {*a, *b});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message.find("not defined before it"), std::string::npos)
      << out.error().message;
}

}  // namespace
}  // namespace alknet::compute
