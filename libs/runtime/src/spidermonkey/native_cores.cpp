// Which built-in modules have a native half. The modules themselves are js/*.js (their list
// comes from the build); a module without an entry here is pure JavaScript.
#include "spidermonkey/sm.h"

namespace alknet::runtime::sm {

namespace {
struct NativeCore {
  std::string_view module;
  bool (*define)(JSContext*, JS::HandleObject);
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
  return nullptr;
}

}  // namespace alknet::runtime::sm
