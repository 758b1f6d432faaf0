// Session, the ONNX half of alknet:compute (alknet-onnx), added to alknet:compute's native core;
// install alknet:compute too.
#pragma once

namespace alknet::ext {

// Registers the module with the runtime (alknet/runtime/native_module.h). Call once, before
// the first Runtime is created.
void InstallOnnxModule();

}  // namespace alknet::ext
