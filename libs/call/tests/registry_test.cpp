// Authority rules of the registry: who may register what, and the errors when refused.
#include <gtest/gtest.h>

#include <thread>

#include "alknet/call/builtins.h"
#include "alknet/call/registry.h"

namespace alknet::call {
namespace {

Handler Constant(Value v) {
  return [v](CallContext&, std::span<const Value>) -> Result<Value> { return v; };
}

Component MakeComponent(std::string name, std::vector<std::string> calls,
                        std::vector<std::string> deps = {}) {
  Component c;
  c.name = std::move(name);
  c.depends_on = std::move(deps);
  for (auto& call : calls) c.calls.push_back(CallDecl{call, "() -> int", Constant(Value(1))});
  return c;
}

TEST(Registry, FirstComponentOwnsTheNamespace) {
  CallRegistry reg;
  ASSERT_TRUE(reg.AddComponent(MakeComponent("compute", {"compute.matmul"})).ok());
  auto r = reg.AddComponent(MakeComponent("intruder", {"compute.conv"}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kPermissionDenied);
  EXPECT_NE(r.error().message.find("'intruder'"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("'compute'"), std::string::npos) << r.error().message;
  EXPECT_EQ(reg.Find("compute.conv"), nullptr);
  ASSERT_NE(reg.Find("compute.matmul"), nullptr);
  EXPECT_EQ(reg.Find("compute.matmul")->owner, "compute");
}

TEST(Registry, DuplicateNameNamesBothOwners) {
  CallRegistry reg;
  ASSERT_TRUE(reg.AddComponent(MakeComponent("a", {"a.x"})).ok());
  auto dup = reg.AddComponent(MakeComponent("a", {"a.y"}));
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().code, ErrorCode::kAlreadyExists);

  auto twice = reg.AddComponent(MakeComponent("b", {"b.x", "b.x"}));
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().code, ErrorCode::kAlreadyExists);
  EXPECT_NE(twice.error().message.find("'b.x' twice"), std::string::npos);
}

TEST(Registry, RefusedComponentLeavesNoTrace) {
  CallRegistry reg;
  ASSERT_TRUE(reg.AddComponent(MakeComponent("owner", {"owner.x"})).ok());
  // The first call is fine, the second trespasses: neither may be registered, and the
  // namespace "fresh" must stay unclaimed.
  auto r = reg.AddComponent(MakeComponent("mixed", {"fresh.a", "owner.y"}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(reg.Find("fresh.a"), nullptr);
  EXPECT_TRUE(reg.AddComponent(MakeComponent("fresh", {"fresh.a"})).ok());
  EXPECT_EQ(reg.Find("fresh.a")->owner, "fresh");
}

TEST(Registry, DependenciesMustBeRegisteredFirst) {
  CallRegistry reg;
  auto r = reg.AddComponent(MakeComponent("compute", {"compute.add"}, {"runtime"}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_NE(r.error().message.find("'runtime'"), std::string::npos);
  ASSERT_TRUE(reg.AddComponent(MakeComponent("runtime", {"runtime.gc"})).ok());
  EXPECT_TRUE(reg.AddComponent(MakeComponent("compute", {"compute.add"}, {"runtime"})).ok());
}

TEST(Registry, NamesMustBeDotNamespaced) {
  for (const char* bad : {"nodot", ".x", "x.", "a..b", "A.b", "a.B", "1a.b", "a.b-c", "a b.c"}) {
    CallRegistry reg;
    auto r = reg.AddComponent(MakeComponent("c", {bad}));
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument) << bad;
    }
  }
  CallRegistry reg;
  EXPECT_TRUE(reg.AddComponent(MakeComponent("c", {"c.a_1.b2"})).ok());
}

TEST(Registry, BadSignatureIsRefusedAtRegistration) {
  CallRegistry reg;
  Component c;
  c.name = "c";
  c.calls.push_back(CallDecl{"c.f", "(x: integer) -> int", Constant(Value(1))});
  auto r = reg.AddComponent(std::move(c));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("unknown type 'integer'"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("c.f"), std::string::npos);
}

TEST(Registry, SealedRegistryRefusesRegistration) {
  CallRegistry reg;
  ASSERT_TRUE(RegisterBuiltins(reg).ok());
  reg.Seal();
  auto r = reg.AddComponent(MakeComponent("late", {"late.x"}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kFailedPrecondition);
  EXPECT_NE(r.error().message.find("sealed"), std::string::npos);
}

TEST(Registry, SealedRegistryReadsFromManyThreads) {
  CallRegistry reg;
  ASSERT_TRUE(RegisterBuiltins(reg).ok());
  ASSERT_TRUE(reg.AddComponent(MakeComponent("m", {"m.a", "m.b", "m.c"})).ok());
  reg.Seal();
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        auto r = reg.Invoke(i % 2 ? "m.a" : "m.c", {});
        if (r.ok() && r->as_int() == 1 && reg.Find("m.b")) ok.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 8 * 2000);
}

TEST(Registry, ListsEveryCallWithSignatureAndOwner) {
  CallRegistry reg;
  ASSERT_TRUE(RegisterBuiltins(reg).ok());
  auto calls = reg.List();
  ASSERT_TRUE(calls.ok());
  std::vector<std::string> names;
  for (const auto& c : *calls) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"call.describe", "call.list", "tensor.cast",
                                             "tensor.info", "tensor.stats"}));
  EXPECT_EQ((*calls)[3].signature, "(t: tensor) -> map");
  EXPECT_EQ((*calls)[3].owner, "tensor");
}

}  // namespace
}  // namespace alknet::call
