// alknet:tensor, metatensor files from JavaScript (read() with mmap, write()).
#pragma once

namespace alknet::ext {

// Registers the module with the runtime (alknet/runtime/native_module.h). Call once, before
// the first Runtime is created.
void InstallTensorModule();

}  // namespace alknet::ext
