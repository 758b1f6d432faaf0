#include <condition_variable>
#include <mutex>
#include <thread>

#include "alknet/call/registry.h"

namespace alknet::call {

struct CancelSource::State {
  std::atomic<bool> cancelled{false};
  std::mutex mutex;
  std::condition_variable callbacks_done;
  std::uint64_t next_id = 1;
  std::vector<std::pair<std::uint64_t, std::function<void()>>> callbacks;
  // Set while Cancel() runs the callbacks outside the lock, so RemoveCallback can wait for
  // a callback that is running right now (it may touch what the remover is about to free).
  bool running = false;
  std::thread::id runner;
};

CancelSource::CancelSource() : state_(std::make_shared<State>()) {}

void CancelSource::Cancel() const {
  std::vector<std::pair<std::uint64_t, std::function<void()>>> run;
  {
    std::lock_guard lock(state_->mutex);
    if (state_->cancelled.exchange(true)) return;
    run.swap(state_->callbacks);
    state_->running = true;
    state_->runner = std::this_thread::get_id();
  }
  for (auto& [id, fn] : run) fn();
  {
    std::lock_guard lock(state_->mutex);
    state_->running = false;
  }
  state_->callbacks_done.notify_all();
}

bool CancelSource::IsCancelled() const { return state_->cancelled.load(); }

CancelToken CancelSource::Token() const {
  CancelToken t;
  t.state_ = state_;
  return t;
}

bool CancelToken::IsCancelled() const {
  return state_ && state_->cancelled.load(std::memory_order_relaxed);
}

std::uint64_t CancelToken::OnCancel(std::function<void()> callback) const {
  if (!state_) return 0;
  {
    std::lock_guard lock(state_->mutex);
    if (!state_->cancelled.load()) {
      const auto id = state_->next_id++;
      state_->callbacks.emplace_back(id, std::move(callback));
      return id;
    }
  }
  callback();
  return 0;
}

void CancelToken::RemoveCallback(std::uint64_t id) const {
  if (!state_ || id == 0) return;
  std::unique_lock lock(state_->mutex);
  auto& cbs = state_->callbacks;
  for (auto it = cbs.begin(); it != cbs.end(); ++it) {
    if (it->first == id) {
      cbs.erase(it);
      return;
    }
  }
  // Not in the list: it ran, or is running now on the cancelling thread. Wait for it,
  // unless this is that thread (a callback removing itself).
  if (state_->runner != std::this_thread::get_id()) {
    state_->callbacks_done.wait(lock, [&] { return !state_->running; });
  }
}

Error CallContext::StopError() const {
  if (Cancelled())
    return Error{ErrorCode::kCancelled, std::string(call_), "the call was cancelled"};
  return Error{ErrorCode::kDeadlineExceeded, std::string(call_), "the call ran past its deadline"};
}

}  // namespace alknet::call
