// alknet/runtime/webgpu_interop.h: the binding's objects for extensions (libs/desktop).
#include "alknet/runtime/webgpu_interop.h"

#include "spidermonkey/webgpu/gpu_common.h"

namespace alknet::runtime::sm {

WGPUInstance GpuInstance(JSContext* cx) { return gpu::Instance(cx); }

WGPUDevice UnwrapGpuDevice(JSContext* cx, JS::HandleValue value, std::string_view what) {
  auto* device = gpu::UnwrapValue<gpu::GPUDevice>(cx, value, what);
  return device == nullptr ? nullptr : device->device.get();
}

std::shared_ptr<const std::atomic<bool>> GpuDeviceGone(JSContext* cx, JS::HandleValue value,
                                                       std::string_view what) {
  auto* device = gpu::UnwrapValue<gpu::GPUDevice>(cx, value, what);
  return device == nullptr ? nullptr : gpu::DeviceGoneFlag(*device->shared);
}

JSObject* WrapGpuTexture(JSContext* cx, WGPUTexture texture, std::string_view label) {
  auto owner = std::make_unique<gpu::GPUTexture>();
  webgpu::P().TextureAddRef(texture);
  owner->texture = webgpu::Texture::Adopt(texture);
  return gpu::WrapLabelled(cx, &gpu::GPUTexture::kClass, std::move(owner), label);
}

Status TakePendingException(JSContext* cx) { return SmEngine::From(cx)->TakeException(); }

}  // namespace alknet::runtime::sm
