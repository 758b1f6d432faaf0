#include "alknet/call/worker_pool.h"

namespace alknet::call {

WorkerPool::WorkerPool(unsigned threads) {
  if (threads == 0) threads = 1;
  for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
  timer_thread_ = std::thread([this] { TimerLoop(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  timer_cv_.notify_all();
  for (auto& t : workers_) t.join();
  timer_thread_.join();
}

void WorkerPool::Submit(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  work_cv_.notify_one();
}

void WorkerPool::RunAt(Clock::time_point when, std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    timers_.push(Timer{when, timer_seq_++, std::move(task)});
  }
  timer_cv_.notify_one();
}

void WorkerPool::WorkerLoop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mutex_);
      work_cv_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping, and the queue is drained
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

void WorkerPool::TimerLoop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (timers_.empty()) {
      timer_cv_.wait(lock);
      continue;
    }
    const auto when = timers_.top().when;
    if (Clock::now() < when) {
      timer_cv_.wait_until(lock, when);
      continue;
    }
    auto task = std::move(const_cast<Timer&>(timers_.top()).task);
    timers_.pop();
    lock.unlock();
    task();
    lock.lock();
  }
}

}  // namespace alknet::call
