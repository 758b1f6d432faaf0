// The native half of the realm's Web APIs; js/internal/prelude.js builds console, timers,
// TextEncoder/TextDecoder, atob/btoa, structuredClone, crypto and performance on top of it.
#include <js/ArrayBuffer.h>
#include <js/StructuredClone.h>
#include <openssl/evp.h>
#include <sys/random.h>

#include <cerrno>
#include <chrono>
#include <cmath>

#include "spidermonkey/sm.h"
#include "text_codec.h"

namespace alknet::runtime::sm {

namespace {

using Clock = std::chrono::steady_clock;
const Clock::time_point kTimeOrigin = Clock::now();
const double kTimeOriginWallMs =
    std::chrono::duration<double, std::milli>(std::chrono::system_clock::now().time_since_epoch())
        .count();

bool Print(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  std::string text;
  if (!ValueToUtf8(cx, args.get(1), &text)) return false;
  auto stream = args.get(0).toNumber() == 2 ? OutputStream::kStderr : OutputStream::kStdout;
  SmEngine::From(cx)->host().write(stream, text);
  args.rval().setUndefined();
  return true;
}

bool Now(JSContext*, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  args.rval().setDouble(
      std::chrono::duration<double, std::milli>(Clock::now() - kTimeOrigin).count());
  return true;
}

bool TimeOrigin(JSContext*, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  args.rval().setDouble(kTimeOriginWallMs);
  return true;
}

bool SetTimer(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  double delay = 0;
  if (!JS::ToNumber(cx, args.get(0), &delay)) return false;
  if (!std::isfinite(delay) || delay < 0) delay = 0;
  delay = std::min(delay, 2147483647.0);
  auto id = SmEngine::From(cx)->host().loop->AddTimer(
      std::chrono::milliseconds(static_cast<int64_t>(delay)), JS::ToBoolean(args.get(1)));
  args.rval().setNumber(static_cast<double>(id));
  return true;
}

bool ClearTimer(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  double id = 0;
  if (!JS::ToNumber(cx, args.get(0), &id)) return false;
  if (id >= 1 && id == std::floor(id))
    SmEngine::From(cx)->host().loop->ClearTimer(static_cast<uint64_t>(id));
  args.rval().setUndefined();
  return true;
}

bool SetTimerHandler(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  if (!args.get(0).isObject() || !JS::IsCallable(&args.get(0).toObject())) {
    return ThrowTypeError(cx, "setTimerHandler needs a function");
  }
  SmEngine::From(cx)->SetTimerHandler(&args.get(0).toObject());
  args.rval().setUndefined();
  return true;
}

bool EnqueueJob(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  if (!args.get(0).isObject() || !JS::IsCallable(&args.get(0).toObject())) {
    return ThrowTypeError(cx, "enqueueJob needs a function");
  }
  JS::RootedObject job(cx, &args.get(0).toObject());
  if (!SmEngine::From(cx)->jobs().Enqueue(cx, job)) return false;
  args.rval().setUndefined();
  return true;
}

bool EncodeUtf8(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  JS::RootedString s(cx, JS::ToString(cx, args.get(0)));
  if (!s) return false;
  std::string bytes = text::EncodeUtf8(ToU16(cx, s));
  JSObject* arr =
      NewUint8Array(cx, std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  if (!arr) return false;
  args.rval().setObject(*arr);
  return true;
}

bool EncodeUtf8Into(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  JS::RootedString s(cx, JS::ToString(cx, args.get(0)));
  if (!s) return false;
  std::u16string in = ToU16(cx, s);
  text::EncodeIntoResult r;
  {
    JS::AutoCheckCannotGC nogc;
    auto bytes = BytesOf(args.get(1), nogc);
    if (!bytes) return ThrowTypeError(cx, "encodeInto: the destination must be a Uint8Array");
    r = text::EncodeUtf8Into(in, *bytes);
  }
  JS::RootedValueArray<2> pair(cx);
  pair[0].setNumber(static_cast<double>(r.read));
  pair[1].setNumber(static_cast<double>(r.written));
  JSObject* arr = JS::NewArrayObject(cx, pair);
  if (!arr) return false;
  args.rval().setObject(*arr);
  return true;
}

// decodeUtf8(bytes, fatal, stream) -> [string, bytesConsumed]
bool DecodeUtf8(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  std::u16string out;
  text::DecodeResult r;
  {
    JS::AutoCheckCannotGC nogc;
    auto bytes = BytesOf(args.get(0), nogc);
    if (!bytes) {
      return ThrowTypeError(cx, "The \"input\" argument must be an ArrayBuffer or ArrayBufferView");
    }
    r = text::DecodeUtf8(*bytes, JS::ToBoolean(args.get(1)), JS::ToBoolean(args.get(2)), out);
  }
  if (!r.ok) return ThrowTypeError(cx, "The encoded data was not valid for encoding utf-8");
  JS::RootedValueArray<2> pair(cx);
  JSString* str = NewString16(cx, out);
  if (!str) return false;
  pair[0].setString(str);
  pair[1].setNumber(static_cast<double>(r.consumed));
  JSObject* arr = JS::NewArrayObject(cx, pair);
  if (!arr) return false;
  args.rval().setObject(*arr);
  return true;
}

bool FillRandom(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  JS::AutoCheckCannotGC nogc;
  auto bytes = BytesOf(args.get(0), nogc);
  if (!bytes) return ThrowTypeError(cx, "getRandomValues needs an integer typed array");
  size_t done = 0;
  while (done < bytes->size()) {
    ssize_t n = getrandom(bytes->data() + done, bytes->size() - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ThrowError(cx, "the system random source failed", "OperationError");
    done += static_cast<size_t>(n);
  }
  args.rval().set(args.get(0));
  return true;
}

bool StructuredClone(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  JS::RootedValue out(cx);
  if (!JS_StructuredClone(cx, args.get(0), &out, nullptr, nullptr)) return false;
  args.rval().set(out);
  return true;
}

// detachArrayBuffer(ab): the sender's side of a transfer (structuredClone / postMessage).
bool DetachArrayBufferFn(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  if (!args.get(0).isObject() || !JS::IsArrayBufferObject(&args.get(0).toObject()))
    return ThrowTypeError(cx, "detachArrayBuffer: not an ArrayBuffer");
  JS::RootedObject ab(cx, &args.get(0).toObject());
  if (!JS::DetachArrayBuffer(cx, ab)) return false;
  args.rval().setUndefined();
  return true;
}

// isDetachedArrayBuffer(ab)
bool IsDetachedFn(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  args.rval().setBoolean(args.get(0).isObject() &&
                         JS::IsArrayBufferObject(&args.get(0).toObject()) &&
                         JS::IsDetachedArrayBufferObject(&args.get(0).toObject()));
  return true;
}

// promiseState(p) -> -1 not a promise, 0 pending, 1 fulfilled, 2 rejected (for inspect).
bool PromiseState(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  int state = -1;
  if (args.get(0).isObject()) {
    JS::RootedObject p(cx, &args.get(0).toObject());
    if (JS::IsPromiseObject(p)) state = static_cast<int>(JS::GetPromiseState(p));
  }
  args.rval().setInt32(state);
  return true;
}

bool PromiseResult(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  args.rval().setUndefined();
  if (args.get(0).isObject()) {
    JS::RootedObject p(cx, &args.get(0).toObject());
    if (JS::IsPromiseObject(p) && JS::GetPromiseState(p) != JS::PromiseState::Pending) {
      args.rval().set(JS::GetPromiseResult(p));
    }
  }
  return true;
}

// digest(name, bytes) -> Uint8Array; name is already normalised ("SHA-256") by the caller.
bool Digest(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  std::string name;
  if (!ValueToUtf8(cx, args.get(0), &name)) return false;
  const EVP_MD* md = name == "SHA-1"     ? EVP_sha1()
                     : name == "SHA-256" ? EVP_sha256()
                     : name == "SHA-384" ? EVP_sha384()
                     : name == "SHA-512" ? EVP_sha512()
                                         : nullptr;
  if (md == nullptr) return ThrowError(cx, "unsupported digest " + name, "NotSupportedError");
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int out_len = 0;
  bool ok;
  {
    JS::AutoCheckCannotGC nogc;
    auto bytes = BytesOf(args.get(1), nogc);
    if (!bytes) return ThrowTypeError(cx, "digest: data must be an ArrayBuffer or ArrayBufferView");
    ok = EVP_Digest(bytes->data(), bytes->size(), out, &out_len, md, nullptr) == 1;
  }
  if (!ok) return ThrowError(cx, "digest failed", "OperationError");
  JSObject* arr = NewUint8Array(cx, std::span<const uint8_t>(out, out_len));
  if (!arr) return false;
  args.rval().setObject(*arr);
  return true;
}

const JSFunctionSpec kWebCore[] = {JS_FN("digest", Digest, 2, 0),
                                   JS_FN("print", Print, 2, 0),
                                   JS_FN("now", Now, 0, 0),
                                   JS_FN("timeOrigin", TimeOrigin, 0, 0),
                                   JS_FN("setTimer", SetTimer, 2, 0),
                                   JS_FN("clearTimer", ClearTimer, 1, 0),
                                   JS_FN("setTimerHandler", SetTimerHandler, 1, 0),
                                   JS_FN("enqueueJob", EnqueueJob, 1, 0),
                                   JS_FN("encodeUtf8", EncodeUtf8, 1, 0),
                                   JS_FN("encodeUtf8Into", EncodeUtf8Into, 2, 0),
                                   JS_FN("decodeUtf8", DecodeUtf8, 3, 0),
                                   JS_FN("fillRandom", FillRandom, 1, 0),
                                   JS_FN("structuredClone", StructuredClone, 1, 0),
                                   JS_FN("detachArrayBuffer", DetachArrayBufferFn, 1, 0),
                                   JS_FN("isDetachedArrayBuffer", IsDetachedFn, 1, 0),
                                   JS_FN("promiseState", PromiseState, 1, 0),
                                   JS_FN("promiseResult", PromiseResult, 1, 0),
                                   JS_FS_END};

}  // namespace

bool DefineWebCore(JSContext* cx, JS::HandleObject core) {
  return JS_DefineFunctions(cx, core, kWebCore);
}

}  // namespace alknet::runtime::sm
