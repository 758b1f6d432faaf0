// The function table of a webgpu.h implementation, loaded at run time with dlopen.
//
// The default is the Dawn binary installed by scripts/setup; ALKNET_WEBGPU_LIBRARY chooses
// another implementation of the same C API.
#pragma once

#include <string>

#include "alknet/webgpu/result.h"
#include "alknet/webgpu/webgpu_abi.h"

namespace alknet::webgpu {

// X(name without the "wgpu" prefix, return type, parameter list)
#define ALKNET_WGPU_PROCS(X)                                                                     \
  X(CreateInstance, WGPUInstance, (const WGPUInstanceDescriptor*))                               \
  X(GetInstanceCapabilities, WGPUStatus, (WGPUInstanceCapabilities*))                            \
  X(InstanceRequestAdapter, WGPUFuture,                                                          \
    (WGPUInstance, const WGPURequestAdapterOptions*, WGPURequestAdapterCallbackInfo))            \
  X(InstanceWaitAny, WGPUWaitStatus, (WGPUInstance, size_t, WGPUFutureWaitInfo*, uint64_t))      \
  X(InstanceProcessEvents, void, (WGPUInstance))                                                 \
  X(InstanceAddRef, void, (WGPUInstance))                                                        \
  X(InstanceRelease, void, (WGPUInstance))                                                       \
  X(AdapterGetInfo, WGPUStatus, (WGPUAdapter, WGPUAdapterInfo*))                                 \
  X(AdapterInfoFreeMembers, void, (WGPUAdapterInfo))                                             \
  X(AdapterGetLimits, WGPUStatus, (WGPUAdapter, WGPULimits*))                                    \
  X(AdapterGetFeatures, void, (WGPUAdapter, WGPUSupportedFeatures*))                             \
  X(AdapterHasFeature, WGPUBool, (WGPUAdapter, WGPUFeatureName))                                 \
  X(SupportedFeaturesFreeMembers, void, (WGPUSupportedFeatures))                                 \
  X(AdapterRequestDevice, WGPUFuture,                                                            \
    (WGPUAdapter, const WGPUDeviceDescriptor*, WGPURequestDeviceCallbackInfo))                   \
  X(AdapterAddRef, void, (WGPUAdapter))                                                          \
  X(AdapterRelease, void, (WGPUAdapter))                                                         \
  X(DeviceGetLimits, WGPUStatus, (WGPUDevice, WGPULimits*))                                      \
  X(DeviceHasFeature, WGPUBool, (WGPUDevice, WGPUFeatureName))                                   \
  X(DeviceGetQueue, WGPUQueue, (WGPUDevice))                                                     \
  X(DeviceCreateBuffer, WGPUBuffer, (WGPUDevice, const WGPUBufferDescriptor*))                   \
  X(DeviceCreateShaderModule, WGPUShaderModule, (WGPUDevice, const WGPUShaderModuleDescriptor*)) \
  X(DeviceCreateBindGroupLayout, WGPUBindGroupLayout,                                            \
    (WGPUDevice, const WGPUBindGroupLayoutDescriptor*))                                          \
  X(DeviceCreateBindGroup, WGPUBindGroup, (WGPUDevice, const WGPUBindGroupDescriptor*))          \
  X(DeviceCreatePipelineLayout, WGPUPipelineLayout,                                              \
    (WGPUDevice, const WGPUPipelineLayoutDescriptor*))                                           \
  X(DeviceCreateComputePipeline, WGPUComputePipeline,                                            \
    (WGPUDevice, const WGPUComputePipelineDescriptor*))                                          \
  X(DeviceCreateCommandEncoder, WGPUCommandEncoder,                                              \
    (WGPUDevice, const WGPUCommandEncoderDescriptor*))                                           \
  X(DevicePushErrorScope, void, (WGPUDevice, WGPUErrorFilter))                                   \
  X(DevicePopErrorScope, WGPUFuture, (WGPUDevice, WGPUPopErrorScopeCallbackInfo))                \
  X(DeviceDestroy, void, (WGPUDevice))                                                           \
  X(DeviceAddRef, void, (WGPUDevice))                                                            \
  X(DeviceRelease, void, (WGPUDevice))                                                           \
  X(QueueSubmit, void, (WGPUQueue, size_t, const WGPUCommandBuffer*))                            \
  X(QueueWriteBuffer, void, (WGPUQueue, WGPUBuffer, uint64_t, const void*, size_t))              \
  X(QueueOnSubmittedWorkDone, WGPUFuture, (WGPUQueue, WGPUQueueWorkDoneCallbackInfo))            \
  X(QueueAddRef, void, (WGPUQueue))                                                              \
  X(QueueRelease, void, (WGPUQueue))                                                             \
  X(BufferMapAsync, WGPUFuture,                                                                  \
    (WGPUBuffer, WGPUMapMode, size_t, size_t, WGPUBufferMapCallbackInfo))                        \
  X(BufferGetConstMappedRange, const void*, (WGPUBuffer, size_t, size_t))                        \
  X(BufferGetMappedRange, void*, (WGPUBuffer, size_t, size_t))                                   \
  X(BufferGetMapState, WGPUBufferMapState, (WGPUBuffer))                                         \
  X(BufferUnmap, void, (WGPUBuffer))                                                             \
  X(BufferDestroy, void, (WGPUBuffer))                                                           \
  X(BufferGetSize, uint64_t, (WGPUBuffer))                                                       \
  X(BufferAddRef, void, (WGPUBuffer))                                                            \
  X(BufferRelease, void, (WGPUBuffer))                                                           \
  X(ShaderModuleGetCompilationInfo, WGPUFuture,                                                  \
    (WGPUShaderModule, WGPUCompilationInfoCallbackInfo))                                         \
  X(ShaderModuleAddRef, void, (WGPUShaderModule))                                                \
  X(ShaderModuleRelease, void, (WGPUShaderModule))                                               \
  X(BindGroupLayoutAddRef, void, (WGPUBindGroupLayout))                                          \
  X(BindGroupLayoutRelease, void, (WGPUBindGroupLayout))                                         \
  X(BindGroupAddRef, void, (WGPUBindGroup))                                                      \
  X(BindGroupRelease, void, (WGPUBindGroup))                                                     \
  X(PipelineLayoutAddRef, void, (WGPUPipelineLayout))                                            \
  X(PipelineLayoutRelease, void, (WGPUPipelineLayout))                                           \
  X(ComputePipelineGetBindGroupLayout, WGPUBindGroupLayout, (WGPUComputePipeline, uint32_t))     \
  X(ComputePipelineAddRef, void, (WGPUComputePipeline))                                          \
  X(ComputePipelineRelease, void, (WGPUComputePipeline))                                         \
  X(CommandEncoderBeginComputePass, WGPUComputePassEncoder,                                      \
    (WGPUCommandEncoder, const WGPUComputePassDescriptor*))                                      \
  X(CommandEncoderCopyBufferToBuffer, void,                                                      \
    (WGPUCommandEncoder, WGPUBuffer, uint64_t, WGPUBuffer, uint64_t, uint64_t))                  \
  X(CommandEncoderClearBuffer, void, (WGPUCommandEncoder, WGPUBuffer, uint64_t, uint64_t))       \
  X(CommandEncoderFinish, WGPUCommandBuffer,                                                     \
    (WGPUCommandEncoder, const WGPUCommandBufferDescriptor*))                                    \
  X(CommandEncoderAddRef, void, (WGPUCommandEncoder))                                            \
  X(CommandEncoderRelease, void, (WGPUCommandEncoder))                                           \
  X(ComputePassEncoderSetPipeline, void, (WGPUComputePassEncoder, WGPUComputePipeline))          \
  X(ComputePassEncoderSetBindGroup, void,                                                        \
    (WGPUComputePassEncoder, uint32_t, WGPUBindGroup, size_t, const uint32_t*))                  \
  X(ComputePassEncoderDispatchWorkgroups, void,                                                  \
    (WGPUComputePassEncoder, uint32_t, uint32_t, uint32_t))                                      \
  X(ComputePassEncoderEnd, void, (WGPUComputePassEncoder))                                       \
  X(ComputePassEncoderAddRef, void, (WGPUComputePassEncoder))                                    \
  X(ComputePassEncoderRelease, void, (WGPUComputePassEncoder))                                   \
  X(CommandBufferAddRef, void, (WGPUCommandBuffer))                                              \
  X(CommandBufferRelease, void, (WGPUCommandBuffer))                                             \
  ALKNET_WGPU_RENDER_PROCS(X)

// Textures, samplers, queries and rendering (the W3C API's offscreen-rendering half).
#define ALKNET_WGPU_RENDER_PROCS(X)                                                                \
  X(DeviceCreateTexture, WGPUTexture, (WGPUDevice, const WGPUTextureDescriptor*))                  \
  X(DeviceCreateSampler, WGPUSampler, (WGPUDevice, const WGPUSamplerDescriptor*))                  \
  X(DeviceCreateQuerySet, WGPUQuerySet, (WGPUDevice, const WGPUQuerySetDescriptor*))               \
  X(DeviceCreateRenderPipeline, WGPURenderPipeline,                                                \
    (WGPUDevice, const WGPURenderPipelineDescriptor*))                                             \
  X(DeviceCreateRenderPipelineAsync, WGPUFuture,                                                   \
    (WGPUDevice, const WGPURenderPipelineDescriptor*, WGPUCreateRenderPipelineAsyncCallbackInfo))  \
  X(DeviceCreateComputePipelineAsync, WGPUFuture,                                                  \
    (WGPUDevice, const WGPUComputePipelineDescriptor*,                                             \
     WGPUCreateComputePipelineAsyncCallbackInfo))                                                  \
  X(DeviceCreateRenderBundleEncoder, WGPURenderBundleEncoder,                                      \
    (WGPUDevice, const WGPURenderBundleEncoderDescriptor*))                                        \
  X(TextureCreateView, WGPUTextureView, (WGPUTexture, const WGPUTextureViewDescriptor*))           \
  X(TextureDestroy, void, (WGPUTexture))                                                           \
  X(TextureGetWidth, uint32_t, (WGPUTexture))                                                      \
  X(TextureGetHeight, uint32_t, (WGPUTexture))                                                     \
  X(TextureGetDepthOrArrayLayers, uint32_t, (WGPUTexture))                                         \
  X(TextureGetMipLevelCount, uint32_t, (WGPUTexture))                                              \
  X(TextureGetSampleCount, uint32_t, (WGPUTexture))                                                \
  X(TextureGetDimension, WGPUTextureDimension, (WGPUTexture))                                      \
  X(TextureGetFormat, WGPUTextureFormat, (WGPUTexture))                                            \
  X(TextureGetUsage, WGPUTextureUsage, (WGPUTexture))                                              \
  X(TextureAddRef, void, (WGPUTexture))                                                            \
  X(TextureRelease, void, (WGPUTexture))                                                           \
  X(TextureViewAddRef, void, (WGPUTextureView))                                                    \
  X(TextureViewRelease, void, (WGPUTextureView))                                                   \
  X(SamplerAddRef, void, (WGPUSampler))                                                            \
  X(SamplerRelease, void, (WGPUSampler))                                                           \
  X(QuerySetDestroy, void, (WGPUQuerySet))                                                         \
  X(QuerySetGetType, WGPUQueryType, (WGPUQuerySet))                                                \
  X(QuerySetGetCount, uint32_t, (WGPUQuerySet))                                                    \
  X(QuerySetAddRef, void, (WGPUQuerySet))                                                          \
  X(QuerySetRelease, void, (WGPUQuerySet))                                                         \
  X(RenderPipelineGetBindGroupLayout, WGPUBindGroupLayout, (WGPURenderPipeline, uint32_t))         \
  X(RenderPipelineAddRef, void, (WGPURenderPipeline))                                              \
  X(RenderPipelineRelease, void, (WGPURenderPipeline))                                             \
  X(QueueWriteTexture, void,                                                                       \
    (WGPUQueue, const WGPUTexelCopyTextureInfo*, const void*, size_t,                              \
     const WGPUTexelCopyBufferLayout*, const WGPUExtent3D*))                                       \
  X(CommandEncoderBeginRenderPass, WGPURenderPassEncoder,                                          \
    (WGPUCommandEncoder, const WGPURenderPassDescriptor*))                                         \
  X(CommandEncoderCopyBufferToTexture, void,                                                       \
    (WGPUCommandEncoder, const WGPUTexelCopyBufferInfo*, const WGPUTexelCopyTextureInfo*,          \
     const WGPUExtent3D*))                                                                         \
  X(CommandEncoderCopyTextureToBuffer, void,                                                       \
    (WGPUCommandEncoder, const WGPUTexelCopyTextureInfo*, const WGPUTexelCopyBufferInfo*,          \
     const WGPUExtent3D*))                                                                         \
  X(CommandEncoderCopyTextureToTexture, void,                                                      \
    (WGPUCommandEncoder, const WGPUTexelCopyTextureInfo*, const WGPUTexelCopyTextureInfo*,         \
     const WGPUExtent3D*))                                                                         \
  X(CommandEncoderResolveQuerySet, void,                                                           \
    (WGPUCommandEncoder, WGPUQuerySet, uint32_t, uint32_t, WGPUBuffer, uint64_t))                  \
  X(CommandEncoderPushDebugGroup, void, (WGPUCommandEncoder, WGPUStringView))                      \
  X(CommandEncoderPopDebugGroup, void, (WGPUCommandEncoder))                                       \
  X(CommandEncoderInsertDebugMarker, void, (WGPUCommandEncoder, WGPUStringView))                   \
  X(ComputePassEncoderPushDebugGroup, void, (WGPUComputePassEncoder, WGPUStringView))              \
  X(ComputePassEncoderPopDebugGroup, void, (WGPUComputePassEncoder))                               \
  X(ComputePassEncoderInsertDebugMarker, void, (WGPUComputePassEncoder, WGPUStringView))           \
  X(RenderPassEncoderPushDebugGroup, void, (WGPURenderPassEncoder, WGPUStringView))                \
  X(RenderPassEncoderPopDebugGroup, void, (WGPURenderPassEncoder))                                 \
  X(RenderPassEncoderInsertDebugMarker, void, (WGPURenderPassEncoder, WGPUStringView))             \
  X(RenderBundleEncoderPushDebugGroup, void, (WGPURenderBundleEncoder, WGPUStringView))            \
  X(RenderBundleEncoderPopDebugGroup, void, (WGPURenderBundleEncoder))                             \
  X(RenderBundleEncoderInsertDebugMarker, void, (WGPURenderBundleEncoder, WGPUStringView))         \
  X(InstanceGetWGSLLanguageFeatures, WGPUStatus,                                                   \
    (WGPUInstance, WGPUSupportedWGSLLanguageFeatures*))                                            \
  X(SupportedWGSLLanguageFeaturesFreeMembers, void, (WGPUSupportedWGSLLanguageFeatures))           \
  X(DeviceGetAdapterInfo, WGPUStatus, (WGPUDevice, WGPUAdapterInfo*))                              \
  X(DeviceInjectError, void, (WGPUDevice, WGPUErrorType, WGPUStringView))                          \
  X(ComputePassEncoderDispatchWorkgroupsIndirect, void,                                            \
    (WGPUComputePassEncoder, WGPUBuffer, uint64_t))                                                \
  X(RenderPassEncoderSetPipeline, void, (WGPURenderPassEncoder, WGPURenderPipeline))               \
  X(RenderPassEncoderSetBindGroup, void,                                                           \
    (WGPURenderPassEncoder, uint32_t, WGPUBindGroup, size_t, const uint32_t*))                     \
  X(RenderPassEncoderSetVertexBuffer, void,                                                        \
    (WGPURenderPassEncoder, uint32_t, WGPUBuffer, uint64_t, uint64_t))                             \
  X(RenderPassEncoderSetIndexBuffer, void,                                                         \
    (WGPURenderPassEncoder, WGPUBuffer, WGPUIndexFormat, uint64_t, uint64_t))                      \
  X(RenderPassEncoderDraw, void, (WGPURenderPassEncoder, uint32_t, uint32_t, uint32_t, uint32_t))  \
  X(RenderPassEncoderDrawIndexed, void,                                                            \
    (WGPURenderPassEncoder, uint32_t, uint32_t, uint32_t, int32_t, uint32_t))                      \
  X(RenderPassEncoderDrawIndirect, void, (WGPURenderPassEncoder, WGPUBuffer, uint64_t))            \
  X(RenderPassEncoderDrawIndexedIndirect, void, (WGPURenderPassEncoder, WGPUBuffer, uint64_t))     \
  X(RenderPassEncoderSetViewport, void,                                                            \
    (WGPURenderPassEncoder, float, float, float, float, float, float))                             \
  X(RenderPassEncoderSetScissorRect, void,                                                         \
    (WGPURenderPassEncoder, uint32_t, uint32_t, uint32_t, uint32_t))                               \
  X(RenderPassEncoderSetBlendConstant, void, (WGPURenderPassEncoder, const WGPUColor*))            \
  X(RenderPassEncoderSetStencilReference, void, (WGPURenderPassEncoder, uint32_t))                 \
  X(RenderPassEncoderBeginOcclusionQuery, void, (WGPURenderPassEncoder, uint32_t))                 \
  X(RenderPassEncoderEndOcclusionQuery, void, (WGPURenderPassEncoder))                             \
  X(RenderPassEncoderExecuteBundles, void,                                                         \
    (WGPURenderPassEncoder, size_t, const WGPURenderBundle*))                                      \
  X(RenderPassEncoderEnd, void, (WGPURenderPassEncoder))                                           \
  X(RenderPassEncoderAddRef, void, (WGPURenderPassEncoder))                                        \
  X(RenderPassEncoderRelease, void, (WGPURenderPassEncoder))                                       \
  X(RenderBundleEncoderSetPipeline, void, (WGPURenderBundleEncoder, WGPURenderPipeline))           \
  X(RenderBundleEncoderSetBindGroup, void,                                                         \
    (WGPURenderBundleEncoder, uint32_t, WGPUBindGroup, size_t, const uint32_t*))                   \
  X(RenderBundleEncoderSetVertexBuffer, void,                                                      \
    (WGPURenderBundleEncoder, uint32_t, WGPUBuffer, uint64_t, uint64_t))                           \
  X(RenderBundleEncoderSetIndexBuffer, void,                                                       \
    (WGPURenderBundleEncoder, WGPUBuffer, WGPUIndexFormat, uint64_t, uint64_t))                    \
  X(RenderBundleEncoderDraw, void,                                                                 \
    (WGPURenderBundleEncoder, uint32_t, uint32_t, uint32_t, uint32_t))                             \
  X(RenderBundleEncoderDrawIndexed, void,                                                          \
    (WGPURenderBundleEncoder, uint32_t, uint32_t, uint32_t, int32_t, uint32_t))                    \
  X(RenderBundleEncoderDrawIndirect, void, (WGPURenderBundleEncoder, WGPUBuffer, uint64_t))        \
  X(RenderBundleEncoderDrawIndexedIndirect, void, (WGPURenderBundleEncoder, WGPUBuffer, uint64_t)) \
  X(RenderBundleEncoderFinish, WGPURenderBundle,                                                   \
    (WGPURenderBundleEncoder, const WGPURenderBundleDescriptor*))                                  \
  X(RenderBundleEncoderAddRef, void, (WGPURenderBundleEncoder))                                    \
  X(RenderBundleEncoderRelease, void, (WGPURenderBundleEncoder))                                   \
  X(RenderBundleAddRef, void, (WGPURenderBundle))                                                  \
  X(RenderBundleRelease, void, (WGPURenderBundle))

struct Procs {
#define ALKNET_WGPU_DECLARE_PROC(name, ret, params) ret(*name) params = nullptr;
  ALKNET_WGPU_PROCS(ALKNET_WGPU_DECLARE_PROC)
#undef ALKNET_WGPU_DECLARE_PROC
};

// Where the library comes from: ALKNET_WEBGPU_LIBRARY if set, else the path scripts/setup
// installs to (baked in at build time).
std::string WebGpuLibraryPath();

// Loads the library once per process (later calls return the same table or the same error).
// RTLD_LOCAL | RTLD_DEEPBIND keep Dawn's bundled symbols (abseil, SPIR-V tools) from binding
// to, or being bound by, copies in the host process.
Result<const Procs*> LoadProcs();

// Loads a library at an explicit path, uncached (for tests of the loader's errors).
Result<const Procs*> LoadProcsFrom(const std::string& path);

// The loaded table. Only valid after LoadProcs() succeeded; every object that can reach this
// was created through that table, so handles may call it unconditionally.
const Procs& P();

}  // namespace alknet::webgpu
