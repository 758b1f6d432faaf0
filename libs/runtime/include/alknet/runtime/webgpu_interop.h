// The WebGPU JS binding's objects, for extensions that hand WebGPU objects to scripts or take
// them back (libs/desktop's GPUCanvasContext: the device a script configures it with, the
// surface texture getCurrentTexture() returns). Engine side of the seam: SpiderMonkey types,
// like native_module.h.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>

#include "alknet/runtime/native_module.h"
#include "alknet/webgpu/webgpu_abi.h"

namespace alknet::webgpu {
class Context;
}

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
// The instance a JS GPUDevice's futures and surfaces belong to: navigator.gpu's for devices
// from requestDevice(), the Context's for WrapContextDevice's; nullptr with a TypeError pending
// when `value` is not a GPUDevice.
WGPUInstance GpuDeviceInstance(JSContext* cx, JS::HandleValue value, std::string_view what);
// A new JS GPUDevice over `context`'s device (alknet:compute's, so that a script renders with
// the device its tensors live on). The Context must outlive the engine. Its instance is pumped
// by the loop beside navigator.gpu's; the errors no scope caught and the loss, which the
// Context's own callbacks collect, reach the GPUDevice (uncapturederror, device.lost).
JSObject* WrapContextDevice(JSContext* cx, webgpu::Context& context, std::string_view label);
// A JS GPUBuffer over `buffer` (a new reference), lent by its owner: `owner` is kept alive with
// it, and destroy() is refused. `device` is the JS GPUDevice it belongs to.
JSObject* WrapLentGpuBuffer(JSContext* cx, JS::HandleValue device, WGPUBuffer buffer, uint64_t size,
                            uint64_t usage, std::shared_ptr<const void> owner,
                            std::string_view label);
// A JS GPUTexture holding a new reference to `texture`.
JSObject* WrapGpuTexture(JSContext* cx, WGPUTexture texture, std::string_view label);
// The pending exception as an Error ("Uncaught ..." with its stack), as timers report one;
// Ok when the script asked to exit (the uncatchable stop of alknet:process exit()).
Status TakePendingException(JSContext* cx);

}  // namespace alknet::runtime::sm
