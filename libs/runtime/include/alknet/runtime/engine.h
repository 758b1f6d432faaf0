// The engine seam. Everything that knows which JavaScript engine runs (SpiderMonkey today)
// sits behind Engine; the loop, module resolution, permissions and the CLI do not.
// Swapping the engine means writing another CreateXxxEngine() and its src/ directory.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "alknet/call/connect.h"
#include "alknet/call/registry.h"
#include "alknet/runtime/event_loop.h"
#include "alknet/runtime/module_resolver.h"
#include "alknet/runtime/permissions.h"
#include "alknet/runtime/result.h"

namespace alknet::runtime {

enum class OutputStream { kStdout, kStderr };

// Services the host gives the engine; they outlive it.
struct HostServices {
  EventLoop* loop = nullptr;
  const ModuleResolver* resolver = nullptr;
  const Permissions* permissions = nullptr;
  // Reads a module file under the rule for loading modules (see Runtime): its source text, or
  // the permission or file error.
  std::function<Result<std::string>(const ModuleLocation&)> read_module;
  std::function<void(OutputStream, std::string_view)> write;
  std::vector<std::string> args;
  // The registry alknet:call uses by default (local, or remote under `alknet run --remote`);
  // nullptr: call() throws.
  call::CallTarget* calls = nullptr;
  // Opens remote call targets for alknet:call's connect(); empty: connect() throws, naming
  // what is missing (a host without the gRPC transport).
  call::RemoteConnector connect_remote;
  // The JS heap's limit (GC things; ArrayBuffer contents are malloc'd beside it).
  uint64_t max_heap_bytes = uint64_t{4095} << 20;
  // --unhandled-rejections=throw: an unhandled rejection ends the script (Deno's and Node's
  // default). Otherwise (the browser default) it is reported and the script goes on.
  bool unhandled_rejections_throw = false;
};

class Engine : public LoopClient {
 public:
  // Loads, links and evaluates a module graph. A module with top-level await may still be
  // pending when this returns; the event loop finishes it (see CheckMainSettled).
  virtual Status LoadMainModule(const ModuleLocation& main) = 0;
  // The same for source text standing in for the module at `as` (alknet eval).
  virtual Status LoadMainModuleSource(std::string_view source, const ModuleLocation& as) = 0;
  // After the loop has ended: an Error when the main module's top-level await never settled.
  virtual Status CheckMainSettled() = 0;

  // REPL: evaluates `code` as a script in the global scope. When its value is a promise,
  // ReplResultPending() stays true until the loop settles it.
  virtual Status EvalRepl(std::string_view code) = 0;
  virtual bool ReplResultPending() const = 0;
  // False while `code` is an unfinished statement (an open brace, an unterminated template):
  // the REPL then reads another line before evaluating.
  virtual bool IsCompilableUnit(std::string_view code) = 0;
  // The value (or the awaited value) rendered as console.log would; an Error if it threw.
  virtual Result<std::string> TakeReplResult() = 0;

  // The exit code the script asked for (alknet:process exit()); 0 otherwise.
  virtual int exit_code() const = 0;
  // "SpiderMonkey 102.15.1"
  virtual std::string name() const = 0;
};

// The SpiderMonkey engine. One per thread at a time; JS_Init runs once per process.
Result<std::unique_ptr<Engine>> CreateSpiderMonkeyEngine(HostServices services);

}  // namespace alknet::runtime
