// The random ops on the device, checked statistically (their float64 references draw the
// same numbers, which ops_test compares; here the numbers themselves are judged): range,
// mean and variance within bounds of many standard errors, seeds that repeat and differ,
// and Bernoulli's frequency per probability.
#include <cmath>
#include <cstring>

#include "test_util.h"

namespace alknet::compute {
namespace {

using testing::SharedContext;

std::vector<float> RunOp(Executor& ex, const std::string& op, Attributes attrs, int opset,
                         const std::vector<float>* like = nullptr) {
  Graph g(like != nullptr ? 1 : 0);
  std::vector<Tensor> inputs;
  if (like != nullptr) {
    auto b = std::as_bytes(std::span(*like));
    auto t = ex.Upload(DType::kF32, {like->size()}, std::vector<std::byte>(b.begin(), b.end()));
    EXPECT_TRUE(t.ok());
    inputs.push_back(*t);
    g.outputs = {g.Add(op, {0}, std::move(attrs), opset)};
  } else {
    g.outputs = {g.Add(op, {}, std::move(attrs), opset)};
  }
  auto out = ex.Run(g, inputs);
  EXPECT_TRUE(out.ok()) << op << ": " << out.error().ToString();
  if (!out.ok()) return {};
  auto h = ex.Download((*out)[0]);
  EXPECT_TRUE(h.ok());
  std::vector<float> v(h->data.size() / 4);
  std::memcpy(v.data(), h->data.data(), h->data.size());
  return v;
}

struct Moments {
  double mean = 0, var = 0, lo = INFINITY, hi = -INFINITY;
};
Moments Of(const std::vector<float>& v) {
  Moments m;
  for (float x : v) {
    m.mean += x;
    m.lo = std::min<double>(m.lo, x);
    m.hi = std::max<double>(m.hi, x);
  }
  m.mean /= static_cast<double>(v.size());
  for (float x : v) m.var += (x - m.mean) * (x - m.mean);
  m.var /= static_cast<double>(v.size() - 1);
  return m;
}

constexpr int64_t kN = 200000;

TEST(Random, UniformRangeMeanVariance) {
  Executor ex(SharedContext());
  const std::vector<float> v =
      RunOp(ex, "RandomUniform",
            {{"shape", std::vector<int64_t>{kN}}, {"low", -2.0}, {"high", 6.0}, {"seed", 7.0}}, 1);
  ASSERT_EQ(v.size(), static_cast<size_t>(kN));
  const Moments m = Of(v);
  EXPECT_GE(m.lo, -2.0);
  EXPECT_LT(m.hi, 6.0);
  // Uniform[-2, 6): mean 2, variance 64/12; standard error of the mean sqrt(var / n) ~ 0.005.
  EXPECT_NEAR(m.mean, 2.0, 6 * std::sqrt(64.0 / 12 / kN));
  EXPECT_NEAR(m.var, 64.0 / 12, 0.05);
  EXPECT_LT(m.lo, -1.99);  // the whole range is reached
  EXPECT_GT(m.hi, 5.99);
  // Deciles each hold a tenth (binomial bounds, 6 sigma).
  std::vector<int> deciles(10, 0);
  for (float x : v) deciles[std::min(9, static_cast<int>((x + 2.0) / 0.8))]++;
  for (int d : deciles) EXPECT_NEAR(d, kN / 10, 6 * std::sqrt(kN * 0.09));
}

TEST(Random, NormalMeanVarianceAndTails) {
  Executor ex(SharedContext());
  const std::vector<float> v =
      RunOp(ex, "RandomNormal",
            {{"shape", std::vector<int64_t>{kN}}, {"mean", 1.5}, {"scale", 2.0}, {"seed", 3.0}}, 1);
  ASSERT_EQ(v.size(), static_cast<size_t>(kN));
  const Moments m = Of(v);
  EXPECT_NEAR(m.mean, 1.5, 6 * 2.0 / std::sqrt(kN));
  EXPECT_NEAR(m.var, 4.0, 6 * 4.0 * std::sqrt(2.0 / kN));
  // P(|z| > 2) = 0.0455 for a normal.
  int outside = 0;
  for (float x : v) outside += std::fabs((x - 1.5) / 2.0) > 2.0 ? 1 : 0;
  EXPECT_NEAR(outside, 0.0455 * kN, 6 * std::sqrt(kN * 0.0455 * 0.9545));
}

TEST(Random, SeedsRepeatAndDiffer) {
  Executor ex(SharedContext());
  Attributes a{{"shape", std::vector<int64_t>{1000}}, {"seed", 11.0}};
  const auto x = RunOp(ex, "RandomUniform", a, 1);
  const auto y = RunOp(ex, "RandomUniform", a, 1);
  a["seed"] = 12.0;
  const auto z = RunOp(ex, "RandomUniform", a, 1);
  EXPECT_EQ(x, y);
  int same = 0;
  for (size_t i = 0; i < x.size(); ++i) same += x[i] == z[i] ? 1 : 0;
  EXPECT_LT(same, 5);
  // Neighbouring elements are not correlated (lag-1 correlation ~ 0).
  double c = 0;
  for (size_t i = 1; i < x.size(); ++i) c += (x[i] - 0.5) * (x[i - 1] - 0.5);
  EXPECT_NEAR(c / (x.size() - 1) / (1.0 / 12), 0.0, 6 / std::sqrt(1000.0));
}

TEST(Random, BernoulliFrequencyFollowsP) {
  Executor ex(SharedContext());
  std::vector<float> p(kN);
  for (int64_t i = 0; i < kN; ++i) p[i] = static_cast<float>(i % 5) / 4.0f;  // 0, .25, .5, .75, 1
  const std::vector<float> v = RunOp(ex, "Bernoulli", {{"seed", 5.0}}, 15, &p);
  ASSERT_EQ(v.size(), static_cast<size_t>(kN));
  std::vector<double> ones(5, 0);
  for (int64_t i = 0; i < kN; ++i) {
    ASSERT_TRUE(v[i] == 0.0f || v[i] == 1.0f);
    ones[i % 5] += v[i];
  }
  const double per = kN / 5.0;
  EXPECT_EQ(ones[0], 0);    // p = 0 never
  EXPECT_EQ(ones[4], per);  // p = 1 always
  for (int k = 1; k < 4; ++k) {
    const double q = k / 4.0;
    EXPECT_NEAR(ones[k] / per, q, 6 * std::sqrt(q * (1 - q) / per));
  }
}

}  // namespace
}  // namespace alknet::compute
