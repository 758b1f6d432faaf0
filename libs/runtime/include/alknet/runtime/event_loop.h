// The one event loop of a runtime: the job queue (microtasks), timers and GPU futures.
//
// Each turn runs the microtask queue to empty, then one due timer (a task, as in HTML's event
// loop) followed by another microtask checkpoint. WebGPU is polled only while a GPU promise is
// pending (GpuWorkToken counts them); with none pending the loop sleeps until the next timer,
// and it ends when no timer, no GPU work and no job is left. An EventSource (a window: its input
// events and frame callbacks) adds tasks of its own, keeps the loop alive while it is open, and
// sleeps the loop in its own wait (e.g. the window system's) instead of a plain sleep.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

#include "alknet/runtime/result.h"

namespace alknet::runtime {

// What the loop drives; the engine implements it.
class LoopClient {
 public:
  virtual ~LoopClient() = default;
  // Runs every queued job (promise reactions, queueMicrotask) until the queue is empty.
  // An uncaught exception or an unhandled rejection comes back as the Error.
  virtual Status RunMicrotasks() = 0;
  // Calls the callback of timer `id`.
  virtual Status FireTimer(uint64_t id) = 0;
  // True once the script asked to stop (process exit).
  virtual bool StopRequested() const = 0;
};

// A source of tasks beside timers and GPU futures: a window with input events and frame
// callbacks (libs/desktop). The loop asks it for work after the due timers, and lets it do the
// sleeping when nothing else is due, so an idle window costs no CPU.
class EventSource {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~EventSource() = default;
  // True while the source can still produce tasks (an open window): the loop stays alive.
  virtual bool Alive() const = 0;
  // Runs what is ready (queued events, a due frame); true if it ran anything (a microtask
  // checkpoint follows). An error ends the loop, like an uncaught exception in a timer.
  virtual Result<bool> Dispatch() = 0;
  // Sleeps until the source has work or `until` passes (nullopt: no timer is pending).
  virtual void Wait(std::optional<Clock::time_point> until) = 0;
};

class EventLoop {
 public:
  using Clock = std::chrono::steady_clock;

  // Counts one pending GPU operation (a mapAsync, requestDevice, ...) for as long as it
  // lives; the loop polls the GPU while any token is alive.
  class GpuWorkToken {
   public:
    GpuWorkToken() = default;
    GpuWorkToken(GpuWorkToken&& other) noexcept : loop_(std::exchange(other.loop_, nullptr)) {}
    GpuWorkToken& operator=(GpuWorkToken&& other) noexcept;
    GpuWorkToken(const GpuWorkToken&) = delete;
    GpuWorkToken& operator=(const GpuWorkToken&) = delete;
    ~GpuWorkToken();

   private:
    friend class EventLoop;
    explicit GpuWorkToken(EventLoop* loop) : loop_(loop) {}
    EventLoop* loop_ = nullptr;
  };

  // Timers. Delays below 1 ms count as 1 ms (as in Node), so setTimeout(f, 0) and
  // setTimeout(g, 1) run in the order they were created.
  uint64_t AddTimer(std::chrono::milliseconds delay, bool repeat);
  void ClearTimer(uint64_t id);
  size_t timer_count() const { return timers_.size(); }
  // The earliest timer due at `now` (ties: creation order). An interval is re-armed before it
  // is returned, so its callback may clear it.
  std::optional<uint64_t> PopDueTimer(Clock::time_point now);
  std::optional<Clock::time_point> NextDue() const;

  GpuWorkToken BeginGpuWork();
  size_t pending_gpu_work() const { return pending_gpu_work_; }
  // Called repeatedly while GPU work is pending (e.g. wgpuInstanceProcessEvents).
  void SetGpuPoller(std::function<void()> poll) { gpu_poller_ = std::move(poll); }
  // The watchdog: when GPU work is pending and none of it finishes for `timeout` (0 = never),
  // `on_hang` is called (it may end the process) and the loop returns an error.
  void SetGpuWatchdog(std::chrono::milliseconds timeout,
                      std::function<void(std::chrono::milliseconds)> on_hang);

  // At most one source (the host's window system); nullptr removes it. It must outlive the
  // loop's runs or be removed first.
  void SetEventSource(EventSource* source) { source_ = source; }
  EventSource* event_source() const { return source_; }

  // Runs until nothing is left to do, the client asks to stop, or an error escapes.
  Status Run(LoopClient& client);
  // Runs until `done()` is true or nothing is left (for awaiting one promise in the REPL).
  Status RunUntil(LoopClient& client, const std::function<bool()>& done);

 private:
  struct Timer {
    Clock::time_point due;
    std::chrono::milliseconds interval{0};
    bool repeat = false;
  };
  // (due, sequence) -> id: ordered by due time, then by arming order.
  using Schedule = std::map<std::pair<Clock::time_point, uint64_t>, uint64_t>;
  void Arm(uint64_t id, Clock::time_point due);
  void EndGpuWork();

  std::unordered_map<uint64_t, Timer> timers_;
  std::unordered_map<uint64_t, Schedule::iterator> scheduled_;
  Schedule schedule_;
  uint64_t next_id_ = 1;
  uint64_t next_sequence_ = 0;
  size_t pending_gpu_work_ = 0;
  std::function<void()> gpu_poller_;
  EventSource* source_ = nullptr;
  Clock::time_point last_gpu_progress_{};
  std::chrono::milliseconds gpu_timeout_{0};
  std::function<void(std::chrono::milliseconds)> on_gpu_hang_;
};

}  // namespace alknet::runtime
