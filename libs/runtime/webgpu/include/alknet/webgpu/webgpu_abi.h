// alknet's own declarations of the subset of the standard webgpu.h C API that alknet uses.
//
// No header ships with the pinned Dawn binary (npm bun-webgpu-linux-x64@0.1.7), so these are
// written from the ABI facts of the webgpu-headers revision that Dawn build implements: the
// "callback info + WGPUFuture + WGPUStringView" generation, 1-based status enums, 64-bit flag
// types. The FFI definitions in npm bun-webgpu@0.1.7 (index.js) state the same layouts, and
// libs/runtime/webgpu/tests/abi_test.cpp checks the layouts against the loaded library.
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
#undef ALKNET_WGPU_HANDLE

inline constexpr size_t WGPU_STRLEN = SIZE_MAX;
inline constexpr uint64_t WGPU_WHOLE_SIZE = UINT64_MAX;
inline constexpr size_t WGPU_WHOLE_MAP_SIZE = SIZE_MAX;
inline constexpr uint32_t WGPU_LIMIT_U32_UNDEFINED = UINT32_MAX;
inline constexpr uint64_t WGPU_LIMIT_U64_UNDEFINED = UINT64_MAX;

// ---- Enums (uint32_t in the ABI) ---------------------------------------------------------
enum WGPUSType : uint32_t {
  WGPUSType_ShaderSourceSPIRV = 0x00000001,
  WGPUSType_ShaderSourceWGSL = 0x00000002,
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
#undef ALKNET_ABI
#undef ALKNET_OFF
