// RAII owners for WebGPU objects: copy = AddRef, move = steal, destructor = Release.
#pragma once

#include <utility>

#include "alknet/webgpu/procs.h"

namespace alknet::webgpu {

template <typename C>
struct HandleTraits;

#define ALKNET_WGPU_HANDLE_TRAITS(C, Name)             \
  template <>                                          \
  struct HandleTraits<C> {                             \
    static void AddRef(C h) { P().Name##AddRef(h); }   \
    static void Release(C h) { P().Name##Release(h); } \
  };
ALKNET_WGPU_HANDLE_TRAITS(WGPUInstance, Instance)
ALKNET_WGPU_HANDLE_TRAITS(WGPUAdapter, Adapter)
ALKNET_WGPU_HANDLE_TRAITS(WGPUDevice, Device)
ALKNET_WGPU_HANDLE_TRAITS(WGPUQueue, Queue)
ALKNET_WGPU_HANDLE_TRAITS(WGPUBuffer, Buffer)
ALKNET_WGPU_HANDLE_TRAITS(WGPUShaderModule, ShaderModule)
ALKNET_WGPU_HANDLE_TRAITS(WGPUBindGroupLayout, BindGroupLayout)
ALKNET_WGPU_HANDLE_TRAITS(WGPUBindGroup, BindGroup)
ALKNET_WGPU_HANDLE_TRAITS(WGPUPipelineLayout, PipelineLayout)
ALKNET_WGPU_HANDLE_TRAITS(WGPUComputePipeline, ComputePipeline)
ALKNET_WGPU_HANDLE_TRAITS(WGPUCommandEncoder, CommandEncoder)
ALKNET_WGPU_HANDLE_TRAITS(WGPUComputePassEncoder, ComputePassEncoder)
ALKNET_WGPU_HANDLE_TRAITS(WGPUCommandBuffer, CommandBuffer)
ALKNET_WGPU_HANDLE_TRAITS(WGPUTexture, Texture)
ALKNET_WGPU_HANDLE_TRAITS(WGPUTextureView, TextureView)
ALKNET_WGPU_HANDLE_TRAITS(WGPUSampler, Sampler)
ALKNET_WGPU_HANDLE_TRAITS(WGPUQuerySet, QuerySet)
ALKNET_WGPU_HANDLE_TRAITS(WGPURenderPipeline, RenderPipeline)
ALKNET_WGPU_HANDLE_TRAITS(WGPURenderPassEncoder, RenderPassEncoder)
ALKNET_WGPU_HANDLE_TRAITS(WGPURenderBundle, RenderBundle)
ALKNET_WGPU_HANDLE_TRAITS(WGPURenderBundleEncoder, RenderBundleEncoder)
ALKNET_WGPU_HANDLE_TRAITS(WGPUSurface, Surface)
#undef ALKNET_WGPU_HANDLE_TRAITS

template <typename C>
class Handle {
 public:
  Handle() = default;
  // Takes over one reference the caller already owns (what every wgpu*Create* returns).
  static Handle Adopt(C raw) {
    Handle h;
    h.raw_ = raw;
    return h;
  }
  Handle(const Handle& other) : raw_(other.raw_) {
    if (raw_ != nullptr) HandleTraits<C>::AddRef(raw_);
  }
  Handle(Handle&& other) noexcept : raw_(std::exchange(other.raw_, nullptr)) {}
  Handle& operator=(Handle other) noexcept {
    std::swap(raw_, other.raw_);
    return *this;
  }
  ~Handle() {
    if (raw_ != nullptr) HandleTraits<C>::Release(raw_);
  }

  C get() const { return raw_; }
  explicit operator bool() const { return raw_ != nullptr; }
  friend bool operator==(const Handle& a, const Handle& b) { return a.raw_ == b.raw_; }

 private:
  C raw_ = nullptr;
};

using Instance = Handle<WGPUInstance>;
using Adapter = Handle<WGPUAdapter>;
using DeviceHandle = Handle<WGPUDevice>;
using Queue = Handle<WGPUQueue>;
using BufferHandle = Handle<WGPUBuffer>;
using ShaderModule = Handle<WGPUShaderModule>;
using BindGroupLayout = Handle<WGPUBindGroupLayout>;
using BindGroup = Handle<WGPUBindGroup>;
using PipelineLayout = Handle<WGPUPipelineLayout>;
using ComputePipeline = Handle<WGPUComputePipeline>;
using CommandEncoder = Handle<WGPUCommandEncoder>;
using ComputePassEncoder = Handle<WGPUComputePassEncoder>;
using CommandBuffer = Handle<WGPUCommandBuffer>;
using Texture = Handle<WGPUTexture>;
using TextureView = Handle<WGPUTextureView>;
using Sampler = Handle<WGPUSampler>;
using QuerySet = Handle<WGPUQuerySet>;
using RenderPipeline = Handle<WGPURenderPipeline>;
using RenderPassEncoder = Handle<WGPURenderPassEncoder>;
using RenderBundle = Handle<WGPURenderBundle>;
using RenderBundleEncoder = Handle<WGPURenderBundleEncoder>;
using Surface = Handle<WGPUSurface>;

// A WGPUStringView over a std::string_view (no copy; the view must outlive the call).
inline WGPUStringView Sv(std::string_view s) { return WGPUStringView{s.data(), s.size()}; }
inline std::string_view FromSv(WGPUStringView s) {
  if (s.data == nullptr) return {};
  return s.length == WGPU_STRLEN ? std::string_view(s.data) : std::string_view(s.data, s.length);
}

}  // namespace alknet::webgpu
