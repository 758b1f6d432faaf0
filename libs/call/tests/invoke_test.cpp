// Invocation: sync and async, errors from handlers, deadlines, cancellation, zero-copy tensors.
#include <gtest/gtest.h>

#include <numeric>

#include "alknet/call/builtins.h"
#include "alknet/call/registry.h"
#include "test_component.h"

namespace alknet::call {
namespace {

using namespace std::chrono_literals;

class Invoke : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(RegisterBuiltins(reg_).ok());
    ASSERT_TRUE(reg_.AddComponent(testing::TestComponent()).ok());
    reg_.Seal();
  }
  CallRegistry reg_;
};

TEST_F(Invoke, SyncCallReturnsTheHandlerResult) {
  std::vector<Value> args{Value(40), Value(2)};
  auto r = reg_.Invoke("test.add", args);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->as_int(), 42);
}

TEST_F(Invoke, UnknownCallIsNotFound) {
  auto r = reg_.Invoke("test.nope", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(r.error().call, "test.nope");
}

TEST_F(Invoke, WrongTypeNamesCallParameterExpectedGiven) {
  std::vector<Value> args{Value(1), Value("2")};
  auto r = reg_.Invoke("test.add", args);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().ToString(),
            "test.add: invalid argument: parameter 'b' expects int, given string");
}

TEST_F(Invoke, HandlerErrorKeepsItsCodeMessageAndCall) {
  std::vector<Value> args{Value("disk full")};
  auto r = reg_.Invoke("test.fail", args);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_EQ(r.error().message, "disk full");
  EXPECT_EQ(r.error().call, "test.fail");
}

TEST_F(Invoke, ThrowingHandlerIsContained) {
  auto r = reg_.Invoke("test.throw", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInternal);
  EXPECT_EQ(r.error().call, "test.throw");
  EXPECT_NE(r.error().message.find("boom"), std::string::npos);
  auto f = reg_.InvokeAsync("test.throw", {}).get();
  EXPECT_EQ(f.error().code, ErrorCode::kInternal);
}

TEST_F(Invoke, ResultTypeIsChecked) {
  auto r = reg_.Invoke("test.wrong_result", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInternal);
  EXPECT_NE(r.error().message.find("promises map"), std::string::npos);
}

TEST_F(Invoke, AsyncFutureAndCallback) {
  auto fut = reg_.InvokeAsync("test.sleep", {Value(2)});
  auto r = fut.get();
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->as_int(), 2);

  std::promise<std::int64_t> got;
  reg_.InvokeAsync("test.add", {Value(1), Value(2)}, {},
                   [&](Result<Value> v) { got.set_value(v.ok() ? v->as_int() : -1); });
  EXPECT_EQ(got.get_future().get(), 3);
}

TEST_F(Invoke, CooperativeHandlerStopsAtDeadline) {
  const auto start = Clock::now();
  std::vector<Value> args{Value(5000)};
  auto r = reg_.Invoke("test.sleep", args, CallOptions::WithTimeout(30ms));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kDeadlineExceeded);
  EXPECT_EQ(r.error().call, "test.sleep");
  EXPECT_LT(Clock::now() - start, 2s);
}

TEST_F(Invoke, StubbornHandlerStillAnsweredAtDeadline) {
  const auto start = Clock::now();
  auto r = reg_.InvokeAsync("test.stubborn", {Value(250)}, CallOptions::WithTimeout(20ms)).get();
  const auto took = Clock::now() - start;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kDeadlineExceeded);
  EXPECT_LT(took, 400ms);
}

TEST_F(Invoke, PastDeadlineNeverStarts) {
  CallOptions o;
  o.deadline = Clock::now() - 1ms;
  std::vector<Value> args{Value(1), Value(2)};
  auto r = reg_.Invoke("test.add", args, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kDeadlineExceeded);
}

TEST_F(Invoke, CancelStopsARunningCall) {
  CancelSource source;
  CallOptions o;
  o.cancel = source.Token();
  auto fut = reg_.InvokeAsync("test.stubborn", {Value(250)}, o);
  std::this_thread::sleep_for(10ms);
  const auto start = Clock::now();
  source.Cancel();
  auto r = fut.get();
  EXPECT_LT(Clock::now() - start, 300ms);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kCancelled);
  EXPECT_EQ(r.error().call, "test.stubborn");

  // A token that is already cancelled refuses new calls at once.
  auto again = reg_.InvokeAsync("test.sleep", {Value(1000)}, o).get();
  EXPECT_EQ(again.error().code, ErrorCode::kCancelled);
}

TEST_F(Invoke, LocalTensorArgumentIsNotCopied) {
  std::vector<float> data(1000);
  std::iota(data.begin(), data.end(), 0.0f);
  Tensor view;
  view.dtype = "f32";
  view.shape = {10, 100};
  view.data = std::as_bytes(std::span(data));
  std::vector<Value> args{Value(view)};
  auto r = reg_.Invoke("test.address", args);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->as_int(), static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(data.data())));
}

TEST_F(Invoke, TensorInfoAndStatsAgainstDirectComputation) {
  std::vector<double> data{1.5, -2.0, 8.25, std::numeric_limits<double>::quiet_NaN(), 0.0, 3.0};
  Tensor t = Tensor::Copy("f64", {2, 3}, std::as_bytes(std::span(data)));
  std::vector<Value> args{Value(t)};
  auto info = reg_.Invoke("tensor.info", args);
  ASSERT_TRUE(info.ok()) << info.error().ToString();
  EXPECT_EQ(info->as_map().at("bytes").as_int(), 48);
  EXPECT_EQ(info->as_map().at("elements").as_int(), 6);
  EXPECT_EQ(info->as_map().at("dtype").as_string(), "f64");
  auto stats = reg_.Invoke("tensor.stats", args);
  ASSERT_TRUE(stats.ok()) << stats.error().ToString();
  const auto& m = stats->as_map();
  EXPECT_EQ(m.at("non_finite").as_int(), 1);
  EXPECT_EQ(m.at("min").as_float(), -2.0);
  EXPECT_EQ(m.at("max").as_float(), 8.25);
  EXPECT_EQ(m.at("sum").as_float(), 1.5 - 2.0 + 8.25 + 0.0 + 3.0);
}

TEST_F(Invoke, CallListAndDescribe) {
  auto list = reg_.Invoke("call.list", {});
  ASSERT_TRUE(list.ok());
  bool found = false;
  for (const auto& entry : list->as_list()) {
    if (entry.as_map().at("name").as_string() == "test.sleep") {
      found = true;
      EXPECT_TRUE(entry.as_map().at("async").as_bool());
      EXPECT_EQ(entry.as_map().at("owner").as_string(), "test");
    }
  }
  EXPECT_TRUE(found);
  std::vector<Value> args{Value("tensor.info")};
  auto d = reg_.Invoke("call.describe", args);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->as_map().at("signature").as_string(), "(t: tensor) -> map");
}

}  // namespace
}  // namespace alknet::call
