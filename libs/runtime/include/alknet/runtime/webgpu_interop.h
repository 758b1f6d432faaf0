// The WebGPU JS binding's objects, for extensions that hand WebGPU objects to scripts or take
// them back (libs/desktop's GPUCanvasContext: the device a script configures it with, the
// surface texture getCurrentTexture() returns). Engine side of the seam: SpiderMonkey types,
// like native_module.h.
#pragma once

#include <atomic>
#include <memory>
#include <string_view>

#include "alknet/runtime/native_module.h"
#include "alknet/webgpu/webgpu_abi.h"

namespace alknet::runtime::sm {

// The instance behind navigator.gpu (created on first use), so that a surface and the
// adapters the script asks for come from the same instance; nullptr with an exception pending
// when WebGPU cannot be loaded.
WGPUInstance GpuInstance(JSContext* cx);
// The device of a JS GPUDevice (not a new reference); nullptr with a TypeError pending when
// `value` is not one. `what` names the argument in the message.
WGPUDevice UnwrapGpuDevice(JSContext* cx, JS::HandleValue value, std::string_view what);
// A flag that becomes true when that GPUDevice is destroyed or lost (read from any thread);
// nullptr with a TypeError pending when `value` is not a GPUDevice.
std::shared_ptr<const std::atomic<bool>> GpuDeviceGone(JSContext* cx, JS::HandleValue value,
                                                       std::string_view what);
// A JS GPUTexture holding a new reference to `texture`.
JSObject* WrapGpuTexture(JSContext* cx, WGPUTexture texture, std::string_view label);
// The pending exception as an Error ("Uncaught ..." with its stack), as timers report one;
// Ok when the script asked to exit (the uncatchable stop of alknet:process exit()).
Status TakePendingException(JSContext* cx);

}  // namespace alknet::runtime::sm
