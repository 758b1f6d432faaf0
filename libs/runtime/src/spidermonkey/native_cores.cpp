// Which built-in modules have a native half. The runtime's own modules are js/*.js (their list
// comes from the build) with the cores below; extensions (libs/ext/<name>/) register their JS
// source and core through alknet/runtime/native_module.h.
#include <string>
#include <vector>

#include "extensions.h"
#include "spidermonkey/sm.h"

namespace alknet::runtime {

namespace {
struct Extension {
  std::string name;
  std::string_view js_source;
  std::vector<DefineNativeCore> defines;
};

std::vector<Extension>& Extensions() {
  static std::vector<Extension> extensions;
  return extensions;
}

Extension* FindExtension(std::string_view name) {
  for (auto& e : Extensions()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}
}  // namespace

void RegisterNativeModule(std::string_view name, std::string_view js_source,
                          DefineNativeCore define) {
  Extension* e = FindExtension(name);
  if (e == nullptr) e = &Extensions().emplace_back(Extension{std::string(name), {}, {}});
  e->js_source = js_source;
  e->defines.clear();
  if (define != nullptr) e->defines.push_back(define);
}

void ExtendNativeCore(std::string_view name, DefineNativeCore define) {
  Extension* e = FindExtension(name);
  if (e == nullptr) e = &Extensions().emplace_back(Extension{std::string(name), {}, {}});
  e->defines.push_back(define);
}

std::vector<std::string> ExtensionModuleNames() {
  std::vector<std::string> names;
  for (const auto& e : Extensions()) {
    if (!e.js_source.empty()) names.push_back(e.name);
  }
  return names;
}

std::optional<std::string_view> ExtensionModuleSource(std::string_view name) {
  const Extension* e = FindExtension(name);
  if (e == nullptr || e->js_source.empty()) return std::nullopt;
  return e->js_source;
}

namespace sm {

namespace {
struct NativeCore {
  std::string_view module;
  DefineNativeCore define;
};
constexpr NativeCore kNativeCores[] = {
    {"fs", &DefineFsCore},
    {"process", &DefineProcessCore},
};
}  // namespace

JSObject* CreateNativeCore(JSContext* cx, std::string_view module) {
  for (const auto& core : kNativeCores) {
    if (core.module != module) continue;
    JS::RootedObject obj(cx, JS_NewPlainObject(cx));
    if (!obj || !core.define(cx, obj)) return nullptr;
    return obj;
  }
  const Extension* e = FindExtension(module);
  if (e == nullptr || e->defines.empty()) return nullptr;
  JS::RootedObject obj(cx, JS_NewPlainObject(cx));
  if (!obj) return nullptr;
  for (DefineNativeCore define : e->defines) {
    if (!define(cx, obj)) return nullptr;
  }
  return obj;
}

}  // namespace sm
}  // namespace alknet::runtime
