#include "alknet/runtime/runtime.h"

#include <algorithm>
#include <cstdio>

#include "embedded_js.h"
#include "extensions.h"

namespace alknet::runtime {

namespace fs = std::filesystem;

std::vector<std::string> BuiltinModuleNames() {
  std::vector<std::string> names;
  for (size_t i = 0; i < embedded::kEmbeddedFileCount; ++i) {
    std::string_view name = embedded::kEmbeddedFiles[i].name;
    if (name.find('/') != std::string_view::npos || name.size() < 4 ||
        name.substr(name.size() - 3) != ".js") {
      continue;  // internal/*: the bootstrap, not importable
    }
    names.emplace_back(name.substr(0, name.size() - 3));
  }
  for (auto& name : ExtensionModuleNames()) {
    if (std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::unique_ptr<Runtime>> Runtime::Create(RuntimeOptions options) {
  std::unique_ptr<Runtime> rt(new Runtime());
  rt->options_ = std::move(options);
  if (!rt->options_.write) {
    rt->options_.write = [](OutputStream stream, std::string_view text) {
      std::FILE* f = stream == OutputStream::kStderr ? stderr : stdout;
      std::fwrite(text.data(), 1, text.size(), f);
      // Written through at once, as Node and Deno do: a process killed or crashing later
      // (a hung shader, a driver that watches the output) loses nothing it printed.
      std::fflush(f);
    };
  }
  std::optional<ImportMap> import_map;
  if (rt->options_.import_map) {
    auto map = ImportMap::Load(*rt->options_.import_map);
    if (!map) return map.error();
    import_map = std::move(*map);
  }
  auto names = BuiltinModuleNames();
  rt->resolver_ = std::make_unique<ModuleResolver>(
      std::set<std::string>(names.begin(), names.end()), std::move(import_map));
  HostServices host;
  host.loop = &rt->loop_;
  rt->loop_.SetGpuWatchdog(rt->options_.gpu_timeout, rt->options_.on_gpu_hang);
  host.resolver = rt->resolver_.get();
  host.permissions = &rt->options_.permissions;
  Runtime* self = rt.get();
  host.read_module = [self](const ModuleLocation& m) { return self->ReadModule(m); };
  host.write = rt->options_.write;
  host.args = rt->options_.args;
  host.max_heap_bytes = rt->options_.max_heap_bytes;
  host.unhandled_rejections_throw = rt->options_.unhandled_rejections_throw;
  host.calls = rt->options_.calls.get();
  host.connect_remote = rt->options_.connect_remote;
  auto engine = CreateSpiderMonkeyEngine(std::move(host));
  if (!engine) return engine.error();
  rt->engine_ = std::move(*engine);
  return rt;
}

Runtime::~Runtime() = default;

Result<std::string> Runtime::ReadModule(const ModuleLocation& module) const {
  // Module source is held whole; SpiderMonkey takes no more than this anyway.
  constexpr uint64_t kMaxModuleBytes = 1ull << 30;
  auto read_within = [&](const fs::path& dir) -> Result<std::string> {
    ALKNET_ASSIGN_OR_RETURN(base::UniqueFd fd, OpenWithin(dir, module.path, base::OpenMode::kRead));
    auto text = base::ReadAllFd(fd.get(), module.path.native(), kMaxModuleBytes);
    if (!text) return MakeError(std::move(text).error().message);
    return std::move(text).value();
  };
  if (main_dir_) {
    if (PathIsWithin(module.path, *main_dir_)) return read_within(*main_dir_);
    for (fs::path dir = *main_dir_;; dir = dir.parent_path()) {
      if (PathIsWithin(module.path, dir / "node_modules")) return read_within(dir / "node_modules");
      if (dir == dir.parent_path()) break;
    }
  }
  auto text = options_.permissions.ReadFile(module.path, kMaxModuleBytes);
  if (!text && text.error().message.rfind("Requires ", 0) == 0) {
    return MakeError(text.error().message +
                     " (importing a module from outside the main script's directory and its "
                     "node_modules is a file read)");
  }
  return text;
}

int Runtime::Finish(Status status) {
  if (!status && !engine_->StopRequested()) {
    options_.write(OutputStream::kStderr, status.error().message + "\n");
    return 1;
  }
  return engine_->exit_code();
}

int Runtime::RunFile(const fs::path& file) {
  auto main = resolver_->Resolve(file.string(), nullptr);
  if (!main) return Finish(main.error());
  main_dir_ = main->path.parent_path();
  if (auto s = engine_->LoadMainModule(*main); !s) return Finish(s);
  if (auto s = loop_.Run(*engine_); !s) return Finish(s);
  return Finish(engine_->CheckMainSettled());
}

int Runtime::RunSource(std::string_view source) {
  ModuleLocation as;
  as.path = fs::current_path() / "[eval]";
  // No main_dir_: source given on the command line has no directory of its own, and granting
  // the working directory would grant all of it (`cd / && alknet eval ...`).
  if (auto s = engine_->LoadMainModuleSource(source, as); !s) return Finish(s);
  if (auto s = loop_.Run(*engine_); !s) return Finish(s);
  return Finish(engine_->CheckMainSettled());
}

Result<std::string> Runtime::EvalRepl(std::string_view code) {
  if (auto s = engine_->EvalRepl(code); !s) return s.error();
  if (auto s = loop_.RunUntil(*engine_, [this] { return !engine_->ReplResultPending(); }); !s) {
    return s.error();
  }
  return engine_->TakeReplResult();
}

bool Runtime::exit_requested() const { return engine_->StopRequested(); }
int Runtime::exit_code() const { return engine_->exit_code(); }

}  // namespace alknet::runtime
