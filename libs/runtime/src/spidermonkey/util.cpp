// Strings, errors and bytes between SpiderMonkey and C++.
#include <cstring>

#include "text_codec.h"
#include "spidermonkey/sm.h"

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

bool ThrowError(JSContext* cx, std::string_view message, std::string_view name) {
  JS::RootedString msg(cx, NewString(cx, message));
  if (!msg) return false;
  JS::RootedValue error(cx);
  if (!JS::CreateError(cx, JSEXN_ERR, nullptr, nullptr, 0, 0, nullptr, msg,
                       JS::NothingHandleValue, &error)) {
    return false;
  }
  if (name != "Error") {
    JS::RootedObject obj(cx, &error.toObject());
    JS::RootedString n(cx, NewString(cx, name));
    if (!n || !JS_DefineProperty(cx, obj, "name", n, 0)) return false;
  }
  JS_SetPendingException(cx, error);
  return false;
}

bool ThrowTypeError(JSContext* cx, std::string_view message) {
  JS::RootedString msg(cx, NewString(cx, message));
  if (!msg) return false;
  JS::RootedValue error(cx);
  if (!JS::CreateError(cx, JSEXN_TYPEERR, nullptr, nullptr, 0, 0, nullptr, msg,
                       JS::NothingHandleValue, &error)) {
    return false;
  }
  JS_SetPendingException(cx, error);
  return false;
}

bool ThrowStatus(JSContext* cx, const Error& error, std::string_view name) {
  if (error.message.rfind("Requires ", 0) == 0) return ThrowError(cx, error.message, "PermissionDenied");
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
