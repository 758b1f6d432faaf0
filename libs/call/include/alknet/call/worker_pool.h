// A fixed set of worker threads plus one timer thread, shared by the asynchronous paths of
// the local registry and the gRPC transport's client (alknet-call-grpc).
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

namespace alknet::call {

class WorkerPool {
 public:
  using Clock = std::chrono::steady_clock;

  explicit WorkerPool(unsigned threads);
  ~WorkerPool();  // runs every queued task, then joins; timers not yet due are dropped
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Submit(std::function<void()> task);
  // Runs `task` on the timer thread at `when`; keep it short (it settles a promise).
  void RunAt(Clock::time_point when, std::function<void()> task);

 private:
  void WorkerLoop();
  void TimerLoop();

  struct Timer {
    Clock::time_point when;
    std::uint64_t seq;
    std::function<void()> task;
    bool operator>(const Timer& o) const { return when != o.when ? when > o.when : seq > o.seq; }
  };

  std::mutex mutex_;
  std::condition_variable work_cv_;
  std::condition_variable timer_cv_;
  std::deque<std::function<void()>> tasks_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  std::uint64_t timer_seq_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
  std::thread timer_thread_;
};

}  // namespace alknet::call
