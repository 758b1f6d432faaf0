// Private to the SpiderMonkey side of the engine seam: every mozjs include stays in
// src/spidermonkey/.
#pragma once

#include <js/Array.h>
#include <js/ArrayBuffer.h>
#include <js/CompilationAndEvaluation.h>
#include <js/Conversions.h>
#include <js/ErrorReport.h>
#include <js/Exception.h>
#include <js/Initialization.h>
#include <js/JSON.h>
#include <js/Modules.h>
#include <js/Object.h>
#include <js/Promise.h>
#include <js/PropertyAndElement.h>
#include <js/SourceText.h>
#include <js/String.h>
#include <js/experimental/TypedData.h>
#include <jsapi.h>
#include <jsfriendapi.h>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "alknet/runtime/engine.h"
#include "alknet/runtime/native_module.h"

namespace alknet::runtime::sm {

namespace gpu {
struct GpuState;
}

using ObjectVector = JS::GCVector<JSObject*, 0, js::SystemAllocPolicy>;

// ---- strings and errors (more in alknet/runtime/native_module.h) -----------------------------
std::u16string ToU16(JSContext* cx, JSString* str);
JSString* NewString16(JSContext* cx, std::u16string_view s);

// ---- native cores ----------------------------------------------------------------------------
// The object a built-in module reads as import.meta.native, or nullptr when the module has no
// native part. Defined in native_cores.cpp, with the registry of extensions.
JSObject* CreateNativeCore(JSContext* cx, std::string_view module);
// Functions of the realm's bootstrap (console, timers, encoding...). web_api.cpp.
bool DefineWebCore(JSContext* cx, JS::HandleObject core);
// alknet:fs, alknet:process. builtin_fs.cpp, builtin_process.cpp.
bool DefineFsCore(JSContext* cx, JS::HandleObject core);
bool DefineProcessCore(JSContext* cx, JS::HandleObject core);
// The WebGPU interfaces and navigator.gpu (webgpu/gpu.cpp).
bool InstallWebGpu(JSContext* cx, JS::HandleObject global);

// ---- the engine --------------------------------------------------------------------------------

// Promise jobs, run by the event loop. SpiderMonkey's internal queue would report a throwing
// job itself; ours hands the exception to the loop, which ends the script with it.
class JobQueue final : public JS::JobQueue {
 public:
  explicit JobQueue(JSContext* cx) : jobs_(cx) {}
  JSObject* getIncumbentGlobal(JSContext* cx) override;
  bool enqueuePromiseJob(JSContext* cx, JS::HandleObject promise, JS::HandleObject job,
                         JS::HandleObject allocation_site,
                         JS::HandleObject incumbent_global) override;
  void runJobs(JSContext* cx) override;
  bool empty() const override { return head_ == jobs_.length(); }
  js::UniquePtr<SavedJobQueue> saveJobQueue(JSContext* cx) override;

  bool Enqueue(JSContext* cx, JS::HandleObject job);
  // Runs jobs in order until none is left; false with the exception pending when one threw.
  bool Drain(JSContext* cx);

 private:
  class Saved;
  JS::PersistentRooted<ObjectVector> jobs_;
  size_t head_ = 0;
};

struct ModuleInfo {
  ModuleLocation location;
  std::string url;
};

class SmEngine final : public Engine {
 public:
  explicit SmEngine(HostServices services);
  ~SmEngine() override;
  Status Init();

  // Engine
  Status LoadMainModule(const ModuleLocation& main) override;
  Status LoadMainModuleSource(std::string_view source, const ModuleLocation& as) override;
  Status CheckMainSettled() override;
  Status EvalRepl(std::string_view code) override;
  bool ReplResultPending() const override;
  bool IsCompilableUnit(std::string_view code) override;
  Result<std::string> TakeReplResult() override;
  // An unhandled rejection that was reported (and the script went on) makes it 1 at the end.
  int exit_code() const override {
    return exit_requested_ || !rejection_reported_ ? exit_code_ : 1;
  }
  std::string name() const override;
  // LoopClient
  Status RunMicrotasks() override;
  Status FireTimer(uint64_t id) override;
  bool StopRequested() const override { return exit_requested_; }

  static SmEngine* From(JSContext* cx) { return static_cast<SmEngine*>(JS_GetContextPrivate(cx)); }
  JSContext* cx() const { return cx_; }
  HostServices& host() { return host_; }
  JobQueue& jobs() { return *job_queue_; }

  // Stops the script: the running JS unwinds uncatchably and the loop ends.
  void RequestExit(int code) {
    exit_requested_ = true;
    exit_code_ = code;
  }
  void SetTimerHandler(JSObject* fn) { timer_handler_->set(fn); }

  // Modules (modules.cpp). Return nullptr with an exception pending on failure.
  JSObject* GetOrCompileModule(const ModuleLocation& location,
                               std::optional<std::string_view> source = std::nullopt);
  JSObject* ResolveImport(JS::HandleValue referencing_private, JS::HandleObject module_request);
  void InstallModuleHooks();

  // The WebGPU binding's state, created on first use (webgpu/gpu_common.cpp).
  gpu::GpuState& gpu_state();

  // The bootstrap's gpuUncapturedError(device, error) hook.
  JSObject* gpu_error_hook() const { return gpu_error_hook_->get(); }
  // The bootstrap's gpuMake(kind, data) hook: the prelude-built WebGPU value interfaces.
  JSObject* gpu_make_hook() const { return gpu_make_hook_->get(); }

  // Renders a value as console.log does (the bootstrap's inspect).
  std::string Inspect(JS::HandleValue value);

 private:
  // Turns the pending exception into an "Uncaught ..." Error; an uncatchable stop requested by
  // exit() is Ok.
  Status TakeException();
  // `prefix` + the error (or the inspected value) + its frames as "    at fn (file:line:col)".
  std::string Describe(JS::HandleValue exception, JS::HandleObject stack, std::string_view prefix);
  Status CheckUnhandledRejections();
  static void OnFinalizationCleanup(JSFunction* do_cleanup, JSObject* incumbent_global, void* data);
  static void OnRejectionTracked(JSContext* cx, bool muted, JS::HandleObject promise,
                                 JS::PromiseRejectionHandlingState state, void* data);
  Status RunBootstrap();
  Status Evaluate(JS::HandleObject module);
  Status EvalReplScript(std::string_view code, JS::MutableHandleValue result, bool* syntax_error);

  HostServices host_;
  JSContext* cx_ = nullptr;
  std::unique_ptr<JobQueue> job_queue_;
  std::optional<JS::PersistentRootedObject> global_;
  std::optional<JS::PersistentRootedObject> timer_handler_;
  std::optional<JS::PersistentRootedObject> inspect_fn_;
  std::optional<JS::PersistentRootedObject> gpu_error_hook_;
  std::optional<JS::PersistentRootedObject> gpu_make_hook_;
  std::optional<JS::PersistentRootedObject> main_promise_;
  std::optional<JS::PersistentRootedObject> repl_promise_;
  std::optional<JS::PersistentRootedValue> repl_value_;
  std::optional<JS::PersistentRooted<ObjectVector>> unhandled_;
  std::optional<Error> repl_error_;
  unsigned repl_line_ = 1;
  JS::Realm* old_realm_ = nullptr;
  bool exit_requested_ = false;
  int exit_code_ = 0;
  bool rejection_reported_ = false;
  // Rejected promises that got a handler after being reported unhandled: 'rejectionhandled'
  // is fired for them at the next checkpoint.
  std::optional<JS::PersistentRooted<ObjectVector>> handled_later_;
  std::optional<JS::PersistentRootedObject> hooks_;
  // FinalizationRegistry cleanup functions queued by the GC.
  std::optional<JS::PersistentRooted<ObjectVector>> cleanup_jobs_;
  std::unordered_map<std::string, std::unique_ptr<JS::PersistentRootedObject>> modules_;
  std::vector<std::unique_ptr<ModuleInfo>> module_infos_;
  std::unique_ptr<gpu::GpuState> gpu_;
};

}  // namespace alknet::runtime::sm
