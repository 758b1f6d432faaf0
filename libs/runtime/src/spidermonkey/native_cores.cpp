// Which built-in modules have a native half. The modules themselves are js/*.js (their list
// comes from the build); a module without an entry here is pure JavaScript, and modules whose
// core lives in another library register it through native_core_registry.h.
#include <string>
#include <vector>

#include "spidermonkey/native_core_registry.h"
#include "spidermonkey/sm.h"

namespace alknet::runtime::sm {

namespace {
struct NativeCore {
  std::string_view module;
  DefineNativeCore define;
};
constexpr NativeCore kNativeCores[] = {
    {"call", &DefineCallCore},
    {"fs", &DefineFsCore},
    {"process", &DefineProcessCore},
};

std::vector<std::pair<std::string, DefineNativeCore>>& ExternalCores() {
  static std::vector<std::pair<std::string, DefineNativeCore>> cores;
  return cores;
}

JSObject* Create(JSContext* cx, DefineNativeCore define) {
  JS::RootedObject obj(cx, JS_NewPlainObject(cx));
  if (!obj || !define(cx, obj)) return nullptr;
  return obj;
}
}  // namespace

void RegisterNativeCore(std::string_view module, DefineNativeCore define) {
  for (auto& [name, fn] : ExternalCores()) {
    if (name == module) {
      fn = define;
      return;
    }
  }
  ExternalCores().emplace_back(std::string(module), define);
}

JSObject* CreateNativeCore(JSContext* cx, std::string_view module) {
  for (const auto& core : kNativeCores) {
    if (core.module == module) return Create(cx, core.define);
  }
  for (const auto& [name, define] : ExternalCores()) {
    if (name == module) return Create(cx, define);
  }
  return nullptr;
}

}  // namespace alknet::runtime::sm
