#include "alknet/webgpu/procs.h"

#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <mutex>

namespace alknet::webgpu {

namespace {

const Procs* g_procs = nullptr;

// ASan's runtime refuses RTLD_DEEPBIND (the library would bind malloc to libc's, bypassing
// the sanitizer); sanitizer builds load without it.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kDeepBind = 0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr int kDeepBind = 0;
#else
constexpr int kDeepBind = RTLD_DEEPBIND;
#endif
#else
constexpr int kDeepBind = RTLD_DEEPBIND;
#endif

const char* kFixHint =
    "Run scripts/setup (it installs the pinned Dawn from npm bun-webgpu-linux-x64@0.1.7), or "
    "point ALKNET_WEBGPU_LIBRARY at a webgpu.h implementation.";

}  // namespace

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kLibraryNotFound: return "webgpu-library-not-found";
    case ErrorCode::kSymbolMissing: return "webgpu-symbol-missing";
    case ErrorCode::kNoAdapter: return "no-adapter";
    case ErrorCode::kDeviceRequest: return "device-request-failed";
    case ErrorCode::kShaderCompilation: return "shader-compilation";
    case ErrorCode::kValidation: return "validation";
    case ErrorCode::kOutOfMemory: return "out-of-memory";
    case ErrorCode::kInternal: return "internal";
    case ErrorCode::kDeviceLost: return "device-lost";
    case ErrorCode::kMapFailed: return "map-failed";
    case ErrorCode::kTimeout: return "timeout";
    case ErrorCode::kInvalidArgument: return "invalid-argument";
  }
  return "unknown";
}

std::string WebGpuLibraryPath() {
  if (const char* env = std::getenv("ALKNET_WEBGPU_LIBRARY"); env != nullptr && *env != '\0') {
    return env;
  }
  return ALKNET_DEFAULT_WEBGPU_LIBRARY;
}

Result<const Procs*> LoadProcsFrom(const std::string& path) {
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | kDeepBind);
  if (lib == nullptr) {
    const char* why = dlerror();
    return Error{ErrorCode::kLibraryNotFound, "cannot load the WebGPU library '" + path + "': " +
                                                  (why ? why : "unknown") + ". " + kFixHint};
  }
  auto procs = std::make_unique<Procs>();
  std::string missing;
#define ALKNET_WGPU_RESOLVE_PROC(name, ret, params)                        \
  procs->name = reinterpret_cast<ret(*) params>(dlsym(lib, "wgpu" #name)); \
  if (procs->name == nullptr) missing += std::string(missing.empty() ? "" : ", ") + "wgpu" #name;
  ALKNET_WGPU_PROCS(ALKNET_WGPU_RESOLVE_PROC)
#undef ALKNET_WGPU_RESOLVE_PROC
  if (!missing.empty()) {
    dlclose(lib);
    return Error{ErrorCode::kSymbolMissing,
                 "the WebGPU library '" + path + "' lacks " + missing +
                     "; it does not implement the webgpu.h revision alknet was built for. " +
                     kFixHint};
  }
  // The library stays loaded for the life of the process: objects it created may outlive
  // any owner we could give it.
  return procs.release();
}

Result<const Procs*> LoadProcs() {
  static std::once_flag once;
  static Result<const Procs*>* result = nullptr;
  std::call_once(once, [] {
    result = new Result<const Procs*>(LoadProcsFrom(WebGpuLibraryPath()));
    if (result->ok()) g_procs = result->value();
  });
  return *result;
}

const Procs& P() { return *g_procs; }

}  // namespace alknet::webgpu
