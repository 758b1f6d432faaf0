// The native half of alknet:fs (js/fs.js). Every access is checked against --allow-read /
// --allow-write first.
#include <cstring>
#include <fstream>
#include <sstream>

#include "spidermonkey/sm.h"

namespace alknet::runtime::sm {

namespace {

bool PathArg(JSContext* cx, const JS::CallArgs& args, std::filesystem::path* out) {
  if (!args.get(0).isString()) return ThrowTypeError(cx, "the path must be a string");
  *out = ToUtf8(cx, args.get(0).toString());
  return true;
}

bool ReadAll(JSContext* cx, const std::filesystem::path& path, std::string* out) {
  if (auto s = SmEngine::From(cx)->host().permissions->CheckRead(path); !s) {
    return ThrowStatus(cx, s.error());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return ThrowError(cx, "cannot read " + path.string() + ": " + std::strerror(errno), "NotFound");
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

bool WriteAll(JSContext* cx, const std::filesystem::path& path, std::string_view data) {
  if (auto s = SmEngine::From(cx)->host().permissions->CheckWrite(path); !s) {
    return ThrowStatus(cx, s.error());
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out || !out.write(data.data(), static_cast<std::streamsize>(data.size()))) {
    return ThrowError(cx, "cannot write " + path.string() + ": " + std::strerror(errno));
  }
  return true;
}

bool ReadFile(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  std::filesystem::path path;
  std::string data;
  if (!PathArg(cx, args, &path) || !ReadAll(cx, path, &data)) return false;
  JSObject* arr =
      NewUint8Array(cx, std::span(reinterpret_cast<const uint8_t*>(data.data()), data.size()));
  if (!arr) return false;
  args.rval().setObject(*arr);
  return true;
}

bool ReadTextFile(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  std::filesystem::path path;
  std::string data;
  if (!PathArg(cx, args, &path) || !ReadAll(cx, path, &data)) return false;
  JSString* s = NewString(cx, data);
  if (!s) return false;
  args.rval().setString(s);
  return true;
}

bool WriteFile(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  std::filesystem::path path;
  if (!PathArg(cx, args, &path)) return false;
  std::string data;
  if (args.get(1).isString()) {
    data = ToUtf8(cx, args.get(1).toString());
  } else {
    JS::AutoCheckCannotGC nogc;
    auto bytes = BytesOf(args.get(1), nogc);
    if (!bytes) return ThrowTypeError(cx, "writeFile: data must be a string or a Uint8Array");
    data.assign(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  }
  if (!WriteAll(cx, path, data)) return false;
  args.rval().setUndefined();
  return true;
}

const JSFunctionSpec kFsCore[] = {JS_FN("readFile", ReadFile, 1, 0),
                                  JS_FN("readTextFile", ReadTextFile, 1, 0),
                                  JS_FN("writeFile", WriteFile, 2, 0), JS_FS_END};

}  // namespace

bool DefineFsCore(JSContext* cx, JS::HandleObject core) {
  return JS_DefineFunctions(cx, core, kFsCore);
}

}  // namespace alknet::runtime::sm
