// The op table and SHA-256 as registry calls, so they run locally or remotely through
// `alknet serve` the same way:
//   compute.<op>(inputs: list, attrs: map?, opset: int?) -> tensor   (one per op: the ONNX
//                                                                      name in snake_case,
//                                                                      compute.leaky_relu)
//   crypto.sha256(messages: list) -> list                            (bytes or u8 tensors in,
//                                                                      32-byte digests out)
// The device is opened on the first call (lavapipe without a GPU); calls are serialised on
// it, because one WebGPU queue runs one command stream anyway.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "alknet/call/registry.h"

namespace alknet::webgpu {
class Context;
}

namespace alknet::compute {

class Executor;

call::Component ComputeComponent();

// The device behind these calls, for a server's health and stats (alknet serve).
struct DeviceStatus {
  bool opened = false;  // the first compute call opens it
  bool lost = false;    // a lost device fails every call: the server reports NOT_SERVING
  std::string lost_message;
  std::string adapter;
  std::uint64_t max_buffer_bytes = 0;
  int queue_depth = 0;  // calls waiting for the device behind the one running
};
DeviceStatus DeviceStatusNow();
// Runs `fn` with the device these calls share held (opened on first use), so that a call
// built on alknet-compute in a higher layer (alknet's onnx.run) takes turns with compute.*
// and crypto.sha256. While it waits for the device it gives up as soon as `ctx` is cancelled
// or past its deadline; a lost device is kUnavailable.
call::Result<call::Value> RunOnDevice(
    const call::CallContext& ctx,
    const std::function<call::Result<call::Value>(webgpu::Context&, Executor&)>& fn);
// "LeakyRelu" -> "compute.leaky_relu", "MatMul" -> "compute.mat_mul", "PRelu" -> "compute.prelu".
std::string CallNameOf(std::string_view op);

}  // namespace alknet::compute
