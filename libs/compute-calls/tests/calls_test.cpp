// compute.* and crypto.sha256 through the call registry: locally, and on loopback through
// alknet-call's gRPC server, checked against the float64 reference and OpenSSL.
#include <openssl/sha.h>

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
  auto small = [&] {
    std::vector<c::Value> args{c::Value(c::Value::List{F32Tensor({2, 3}, {1, 2, 3, 4, 5, 6}),
                                                       F32Tensor({3, 2}, {1, 0, 0, 1, 1, 1})})};
    return registry_.Invoke("compute.mat_mul", args,
                            c::CallOptions::WithTimeout(std::chrono::seconds(120)));
  };
  ASSERT_TRUE(small().ok());
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
  auto r = small();
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
  auto small = [&] {
    std::vector<c::Value> args{c::Value(c::Value::List{F32Tensor({2, 3}, {1, 2, 3, 4, 5, 6}),
                                                       F32Tensor({3, 2}, {1, 0, 0, 1, 1, 1})})};
    return registry_.Invoke("compute.mat_mul", args,
                            c::CallOptions::WithTimeout(std::chrono::seconds(120)));
  };
  auto warm = small();  // opens the device and compiles the pipeline outside the timing
  ASSERT_TRUE(warm.ok()) << warm.error().ToString();
  EXPECT_EQ(Floats(warm->as_tensor()), (std::vector<float>{4, 5, 10, 11}));

  const int m = 4096, k = 2048, n = 2048;  // 17 G multiply-adds: long on lavapipe
  std::vector<float> a(std::size_t(m) * k, 0.5f), b(std::size_t(k) * n, 0.25f);
  const auto start = std::chrono::steady_clock::now();
  auto big = registry_.InvokeAsync(
      "compute.mat_mul", {c::Value(c::Value::List{F32Tensor({m, k}, a), F32Tensor({k, n}, b)})},
      c::CallOptions::WithTimeout(std::chrono::milliseconds(500)));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the big call holds the GPU
  auto r = small();
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
  auto small = [&] {
    std::vector<c::Value> args{c::Value(c::Value::List{F32Tensor({2, 3}, {1, 2, 3, 4, 5, 6}),
                                                       F32Tensor({3, 2}, {1, 0, 0, 1, 1, 1})})};
    return registry_.Invoke("compute.mat_mul", args,
                            c::CallOptions::WithTimeout(std::chrono::seconds(120)));
  };
  ASSERT_TRUE(small().ok());               // device open, pipeline compiled
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
  auto r = small();
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
