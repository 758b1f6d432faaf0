#include "alknet/runtime/modules.h"

#include "modules_internal.h"

namespace alknet::runtime {

void InstallComputeModules() {
  sm::RegisterNativeCore("compute", &sm::modules::DefineComputeCore);
  sm::RegisterNativeCore("tensor", &sm::modules::DefineTensorCore);
}

}  // namespace alknet::runtime
