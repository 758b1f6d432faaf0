// Pools: one RemoteRegistry over several CallServers (an ipv4: target), spread by gRPC's
// round_robin, steered by the standard health service, idempotent calls retried by the
// service config. In-process servers on loopback; the process-level cases (SIGKILL, SIGTERM of
// `alknet serve`) are in apps/alknet/tests/pool_cli_test.py.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "alknet/call-grpc/remote.h"
#include "alknet/call/builtins.h"

namespace alknet::call {
namespace {

using namespace std::chrono_literals;

Component PoolComponent() {
  Component c;
  c.name = "pool";
  auto sleeper = [](CallContext& ctx, std::span<const Value> args) -> Result<Value> {
    const auto until = Clock::now() + std::chrono::milliseconds(args[0].as_int());
    while (Clock::now() < until) {
      if (ctx.ShouldStop()) return ctx.StopError();
      std::this_thread::sleep_for(1ms);
    }
    return Value(args[0].as_int());
  };
  c.calls.push_back(CallDecl{"pool.nap", "(ms: int) -> int", sleeper,
                             CallFlags{Execution::kSync, false, true}, "idempotent sleep"});
  c.calls.push_back(CallDecl{"pool.effect", "(ms: int) -> int", sleeper, {}, "not idempotent"});
  return c;
}

struct Worker {
  CallRegistry registry;
  std::unique_ptr<CallServer> server;
  std::atomic<int> calls{0};
  std::atomic<int> failed{0};
};

class Pool : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 3; ++i) {
      auto w = std::make_unique<Worker>();
      ASSERT_TRUE(RegisterBuiltins(w->registry).ok());
      ASSERT_TRUE(w->registry.AddComponent(PoolComponent()).ok());
      ServerOptions o;
      o.listen = "127.0.0.1:0";
      Worker* raw = w.get();
      o.on_call = [raw](const CallLogEntry& e) {
        if (e.call.rfind("pool.", 0) != 0 && e.call != "call.describe") return;
        raw->calls.fetch_add(1);
        if (e.status != 0) raw->failed.fetch_add(1);
      };
      auto s = CallServer::Start(w->registry, o);
      ASSERT_TRUE(s.ok()) << s.error().ToString();
      w->server = std::move(*s);
      workers_.push_back(std::move(w));
    }
  }

  std::string Target() const {
    std::string t = "ipv4:";
    for (std::size_t i = 0; i < workers_.size(); ++i) {
      if (i) t += ",";
      t += "127.0.0.1:" + std::to_string(workers_[i]->server->port());
    }
    return t;
  }

  std::unique_ptr<RemoteRegistry> Client(unsigned threads = 8) {
    RemoteOptions o;
    o.address = Target();
    o.async_threads = threads;
    auto c = RemoteRegistry::Connect(o);
    EXPECT_TRUE(c.ok());
    return std::move(*c);
  }

  // Runs `n` calls of `name` through InvokeAsync; `midway` runs (once) after n/2 were issued.
  std::vector<Result<Value>> RunMany(RemoteRegistry& client, const std::string& name, int n, int ms,
                                     const std::function<void()>& midway = {}) {
    std::vector<std::future<Result<Value>>> futures;
    for (int i = 0; i < n; ++i) {
      futures.push_back(
          client.CallTarget::InvokeAsync(name, {Value(ms)}, CallOptions::WithTimeout(20s)));
      if (i == n / 2 && midway) midway();
    }
    std::vector<Result<Value>> out;
    for (auto& f : futures) out.push_back(f.get());
    return out;
  }

  // Waits (at most 5 s) until worker i has finished a call, so it is part of the run.
  void AwaitFirstCall(int i) {
    const auto until = Clock::now() + 5s;
    while (workers_[i]->calls.load() == 0 && Clock::now() < until) std::this_thread::sleep_for(1ms);
  }

  std::vector<std::unique_ptr<Worker>> workers_;
};

TEST_F(Pool, TargetsParse) {
  auto one = ParseTarget("127.0.0.1:7000");
  ASSERT_TRUE(one.ok());
  EXPECT_FALSE(one->pool);
  auto list = ParseTarget("ipv4:10.0.0.1:7000,10.0.0.2:7001");
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE(list->pool);
  ASSERT_EQ(list->endpoints.size(), 2u);
  EXPECT_EQ(list->endpoints[1].host, "10.0.0.2");
  EXPECT_EQ(list->endpoints[1].port, 7001);
  auto v6 = ParseTarget("ipv6:[::1]:7000,[::1]:7001");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->endpoints[0].host, "::1");
  auto dns = ParseTarget("dns:///workers.example:7000");
  ASSERT_TRUE(dns.ok());
  EXPECT_TRUE(dns->dns && dns->pool);
  EXPECT_EQ(dns->endpoints[0].host, "workers.example");
  for (const char* bad : {"ipv4:10.0.0.1:7000,", "ipv4:10.0.0.1", "host:0", "host:70000",
                          "ipv6:::1:7000", "::1:7000", "dns://8.8.8.8/x:1", ":7000", "h:7x"}) {
    auto r = ParseTarget(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.error().message.find("remote target"), std::string::npos) << bad;
    }
  }
}

TEST_F(Pool, RoundRobinSpreadsCallsOverEveryWorker) {
  auto client = Client();
  auto results = RunMany(*client, "pool.nap", 300, 0);
  for (auto& r : results) ASSERT_TRUE(r.ok()) << r.error().ToString();
  int total = 0;
  for (auto& w : workers_) total += w->calls.load();
  EXPECT_EQ(total, 300);
  const double mean = total / 3.0;
  for (auto& w : workers_) {
    EXPECT_GE(w->calls.load(), mean / 2) << "worker " << w->server->port();
    EXPECT_LE(w->calls.load(), mean * 2) << "worker " << w->server->port();
  }
  // The listing says which calls a pool client may retry.
  auto list = client->List();
  ASSERT_TRUE(list.ok());
  for (const auto& c : *list) {
    if (c.name == "pool.nap" || c.name == "tensor.info" || c.name == kServerStatsCall) {
      EXPECT_TRUE(c.flags.idempotent) << c.name;
    }
    if (c.name == "pool.effect") {
      EXPECT_FALSE(c.flags.idempotent);
    }
  }
}

TEST_F(Pool, HealthTurnsNotServingAndTheClientMovesAway) {
  RemoteOptions o;
  o.address = workers_[0]->server->address();
  auto h = CheckHealth(o, "alknet.call.wire.Calls", 5s);
  ASSERT_TRUE(h.ok()) << h.error().ToString();
  EXPECT_EQ(*h, "SERVING");
  EXPECT_EQ(*CheckHealth(o, "", 5s), "SERVING");
  workers_[0]->server->SetServing(false);
  EXPECT_EQ(*CheckHealth(o, "alknet.call.wire.Calls", 5s), "NOT_SERVING");
  EXPECT_EQ(*CheckHealth(o, "no.such.Service", 5s), "SERVICE_UNKNOWN");

  // A client started now sees worker 0 unhealthy: its calls go to the other two, even the
  // ones that are not idempotent.
  auto client = Client();
  auto results = RunMany(*client, "pool.effect", 60, 0);
  for (auto& r : results) ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(workers_[0]->calls.load(), 0);
  EXPECT_EQ(workers_[1]->calls.load() + workers_[2]->calls.load(), 60);

  RemoteOptions dead;
  dead.address = "127.0.0.1:1";
  auto unreachable = CheckHealth(dead, "", 1s);
  ASSERT_FALSE(unreachable.ok());
  EXPECT_NE(unreachable.error().message.find("cannot reach"), std::string::npos);
}

TEST_F(Pool, DrainFinishesInFlightCallsAndNoCallFails) {
  auto client = Client();
  int left = -1;
  std::thread drainer;
  auto results = RunMany(*client, "pool.effect", 90, 20, [&] {
    AwaitFirstCall(1);
    drainer = std::thread([&] { left = workers_[1]->server->Drain(10s); });
  });
  drainer.join();
  for (auto& r : results) EXPECT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(left, 0);
  EXPECT_EQ(workers_[1]->failed.load(), 0);
  EXPECT_GT(workers_[1]->calls.load(), 0);  // it served some before it drained
}

TEST_F(Pool, ServerStatsReportsTheServer) {
  RemoteOptions o;
  o.address = workers_[0]->server->address();
  auto client = RemoteRegistry::Connect(o);
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->Invoke("pool.nap", std::vector<Value>{Value(0)}).ok());
  auto stats = (*client)->Invoke(kServerStatsCall, {});
  ASSERT_TRUE(stats.ok()) << stats.error().ToString();
  const auto& m = stats->as_map();
  EXPECT_EQ(m.at("serving").as_bool(), true);
  EXPECT_EQ(m.at("in_flight").as_int(), 0);
  EXPECT_GE(m.at("calls_ok").as_int(), 1);
  auto refused = (*client)->Invoke(kServerStatsCall, std::vector<Value>{Value(1)});
  EXPECT_FALSE(refused.ok());  // its signature takes nothing
}

}  // namespace
}  // namespace alknet::call
