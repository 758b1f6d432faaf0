// alknet's own declarations of the subset of the standard webgpu.h C API that alknet uses.
//
// No header ships with the pinned Dawn binary (npm bun-webgpu-linux-x64@0.1.7), so these are
// written from the ABI facts of the webgpu-headers revision that Dawn build implements: the
// "callback info + WGPUFuture + WGPUStringView" generation, 1-based status enums, 64-bit flag
// types. The FFI definitions in npm bun-webgpu@0.1.7 (index.js) state the same layouts, and
// libs/webgpu/tests/abi_test.cpp checks the layouts against the loaded library.
//
// Names, enum values and layouts must equal the standard; the static_asserts at the end pin
// every struct's size and the offsets a mistake would most likely move (x86-64 / LP64).
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

using WGPUBool = uint32_t;
using WGPUFlags = uint64_t;

#define ALKNET_WGPU_HANDLE(Name) using Name = struct Name##Impl*
ALKNET_WGPU_HANDLE(WGPUInstance);
ALKNET_WGPU_HANDLE(WGPUAdapter);
ALKNET_WGPU_HANDLE(WGPUDevice);
ALKNET_WGPU_HANDLE(WGPUQueue);
ALKNET_WGPU_HANDLE(WGPUBuffer);
ALKNET_WGPU_HANDLE(WGPUShaderModule);
ALKNET_WGPU_HANDLE(WGPUBindGroupLayout);
ALKNET_WGPU_HANDLE(WGPUBindGroup);
ALKNET_WGPU_HANDLE(WGPUPipelineLayout);
ALKNET_WGPU_HANDLE(WGPUComputePipeline);
ALKNET_WGPU_HANDLE(WGPUCommandEncoder);
ALKNET_WGPU_HANDLE(WGPUComputePassEncoder);
ALKNET_WGPU_HANDLE(WGPUCommandBuffer);
ALKNET_WGPU_HANDLE(WGPUQuerySet);
ALKNET_WGPU_HANDLE(WGPUSurface);
ALKNET_WGPU_HANDLE(WGPUSampler);
ALKNET_WGPU_HANDLE(WGPUTextureView);
ALKNET_WGPU_HANDLE(WGPUTexture);
ALKNET_WGPU_HANDLE(WGPURenderPipeline);
ALKNET_WGPU_HANDLE(WGPURenderPassEncoder);
ALKNET_WGPU_HANDLE(WGPURenderBundle);
ALKNET_WGPU_HANDLE(WGPURenderBundleEncoder);
#undef ALKNET_WGPU_HANDLE

inline constexpr size_t WGPU_STRLEN = SIZE_MAX;
inline constexpr uint64_t WGPU_WHOLE_SIZE = UINT64_MAX;
inline constexpr size_t WGPU_WHOLE_MAP_SIZE = SIZE_MAX;
inline constexpr uint32_t WGPU_LIMIT_U32_UNDEFINED = UINT32_MAX;
inline constexpr uint64_t WGPU_LIMIT_U64_UNDEFINED = UINT64_MAX;
inline constexpr uint32_t WGPU_DEPTH_SLICE_UNDEFINED = UINT32_MAX;
inline constexpr uint32_t WGPU_MIP_LEVEL_COUNT_UNDEFINED = UINT32_MAX;
inline constexpr uint32_t WGPU_ARRAY_LAYER_COUNT_UNDEFINED = UINT32_MAX;
inline constexpr uint32_t WGPU_COPY_STRIDE_UNDEFINED = UINT32_MAX;
inline constexpr uint32_t WGPU_QUERY_SET_INDEX_UNDEFINED = UINT32_MAX;

// ---- Enums (uint32_t in the ABI) ---------------------------------------------------------
enum WGPUSType : uint32_t {
  WGPUSType_ShaderSourceSPIRV = 0x00000001,
  WGPUSType_ShaderSourceWGSL = 0x00000002,
  WGPUSType_RenderPassMaxDrawCount = 0x00000003,
  WGPUSType_Force32 = 0x7FFFFFFF,
};

enum WGPUCallbackMode : uint32_t {
  WGPUCallbackMode_WaitAnyOnly = 0x00000001,
  WGPUCallbackMode_AllowProcessEvents = 0x00000002,
  WGPUCallbackMode_AllowSpontaneous = 0x00000003,
  WGPUCallbackMode_Force32 = 0x7FFFFFFF,
};

enum WGPUStatus : uint32_t {
  WGPUStatus_Success = 0x00000001,
  WGPUStatus_Error = 0x00000002,
  WGPUStatus_Force32 = 0x7FFFFFFF,
};

enum WGPUWaitStatus : uint32_t {
  WGPUWaitStatus_Success = 0x00000001,
  WGPUWaitStatus_TimedOut = 0x00000002,
  WGPUWaitStatus_Error = 0x00000003,
  WGPUWaitStatus_Force32 = 0x7FFFFFFF,
};

enum WGPURequestAdapterStatus : uint32_t {
  WGPURequestAdapterStatus_Success = 0x00000001,
  WGPURequestAdapterStatus_CallbackCancelled = 0x00000002,
  WGPURequestAdapterStatus_Unavailable = 0x00000003,
  WGPURequestAdapterStatus_Error = 0x00000004,
  WGPURequestAdapterStatus_Force32 = 0x7FFFFFFF,
};

enum WGPURequestDeviceStatus : uint32_t {
  WGPURequestDeviceStatus_Success = 0x00000001,
  WGPURequestDeviceStatus_CallbackCancelled = 0x00000002,
  WGPURequestDeviceStatus_Error = 0x00000003,
  WGPURequestDeviceStatus_Force32 = 0x7FFFFFFF,
};

enum WGPUMapAsyncStatus : uint32_t {
  WGPUMapAsyncStatus_Success = 0x00000001,
  WGPUMapAsyncStatus_CallbackCancelled = 0x00000002,
  WGPUMapAsyncStatus_Error = 0x00000003,
  WGPUMapAsyncStatus_Aborted = 0x00000004,
  WGPUMapAsyncStatus_Force32 = 0x7FFFFFFF,
};

enum WGPUPopErrorScopeStatus : uint32_t {
  WGPUPopErrorScopeStatus_Success = 0x00000001,
  WGPUPopErrorScopeStatus_CallbackCancelled = 0x00000002,
  WGPUPopErrorScopeStatus_Error = 0x00000003,
  WGPUPopErrorScopeStatus_Force32 = 0x7FFFFFFF,
};

enum WGPUQueueWorkDoneStatus : uint32_t {
  WGPUQueueWorkDoneStatus_Success = 0x00000001,
  WGPUQueueWorkDoneStatus_CallbackCancelled = 0x00000002,
  WGPUQueueWorkDoneStatus_Error = 0x00000003,
  WGPUQueueWorkDoneStatus_Force32 = 0x7FFFFFFF,
};

enum WGPUCompilationInfoRequestStatus : uint32_t {
  WGPUCompilationInfoRequestStatus_Success = 0x00000001,
  WGPUCompilationInfoRequestStatus_CallbackCancelled = 0x00000002,
  WGPUCompilationInfoRequestStatus_Force32 = 0x7FFFFFFF,
};

enum WGPUCompilationMessageType : uint32_t {
  WGPUCompilationMessageType_Error = 0x00000001,
  WGPUCompilationMessageType_Warning = 0x00000002,
  WGPUCompilationMessageType_Info = 0x00000003,
  WGPUCompilationMessageType_Force32 = 0x7FFFFFFF,
};

enum WGPUErrorType : uint32_t {
  WGPUErrorType_NoError = 0x00000001,
  WGPUErrorType_Validation = 0x00000002,
  WGPUErrorType_OutOfMemory = 0x00000003,
  WGPUErrorType_Internal = 0x00000004,
  WGPUErrorType_Unknown = 0x00000005,
  WGPUErrorType_Force32 = 0x7FFFFFFF,
};

enum WGPUErrorFilter : uint32_t {
  WGPUErrorFilter_Validation = 0x00000001,
  WGPUErrorFilter_OutOfMemory = 0x00000002,
  WGPUErrorFilter_Internal = 0x00000003,
  WGPUErrorFilter_Force32 = 0x7FFFFFFF,
};

enum WGPUDeviceLostReason : uint32_t {
  WGPUDeviceLostReason_Unknown = 0x00000001,
  WGPUDeviceLostReason_Destroyed = 0x00000002,
  WGPUDeviceLostReason_CallbackCancelled = 0x00000003,
  WGPUDeviceLostReason_FailedCreation = 0x00000004,
  WGPUDeviceLostReason_Force32 = 0x7FFFFFFF,
};

enum WGPUBackendType : uint32_t {
  WGPUBackendType_Undefined = 0x00000000,
  WGPUBackendType_Null = 0x00000001,
  WGPUBackendType_WebGPU = 0x00000002,
  WGPUBackendType_D3D11 = 0x00000003,
  WGPUBackendType_D3D12 = 0x00000004,
  WGPUBackendType_Metal = 0x00000005,
  WGPUBackendType_Vulkan = 0x00000006,
  WGPUBackendType_OpenGL = 0x00000007,
  WGPUBackendType_OpenGLES = 0x00000008,
  WGPUBackendType_Force32 = 0x7FFFFFFF,
};

enum WGPUAdapterType : uint32_t {
  WGPUAdapterType_DiscreteGPU = 0x00000001,
  WGPUAdapterType_IntegratedGPU = 0x00000002,
  WGPUAdapterType_CPU = 0x00000003,
  WGPUAdapterType_Unknown = 0x00000004,
  WGPUAdapterType_Force32 = 0x7FFFFFFF,
};

enum WGPUPowerPreference : uint32_t {
  WGPUPowerPreference_Undefined = 0x00000000,
  WGPUPowerPreference_LowPower = 0x00000001,
  WGPUPowerPreference_HighPerformance = 0x00000002,
  WGPUPowerPreference_Force32 = 0x7FFFFFFF,
};

enum WGPUFeatureLevel : uint32_t {
  WGPUFeatureLevel_Undefined = 0x00000000,
  WGPUFeatureLevel_Compatibility = 0x00000001,
  WGPUFeatureLevel_Core = 0x00000002,
  WGPUFeatureLevel_Force32 = 0x7FFFFFFF,
};

// Feature names: the standard ones are 1..18 in this revision (abi_test checks shader-f16 and
// subgroups by compiling WGSL that needs them); Dawn's own extensions start at 0x50000.
enum WGPUFeatureName : uint32_t {
  WGPUFeatureName_TimestampQuery = 0x00000003,
  WGPUFeatureName_ShaderF16 = 0x0000000A,
  WGPUFeatureName_Subgroups = 0x00000011,
  WGPUFeatureName_Force32 = 0x7FFFFFFF,
};

enum WGPUBufferBindingType : uint32_t {
  WGPUBufferBindingType_BindingNotUsed = 0x00000000,
  WGPUBufferBindingType_Undefined = 0x00000001,
  WGPUBufferBindingType_Uniform = 0x00000002,
  WGPUBufferBindingType_Storage = 0x00000003,
  WGPUBufferBindingType_ReadOnlyStorage = 0x00000004,
  WGPUBufferBindingType_Force32 = 0x7FFFFFFF,
};

enum WGPUBufferMapState : uint32_t {
  WGPUBufferMapState_Unmapped = 0x00000001,
  WGPUBufferMapState_Pending = 0x00000002,
  WGPUBufferMapState_Mapped = 0x00000003,
  WGPUBufferMapState_Force32 = 0x7FFFFFFF,
};

// ---- Flags (uint64_t in the ABI) ---------------------------------------------------------
using WGPUBufferUsage = WGPUFlags;
inline constexpr WGPUBufferUsage WGPUBufferUsage_None = 0x0;
inline constexpr WGPUBufferUsage WGPUBufferUsage_MapRead = 0x1;
inline constexpr WGPUBufferUsage WGPUBufferUsage_MapWrite = 0x2;
inline constexpr WGPUBufferUsage WGPUBufferUsage_CopySrc = 0x4;
inline constexpr WGPUBufferUsage WGPUBufferUsage_CopyDst = 0x8;
inline constexpr WGPUBufferUsage WGPUBufferUsage_Index = 0x10;
inline constexpr WGPUBufferUsage WGPUBufferUsage_Vertex = 0x20;
inline constexpr WGPUBufferUsage WGPUBufferUsage_Uniform = 0x40;
inline constexpr WGPUBufferUsage WGPUBufferUsage_Storage = 0x80;
inline constexpr WGPUBufferUsage WGPUBufferUsage_Indirect = 0x100;
inline constexpr WGPUBufferUsage WGPUBufferUsage_QueryResolve = 0x200;

using WGPUMapMode = WGPUFlags;
inline constexpr WGPUMapMode WGPUMapMode_None = 0x0;
inline constexpr WGPUMapMode WGPUMapMode_Read = 0x1;
inline constexpr WGPUMapMode WGPUMapMode_Write = 0x2;

using WGPUShaderStage = WGPUFlags;
inline constexpr WGPUShaderStage WGPUShaderStage_None = 0x0;
inline constexpr WGPUShaderStage WGPUShaderStage_Vertex = 0x1;
inline constexpr WGPUShaderStage WGPUShaderStage_Fragment = 0x2;
inline constexpr WGPUShaderStage WGPUShaderStage_Compute = 0x4;

// ---- Rendering and textures -----------------------------------------------------------------
// The binding converts the spec's enum strings to these numbers through tables
// (src/spidermonkey/webgpu/gpu_enums.cpp); only the values C++ names are spelled out here.
// The numbering is webgpu-headers f2c7b3a (2025-05), the revision this Dawn implements:
// Dawn-only texture formats (r16unorm...) still live at 0x50000 there.
using WGPUTextureFormat = uint32_t;
inline constexpr WGPUTextureFormat WGPUTextureFormat_Undefined = 0x00000000;
inline constexpr WGPUTextureFormat WGPUTextureFormat_RGBA8Unorm = 0x00000012;
using WGPUTextureDimension = uint32_t;      // 1d = 1, 2d = 2, 3d = 3
using WGPUTextureViewDimension = uint32_t;  // 1d, 2d, 2d-array, cube, cube-array, 3d = 1..6
using WGPUTextureAspect = uint32_t;         // all = 1, stencil-only = 2, depth-only = 3
using WGPUAddressMode = uint32_t;
using WGPUFilterMode = uint32_t;
using WGPUMipmapFilterMode = uint32_t;
using WGPUCompareFunction = uint32_t;
using WGPUVertexFormat = uint32_t;
using WGPUVertexStepMode = uint32_t;
using WGPUPrimitiveTopology = uint32_t;
using WGPUIndexFormat = uint32_t;
using WGPUFrontFace = uint32_t;
using WGPUCullMode = uint32_t;
using WGPUStencilOperation = uint32_t;
using WGPUBlendOperation = uint32_t;
using WGPUBlendFactor = uint32_t;
using WGPULoadOp = uint32_t;
using WGPUStoreOp = uint32_t;

enum WGPUQueryType : uint32_t {
  WGPUQueryType_Occlusion = 0x00000001,
  WGPUQueryType_Timestamp = 0x00000002,
  WGPUQueryType_Force32 = 0x7FFFFFFF,
};

enum WGPUOptionalBool : uint32_t {
  WGPUOptionalBool_False = 0x00000000,
  WGPUOptionalBool_True = 0x00000001,
  WGPUOptionalBool_Undefined = 0x00000002,
  WGPUOptionalBool_Force32 = 0x7FFFFFFF,
};

enum WGPUCreatePipelineAsyncStatus : uint32_t {
  WGPUCreatePipelineAsyncStatus_Success = 0x00000001,
  WGPUCreatePipelineAsyncStatus_CallbackCancelled = 0x00000002,
  WGPUCreatePipelineAsyncStatus_ValidationError = 0x00000003,
  WGPUCreatePipelineAsyncStatus_InternalError = 0x00000004,
  WGPUCreatePipelineAsyncStatus_Force32 = 0x7FFFFFFF,
};

using WGPUTextureUsage = WGPUFlags;
inline constexpr WGPUTextureUsage WGPUTextureUsage_None = 0x0;
inline constexpr WGPUTextureUsage WGPUTextureUsage_CopySrc = 0x1;
inline constexpr WGPUTextureUsage WGPUTextureUsage_CopyDst = 0x2;
inline constexpr WGPUTextureUsage WGPUTextureUsage_TextureBinding = 0x4;
inline constexpr WGPUTextureUsage WGPUTextureUsage_StorageBinding = 0x8;
inline constexpr WGPUTextureUsage WGPUTextureUsage_RenderAttachment = 0x10;

using WGPUColorWriteMask = WGPUFlags;
inline constexpr WGPUColorWriteMask WGPUColorWriteMask_All = 0xF;

// ---- Structs -----------------------------------------------------------------------------
struct WGPUStringView {
  const char* data;
  size_t length;  // WGPU_STRLEN: data is null-terminated
};

struct WGPUChainedStruct {
  const WGPUChainedStruct* next;
  WGPUSType sType;
};

struct WGPUChainedStructOut {
  WGPUChainedStructOut* next;
  WGPUSType sType;
};

struct WGPUFuture {
  uint64_t id;
};

struct WGPUFutureWaitInfo {
  WGPUFuture future;
  WGPUBool completed;
};

struct WGPUInstanceCapabilities {
  WGPUChainedStructOut* nextInChain;
  WGPUBool timedWaitAnyEnable;
  size_t timedWaitAnyMaxCount;
};

struct WGPUInstanceDescriptor {
  const WGPUChainedStruct* nextInChain;
  WGPUInstanceCapabilities capabilities;
};

struct WGPURequestAdapterOptions {
  const WGPUChainedStruct* nextInChain;
  WGPUFeatureLevel featureLevel;
  WGPUPowerPreference powerPreference;
  WGPUBool forceFallbackAdapter;
  WGPUBackendType backendType;
  WGPUSurface compatibleSurface;
};

using WGPURequestAdapterCallback = void (*)(WGPURequestAdapterStatus status, WGPUAdapter adapter,
                                            WGPUStringView message, void* userdata1,
                                            void* userdata2);
struct WGPURequestAdapterCallbackInfo {
  const WGPUChainedStruct* nextInChain;
  WGPUCallbackMode mode;
  WGPURequestAdapterCallback callback;
  void* userdata1;
  void* userdata2;
};

struct WGPUAdapterInfo {
  WGPUChainedStructOut* nextInChain;
  WGPUStringView vendor;
  WGPUStringView architecture;
  WGPUStringView device;
  WGPUStringView description;
  WGPUBackendType backendType;
  WGPUAdapterType adapterType;
  uint32_t vendorID;
  uint32_t deviceID;
  uint32_t subgroupMinSize;
  uint32_t subgroupMaxSize;
};

struct WGPULimits {
  WGPUChainedStructOut* nextInChain;
  uint32_t maxTextureDimension1D;
  uint32_t maxTextureDimension2D;
  uint32_t maxTextureDimension3D;
  uint32_t maxTextureArrayLayers;
  uint32_t maxBindGroups;
  uint32_t maxBindGroupsPlusVertexBuffers;
  uint32_t maxBindingsPerBindGroup;
  uint32_t maxDynamicUniformBuffersPerPipelineLayout;
  uint32_t maxDynamicStorageBuffersPerPipelineLayout;
  uint32_t maxSampledTexturesPerShaderStage;
  uint32_t maxSamplersPerShaderStage;
  uint32_t maxStorageBuffersPerShaderStage;
  uint32_t maxStorageTexturesPerShaderStage;
  uint32_t maxUniformBuffersPerShaderStage;
  uint64_t maxUniformBufferBindingSize;
  uint64_t maxStorageBufferBindingSize;
  uint32_t minUniformBufferOffsetAlignment;
  uint32_t minStorageBufferOffsetAlignment;
  uint32_t maxVertexBuffers;
  uint64_t maxBufferSize;
  uint32_t maxVertexAttributes;
  uint32_t maxVertexBufferArrayStride;
  uint32_t maxInterStageShaderVariables;
  uint32_t maxColorAttachments;
  uint32_t maxColorAttachmentBytesPerSample;
  uint32_t maxComputeWorkgroupStorageSize;
  uint32_t maxComputeInvocationsPerWorkgroup;
  uint32_t maxComputeWorkgroupSizeX;
  uint32_t maxComputeWorkgroupSizeY;
  uint32_t maxComputeWorkgroupSizeZ;
  uint32_t maxComputeWorkgroupsPerDimension;
  uint32_t maxImmediateSize;
};

struct WGPUSupportedFeatures {
  size_t featureCount;
  const WGPUFeatureName* features;
};

// WGSL language features (the standard values; Dawn's testing-only ones are past 0x50000).
enum WGPUWGSLLanguageFeatureName : uint32_t {
  WGPUWGSLLanguageFeatureName_ReadonlyAndReadwriteStorageTextures = 0x00000001,
  WGPUWGSLLanguageFeatureName_Packed4x8IntegerDotProduct = 0x00000002,
  WGPUWGSLLanguageFeatureName_UnrestrictedPointerParameters = 0x00000003,
  WGPUWGSLLanguageFeatureName_PointerCompositeAccess = 0x00000004,
  WGPUWGSLLanguageFeatureName_Force32 = 0x7FFFFFFF,
};
struct WGPUSupportedWGSLLanguageFeatures {
  size_t featureCount;
  const WGPUWGSLLanguageFeatureName* features;
};

using WGPUDeviceLostCallback = void (*)(const WGPUDevice* device, WGPUDeviceLostReason reason,
                                        WGPUStringView message, void* userdata1, void* userdata2);
struct WGPUDeviceLostCallbackInfo {
  const WGPUChainedStruct* nextInChain;
  WGPUCallbackMode mode;
  WGPUDeviceLostCallback callback;
  void* userdata1;
  void* userdata2;
};

using WGPUUncapturedErrorCallback = void (*)(const WGPUDevice* device, WGPUErrorType type,
                                             WGPUStringView message, void* userdata1,
                                             void* userdata2);
struct WGPUUncapturedErrorCallbackInfo {
  const WGPUChainedStruct* nextInChain;
  WGPUUncapturedErrorCallback callback;
  void* userdata1;
  void* userdata2;
};

struct WGPUQueueDescriptor {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView label;
};

struct WGPUDeviceDescriptor {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  size_t requiredFeatureCount;
  const WGPUFeatureName* requiredFeatures;
  const WGPULimits* requiredLimits;
  WGPUQueueDescriptor defaultQueue;
  WGPUDeviceLostCallbackInfo deviceLostCallbackInfo;
  WGPUUncapturedErrorCallbackInfo uncapturedErrorCallbackInfo;
};

using WGPURequestDeviceCallback = void (*)(WGPURequestDeviceStatus status, WGPUDevice device,
                                           WGPUStringView message, void* userdata1,
                                           void* userdata2);
struct WGPURequestDeviceCallbackInfo {
  const WGPUChainedStruct* nextInChain;
  WGPUCallbackMode mode;
  WGPURequestDeviceCallback callback;
  void* userdata1;
  void* userdata2;
};

struct WGPUBufferDescriptor {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  WGPUBufferUsage usage;
  uint64_t size;
  WGPUBool mappedAtCreation;
};

using WGPUBufferMapCallback = void (*)(WGPUMapAsyncStatus status, WGPUStringView message,
                                       void* userdata1, void* userdata2);
struct WGPUBufferMapCallbackInfo {
  const WGPUChainedStruct* nextInChain;
  WGPUCallbackMode mode;
  WGPUBufferMapCallback callback;
  void* userdata1;
  void* userdata2;
};

using WGPUPopErrorScopeCallback = void (*)(WGPUPopErrorScopeStatus status, WGPUErrorType type,
                                           WGPUStringView message, void* userdata1,
                                           void* userdata2);
struct WGPUPopErrorScopeCallbackInfo {
  const WGPUChainedStruct* nextInChain;
  WGPUCallbackMode mode;
  WGPUPopErrorScopeCallback callback;
  void* userdata1;
  void* userdata2;
};

// This revision passes a message (npm bun-webgpu@0.1.7 still declares the older three-argument
// form; tests/context_test.cpp WaitIdle checks ours against the library).
using WGPUQueueWorkDoneCallback = void (*)(WGPUQueueWorkDoneStatus status, WGPUStringView message,
                                           void* userdata1, void* userdata2);
struct WGPUQueueWorkDoneCallbackInfo {
  const WGPUChainedStruct* nextInChain;
  WGPUCallbackMode mode;
  WGPUQueueWorkDoneCallback callback;
  void* userdata1;
  void* userdata2;
};

struct WGPUShaderSourceWGSL {
  WGPUChainedStruct chain;
  WGPUStringView code;
};

struct WGPUShaderModuleDescriptor {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView label;
};

struct WGPUCompilationMessage {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView message;
  WGPUCompilationMessageType type;
  uint64_t lineNum;  // 1-based
  uint64_t linePos;  // 1-based, in UTF-8 code units
  uint64_t offset;
  uint64_t length;
};

struct WGPUCompilationInfo {
  const WGPUChainedStruct* nextInChain;
  size_t messageCount;
  const WGPUCompilationMessage* messages;
};

using WGPUCompilationInfoCallback = void (*)(WGPUCompilationInfoRequestStatus status,
                                             const WGPUCompilationInfo* compilationInfo,
                                             void* userdata1, void* userdata2);
struct WGPUCompilationInfoCallbackInfo {
  const WGPUChainedStruct* nextInChain;
  WGPUCallbackMode mode;
  WGPUCompilationInfoCallback callback;
  void* userdata1;
  void* userdata2;
};

struct WGPUBufferBindingLayout {
  const WGPUChainedStruct* nextInChain;
  WGPUBufferBindingType type;
  WGPUBool hasDynamicOffset;
  uint64_t minBindingSize;
};

struct WGPUSamplerBindingLayout {
  const WGPUChainedStruct* nextInChain;
  uint32_t type;  // WGPUSamplerBindingType; 0 = binding not used
};

struct WGPUTextureBindingLayout {
  const WGPUChainedStruct* nextInChain;
  uint32_t sampleType;     // WGPUTextureSampleType; 0 = binding not used
  uint32_t viewDimension;  // WGPUTextureViewDimension
  WGPUBool multisampled;
};

struct WGPUStorageTextureBindingLayout {
  const WGPUChainedStruct* nextInChain;
  uint32_t access;  // WGPUStorageTextureAccess; 0 = binding not used
  uint32_t format;  // WGPUTextureFormat
  uint32_t viewDimension;
};

struct WGPUBindGroupLayoutEntry {
  const WGPUChainedStruct* nextInChain;
  uint32_t binding;
  WGPUShaderStage visibility;
  uint32_t bindingArraySize;
  WGPUBufferBindingLayout buffer;
  WGPUSamplerBindingLayout sampler;
  WGPUTextureBindingLayout texture;
  WGPUStorageTextureBindingLayout storageTexture;
};

struct WGPUBindGroupLayoutDescriptor {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  size_t entryCount;
  const WGPUBindGroupLayoutEntry* entries;
};

struct WGPUBindGroupEntry {
  const WGPUChainedStruct* nextInChain;
  uint32_t binding;
  WGPUBuffer buffer;
  uint64_t offset;
  uint64_t size;
  WGPUSampler sampler;
  WGPUTextureView textureView;
};

struct WGPUBindGroupDescriptor {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  WGPUBindGroupLayout layout;
  size_t entryCount;
  const WGPUBindGroupEntry* entries;
};

struct WGPUPipelineLayoutDescriptor {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  size_t bindGroupLayoutCount;
  const WGPUBindGroupLayout* bindGroupLayouts;
  uint32_t immediateSize;
};

struct WGPUConstantEntry {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView key;
  double value;
};

struct WGPUComputeState {
  const WGPUChainedStruct* nextInChain;
  WGPUShaderModule module;
  WGPUStringView entryPoint;
  size_t constantCount;
  const WGPUConstantEntry* constants;
};

struct WGPUComputePipelineDescriptor {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  WGPUPipelineLayout layout;
  WGPUComputeState compute;
};

struct WGPUCommandEncoderDescriptor {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView label;
};

struct WGPUPassTimestampWrites {
  const WGPUChainedStruct* nextInChain;
  WGPUQuerySet querySet;
  uint32_t beginningOfPassWriteIndex;
  uint32_t endOfPassWriteIndex;
};

struct WGPUComputePassDescriptor {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  const WGPUPassTimestampWrites* timestampWrites;
};

struct WGPUCommandBufferDescriptor {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView label;
};

struct WGPUExtent3D {
  uint32_t width;
  uint32_t height;
  uint32_t depthOrArrayLayers;
};

struct WGPUOrigin3D {
  uint32_t x;
  uint32_t y;
  uint32_t z;
};

struct WGPUColor {
  double r;
  double g;
  double b;
  double a;
};

struct WGPUTextureDescriptor {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  WGPUTextureUsage usage;
  WGPUTextureDimension dimension;
  WGPUExtent3D size;
  WGPUTextureFormat format;
  uint32_t mipLevelCount;
  uint32_t sampleCount;
  size_t viewFormatCount;
  const WGPUTextureFormat* viewFormats;
};

struct WGPUTextureViewDescriptor {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  WGPUTextureFormat format;
  WGPUTextureViewDimension dimension;
  uint32_t baseMipLevel;
  uint32_t mipLevelCount;
  uint32_t baseArrayLayer;
  uint32_t arrayLayerCount;
  WGPUTextureAspect aspect;
  WGPUTextureUsage usage;
};

struct WGPUSamplerDescriptor {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  WGPUAddressMode addressModeU;
  WGPUAddressMode addressModeV;
  WGPUAddressMode addressModeW;
  WGPUFilterMode magFilter;
  WGPUFilterMode minFilter;
  WGPUMipmapFilterMode mipmapFilter;
  float lodMinClamp;
  float lodMaxClamp;
  WGPUCompareFunction compare;
  uint16_t maxAnisotropy;
};

struct WGPUQuerySetDescriptor {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  WGPUQueryType type;
  uint32_t count;
};

struct WGPUVertexAttribute {
  const WGPUChainedStruct* nextInChain;
  WGPUVertexFormat format;
  uint64_t offset;
  uint32_t shaderLocation;
};

struct WGPUVertexBufferLayout {
  const WGPUChainedStruct* nextInChain;
  WGPUVertexStepMode stepMode;
  uint64_t arrayStride;
  size_t attributeCount;
  const WGPUVertexAttribute* attributes;
};

struct WGPUVertexState {
  const WGPUChainedStruct* nextInChain;
  WGPUShaderModule module;
  WGPUStringView entryPoint;
  size_t constantCount;
  const WGPUConstantEntry* constants;
  size_t bufferCount;
  const WGPUVertexBufferLayout* buffers;
};

struct WGPUPrimitiveState {
  const WGPUChainedStruct* nextInChain;
  WGPUPrimitiveTopology topology;
  WGPUIndexFormat stripIndexFormat;
  WGPUFrontFace frontFace;
  WGPUCullMode cullMode;
  WGPUBool unclippedDepth;
};

struct WGPUStencilFaceState {
  WGPUCompareFunction compare;
  WGPUStencilOperation failOp;
  WGPUStencilOperation depthFailOp;
  WGPUStencilOperation passOp;
};

struct WGPUDepthStencilState {
  const WGPUChainedStruct* nextInChain;
  WGPUTextureFormat format;
  WGPUOptionalBool depthWriteEnabled;
  WGPUCompareFunction depthCompare;
  WGPUStencilFaceState stencilFront;
  WGPUStencilFaceState stencilBack;
  uint32_t stencilReadMask;
  uint32_t stencilWriteMask;
  int32_t depthBias;
  float depthBiasSlopeScale;
  float depthBiasClamp;
};

struct WGPUMultisampleState {
  const WGPUChainedStruct* nextInChain;
  uint32_t count;
  uint32_t mask;
  WGPUBool alphaToCoverageEnabled;
};

struct WGPUBlendComponent {
  WGPUBlendOperation operation;
  WGPUBlendFactor srcFactor;
  WGPUBlendFactor dstFactor;
};

struct WGPUBlendState {
  WGPUBlendComponent color;
  WGPUBlendComponent alpha;
};

struct WGPUColorTargetState {
  const WGPUChainedStruct* nextInChain;
  WGPUTextureFormat format;
  const WGPUBlendState* blend;  // nullable
  WGPUColorWriteMask writeMask;
};

struct WGPUFragmentState {
  const WGPUChainedStruct* nextInChain;
  WGPUShaderModule module;
  WGPUStringView entryPoint;
  size_t constantCount;
  const WGPUConstantEntry* constants;
  size_t targetCount;
  const WGPUColorTargetState* targets;
};

struct WGPURenderPipelineDescriptor {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  WGPUPipelineLayout layout;  // nullable: "auto"
  WGPUVertexState vertex;
  WGPUPrimitiveState primitive;
  const WGPUDepthStencilState* depthStencil;  // nullable
  WGPUMultisampleState multisample;
  const WGPUFragmentState* fragment;  // nullable
};

using WGPUCreateRenderPipelineAsyncCallback = void (*)(WGPUCreatePipelineAsyncStatus status,
                                                       WGPURenderPipeline pipeline,
                                                       WGPUStringView message, void* userdata1,
                                                       void* userdata2);
struct WGPUCreateRenderPipelineAsyncCallbackInfo {
  const WGPUChainedStruct* nextInChain;
  WGPUCallbackMode mode;
  WGPUCreateRenderPipelineAsyncCallback callback;
  void* userdata1;
  void* userdata2;
};

using WGPUCreateComputePipelineAsyncCallback = void (*)(WGPUCreatePipelineAsyncStatus status,
                                                        WGPUComputePipeline pipeline,
                                                        WGPUStringView message, void* userdata1,
                                                        void* userdata2);
struct WGPUCreateComputePipelineAsyncCallbackInfo {
  const WGPUChainedStruct* nextInChain;
  WGPUCallbackMode mode;
  WGPUCreateComputePipelineAsyncCallback callback;
  void* userdata1;
  void* userdata2;
};

struct WGPURenderPassColorAttachment {
  const WGPUChainedStruct* nextInChain;
  WGPUTextureView view;
  uint32_t depthSlice;  // WGPU_DEPTH_SLICE_UNDEFINED for 2D views
  WGPUTextureView resolveTarget;
  WGPULoadOp loadOp;
  WGPUStoreOp storeOp;
  WGPUColor clearValue;
};

struct WGPURenderPassDepthStencilAttachment {
  const WGPUChainedStruct* nextInChain;
  WGPUTextureView view;
  WGPULoadOp depthLoadOp;
  WGPUStoreOp depthStoreOp;
  float depthClearValue;  // NaN: undefined
  WGPUBool depthReadOnly;
  WGPULoadOp stencilLoadOp;
  WGPUStoreOp stencilStoreOp;
  uint32_t stencilClearValue;
  WGPUBool stencilReadOnly;
};

// Chained on a WGPURenderPassDescriptor (GPURenderPassDescriptor.maxDrawCount).
struct WGPURenderPassMaxDrawCount {
  WGPUChainedStruct chain;
  uint64_t maxDrawCount;
};

struct WGPURenderPassDescriptor {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  size_t colorAttachmentCount;
  const WGPURenderPassColorAttachment* colorAttachments;
  const WGPURenderPassDepthStencilAttachment* depthStencilAttachment;  // nullable
  WGPUQuerySet occlusionQuerySet;                                      // nullable
  const WGPUPassTimestampWrites* timestampWrites;                      // nullable
};

struct WGPUTexelCopyBufferLayout {
  uint64_t offset;
  uint32_t bytesPerRow;   // WGPU_COPY_STRIDE_UNDEFINED when not given
  uint32_t rowsPerImage;  // WGPU_COPY_STRIDE_UNDEFINED when not given
};

struct WGPUTexelCopyBufferInfo {
  WGPUTexelCopyBufferLayout layout;
  WGPUBuffer buffer;
};

struct WGPUTexelCopyTextureInfo {
  WGPUTexture texture;
  uint32_t mipLevel;
  WGPUOrigin3D origin;
  WGPUTextureAspect aspect;
};

struct WGPURenderBundleDescriptor {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView label;
};

struct WGPURenderBundleEncoderDescriptor {
  const WGPUChainedStruct* nextInChain;
  WGPUStringView label;
  size_t colorFormatCount;
  const WGPUTextureFormat* colorFormats;
  WGPUTextureFormat depthStencilFormat;
  uint32_t sampleCount;
  WGPUBool depthReadOnly;
  WGPUBool stencilReadOnly;
};

}  // extern "C"

// ---- Layout checks (LP64) ----------------------------------------------------------------
static_assert(sizeof(void*) == 8, "alknet's WebGPU declarations assume a 64-bit (LP64) target");
#define ALKNET_ABI(T, size) static_assert(sizeof(T) == (size), #T " size differs from webgpu.h")
#define ALKNET_OFF(T, f, off) \
  static_assert(offsetof(T, f) == (off), #T "." #f " offset differs from webgpu.h")
ALKNET_ABI(WGPUStringView, 16);
ALKNET_ABI(WGPUChainedStruct, 16);
ALKNET_ABI(WGPUFuture, 8);
ALKNET_ABI(WGPUFutureWaitInfo, 16);
ALKNET_ABI(WGPUInstanceCapabilities, 24);
ALKNET_ABI(WGPUInstanceDescriptor, 32);
ALKNET_ABI(WGPURequestAdapterOptions, 32);
ALKNET_OFF(WGPURequestAdapterOptions, compatibleSurface, 24);
ALKNET_ABI(WGPURequestAdapterCallbackInfo, 40);
ALKNET_OFF(WGPURequestAdapterCallbackInfo, callback, 16);
ALKNET_ABI(WGPUAdapterInfo, 96);
ALKNET_OFF(WGPUAdapterInfo, backendType, 72);
ALKNET_OFF(WGPUAdapterInfo, subgroupMaxSize, 92);
// Dawn writes exactly 152 bytes (abi_test checks this with a sentinel fill); npm bun-webgpu
// declares four more fields (the compat-mode vertex/fragment storage limits) that this
// revision does not have.
ALKNET_ABI(WGPULimits, 152);
ALKNET_OFF(WGPULimits, maxUniformBufferBindingSize, 64);
ALKNET_OFF(WGPULimits, maxStorageBufferBindingSize, 72);
ALKNET_OFF(WGPULimits, maxBufferSize, 96);
ALKNET_OFF(WGPULimits, maxComputeWorkgroupsPerDimension, 144);
ALKNET_OFF(WGPULimits, maxImmediateSize, 148);
ALKNET_ABI(WGPUSupportedFeatures, 16);
ALKNET_ABI(WGPUSupportedWGSLLanguageFeatures, 16);
ALKNET_ABI(WGPURenderPassMaxDrawCount, 24);
ALKNET_ABI(WGPUDeviceLostCallbackInfo, 40);
ALKNET_ABI(WGPUUncapturedErrorCallbackInfo, 32);
ALKNET_ABI(WGPUQueueDescriptor, 24);
ALKNET_ABI(WGPUDeviceDescriptor, 144);
ALKNET_OFF(WGPUDeviceDescriptor, requiredLimits, 40);
ALKNET_OFF(WGPUDeviceDescriptor, defaultQueue, 48);
ALKNET_OFF(WGPUDeviceDescriptor, deviceLostCallbackInfo, 72);
ALKNET_OFF(WGPUDeviceDescriptor, uncapturedErrorCallbackInfo, 112);
ALKNET_ABI(WGPURequestDeviceCallbackInfo, 40);
ALKNET_ABI(WGPUBufferDescriptor, 48);
ALKNET_OFF(WGPUBufferDescriptor, usage, 24);
ALKNET_OFF(WGPUBufferDescriptor, mappedAtCreation, 40);
ALKNET_ABI(WGPUBufferMapCallbackInfo, 40);
ALKNET_ABI(WGPUPopErrorScopeCallbackInfo, 40);
ALKNET_ABI(WGPUQueueWorkDoneCallbackInfo, 40);
ALKNET_ABI(WGPUShaderSourceWGSL, 32);
ALKNET_ABI(WGPUShaderModuleDescriptor, 24);
ALKNET_ABI(WGPUCompilationMessage, 64);
ALKNET_OFF(WGPUCompilationMessage, lineNum, 32);
ALKNET_OFF(WGPUCompilationMessage, linePos, 40);
ALKNET_ABI(WGPUCompilationInfo, 24);
ALKNET_ABI(WGPUCompilationInfoCallbackInfo, 40);
ALKNET_ABI(WGPUBufferBindingLayout, 24);
ALKNET_ABI(WGPUSamplerBindingLayout, 16);
ALKNET_ABI(WGPUTextureBindingLayout, 24);
ALKNET_ABI(WGPUStorageTextureBindingLayout, 24);
ALKNET_ABI(WGPUBindGroupLayoutEntry, 120);
ALKNET_OFF(WGPUBindGroupLayoutEntry, visibility, 16);
ALKNET_OFF(WGPUBindGroupLayoutEntry, buffer, 32);
ALKNET_OFF(WGPUBindGroupLayoutEntry, sampler, 56);
ALKNET_OFF(WGPUBindGroupLayoutEntry, texture, 72);
ALKNET_OFF(WGPUBindGroupLayoutEntry, storageTexture, 96);
ALKNET_ABI(WGPUBindGroupLayoutDescriptor, 40);
ALKNET_ABI(WGPUBindGroupEntry, 56);
ALKNET_OFF(WGPUBindGroupEntry, buffer, 16);
ALKNET_OFF(WGPUBindGroupEntry, textureView, 48);
ALKNET_ABI(WGPUBindGroupDescriptor, 48);
ALKNET_ABI(WGPUPipelineLayoutDescriptor, 48);
ALKNET_ABI(WGPUConstantEntry, 32);
ALKNET_ABI(WGPUComputeState, 48);
ALKNET_ABI(WGPUComputePipelineDescriptor, 80);
ALKNET_OFF(WGPUComputePipelineDescriptor, compute, 32);
ALKNET_ABI(WGPUCommandEncoderDescriptor, 24);
ALKNET_ABI(WGPUPassTimestampWrites, 24);
ALKNET_ABI(WGPUComputePassDescriptor, 32);
ALKNET_ABI(WGPUCommandBufferDescriptor, 24);
ALKNET_ABI(WGPUExtent3D, 12);
ALKNET_ABI(WGPUOrigin3D, 12);
ALKNET_ABI(WGPUColor, 32);
ALKNET_ABI(WGPUTextureDescriptor, 80);
ALKNET_OFF(WGPUTextureDescriptor, usage, 24);
ALKNET_OFF(WGPUTextureDescriptor, dimension, 32);
ALKNET_OFF(WGPUTextureDescriptor, size, 36);
ALKNET_OFF(WGPUTextureDescriptor, format, 48);
ALKNET_OFF(WGPUTextureDescriptor, sampleCount, 56);
ALKNET_OFF(WGPUTextureDescriptor, viewFormatCount, 64);
ALKNET_ABI(WGPUTextureViewDescriptor, 64);
ALKNET_OFF(WGPUTextureViewDescriptor, format, 24);
ALKNET_OFF(WGPUTextureViewDescriptor, aspect, 48);
ALKNET_OFF(WGPUTextureViewDescriptor, usage, 56);
ALKNET_ABI(WGPUSamplerDescriptor, 64);
ALKNET_OFF(WGPUSamplerDescriptor, lodMinClamp, 48);
ALKNET_OFF(WGPUSamplerDescriptor, compare, 56);
ALKNET_OFF(WGPUSamplerDescriptor, maxAnisotropy, 60);
ALKNET_ABI(WGPUQuerySetDescriptor, 32);
ALKNET_ABI(WGPUVertexAttribute, 32);
ALKNET_OFF(WGPUVertexAttribute, offset, 16);
ALKNET_OFF(WGPUVertexAttribute, shaderLocation, 24);
ALKNET_ABI(WGPUVertexBufferLayout, 40);
ALKNET_OFF(WGPUVertexBufferLayout, arrayStride, 16);
ALKNET_ABI(WGPUVertexState, 64);
ALKNET_OFF(WGPUVertexState, bufferCount, 48);
ALKNET_ABI(WGPUPrimitiveState, 32);
ALKNET_OFF(WGPUPrimitiveState, unclippedDepth, 24);
ALKNET_ABI(WGPUStencilFaceState, 16);
ALKNET_ABI(WGPUDepthStencilState, 72);
ALKNET_OFF(WGPUDepthStencilState, stencilFront, 20);
ALKNET_OFF(WGPUDepthStencilState, stencilReadMask, 52);
ALKNET_OFF(WGPUDepthStencilState, depthBiasClamp, 68);
ALKNET_ABI(WGPUMultisampleState, 24);
ALKNET_ABI(WGPUBlendComponent, 12);
ALKNET_ABI(WGPUBlendState, 24);
ALKNET_ABI(WGPUColorTargetState, 32);
ALKNET_OFF(WGPUColorTargetState, writeMask, 24);
ALKNET_ABI(WGPUFragmentState, 64);
ALKNET_ABI(WGPURenderPipelineDescriptor, 168);
ALKNET_OFF(WGPURenderPipelineDescriptor, vertex, 32);
ALKNET_OFF(WGPURenderPipelineDescriptor, primitive, 96);
ALKNET_OFF(WGPURenderPipelineDescriptor, depthStencil, 128);
ALKNET_OFF(WGPURenderPipelineDescriptor, multisample, 136);
ALKNET_OFF(WGPURenderPipelineDescriptor, fragment, 160);
ALKNET_ABI(WGPUCreateRenderPipelineAsyncCallbackInfo, 40);
ALKNET_ABI(WGPUCreateComputePipelineAsyncCallbackInfo, 40);
ALKNET_ABI(WGPURenderPassColorAttachment, 72);
ALKNET_OFF(WGPURenderPassColorAttachment, depthSlice, 16);
ALKNET_OFF(WGPURenderPassColorAttachment, loadOp, 32);
ALKNET_OFF(WGPURenderPassColorAttachment, clearValue, 40);
ALKNET_ABI(WGPURenderPassDepthStencilAttachment, 48);
ALKNET_OFF(WGPURenderPassDepthStencilAttachment, depthClearValue, 24);
ALKNET_OFF(WGPURenderPassDepthStencilAttachment, stencilReadOnly, 44);
ALKNET_ABI(WGPURenderPassDescriptor, 64);
ALKNET_OFF(WGPURenderPassDescriptor, colorAttachments, 32);
ALKNET_OFF(WGPURenderPassDescriptor, timestampWrites, 56);
ALKNET_ABI(WGPUTexelCopyBufferLayout, 16);
ALKNET_ABI(WGPUTexelCopyBufferInfo, 24);
ALKNET_ABI(WGPUTexelCopyTextureInfo, 32);
ALKNET_OFF(WGPUTexelCopyTextureInfo, origin, 12);
ALKNET_OFF(WGPUTexelCopyTextureInfo, aspect, 24);
ALKNET_ABI(WGPURenderBundleDescriptor, 24);
ALKNET_ABI(WGPURenderBundleEncoderDescriptor, 56);
ALKNET_OFF(WGPURenderBundleEncoderDescriptor, depthStencilFormat, 40);
#undef ALKNET_ABI
#undef ALKNET_OFF
