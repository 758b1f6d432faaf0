// Native cores defined outside alknet-runtime. The runtime cannot link alknet-compute (compute
// sits above it, see ARCHITECTURE.md and docs/adr/0003-runtime-modules.md), so the library
// that owns alknet:compute and alknet:tensor (alknet-runtime-modules) adds its cores here when
// the application installs it, before any Runtime is created. The JS halves (js/*.js) are
// always embedded; a module whose core is missing throws a clear error when imported.
#pragma once

#include <string_view>

#include "spidermonkey/sm.h"

namespace alknet::runtime::sm {

using DefineNativeCore = bool (*)(JSContext*, JS::HandleObject);

// Not thread-safe: call during start-up, before the first Runtime.
void RegisterNativeCore(std::string_view module, DefineNativeCore define);

// alknet:call (call_core.cpp).
bool DefineCallCore(JSContext* cx, JS::HandleObject core);

}  // namespace alknet::runtime::sm
