// alknet:compute, tensors and ops on alknet-compute's device from JavaScript. Its Session needs
// InstallOnnxModule() as well.
#pragma once

namespace alknet::ext {

// Registers the module with the runtime (alknet/runtime/native_module.h). Call once, before
// the first Runtime is created.
void InstallComputeModule();

}  // namespace alknet::ext
