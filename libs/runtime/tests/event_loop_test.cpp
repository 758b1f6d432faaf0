#include "alknet/runtime/event_loop.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace alknet::runtime {
namespace {

using std::chrono::milliseconds;

// Records what the loop asks for; "m" for a microtask checkpoint, "t<id>" for a timer.
class RecordingClient : public LoopClient {
 public:
  Status RunMicrotasks() override {
    events.push_back("m");
    return Ok{};
  }
  Status FireTimer(uint64_t id) override {
    events.push_back("t" + std::to_string(id));
    if (on_timer) return on_timer(id);
    return Ok{};
  }
  bool StopRequested() const override { return stop; }

  std::vector<std::string> timers() const {
    std::vector<std::string> out;
    for (const auto& e : events) {
      if (e != "m") out.push_back(e);
    }
    return out;
  }

  std::vector<std::string> events;
  std::function<Status(uint64_t)> on_timer;
  bool stop = false;
};

TEST(EventLoop, TimersFireByDueTimeThenCreationOrder) {
  EventLoop loop;
  auto late = loop.AddTimer(milliseconds(30), false);
  auto early = loop.AddTimer(milliseconds(5), false);
  auto zero_a = loop.AddTimer(milliseconds(0), false);
  auto zero_b = loop.AddTimer(milliseconds(1), false);  // 0 counts as 1 ms: same due time
  RecordingClient client;
  ASSERT_TRUE(loop.Run(client).ok());
  std::vector<std::string> want = {"t" + std::to_string(zero_a), "t" + std::to_string(zero_b),
                                   "t" + std::to_string(early), "t" + std::to_string(late)};
  EXPECT_EQ(client.timers(), want);
}

TEST(EventLoop, MicrotaskCheckpointBeforeAndAfterEveryTimer) {
  EventLoop loop;
  loop.AddTimer(milliseconds(1), false);
  loop.AddTimer(milliseconds(1), false);
  RecordingClient client;
  ASSERT_TRUE(loop.Run(client).ok());
  // Idle turns may add empty checkpoints; what matters is that one precedes and follows each
  // timer.
  ASSERT_EQ(client.timers(), (std::vector<std::string>{"t1", "t2"}));
  for (size_t i = 0; i < client.events.size(); ++i) {
    if (client.events[i] == "m") continue;
    ASSERT_GT(i, 0u);
    EXPECT_EQ(client.events[i - 1], "m");
    ASSERT_LT(i + 1, client.events.size());
    EXPECT_EQ(client.events[i + 1], "m");
  }
}

TEST(EventLoop, ClearedTimerNeverFires) {
  EventLoop loop;
  auto a = loop.AddTimer(milliseconds(2), false);
  auto b = loop.AddTimer(milliseconds(1), false);
  loop.ClearTimer(a);
  loop.ClearTimer(12345);  // unknown ids are ignored, as clearTimeout does
  RecordingClient client;
  ASSERT_TRUE(loop.Run(client).ok());
  EXPECT_EQ(client.timers(), std::vector<std::string>{"t" + std::to_string(b)});
  EXPECT_EQ(loop.timer_count(), 0u);
}

TEST(EventLoop, IntervalRepeatsUntilItsCallbackClearsIt) {
  EventLoop loop;
  auto id = loop.AddTimer(milliseconds(1), true);
  RecordingClient client;
  int fired = 0;
  client.on_timer = [&](uint64_t t) -> Status {
    if (++fired == 4) loop.ClearTimer(t);
    return Ok{};
  };
  auto start = EventLoop::Clock::now();
  ASSERT_TRUE(loop.Run(client).ok());
  EXPECT_EQ(fired, 4);
  EXPECT_EQ(client.timers(), std::vector<std::string>(4, "t" + std::to_string(id)));
  EXPECT_GE(EventLoop::Clock::now() - start, milliseconds(4));
}

TEST(EventLoop, ErrorFromATimerEndsTheLoop) {
  EventLoop loop;
  loop.AddTimer(milliseconds(1), false);
  loop.AddTimer(milliseconds(2), false);
  RecordingClient client;
  client.on_timer = [](uint64_t) -> Status { return MakeError("Uncaught boom"); };
  auto s = loop.Run(client);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "Uncaught boom");
  EXPECT_EQ(client.timers().size(), 1u);
}

TEST(EventLoop, StopRequestEndsTheLoopWithTimersLeft) {
  EventLoop loop;
  loop.AddTimer(milliseconds(1), false);
  loop.AddTimer(milliseconds(10000), false);
  RecordingClient client;
  client.on_timer = [&](uint64_t) -> Status {
    client.stop = true;
    return Ok{};
  };
  auto start = EventLoop::Clock::now();
  ASSERT_TRUE(loop.Run(client).ok());
  EXPECT_LT(EventLoop::Clock::now() - start, milliseconds(5000));
}

TEST(EventLoop, PollsTheGpuOnlyWhileWorkIsPending) {
  EventLoop loop;
  int polls = 0;
  std::optional<EventLoop::GpuWorkToken> token;
  loop.SetGpuPoller([&] {
    // The "GPU" finishes on the third poll, as a mapAsync callback would.
    if (++polls == 3) token.reset();
  });
  RecordingClient client;
  ASSERT_TRUE(loop.Run(client).ok());
  EXPECT_EQ(polls, 0) << "no pending GPU work: no polling";

  token.emplace(loop.BeginGpuWork());
  EXPECT_EQ(loop.pending_gpu_work(), 1u);
  ASSERT_TRUE(loop.Run(client).ok());
  EXPECT_EQ(polls, 3);
  EXPECT_EQ(loop.pending_gpu_work(), 0u);
}

TEST(EventLoop, GpuWorkTokensCountAndMove) {
  EventLoop loop;
  {
    auto a = loop.BeginGpuWork();
    auto b = loop.BeginGpuWork();
    EXPECT_EQ(loop.pending_gpu_work(), 2u);
    EventLoop::GpuWorkToken moved = std::move(a);
    EXPECT_EQ(loop.pending_gpu_work(), 2u);
    b = std::move(moved);  // b's own work is done; it now holds a's
    EXPECT_EQ(loop.pending_gpu_work(), 1u);
  }
  EXPECT_EQ(loop.pending_gpu_work(), 0u);
}

TEST(EventLoop, RunUntilStopsWhenDone) {
  EventLoop loop;
  loop.AddTimer(milliseconds(1), false);
  loop.AddTimer(milliseconds(2), false);
  RecordingClient client;
  ASSERT_TRUE(loop.RunUntil(client, [&] { return client.timers().size() == 1; }).ok());
  EXPECT_EQ(client.timers().size(), 1u);
  EXPECT_EQ(loop.timer_count(), 1u);
}

}  // namespace
}  // namespace alknet::runtime
