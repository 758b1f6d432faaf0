// alknet-runtime-modules: the native cores of alknet:compute and alknet:tensor. They need
// alknet-compute, which sits above alknet-runtime, so they live in this library (see
// docs/adr/0003-runtime-modules.md) and the application installs them:
//
//   alknet::runtime::InstallComputeModules();   // once, before the first Runtime::Create
//
// Without it, importing alknet:compute or alknet:tensor throws an error saying so.
#pragma once

namespace alknet::runtime {

void InstallComputeModules();

}  // namespace alknet::runtime
