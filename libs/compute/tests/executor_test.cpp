// Executor and Tensor: views, graphs in one command buffer with buffer reuse, metatensor
// upload/download, limits split or rejected, and runs that fail return no data.
#include <cmath>

#include "alknet/tensor/reader.h"
#include "alknet/tensor/writer.h"
#include "test_util.h"

namespace alknet::compute {
namespace {

using testing::SharedContext;

std::vector<std::byte> F32Bytes(const std::vector<float>& v) {
  auto b = std::as_bytes(std::span(v));
  return {b.begin(), b.end()};
}

std::vector<float> AsF32(const HostTensor& h) {
  std::vector<float> v(h.data.size() / 4);
  std::memcpy(v.data(), h.data.data(), h.data.size());
  return v;
}

std::vector<float> Iota(size_t n, float scale = 1.0f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i) * scale;
  return v;
}

TEST(Tensor, ViewsShareStorageAndChangeOnlyTheLayout) {
  Executor ex(SharedContext());
  auto t = ex.Upload(DType::kF32, {2, 3, 4}, F32Bytes(Iota(24)));
  ASSERT_TRUE(t.ok());
  auto tr = t->Transpose({2, 0, 1});
  ASSERT_TRUE(tr.ok());
  EXPECT_EQ(tr->shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(tr->strides(), (std::vector<int64_t>{1, 12, 4}));
  EXPECT_EQ(tr->storage().get(), t->storage().get());
  EXPECT_FALSE(tr->contiguous());
  auto host = ex.Download(*tr);  // materialised through Identity
  ASSERT_TRUE(host.ok()) << host.error().ToString();
  std::vector<float> got = AsF32(*host);
  for (size_t a = 0; a < 4; ++a)
    for (size_t b = 0; b < 2; ++b)
      for (size_t c = 0; c < 3; ++c)
        EXPECT_EQ(got[a * 6 + b * 3 + c], static_cast<float>(b * 12 + c * 4 + a));

  auto sl = t->Slice(1, 1, 3);
  ASSERT_TRUE(sl.ok());
  EXPECT_EQ(sl->offset(), 4u);
  auto slh = ex.Download(*sl);
  ASSERT_TRUE(slh.ok());
  EXPECT_EQ(AsF32(*slh)[0], 4.0f);
  EXPECT_EQ(AsF32(*slh)[8], 16.0f);

  auto r = t->Reshape({6, 4});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->storage().get(), t->storage().get());
  auto bad = tr->Reshape({24});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("strided view"), std::string::npos);
  EXPECT_FALSE(t->Reshape({5, 5}).ok());
  EXPECT_FALSE(t->Transpose({0, 0, 1}).ok());
  EXPECT_FALSE(t->Slice(0, 1, 3).ok());
}

TEST(Tensor, ViewsFeedOpsWithAndWithoutCopies) {
  Executor ex(SharedContext(), ExecutorOptions{.poison_outputs = true});
  // A^T (a view) times B: MatMul reads contiguous operands, so the executor copies the view.
  auto a = ex.Upload(DType::kF32, {5, 3}, F32Bytes(Iota(15, 0.5f)));
  auto b = ex.Upload(DType::kF32, {5, 2}, F32Bytes(Iota(10, 0.25f)));
  ASSERT_TRUE(a.ok() && b.ok());
  auto at = a->Transpose({1, 0});
  ASSERT_TRUE(at.ok());
  auto bt = b->Transpose({1, 0});
  auto mm = ex.Run("MatMul", {*at, *b});
  ASSERT_TRUE(mm.ok()) << mm.error().ToString();
  auto h = ex.Download(*mm);
  ASSERT_TRUE(h.ok());
  std::vector<float> A = Iota(15, 0.5f), B = Iota(10, 0.25f), got = AsF32(*h);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) {
      double s = 0;
      for (int k = 0; k < 5; ++k) s += double(A[k * 3 + i]) * B[k * 2 + j];
      EXPECT_NEAR(got[i * 2 + j], s, 1e-4);
    }
  // Expand is a stride-0 view: Add reads it in place.
  auto row = ex.Upload(DType::kF32, {1, 3}, F32Bytes({1, 2, 3}));
  ASSERT_TRUE(row.ok());
  auto wide = row->Expand({5, 3});
  ASSERT_TRUE(wide.ok());
  const uint64_t dispatches = ex.stats().dispatches;
  auto sum = ex.Run("Add", {*a, *wide});
  ASSERT_TRUE(sum.ok()) << sum.error().ToString();
  EXPECT_EQ(ex.stats().dispatches - dispatches, 2u);  // poison + Add, no copy
  auto hs = ex.Download(*sum);
  ASSERT_TRUE(hs.ok());
  EXPECT_EQ(AsF32(*hs)[4], A[4] + 2.0f);
  EXPECT_FALSE(row->Expand({5, 4}).ok());
}

TEST(Executor, GraphRunsInOneCommandBufferAndReusesBuffers) {
  Executor ex(SharedContext());
  const size_t n = 10007;
  std::vector<float> x(n);
  std::mt19937_64 rng(testing::Seed());
  std::uniform_real_distribution<float> u(-2, 2);
  for (float& v : x) v = u(rng);
  auto in = ex.Upload(DType::kF32, {n}, F32Bytes(x));
  ASSERT_TRUE(in.ok());
  // y = sigmoid(tanh(|x| * 0.5 ...)): 8 chained nodes; at most two intermediates are alive.
  Graph g(1);
  int v = 0;
  const char* chain[] = {"Abs", "Neg", "Exp", "Tanh", "Sigmoid", "Neg", "Abs", "Sqrt"};
  for (const char* op : chain) v = g.Add(op, {v});
  g.outputs = {v};
  const auto before = ex.stats();
  auto out = ex.Run(g, {*in});
  ASSERT_TRUE(out.ok()) << out.error().ToString();
  const auto after = ex.stats();
  EXPECT_EQ(after.submits - before.submits, 1u);
  EXPECT_EQ(after.dispatches - before.dispatches, 8u);
  EXPECT_LE(after.buffers_created - before.buffers_created, 3u) << "intermediates are not reused";
  auto h = ex.Download((*out)[0]);
  ASSERT_TRUE(h.ok());
  std::vector<float> got = AsF32(*h);
  for (size_t i = 0; i < n; ++i) {
    double y =
        std::sqrt(std::fabs(-1.0 / (1.0 + std::exp(-std::tanh(std::exp(-std::fabs(x[i])))))));
    ASSERT_NEAR(got[i], y, 1e-5) << i;
  }
  // A second run takes every buffer from the pool except its output.
  auto again = ex.Run(g, {*in});
  ASSERT_TRUE(again.ok());
  EXPECT_LE(ex.stats().buffers_created - after.buffers_created, 1u);
}

// A second run of the same graph renders no template (the program cache); a different shape or
// a different known value (Reshape's target) gets a new program, and the right result.
TEST(Executor, ProgramsAreCachedPerNodeAndKnownValues) {
  Executor ex(SharedContext());
  std::vector<float> x(12);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) - 5.5f;
  auto in = ex.Upload(DType::kF32, {12}, F32Bytes(x));
  ASSERT_TRUE(in.ok());
  auto graph = [](std::vector<double> target) {
    Graph g(1);
    const int r = g.Add("Reshape", {0, Graph::kAbsent});
    g.nodes.back().input_values = {nullptr, std::make_shared<const RefTensor>(RefTensor{
                                                DType::kI32, {target.size()}, std::move(target)})};
    // Softmax over the last axis of the reshaped view: its program depends on the target.
    g.outputs = {g.Add("Softmax", {r}, {{"axis", int64_t{-1}}}, 13)};
    return g;
  };
  auto run = [&](const Graph& g) {
    auto out = ex.Run(g, {*in});
    EXPECT_TRUE(out.ok()) << out.error().ToString();
    auto h = ex.Download((*out)[0]);
    EXPECT_TRUE(h.ok());
    return std::make_pair(h->shape, AsF32(*h));
  };
  const Graph g34 = graph({3, 4});
  const auto first = run(g34);
  const auto s1 = ex.stats();
  EXPECT_GE(s1.programs_generated, 1u);
  const auto second = run(g34);
  EXPECT_EQ(ex.stats().programs_generated, s1.programs_generated)
      << "the second run rendered templates";
  EXPECT_GE(ex.stats().programs_reused, 1u);
  EXPECT_EQ(first, second);
  const auto s2 = ex.stats();
  const auto [shape, t] = run(graph({4, 3}));  // same ops, other known value: a new program
  EXPECT_GT(ex.stats().programs_generated, s2.programs_generated);
  ASSERT_EQ(shape, (Shape{4, 3}));
  for (uint64_t i = 0; i < 4; ++i) {
    double sum = 0;
    for (uint64_t j = 0; j < 3; ++j) sum += std::exp(double(x[i * 3 + j]));
    for (uint64_t j = 0; j < 3; ++j)
      EXPECT_NEAR(t[i * 3 + j], std::exp(double(x[i * 3 + j])) / sum, 1e-6) << i << "," << j;
  }
}

TEST(Executor, GraphWithBranchesAndSharedValues) {
  Executor ex(SharedContext(), ExecutorOptions{.poison_outputs = true});
  auto a = ex.Upload(DType::kF32, {4, 3}, F32Bytes(Iota(12, 0.1f)));
  auto b = ex.Upload(DType::kF32, {3}, F32Bytes({1, -1, 2}));
  ASSERT_TRUE(a.ok() && b.ok());
  Graph g(2);
  const int s = g.Add("Add", {0, 1});  // used twice below
  const int r = g.Add("Relu", {s});
  const int m = g.Add("Mul", {s, r});
  const int sm = g.Add("Softmax", {m});
  g.outputs = {sm, s};
  auto out = ex.Run(g, {*a, *b});
  ASSERT_TRUE(out.ok()) << out.error().ToString();
  auto h = ex.Download((*out)[0]);
  auto hs = ex.Download((*out)[1]);
  ASSERT_TRUE(h.ok() && hs.ok());
  std::vector<float> A = Iota(12, 0.1f), B = {1, -1, 2}, got = AsF32(*h);
  for (int i = 0; i < 4; ++i) {
    double row[3], mx = -1e30, sum = 0;
    for (int j = 0; j < 3; ++j) {
      const double sv = double(A[i * 3 + j]) + B[j];
      row[j] = sv * std::max(sv, 0.0);
      mx = std::max(mx, row[j]);
      EXPECT_NEAR(AsF32(*hs)[i * 3 + j], sv, 1e-6);
    }
    for (double& v : row) sum += std::exp(v - mx);
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(got[i * 3 + j], std::exp(row[j] - mx) / sum, 1e-6);
  }
}

TEST(Executor, MetatensorUploadAndDownload) {
  // Write a metatensor file in memory, read it zero-copy, compute, write the result back.
  std::vector<float> x = {-1.5f, 0.0f, 2.0f, 3.25f, -0.5f, 7.0f};
  const uint64_t shape[] = {2, 3};
  tensor::MemorySink sink;
  {
    tensor::Writer w(sink);
    ASSERT_TRUE(w.AddTensor("x", DType::kF32, shape, std::as_bytes(std::span(x))).ok());
    const uint8_t flags[] = {1, 0, 1, 1, 0, 0};
    ASSERT_TRUE(w.AddTensor("flags", DType::kBool, shape, std::as_bytes(std::span(flags))).ok());
    const double d[] = {1, 2, 3, 4, 5, 6};
    ASSERT_TRUE(w.AddTensor("f64", DType::kF64, shape, std::as_bytes(std::span(d))).ok());
    ASSERT_TRUE(w.Finish().ok());
  }
  auto reader = tensor::Reader::FromMemory(sink.bytes());
  ASSERT_TRUE(reader.ok());
  Executor ex(SharedContext());
  auto xv = reader->Find("x");
  auto fv = reader->Find("flags");
  ASSERT_TRUE(xv.ok() && fv.ok());
  auto xt = ex.Upload(*xv);
  auto ft = ex.Upload(*fv);
  ASSERT_TRUE(xt.ok() && ft.ok());
  auto zero = ex.Upload(DType::kF32, {}, F32Bytes({0.0f}));
  auto w = ex.Run("Where", {*ft, *xt, *zero});
  ASSERT_TRUE(w.ok()) << w.error().ToString();
  auto h = ex.Download(*w);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(AsF32(*h), (std::vector<float>{-1.5f, 0, 2.0f, 3.25f, 0, 0}));
  auto nb = ex.Run("Not", {*ft});
  ASSERT_TRUE(nb.ok());
  auto hb = ex.Download(*nb);
  ASSERT_TRUE(hb.ok());
  ASSERT_EQ(hb->data.size(), 6u);  // bool downloads one byte per element, as metatensor stores it
  EXPECT_EQ(static_cast<int>(hb->data[1]), 1);
  EXPECT_EQ(static_cast<int>(hb->data[0]), 0);
  tensor::MemorySink out;
  tensor::Writer ow(out);
  EXPECT_TRUE(ow.AddTensor("y", h->dtype, h->shape, h->data).ok());
  EXPECT_TRUE(ow.Finish().ok());

  auto dv = reader->Find("f64");
  ASSERT_TRUE(dv.ok());
  auto d = ex.Upload(*dv);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("tensor 'f64' has dtype f64"), std::string::npos)
      << d.error().message;
  auto wrong = ex.Upload(DType::kF32, {3}, F32Bytes({1, 2}));
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("needs 12 bytes, got 8"), std::string::npos);
}

TEST(Executor, GridsBeyondOneDimensionSpillIntoY) {
  DeviceCaps caps = CapsOf(SharedContext());
  caps.max_workgroups_per_dimension = 8;  // 8 x 256 invocations per row of the grid
  caps.items_per_invocation = 1;
  Executor ex(SharedContext(), ExecutorOptions{.poison_outputs = true, .caps = caps});
  const size_t n = 5 * 2048 + 3;  // odd: one invocation per element, 5+ rows of groups
  auto x = ex.Upload(DType::kF32, {n}, F32Bytes(Iota(n, -0.01f)));
  ASSERT_TRUE(x.ok());
  auto y = ex.Run("Neg", {*x});
  ASSERT_TRUE(y.ok()) << y.error().ToString();
  auto h = ex.Download(*y);
  ASSERT_TRUE(h.ok());
  std::vector<float> got = AsF32(*h);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], static_cast<float>(i) * 0.01f) << i;
  // Too many for 8 x 8 groups: rejected, naming the limit, nothing dispatched.
  auto big = ex.Upload(DType::kF32, {70000}, F32Bytes(Iota(70000)));
  ASSERT_TRUE(big.ok());
  auto r = ex.Run("Neg", {*big});  // 70000 % 4 == 0: vec4, 17500 invocations > 8*8*256
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kLimit);
  EXPECT_NE(r.error().message.find("maxComputeWorkgroupsPerDimension"), std::string::npos);
}

TEST(Executor, ErrorsFailTheRunAndReturnNoData) {
  Executor ex(SharedContext());
  // A broken shader: the compile error comes back with line and column, nothing runs.
  auto buf = ex.Empty(DType::kF32, {4});
  ASSERT_TRUE(buf.ok());
  ShaderProgram bad;
  bad.source = "@compute @workgroup_size(1) fn main() { let x: u32 = 1.5; }";
  bad.label = "broken";
  webgpu::Recorder rec = ex.context().BeginCommands();
  Status st = ex.Dispatch(rec, bad, {});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ErrorCode::kDevice);
  EXPECT_NE(st.error().message.find("broken:1:"), std::string::npos) << st.error().message;
  // Unsupported node inside a graph: the run stops before submitting anything.
  Graph g(1);
  g.outputs = {g.Add("Sin", {g.Add("Abs", {0})}, {{"bogus", int64_t{1}}})};
  const uint64_t submits = ex.stats().submits;
  auto r = ex.Run(g, {*buf});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("unknown attribute 'bogus'"), std::string::npos);
  EXPECT_EQ(ex.stats().submits, submits);
}

TEST(Executor, DeviceLossFailsEveryRun) {
  auto ctx = webgpu::Context::Create();
  ASSERT_TRUE(ctx.ok());
  Executor ex(**ctx);
  auto x = ex.Upload(DType::kF32, {4}, F32Bytes({1, 2, 3, 4}));
  ASSERT_TRUE(x.ok());
  (*ctx)->DestroyDeviceForTesting();
  auto y = ex.Run("Exp", {*x});
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.error().code, ErrorCode::kDevice);
  auto h = ex.Download(*x);
  EXPECT_FALSE(h.ok());
}

}  // namespace
}  // namespace alknet::compute
