// compute.* and crypto.sha256 through the call registry: locally, and on loopback through
// alknet-call's gRPC server, checked against the float64 reference and OpenSSL.
#include <openssl/sha.h>

#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <thread>

#include "alknet/call-grpc/remote.h"
#include "alknet/call/builtins.h"
#include "alknet/compute-calls/calls.h"
#include "test_util.h"

namespace alknet::compute {
namespace {

namespace c = alknet::call;

c::Tensor F32Tensor(std::vector<int64_t> shape, const std::vector<float>& v) {
  return c::Tensor::Copy("f32", std::move(shape), std::as_bytes(std::span(v)));
}

std::vector<float> Floats(const c::Tensor& t) {
  std::vector<float> v(t.data.size() / 4);
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

class ComputeCalls : public ::testing::Test {
 protected:
  void SetUp() override {
    auto builtins = c::RegisterBuiltins(registry_);
    ASSERT_TRUE(builtins.ok()) << builtins.error().ToString();
    auto r = registry_.AddComponent(ComputeComponent());
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    registry_.Seal();
    c::ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.token = "compute-test-token";
    auto server = c::CallServer::Start(registry_, options);
    ASSERT_TRUE(server.ok()) << server.error().ToString();
    server_ = std::move(*server);
    c::RemoteOptions ro;
    ro.address = server_->address();
    ro.token = "compute-test-token";
    auto client = c::RemoteRegistry::Connect(ro);
    ASSERT_TRUE(client.ok()) << client.error().ToString();
    remote_ = std::move(*client);
  }

  // A 2 x 3 by 3 x 2 MatMul (the product is {4, 5, 10, 11}): the small call the tests send
  // while a long one holds the device.
  c::Result<c::Value> SmallMatMul() {
    std::vector<c::Value> args{c::Value(c::Value::List{F32Tensor({2, 3}, {1, 2, 3, 4, 5, 6}),
                                                       F32Tensor({3, 2}, {1, 0, 0, 1, 1, 1})})};
    return registry_.Invoke("compute.mat_mul", args,
                            c::CallOptions::WithTimeout(std::chrono::seconds(120)));
  }

  c::CallRegistry registry_;
  std::unique_ptr<c::CallServer> server_;
  std::unique_ptr<c::RemoteRegistry> remote_;
};

TEST(CallNames, SnakeCase) {
  EXPECT_EQ(CallNameOf("LeakyRelu"), "compute.leaky_relu");
  EXPECT_EQ(CallNameOf("GreaterOrEqual"), "compute.greater_or_equal");
  EXPECT_EQ(CallNameOf("PRelu"), "compute.prelu");
  EXPECT_EQ(CallNameOf("Abs"), "compute.abs");
}

TEST_F(ComputeCalls, EveryOpIsACall) {
  auto list = remote_->List();
  ASSERT_TRUE(list.ok());
  std::set<std::string> names;
  for (const auto& info : *list) names.insert(info.name);
  for (const OpRecord& r : OpTable::Default().records()) {
    // Internal records are building blocks of composite ops, not calls.
    EXPECT_EQ(names.count(CallNameOf(r.name)), r.family == "internal" ? 0u : 1u) << r.name;
  }
  EXPECT_TRUE(names.count("crypto.sha256"));
}

TEST_F(ComputeCalls, RemoteOpsMatchTheReference) {
  std::mt19937_64 rng(testing::Seed());
  std::uniform_real_distribution<float> u(-2, 2);
  std::vector<float> a(3 * 5 * 7), b(5 * 1);
  for (float& v : a) v = u(rng);
  for (float& v : b) v = u(rng);
  for (c::CallTarget* target :
       {static_cast<c::CallTarget*>(&registry_), static_cast<c::CallTarget*>(remote_.get())}) {
    std::vector<c::Value> args{
        c::Value(c::Value::List{F32Tensor({3, 5, 7}, a), F32Tensor({5, 1}, b)})};
    auto r =
        target->Invoke("compute.mul", args, c::CallOptions::WithTimeout(std::chrono::seconds(60)));
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    ASSERT_EQ(r->as_tensor().dtype, "f32");
    ASSERT_EQ(r->as_tensor().shape, (std::vector<int64_t>{3, 5, 7}));
    std::vector<float> got = Floats(r->as_tensor());
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j)
        for (int k = 0; k < 7; ++k)
          EXPECT_EQ(got[(i * 5 + j) * 7 + k], a[(i * 5 + j) * 7 + k] * b[j]);

    // Attributes and opset travel too: Gemm with transB, alpha.
    std::vector<float> x = {1, 2, 3, 4, 5, 6},
                       w = {1, 0, -1, 2, 1, 0};  // x [2,3], w [2,3] (transB)
    std::vector<c::Value> gargs{
        c::Value(c::Value::List{F32Tensor({2, 3}, x), F32Tensor({2, 3}, w)}),
        c::Value(c::Value::Map{{"transB", c::Value(1)}, {"alpha", c::Value(0.5)}}), c::Value(13)};
    auto g = target->Invoke("compute.gemm", gargs,
                            c::CallOptions::WithTimeout(std::chrono::seconds(60)));
    ASSERT_TRUE(g.ok()) << g.error().ToString();
    EXPECT_EQ(Floats(g->as_tensor()), (std::vector<float>{-1, 2, -1, 6.5f}));
  }
}

// Sets ALKNET_MATMUL_BLOCK_MS for one scope (blocks sized for that many milliseconds).
struct BlockMs {
  explicit BlockMs(const char* ms) { setenv("ALKNET_MATMUL_BLOCK_MS", ms, 1); }
  ~BlockMs() { unsetenv("ALKNET_MATMUL_BLOCK_MS"); }
};

// A MatMul longer than one block runs as row blocks sized by time; the result must still be
// the product whatever the block size (1 ms: many blocks of a few rows; 60 s: after the first
// measured block, the rest in one). Every row is checked against float64 (rows are
// independent, and where the block edges fall depends on the timing).
TEST_F(ComputeCalls, BlockedMatMulMatchesTheReferenceForEveryBlockSize) {
  const int m = 257, k = 1024, n = 1024;
  std::mt19937_64 rng(testing::Seed() + 7);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> a(m * k), b(k * n);
  for (float& v : a) v = u(rng);
  for (float& v : b) v = u(rng);
  for (const char* ms : {"1", "50", "60000"}) {
    BlockMs block(ms);
    std::vector<c::Value> args{
        c::Value(c::Value::List{F32Tensor({m, k}, a), F32Tensor({k, n}, b)})};
    auto r = registry_.Invoke("compute.mat_mul", args,
                              c::CallOptions::WithTimeout(std::chrono::seconds(120)));
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    ASSERT_EQ(r->as_tensor().shape, (std::vector<int64_t>{m, n}));
    const std::vector<float> got = Floats(r->as_tensor());
    int bad = 0;
    for (int i = 0; i < m; ++i) {
      for (int j : {0, 1, 333, 511, 512, 777, n - 1}) {
        double ref = 0, mag = 0;
        for (int p = 0; p < k; ++p) {
          ref += double(a[i * k + p]) * b[p * n + j];
          mag += std::abs(double(a[i * k + p]) * b[p * n + j]);
        }
        if (std::abs(got[i * n + j] - ref) > 1e-5 * mag + 1e-6 && ++bad < 5)
          ADD_FAILURE() << ms << " ms blocks (" << i << "," << j << "): " << got[i * n + j]
                        << " want " << ref;
      }
    }
    EXPECT_EQ(bad, 0) << ms << " ms blocks";
  }
}

// Batched MatMuls over one dispatch's budget are cut too (ADR 0014): A's batches as rows of
// one tall matrix against a single B, whole batches grouped per dispatch, and broadcast batch
// dimensions gathered. Sampled elements of every batch are checked against float64.
TEST_F(ComputeCalls, BatchedMatMulsAreCutAndMatchTheReference) {
  struct Case {
    std::vector<int64_t> a, b, out;
  };
  const std::vector<Case> cases = {
      {{4, 300, 1024}, {1024, 256}, {4, 300, 256}},         // one B: rows of A
      {{3, 100, 1024}, {3, 1024, 1024}, {3, 100, 1024}},    // batches grouped 2 + 1
      {{2, 1, 64, 512}, {3, 512, 2048}, {2, 3, 64, 2048}},  // A broadcast over B's batch
      {{1, 1100, 512}, {2, 512, 512}, {2, 1100, 512}},      // one batch over the budget
  };
  std::mt19937_64 rng(testing::Seed() + 11);
  std::uniform_real_distribution<float> u(-1, 1);
  auto count = [](const std::vector<int64_t>& s) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return n;
  };
  for (const char* ms : {"2", "50"})
    for (const Case& cs : cases) {
      BlockMs block(ms);
      std::vector<float> a(count(cs.a)), b(count(cs.b));
      for (float& v : a) v = u(rng);
      for (float& v : b) v = u(rng);
      std::vector<c::Value> args{c::Value(c::Value::List{F32Tensor(cs.a, a), F32Tensor(cs.b, b)})};
      auto r = registry_.Invoke("compute.mat_mul", args,
                                c::CallOptions::WithTimeout(std::chrono::seconds(300)));
      ASSERT_TRUE(r.ok()) << r.error().ToString();
      ASSERT_EQ(r->as_tensor().shape, cs.out);
      const std::vector<float> got = Floats(r->as_tensor());
      const int64_t m = cs.a[cs.a.size() - 2], k = cs.a.back(), n = cs.b.back();
      // The batch index of an operand for output batch o (numpy broadcasting).
      auto matrix = [&](const std::vector<int64_t>& shape, int64_t o) {
        const std::size_t rank = cs.out.size() - 2, pad = rank - (shape.size() - 2);
        int64_t index = 0, stride = 1;
        for (std::size_t d = rank; d-- > 0;) {
          const int64_t i = o % cs.out[d];
          o /= cs.out[d];
          const int64_t dim = d < pad ? 1 : shape[d - pad];
          if (dim != 1) index += i * stride;
          stride *= dim;
        }
        return index;
      };
      const int64_t batches = count(cs.out) / (m * n);
      int bad = 0;
      for (int64_t o = 0; o < batches; ++o) {
        const float* ma = a.data() + matrix(cs.a, o) * m * k;
        const float* mb = b.data() + (cs.b.size() == 2 ? 0 : matrix(cs.b, o)) * k * n;
        for (int t = 0; t < 24; ++t) {
          const int64_t i = t < 2 ? t * (m - 1) : int64_t(rng() % m);
          const int64_t j = t < 2 ? t * (n - 1) : int64_t(rng() % n);
          double ref = 0, mag = 0;
          for (int64_t p = 0; p < k; ++p) {
            ref += double(ma[i * k + p]) * mb[p * n + j];
            mag += std::abs(double(ma[i * k + p]) * mb[p * n + j]);
          }
          const float g = got[(o * m + i) * n + j];
          if (std::abs(g - ref) > 1e-5 * mag + 1e-6 && ++bad < 5)
            ADD_FAILURE() << ms << " ms blocks, batch " << o << " (" << i << "," << j << "): " << g
                          << " want " << ref;
        }
      }
      EXPECT_EQ(bad, 0);
    }
}

// GPU calls take turns: a small call queued while a long MatMul runs goes between two of its
// dispatches, long before the MatMul ends (it has no short deadline here).
TEST_F(ComputeCalls, SmallCallRunsBetweenTheDispatchesOfALongOne) {
  ASSERT_TRUE(SmallMatMul().ok());
  const int m = 4096, k = 2048, n = 2048;  // 64 dispatches
  std::vector<float> a(std::size_t(m) * k, 0.5f), b(std::size_t(k) * n, 0.25f);
  std::atomic<bool> big_done{false};
  c::CancelSource cancel;
  c::CallOptions big_options = c::CallOptions::WithTimeout(std::chrono::seconds(600));
  big_options.cancel = cancel.Token();
  std::thread big([&] {
    const std::vector<c::Value> args{
        c::Value(c::Value::List{F32Tensor({m, k}, a), F32Tensor({k, n}, b)})};
    auto ignored = registry_.Invoke("compute.mat_mul", args, big_options);  // cancelled below
    (void)ignored;
    big_done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the big call holds the GPU
  if (big_done.load()) {
    big.join();
    // Sized for lavapipe (many seconds there); a large GPU finishes it within the 300 ms.
    GTEST_SKIP() << "the long MatMul finished within 300 ms on this device";
  }
  auto r = SmallMatMul();
  const bool overtook = !big_done.load();
  cancel.Cancel();
  big.join();
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(Floats(r->as_tensor()), (std::vector<float>{4, 5, 10, 11}));
  EXPECT_TRUE(overtook) << "the small call waited for the whole long MatMul";
}

// A long MatMul past its deadline stops between dispatches, so a small call queued behind it
// on the one device runs soon after, not when the long product would have finished. (Local
// calls: the big one starts at once, with no upload; the server hands its deadline to the
// same handler.)
TEST_F(ComputeCalls, LongMatMulStopsAtItsDeadlineAndFreesTheDevice) {
  auto warm = SmallMatMul();  // opens the device and compiles the pipeline outside the timing
  ASSERT_TRUE(warm.ok()) << warm.error().ToString();
  EXPECT_EQ(Floats(warm->as_tensor()), (std::vector<float>{4, 5, 10, 11}));

  const int m = 4096, k = 2048, n = 2048;  // 17 G multiply-adds: long on lavapipe
  std::vector<float> a(std::size_t(m) * k, 0.5f), b(std::size_t(k) * n, 0.25f);
  const auto start = std::chrono::steady_clock::now();
  auto big = registry_.InvokeAsync(
      "compute.mat_mul", {c::Value(c::Value::List{F32Tensor({m, k}, a), F32Tensor({k, n}, b)})},
      c::CallOptions::WithTimeout(std::chrono::milliseconds(500)));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the big call holds the GPU
  auto r = SmallMatMul();
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(Floats(r->as_tensor()), (std::vector<float>{4, 5, 10, 11}));
  auto big_result = big.get();
  if (!big_result.ok()) {
    EXPECT_EQ(big_result.error().code, c::ErrorCode::kDeadlineExceeded)
        << big_result.error().ToString();
  }
  std::printf("small call done %.2f s after the long one started (its deadline: 0.5 s)\n", waited);
  EXPECT_LT(waited, 5.0);
}

// Cancelling a long MatMul stops it within about one block: blocks are sized for 50 ms, so a
// small call sent right after the cancel gets the device well within a second (with the fixed
// 2^28 multiply-add blocks of before, one block of this product took 0.2-1.9 s on lavapipe).
// The cancelled call's future resolves at once; the device is what the handler holds.
TEST_F(ComputeCalls, CancelledLongMatMulFreesTheDeviceWithinABlock) {
  ASSERT_TRUE(SmallMatMul().ok());         // device open, pipeline compiled
  const int m = 4096, k = 2048, n = 2048;  // 17 G multiply-adds: many seconds on lavapipe
  std::vector<float> a(std::size_t(m) * k, 0.5f), b(std::size_t(k) * n, 0.25f);
  c::CancelSource cancel;
  c::CallOptions options = c::CallOptions::WithTimeout(std::chrono::seconds(600));
  options.cancel = cancel.Token();
  auto big = registry_.InvokeAsync(
      "compute.mat_mul", {c::Value(c::Value::List{F32Tensor({m, k}, a), F32Tensor({k, n}, b)})},
      options);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // blocks measured and sized
  const auto cancelled_at = std::chrono::steady_clock::now();
  cancel.Cancel();
  auto r = SmallMatMul();
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - cancelled_at).count();
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(Floats(r->as_tensor()), (std::vector<float>{4, 5, 10, 11}));
  auto big_result = big.get();
  ASSERT_FALSE(big_result.ok()) << "the product finished before the cancel; make it larger";
  EXPECT_EQ(big_result.error().code, c::ErrorCode::kCancelled) << big_result.error().ToString();
  std::printf("small call done %.3f s after the long one was cancelled\n", took);
  EXPECT_LT(took, 1.0);
}

// A 2-D convolution in float64, straight from the ONNX definition (a 1-D one is a 2-D one with
// a width of 1): out[n, m, oy, ox] = B[m] + sum over the group's channels and the window.
struct ConvCase {
  const char* what;
  std::vector<int64_t> x, w;  // [N, C, H(, W)], [M, C/group, KH(, KW)]
  bool bias;
  c::Value::Map attrs;
  int64_t group;
  std::array<int64_t, 2> stride, dilation, pad_begin, pad_end;  // as the reference applies them
};

std::vector<double> ConvReference(const ConvCase& cs, const std::vector<float>& x,
                                  const std::vector<float>& w, const std::vector<float>& b,
                                  std::vector<int64_t>* out_shape) {
  const int64_t N = cs.x[0], C = cs.x[1], H = cs.x[2], W = cs.x.size() > 3 ? cs.x[3] : 1;
  const int64_t M = cs.w[0], CG = cs.w[1], KH = cs.w[2], KW = cs.w.size() > 3 ? cs.w[3] : 1;
  const int64_t MG = M / cs.group;
  auto extent = [](int64_t in, int64_t k, int64_t s, int64_t d, int64_t pb, int64_t pe) {
    return (in + pb + pe - (k - 1) * d - 1) / s + 1;
  };
  const int64_t OH = extent(H, KH, cs.stride[0], cs.dilation[0], cs.pad_begin[0], cs.pad_end[0]);
  const int64_t OW = extent(W, KW, cs.stride[1], cs.dilation[1], cs.pad_begin[1], cs.pad_end[1]);
  *out_shape = {N, M, OH};
  if (cs.x.size() > 3) out_shape->push_back(OW);
  std::vector<double> out(std::size_t(N * M * OH * OW));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m) {
      const int64_t g = m / MG;
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox) {
          double sum = cs.bias ? b[m] : 0;
          for (int64_t cc = 0; cc < CG; ++cc)
            for (int64_t ky = 0; ky < KH; ++ky) {
              const int64_t iy = oy * cs.stride[0] - cs.pad_begin[0] + ky * cs.dilation[0];
              if (iy < 0 || iy >= H) continue;
              for (int64_t kx = 0; kx < KW; ++kx) {
                const int64_t ix = ox * cs.stride[1] - cs.pad_begin[1] + kx * cs.dilation[1];
                if (ix < 0 || ix >= W) continue;
                sum += double(x[((n * C + g * CG + cc) * H + iy) * W + ix]) *
                       w[((m * CG + cc) * KH + ky) * KW + kx];
              }
            }
          out[((n * M + m) * OH + oy) * OW + ox] = sum;
        }
    }
  return out;
}

c::Value Ints(std::vector<int64_t> v) {
  c::Value::List l;
  for (int64_t i : v) l.emplace_back(i);
  return c::Value(std::move(l));
}

// A Conv longer than one block is cut (groups of images, blocks of output channels or of
// groups, bands of output rows with the pads that fall inside them); the result must be the
// convolution whatever the block size. 1 ms blocks cut every case below on lavapipe down to
// row bands (the 1024 x 1024 single channel, the groups of 512 x 512); 50 ms blocks cut less.
// Every output element is checked against float64.
TEST_F(ComputeCalls, CutConvMatchesTheReferenceForEveryBlockSize) {
  const std::vector<ConvCase> cases = {
      {"images, bias, pads 1",
       {8, 16, 32, 32},
       {32, 16, 3, 3},
       true,
       {{"pads", Ints({1, 1, 1, 1})}},
       1,
       {1, 1},
       {1, 1},
       {1, 1},
       {1, 1}},
      {"channels, strides 2, dilations 2, uneven pads",
       {1, 32, 96, 96},
       {64, 32, 3, 3},
       true,
       {{"strides", Ints({2, 2})}, {"dilations", Ints({2, 2})}, {"pads", Ints({1, 2, 2, 0})}},
       1,
       {2, 2},
       {2, 2},
       {1, 2},
       {2, 0}},
      {"groups of 2 channels, SAME_UPPER, stride 2",
       {1, 8, 512, 512},
       {8, 2, 5, 5},
       false,
       {{"group", c::Value(4)},
        {"auto_pad", c::Value(std::string("SAME_UPPER"))},
        {"strides", Ints({2, 2})}},
       4,
       {2, 2},
       {1, 1},
       {1, 1},
       {2, 2}},
      {"one channel, 9x9, SAME_LOWER",
       {1, 1, 1024, 1024},
       {1, 1, 9, 9},
       true,
       {{"auto_pad", c::Value(std::string("SAME_LOWER"))}},
       1,
       {1, 1},
       {1, 1},
       {4, 4},
       {4, 4}},
      {"1-D, stride 3, pads 5 and 2",
       {2, 2, 200000},
       {2, 2, 31},
       true,
       {{"strides", Ints({3})}, {"pads", Ints({5, 2})}},
       1,
       {3, 1},
       {1, 1},
       {5, 0},
       {2, 0}},
  };
  std::mt19937_64 rng(testing::Seed() + 13);
  std::uniform_real_distribution<float> u(-1, 1);
  auto count = [](const std::vector<int64_t>& s) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return n;
  };
  for (const char* ms : {"1", "50"})
    for (const ConvCase& cs : cases) {
      BlockMs block(ms);
      std::vector<float> x(count(cs.x)), w(count(cs.w)), b(cs.w[0]);
      for (float& v : x) v = u(rng);
      for (float& v : w) v = u(rng);
      for (float& v : b) v = u(rng);
      c::Value::List inputs{F32Tensor(cs.x, x), F32Tensor(cs.w, w)};
      if (cs.bias) inputs.emplace_back(F32Tensor({cs.w[0]}, b));
      std::vector<c::Value> args{c::Value(std::move(inputs)), c::Value(cs.attrs)};
      auto r = registry_.Invoke("compute.conv", args,
                                c::CallOptions::WithTimeout(std::chrono::seconds(300)));
      ASSERT_TRUE(r.ok()) << cs.what << ": " << r.error().ToString();
      std::vector<int64_t> shape;
      const std::vector<double> ref = ConvReference(cs, x, w, b, &shape);
      ASSERT_EQ(r->as_tensor().shape, shape) << cs.what;
      const std::vector<float> got = Floats(r->as_tensor());
      // Each term is at most 1 in size (|x|, |w| <= 1): float32 sums of `taps` of them.
      const double taps = double(count(cs.w) / cs.w[0]);
      const double tol = 1e-6 * taps + 1e-5;
      int bad = 0;
      for (std::size_t i = 0; i < ref.size(); ++i) {
        if (std::abs(got[i] - ref[i]) > tol && ++bad < 5)
          ADD_FAILURE() << ms << " ms blocks, " << cs.what << ", element " << i << ": " << got[i]
                        << " want " << ref[i];
      }
      EXPECT_EQ(bad, 0) << ms << " ms blocks, " << cs.what;
    }
}

// A Gemm longer than one block runs as blocks of rows of Y (A's columns gathered when
// transA = 1, C sliced with the rows when it has M of them, else broadcast whole); every row,
// at sampled columns, must match float64 whatever the block size.
TEST_F(ComputeCalls, CutGemmMatchesTheReferenceForEveryBlockSize) {
  struct Case {
    int64_t trans_a, trans_b;
    std::vector<int64_t> c;  // C's shape; empty: no C
    bool has_c;
  };
  const int64_t M = 300, K = 512, N = 256;
  const std::vector<Case> cases = {
      {0, 1, {M, N}, true}, {1, 0, {N}, true}, {1, 1, {M, 1}, true},
      {0, 0, {}, false},    {0, 0, {}, true},  // a scalar C
  };
  std::mt19937_64 rng(testing::Seed() + 17);
  std::uniform_real_distribution<float> u(-1, 1);
  for (const char* ms : {"1", "50"})
    for (const Case& cs : cases) {
      BlockMs block(ms);
      std::vector<float> a(M * K), b(K * N);
      int64_t c_elems = 1;
      for (int64_t d : cs.c) c_elems *= d;
      std::vector<float> cv(cs.has_c ? c_elems : 0);
      for (float& v : a) v = u(rng);
      for (float& v : b) v = u(rng);
      for (float& v : cv) v = u(rng);
      const std::vector<int64_t> ashape =
          cs.trans_a ? std::vector<int64_t>{K, M} : std::vector<int64_t>{M, K};
      const std::vector<int64_t> bshape =
          cs.trans_b ? std::vector<int64_t>{N, K} : std::vector<int64_t>{K, N};
      c::Value::List inputs{F32Tensor(ashape, a), F32Tensor(bshape, b)};
      if (cs.has_c) inputs.emplace_back(F32Tensor(cs.c, cv));
      const double alpha = 0.5, beta = cs.has_c ? 2.0 : 1.0;
      std::vector<c::Value> args{c::Value(std::move(inputs)),
                                 c::Value(c::Value::Map{{"transA", c::Value(cs.trans_a)},
                                                        {"transB", c::Value(cs.trans_b)},
                                                        {"alpha", c::Value(alpha)},
                                                        {"beta", c::Value(beta)}}),
                                 c::Value(13)};
      auto r = registry_.Invoke("compute.gemm", args,
                                c::CallOptions::WithTimeout(std::chrono::seconds(300)));
      ASSERT_TRUE(r.ok()) << r.error().ToString();
      ASSERT_EQ(r->as_tensor().shape, (std::vector<int64_t>{M, N}));
      const std::vector<float> got = Floats(r->as_tensor());
      int bad = 0;
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j : {int64_t{0}, int64_t{1}, int64_t{97}, int64_t{128}, N - 1}) {
          double dot = 0, mag = 0;
          for (int64_t p = 0; p < K; ++p) {
            const double x = cs.trans_a ? a[p * M + i] : a[i * K + p];
            const double y = cs.trans_b ? b[j * K + p] : b[p * N + j];
            dot += x * y;
            mag += std::abs(x * y);
          }
          double c_ij = 0;
          if (cs.has_c) {
            if (cs.c.empty())
              c_ij = cv[0];
            else if (cs.c.size() == 1)
              c_ij = cv[j];
            else
              c_ij = cs.c[1] == 1 ? cv[i] : cv[i * N + j];
          }
          const double want = alpha * dot + beta * c_ij;
          if (std::abs(got[i * N + j] - want) > 1e-5 * mag + 1e-5 && ++bad < 5)
            ADD_FAILURE() << ms << " ms blocks, transA " << cs.trans_a << " transB " << cs.trans_b
                          << " (" << i << "," << j << "): " << got[i * N + j] << " want " << want;
        }
      EXPECT_EQ(bad, 0) << ms << " ms blocks, transA " << cs.trans_a << " transB " << cs.trans_b;
    }
}

// Cancelling a long Conv stops it within about one block, so a small call sent right after
// the cancel gets the device well within a second (before the cut, a Conv was one dispatch:
// this one would hold the device for its whole run, many seconds on lavapipe).
TEST_F(ComputeCalls, CancelledLongConvFreesTheDeviceWithinABlock) {
  ASSERT_TRUE(SmallMatMul().ok());  // device open, pipeline compiled
  // 4 x 128 x 64 x 9 x 256 x 256 = 19 G multiply-adds.
  std::vector<float> x(std::size_t(4) * 64 * 256 * 256, 0.5f), w(128 * 64 * 9, 0.25f);
  c::CancelSource cancel;
  c::CallOptions options = c::CallOptions::WithTimeout(std::chrono::seconds(600));
  options.cancel = cancel.Token();
  auto big = registry_.InvokeAsync(
      "compute.conv",
      {c::Value(c::Value::List{F32Tensor({4, 64, 256, 256}, x), F32Tensor({128, 64, 3, 3}, w)}),
       c::Value(c::Value::Map{{"pads", Ints({1, 1, 1, 1})}})},
      options);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // blocks measured and sized
  const auto cancelled_at = std::chrono::steady_clock::now();
  cancel.Cancel();
  auto r = SmallMatMul();
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - cancelled_at).count();
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(Floats(r->as_tensor()), (std::vector<float>{4, 5, 10, 11}));
  auto big_result = big.get();
  ASSERT_FALSE(big_result.ok()) << "the Conv finished before the cancel; make it larger";
  EXPECT_EQ(big_result.error().code, c::ErrorCode::kCancelled) << big_result.error().ToString();
  std::printf("small call done %.3f s after the long Conv was cancelled\n", took);
  EXPECT_LT(took, 1.0);
}

TEST_F(ComputeCalls, RemoteErrorsNameTheProblem) {
  std::vector<c::Value> args{
      c::Value(c::Value::List{F32Tensor({3}, {1, 2, 3}), F32Tensor({4}, {1, 2, 3, 4})})};
  auto r =
      remote_->Invoke("compute.add", args, c::CallOptions::WithTimeout(std::chrono::seconds(60)));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, c::ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message.find("do not broadcast"), std::string::npos) << r.error().message;
  std::vector<c::Value> bad{c::Value(c::Value::List{c::Value(3)})};
  auto r2 =
      remote_->Invoke("compute.relu", bad, c::CallOptions::WithTimeout(std::chrono::seconds(60)));
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().message.find("inputs[0] is a int"), std::string::npos) << r2.error().message;
}

TEST_F(ComputeCalls, RemoteSha256MatchesOpenSsl) {
  std::mt19937_64 rng(testing::Seed() + 3);
  c::Value::List msgs;
  std::vector<c::Bytes> raw;
  for (size_t len : {0, 3, 55, 56, 64, 1000}) {
    c::Bytes m(len);
    for (auto& b : m) b = static_cast<uint8_t>(rng());
    raw.push_back(m);
    msgs.emplace_back(m);
  }
  std::vector<std::byte> u8(100, std::byte{7});
  msgs.emplace_back(c::Tensor::Copy("u8", {100}, u8));
  std::vector<c::Value> args{c::Value(msgs)};
  auto r =
      remote_->Invoke("crypto.sha256", args, c::CallOptions::WithTimeout(std::chrono::seconds(60)));
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  ASSERT_EQ(r->as_list().size(), msgs.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    c::Bytes want(32);
    SHA256(raw[i].data(), raw[i].size(), want.data());
    EXPECT_EQ(r->as_list()[i].as_bytes(), want) << "message " << i;
  }
  c::Bytes want(32);
  SHA256(reinterpret_cast<const unsigned char*>(u8.data()), u8.size(), want.data());
  EXPECT_EQ(r->as_list().back().as_bytes(), want);
}

}  // namespace
}  // namespace alknet::compute
