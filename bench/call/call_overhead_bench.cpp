// Cost of going through the registry compared with calling the same C++ function directly,
// and of a small call to a server on loopback.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "alknet/call-grpc/remote.h"
#include "alknet/call/builtins.h"

namespace ac = alknet::call;

namespace {

// The work both sides do: add two integers held in Values.
[[gnu::noinline]] ac::Result<ac::Value> Add(ac::CallContext&, std::span<const ac::Value> args) {
  return ac::Value(args[0].as_int() + args[1].as_int());
}

[[gnu::noinline]] std::int64_t AddDirect(std::int64_t a, std::int64_t b) { return a + b; }

ac::CallRegistry& Registry() {
  static ac::CallRegistry* reg = [] {
    auto* r = new ac::CallRegistry;
    ac::Component c;
    c.name = "bench";
    c.calls.push_back(ac::CallDecl{"bench.add", "(a: int, b: int) -> int", &Add});
    if (!ac::RegisterBuiltins(*r).ok() || !r->AddComponent(std::move(c)).ok()) std::abort();
    r->Seal();
    return r;
  }();
  return *reg;
}

void BM_DirectCpp(benchmark::State& state) {
  std::int64_t a = 1, b = 2;
  for (auto _ : state) {
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(AddDirect(a, b));
  }
}
BENCHMARK(BM_DirectCpp);

void BM_DirectHandler(benchmark::State& state) {
  // The handler called directly with Values: what the registry adds is the rest.
  const ac::Value args[2] = {ac::Value(1), ac::Value(2)};
  ac::CallOptions options;
  ac::CallContext ctx("bench.add", options, nullptr);
  for (auto _ : state) benchmark::DoNotOptimize(Add(ctx, args));
}
BENCHMARK(BM_DirectHandler);

void BM_RegistryInvokeByName(benchmark::State& state) {
  auto& reg = Registry();
  const ac::Value args[2] = {ac::Value(1), ac::Value(2)};
  for (auto _ : state) benchmark::DoNotOptimize(reg.Invoke("bench.add", args));
}
BENCHMARK(BM_RegistryInvokeByName);

void BM_RegistryInvokeRecord(benchmark::State& state) {
  auto& reg = Registry();
  const ac::CallRecord* record = reg.Find("bench.add");
  const ac::Value args[2] = {ac::Value(1), ac::Value(2)};
  ac::CallOptions options;
  for (auto _ : state) benchmark::DoNotOptimize(reg.Invoke(*record, args, options));
}
BENCHMARK(BM_RegistryInvokeRecord);

void BM_RemoteSmallCallLoopback(benchmark::State& state) {
  static std::unique_ptr<ac::CallServer> server = [] {
    ac::ServerOptions o;
    o.listen = "127.0.0.1:0";
    o.token = "bench-token";
    auto s = ac::CallServer::Start(Registry(), o);
    if (!s) std::abort();
    return std::move(*s);
  }();
  ac::RemoteOptions ro;
  ro.address = server->address();
  ro.token = "bench-token";
  auto client = std::move(ac::RemoteRegistry::Connect(ro)).value();
  const ac::Value args[2] = {ac::Value(1), ac::Value(2)};
  if (!client->Invoke("bench.add", args).ok()) {  // warm the connection
    state.SkipWithError("remote call failed");
    return;
  }
  for (auto _ : state) {
    auto r = client->Invoke("bench.add", args);
    if (!r.ok()) {
      state.SkipWithError(r.error().ToString().c_str());
      break;
    }
  }
}
BENCHMARK(BM_RemoteSmallCallLoopback)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
