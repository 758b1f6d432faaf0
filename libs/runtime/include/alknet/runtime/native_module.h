// Extensions: built-in modules whose code lives outside alknet-runtime (libs/ext/<name>/, in
// the style of deno's ext/). An extension embeds its JS half and registers it with its native
// core before the first Runtime is created:
//
//   alknet::runtime::RegisterNativeModule("tensor", kTensorJs, &DefineTensorCore);
//
// after which `import ... from "alknet:tensor"` loads that source, whose `import.meta.native`
// is the object the core defined. This header is the engine side of the seam (SpiderMonkey
// types), for extension cores only; hosts call the extensions' Install functions.
#pragma once

#include <js/Array.h>
#include <js/ArrayBuffer.h>
#include <js/Conversions.h>
#include <js/Exception.h>
#include <js/Object.h>
#include <js/Promise.h>
#include <js/PropertyAndElement.h>
#include <js/String.h>
#include <js/experimental/TypedData.h>
#include <jsapi.h>
#include <jsfriendapi.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "alknet/runtime/engine.h"
#include "alknet/runtime/result.h"

namespace alknet::runtime {

// Defines the functions of a module's native core on `core`; false with an exception pending.
using DefineNativeCore = bool (*)(JSContext* cx, JS::HandleObject core);

// Registers `alknet:<name>`. `js_source` must outlive the process (embedded data); `define` may
// be null for a module without native code. Registering a name again replaces it. Not
// thread-safe: call during start-up.
void RegisterNativeModule(std::string_view name, std::string_view js_source,
                          DefineNativeCore define);
// Adds functions to a registered module's core: alknet-onnx puts Session's native half on
// alknet:compute's core, so the JS API stays where users look for it while alknet-compute's
// extension does not depend on alknet-onnx.
void ExtendNativeCore(std::string_view name, DefineNativeCore define);

namespace sm {

// What the host gave the engine running on `cx` (permissions, the call target, the loop).
const HostServices& HostOf(JSContext* cx);

// ---- strings and errors, for natives ---------------------------------------------------------
std::string ToUtf8(JSContext* cx, JSString* str);
// ToString(value) as UTF-8; false with an exception pending if ToString threw.
bool ValueToUtf8(JSContext* cx, JS::HandleValue value, std::string* out);
JSString* NewString(JSContext* cx, std::string_view utf8);
// Throws `new Error(message)` with error.name = name. Always returns false, for
// `return ThrowError(...)` in natives.
bool ThrowError(JSContext* cx, std::string_view message, std::string_view name = "Error");
bool ThrowTypeError(JSContext* cx, std::string_view message);
// Throws a runtime Error (a permission denial gets name "PermissionDenied").
bool ThrowStatus(JSContext* cx, const Error& error, std::string_view name = "Error");

// The bytes of an ArrayBuffer or ArrayBufferView; nullopt if `value` is neither. The span is
// valid until the next GC-capable call.
std::optional<std::span<uint8_t>> BytesOf(JS::HandleValue value, const JS::AutoRequireNoGC& nogc);
JSObject* NewUint8Array(JSContext* cx, std::span<const uint8_t> bytes);

}  // namespace sm
}  // namespace alknet::runtime
