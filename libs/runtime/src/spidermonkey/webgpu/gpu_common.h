// Shared machinery of the WebGPU JS binding (https://www.w3.org/TR/webgpu/): one JS class per
// IDL interface, each in its own gpu_<interface>.cpp, forwarding to alknet::webgpu handles.
//
// A JS object owns its C++ half (reserved slot 0; the finalizer deletes it). Further slots cache
// JS objects the spec says are the same on every access (device.queue, adapter.limits...).
#pragma once

#include <js/CallAndConstruct.h>

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
};

inline constexpr uint32_t kOwnerSlot = 0;
extern const JSClassOps kClassOps;

// Defines Name::kClass with `cache_slots` extra slots.
#define ALKNET_GPU_CLASS(Name, cache_slots)                                            \
  const JSClass Name::kClass = {#Name,                                                 \
                                JSCLASS_HAS_RESERVED_SLOTS(1 + (cache_slots)) |        \
                                    JSCLASS_FOREGROUND_FINALIZE,                       \
                                &kClassOps}

// The per-engine WebGPU state: one instance, the interfaces' prototypes.
struct DeviceShared;
struct GpuState {
  wg::Instance instance;
  std::vector<std::shared_ptr<DeviceShared>> devices;
  std::unordered_map<const JSClass*, std::unique_ptr<JS::PersistentRootedObject>> prototypes;
  bool closing = false;
};
GpuState& State(JSContext* cx);
// The instance, created (and the loop's GPU poller installed) on first use.
WGPUInstance Instance(JSContext* cx);

struct InterfaceSpec {
  const JSClass* cls;
  const JSPropertySpec* properties;
  const JSFunctionSpec* methods;
};
// Puts the interface on the global, not constructible from script (as in browsers).
bool DefineInterface(JSContext* cx, JS::HandleObject global, const InterfaceSpec& spec);
// A new JS object of `cls` owning `owner`.
JSObject* Wrap(JSContext* cx, const JSClass* cls, std::unique_ptr<GpuObject> owner);
// The same for GPUObjectBase interfaces, whose `label` starts as the descriptor's (a writable
// data property here).
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
#define ALKNET_GPU_THIS(T, what)                                      \
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);                   \
  T* self = UnwrapValue<T>(cx, args.thisv(), what);                   \
  if (self == nullptr) return false

// ---- WebIDL conversions -----------------------------------------------------------------------
// Reads dict[name]; `present` is false when the member is absent or undefined.
bool Member(JSContext* cx, JS::HandleObject dict, const char* name, JS::MutableHandleValue out,
            bool* present);
// [EnforceRange] unsigned long / unsigned long long: TypeError for NaN, infinities, negatives
// and values beyond the type (WebIDL ConvertToInt).
bool ToU32(JSContext* cx, JS::HandleValue v, std::string_view what, uint32_t* out);
bool ToU64(JSContext* cx, JS::HandleValue v, std::string_view what, uint64_t* out);
bool RequiredU64(JSContext* cx, JS::HandleObject dict, const char* name, std::string_view what,
                 uint64_t* out);
bool OptionalU64(JSContext* cx, JS::HandleObject dict, const char* name, std::string_view what,
                 uint64_t fallback, uint64_t* out);
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

// ---- the interfaces' C++ halves (thin: a handle and what the spec makes observable) -----------
struct GPU : GpuObject {
  static const JSClass kClass;
};
struct GPUAdapter : GpuObject {
  static const JSClass kClass;
  enum Slot { kFeatures = 1, kLimits, kInfo, kSlotCount = 3 };
  wg::Adapter adapter;
};
struct DeviceShared;  // errors and loss, shared with callbacks (gpu_device.cpp)
struct GPUDevice : GpuObject {
  static const JSClass kClass;
  enum Slot { kQueue = 1, kLost, kFeatures, kLimits, kSlotCount = 4 };
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
  uint64_t map_offset = 0, map_size = 0;
  bool mapped_at_creation = false;
  bool map_pending = false;
  bool writable_mapping = false;
  std::vector<std::unique_ptr<JS::PersistentRootedObject>> ranges;
};
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

// Creates the JS GPUDevice for a new device (gpu_device.cpp).
JSObject* NewDevice(JSContext* cx, wg::DeviceHandle device, std::shared_ptr<DeviceShared> shared,
                    std::string_view label);
std::shared_ptr<DeviceShared> NewDeviceShared(JSContext* cx);
// The callbacks a device descriptor needs for loss and uncaptured errors (gpu_device.cpp).
void SetDeviceCallbacks(WGPUDeviceDescriptor& desc, DeviceShared* shared);
// A GPUSupportedLimits object (gpu_adapter.cpp) and a limits dictionary reader.
JSObject* NewSupportedLimits(JSContext* cx, const WGPULimits& limits);
bool ReadRequiredLimits(JSContext* cx, JS::HandleObject dict, WGPULimits* limits);
JSObject* NewFeatureSet(JSContext* cx, const std::vector<std::string>& names);

}  // namespace alknet::runtime::sm::gpu
