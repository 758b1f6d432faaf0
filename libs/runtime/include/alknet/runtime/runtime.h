// alknet-runtime: one JavaScript realm with an event loop, ES modules, Web APIs and WebGPU.
//
//   RuntimeOptions opts;
//   opts.permissions.ParseFlag("--allow-read");
//   auto rt = Runtime::Create(std::move(opts));
//   int code = (*rt)->RunFile("main.js");   // runs the module and the loop to the end
//
// Module loading counts as a file read, with one exception so that a script can always load
// its own code: files under the main module's directory, and files inside a node_modules
// directory located in that directory or one of its ancestors (where package resolution looks),
// and the --import-map file itself, load without --allow-read. Anything else needs a read grant.
// `alknet eval` and the REPL have no main module, so no such directory: every file they import
// (JSON too) needs --allow-read, whatever the working directory. A module file is opened
// beneath the directory that allows it (Permissions::OpenRead's rules: no link, "..", NUL or
// non-regular file).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "alknet/runtime/engine.h"
#include "alknet/runtime/event_loop.h"
#include "alknet/runtime/module_resolver.h"
#include "alknet/runtime/permissions.h"
#include "alknet/runtime/result.h"

namespace alknet::runtime {

struct RuntimeOptions {
  std::vector<std::string> args;  // script arguments, exported as `args` by alknet:process
  Permissions permissions;
  std::optional<std::filesystem::path> import_map;
  // Where console output goes; default: the process's stdout and stderr.
  std::function<void(OutputStream, std::string_view)> write;
  // What alknet:call's call()/list() reach: the CLI passes its sealed local registry, or a
  // RemoteRegistry for `alknet run --remote`. Empty: alknet:call throws on use.
  std::shared_ptr<call::CallTarget> calls;
  // What alknet:call's connect() opens remote targets with (the CLI passes alknet-call-grpc's
  // RemoteRegistry::Connector()). Empty: connect() throws.
  call::RemoteConnector connect_remote;
  // The GPU watchdog (EventLoop::SetGpuWatchdog): pending GPU work that makes no progress for
  // this long is a hang (--gpu-timeout; 0 = wait forever). `on_gpu_hang` runs first; the CLI's
  // prints and exits, since a device stuck in a shader cannot be torn down.
  std::chrono::milliseconds gpu_timeout{std::chrono::minutes(5)};
  // The JS heap's limit (--max-heap=MIB).
  uint64_t max_heap_bytes = uint64_t{4095} << 20;
  // --unhandled-rejections=throw|warn (see HostServices).
  bool unhandled_rejections_throw = false;
  std::function<void(std::chrono::milliseconds)> on_gpu_hang;
};

class Runtime {
 public:
  static Result<std::unique_ptr<Runtime>> Create(RuntimeOptions options);
  ~Runtime();

  // Runs FILE as the main ES module and the event loop until nothing is left. Returns the exit
  // code: 0, the code given to exit(), or 1 after printing an uncaught error with its stack.
  int RunFile(const std::filesystem::path& file);
  // The same for source text (alknet eval); relative imports resolve against the cwd, and
  // loading them needs --allow-read.
  int RunSource(std::string_view source);
  // One REPL input: evaluated in the global scope; a promise result is awaited while the loop
  // runs. Returns the rendered value, or the error as the user should see it.
  Result<std::string> EvalRepl(std::string_view code);
  bool exit_requested() const;
  int exit_code() const;

  Engine& engine() { return *engine_; }
  EventLoop& loop() { return loop_; }

 private:
  Runtime() = default;
  int Finish(Status status);
  Result<std::string> ReadModule(const ModuleLocation& module) const;

  RuntimeOptions options_;
  EventLoop loop_;
  std::unique_ptr<ModuleResolver> resolver_;
  std::optional<std::filesystem::path> main_dir_;
  std::unique_ptr<Engine> engine_;
};

// Lists the built-in modules ("fs", "process", ...): the embedded js/*.js files and the
// registered extensions (native_module.h), sorted.
std::vector<std::string> BuiltinModuleNames();

}  // namespace alknet::runtime
