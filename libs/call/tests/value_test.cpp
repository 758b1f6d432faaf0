// Signatures (parsing and checking at the call boundary) and JSON in and out of Values.
#include <gtest/gtest.h>

#include <cstring>

#include "alknet/call/json.h"
#include "alknet/call/signature.h"

namespace alknet::call {
namespace {

TEST(Signature, ParsesAndPrintsCanonically) {
  auto s = ParseSignature("( t :tensor,axis: int? ) ->  map");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->ToString(), "(t: tensor, axis: int?) -> map");
  auto v = ParseSignature("(...items: any) -> list");
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->params[0].variadic);
  auto again = ParseSignature(v->ToString());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->ToString(), v->ToString());
}

TEST(Signature, ErrorsGiveTheColumn) {
  struct Case {
    const char* text;
    const char* needle;
  };
  for (const Case& c :
       {Case{"(x: int", "expected ',' or ')'"}, Case{"(x int) -> int", "column 4"},
        Case{"(x: int?, y: int) -> int", "follows an optional"},
        Case{"(...x: int, y: int) -> int", "variadic parameter must be the last"},
        Case{"(x: int, x: int) -> int", "appears twice"},
        Case{"() -> int extra", "unexpected text"}, Case{"() int", "expected '->'"}}) {
    auto s = ParseSignature(c.text);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_NE(s.error().message.find(c.needle), std::string::npos)
        << c.text << " -> " << s.error().message;
  }
}

TEST(Signature, CheckNamesCallParameterExpectedAndGiven) {
  auto sig = ParseSignature("(t: tensor, scale: number?) -> tensor");
  ASSERT_TRUE(sig.ok());
  std::vector<Value> args{Value(3)};
  auto r = CheckArguments("compute.scale", *sig, args);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.error().ToString(),
            "compute.scale: invalid argument: parameter 't' expects tensor, given int");

  auto arity = CheckArguments("compute.scale", *sig, {});
  ASSERT_FALSE(arity.ok());
  EXPECT_NE(arity.error().message.find("expects 1 to 2 argument(s)"), std::string::npos)
      << arity.error().message;
  EXPECT_NE(arity.error().message.find("given 0"), std::string::npos);

  float one = 1;
  Tensor t = Tensor::Copy("f32", {1}, std::as_bytes(std::span(&one, 1)));
  std::vector<Value> good{Value(t), Value(2.5)};
  EXPECT_TRUE(CheckArguments("compute.scale", *sig, good).ok());
  std::vector<Value> good_int{Value(t), Value(2)};
  EXPECT_TRUE(CheckArguments("compute.scale", *sig, good_int).ok());
  std::vector<Value> too_many{Value(t), Value(2), Value(3)};
  EXPECT_FALSE(CheckArguments("compute.scale", *sig, too_many).ok());

  // A tensor whose bytes disagree with its shape is refused at the boundary too.
  Tensor lying = t;
  lying.shape = {2};
  std::vector<Value> bad{Value(lying)};
  auto b = CheckArguments("compute.scale", *sig, bad);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("] needs 8 bytes, has 4"), std::string::npos)
      << b.error().message;
}

TEST(Signature, VariadicCheckNamesTheArgument) {
  auto sig = ParseSignature("(prefix: string, ...n: int) -> list");
  ASSERT_TRUE(sig.ok());
  std::vector<Value> args{Value("p"), Value(1), Value("two")};
  auto r = CheckArguments("x.y", *sig, args);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "parameter 'n' (argument 3) expects int, given string");
}

TEST(Tensor, ValidateRejectsOverflowAndUnknownDtype) {
  Tensor t;
  t.dtype = "f32";
  t.shape = {1LL << 40, 1LL << 40};
  EXPECT_FALSE(t.Validate().ok());
  t.shape = {-1};
  EXPECT_FALSE(t.Validate().ok());
  t.dtype = "f33";
  t.shape = {};
  auto r = t.Validate();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("unknown tensor dtype 'f33'"), std::string::npos);
}

TEST(Json, ParsesEveryKind) {
  auto v = ParseJson(R"({"a": [1, -2.5e3, true, false, null], "s": "\u00e9\n\ud83d\ude00"})");
  ASSERT_TRUE(v.ok()) << v.error().message;
  const auto& m = v->as_map();
  const auto& a = m.at("a").as_list();
  EXPECT_EQ(a[0].kind(), ValueKind::kInt);
  EXPECT_EQ(a[0].as_int(), 1);
  EXPECT_EQ(a[1].kind(), ValueKind::kFloat);
  EXPECT_EQ(a[1].as_float(), -2500.0);
  EXPECT_TRUE(a[2].as_bool());
  EXPECT_TRUE(a[4].is_null());
  EXPECT_EQ(m.at("s").as_string(), "\xc3\xa9\n\xf0\x9f\x98\x80");
}

TEST(Json, RoundTripsThroughText) {
  Value::Map m;
  m.emplace("float", 0.1);
  m.emplace("whole_float", 3.0);
  m.emplace("int", std::int64_t{-9007199254740993});
  m.emplace("str", "quote\" back\\ tab\t ctl\x01");
  m.emplace("list", Value::List{Value(), Value(false)});
  const Value original(std::move(m));
  const std::string text = ToJson(original);
  auto back = ParseJson(text);
  ASSERT_TRUE(back.ok()) << back.error().message << " in " << text;
  EXPECT_TRUE(*back == original) << text;
}

TEST(Json, ErrorsAreClear) {
  struct Case {
    const char* text;
    const char* needle;
  };
  for (const Case& c :
       {Case{"", "end of the text"}, Case{"[1,", "end of the text"},
        Case{"01", "cannot start with 0"}, Case{"99999999999999999999", "does not fit in int64"},
        Case{"\"abc", "unterminated string"}, Case{"{\"a\" 1}", "expected ':'"},
        Case{"{\"a\":1,\"a\":2}", "duplicate key"}, Case{"tru", "unexpected"},
        Case{"1 2", "after the JSON value"}, Case{"\"\\ud800\"", "surrogate"}}) {
    auto v = ParseJson(c.text);
    ASSERT_FALSE(v.ok()) << c.text;
    EXPECT_NE(v.error().message.find(c.needle), std::string::npos)
        << c.text << " -> " << v.error().message;
  }
  std::string deep(1000, '[');
  EXPECT_FALSE(ParseJson(deep).ok());
}

TEST(Json, BytesAsBase64AndTensorSummary) {
  EXPECT_EQ(ToJson(Value(Bytes{'f', 'o', 'o', 'b', 'a'})), R"({"$bytes":"Zm9vYmE="})");
  EXPECT_EQ(ToJson(Value(Bytes{'f', 'o', 'o', 'b'})), R"({"$bytes":"Zm9vYg=="})");
  std::int32_t data[6] = {};
  Tensor t = Tensor::Copy("i32", {2, 3}, std::as_bytes(std::span(data)));
  EXPECT_EQ(ToJson(Value(t)), R"({"$tensor":{"dtype":"i32","shape":[2,3],"bytes":24}})");
}

}  // namespace
}  // namespace alknet::call
