#include "js_host.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "alknet/call-grpc/remote.h"
#include "alknet/ext/call.h"
#include "alknet/ext/compute.h"
#include "alknet/ext/onnx.h"
#include "alknet/ext/tensor.h"
#include "command.h"
#include "registry_setup.h"

namespace alknet::cli {

int CreateJsRuntime(std::string_view command, runtime::RuntimeOptions options,
                    std::unique_ptr<runtime::Runtime>* out) {
  const std::string name(command);
  if (!options.calls) {
    auto calls = OpenTarget(TargetFlags{});
    if (!calls) {
      std::fprintf(stderr, "alknet %s: %s\n", name.c_str(), calls.error().ToString().c_str());
      return kExitEnvironment;
    }
    options.calls = std::shared_ptr<call::CallTarget>(std::move(*calls));
  }
  options.connect_remote = call::RemoteRegistry::Connector();
  options.on_gpu_hang = [name](std::chrono::milliseconds timeout) {
    // The stuck work cannot be cancelled and the device cannot be released behind it, so
    // unwinding would hang in teardown: report and leave now.
    std::fprintf(stderr,
                 "alknet %s: GPU work made no progress for %lld ms (a shader that never ends?); "
                 "exiting. Raise --gpu-timeout=MS if the work is just slow.\n",
                 name.c_str(), static_cast<long long>(timeout.count()));
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(kExitGpuHang);
  };
  static std::once_flag installed;
  std::call_once(installed, [] {
    ext::InstallCallModule();
    ext::InstallTensorModule();
    ext::InstallComputeModule();
    ext::InstallOnnxModule();
  });
  const bool has_import_map = options.import_map.has_value();
  auto runtime = runtime::Runtime::Create(std::move(options));
  if (!runtime) {
    std::fprintf(stderr, "alknet %s: %s\n", name.c_str(), runtime.error().message.c_str());
    return has_import_map ? kExitUsage : kExitEnvironment;
  }
  *out = std::move(*runtime);
  return kExitOk;
}

}  // namespace alknet::cli
