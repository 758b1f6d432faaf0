// alknet:call, the call registry from JavaScript (call(), list(), register(), connect()). connect()
// opens remote targets through the host's RemoteConnector (RuntimeOptions::connect_remote).
#pragma once

namespace alknet::ext {

// Registers the module with the runtime (alknet/runtime/native_module.h). Call once, before
// the first Runtime is created.
void InstallCallModule();

}  // namespace alknet::ext
