// Strings, errors and bytes between SpiderMonkey and C++.
#include <cstring>

#include <js/CallAndConstruct.h>

#include "spidermonkey/sm.h"
#include "text_codec.h"

namespace alknet::runtime::sm {

std::u16string ToU16(JSContext* cx, JSString* str) {
  std::u16string out(JS_GetStringLength(str), u'\0');
  if (!JS_CopyStringChars(cx, mozilla::Range<char16_t>(out.data(), out.size()), str)) return {};
  return out;
}

std::string ToUtf8(JSContext* cx, JSString* str) { return text::EncodeUtf8(ToU16(cx, str)); }

bool ValueToUtf8(JSContext* cx, JS::HandleValue value, std::string* out) {
  JS::RootedString s(cx, JS::ToString(cx, value));
  if (!s) return false;
  *out = ToUtf8(cx, s);
  return true;
}

JSString* NewString(JSContext* cx, std::string_view utf8) {
  return JS_NewStringCopyUTF8N(cx, JS::UTF8Chars(utf8.data(), utf8.size()));
}

JSString* NewString16(JSContext* cx, std::u16string_view s) {
  return JS_NewUCStringCopyN(cx, s.data(), s.size());
}

namespace {
// `new <ctor>(message)` through the realm's own constructor, so the error has a stack.
bool Throw(JSContext* cx, const char* ctor, std::string_view message, std::string_view name) {
  JS::RootedObject global(cx, JS::CurrentGlobalOrNull(cx));
  JS::RootedValue ctor_value(cx);
  if (!global || !JS_GetProperty(cx, global, ctor, &ctor_value)) return false;
  JS::RootedValue msg(cx);
  JSString* str = NewString(cx, message);
  if (!str) return false;
  msg.setString(str);
  JS::RootedObject error(cx);
  if (!JS::Construct(cx, ctor_value, JS::HandleValueArray(msg), &error)) return false;
  if (!name.empty()) {
    JS::RootedString n(cx, NewString(cx, name));
    if (!n || !JS_DefineProperty(cx, error, "name", n, 0)) return false;
  }
  JS::RootedValue error_value(cx, JS::ObjectValue(*error));
  JS_SetPendingException(cx, error_value);
  return false;
}
}  // namespace

bool ThrowError(JSContext* cx, std::string_view message, std::string_view name) {
  if (name == "TypeError") return Throw(cx, "TypeError", message, {});
  return Throw(cx, "Error", message, name == "Error" ? std::string_view() : name);
}

bool ThrowTypeError(JSContext* cx, std::string_view message) {
  return Throw(cx, "TypeError", message, {});
}

const HostServices& HostOf(JSContext* cx) { return SmEngine::From(cx)->host(); }

bool ThrowStatus(JSContext* cx, const Error& error, std::string_view name) {
  if (error.message.rfind("Requires ", 0) == 0)
    return ThrowError(cx, error.message, "PermissionDenied");
  return ThrowError(cx, error.message, name);
}

std::optional<std::span<uint8_t>> BytesOf(JS::HandleValue value, const JS::AutoRequireNoGC& nogc) {
  if (!value.isObject()) return std::nullopt;
  JSObject* obj = &value.toObject();
  bool shared = false;
  if (JS_IsArrayBufferViewObject(obj)) {
    auto* data = static_cast<uint8_t*>(JS_GetArrayBufferViewData(obj, &shared, nogc));
    return std::span<uint8_t>(data, JS_GetArrayBufferViewByteLength(obj));
  }
  if (JS::IsArrayBufferObject(obj)) {
    uint8_t* data = JS::GetArrayBufferData(obj, &shared, nogc);
    return std::span<uint8_t>(data, JS::GetArrayBufferByteLength(obj));
  }
  return std::nullopt;
}

JSObject* NewUint8Array(JSContext* cx, std::span<const uint8_t> bytes) {
  JS::RootedObject arr(cx, JS_NewUint8Array(cx, bytes.size()));
  if (!arr) return nullptr;
  JS::AutoCheckCannotGC nogc;
  bool shared = false;
  if (!bytes.empty()) {
    std::memcpy(JS_GetArrayBufferViewData(arr, &shared, nogc), bytes.data(), bytes.size());
  }
  return arr;
}

}  // namespace alknet::runtime::sm
