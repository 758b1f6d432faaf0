// The native half of alknet:process (js/process.js): arguments, environment, exit.
#include <cstdlib>

#include "spidermonkey/sm.h"

namespace alknet::runtime::sm {

namespace {

bool Args(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  const auto& list = SmEngine::From(cx)->host().args;
  JS::RootedObject arr(cx, JS::NewArrayObject(cx, list.size()));
  if (!arr) return false;
  for (size_t i = 0; i < list.size(); ++i) {
    JS::RootedString s(cx, NewString(cx, list[i]));
    if (!s || !JS_SetElement(cx, arr, static_cast<uint32_t>(i), s)) return false;
  }
  args.rval().setObject(*arr);
  return true;
}

bool EnvGet(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  if (!args.get(0).isString()) return ThrowTypeError(cx, "env.get: the name must be a string");
  std::string name = ToUtf8(cx, args.get(0).toString());
  if (auto s = SmEngine::From(cx)->host().permissions->CheckEnv(name); !s) {
    return ThrowStatus(cx, s.error());
  }
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) {
    args.rval().setUndefined();
    return true;
  }
  JSString* str = NewString(cx, value);
  if (!str) return false;
  args.rval().setString(str);
  return true;
}

bool Exit(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  int32_t code = 0;
  if (!args.get(0).isUndefined() && !JS::ToInt32(cx, args.get(0), &code)) return false;
  SmEngine::From(cx)->RequestExit(code);
  return false;  // no exception pending: the script unwinds without running catch blocks
}

const JSFunctionSpec kProcessCore[] = {JS_FN("args", Args, 0, 0), JS_FN("envGet", EnvGet, 1, 0),
                                       JS_FN("exit", Exit, 1, 0), JS_FS_END};

}  // namespace

bool DefineProcessCore(JSContext* cx, JS::HandleObject core) {
  return JS_DefineFunctions(cx, core, kProcessCore);
}

}  // namespace alknet::runtime::sm
