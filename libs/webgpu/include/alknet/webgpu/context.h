// The WebGPU device layer: adapters, one device, buffers, shaders, cached compute pipelines.
//
// Typical use:
//   auto ctx = Context::Create({});                  // lavapipe without a GPU
//   auto buf = ctx->CreateBuffer(n * 4, kStorageUsage, "x");
//   ctx->Write(*buf, 0, bytes);
//   auto kernel = ctx->GetKernel({.wgsl = src, .bindings = {BindingType::kStorage}});
//   Recorder rec = ctx->BeginCommands();
//   rec.Dispatch(**kernel, {{&*buf}}, ctx->GridFor(n, 256));
//   ctx->Submit(std::move(rec));
//   ctx->Read(*buf, 0, out);
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "alknet/webgpu/blob_cache.h"
#include "alknet/webgpu/handle.h"
#include "alknet/webgpu/result.h"

namespace alknet::webgpu {

// ---- Adapters ------------------------------------------------------------------------------

struct AdapterDescription {
  std::string vendor;
  std::string architecture;
  std::string device;
  std::string description;
  WGPUBackendType backend = WGPUBackendType_Undefined;
  WGPUAdapterType type = WGPUAdapterType_Unknown;
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  uint32_t subgroup_min_size = 0;
  uint32_t subgroup_max_size = 0;
  WGPULimits limits{};
  std::vector<WGPUFeatureName> features;

  // "NVIDIA H200 (Vulkan, discrete GPU)" style one-liner.
  std::string Summary() const;
};

struct AdapterEntry {
  Adapter adapter;
  AdapterDescription description;
};

const char* BackendName(WGPUBackendType backend);
const char* AdapterTypeName(WGPUAdapterType type);
// The spec/Dawn name of a feature ("shader-f16"), or "unknown-0x..." for ones we do not know.
std::string FeatureName(WGPUFeatureName feature);
// Every limit as (name, value), in webgpu.h order, for display.
std::vector<std::pair<std::string, uint64_t>> LimitList(const WGPULimits& limits);

// Creates an instance with timed WaitAny enabled.
Result<Instance> CreateInstance();

// Every adapter the implementation offers. webgpu.h has no enumeration call, so this asks
// requestAdapter under each backend / power preference / fallback combination and keeps
// the distinct answers, ordered discrete GPU, integrated GPU, CPU, other.
Result<std::vector<AdapterEntry>> EnumerateAdapters(const Instance& instance);
// One requestAdapter: the adapter the implementation picks for these options, or none.
Result<std::optional<AdapterEntry>> RequestAdapter(const Instance& instance,
                                                   WGPUBackendType backend,
                                                   WGPUPowerPreference power, bool fallback);

// ---- Context -------------------------------------------------------------------------------

// How Context::Write moves bytes to the device (ADR 0021):
//   kWrite   wgpuQueueWriteBuffer for every write;
//   kStaged  every write through the pooled MapWrite|CopySrc staging buffers;
//   kAuto    staged for writes of kStagedUploadMinBytes or more on GPU adapters, writeBuffer
//            on CPU adapters (lavapipe, where staging measured no faster) and for small writes.
enum class UploadMode { kWrite, kStaged, kAuto };
// More than 1 MiB: on the H100 writeBuffer took 0.16 ms for 1 MiB against 0.28 ms staged, and
// 2.9 ms for 2 MiB against 0.32 ms (docs/results/h200/2026-12-07-h100-sha256/bench_upload.txt).
inline constexpr uint64_t kStagedUploadMinBytes = (uint64_t{1} << 20) + 4;
// The staging pool's bounds: writes are cut into chunks of at most kUploadChunk bytes; at
// most kUploadPoolCount staging buffers, kUploadPoolBytes in all, live at once.
inline constexpr uint64_t kUploadChunk = uint64_t{64} << 20;
inline constexpr uint64_t kUploadPoolBytes = uint64_t{128} << 20;
inline constexpr size_t kUploadPoolCount = 8;
// "write", "staged", "auto"; nullopt for anything else.
std::optional<UploadMode> ParseUploadMode(std::string_view name);
const char* UploadModeName(UploadMode mode);

struct ContextOptions {
  // Substring of the adapter's name (case-insensitive) or its index in EnumerateAdapters();
  // empty: the ALKNET_ADAPTER environment variable, else the first adapter (a GPU if any).
  std::string adapter;
  // Without a selector: high-performance prefers discrete GPUs, low-power integrated ones;
  // CPU adapters (lavapipe) come last either way. ALKNET_POWER_PREFERENCE=low-power|
  // high-performance overrides Undefined.
  WGPUPowerPreference power_preference = WGPUPowerPreference_Undefined;
  // Request the adapter's maximum limits rather than the defaults (lavapipe's default storage
  // binding limit is 128 MiB; real GPUs allow GBs).
  bool max_limits = true;
  // Features to enable when the adapter has them.
  std::vector<WGPUFeatureName> optional_features = {
      WGPUFeatureName_ShaderF16, WGPUFeatureName_Subgroups, WGPUFeatureName_TimestampQuery};
  // Dawn's blob cache on disk (DiskBlobCache, ADR 0024), in
  // DiskBlobCache::DirectoryFromEnvironment(); false, or ALKNET_PIPELINE_CACHE=off: none.
  bool pipeline_cache = true;
  // How Context::Write uploads (ADR 0021); nullopt: ALKNET_UPLOAD=write|staged|auto, else auto.
  std::optional<UploadMode> upload;
};

inline constexpr WGPUBufferUsage kStorageUsage =
    WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst;

struct Buffer {
  BufferHandle handle;
  uint64_t size = 0;  // as created: a multiple of 4
  WGPUBufferUsage usage = 0;
};

enum class BindingType { kStorage, kReadOnlyStorage, kUniform };

struct KernelSpec {
  std::string wgsl;
  std::string entry_point = "main";
  // Bindings of group 0, binding i = bindings[i]. Empty: the layout is derived from the shader.
  std::vector<BindingType> bindings;
  std::string label = "kernel";
};

struct Kernel {
  ComputePipeline pipeline;
  BindGroupLayout layout;
  std::string label;
};

struct BufferBinding {
  const Buffer* buffer = nullptr;
  uint64_t offset = 0;
  uint64_t size = WGPU_WHOLE_SIZE;
};

struct Grid {
  uint32_t x = 1, y = 1, z = 1;
};

class Context;

// Records dispatches and copies into one command buffer; Context::Submit sends it.
class Recorder {
 public:
  Recorder(Recorder&&) = default;
  Recorder& operator=(Recorder&&) = default;

  Status Dispatch(const Kernel& kernel, std::span<const BufferBinding> bindings, Grid grid);
  // A dispatch with a bind group made earlier (Context::CreateBindGroup, for `kernel`'s
  // layout) and a grid within the device's limits: a replayed recording reuses its groups.
  // The recorder keeps a reference to the group until it is submitted.
  void Dispatch(const Kernel& kernel, BindGroup group, Grid grid);
  void Copy(const Buffer& src, uint64_t src_offset, const Buffer& dst, uint64_t dst_offset,
            uint64_t size);
  void Clear(const Buffer& buffer, uint64_t offset, uint64_t size);

 private:
  friend class Context;
  explicit Recorder(Context* ctx, CommandEncoder encoder)
      : ctx_(ctx), encoder_(std::move(encoder)) {}
  Context* ctx_;
  CommandEncoder encoder_;
  // Bind groups must outlive recording; they are released with the recorder.
  std::vector<BindGroup> bind_groups_;
};

class Context {
 public:
  static Result<std::unique_ptr<Context>> Create(const ContextOptions& options = {});
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const AdapterDescription& adapter() const { return adapter_description_; }
  const WGPULimits& limits() const { return limits_; }
  bool HasFeature(WGPUFeatureName feature) const;
  WGPUInstance instance() const { return instance_.get(); }
  WGPUAdapter adapter_handle() const { return adapter_.get(); }
  WGPUDevice device() const { return device_.get(); }
  WGPUQueue queue() const { return queue_.get(); }

  // Buffers. Sizes are rounded up to a multiple of 4; a size beyond maxBufferSize is an error
  // naming the limit.
  Result<Buffer> CreateBuffer(uint64_t size, WGPUBufferUsage usage, std::string_view label);
  // Uploads `data` at `offset` (a multiple of 4; a ragged tail is written zero-padded to a
  // whole word). Ordered like wgpuQueueWriteBuffer: after every command buffer submitted
  // before the call, before every one submitted after it. Large writes go through a bounded
  // pool of mapped staging buffers (upload_mode()); a staging buffer that cannot be created
  // or mapped falls back to writeBuffer.
  Status Write(const Buffer& buffer, uint64_t offset, std::span<const std::byte> data);
  UploadMode upload_mode() const { return upload_mode_; }
  void set_upload_mode(UploadMode mode) { upload_mode_ = mode; }
  // Whether a write of `bytes` takes the staged path under the current mode and adapter.
  bool StagesWrite(uint64_t bytes) const;
  // Counters for tests and benchmarks: bytes that went through each path.
  struct UploadStats {
    uint64_t staged_bytes = 0, written_bytes = 0, fallbacks = 0, waits = 0;
    uint64_t staging_buffers_created = 0;
  };
  const UploadStats& upload_stats() const { return upload_stats_; }
  // Copies through a pooled staging buffer and mapAsync, in chunks for large reads.
  Status Read(const Buffer& buffer, uint64_t offset, std::span<std::byte> out);
  // Several reads with one submit and one map: every copy goes into one staging buffer (packed
  // at 4-byte boundaries) in one command buffer, which is submitted, mapped and waited for
  // once. With `commands`, the copies are appended to that recorder's commands after what it
  // already holds, and it is the one submitted: work and read-back in a single submit. Reads
  // that together exceed one staging chunk fall back to one Read each (after submitting
  // `commands`). Each `out` must fit its buffer from `offset` (a multiple of 4).
  struct ReadRequest {
    const Buffer* buffer = nullptr;
    uint64_t offset = 0;
    std::span<std::byte> out;
  };
  Status ReadMany(std::span<const ReadRequest> reads, std::optional<Recorder> commands = {});

  // Compiles WGSL; a compilation error carries label:line:column and the offending line.
  Result<ShaderModule> CompileWgsl(std::string_view source, std::string_view label);
  // Pipelines are cached by (WGSL hash, entry point, layout). The Kernel lives as long as
  // the Context.
  Result<const Kernel*> GetKernel(const KernelSpec& spec);
  // A bind group of `kernel`'s layout over `bindings` (binding i = bindings[i]); a binding
  // larger than maxStorageBufferBindingSize is an error naming the limit.
  Result<BindGroup> CreateBindGroup(const Kernel& kernel, std::span<const BufferBinding> bindings);
  size_t cached_kernel_count() const { return kernel_count_; }
  // The persistent pipeline cache Dawn reads and fills (nullptr: none for this device).
  const DiskBlobCache* pipeline_cache() const { return blob_cache_.get(); }

  // A grid of workgroups covering `invocations` with `workgroup_size` threads each, within
  // maxComputeWorkgroupsPerDimension (spills into y). Shaders index with
  // gid.x + gid.y * num_workgroups.x * workgroup_size.
  Result<Grid> GridFor(uint64_t invocations, uint32_t workgroup_size) const;

  Recorder BeginCommands(std::string_view label = "alknet");
  // Submits and checks validation / out-of-memory errors raised while recording.
  Status Submit(Recorder recorder);
  // Submits without an error scope round-trip (hot loops); errors still surface as
  // uncaptured errors, see TakeUncapturedErrors().
  void SubmitUnchecked(Recorder recorder);
  // Waits until the queue has finished all submitted work.
  Status WaitIdle(std::chrono::milliseconds timeout = std::chrono::minutes(5));

  // Waits for one future created with WGPUCallbackMode_WaitAnyOnly.
  Status Wait(WGPUFuture future, std::chrono::nanoseconds timeout);
  // Runs callbacks registered with AllowProcessEvents (the JS event loop's pump).
  void ProcessEvents();

  // Error scopes: Begin pushes validation, out-of-memory and internal scopes; End pops them
  // and returns the first error. Scopes nest.
  void PushErrorScopes();
  Status PopErrorScopes(std::string_view what);

  // Errors that no scope caught, oldest first; the list is cleared.
  std::vector<Error> TakeUncapturedErrors();
  bool lost() const { return lost_.load(); }
  // The device-lost message, or empty.
  std::string lost_message() const;

  // For tests: destroys the device, as a driver reset would.
  void DestroyDeviceForTesting();

 private:
  Context() = default;
  Status CheckLost() const;
  Result<Buffer> AcquireStaging(uint64_t min_size);
  void ReleaseStaging(Buffer buffer);
  // The staged upload path (context.cpp, "Staged uploads").
  struct UploadStaging;
  void WriteDirect(const Buffer& buffer, uint64_t offset, std::span<const std::byte> data);
  bool WriteStagedChunk(const Buffer& buffer, uint64_t offset, std::span<const std::byte> data);
  UploadStaging* AcquireUploadStaging(uint64_t min_size);
  bool WaitUploadMap(UploadStaging& s, std::chrono::nanoseconds timeout);
  void DropUploadStaging(size_t index);
  void DrainUploadStaging();

  static void OnUncapturedError(const WGPUDevice*, WGPUErrorType, WGPUStringView, void*, void*);
  static void OnDeviceLost(const WGPUDevice*, WGPUDeviceLostReason, WGPUStringView, void*, void*);

  // Declared first: Dawn may call into it until the device is gone.
  std::unique_ptr<DiskBlobCache> blob_cache_;
  Instance instance_;
  Adapter adapter_;
  AdapterDescription adapter_description_;
  DeviceHandle device_;
  Queue queue_;
  WGPULimits limits_{};
  std::vector<WGPUFeatureName> features_;

  mutable std::mutex errors_mutex_;
  std::vector<Error> uncaptured_;
  std::string lost_message_;
  std::atomic<bool> lost_{false};
  bool closing_ = false;

  std::vector<Buffer> staging_free_;
  UploadMode upload_mode_ = UploadMode::kAuto;
  UploadStats upload_stats_;
  // Oldest first; bounded by kUploadPoolBytes / kUploadPoolCount (context.cpp).
  std::vector<std::unique_ptr<UploadStaging>> upload_pool_;
  struct CachedKernel {
    std::string source, entry_point, layout;
    std::unique_ptr<Kernel> kernel;
  };
  // Keyed by a 64-bit hash of (WGSL, entry point, layout); entries compare the full key, so
  // a hash collision costs a lookup, never a wrong pipeline.
  std::unordered_map<uint64_t, std::vector<CachedKernel>> kernels_;
  size_t kernel_count_ = 0;
};

}  // namespace alknet::webgpu
