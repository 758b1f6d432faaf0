// Shared by the native cores of alknet-runtime-modules (alknet:compute, alknet:tensor).
#pragma once

#include <cstring>
#include <vector>

#include "spidermonkey/native_core_registry.h"
#include "spidermonkey/sm.h"

namespace alknet::runtime::sm::modules {

bool DefineComputeCore(JSContext* cx, JS::HandleObject core);
bool DefineTensorCore(JSContext* cx, JS::HandleObject core);

// An ArrayBuffer holding a copy of `bytes`.
inline JSObject* NewArrayBufferFrom(JSContext* cx, const std::vector<std::byte>& bytes) {
  JS::RootedObject buf(cx, JS::NewArrayBuffer(cx, bytes.size()));
  if (!buf) return nullptr;
  JS::AutoCheckCannotGC nogc;
  bool shared = false;
  if (!bytes.empty()) std::memcpy(JS::GetArrayBufferData(buf, &shared, nogc), bytes.data(), bytes.size());
  return buf;
}

}  // namespace alknet::runtime::sm::modules
