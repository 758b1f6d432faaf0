// The native half of alknet:fs (js/fs.js). Every access is checked against --allow-read /
// --allow-write first.
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "spidermonkey/sm.h"

namespace alknet::runtime::sm {

namespace {

bool PathArg(JSContext* cx, const JS::CallArgs& args, std::filesystem::path* out) {
  if (!args.get(0).isString()) return ThrowTypeError(cx, "the path must be a string");
  *out = ToUtf8(cx, args.get(0).toString());
  return true;
}

// What a script may read in one call: a JS string holds at most 2^30 - 2 characters.
constexpr uint64_t kMaxReadBytes = 1ull << 30;

// A failed open: PermissionDenied for a denial, NotFound for a missing file, else Error.
bool ThrowOpenError(JSContext* cx, const Error& error) {
  const bool missing = error.message.find(std::strerror(ENOENT)) != std::string::npos;
  return ThrowStatus(cx, error, missing ? "NotFound" : "Error");
}

// Opened through the permissions (alknet/base/file.h beneath the grant): the file judged is
// the file read, and a FIFO or device is refused instead of blocking.
bool ReadAll(JSContext* cx, const std::filesystem::path& path, std::string* out) {
  auto data = SmEngine::From(cx)->host().permissions->ReadFile(path, kMaxReadBytes);
  if (!data) return ThrowOpenError(cx, data.error());
  *out = std::move(data).value();
  return true;
}

bool WriteAll(JSContext* cx, const std::filesystem::path& path, std::string_view data) {
  auto fd = SmEngine::From(cx)->host().permissions->OpenWrite(path);
  if (!fd) return ThrowOpenError(cx, fd.error());
  for (size_t done = 0; done < data.size();) {
    const ssize_t k = ::write(fd->get(), data.data() + done, data.size() - done);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return ThrowError(cx, "cannot write " + path.string() + ": " + std::strerror(errno));
    done += static_cast<size_t>(k);
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
