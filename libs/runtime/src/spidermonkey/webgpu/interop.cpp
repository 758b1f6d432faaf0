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

WGPUInstance GpuDeviceInstance(JSContext* cx, JS::HandleValue value, std::string_view what) {
  auto* device = gpu::UnwrapValue<gpu::GPUDevice>(cx, value, what);
  if (device == nullptr) return nullptr;
  for (const gpu::ContextDevice& d : gpu::State(cx).context_devices) {
    if (d.shared == device->shared) return d.context->instance();
  }
  return gpu::Instance(cx);
}

JSObject* WrapContextDevice(JSContext* cx, webgpu::Context& context, std::string_view label) {
  return gpu::NewContextDevice(cx, context, label);
}

JSObject* WrapLentGpuBuffer(JSContext* cx, JS::HandleValue device, WGPUBuffer buffer, uint64_t size,
                            uint64_t usage, std::shared_ptr<const void> owner,
                            std::string_view label) {
  auto* dev = gpu::UnwrapValue<gpu::GPUDevice>(cx, device, "WrapLentGpuBuffer: device");
  if (dev == nullptr) return nullptr;
  auto wrapped = std::make_unique<gpu::GPUBuffer>();
  webgpu::P().BufferAddRef(buffer);
  wrapped->buffer = webgpu::BufferHandle::Adopt(buffer);
  wrapped->size = size;
  wrapped->usage = usage;
  wrapped->device = dev->shared;
  wrapped->lent_from = std::move(owner);
  return gpu::WrapLabelled(cx, &gpu::GPUBuffer::kClass, std::move(wrapped), label);
}

JSObject* WrapGpuTexture(JSContext* cx, WGPUTexture texture, std::string_view label) {
  auto owner = std::make_unique<gpu::GPUTexture>();
  webgpu::P().TextureAddRef(texture);
  owner->texture = webgpu::Texture::Adopt(texture);
  return gpu::WrapLabelled(cx, &gpu::GPUTexture::kClass, std::move(owner), label);
}

Status TakePendingException(JSContext* cx) { return SmEngine::From(cx)->TakeException(); }

}  // namespace alknet::runtime::sm
