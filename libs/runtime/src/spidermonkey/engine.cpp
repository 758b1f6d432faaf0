// SpiderMonkey 102 behind the Engine seam: one JSContext and one realm per engine, our own job
// queue, rejection tracking, and the translation of exceptions into file:line:col reports.
#include <js/CallAndConstruct.h>
#include <js/ContextOptions.h>
#include <js/Realm.h>
#include <js/Stack.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>

#include "embedded_js.h"
#include "spidermonkey/sm.h"
#include "spidermonkey/webgpu/gpu_common.h"

namespace alknet::runtime {

Result<std::unique_ptr<Engine>> CreateSpiderMonkeyEngine(HostServices services) {
  auto engine = std::make_unique<sm::SmEngine>(std::move(services));
  if (auto s = engine->Init(); !s) return s.error();
  return std::unique_ptr<Engine>(std::move(engine));
}

}  // namespace alknet::runtime

namespace alknet::runtime::sm {

namespace {

const JSClass kGlobalClass = {"global", JSCLASS_GLOBAL_FLAGS, &JS::DefaultGlobalClassOps};

// JS_Init must run once per process, before any context exists. JS_ShutDown runs at exit,
// before SpiderMonkey's own static destructors (registered earlier), which would otherwise
// tear down mutexes its helper threads still hold.
bool InitOnce() {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] {
    ok = JS_Init();
    if (ok) std::atexit([] { JS_ShutDown(); });
  });
  return ok;
}

// SpiderMonkey stack lines are "fn@file:line:col"; we print "    at fn (file:line:col)".
std::string FormatStack(std::string_view stack) {
  std::string out;
  while (!stack.empty()) {
    size_t nl = stack.find('\n');
    std::string_view line = stack.substr(0, nl);
    stack = nl == std::string_view::npos ? std::string_view() : stack.substr(nl + 1);
    // Frames without a source (":0:2", native hooks such as module resolution) say nothing.
    if (line.empty() || line.find("@:0:") != std::string_view::npos || line.rfind(":0:", 0) == 0) {
      continue;
    }
    size_t at = line.find('@');
    std::string_view fn = at == std::string_view::npos ? std::string_view() : line.substr(0, at);
    std::string_view where = at == std::string_view::npos ? line : line.substr(at + 1);
    out += "\n    at ";
    if (fn.empty()) {
      out += where;
    } else {
      out += std::string(fn) + " (" + std::string(where) + ")";
    }
  }
  return out;
}

}  // namespace

// ---- job queue ---------------------------------------------------------------------------------

JSObject* JobQueue::getIncumbentGlobal(JSContext* cx) { return JS::CurrentGlobalOrNull(cx); }

bool JobQueue::enqueuePromiseJob(JSContext* cx, JS::HandleObject, JS::HandleObject job,
                                 JS::HandleObject, JS::HandleObject) {
  return Enqueue(cx, job);
}

bool JobQueue::Enqueue(JSContext* cx, JS::HandleObject job) {
  if (!jobs_.append(job)) {
    JS_ReportOutOfMemory(cx);
    return false;
  }
  return true;
}

void JobQueue::runJobs(JSContext* cx) {
  // Only reached through SpiderMonkey's own drains (debugger); the loop calls Drain.
  if (!Drain(cx)) JS_ClearPendingException(cx);
}

bool JobQueue::Drain(JSContext* cx) {
  JS::RootedObject job(cx);
  JS::RootedValue rval(cx);
  while (head_ < jobs_.length()) {
    job = jobs_[head_];
    jobs_[head_++].set(nullptr);
    if (!JS::Call(cx, JS::UndefinedHandleValue, job, JS::HandleValueArray::empty(), &rval)) {
      return false;
    }
  }
  jobs_.clear();
  head_ = 0;
  return true;
}

// The debugger's "interrupt the queue" protocol: park the pending jobs, restore them after.
class JobQueue::Saved final : public JS::JobQueue::SavedJobQueue {
 public:
  Saved(JSContext* cx, JobQueue* queue) : queue_(queue), parked_(cx) {
    for (size_t i = queue->head_; i < queue->jobs_.length(); ++i) {
      if (!parked_.append(queue->jobs_[i])) break;
    }
    queue->jobs_.clear();
    queue->head_ = 0;
  }
  ~Saved() override {
    for (JSObject* job : parked_.get()) {
      if (!queue_->jobs_.append(job)) break;
    }
  }

 private:
  JobQueue* queue_;
  JS::PersistentRooted<ObjectVector> parked_;
};

js::UniquePtr<JS::JobQueue::SavedJobQueue> JobQueue::saveJobQueue(JSContext* cx) {
  auto saved = js::MakeUnique<Saved>(cx, this);
  if (!saved) JS_ReportOutOfMemory(cx);
  return saved;
}

// ---- engine ------------------------------------------------------------------------------------

SmEngine::SmEngine(HostServices services) : host_(std::move(services)) {}

SmEngine::~SmEngine() {
  if (cx_ == nullptr) return;
  // Every root must go before the context does. WebGPU first: releasing the instance cancels
  // pending callbacks, which must not reach into JS any more.
  if (gpu_) {
    gpu_->closing = true;
    gpu::DrainContextDevices(*gpu_);
    gpu_->prototypes.clear();
    gpu_->instance = {};
  }
  modules_.clear();
  inspect_fn_.reset();
  gpu_error_hook_.reset();
  gpu_make_hook_.reset();
  timer_handler_.reset();
  main_promise_.reset();
  repl_promise_.reset();
  repl_value_.reset();
  unhandled_.reset();
  handled_later_.reset();
  cleanup_jobs_.reset();
  hooks_.reset();
  if (global_) {
    JS::LeaveRealm(cx_, old_realm_);
    global_.reset();
  }
  job_queue_.reset();
  JS_DestroyContext(cx_);
  gpu_.reset();
}

std::string SmEngine::name() const {
  // "JavaScript-C102.15.1" -> "SpiderMonkey 102.15.1"
  std::string version = JS_GetImplementationVersion();
  if (auto c = version.find('C'); c != std::string::npos) version = version.substr(c + 1);
  return "SpiderMonkey " + version;
}

Status SmEngine::Init() {
  if (!InitOnce()) return MakeError("SpiderMonkey's JS_Init failed");
  // SpiderMonkey's default (JS::DefaultHeapMaxBytes, 32 MiB) ends a script at about 400,000
  // small objects; other runtimes allow GiBs (--max-heap).
  cx_ = JS_NewContext(static_cast<uint32_t>(std::min<uint64_t>(host_.max_heap_bytes, UINT32_MAX)));
  if (cx_ == nullptr) return MakeError("SpiderMonkey could not create a context (out of memory?)");
  JS_SetContextPrivate(cx_, this);
  JS::ContextOptionsRef(cx_).setImportAssertions(true);
  if (!JS::InitSelfHostedCode(cx_))
    return MakeError("SpiderMonkey's self-hosted code failed to start");
  job_queue_ = std::make_unique<JobQueue>(cx_);
  JS::SetJobQueue(cx_, job_queue_.get());
  unhandled_.emplace(cx_);
  handled_later_.emplace(cx_);
  hooks_.emplace(cx_);
  JS::SetPromiseRejectionTrackerCallback(cx_, &SmEngine::OnRejectionTracked, this);

  JS::RealmOptions options;
  // WeakRef and FinalizationRegistry (off by default in SpiderMonkey 102's embedding API).
  options.creationOptions().setWeakRefsEnabled(JS::WeakRefSpecifier::EnabledWithoutCleanupSome);
  cleanup_jobs_.emplace(cx_);
  JS::SetHostCleanupFinalizationRegistryCallback(cx_, &SmEngine::OnFinalizationCleanup, this);
  JS::RootedObject global(
      cx_, JS_NewGlobalObject(cx_, &kGlobalClass, nullptr, JS::FireOnNewGlobalHook, options));
  if (!global) return MakeError("SpiderMonkey could not create the global object");
  global_.emplace(cx_, global);
  old_realm_ = JS::EnterRealm(cx_, global);
  if (!JS::InitRealmStandardClasses(cx_)) return TakeException();
  timer_handler_.emplace(cx_);
  inspect_fn_.emplace(cx_);
  gpu_error_hook_.emplace(cx_);
  gpu_make_hook_.emplace(cx_);
  main_promise_.emplace(cx_);
  repl_promise_.emplace(cx_);
  repl_value_.emplace(cx_);
  InstallModuleHooks();
  if (!InstallWebGpu(cx_, global)) return TakeException();
  return RunBootstrap();
}

Status SmEngine::RunBootstrap() {
  const auto* prelude = embedded::FindEmbeddedFile("internal/prelude.js");
  if (prelude == nullptr) return MakeError("internal/prelude.js is not embedded (build problem)");
  JS::CompileOptions opts(cx_);
  opts.setFileAndLine("alknet:internal/prelude.js", 1);
  JS::SourceText<mozilla::Utf8Unit> src;
  if (!src.init(cx_, prelude->contents.data(), prelude->contents.size(),
                JS::SourceOwnership::Borrowed)) {
    return TakeException();
  }
  JS::RootedValue fn(cx_);
  if (!JS::Evaluate(cx_, opts, src, &fn)) return TakeException();
  JS::RootedObject core(cx_, JS_NewPlainObject(cx_));
  if (!core || !DefineWebCore(cx_, core)) return TakeException();
  JS::RootedValueArray<2> args(cx_);
  args[0].setObject(*core);
  args[1].setObject(**global_);
  JS::RootedValue hooks(cx_);
  if (!JS_CallFunctionValue(cx_, nullptr, fn, args, &hooks)) return TakeException();
  if (!hooks.isObject()) return MakeError("the bootstrap did not return its hooks");
  JS::RootedObject hooks_obj(cx_, &hooks.toObject());
  hooks_->set(hooks_obj);
  JS::RootedValue inspect(cx_);
  if (!JS_GetProperty(cx_, hooks_obj, "inspect", &inspect) || !inspect.isObject()) {
    return MakeError("the bootstrap has no inspect hook");
  }
  inspect_fn_->set(&inspect.toObject());
  JS::RootedValue gpu_hook(cx_);
  if (!JS_GetProperty(cx_, hooks_obj, "gpuUncapturedError", &gpu_hook) || !gpu_hook.isObject()) {
    return MakeError("the bootstrap has no gpuUncapturedError hook");
  }
  gpu_error_hook_->set(&gpu_hook.toObject());
  JS::RootedValue make_hook(cx_);
  if (!JS_GetProperty(cx_, hooks_obj, "gpuMake", &make_hook) || !make_hook.isObject()) {
    return MakeError("the bootstrap has no gpuMake hook");
  }
  gpu_make_hook_->set(&make_hook.toObject());
  if (!timer_handler_->get()) return MakeError("the bootstrap did not install a timer handler");
  return Ok{};
}

std::string SmEngine::Inspect(JS::HandleValue value) {
  JS::RootedValue fn(cx_, JS::ObjectValue(**inspect_fn_));
  JS::RootedValue out(cx_);
  if (!JS_CallFunctionValue(cx_, nullptr, fn, JS::HandleValueArray(value), &out) ||
      !out.isString()) {
    JS_ClearPendingException(cx_);
    return "<value that could not be displayed>";
  }
  return ToUtf8(cx_, out.toString());
}

std::string SmEngine::Describe(JS::HandleValue exception, JS::HandleObject stack,
                               std::string_view prefix) {
  std::string head(prefix);
  std::string frames;
  JS::RootedObject obj(cx_, exception.isObject() ? &exception.toObject() : nullptr);
  js::ESClass cls = js::ESClass::Other;
  if (obj && !JS::GetBuiltinClass(cx_, obj, &cls)) JS_ClearPendingException(cx_);
  if (cls == js::ESClass::Error) {
    std::string text;
    if (!ValueToUtf8(cx_, exception, &text)) {
      JS_ClearPendingException(cx_);
      text = "Error";
    }
    head += text;
    JS::RootedValue stack_value(cx_);
    if (JS_GetProperty(cx_, obj, "stack", &stack_value) && stack_value.isString()) {
      frames = FormatStack(ToUtf8(cx_, stack_value.toString()));
    }
    JS_ClearPendingException(cx_);
    if (frames.empty()) {
      // Errors raised while compiling (SyntaxError) have no stack: their place is in the report.
      if (JSErrorReport* report = JS_ErrorFromException(cx_, obj); report && report->filename) {
        frames = "\n    at " + std::string(report->filename) + ":" +
                 std::to_string(report->lineno) + ":" + std::to_string(report->column + 1);
      }
    }
  } else {
    head += Inspect(exception);
    if (stack) {
      JS::RootedString s(cx_);
      if (JS::BuildStackString(cx_, nullptr, stack, &s, 0, js::StackFormat::SpiderMonkey)) {
        frames = FormatStack(ToUtf8(cx_, s));
      }
      JS_ClearPendingException(cx_);
    }
  }
  return head + frames;
}

Status SmEngine::TakeException() {
  if (!JS_IsExceptionPending(cx_)) {
    if (exit_requested_) return Ok{};
    return MakeError("the script was stopped (out of memory, or too much recursion)");
  }
  JS::ExceptionStack es(cx_);
  if (!JS::StealPendingExceptionStack(cx_, &es)) {
    JS_ClearPendingException(cx_);
    return MakeError("Uncaught exception (unreadable)");
  }
  return MakeError(Describe(es.exception(), es.stack(), "Uncaught "));
}

void SmEngine::OnRejectionTracked(JSContext*, bool, JS::HandleObject promise,
                                  JS::PromiseRejectionHandlingState state, void* data) {
  auto* self = static_cast<SmEngine*>(data);
  auto& list = self->unhandled_->get();
  if (state == JS::PromiseRejectionHandlingState::Unhandled) {
    if (!list.append(promise)) return;
  } else {
    size_t before = list.length();
    list.eraseIf([&](JSObject* p) { return p == promise; });
    // Handled before its checkpoint: it was never reported. Otherwise it may have been.
    if (list.length() == before) (void)self->handled_later_->get().append(promise);
  }
}

Status SmEngine::CheckUnhandledRejections() {
  auto& list = unhandled_->get();
  // The REPL's own promise is reported by TakeReplResult, not as an unhandled rejection.
  list.eraseIf([&](JSObject* p) { return p == repl_promise_->get(); });
  JS::RootedObject hooks(cx_, hooks_->get());
  JS::RootedValue rval(cx_);
  // 'rejectionhandled' for promises that were reported and have a handler now (HTML).
  JS::RootedObjectVector handled(cx_);
  if (!handled.appendAll(handled_later_->get())) return MakeError("out of memory");
  handled_later_->get().clear();
  for (JSObject* p : handled) {
    JS::RootedValue arg(cx_, JS::ObjectValue(*p));
    if (!JS_CallFunctionName(cx_, hooks, "rejectionHandled", JS::HandleValueArray(arg), &rval))
      return TakeException();
  }
  if (list.empty()) return Ok{};
  JS::RootedObjectVector pending(cx_);
  if (!pending.appendAll(list)) return MakeError("out of memory");
  list.clear();
  for (JSObject* p : pending) {
    JS::RootedObject promise(cx_, p);
    if (JS::GetPromiseState(promise) != JS::PromiseState::Rejected) continue;
    JS::RootedValue reason(cx_, JS::GetPromiseResult(promise));
    bool main = promise == main_promise_->get();
    // 'unhandledrejection' on globalThis first (not for the main module's own error, which
    // is the script's uncaught exception); a listener's preventDefault() takes it over.
    if (!main) {
      JS::RootedValueArray<2> args(cx_);
      args[0].setObject(*promise);
      args[1].set(reason);
      if (!JS_CallFunctionName(cx_, hooks, "unhandledRejection", args, &rval))
        return TakeException();
      if (exit_requested_) return Ok{};
      if (rval.isBoolean() && !rval.toBoolean()) continue;  // cancelled by a listener
    }
    std::string_view prefix = main ? "Uncaught " : "Uncaught (in promise) ";
    // Where the promise was rejected: the location of a thrown non-Error value (`throw 42`).
    JS::RootedObject site(cx_, JS::GetPromiseResolutionSite(promise));
    std::string report = Describe(reason, site, prefix);
    if (main || host_.unhandled_rejections_throw) return MakeError(report);
    host_.write(OutputStream::kStderr, report + "\n");
    rejection_reported_ = true;
  }
  return Ok{};
}

void SmEngine::OnFinalizationCleanup(JSFunction* do_cleanup, JSObject*, void* data) {
  // Called during GC: only queue; the callbacks run at the next checkpoint.
  auto* self = static_cast<SmEngine*>(data);
  if (self->cleanup_jobs_)
    (void)self->cleanup_jobs_->get().append(JS_GetFunctionObject(do_cleanup));
}

Status SmEngine::RunMicrotasks() {
  if (gpu_ && !gpu::DeliverUncapturedErrors(cx_)) return TakeException();
  if (!job_queue_->Drain(cx_)) return TakeException();
  // Errors that alknet:compute's device (compute.device) collected during these jobs: nothing
  // would wake the loop for them (a navigator.gpu device's own callback does), so they are
  // delivered now, and the jobs their handlers queue run.
  if (gpu_ && !gpu_->context_devices.empty()) {
    if (!gpu::DeliverUncapturedErrors(cx_)) return TakeException();
    if (!job_queue_->Drain(cx_)) return TakeException();
  }
  if (exit_requested_) return Ok{};
  // WeakRef targets read during this task may be collected from now on (ECMA-262
  // ClearKeptObjects), and FinalizationRegistry callbacks the GC queued run here.
  JS::ClearKeptObjects(cx_);
  if (cleanup_jobs_ && !cleanup_jobs_->get().empty()) {
    JS::RootedObjectVector jobs(cx_);
    if (!jobs.appendAll(cleanup_jobs_->get())) return MakeError("out of memory");
    cleanup_jobs_->get().clear();
    JS::RootedValue fn(cx_), rval(cx_);
    for (JSObject* job : jobs) {
      fn.setObject(*job);
      if (!JS_CallFunctionValue(cx_, nullptr, fn, JS::HandleValueArray::empty(), &rval))
        return TakeException();
    }
    if (!job_queue_->Drain(cx_)) return TakeException();
  }
  return CheckUnhandledRejections();
}

Status SmEngine::FireTimer(uint64_t id) {
  JS::RootedValue fn(cx_, JS::ObjectValue(**timer_handler_));
  JS::RootedValue arg(cx_, JS::NumberValue(static_cast<double>(id)));
  JS::RootedValue rval(cx_);
  if (!JS_CallFunctionValue(cx_, nullptr, fn, JS::HandleValueArray(arg), &rval)) {
    return TakeException();
  }
  return Ok{};
}

Status SmEngine::Evaluate(JS::HandleObject module) {
  if (!JS::ModuleInstantiate(cx_, module)) return TakeException();
  JS::RootedValue rval(cx_);
  if (!JS::ModuleEvaluate(cx_, module, &rval)) return TakeException();
  if (rval.isObject()) main_promise_->set(&rval.toObject());
  return Ok{};
}

Status SmEngine::LoadMainModule(const ModuleLocation& main) {
  JS::RootedObject module(cx_, GetOrCompileModule(main));
  if (!module) return TakeException();
  return Evaluate(module);
}

Status SmEngine::LoadMainModuleSource(std::string_view source, const ModuleLocation& as) {
  JS::RootedObject module(cx_, GetOrCompileModule(as, std::optional<std::string_view>(source)));
  if (!module) return TakeException();
  return Evaluate(module);
}

Status SmEngine::CheckMainSettled() {
  if (exit_requested_ || !main_promise_->get()) return Ok{};
  JS::RootedObject promise(cx_, *main_promise_);
  if (JS::GetPromiseState(promise) == JS::PromiseState::Pending) {
    return MakeError(
        "Top-level await never settled: the main module waits on a promise that nothing is left "
        "to resolve (no timers, no GPU work)");
  }
  return Ok{};
}

Status SmEngine::EvalReplScript(std::string_view code, JS::MutableHandleValue result,
                                bool* syntax_error) {
  *syntax_error = false;
  JS::CompileOptions opts(cx_);
  opts.setFileAndLine("repl", repl_line_);
  JS::SourceText<mozilla::Utf8Unit> src;
  if (!src.init(cx_, code.data(), code.size(), JS::SourceOwnership::Borrowed))
    return TakeException();
  JS::RootedScript script(cx_, JS::Compile(cx_, opts, src));
  if (!script) {
    JS::RootedValue exn(cx_);
    if (JS_GetPendingException(cx_, &exn) && exn.isObject()) {
      JS::RootedObject exn_obj(cx_, &exn.toObject());
      JSErrorReport* report = JS_ErrorFromException(cx_, exn_obj);
      *syntax_error = report && report->exnType == JSEXN_SYNTAXERR;
    }
    return TakeException();
  }
  if (!JS_ExecuteScript(cx_, script, result)) return TakeException();
  return Ok{};
}

Status SmEngine::EvalRepl(std::string_view code) {
  repl_promise_->set(nullptr);
  repl_value_->setUndefined();
  JS::RootedValue result(cx_);
  bool syntax_error = false;
  Status s = EvalReplScript(code, &result, &syntax_error);
  if (!s && syntax_error && code.find("await") != std::string_view::npos) {
    // Top-level await in the REPL: run the input as the body of an async function. An
    // expression keeps its value; declarations then stay local to that input.
    std::string wrapped = "(async () => { return (" + std::string(code) + "\n); })()";
    s = EvalReplScript(wrapped, &result, &syntax_error);
    if (!s && syntax_error) {
      wrapped = "(async () => {" + std::string(code) + "\n})()";
      s = EvalReplScript(wrapped, &result, &syntax_error);
    }
  }
  repl_line_ += 1 + static_cast<unsigned>(std::count(code.begin(), code.end(), '\n'));
  if (!s) return s;
  if (result.isObject()) {
    JS::RootedObject obj(cx_, &result.toObject());
    if (JS::IsPromiseObject(obj)) {
      repl_promise_->set(obj);
      return Ok{};
    }
  }
  repl_value_->set(result);
  return Ok{};
}

bool SmEngine::IsCompilableUnit(std::string_view code) {
  JS::RootedObject global(cx_, *global_);
  bool unit = JS_Utf8BufferIsCompilableUnit(cx_, global, code.data(), code.size());
  JS_ClearPendingException(cx_);
  return unit;
}

bool SmEngine::ReplResultPending() const {
  if (!repl_promise_->get()) return false;
  JS::RootedObject p(cx_, *repl_promise_);
  return JS::GetPromiseState(p) == JS::PromiseState::Pending;
}

Result<std::string> SmEngine::TakeReplResult() {
  JS::RootedValue value(cx_, *repl_value_);
  if (repl_promise_->get()) {
    JS::RootedObject p(cx_, *repl_promise_);
    repl_promise_->set(nullptr);
    switch (JS::GetPromiseState(p)) {
      case JS::PromiseState::Pending:
        return MakeError("the promise never settled (nothing left that could resolve it)");
      case JS::PromiseState::Rejected: {
        JS::RootedValue reason(cx_, JS::GetPromiseResult(p));
        unhandled_->get().eraseIf([&](JSObject* o) { return o == p; });
        return MakeError(Describe(reason, nullptr, "Uncaught "));
      }
      case JS::PromiseState::Fulfilled: value = JS::GetPromiseResult(p); break;
    }
  }
  repl_value_->setUndefined();
  return Inspect(value);
}

}  // namespace alknet::runtime::sm
