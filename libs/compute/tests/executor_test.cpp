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

// ---- Replay (RecordedGraph, ADR 0026) ----------------------------------------------------

std::vector<float> RandomF32(std::mt19937_64& rng, size_t n) {
  std::uniform_real_distribution<float> u(-2, 2);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

ConstValue I32Value(std::vector<double> v) {
  const uint64_t n = v.size();
  return std::make_shared<const RefTensor>(RefTensor{DType::kI32, {n}, std::move(v)});
}

// Views (Transpose, a Reshape that needs a copy) feeding MatMul, an output that is a view of
// another output: every replayed run matches the float64 loops and a plain recording run
// byte for byte, and builds no buffer besides its outputs.
TEST(Replay, ViewsAndCopiesFeedingKernelsReplayLikeARecording) {
  Executor ex(SharedContext());
  Executor plain(SharedContext());
  Graph g(2);  // x [2,3,4], w [3,5]
  const int t = g.Add("Transpose", {0}, {{"perm", std::vector<int64_t>{0, 2, 1}}});
  const int r = g.Add("Reshape", {t, Graph::kAbsent});
  g.nodes.back().input_values = {nullptr, I32Value({8, 3})};
  const int m = g.Add("MatMul", {r, 1});
  const int y = g.Add("Relu", {m});
  g.outputs = {y, g.Add("Transpose", {y}, {{"perm", std::vector<int64_t>{1, 0}}})};
  RecordedGraph recorded;
  std::mt19937_64 rng(testing::Seed());
  for (int run = 0; run < 4; ++run) {
    const std::vector<float> x = RandomF32(rng, 24), w = RandomF32(rng, 15);
    auto xin = ex.Upload(DType::kF32, {2, 3, 4}, F32Bytes(x));
    auto win = ex.Upload(DType::kF32, {3, 5}, F32Bytes(w));
    ASSERT_TRUE(xin.ok() && win.ok());
    const auto before = ex.stats();
    auto out = ex.Run(g, {*xin, *win}, &recorded);
    ASSERT_TRUE(out.ok()) << out.error().ToString();
    EXPECT_TRUE(recorded.ready()) << recorded.refused();
    EXPECT_EQ(recorded.replays(), static_cast<uint64_t>(run));
    if (run > 0) {
      EXPECT_EQ(ex.stats().programs_generated + ex.stats().programs_reused,
                before.programs_generated + before.programs_reused)
          << "a replay looked programs up";
      EXPECT_LE(ex.stats().buffers_created - before.buffers_created, 1u);
    }
    auto h0 = ex.Download((*out)[0]);
    auto h1 = ex.Download((*out)[1]);
    ASSERT_TRUE(h0.ok() && h1.ok());
    ASSERT_EQ(h0->shape, (Shape{8, 5}));
    ASSERT_EQ(h1->shape, (Shape{5, 8}));
    const std::vector<float> got0 = AsF32(*h0), got1 = AsF32(*h1);
    for (int i = 0; i < 8; ++i) {
      const int b = i / 4, c = i % 4;
      for (int j = 0; j < 5; ++j) {
        double sum = 0;
        for (int k = 0; k < 3; ++k) sum += double(x[b * 12 + k * 4 + c]) * w[k * 5 + j];
        const double want = std::max(0.0, sum);
        EXPECT_NEAR(got0[i * 5 + j], want, 1e-5) << run << ": " << i << "," << j;
        EXPECT_NEAR(got1[j * 8 + i], want, 1e-5) << run << ": " << j << "," << i;
      }
    }
    auto fresh = plain.Run(g, {*xin, *win});
    ASSERT_TRUE(fresh.ok());
    auto f0 = plain.Download((*fresh)[0]);
    ASSERT_TRUE(f0.ok());
    EXPECT_EQ(f0->data, h0->data) << "run " << run << " differs from a recording run";
  }
  EXPECT_EQ(recorded.captures(), 1u);
  EXPECT_GT(recorded.owned_bytes(), 0u);
}

// Outputs that are the input itself, a view of it, or an Identity copy: replays hand back the
// new input's storage, never the first run's.
TEST(Replay, OutputsThatAreInputsOrViewsOfThem) {
  Executor ex(SharedContext());
  Graph g(1);
  const int r = g.Add("Reshape", {0, Graph::kAbsent});
  g.nodes.back().input_values = {nullptr, I32Value({3, 2})};
  g.outputs = {0, r, g.Add("Identity", {0}), g.Add("Neg", {r})};
  RecordedGraph recorded;
  for (int run = 0; run < 3; ++run) {
    std::vector<float> x = Iota(6, 0.5f + static_cast<float>(run));
    auto in = ex.Upload(DType::kF32, {6}, F32Bytes(x));
    ASSERT_TRUE(in.ok());
    auto out = ex.Run(g, {*in}, &recorded);
    ASSERT_TRUE(out.ok()) << out.error().ToString();
    ASSERT_EQ(out->size(), 4u);
    EXPECT_EQ((*out)[0].storage(), in->storage()) << run;
    EXPECT_EQ((*out)[1].storage(), in->storage()) << run;
    EXPECT_EQ((*out)[1].shape(), (Shape{3, 2}));
    for (size_t o = 0; o < 4; ++o) {
      auto h = ex.Download((*out)[o]);
      ASSERT_TRUE(h.ok());
      const std::vector<float> got = AsF32(*h);
      ASSERT_EQ(got.size(), 6u);
      for (size_t i = 0; i < 6; ++i) EXPECT_EQ(got[i], o == 3 ? -x[i] : x[i]) << run << "/" << o;
    }
  }
  EXPECT_EQ(recorded.replays(), 2u) << recorded.refused();
}

// Other shapes, or the same shape with other strides or storage sharing, record again (and
// capture the new layout); the results stay right.
TEST(Replay, OtherInputLayoutsRecordAgain) {
  Executor ex(SharedContext());
  Graph g(2);
  g.outputs = {g.Add("Sub", {0, 1})};
  RecordedGraph recorded;
  auto check = [&](const Tensor& a, const Tensor& b, const std::vector<float>& want,
                   uint64_t captures, uint64_t replays) {
    auto out = ex.Run(g, {a, b}, &recorded);
    ASSERT_TRUE(out.ok()) << out.error().ToString();
    auto h = ex.Download((*out)[0]);
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(AsF32(*h), want);
    EXPECT_EQ(recorded.captures(), captures);
    EXPECT_EQ(recorded.replays(), replays);
  };
  const std::vector<float> a16 = Iota(16, 1.0f), b16 = Iota(16, 0.25f);
  auto a = ex.Upload(DType::kF32, {4, 4}, F32Bytes(a16));
  auto b = ex.Upload(DType::kF32, {4, 4}, F32Bytes(b16));
  auto a9 = ex.Upload(DType::kF32, {3, 3}, F32Bytes(Iota(9, 1.0f)));
  ASSERT_TRUE(a.ok() && b.ok() && a9.ok());
  std::vector<float> diff(16), diff_t(16), diff_self(16, 0.0f), diff9(9, 0.0f);
  for (int i = 0; i < 16; ++i) diff[i] = a16[i] - b16[i];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) diff_t[i * 4 + j] = a16[j * 4 + i] - b16[i * 4 + j];
  check(*a, *b, diff, 1, 0);
  check(*a, *b, diff, 1, 1);
  check(*a9, *a9, diff9, 2, 1);  // other shape
  auto at = a->Transpose({1, 0});
  ASSERT_TRUE(at.ok());
  check(*at, *b, diff_t, 3, 1);  // same shape, other strides
  check(*a, *b, diff, 4, 1);
  check(*a, *a, diff_self, 5, 1);  // one buffer for both inputs
  check(*b, *b, diff_self, 5, 2);
}

// Fifty runs submitted back to back without waiting, each with its own input, all sharing the
// trace's intermediates: queue order keeps every run's result its own.
TEST(Replay, RunsSubmittedBackToBackKeepTheirResults) {
  Executor ex(SharedContext());
  const size_t n = 4099;
  Graph g(1);
  int v = 0;
  const char* chain[] = {"Abs", "Neg", "Exp", "Tanh", "Sigmoid", "Neg", "Abs", "Sqrt"};
  for (const char* op : chain) v = g.Add(op, {v});
  g.outputs = {v};
  RecordedGraph recorded;
  std::mt19937_64 rng(testing::Seed());
  std::vector<std::vector<float>> xs;
  std::vector<Tensor> outs;
  for (int run = 0; run < 50; ++run) {
    xs.push_back(RandomF32(rng, n));
    auto in = ex.Upload(DType::kF32, {n}, F32Bytes(xs.back()));
    ASSERT_TRUE(in.ok());
    auto out = ex.Run(g, {*in}, &recorded);
    ASSERT_TRUE(out.ok()) << out.error().ToString();
    outs.push_back((*out)[0]);
  }
  EXPECT_EQ(recorded.replays(), 49u);
  // The first run's peak: at most three buffers of the chain (two alive at once, the output
  // apart) and no uniform blocks of any size to speak of.
  EXPECT_LE(recorded.owned_bytes(), 3 * ((n * 4 + 15) & ~size_t{15}) + 4096);
  for (int run = 0; run < 50; ++run) {
    auto h = ex.Download(outs[static_cast<size_t>(run)]);
    ASSERT_TRUE(h.ok());
    const std::vector<float> got = AsF32(*h);
    for (size_t i = 0; i < n; ++i) {
      const double x = xs[static_cast<size_t>(run)][i];
      const double y =
          std::sqrt(std::fabs(-1.0 / (1.0 + std::exp(-std::tanh(std::exp(-std::fabs(x)))))));
      ASSERT_NEAR(got[i], y, 1e-5) << "run " << run << " element " << i;
    }
  }
}

// Outputs read with the run's own submit (the copies appended to its command buffer): when
// recorded, captured and replayed, for contiguous outputs, a transposed view (read after the
// submit), an output that is the input itself, and a bool; against float64 references, with
// one submit per run and nothing left to wait for.
TEST(Replay, OutputsReadWithTheRunsSubmit) {
  Executor ex(SharedContext());
  const size_t rows = 3, cols = 5;
  Graph g(1);
  const int e = g.Add("Exp", {0});
  const int t = g.Add("Transpose", {e}, {{"perm", std::vector<int64_t>{1, 0}}});
  const int pos = g.Add("Greater", {0, g.Add("Neg", {0})});
  g.outputs = {e, t, 0, pos};
  RecordedGraph recorded;
  std::mt19937_64 rng(testing::Seed());
  for (int run = 0; run < 3; ++run) {
    const std::vector<float> x = RandomF32(rng, rows * cols);
    auto in = ex.Upload(DType::kF32, {rows, cols}, F32Bytes(x));
    ASSERT_TRUE(in.ok());
    const size_t read[] = {3, 1, 0, 2};
    std::vector<HostTensor> host;
    const uint64_t submits = ex.stats().submits;
    auto out = ex.Run(g, {*in}, &recorded, read, &host);
    ASSERT_TRUE(out.ok()) << out.error().ToString();
    ASSERT_EQ(host.size(), 4u);
    EXPECT_FALSE(ex.has_unwaited_work()) << "run " << run;
    // The transposed view costs an Identity dispatch of its own; the others ride the run's.
    EXPECT_LE(ex.stats().submits - submits, (*out)[1].contiguous() ? 1u : 2u) << "run " << run;
    const std::vector<float> ex_host = AsF32(host[2]), tr = AsF32(host[1]), same = AsF32(host[3]);
    ASSERT_EQ(host[0].dtype, DType::kBool);
    ASSERT_EQ(host[0].data.size(), rows * cols);
    ASSERT_EQ(host[1].shape, (Shape{cols, rows}));
    for (size_t r = 0; r < rows; ++r) {
      for (size_t c = 0; c < cols; ++c) {
        const double v = x[r * cols + c];
        EXPECT_NEAR(ex_host[r * cols + c], std::exp(v), 1e-5 * std::exp(v));
        EXPECT_NEAR(tr[c * rows + r], std::exp(v), 1e-5 * std::exp(v));
        EXPECT_EQ(same[r * cols + c], x[r * cols + c]);
        EXPECT_EQ(host[0].data[r * cols + c], std::byte{v > -v ? uint8_t{1} : uint8_t{0}});
      }
    }
  }
  EXPECT_EQ(recorded.replays(), 2u);
  // A read of an output that does not exist is an error naming it.
  const size_t bad[] = {4};
  std::vector<HostTensor> host;
  auto in = ex.Upload(DType::kF32, {rows, cols}, F32Bytes(Iota(rows * cols)));
  ASSERT_TRUE(in.ok());
  auto refused = ex.Run(g, {*in}, &recorded, bad, &host);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("graph output 4"), std::string::npos);
}

// Poisoned and profiled runs record every time (their extra dispatches are no trace's).
TEST(Replay, PoisonedAndProfiledRunsRecord) {
  Executor poisoned(SharedContext(), ExecutorOptions{.poison_outputs = true});
  Graph g(1);
  g.outputs = {g.Add("Neg", {0})};
  RecordedGraph recorded;
  auto in = poisoned.Upload(DType::kF32, {5}, F32Bytes(Iota(5)));
  ASSERT_TRUE(in.ok());
  for (int run = 0; run < 2; ++run) ASSERT_TRUE(poisoned.Run(g, {*in}, &recorded).ok());
  EXPECT_EQ(recorded.captures(), 0u);
  Executor ex(SharedContext());
  RunProfile profile;
  ex.set_profile(&profile);
  for (int run = 0; run < 2; ++run) {
    auto out = ex.Run(g, {*in}, &recorded);
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(profile.nodes.size(), 1u);
    auto h = ex.Download((*out)[0]);
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(AsF32(*h)[4], -4.0f);
  }
  EXPECT_EQ(recorded.captures(), 0u);
}

}  // namespace
}  // namespace alknet::compute
