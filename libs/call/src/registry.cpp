#include "alknet/call/registry.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <thread>

#include "alknet/call/worker_pool.h"

namespace alknet::call {

namespace {

// Dot-separated segments of [a-z0-9_], each starting with a letter; at least two segments,
// because the first one is the namespace the authority rules are about.
bool ValidCallName(std::string_view name) {
  if (name.find('.') == std::string_view::npos) return false;
  bool segment_start = true;
  for (char ch : name) {
    if (ch == '.') {
      if (segment_start) return false;
      segment_start = true;
      continue;
    }
    const bool lower = ch >= 'a' && ch <= 'z';
    const bool digit_or_underscore = (ch >= '0' && ch <= '9') || ch == '_';
    if (segment_start && !lower) return false;
    if (!lower && !digit_or_underscore) return false;
    segment_start = false;
  }
  return !segment_start;
}

Error RegistrationError(ErrorCode code, std::string message) {
  return MakeError(code, std::move(message));
}

Result<Value> NotFound(std::string_view name) {
  return Error{
      ErrorCode::kNotFound, std::string(name),
      "no call named '" + std::string(name) + "' is registered (`alknet calls` lists them)"};
}

}  // namespace

std::string_view NamespaceOf(std::string_view call_name) {
  return call_name.substr(0, call_name.find('.'));
}

std::future<Result<Value>> CallTarget::InvokeAsync(std::string name, std::vector<Value> args,
                                                   CallOptions options) {
  auto promise = std::make_shared<std::promise<Result<Value>>>();
  auto future = promise->get_future();
  InvokeAsync(std::move(name), std::move(args), std::move(options),
              [promise](Result<Value> r) { promise->set_value(std::move(r)); });
  return future;
}

CallRegistry::CallRegistry() = default;
CallRegistry::~CallRegistry() = default;

Status CallRegistry::AddComponent(Component component) {
  std::unique_lock lock(mutex_);
  if (sealed()) {
    return RegistrationError(
        ErrorCode::kFailedPrecondition,
        "component '" + component.name + "' cannot register: the registry is sealed");
  }
  if (component.name.empty()) {
    return RegistrationError(ErrorCode::kInvalidArgument, "a component needs a name");
  }
  for (const auto& c : components_) {
    if (c.name == component.name) {
      return RegistrationError(ErrorCode::kAlreadyExists,
                               "component '" + component.name + "' is already registered");
    }
  }
  for (const auto& dep : component.depends_on) {
    const bool present = std::any_of(components_.begin(), components_.end(),
                                     [&](const Component& c) { return c.name == dep; });
    if (!present) {
      return RegistrationError(ErrorCode::kFailedPrecondition,
                               "component '" + component.name + "' depends on '" + dep +
                                   "', which is not registered; register '" + dep + "' first");
    }
  }

  // Validate everything before touching the maps, so a refused component leaves no trace.
  std::vector<std::unique_ptr<CallRecord>> staged;
  OwnerMap claimed;
  for (auto& decl : component.calls) {
    if (!ValidCallName(decl.name)) {
      return RegistrationError(ErrorCode::kInvalidArgument,
                               "component '" + component.name + "': call name '" + decl.name +
                                   "' is not dot-namespaced lower_case (like 'tensor.info')");
    }
    const std::string ns(NamespaceOf(decl.name));
    if (auto it = namespace_owner_.find(ns);
        it != namespace_owner_.end() && it->second != component.name) {
      return RegistrationError(ErrorCode::kPermissionDenied,
                               "component '" + component.name + "' cannot register '" + decl.name +
                                   "': namespace '" + ns + "' belongs to component '" + it->second +
                                   "'");
    }
    if (auto it = records_.find(decl.name); it != records_.end()) {
      return RegistrationError(ErrorCode::kAlreadyExists,
                               "component '" + component.name + "' cannot register '" + decl.name +
                                   "': already registered by component '" + it->second->owner +
                                   "'");
    }
    for (const auto& s : staged) {
      if (s->name == decl.name) {
        return RegistrationError(
            ErrorCode::kAlreadyExists,
            "component '" + component.name + "' declares '" + decl.name + "' twice");
      }
    }
    if (!decl.handler) {
      return RegistrationError(
          ErrorCode::kInvalidArgument,
          "component '" + component.name + "': call '" + decl.name + "' has no handler");
    }
    auto sig = ParseSignature(decl.signature);
    if (!sig) {
      return RegistrationError(
          ErrorCode::kInvalidArgument,
          "component '" + component.name + "': call '" + decl.name + "': " + sig.error().message);
    }
    claimed.emplace(ns, component.name);
    auto record = std::make_unique<CallRecord>();
    record->name = decl.name;
    record->signature_text = sig->ToString();
    record->signature = std::move(*sig);
    record->owner = component.name;
    record->handler = std::move(decl.handler);
    record->flags = decl.flags;
    record->doc = std::move(decl.doc);
    staged.push_back(std::move(record));
  }
  for (auto& [ns, owner] : claimed) namespace_owner_.emplace(ns, owner);
  for (auto& r : staged) {
    auto name = r->name;
    records_.emplace(std::move(name), std::move(r));
  }
  component.calls.clear();
  components_.push_back(std::move(component));
  return {};
}

void CallRegistry::Seal() {
  std::unique_lock lock(mutex_);
  sealed_.store(true, std::memory_order_release);
}

const CallRecord* CallRegistry::Find(std::string_view name) const {
  auto lookup = [&]() -> const CallRecord* {
    auto it = records_.find(name);
    return it == records_.end() ? nullptr : it->second.get();
  };
  if (sealed()) return lookup();
  std::shared_lock lock(mutex_);
  return lookup();
}

std::vector<std::string> CallRegistry::Components() const {
  std::shared_lock lock(mutex_);
  std::vector<std::string> names;
  for (const auto& c : components_) names.push_back(c.name);
  return names;
}

Result<std::vector<CallInfo>> CallRegistry::List() { return Infos(); }

std::vector<CallInfo> CallRegistry::Infos() const {
  std::shared_lock lock(mutex_);
  std::vector<CallInfo> out;
  out.reserve(records_.size());
  for (const auto& [name, r] : records_) {
    out.push_back(CallInfo{r->name, r->signature_text, r->owner, r->flags, r->doc});
  }
  std::sort(out.begin(), out.end(),
            [](const CallInfo& a, const CallInfo& b) { return a.name < b.name; });
  return out;
}

Result<Value> CallRegistry::RunHandler(const CallRecord& record, std::span<const Value> args,
                                       const CallOptions& options,
                                       const std::function<bool()>& extra_cancel) const {
  if (auto checked = CheckArguments(record.name, record.signature, args); !checked) {
    return std::move(checked).error();
  }
  CallContext ctx(record.name, options, this, extra_cancel);
  if (ctx.ShouldStop()) return ctx.StopError();
  // A handler that throws is contained: the caller gets kInternal naming the call.
  Result<Value> result = [&]() -> Result<Value> {
    try {
      return record.handler(ctx, args);
    } catch (const std::exception& e) {
      return MakeError(ErrorCode::kInternal, std::string("handler threw: ") + e.what());
    } catch (...) {
      return MakeError(ErrorCode::kInternal, "handler threw a non-standard exception");
    }
  }();
  if (!result.ok()) {
    Error e = std::move(result).error();
    if (e.call.empty()) e.call = record.name;
    return e;
  }
  // A result that arrives after the deadline or a cancel is not delivered, so local and
  // remote callers see the same thing.
  if (ctx.ShouldStop()) return ctx.StopError();
  if (!TypeAccepts(record.signature.result, result->kind())) {
    return Error{ErrorCode::kInternal, record.name,
                 "handler returned " + std::string(ValueKindName(result->kind())) +
                     ", but the signature promises " +
                     std::string(TypeName(record.signature.result))};
  }
  return result;
}

Result<Value> CallRegistry::Invoke(const CallRecord& record, std::span<const Value> args,
                                   const CallOptions& options,
                                   const std::function<bool()>& extra_cancel) const {
  return RunHandler(record, args, options, extra_cancel);
}

Result<Value> CallRegistry::Invoke(std::string_view name, std::span<const Value> args,
                                   const CallOptions& options) {
  const CallRecord* record = Find(name);
  if (!record) return NotFound(name);
  if (record->flags.execution == Execution::kSync) return RunHandler(*record, args, options, {});
  // An async record still honours its deadline when the handler ignores it: wait on the
  // asynchronous path, which settles at the deadline.
  auto future = CallTarget::InvokeAsync(std::string(name),
                                        std::vector<Value>(args.begin(), args.end()), options);
  return future.get();
}

WorkerPool& CallRegistry::Workers() {
  std::call_once(workers_once_, [this] {
    workers_ = std::make_unique<WorkerPool>(std::max(2u, std::thread::hardware_concurrency()));
  });
  return *workers_;
}

void CallRegistry::InvokeAsync(std::string name, std::vector<Value> args, CallOptions options,
                               Callback done) {
  const CallRecord* record = Find(name);
  if (!record) {
    done(NotFound(name));
    return;
  }
  if (record->flags.execution == Execution::kSync) {
    done(RunHandler(*record, args, options, {}));
    return;
  }
  // Settled exactly once: by the handler, the deadline timer or the cancel callback,
  // whichever comes first; the others find it settled and do nothing.
  struct Pending {
    std::atomic<bool> settled{false};
    Callback done;
    CancelToken token;
    std::uint64_t cancel_id = 0;
    std::mutex id_mutex;
    void Settle(Result<Value> r) {
      if (settled.exchange(true)) return;
      {
        std::lock_guard lock(id_mutex);
        token.RemoveCallback(cancel_id);
      }
      done(std::move(r));
      done = nullptr;
    }
  };
  auto pending = std::make_shared<Pending>();
  pending->done = std::move(done);
  pending->token = options.cancel;
  WorkerPool& pool = Workers();
  if (options.deadline) {
    std::weak_ptr<Pending> weak = pending;
    pool.RunAt(*options.deadline, [weak, call = record->name] {
      if (auto p = weak.lock()) {
        p->Settle(Error{ErrorCode::kDeadlineExceeded, call, "the call ran past its deadline"});
      }
    });
  }
  if (options.cancel.CanBeCancelled()) {
    std::weak_ptr<Pending> weak = pending;
    // Not under id_mutex: an already-cancelled token runs the callback right here.
    const auto id = options.cancel.OnCancel([weak, call = record->name] {
      if (auto p = weak.lock()) {
        p->Settle(Error{ErrorCode::kCancelled, call, "the call was cancelled"});
      }
    });
    std::lock_guard lock(pending->id_mutex);
    pending->cancel_id = id;
    if (pending->settled.load()) options.cancel.RemoveCallback(id);
  }
  pool.Submit([this, record, pending, args = std::move(args), options = std::move(options)] {
    if (pending->settled.load()) return;  // cancelled or expired while queued
    pending->Settle(RunHandler(*record, args, options, {}));
  });
}

}  // namespace alknet::call
