#include "alknet/runtime/event_loop.h"

#include <algorithm>
#include <string>
#include <thread>

namespace alknet::runtime {

EventLoop::GpuWorkToken& EventLoop::GpuWorkToken::operator=(GpuWorkToken&& other) noexcept {
  if (this != &other) {
    if (loop_ != nullptr) loop_->EndGpuWork();
    loop_ = std::exchange(other.loop_, nullptr);
  }
  return *this;
}

EventLoop::GpuWorkToken::~GpuWorkToken() {
  if (loop_ != nullptr) loop_->EndGpuWork();
}

EventLoop::GpuWorkToken EventLoop::BeginGpuWork() {
  if (pending_gpu_work_++ == 0) last_gpu_progress_ = Clock::now();
  return GpuWorkToken(this);
}

void EventLoop::EndGpuWork() {
  --pending_gpu_work_;
  last_gpu_progress_ = Clock::now();
}

void EventLoop::SetGpuWatchdog(std::chrono::milliseconds timeout,
                               std::function<void(std::chrono::milliseconds)> on_hang) {
  gpu_timeout_ = timeout;
  on_gpu_hang_ = std::move(on_hang);
}

uint64_t EventLoop::AddTimer(std::chrono::milliseconds delay, bool repeat) {
  delay = std::max(delay, std::chrono::milliseconds(1));
  const uint64_t id = next_id_++;
  timers_[id] = Timer{Clock::now() + delay, delay, repeat};
  Arm(id, timers_[id].due);
  return id;
}

void EventLoop::Arm(uint64_t id, Clock::time_point due) {
  auto it = schedule_.emplace(std::make_pair(due, next_sequence_++), id).first;
  scheduled_[id] = it;
}

void EventLoop::ClearTimer(uint64_t id) {
  auto s = scheduled_.find(id);
  if (s != scheduled_.end()) {
    schedule_.erase(s->second);
    scheduled_.erase(s);
  }
  timers_.erase(id);
}

std::optional<uint64_t> EventLoop::PopDueTimer(Clock::time_point now) {
  if (schedule_.empty() || schedule_.begin()->first.first > now) return std::nullopt;
  const uint64_t id = schedule_.begin()->second;
  schedule_.erase(schedule_.begin());
  scheduled_.erase(id);
  Timer& t = timers_.at(id);
  if (t.repeat) {
    // Re-armed from now, not from the missed due time, so a slow callback cannot cause a burst.
    t.due = now + t.interval;
    Arm(id, t.due);
  } else {
    timers_.erase(id);
  }
  return id;
}

std::optional<EventLoop::Clock::time_point> EventLoop::NextDue() const {
  if (schedule_.empty()) return std::nullopt;
  return schedule_.begin()->first.first;
}

Status EventLoop::Run(LoopClient& client) {
  return RunUntil(client, [] { return false; });
}

Status EventLoop::RunUntil(LoopClient& client, const std::function<bool()>& done) {
  for (;;) {
    if (auto s = client.RunMicrotasks(); !s) return s;
    if (client.StopRequested() || done()) return Ok{};

    if (auto id = PopDueTimer(Clock::now())) {
      if (auto s = client.FireTimer(*id); !s) return s;
      continue;  // microtask checkpoint after every task
    }
    if (source_ != nullptr && source_->Alive()) {
      auto ran = source_->Dispatch();
      if (!ran) return ran.error();
      if (*ran) continue;
    }
    if (pending_gpu_work_ > 0) {
      // Callbacks of finished GPU work resolve promises; their reactions run next turn.
      if (gpu_poller_) gpu_poller_();
      if (pending_gpu_work_ > 0 && gpu_timeout_.count() > 0 &&
          Clock::now() - last_gpu_progress_ > gpu_timeout_) {
        // lavapipe cannot preempt a shader that never ends: the work stays queued, and the
        // device cannot even be torn down behind it. Say so; the host decides (the CLI exits).
        if (on_gpu_hang_) on_gpu_hang_(gpu_timeout_);
        return MakeError("GPU work made no progress for " + std::to_string(gpu_timeout_.count()) +
                         " ms (a shader that never ends?); raise --gpu-timeout if it is just slow");
      }
      auto next = NextDue();
      if (pending_gpu_work_ > 0 && (!next || *next > Clock::now())) {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
      continue;
    }
    auto next = NextDue();
    if (source_ != nullptr && source_->Alive()) {
      source_->Wait(next);
      continue;
    }
    if (!next) return Ok{};  // nothing can ever run again
    std::this_thread::sleep_until(*next);
  }
}

}  // namespace alknet::runtime
