// The call registry: the one authority over named operations.
//
// Calls are declared as data (CallDecl) and grouped into components. A component owns the
// namespaces (first name segment: "tensor" in "tensor.info") it is the first to claim; any
// other component registering there, and any duplicate name, is refused with an error naming
// both owners. Once Seal() is called the registry is read-only, and lookups and invocations
// are safe from any thread without locking.
//
// The same records serve C++ callers, the JS runtime and remote peers: CallTarget is the
// interface they share, implemented here (local) and by RemoteRegistry (remote.h).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "alknet/call/error.h"
#include "alknet/call/signature.h"
#include "alknet/call/value.h"

namespace alknet::call {

using Clock = std::chrono::steady_clock;

// Cooperative cancellation. The source cancels; tokens observe. Callbacks registered on a
// token run once, on the thread that cancels (or at once if already cancelled).
class CancelToken;
class CancelSource {
 public:
  CancelSource();
  void Cancel() const;
  bool IsCancelled() const;
  CancelToken Token() const;

 private:
  friend class CancelToken;
  struct State;
  std::shared_ptr<State> state_;
};

class CancelToken {
 public:
  CancelToken() = default;  // never cancelled
  bool IsCancelled() const;
  // Returns an id for RemoveCallback; 0 when the callback already ran (token cancelled).
  std::uint64_t OnCancel(std::function<void()> callback) const;
  // After this returns the callback will not run and is not running (it waits for a
  // callback in progress on another thread), so the callback's captures may be freed.
  void RemoveCallback(std::uint64_t id) const;
  bool CanBeCancelled() const { return state_ != nullptr; }

 private:
  friend class CancelSource;
  std::shared_ptr<CancelSource::State> state_;
};

struct CallOptions {
  // Absent: no deadline. A call past its deadline ends with kDeadlineExceeded.
  std::optional<Clock::time_point> deadline;
  CancelToken cancel;
  // Optional: a handler that waits for a shared resource (the GPU) adds the time it waited
  // here, so a server can log a call's queue time apart from its run time.
  std::shared_ptr<std::atomic<std::int64_t>> queue_ns;

  static CallOptions WithTimeout(Clock::duration timeout) {
    CallOptions o;
    o.deadline = Clock::now() + timeout;
    return o;
  }
};

class CallRegistry;

// What a running handler can see: who it is, whether it should stop, and the registry.
class CallContext {
 public:
  CallContext(std::string_view call, const CallOptions& options, const CallRegistry* registry,
              std::function<bool()> extra_cancel = {})
      : call_(call),
        options_(options),
        registry_(registry),
        extra_cancel_(std::move(extra_cancel)) {}

  std::string_view call() const { return call_; }
  bool Cancelled() const {
    return options_.cancel.IsCancelled() || (extra_cancel_ && extra_cancel_());
  }
  bool Expired() const { return options_.deadline && Clock::now() >= *options_.deadline; }
  // Long-running handlers poll this between steps and return StopError() when true.
  bool ShouldStop() const { return Cancelled() || Expired(); }
  Error StopError() const;
  const CallOptions& options() const { return options_; }
  const CallRegistry* registry() const { return registry_; }

 private:
  std::string_view call_;
  const CallOptions& options_;
  const CallRegistry* registry_;
  std::function<bool()> extra_cancel_;
};

using Handler = std::function<Result<Value>(CallContext& ctx, std::span<const Value> args)>;

enum class Execution : std::uint8_t {
  kSync,   // cheap: runs on the caller's thread
  kAsync,  // may block or take long: runs on the registry's worker threads
};

struct CallFlags {
  Execution execution = Execution::kSync;
  bool side_effects = false;  // writes files, mutates state: callers must not retry blindly
  // The result depends only on the arguments the request carries and running it twice has no
  // effect beyond the first: a remote client may retry it on another worker of a pool when the
  // first one fails before answering (docs/remote.md, "Idempotency"). Off unless declared.
  bool idempotent = false;
};

// One declared call, as a component lists it.
struct CallDecl {
  std::string name;       // "tensor.info"
  std::string signature;  // "(t: tensor) -> map"
  Handler handler;
  CallFlags flags;
  std::string doc;  // one line, shown by `alknet calls`
};

struct Component {
  std::string name;
  std::vector<std::string> depends_on;  // components that must be registered first
  std::vector<CallDecl> calls;
};

// What introspection reports about one call (local or remote).
struct CallInfo {
  std::string name;
  std::string signature;
  std::string owner;  // component name
  CallFlags flags;
  std::string doc;
};

// The interface local and remote registries share.
class CallTarget {
 public:
  using Callback = std::function<void(Result<Value>)>;
  virtual ~CallTarget() = default;

  virtual Result<std::vector<CallInfo>> List() = 0;
  virtual Result<Value> Invoke(std::string_view name, std::span<const Value> args,
                               const CallOptions& options = {}) = 0;
  // `done` runs exactly once, on some worker thread, possibly before InvokeAsync returns.
  virtual void InvokeAsync(std::string name, std::vector<Value> args, CallOptions options,
                           Callback done) = 0;

  std::future<Result<Value>> InvokeAsync(std::string name, std::vector<Value> args,
                                         CallOptions options = {});
};

// A registered call: the declaration plus its parsed signature and owner.
struct CallRecord {
  std::string name;
  Signature signature;
  std::string signature_text;
  std::string owner;
  Handler handler;
  CallFlags flags;
  std::string doc;
};

class WorkerPool;

class CallRegistry final : public CallTarget {
 public:
  CallRegistry();
  ~CallRegistry() override;
  CallRegistry(const CallRegistry&) = delete;
  CallRegistry& operator=(const CallRegistry&) = delete;

  // All or nothing: on error nothing of the component is registered.
  Status AddComponent(Component component);
  void Seal();
  bool sealed() const { return sealed_.load(std::memory_order_acquire); }

  // nullptr when absent. The record lives as long as the registry.
  const CallRecord* Find(std::string_view name) const;
  std::vector<std::string> Components() const;
  // Every call, sorted by name (List() without the Result, for handlers such as call.list).
  std::vector<CallInfo> Infos() const;

  Result<std::vector<CallInfo>> List() override;
  Result<Value> Invoke(std::string_view name, std::span<const Value> args,
                       const CallOptions& options = {}) override;
  using CallTarget::InvokeAsync;
  void InvokeAsync(std::string name, std::vector<Value> args, CallOptions options,
                   Callback done) override;

  // The hot path for callers that resolved a record once (the JS binding, the server).
  // `extra_cancel` lets a transport add its own cancellation probe (a gone client).
  Result<Value> Invoke(const CallRecord& record, std::span<const Value> args,
                       const CallOptions& options,
                       const std::function<bool()>& extra_cancel = {}) const;

 private:
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using RecordMap =
      std::unordered_map<std::string, std::unique_ptr<CallRecord>, StringHash, std::equal_to<>>;
  using OwnerMap = std::unordered_map<std::string, std::string, StringHash, std::equal_to<>>;

  Result<Value> RunHandler(const CallRecord& record, std::span<const Value> args,
                           const CallOptions& options,
                           const std::function<bool()>& extra_cancel) const;
  WorkerPool& Workers();

  mutable std::shared_mutex mutex_;  // held only until Seal(); after that reads are lock-free
  std::atomic<bool> sealed_{false};
  RecordMap records_;
  OwnerMap namespace_owner_;
  std::vector<Component> components_;  // names and dependencies (calls moved into records_)
  std::once_flag workers_once_;
  std::unique_ptr<WorkerPool> workers_;
};

// The first name segment: "tensor" for "tensor.info".
std::string_view NamespaceOf(std::string_view call_name);

}  // namespace alknet::call
