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
#include <string>
#include <string_view>

#include "alknet/call/registry.h"

namespace alknet::compute {

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
// "LeakyRelu" -> "compute.leaky_relu", "MatMul" -> "compute.mat_mul", "PRelu" -> "compute.prelu".
std::string CallNameOf(std::string_view op);

}  // namespace alknet::compute
