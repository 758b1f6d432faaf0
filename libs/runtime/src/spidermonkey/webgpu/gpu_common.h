// Shared machinery of the WebGPU JS binding (https://www.w3.org/TR/webgpu/): one JS class per
// IDL interface, each in its own gpu_<interface>.cpp, forwarding to alknet::webgpu handles.
//
// A JS object owns its C++ half (reserved slot 0; the finalizer deletes it). Further slots cache
// JS objects the spec says are the same on every access (device.queue, adapter.limits...).
#pragma once

#include <js/CallAndConstruct.h>

#include <atomic>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "alknet/webgpu/context.h"
#include "alknet/webgpu/handle.h"
#include "spidermonkey/sm.h"

namespace alknet::runtime::sm::gpu {

namespace wg = alknet::webgpu;

struct GpuObject {
  virtual ~GpuObject() = default;
  // Memory outside the JS heap that this object keeps alive (a GPU buffer's bytes: host memory
  // on lavapipe), told to the GC with JS::AddAssociatedMemory so that unreachable buffers are
  // collected under memory pressure; removed again by the finalizer or an explicit destroy().
  size_t associated_bytes = 0;
  // GPUObjectBase.label (a prototype accessor reads and writes it).
  std::string label;
};
// Adds/removes `bytes` of associated memory for `obj`'s owner.
void AssociateMemory(JSObject* obj, GpuObject* owner, uint64_t bytes);
void DisassociateMemory(JSObject* obj, GpuObject* owner);

inline constexpr uint32_t kOwnerSlot = 0;
extern const JSClassOps kClassOps;

// Defines Name::kClass with `cache_slots` extra slots.
#define ALKNET_GPU_CLASS(Name, cache_slots)                                               \
  const JSClass Name::kClass = {                                                          \
      #Name, JSCLASS_HAS_RESERVED_SLOTS(1 + (cache_slots)) | JSCLASS_FOREGROUND_FINALIZE, \
      &kClassOps}

// The per-engine WebGPU state: one instance, the interfaces' prototypes.
struct DeviceShared;
// A GPUDevice over a webgpu::Context's device (alknet:compute's, webgpu_interop.h's
// WrapContextDevice): the Context's own instance is pumped beside navigator.gpu's, and its
// uncaptured errors and loss reach the JS device (gpu_device.cpp).
struct ContextDevice {
  wg::Context* context = nullptr;  // outlives the engine
  std::shared_ptr<DeviceShared> shared;
  bool lost_reported = false;
};
struct GpuState {
  wg::Instance instance;
  std::vector<std::shared_ptr<DeviceShared>> devices;
  std::vector<ContextDevice> context_devices;
  std::unordered_map<const JSClass*, std::unique_ptr<JS::PersistentRootedObject>> prototypes;
  bool closing = false;
};
GpuState& State(JSContext* cx);
// The instance, created (and the loop's GPU poller installed) on first use.
WGPUInstance Instance(JSContext* cx);
// The loop's GPU poll beyond navigator.gpu's instance: the context devices' instances, their
// errors and loss (gpu_device.cpp).
void PollContextDevices(JSContext* cx);
// At engine shutdown, with `closing` set: waits for the context devices' queues and runs their
// instances' callbacks, which then reach no JS (the Contexts outlive the engine).
void DrainContextDevices(GpuState& state);

struct InterfaceSpec {
  const JSClass* cls;
  const JSPropertySpec* properties;
  const JSFunctionSpec* methods;
  // GPUObjectBase interfaces get the `label` accessor on their prototype.
  bool labelled = true;
};
// Puts the interface on the global, not constructible from script (as in browsers).
bool DefineInterface(JSContext* cx, JS::HandleObject global, const InterfaceSpec& spec);
// A new JS object of `cls` owning `owner`.
JSObject* Wrap(JSContext* cx, const JSClass* cls, std::unique_ptr<GpuObject> owner);
// The same for GPUObjectBase interfaces, whose `label` starts as the descriptor's (read and
// written through the prototype's accessor).
JSObject* WrapLabelled(JSContext* cx, const JSClass* cls, std::unique_ptr<GpuObject> owner,
                       std::string_view label);

template <typename T>
T* UnwrapValue(JSContext* cx, JS::HandleValue v, std::string_view what) {
  if (v.isObject() && JS::GetClass(&v.toObject()) == &T::kClass) {
    auto* owner = JS::GetMaybePtrFromReservedSlot<GpuObject>(&v.toObject(), kOwnerSlot);
    if (owner) return static_cast<T*>(owner);
  }
  ThrowTypeError(cx, std::string(what) + ": expected a " + T::kClass.name);
  return nullptr;
}

// Declares `args` and `self` for a method of interface T.
#define ALKNET_GPU_THIS(T, what)                    \
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp); \
  T* self = UnwrapValue<T>(cx, args.thisv(), what); \
  if (self == nullptr) return false

// ---- WebIDL conversions -----------------------------------------------------------------------
// Reads dict[name]; `present` is false when the member is absent or undefined.
bool Member(JSContext* cx, JS::HandleObject dict, const char* name, JS::MutableHandleValue out,
            bool* present);
// [EnforceRange] unsigned long / unsigned long long: TypeError for NaN, infinities, negatives
// and values beyond the type (WebIDL ConvertToInt).
bool ToU32(JSContext* cx, JS::HandleValue v, std::string_view what, uint32_t* out);
bool ToU64(JSContext* cx, JS::HandleValue v, std::string_view what, uint64_t* out);
// [EnforceRange] long (GPUSignedOffset32).
bool ToI32(JSContext* cx, JS::HandleValue v, std::string_view what, int32_t* out);
// setBindGroup's dynamic offsets at args[first]: a sequence, or a Uint32Array followed by
// dataStart and dataLength (elements).
bool ReadDynamicOffsets(JSContext* cx, const JS::CallArgs& args, unsigned first,
                        std::string_view what, std::vector<uint32_t>* out);
bool RequiredU64(JSContext* cx, JS::HandleObject dict, const char* name, std::string_view what,
                 uint64_t* out);
bool OptionalU64(JSContext* cx, JS::HandleObject dict, const char* name, std::string_view what,
                 uint64_t fallback, uint64_t* out);
bool RequiredU32(JSContext* cx, JS::HandleObject dict, const char* name, std::string_view what,
                 uint32_t* out);
bool OptionalU32(JSContext* cx, JS::HandleObject dict, const char* name, std::string_view what,
                 uint32_t fallback, uint32_t* out);
// boolean members (ToBoolean; absent = fallback).
bool OptionalBool(JSContext* cx, JS::HandleObject dict, const char* name, bool fallback, bool* out);
// double / float members: WebIDL "restricted" types reject NaN and infinities (TypeError).
bool ToFiniteDouble(JSContext* cx, JS::HandleValue v, std::string_view what, double* out);
bool OptionalDouble(JSContext* cx, JS::HandleObject dict, const char* name, std::string_view what,
                    double fallback, double* out);
// A required member that must be one of our interfaces.
template <typename T>
T* RequiredObject(JSContext* cx, JS::HandleObject dict, const char* name, std::string_view what);
// sequence<T> from any iterable (WebIDL): an Array is used as it is, another iterable is read
// through its @@iterator into a new Array; anything else is a TypeError.
bool ArrayArg(JSContext* cx, JS::HandleValue v, std::string_view what, JS::MutableHandleObject out,
              uint32_t* length);
// GPUExtent3D, GPUOrigin3D, GPUColor: a sequence or a dictionary, with the spec's defaults.
bool ToExtent3D(JSContext* cx, JS::HandleValue v, std::string_view what, WGPUExtent3D* out);
bool ToOrigin3D(JSContext* cx, JS::HandleValue v, std::string_view what, WGPUOrigin3D* out);
bool ToColor(JSContext* cx, JS::HandleValue v, std::string_view what, WGPUColor* out);
// A required dictionary member.
bool RequiredDict(JSContext* cx, JS::HandleObject dict, const char* name, std::string_view what,
                  JS::MutableHandleObject out);
// A TypeError for a missing required member, named as WebIDL engines do.
bool MissingMember(JSContext* cx, std::string_view what, const char* name);

// A dictionary argument: undefined/null become {} (WebIDL), anything else must be an object.
bool DictArg(JSContext* cx, JS::HandleValue v, std::string_view what, JS::MutableHandleObject out);
std::string Label(JSContext* cx, JS::HandleObject dict);

// ---- promises settled from GPU callbacks ------------------------------------------------------
// A promise plus the GpuWorkToken that keeps the loop polling until the callback settles it.
struct PendingPromise {
  explicit PendingPromise(JSContext* cx);
  JSContext* cx;
  JS::PersistentRootedObject promise;
  EventLoop::GpuWorkToken token;
  bool Resolve(JS::HandleValue v);
  bool Reject(JS::HandleValue v);
  // Rejects with `new DOMException(message, name)`.
  void RejectWith(std::string_view name, std::string_view message);
};

// An instance of an interface the prelude implements over plain data (GPUSupportedLimits,
// GPUSupportedFeatures, WGSLLanguageFeatures, GPUAdapterInfo, GPUCompilationInfo,
// GPUCompilationMessage, GPUDeviceLostInfo): the bootstrap's gpuMake(kind, data) hook.
JSObject* MakeFromData(JSContext* cx, const char* kind, JS::HandleValue data);

// A DOMException or GPU error object built by the realm's own constructors.
JSObject* NewNamedError(JSContext* cx, const char* ctor, std::string_view message,
                        std::string_view name = {});

// Hands WebGPU errors no scope caught to device.onuncapturederror (or stderr). Called by the
// engine at every microtask checkpoint; false with an exception pending if a handler threw.
bool DeliverUncapturedErrors(JSContext* cx);

// Interface definitions, one per file.
bool DefineGPU(JSContext* cx, JS::HandleObject global);
bool DefineGPUAdapter(JSContext* cx, JS::HandleObject global);
bool DefineGPUDevice(JSContext* cx, JS::HandleObject global);
bool DefineGPUQueue(JSContext* cx, JS::HandleObject global);
bool DefineGPUBuffer(JSContext* cx, JS::HandleObject global);
bool DefineGPUShaderModule(JSContext* cx, JS::HandleObject global);
bool DefineGPUComputePipeline(JSContext* cx, JS::HandleObject global);
bool DefineGPUBindGroupLayout(JSContext* cx, JS::HandleObject global);
bool DefineGPUPipelineLayout(JSContext* cx, JS::HandleObject global);
bool DefineGPUBindGroup(JSContext* cx, JS::HandleObject global);
bool DefineGPUCommandEncoder(JSContext* cx, JS::HandleObject global);
bool DefineGPUComputePassEncoder(JSContext* cx, JS::HandleObject global);
bool DefineGPUCommandBuffer(JSContext* cx, JS::HandleObject global);
bool DefineGPUTexture(JSContext* cx, JS::HandleObject global);
bool DefineGPUTextureView(JSContext* cx, JS::HandleObject global);
bool DefineGPUSampler(JSContext* cx, JS::HandleObject global);
bool DefineGPUQuerySet(JSContext* cx, JS::HandleObject global);
bool DefineGPURenderPipeline(JSContext* cx, JS::HandleObject global);
bool DefineGPURenderPassEncoder(JSContext* cx, JS::HandleObject global);
bool DefineGPURenderBundleEncoder(JSContext* cx, JS::HandleObject global);
bool DefineGPURenderBundle(JSContext* cx, JS::HandleObject global);

// ---- the interfaces' C++ halves (thin: a handle and what the spec makes observable) -----------
struct GPU : GpuObject {
  static const JSClass kClass;
  enum Slot { kWgslLanguageFeatures = 1, kSlotCount = 1 };
};
struct GPUAdapter : GpuObject {
  static const JSClass kClass;
  enum Slot { kFeatures = 1, kLimits, kInfo, kSlotCount = 3 };
  wg::Adapter adapter;
  // Spec [[state]] "consumed": a device was requested from it (one per adapter).
  bool consumed = false;
};
struct DeviceShared;  // errors and loss, shared with callbacks (gpu_device.cpp)
// True once the device was destroyed or lost (webgpu_interop.h's GpuDeviceGone).
std::shared_ptr<const std::atomic<bool>> DeviceGoneFlag(const DeviceShared& device);
struct GPUDevice : GpuObject {
  static const JSClass kClass;
  enum Slot { kQueue = 1, kLost, kFeatures, kLimits, kAdapterInfo, kSlotCount = 5 };
  ~GPUDevice() override;
  wg::DeviceHandle device;
  std::shared_ptr<DeviceShared> shared;
};
struct GPUQueue : GpuObject {
  static const JSClass kClass;
  wg::Queue queue;
};
struct GPUBuffer : GpuObject {
  static const JSClass kClass;
  wg::BufferHandle buffer;
  uint64_t size = 0;
  uint64_t usage = 0;
  // [offset, offset+size) of the current mapping, and the ArrayBuffers handed out for it
  // (detached on unmap, as the spec requires).
  // The content timeline's view of the map state (spec [[mapping]], [[pending_map]]), which
  // mapState reports: Dawn's own state says "unmapped" while a mapAsync that fails validation
  // is still to be rejected, where the spec says "pending".
  uint64_t map_offset = 0, map_size = 0;
  bool mapped = false;
  bool mapped_at_creation = false;
  bool map_pending = false;
  bool writable_mapping = false;
  // Bumped by unmap/destroy, so that a stale mapAsync callback leaves the state alone.
  uint64_t map_generation = 0;
  std::vector<std::unique_ptr<JS::PersistentRootedObject>> ranges;
  // The device, which detaches this buffer's ranges when it is destroyed or lost.
  std::shared_ptr<DeviceShared> device;
  // Set for a buffer lent by an extension (an alknet:compute tensor's storage): it keeps the
  // storage alive, and destroy() is refused, since the storage is freed with its owner.
  std::shared_ptr<const void> lent_from;
  ~GPUBuffer() override;
};
// Detaches every ArrayBuffer handed out by getMappedRange (unmap, destroy, device loss).
bool DetachRanges(JSContext* cx, GPUBuffer* buffer);
// The buffers of a device that have ranges handed out (gpu_device.cpp keeps the set).
void TrackMappedBuffer(DeviceShared& device, GPUBuffer* buffer);
void UntrackMappedBuffer(DeviceShared& device, GPUBuffer* buffer);
struct GPUShaderModule : GpuObject {
  static const JSClass kClass;
  wg::ShaderModule module;
};
struct GPUComputePipeline : GpuObject {
  static const JSClass kClass;
  wg::ComputePipeline pipeline;
};
struct GPUBindGroupLayout : GpuObject {
  static const JSClass kClass;
  wg::BindGroupLayout layout;
};
struct GPUPipelineLayout : GpuObject {
  static const JSClass kClass;
  wg::PipelineLayout layout;
};
struct GPUBindGroup : GpuObject {
  static const JSClass kClass;
  wg::BindGroup group;
};
struct GPUCommandEncoder : GpuObject {
  static const JSClass kClass;
  wg::CommandEncoder encoder;
};
struct GPUComputePassEncoder : GpuObject {
  static const JSClass kClass;
  wg::ComputePassEncoder pass;
};
struct GPUCommandBuffer : GpuObject {
  static const JSClass kClass;
  wg::CommandBuffer buffer;
};
struct GPUTexture : GpuObject {
  static const JSClass kClass;
  wg::Texture texture;
};
struct GPUTextureView : GpuObject {
  static const JSClass kClass;
  wg::TextureView view;
};
struct GPUSampler : GpuObject {
  static const JSClass kClass;
  wg::Sampler sampler;
};
struct GPUQuerySet : GpuObject {
  static const JSClass kClass;
  wg::QuerySet set;
};
struct GPURenderPipeline : GpuObject {
  static const JSClass kClass;
  wg::RenderPipeline pipeline;
};
struct GPURenderPassEncoder : GpuObject {
  static const JSClass kClass;
  wg::RenderPassEncoder pass;
};
struct GPURenderBundleEncoder : GpuObject {
  static const JSClass kClass;
  wg::RenderBundleEncoder encoder;
};
struct GPURenderBundle : GpuObject {
  static const JSClass kClass;
  wg::RenderBundle bundle;
};

template <typename T>
T* RequiredObject(JSContext* cx, JS::HandleObject dict, const char* name, std::string_view what) {
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, dict, name, &v, &present)) return nullptr;
  if (!present) {
    MissingMember(cx, what, name);
    return nullptr;
  }
  return UnwrapValue<T>(cx, v, std::string(what) + "." + name);
}

// GPUTexelCopyTextureInfo / GPUTexelCopyBufferLayout (gpu_command_encoder.cpp; writeTexture
// uses them too).
bool ToTexelCopyTexture(JSContext* cx, JS::HandleValue v, std::string_view what,
                        WGPUTexelCopyTextureInfo* out);
bool ToTexelCopyBufferLayout(JSContext* cx, JS::HandleObject dict, std::string_view what,
                             WGPUTexelCopyBufferLayout* out);
// GPUComputePassTimestampWrites / GPURenderPassTimestampWrites; `present` false if absent.
bool ToTimestampWrites(JSContext* cx, JS::HandleObject pass_desc, std::string_view what,
                       WGPUPassTimestampWrites* out, bool* present);

// Shared by GPUDevice.createComputePipeline and createRenderPipeline: "auto" or a layout.
bool PipelineLayoutMember(JSContext* cx, JS::HandleObject dict, std::string_view what,
                          WGPUPipelineLayout* out);
// GPUProgrammableStage's constants record, with its key strings kept alive in `keys`.
bool PipelineConstants(JSContext* cx, JS::HandleObject stage, std::string_view what,
                       std::vector<std::string>* keys, std::vector<WGPUConstantEntry>* out);

// The JS GPUDevice over a webgpu::Context's device (gpu_device.cpp; webgpu_interop.h).
JSObject* NewContextDevice(JSContext* cx, wg::Context& context, std::string_view label);
// Creates the JS GPUDevice for a new device (gpu_device.cpp).
JSObject* NewDevice(JSContext* cx, wg::DeviceHandle device, std::shared_ptr<DeviceShared> shared,
                    std::string_view label);
std::shared_ptr<DeviceShared> NewDeviceShared(JSContext* cx);
// The callbacks a device descriptor needs for loss and uncaptured errors (gpu_device.cpp).
void SetDeviceCallbacks(WGPUDeviceDescriptor& desc, DeviceShared* shared);
// A GPUSupportedLimits object (gpu_adapter.cpp) and a limits dictionary reader.
JSObject* NewSupportedLimits(JSContext* cx, const WGPULimits& limits);
// requiredLimits: unknown names and values better than `supported` (or alignments that are
// not powers of two) are an OperationError pending, as the spec's requestDevice says.
bool ReadRequiredLimits(JSContext* cx, JS::HandleObject dict, const WGPULimits& supported,
                        WGPULimits* limits);
JSObject* NewFeatureSet(JSContext* cx, const std::vector<std::string>& names);
// A JS array of strings.
JSObject* NewStringList(JSContext* cx, const std::vector<std::string>& names);
// A GPUAdapterInfo (adapter.info, device.adapterInfo).
JSObject* NewAdapterInfo(JSContext* cx, const WGPUAdapterInfo& info);

}  // namespace alknet::runtime::sm::gpu
