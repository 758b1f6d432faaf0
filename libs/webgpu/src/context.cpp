#include "alknet/webgpu/context.h"
#include "alknet/webgpu/dawn_toggles.h"

#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "alknet/webgpu/procs.h"
#include "log.h"

namespace alknet::webgpu {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

int PreferenceRank(WGPUAdapterType t, WGPUPowerPreference power) {
  switch (t) {
    case WGPUAdapterType_DiscreteGPU: return power == WGPUPowerPreference_LowPower ? 1 : 0;
    case WGPUAdapterType_IntegratedGPU: return power == WGPUPowerPreference_LowPower ? 0 : 1;
    case WGPUAdapterType_CPU: return 2;
    default: return 3;
  }
}

// Dawn offers its Null backend when no real driver loads (no Vulkan ICD found): it accepts
// every call and executes nothing, so a result read back from it is whatever the buffer held.
// It is listed (`alknet info`) but never chosen.
bool IsNullBackend(const AdapterDescription& d) { return d.backend == WGPUBackendType_Null; }

constexpr const char* kOnlyNullBackend =
    "the WebGPU implementation offers only Dawn's Null backend, which runs nothing (no Vulkan "
    "driver was found). Without a GPU alknet needs Mesa's lavapipe >= 25 (mesa-vulkan-drivers "
    "from bookworm-backports; scripts/setup installs it); check `vulkaninfo --summary` and "
    "VK_DRIVER_FILES / VK_ICD_FILENAMES";

Result<size_t> ChooseAdapter(const std::vector<AdapterEntry>& adapters, const std::string& selector,
                             WGPUPowerPreference power) {
  if (adapters.empty()) {
    return Error{ErrorCode::kNoAdapter,
                 "the WebGPU implementation offers no adapter. Without a GPU alknet needs Mesa's "
                 "lavapipe >= 25 (mesa-vulkan-drivers from bookworm-backports; scripts/setup "
                 "installs it); check `vulkaninfo --summary` and VK_DRIVER_FILES / "
                 "VK_ICD_FILENAMES"};
  }
  if (selector.empty()) {
    std::optional<size_t> best;
    for (size_t i = 0; i < adapters.size(); ++i) {
      if (IsNullBackend(adapters[i].description)) continue;
      if (!best || PreferenceRank(adapters[i].description.type, power) <
                       PreferenceRank(adapters[*best].description.type, power)) {
        best = i;
      }
    }
    if (!best) return Error{ErrorCode::kNoAdapter, kOnlyNullBackend};
    return *best;
  }
  const bool numeric = std::all_of(selector.begin(), selector.end(),
                                   [](unsigned char c) { return std::isdigit(c) != 0; });
  std::optional<size_t> match;
  if (numeric) {
    const size_t index = std::strtoul(selector.c_str(), nullptr, 10);
    if (index < adapters.size()) match = index;
  } else {
    const std::string needle = Lower(selector);
    for (size_t i = 0; i < adapters.size() && !match; ++i) {
      const auto& d = adapters[i].description;
      const std::string hay =
          Lower(d.device + " " + d.description + " " + d.vendor + " " + BackendName(d.backend));
      if (hay.find(needle) != std::string::npos) match = i;
    }
  }
  if (match && IsNullBackend(adapters[*match].description)) {
    return Error{ErrorCode::kNoAdapter,
                 "adapter " + std::to_string(*match) + " ('" + selector +
                     "') is Dawn's Null backend, which accepts every command and runs none: its "
                     "results would be garbage, so alknet does not use it"};
  }
  if (match) return *match;
  std::string names;
  for (size_t i = 0; i < adapters.size(); ++i) {
    names += "\n  " + std::to_string(i) + ": " + adapters[i].description.Summary();
  }
  return Error{ErrorCode::kNoAdapter, "no adapter matches '" + selector +
                                          "' (ALKNET_ADAPTER takes an index or a name "
                                          "substring); adapters:" +
                                          names};
}

struct DeviceRequest {
  WGPURequestDeviceStatus status = WGPURequestDeviceStatus_Error;
  WGPUDevice device = nullptr;
  std::string message;
};

void OnDevice(WGPURequestDeviceStatus status, WGPUDevice device, WGPUStringView message,
              void* userdata1, void*) {
  auto* req = static_cast<DeviceRequest*>(userdata1);
  req->status = status;
  req->device = device;
  req->message = std::string(FromSv(message));
}

ErrorCode CodeFor(WGPUErrorType type) {
  switch (type) {
    case WGPUErrorType_Validation: return ErrorCode::kValidation;
    case WGPUErrorType_OutOfMemory: return ErrorCode::kOutOfMemory;
    default: return ErrorCode::kInternal;
  }
}

constexpr uint64_t kUploadMinStaging = uint64_t{64} << 10;

}  // namespace

// One pooled upload staging buffer: mapped (ready to fill), or waiting for its mapAsync.
struct Context::UploadStaging {
  BufferHandle handle;
  uint64_t size = 0;
  bool mapped = false;
  bool pending = false;
  WGPUFuture future{};
  WGPUMapAsyncStatus map_status = WGPUMapAsyncStatus_Error;
  std::string map_message;

  static void OnMap(WGPUMapAsyncStatus status, WGPUStringView message, void* u1, void*) {
    auto* self = static_cast<UploadStaging*>(u1);
    self->map_status = status;
    self->map_message = std::string(FromSv(message));
  }
};

std::optional<UploadMode> ParseUploadMode(std::string_view name) {
  if (name == "write") return UploadMode::kWrite;
  if (name == "staged") return UploadMode::kStaged;
  if (name == "auto") return UploadMode::kAuto;
  return std::nullopt;
}

const char* UploadModeName(UploadMode mode) {
  switch (mode) {
    case UploadMode::kWrite: return "write";
    case UploadMode::kStaged: return "staged";
    case UploadMode::kAuto: return "auto";
  }
  return "auto";
}

Result<std::unique_ptr<Context>> Context::Create(const ContextOptions& options) {
  UploadMode upload = UploadMode::kAuto;
  if (options.upload) {
    upload = *options.upload;
  } else if (const char* env = std::getenv("ALKNET_UPLOAD"); env != nullptr && *env != 0) {
    const std::optional<UploadMode> parsed = ParseUploadMode(env);
    if (!parsed) {
      return Error{ErrorCode::kInvalidArgument, std::string("ALKNET_UPLOAD='") + env +
                                                    "' is not an upload mode (write, staged "
                                                    "or auto)"};
    }
    upload = *parsed;
  }
  ALKNET_ASSIGN_OR_RETURN(Instance instance, CreateInstance());
  std::string selector = options.adapter;
  if (selector.empty()) {
    if (const char* env = std::getenv("ALKNET_ADAPTER"); env != nullptr) selector = env;
  }
  WGPUPowerPreference power = options.power_preference;
  if (power == WGPUPowerPreference_Undefined) {
    const char* env = std::getenv("ALKNET_POWER_PREFERENCE");
    if (env != nullptr && std::strcmp(env, "low-power") == 0) power = WGPUPowerPreference_LowPower;
  }
  std::unique_ptr<Context> ctx(new Context());
  if (selector.empty()) {
    // The default path asks once (a GPU if the implementation has one, else its CPU fallback)
    // instead of enumerating every backend x power x fallback combination: on lavapipe the
    // enumeration cost 150-190 ms, most of a small model's start-up. A selector (an index or
    // a name) still enumerates, so indices mean what `alknet info` lists.
    const WGPUPowerPreference asked =
        power == WGPUPowerPreference_Undefined ? WGPUPowerPreference_HighPerformance : power;
    std::optional<AdapterEntry> entry;
    for (bool fallback : {false, true}) {
      ALKNET_ASSIGN_OR_RETURN(entry,
                              RequestAdapter(instance, WGPUBackendType_Undefined, asked, fallback));
      if (entry && IsNullBackend(entry->description)) entry.reset();
      if (entry) break;
    }
    if (!entry) {
      ALKNET_ASSIGN_OR_RETURN(std::vector<AdapterEntry> adapters, EnumerateAdapters(instance));
      ALKNET_ASSIGN_OR_RETURN(size_t chosen, ChooseAdapter(adapters, selector, power));
      entry = std::move(adapters[chosen]);
    }
    ctx->adapter_ = std::move(entry->adapter);
    ctx->adapter_description_ = std::move(entry->description);
  } else {
    ALKNET_ASSIGN_OR_RETURN(std::vector<AdapterEntry> adapters, EnumerateAdapters(instance));
    ALKNET_ASSIGN_OR_RETURN(size_t chosen, ChooseAdapter(adapters, selector, power));
    ctx->adapter_ = adapters[chosen].adapter;
    ctx->adapter_description_ = adapters[chosen].description;
  }
  ctx->instance_ = std::move(instance);
  ctx->upload_mode_ = upload;
  LogDebug("chose adapter: " + ctx->adapter_description_.Summary());

  std::vector<WGPUFeatureName> features;
  for (WGPUFeatureName f : options.optional_features) {
    if (P().AdapterHasFeature(ctx->adapter_.get(), f)) features.push_back(f);
  }
  WGPUDeviceDescriptor desc{};
  desc.label = Sv("alknet");
  desc.requiredFeatureCount = features.size();
  desc.requiredFeatures = features.data();
  WGPULimits required = ctx->adapter_description_.limits;
  required.nextInChain = nullptr;
  if (options.max_limits) desc.requiredLimits = &required;
  desc.defaultQueue.label = Sv("alknet queue");
  desc.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
  desc.deviceLostCallbackInfo.callback = &Context::OnDeviceLost;
  desc.deviceLostCallbackInfo.userdata1 = ctx.get();
  desc.uncapturedErrorCallbackInfo.callback = &Context::OnUncapturedError;
  desc.uncapturedErrorCallbackInfo.userdata1 = ctx.get();

  // ALKNET_DAWN_TOGGLES="a,-b": Dawn device toggles (e.g. disable_robustness), for measuring
  // what Dawn's checks cost (tools/h200-gemm-sweep); dawn_toggles.h.
  ALKNET_ASSIGN_OR_RETURN(const DawnToggleList device_toggles,
                          DawnTogglesFromEnvironment("ALKNET_DAWN_TOGGLES"));
  DawnTogglesChain toggles(device_toggles);
  if (WGPUChainedStruct* chain = toggles.chain()) {
    desc.nextInChain = chain;
    LogDebug(std::string("device toggles: ") + std::getenv("ALKNET_DAWN_TOGGLES"));
  }

  // Dawn's blob cache on disk (ADR 0024): Dawn's DawnCacheDeviceDescriptor {chain,
  // isolationKey, loadDataFunction, storeDataFunction, functionUserdata}, sType 0x00050007 in
  // the pinned Dawn (the Dawn-only sTypes count up from 0x00050000; DawnTogglesDescriptor is
  // 0x0005000A). The isolation key names the adapter and the library file, so another Dawn
  // build or another GPU never reads these blobs.
  struct DawnCacheDescriptor {
    WGPUChainedStruct chain;
    WGPUStringView isolation_key;
    size_t (*load)(const void*, size_t, void*, size_t, void*);
    void (*store)(const void*, size_t, const void*, size_t, void*);
    void* userdata;
  } cache_desc{};
  std::string isolation_key;
  if (options.pipeline_cache) {
    ctx->blob_cache_ = DiskBlobCache::Open(DiskBlobCache::DirectoryFromEnvironment(),
                                           DiskBlobCache::MaxBytesFromEnvironment());
  }
  if (ctx->blob_cache_) {
    const AdapterDescription& a = ctx->adapter_description_;
    isolation_key = "alknet1|" + a.vendor + "|" + a.architecture + "|" + a.device + "|" +
                    a.description + "|" + std::to_string(a.vendor_id) + ":" +
                    std::to_string(a.device_id) + "|" + BackendName(a.backend);
    const std::string lib = WebGpuLibraryPath();
    struct stat st {};
    if (::stat(lib.c_str(), &st) == 0) {
      isolation_key += "|" + lib + "|" + std::to_string(st.st_size) + "|" +
                       std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
    }
    cache_desc.chain.sType = static_cast<WGPUSType>(0x00050007);
    cache_desc.chain.next = desc.nextInChain;
    cache_desc.isolation_key = Sv(isolation_key);
    cache_desc.load = &DiskBlobCache::LoadCallback;
    cache_desc.store = &DiskBlobCache::StoreCallback;
    cache_desc.userdata = ctx->blob_cache_.get();
    desc.nextInChain = &cache_desc.chain;
    LogDebug("pipeline cache: " + ctx->blob_cache_->directory());
  }

  auto request_device = [&ctx](const WGPUDeviceDescriptor& d) -> Result<DeviceRequest> {
    DeviceRequest req;
    WGPURequestDeviceCallbackInfo cb{};
    cb.mode = WGPUCallbackMode_WaitAnyOnly;
    cb.callback = &OnDevice;
    cb.userdata1 = &req;
    WGPUFutureWaitInfo wait{P().AdapterRequestDevice(ctx->adapter_.get(), &d, cb), 0};
    if (P().InstanceWaitAny(ctx->instance_.get(), 1, &wait, UINT64_MAX) != WGPUWaitStatus_Success) {
      return Error{ErrorCode::kInternal, "waiting for requestDevice failed"};
    }
    return req;
  };
  ALKNET_ASSIGN_OR_RETURN(DeviceRequest req, request_device(desc));
  if ((req.status != WGPURequestDeviceStatus_Success || req.device == nullptr) &&
      ctx->blob_cache_) {
    // An implementation that does not know Dawn's cache descriptor refuses the chain: run
    // without the persistent cache rather than without a device.
    LogDebug("requestDevice with the pipeline cache failed (" + req.message +
             "); retrying without it");
    desc.nextInChain = cache_desc.chain.next;
    ctx->blob_cache_.reset();
    ALKNET_ASSIGN_OR_RETURN(req, request_device(desc));
  }
  if (req.status != WGPURequestDeviceStatus_Success || req.device == nullptr) {
    return Error{ErrorCode::kDeviceRequest, "adapter " + ctx->adapter_description_.Summary() +
                                                " refused to create a device: " + req.message};
  }
  ctx->device_ = DeviceHandle::Adopt(req.device);
  ctx->queue_ = Queue::Adopt(P().DeviceGetQueue(req.device));
  if (P().DeviceGetLimits(req.device, &ctx->limits_) != WGPUStatus_Success) {
    return Error{ErrorCode::kInternal, "wgpuDeviceGetLimits failed"};
  }
  ctx->features_ = std::move(features);
  return ctx;
}

Context::~Context() {
  {
    std::lock_guard lock(errors_mutex_);
    closing_ = true;
  }
  if (blob_cache_ && DebugLogEnabled()) {
    const BlobCacheStats s = blob_cache_->stats();
    LogDebug("pipeline cache: " + std::to_string(s.hits) + " hits, " + std::to_string(s.misses) +
             " misses, " + std::to_string(s.stores) + " stored, " + std::to_string(s.refused) +
             " refused");
  }
  if (DebugLogEnabled()) {
    const UploadStats& u = upload_stats_;
    LogDebug(std::string("uploads (") + UploadModeName(upload_mode_) +
             "): " + std::to_string(u.staged_bytes) + " bytes staged, " +
             std::to_string(u.written_bytes) + " through writeBuffer, " +
             std::to_string(u.fallbacks) + " fallbacks, " + std::to_string(u.waits) +
             " pool waits, " + std::to_string(u.staging_buffers_created) + " staging buffers");
  }
  DrainUploadStaging();
  kernels_.clear();
  staging_free_.clear();
  queue_ = Queue();
  if (device_) {
    // Destroying first makes the lost callback fire now (reason Destroyed), while `this` is
    // still alive, instead of during a later event pump.
    P().DeviceDestroy(device_.get());
    P().InstanceProcessEvents(instance_.get());
  }
}

bool Context::HasFeature(WGPUFeatureName feature) const {
  return std::find(features_.begin(), features_.end(), feature) != features_.end();
}

void Context::OnUncapturedError(const WGPUDevice*, WGPUErrorType type, WGPUStringView message,
                                void* userdata1, void*) {
  auto* self = static_cast<Context*>(userdata1);
  std::lock_guard lock(self->errors_mutex_);
  if (self->closing_) return;
  self->uncaptured_.push_back(Error{CodeFor(type), std::string(FromSv(message))});
  LogDebug("uncaptured WebGPU error: " + std::string(FromSv(message)));
}

void Context::OnDeviceLost(const WGPUDevice*, WGPUDeviceLostReason reason, WGPUStringView message,
                           void* userdata1, void*) {
  auto* self = static_cast<Context*>(userdata1);
  std::lock_guard lock(self->errors_mutex_);
  if (self->closing_ || reason == WGPUDeviceLostReason_CallbackCancelled) return;
  self->lost_message_ = std::string(FromSv(message));
  self->lost_.store(true);
  LogDebug("device lost: " + self->lost_message_);
}

std::vector<Error> Context::TakeUncapturedErrors() {
  std::lock_guard lock(errors_mutex_);
  return std::exchange(uncaptured_, {});
}

std::string Context::lost_message() const {
  std::lock_guard lock(errors_mutex_);
  return lost_message_;
}

Status Context::CheckLost() const {
  if (!lost_.load()) return Ok{};
  return Error{ErrorCode::kDeviceLost, "the WebGPU device was lost (" + lost_message() +
                                           "); create a new Context to continue"};
}

void Context::DestroyDeviceForTesting() {
  P().DeviceDestroy(device_.get());
  P().InstanceProcessEvents(instance_.get());
}

Status Context::Wait(WGPUFuture future, std::chrono::nanoseconds timeout) {
  WGPUFutureWaitInfo info{future, 0};
  const auto ns = static_cast<uint64_t>(std::max<int64_t>(0, timeout.count()));
  const WGPUWaitStatus status = P().InstanceWaitAny(instance_.get(), 1, &info, ns);
  if (status == WGPUWaitStatus_Success && info.completed) return Ok{};
  if (status == WGPUWaitStatus_TimedOut) {
    return Error{ErrorCode::kTimeout, "a WebGPU operation did not finish within " +
                                          std::to_string(timeout.count() / 1000000) + " ms"};
  }
  return Error{ErrorCode::kInternal, "wgpuInstanceWaitAny failed (status " +
                                         std::to_string(static_cast<uint32_t>(status)) + ")"};
}

void Context::ProcessEvents() { P().InstanceProcessEvents(instance_.get()); }

void Context::PushErrorScopes() {
  // Popped in reverse: internal, out-of-memory, validation.
  P().DevicePushErrorScope(device_.get(), WGPUErrorFilter_Validation);
  P().DevicePushErrorScope(device_.get(), WGPUErrorFilter_OutOfMemory);
  P().DevicePushErrorScope(device_.get(), WGPUErrorFilter_Internal);
}

namespace {
struct PoppedScope {
  WGPUPopErrorScopeStatus status = WGPUPopErrorScopeStatus_Error;
  WGPUErrorType type = WGPUErrorType_NoError;
  std::string message;
};
void OnPop(WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView message, void* u1,
           void*) {
  auto* p = static_cast<PoppedScope*>(u1);
  p->status = status;
  p->type = type;
  p->message = std::string(FromSv(message));
}
}  // namespace

Status Context::PopErrorScopes(std::string_view what) {
  std::optional<Error> first;
  for (int i = 0; i < 3; ++i) {
    PoppedScope popped;
    WGPUPopErrorScopeCallbackInfo cb{};
    cb.mode = WGPUCallbackMode_WaitAnyOnly;
    cb.callback = &OnPop;
    cb.userdata1 = &popped;
    ALKNET_TRY(Wait(P().DevicePopErrorScope(device_.get(), cb), std::chrono::minutes(5)));
    if (popped.status == WGPUPopErrorScopeStatus_Success && popped.type != WGPUErrorType_NoError &&
        !first) {
      first = Error{CodeFor(popped.type), std::string(what) + ": " + popped.message};
    }
  }
  ALKNET_TRY(CheckLost());
  if (first) return *first;
  return Ok{};
}

// ---- Buffers -------------------------------------------------------------------------------

Result<Buffer> Context::CreateBuffer(uint64_t size, WGPUBufferUsage usage, std::string_view label) {
  ALKNET_TRY(CheckLost());
  const uint64_t rounded = (std::max<uint64_t>(size, 4) + 3) & ~uint64_t{3};
  if (rounded > limits_.maxBufferSize) {
    return Error{ErrorCode::kInvalidArgument,
                 "buffer '" + std::string(label) + "' of " + std::to_string(size) +
                     " bytes exceeds the device limit maxBufferSize = " +
                     std::to_string(limits_.maxBufferSize)};
  }
  WGPUBufferDescriptor desc{};
  desc.label = Sv(label);
  desc.usage = usage;
  desc.size = rounded;
  PushErrorScopes();
  BufferHandle handle = BufferHandle::Adopt(P().DeviceCreateBuffer(device_.get(), &desc));
  ALKNET_TRY(PopErrorScopes("creating buffer '" + std::string(label) + "'"));
  return Buffer{std::move(handle), rounded, usage};
}

Status Context::Write(const Buffer& buffer, uint64_t offset, std::span<const std::byte> data) {
  ALKNET_TRY(CheckLost());
  if (offset % 4 != 0 || offset + data.size() > buffer.size) {
    return Error{ErrorCode::kInvalidArgument, "write of " + std::to_string(data.size()) +
                                                  " bytes at offset " + std::to_string(offset) +
                                                  " does not fit a " + std::to_string(buffer.size) +
                                                  "-byte buffer with 4-byte aligned offset"};
  }
  if (data.empty()) return Ok{};
  if (!StagesWrite(data.size()) || (buffer.usage & WGPUBufferUsage_CopyDst) == 0) {
    // A buffer without CopyDst gets writeBuffer's own validation error, as before.
    WriteDirect(buffer, offset, data);
    upload_stats_.written_bytes += data.size();
    return Ok{};
  }
  // Chunks are multiples of 4 bytes, so only the last one can have a ragged tail.
  uint64_t done = 0;
  while (done < data.size()) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(data.size() - done, kUploadChunk));
    const std::span<const std::byte> part = data.subspan(done, n);
    if (WriteStagedChunk(buffer, offset + done, part)) {
      upload_stats_.staged_bytes += n;
    } else {
      // No staging buffer (out of memory, a failed map, a lost device): writeBuffer, which
      // is ordered the same way; a lost device is reported below.
      WriteDirect(buffer, offset + done, part);
      upload_stats_.written_bytes += n;
      ++upload_stats_.fallbacks;
    }
    done += n;
  }
  return CheckLost();
}

void Context::WriteDirect(const Buffer& buffer, uint64_t offset, std::span<const std::byte> data) {
  const size_t whole = data.size() & ~size_t{3};
  if (whole > 0)
    P().QueueWriteBuffer(queue_.get(), buffer.handle.get(), offset, data.data(), whole);
  if (whole != data.size()) {
    // writeBuffer takes multiples of 4 bytes; the tail goes in a zero-padded word.
    std::byte tail[4] = {};
    std::memcpy(tail, data.data() + whole, data.size() - whole);
    P().QueueWriteBuffer(queue_.get(), buffer.handle.get(), offset + whole, tail, 4);
  }
}

bool Context::StagesWrite(uint64_t bytes) const {
  switch (upload_mode_) {
    case UploadMode::kWrite: return false;
    case UploadMode::kStaged: return true;
    case UploadMode::kAuto:
      // On lavapipe both paths are host memcpys and staging measured no faster (ADR 0021).
      return adapter_description_.type != WGPUAdapterType_CPU && bytes >= kStagedUploadMinBytes;
  }
  return false;
}

// ---- Staged uploads (ADR 0021) ---------------------------------------------------------------
//
// A write is copied into a MapWrite|CopySrc buffer that is already mapped, unmapped, and copied
// to its destination with copyBufferToBuffer in a command buffer submitted at once: the queue
// runs it after everything submitted before the Write and before everything submitted after,
// as it would a writeBuffer. The staging buffer is then remapped with mapAsync(Write), which
// completes once the copy has run, so the next write finds it ready without a wait unless the
// pool is exhausted within one stretch of queued work.

bool Context::WaitUploadMap(UploadStaging& s, std::chrono::nanoseconds timeout) {
  if (!s.pending) return true;
  WGPUFutureWaitInfo info{s.future, 0};
  const auto ns = static_cast<uint64_t>(std::max<int64_t>(0, timeout.count()));
  const WGPUWaitStatus status = P().InstanceWaitAny(instance_.get(), 1, &info, ns);
  if (status != WGPUWaitStatus_Success || !info.completed) return false;
  s.pending = false;
  s.mapped = s.map_status == WGPUMapAsyncStatus_Success;
  if (!s.mapped) LogDebug("upload staging: mapAsync failed: " + s.map_message);
  return true;
}

void Context::DropUploadStaging(size_t index) {
  std::unique_ptr<UploadStaging>& s = upload_pool_[index];
  if (s->pending && !WaitUploadMap(*s, std::chrono::seconds(5))) {
    // The map callback still points at the entry: keep it alive rather than free it.
    (void)s.release();
  }
  upload_pool_.erase(upload_pool_.begin() + static_cast<std::ptrdiff_t>(index));
}

void Context::DrainUploadStaging() {
  while (!upload_pool_.empty()) DropUploadStaging(upload_pool_.size() - 1);
}

Context::UploadStaging* Context::AcquireUploadStaging(uint64_t min_size) {
  // Entries whose map failed are useless; drop them first.
  for (size_t i = upload_pool_.size(); i-- > 0;) {
    if (!upload_pool_[i]->mapped && !upload_pool_[i]->pending) DropUploadStaging(i);
  }
  // A mapped buffer that fits (the smallest), else a fitting one whose map has completed.
  UploadStaging* best = nullptr;
  for (auto& e : upload_pool_) {
    if (e->mapped && e->size >= min_size && (best == nullptr || e->size < best->size))
      best = e.get();
  }
  if (best != nullptr) return best;
  for (auto& e : upload_pool_) {
    if (e->pending && e->size >= min_size && WaitUploadMap(*e, std::chrono::nanoseconds(0)) &&
        e->mapped)
      return e.get();
  }
  uint64_t size = std::max(kUploadMinStaging, std::bit_ceil(min_size));
  size = std::max(min_size, std::min({size, kUploadChunk, limits_.maxBufferSize}));
  auto pool_bytes = [this] {
    uint64_t total = 0;
    for (const auto& e : upload_pool_) total += e->size;
    return total;
  };
  while (!upload_pool_.empty() &&
         (pool_bytes() + size > kUploadPoolBytes || upload_pool_.size() >= kUploadPoolCount)) {
    // Over the bound: evict a mapped (too small) buffer, else wait for the oldest fitting
    // buffer's copy to finish, else wait for and evict the oldest buffer.
    size_t victim = upload_pool_.size();
    for (size_t i = 0; i < upload_pool_.size(); ++i) {
      if (upload_pool_[i]->mapped &&
          (victim == upload_pool_.size() || upload_pool_[i]->size < upload_pool_[victim]->size))
        victim = i;
    }
    if (victim == upload_pool_.size()) {
      for (size_t i = 0; i < upload_pool_.size(); ++i) {
        UploadStaging& e = *upload_pool_[i];
        if (e.pending && e.size >= min_size) {
          ++upload_stats_.waits;
          if (WaitUploadMap(e, std::chrono::minutes(5)) && e.mapped) return &e;
          victim = i;
          break;
        }
      }
    }
    if (victim == upload_pool_.size()) {
      ++upload_stats_.waits;
      victim = 0;
    }
    DropUploadStaging(victim);
  }
  WGPUBufferDescriptor desc{};
  desc.label = Sv("alknet upload staging");
  desc.usage = WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopySrc;
  desc.size = size;
  desc.mappedAtCreation = 1;
  PushErrorScopes();
  BufferHandle handle = BufferHandle::Adopt(P().DeviceCreateBuffer(device_.get(), &desc));
  if (Status st = PopErrorScopes("creating an upload staging buffer"); !st.ok()) {
    LogDebug(st.error().ToString());
    return nullptr;
  }
  auto entry = std::make_unique<UploadStaging>();
  entry->handle = std::move(handle);
  entry->size = size;
  entry->mapped = true;
  upload_pool_.push_back(std::move(entry));
  ++upload_stats_.staging_buffers_created;
  return upload_pool_.back().get();
}

bool Context::WriteStagedChunk(const Buffer& buffer, uint64_t offset,
                               std::span<const std::byte> data) {
  const uint64_t copy = (data.size() + 3) & ~uint64_t{3};
  UploadStaging* s = AcquireUploadStaging(copy);
  if (s == nullptr) return false;
  auto index_of = [this](const UploadStaging* p) {
    size_t i = 0;
    while (upload_pool_[i].get() != p) ++i;
    return i;
  };
  void* dst = P().BufferGetMappedRange(s->handle.get(), 0, copy);
  if (dst == nullptr) {
    P().BufferUnmap(s->handle.get());
    DropUploadStaging(index_of(s));
    return false;
  }
  std::memcpy(dst, data.data(), data.size());
  if (copy != data.size())
    std::memset(static_cast<std::byte*>(dst) + data.size(), 0, copy - data.size());
  P().BufferUnmap(s->handle.get());
  s->mapped = false;

  WGPUCommandEncoderDescriptor enc_desc{};
  enc_desc.label = Sv("alknet upload");
  CommandEncoder encoder =
      CommandEncoder::Adopt(P().DeviceCreateCommandEncoder(device_.get(), &enc_desc));
  P().CommandEncoderCopyBufferToBuffer(encoder.get(), s->handle.get(), 0, buffer.handle.get(),
                                       offset, copy);
  WGPUCommandBufferDescriptor cmd_desc{};
  CommandBuffer commands = CommandBuffer::Adopt(P().CommandEncoderFinish(encoder.get(), &cmd_desc));
  WGPUCommandBuffer raw = commands.get();
  P().QueueSubmit(queue_.get(), 1, &raw);

  s->map_status = WGPUMapAsyncStatus_Error;
  s->map_message.clear();
  WGPUBufferMapCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_WaitAnyOnly;
  cb.callback = &UploadStaging::OnMap;
  cb.userdata1 = s;
  s->future = P().BufferMapAsync(s->handle.get(), WGPUMapMode_Write, 0, s->size, cb);
  s->pending = true;
  // Keep the pool ordered by submission: this one is now the newest.
  const size_t i = index_of(s);
  std::rotate(upload_pool_.begin() + static_cast<std::ptrdiff_t>(i),
              upload_pool_.begin() + static_cast<std::ptrdiff_t>(i) + 1, upload_pool_.end());
  return true;
}

namespace {
// Staging buffers are capped so a huge read never doubles device memory.
constexpr uint64_t kStagingChunk = uint64_t{256} << 20;

struct MapResult {
  WGPUMapAsyncStatus status = WGPUMapAsyncStatus_Error;
  std::string message;
};
void OnMap(WGPUMapAsyncStatus status, WGPUStringView message, void* u1, void*) {
  auto* m = static_cast<MapResult*>(u1);
  m->status = status;
  m->message = std::string(FromSv(message));
}
}  // namespace

Result<Buffer> Context::AcquireStaging(uint64_t min_size) {
  auto best = staging_free_.end();
  for (auto it = staging_free_.begin(); it != staging_free_.end(); ++it) {
    if (it->size >= min_size && (best == staging_free_.end() || it->size < best->size)) best = it;
  }
  if (best != staging_free_.end()) {
    Buffer b = std::move(*best);
    staging_free_.erase(best);
    return b;
  }
  uint64_t size = uint64_t{1} << 20;
  while (size < min_size) size <<= 1;
  size = std::min(size, std::max(min_size, std::min(kStagingChunk, limits_.maxBufferSize)));
  return CreateBuffer(size, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, "alknet staging");
}

void Context::ReleaseStaging(Buffer buffer) {
  constexpr size_t kMaxPooled = 4;
  staging_free_.push_back(std::move(buffer));
  if (staging_free_.size() > kMaxPooled) {
    auto smallest =
        std::min_element(staging_free_.begin(), staging_free_.end(),
                         [](const Buffer& a, const Buffer& b) { return a.size < b.size; });
    staging_free_.erase(smallest);
  }
}

Status Context::Read(const Buffer& buffer, uint64_t offset, std::span<std::byte> out) {
  ALKNET_TRY(CheckLost());
  if (offset % 4 != 0 || offset + out.size() > buffer.size) {
    return Error{ErrorCode::kInvalidArgument, "read of " + std::to_string(out.size()) +
                                                  " bytes at offset " + std::to_string(offset) +
                                                  " does not fit a " + std::to_string(buffer.size) +
                                                  "-byte buffer with 4-byte aligned offset"};
  }
  if ((buffer.usage & WGPUBufferUsage_CopySrc) == 0) {
    return Error{ErrorCode::kInvalidArgument,
                 "buffer was not created with CopySrc usage; it "
                 "cannot be read back"};
  }
  // One staging buffer per chunk: ReadMany copies, submits, maps and unmaps each. The cap is a
  // multiple of 4 so a chunk's padded copy still fits one staging buffer (ReadMany would hand a
  // larger one back to Read).
  const uint64_t chunk_cap = std::min(kStagingChunk, limits_.maxBufferSize) & ~uint64_t{3};
  for (uint64_t done = 0; done < out.size();) {
    const uint64_t n = std::min<uint64_t>(out.size() - done, chunk_cap);
    const ReadRequest chunk{&buffer, offset + done, out.subspan(done, n)};
    ALKNET_TRY(ReadMany(std::span<const ReadRequest>(&chunk, 1)));
    done += n;
  }
  return Ok{};
}

Status Context::ReadMany(std::span<const ReadRequest> reads, std::optional<Recorder> commands) {
  // Whatever happens, `commands` (the caller's work) is submitted: a failed read must not drop
  // it.
  auto submit_commands = [&]() -> Status {
    if (!commands) return Ok{};
    Recorder rec = std::move(*commands);
    commands.reset();
    return Submit(std::move(rec));
  };
  if (Status st = CheckLost(); !st.ok()) {
    commands.reset();
    return st;
  }
  uint64_t total = 0;
  for (const ReadRequest& r : reads) {
    if (r.buffer == nullptr || r.offset % 4 != 0 || r.offset > r.buffer->size ||
        r.out.size() > r.buffer->size - r.offset) {
      ALKNET_TRY(submit_commands());
      return Error{ErrorCode::kInvalidArgument,
                   "read of " + std::to_string(r.out.size()) + " bytes at offset " +
                       std::to_string(r.offset) + " does not fit a " +
                       std::to_string(r.buffer == nullptr ? 0 : r.buffer->size) +
                       "-byte buffer with 4-byte aligned offset"};
    }
    if ((r.buffer->usage & WGPUBufferUsage_CopySrc) == 0) {
      ALKNET_TRY(submit_commands());
      return Error{ErrorCode::kInvalidArgument,
                   "buffer was not created with CopySrc usage; it cannot be read back"};
    }
    total += (r.out.size() + 3) & ~uint64_t{3};
  }
  if (total == 0 || total > std::min(kStagingChunk, limits_.maxBufferSize)) {
    // Nothing to copy, or more than one staging buffer holds: one read (and map) each.
    ALKNET_TRY(submit_commands());
    for (const ReadRequest& r : reads) {
      if (!r.out.empty()) ALKNET_TRY(Read(*r.buffer, r.offset, r.out));
    }
    return Ok{};
  }
  auto acquired = AcquireStaging(total);
  if (!acquired.ok()) {
    ALKNET_TRY(submit_commands());
    return std::move(acquired).error();
  }
  Buffer staging = std::move(acquired).value();
  Recorder rec = commands ? std::move(*commands) : BeginCommands("alknet readback");
  commands.reset();
  uint64_t at = 0;
  for (const ReadRequest& r : reads) {
    const uint64_t copy = (r.out.size() + 3) & ~uint64_t{3};
    if (copy > 0) rec.Copy(*r.buffer, r.offset, staging, at, copy);
    at += copy;
  }
  ALKNET_TRY(Submit(std::move(rec)));
  MapResult mapped;
  WGPUBufferMapCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_WaitAnyOnly;
  cb.callback = &OnMap;
  cb.userdata1 = &mapped;
  ALKNET_TRY(Wait(P().BufferMapAsync(staging.handle.get(), WGPUMapMode_Read, 0, total, cb),
                  std::chrono::minutes(5)));
  if (mapped.status != WGPUMapAsyncStatus_Success) {
    ALKNET_TRY(CheckLost());
    return Error{ErrorCode::kMapFailed, "mapAsync for readback failed: " + mapped.message};
  }
  const auto* src =
      static_cast<const std::byte*>(P().BufferGetConstMappedRange(staging.handle.get(), 0, total));
  if (src == nullptr) {
    P().BufferUnmap(staging.handle.get());
    return Error{ErrorCode::kMapFailed, "getMappedRange returned null after a successful map"};
  }
  at = 0;
  for (const ReadRequest& r : reads) {
    if (!r.out.empty()) std::memcpy(r.out.data(), src + at, r.out.size());
    at += (r.out.size() + 3) & ~uint64_t{3};
  }
  P().BufferUnmap(staging.handle.get());
  ReleaseStaging(std::move(staging));
  return Ok{};
}

// ---- Commands ------------------------------------------------------------------------------

Recorder Context::BeginCommands(std::string_view label) {
  WGPUCommandEncoderDescriptor desc{};
  desc.label = Sv(label);
  return Recorder(this,
                  CommandEncoder::Adopt(P().DeviceCreateCommandEncoder(device_.get(), &desc)));
}

Result<BindGroup> Context::CreateBindGroup(const Kernel& kernel,
                                           std::span<const BufferBinding> bindings) {
  const WGPULimits& limits = limits_;
  std::vector<WGPUBindGroupEntry> entries(bindings.size());
  for (size_t i = 0; i < bindings.size(); ++i) {
    const BufferBinding& b = bindings[i];
    if (b.buffer == nullptr) {
      return Error{ErrorCode::kInvalidArgument,
                   "binding " + std::to_string(i) + " of kernel '" + kernel.label + "' is null"};
    }
    const uint64_t size = b.size == WGPU_WHOLE_SIZE ? b.buffer->size - b.offset : b.size;
    if (size > limits.maxStorageBufferBindingSize) {
      return Error{ErrorCode::kInvalidArgument,
                   "binding " + std::to_string(i) + " of kernel '" + kernel.label + "' spans " +
                       std::to_string(size) +
                       " bytes; the device limit "
                       "maxStorageBufferBindingSize is " +
                       std::to_string(limits.maxStorageBufferBindingSize)};
    }
    entries[i].binding = static_cast<uint32_t>(i);
    entries[i].buffer = b.buffer->handle.get();
    entries[i].offset = b.offset;
    entries[i].size = size;
  }
  WGPUBindGroupDescriptor desc{};
  desc.label = Sv(kernel.label);
  desc.layout = kernel.layout.get();
  desc.entryCount = entries.size();
  desc.entries = entries.data();
  return BindGroup::Adopt(P().DeviceCreateBindGroup(device(), &desc));
}

Status Recorder::Dispatch(const Kernel& kernel, std::span<const BufferBinding> bindings,
                          Grid grid) {
  const WGPULimits& limits = ctx_->limits();
  for (uint32_t g : {grid.x, grid.y, grid.z}) {
    if (g > limits.maxComputeWorkgroupsPerDimension) {
      return Error{ErrorCode::kInvalidArgument,
                   "dispatch of kernel '" + kernel.label + "' needs " + std::to_string(g) +
                       " workgroups in one dimension; the device limit "
                       "maxComputeWorkgroupsPerDimension is " +
                       std::to_string(limits.maxComputeWorkgroupsPerDimension) +
                       " (use Context::GridFor to spread the grid)"};
    }
  }
  ALKNET_ASSIGN_OR_RETURN(BindGroup group, ctx_->CreateBindGroup(kernel, bindings));
  Dispatch(kernel, std::move(group), grid);
  return Ok{};
}

void Recorder::Dispatch(const Kernel& kernel, BindGroup group, Grid grid) {
  WGPUComputePassDescriptor pass_desc{};
  pass_desc.label = Sv(kernel.label);
  ComputePassEncoder pass =
      ComputePassEncoder::Adopt(P().CommandEncoderBeginComputePass(encoder_.get(), &pass_desc));
  P().ComputePassEncoderSetPipeline(pass.get(), kernel.pipeline.get());
  P().ComputePassEncoderSetBindGroup(pass.get(), 0, group.get(), 0, nullptr);
  P().ComputePassEncoderDispatchWorkgroups(pass.get(), grid.x, grid.y, grid.z);
  P().ComputePassEncoderEnd(pass.get());
  bind_groups_.push_back(std::move(group));
}

void Recorder::Copy(const Buffer& src, uint64_t src_offset, const Buffer& dst, uint64_t dst_offset,
                    uint64_t size) {
  P().CommandEncoderCopyBufferToBuffer(encoder_.get(), src.handle.get(), src_offset,
                                       dst.handle.get(), dst_offset, size);
}

void Recorder::Clear(const Buffer& buffer, uint64_t offset, uint64_t size) {
  P().CommandEncoderClearBuffer(encoder_.get(), buffer.handle.get(), offset, size);
}

Status Context::Submit(Recorder recorder) {
  ALKNET_TRY(CheckLost());
  PushErrorScopes();
  SubmitUnchecked(std::move(recorder));
  return PopErrorScopes("submitting commands");
}

void Context::SubmitUnchecked(Recorder recorder) {
  WGPUCommandBufferDescriptor desc{};
  CommandBuffer commands =
      CommandBuffer::Adopt(P().CommandEncoderFinish(recorder.encoder_.get(), &desc));
  WGPUCommandBuffer raw = commands.get();
  P().QueueSubmit(queue_.get(), 1, &raw);
}

namespace {
struct WorkDone {
  WGPUQueueWorkDoneStatus status = WGPUQueueWorkDoneStatus_Error;
  std::string message;
};
void OnWorkDone(WGPUQueueWorkDoneStatus status, WGPUStringView message, void* u1, void*) {
  auto* done = static_cast<WorkDone*>(u1);
  done->status = status;
  done->message = std::string(FromSv(message));
}
}  // namespace

Status Context::WaitIdle(std::chrono::milliseconds timeout) {
  ALKNET_TRY(CheckLost());
  WorkDone done;
  WGPUQueueWorkDoneCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_WaitAnyOnly;
  cb.callback = &OnWorkDone;
  cb.userdata1 = &done;
  ALKNET_TRY(Wait(P().QueueOnSubmittedWorkDone(queue_.get(), cb), timeout));
  ALKNET_TRY(CheckLost());
  if (done.status != WGPUQueueWorkDoneStatus_Success) {
    return Error{ErrorCode::kInternal, "queue work did not complete: " + done.message};
  }
  return Ok{};
}

Result<Grid> Context::GridFor(uint64_t invocations, uint32_t workgroup_size) const {
  if (workgroup_size == 0) return Error{ErrorCode::kInvalidArgument, "workgroup size is 0"};
  const uint64_t groups =
      std::max<uint64_t>(1, (invocations + workgroup_size - 1) / workgroup_size);
  const uint64_t max_dim = limits_.maxComputeWorkgroupsPerDimension;
  if (groups <= max_dim) return Grid{static_cast<uint32_t>(groups), 1, 1};
  const uint64_t y = (groups + max_dim - 1) / max_dim;
  if (y > max_dim) {
    return Error{ErrorCode::kInvalidArgument,
                 std::to_string(invocations) +
                     " invocations exceed maxComputeWorkgroupsPerDimension^2"
                     " workgroups of " +
                     std::to_string(workgroup_size)};
  }
  return Grid{static_cast<uint32_t>(max_dim), static_cast<uint32_t>(y), 1};
}

}  // namespace alknet::webgpu
