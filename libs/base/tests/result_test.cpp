// base::Result and the propagation macros, as the libraries use them.
#include "alknet/base/result.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace alknet::base {
namespace {

struct TestError {
  int code = 0;
  std::string message;
};
template <typename T>
using R = Result<T, TestError>;
using S = Result<void, TestError>;

R<int> Parse(const std::string& s) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
    return TestError{1, "not a number: '" + s + "'"};
  return std::stoi(s);
}

R<int> Sum(const std::string& a, const std::string& b) {
  ALKNET_ASSIGN_OR_RETURN(int x, Parse(a));
  ALKNET_ASSIGN_OR_RETURN(const int y, Parse(b));
  return x + y;
}

S CheckPositive(const std::string& s) {
  ALKNET_ASSIGN_OR_RETURN(int v, Parse(s));
  if (v == 0) return TestError{2, "zero"};
  return Ok{};
}

S CheckBoth(const std::string& a, const std::string& b) {
  ALKNET_TRY(CheckPositive(a));
  ALKNET_TRY(CheckPositive(b));
  return {};
}

TEST(Result, HoldsValueOrError) {
  R<int> good = Parse("42");
  ASSERT_TRUE(good.ok());
  EXPECT_TRUE(static_cast<bool>(good));
  EXPECT_EQ(*good, 42);
  EXPECT_EQ(good.value(), 42);

  R<int> bad = Parse("4x");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, 1);
  EXPECT_EQ(bad.error().message, "not a number: '4x'");
}

TEST(Result, AssignOrReturnPropagatesTheFirstError) {
  EXPECT_EQ(Sum("2", "40").value(), 42);
  R<int> r = Sum("2", "y");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "not a number: 'y'");
  EXPECT_EQ(Sum("z", "y").error().message, "not a number: 'z'");
}

TEST(Result, TryPropagatesFromStatusAndFromValueResults) {
  EXPECT_TRUE(CheckBoth("1", "2").ok());
  S zero = CheckBoth("1", "0");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().code, 2);
  S nan = CheckBoth("q", "0");
  ASSERT_FALSE(nan.ok());
  EXPECT_EQ(nan.error().code, 1);
}

TEST(Result, MoveOnlyValuesAndErrorsMoveOut) {
  R<std::unique_ptr<int>> p = std::make_unique<int>(7);
  ASSERT_TRUE(p.ok());
  std::unique_ptr<int> owned = std::move(p).value();
  ASSERT_NE(owned, nullptr);
  EXPECT_EQ(*owned, 7);

  R<std::unique_ptr<int>> e = TestError{3, "gone"};
  TestError taken = std::move(e).error();
  EXPECT_EQ(taken.code, 3);
  EXPECT_EQ(taken.message, "gone");
}

TEST(Result, DefaultStatusIsSuccess) {
  S s;
  EXPECT_TRUE(s.ok());
  S from_ok = Ok{};
  EXPECT_TRUE(from_ok.ok());
}

enum class Code { kBad, kWorse };
const char* ErrorCodeName(Code c) { return c == Code::kBad ? "bad" : "worse"; }

TEST(CodedError, ToStringNamesTheCodeThroughTheLibrarysFunction) {
  using E = CodedError<Code>;
  Result<int, E> r = E{Code::kWorse, "it broke at 3:4"};
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().ToString(), "worse: it broke at 3:4");
  EXPECT_EQ((E{Code::kBad, "x"}).ToString(), "bad: x");
}

}  // namespace
}  // namespace alknet::base
