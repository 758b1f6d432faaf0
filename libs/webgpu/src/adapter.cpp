#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "alknet/webgpu/context.h"
#include "alknet/webgpu/dawn_toggles.h"
#include "log.h"

namespace alknet::webgpu {

bool DebugLogEnabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("ALKNET_LOG");
    return v != nullptr && std::strcmp(v, "debug") == 0;
  }();
  return enabled;
}

void LogDebug(std::string_view message) {
  if (DebugLogEnabled()) {
    std::fprintf(stderr, "[alknet debug] %.*s\n", static_cast<int>(message.size()), message.data());
  }
}

const char* BackendName(WGPUBackendType backend) {
  switch (backend) {
    case WGPUBackendType_Null: return "null";
    case WGPUBackendType_WebGPU: return "webgpu";
    case WGPUBackendType_D3D11: return "d3d11";
    case WGPUBackendType_D3D12: return "d3d12";
    case WGPUBackendType_Metal: return "metal";
    case WGPUBackendType_Vulkan: return "vulkan";
    case WGPUBackendType_OpenGL: return "opengl";
    case WGPUBackendType_OpenGLES: return "opengles";
    default: return "undefined";
  }
}

const char* AdapterTypeName(WGPUAdapterType type) {
  switch (type) {
    case WGPUAdapterType_DiscreteGPU: return "discrete-gpu";
    case WGPUAdapterType_IntegratedGPU: return "integrated-gpu";
    case WGPUAdapterType_CPU: return "cpu";
    default: return "unknown";
  }
}

std::string FeatureName(WGPUFeatureName feature) {
  // Standard features in this webgpu.h revision's numbering, under the WebGPU spec's names.
  static const char* const kStandard[] = {
      nullptr,
      "depth-clip-control",
      "depth32float-stencil8",
      "timestamp-query",
      "texture-compression-bc",
      "texture-compression-bc-sliced-3d",
      "texture-compression-etc2",
      "texture-compression-astc",
      "texture-compression-astc-sliced-3d",
      "indirect-first-instance",
      "shader-f16",
      "rg11b10ufloat-renderable",
      "bgra8unorm-storage",
      "float32-filterable",
      "float32-blendable",
      "clip-distances",
      "dual-source-blending",
      "subgroups",
      "core-features-and-limits",
  };
  const uint32_t v = feature;
  if (v < std::size(kStandard) && kStandard[v] != nullptr) return kStandard[v];
  // Dawn renumbers its own extensions between releases and ships no header, so they are
  // shown by number rather than under a name that might belong to a neighbour.
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 0x50000 ? "dawn-0x%x" : "unknown-0x%x", v);
  return buf;
}

std::vector<std::pair<std::string, uint64_t>> LimitList(const WGPULimits& l) {
  return {
      {"maxTextureDimension1D", l.maxTextureDimension1D},
      {"maxTextureDimension2D", l.maxTextureDimension2D},
      {"maxTextureDimension3D", l.maxTextureDimension3D},
      {"maxTextureArrayLayers", l.maxTextureArrayLayers},
      {"maxBindGroups", l.maxBindGroups},
      {"maxBindGroupsPlusVertexBuffers", l.maxBindGroupsPlusVertexBuffers},
      {"maxBindingsPerBindGroup", l.maxBindingsPerBindGroup},
      {"maxDynamicUniformBuffersPerPipelineLayout", l.maxDynamicUniformBuffersPerPipelineLayout},
      {"maxDynamicStorageBuffersPerPipelineLayout", l.maxDynamicStorageBuffersPerPipelineLayout},
      {"maxSampledTexturesPerShaderStage", l.maxSampledTexturesPerShaderStage},
      {"maxSamplersPerShaderStage", l.maxSamplersPerShaderStage},
      {"maxStorageBuffersPerShaderStage", l.maxStorageBuffersPerShaderStage},
      {"maxStorageTexturesPerShaderStage", l.maxStorageTexturesPerShaderStage},
      {"maxUniformBuffersPerShaderStage", l.maxUniformBuffersPerShaderStage},
      {"maxUniformBufferBindingSize", l.maxUniformBufferBindingSize},
      {"maxStorageBufferBindingSize", l.maxStorageBufferBindingSize},
      {"minUniformBufferOffsetAlignment", l.minUniformBufferOffsetAlignment},
      {"minStorageBufferOffsetAlignment", l.minStorageBufferOffsetAlignment},
      {"maxVertexBuffers", l.maxVertexBuffers},
      {"maxBufferSize", l.maxBufferSize},
      {"maxVertexAttributes", l.maxVertexAttributes},
      {"maxVertexBufferArrayStride", l.maxVertexBufferArrayStride},
      {"maxInterStageShaderVariables", l.maxInterStageShaderVariables},
      {"maxColorAttachments", l.maxColorAttachments},
      {"maxColorAttachmentBytesPerSample", l.maxColorAttachmentBytesPerSample},
      {"maxComputeWorkgroupStorageSize", l.maxComputeWorkgroupStorageSize},
      {"maxComputeInvocationsPerWorkgroup", l.maxComputeInvocationsPerWorkgroup},
      {"maxComputeWorkgroupSizeX", l.maxComputeWorkgroupSizeX},
      {"maxComputeWorkgroupSizeY", l.maxComputeWorkgroupSizeY},
      {"maxComputeWorkgroupSizeZ", l.maxComputeWorkgroupSizeZ},
      {"maxComputeWorkgroupsPerDimension", l.maxComputeWorkgroupsPerDimension},
      {"maxImmediateSize", l.maxImmediateSize},
  };
}

std::string AdapterDescription::Summary() const {
  std::string name = !device.empty() ? device : !description.empty() ? description : "unnamed";
  return name + " (" + BackendName(backend) + ", " + AdapterTypeName(type) + ")";
}

Result<Instance> CreateInstance() {
  ALKNET_ASSIGN_OR_RETURN(const Procs* procs, LoadProcs());
  WGPUInstanceDescriptor desc{};
  desc.capabilities.timedWaitAnyEnable = 1;
  desc.capabilities.timedWaitAnyMaxCount = 8;
  WGPUInstance raw = procs->CreateInstance(&desc);
  if (raw == nullptr) {
    return Error{ErrorCode::kInternal, "wgpuCreateInstance returned null"};
  }
  return Instance::Adopt(raw);
}

namespace {

struct AdapterRequest {
  WGPURequestAdapterStatus status = WGPURequestAdapterStatus_Error;
  WGPUAdapter adapter = nullptr;
  std::string message;
  bool done = false;
};

void OnAdapter(WGPURequestAdapterStatus status, WGPUAdapter adapter, WGPUStringView message,
               void* userdata1, void*) {
  auto* req = static_cast<AdapterRequest*>(userdata1);
  req->status = status;
  req->adapter = adapter;
  req->message = std::string(FromSv(message));
  req->done = true;
}

Result<AdapterDescription> Describe(WGPUAdapter adapter) {
  AdapterDescription d;
  WGPUAdapterInfo info{};
  if (P().AdapterGetInfo(adapter, &info) != WGPUStatus_Success) {
    return Error{ErrorCode::kInternal, "wgpuAdapterGetInfo failed"};
  }
  d.vendor = FromSv(info.vendor);
  d.architecture = FromSv(info.architecture);
  d.device = FromSv(info.device);
  d.description = FromSv(info.description);
  d.backend = info.backendType;
  d.type = info.adapterType;
  d.vendor_id = info.vendorID;
  d.device_id = info.deviceID;
  d.subgroup_min_size = info.subgroupMinSize;
  d.subgroup_max_size = info.subgroupMaxSize;
  P().AdapterInfoFreeMembers(info);
  if (P().AdapterGetLimits(adapter, &d.limits) != WGPUStatus_Success) {
    return Error{ErrorCode::kInternal, "wgpuAdapterGetLimits failed"};
  }
  WGPUSupportedFeatures features{};
  P().AdapterGetFeatures(adapter, &features);
  d.features.assign(features.features, features.features + features.featureCount);
  P().SupportedFeaturesFreeMembers(features);
  std::sort(d.features.begin(), d.features.end());
  return d;
}

int TypeRank(WGPUAdapterType t) {
  switch (t) {
    case WGPUAdapterType_DiscreteGPU: return 0;
    case WGPUAdapterType_IntegratedGPU: return 1;
    case WGPUAdapterType_CPU: return 2;
    default: return 3;
  }
}

}  // namespace

Result<std::optional<AdapterEntry>> RequestAdapter(const Instance& instance,
                                                   WGPUBackendType backend,
                                                   WGPUPowerPreference power, bool fallback) {
  WGPURequestAdapterOptions options{};
  options.featureLevel = WGPUFeatureLevel_Core;
  options.powerPreference = power;
  options.forceFallbackAdapter = fallback;
  options.backendType = backend;
  // ALKNET_DAWN_ADAPTER_TOGGLES: the adapter's toggles decide which features it reports
  // (dawn_toggles.h; read once per process).
  static const Result<DawnToggleList> adapter_toggles =
      DawnTogglesFromEnvironment("ALKNET_DAWN_ADAPTER_TOGGLES");
  if (!adapter_toggles.ok()) return adapter_toggles.error();
  DawnTogglesChain toggles(*adapter_toggles);
  options.nextInChain = toggles.chain();
  AdapterRequest req;
  WGPURequestAdapterCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_WaitAnyOnly;
  cb.callback = &OnAdapter;
  cb.userdata1 = &req;
  WGPUFutureWaitInfo wait{P().InstanceRequestAdapter(instance.get(), &options, cb), 0};
  WGPUWaitStatus ws = P().InstanceWaitAny(instance.get(), 1, &wait, UINT64_MAX);
  if (ws != WGPUWaitStatus_Success || !req.done) {
    return Error{ErrorCode::kInternal, "waiting for requestAdapter failed"};
  }
  if (req.status != WGPURequestAdapterStatus_Success || req.adapter == nullptr) {
    LogDebug(std::string("no adapter for backend=") + BackendName(backend) +
             " fallback=" + (fallback ? "yes" : "no") + ": " + req.message);
    return std::optional<AdapterEntry>{};
  }
  Adapter adapter = Adapter::Adopt(req.adapter);
  ALKNET_ASSIGN_OR_RETURN(AdapterDescription desc, Describe(adapter.get()));
  return std::optional<AdapterEntry>(AdapterEntry{std::move(adapter), std::move(desc)});
}

Result<std::vector<AdapterEntry>> EnumerateAdapters(const Instance& instance) {
  std::vector<AdapterEntry> found;
  const WGPUBackendType backends[] = {WGPUBackendType_Undefined, WGPUBackendType_Vulkan,
                                      WGPUBackendType_OpenGL, WGPUBackendType_OpenGLES};
  const WGPUPowerPreference powers[] = {WGPUPowerPreference_HighPerformance,
                                        WGPUPowerPreference_LowPower};
  for (WGPUBackendType backend : backends) {
    for (WGPUPowerPreference power : powers) {
      for (bool fallback : {false, true}) {
        ALKNET_ASSIGN_OR_RETURN(std::optional<AdapterEntry> entry,
                                RequestAdapter(instance, backend, power, fallback));
        if (!entry) continue;
        const AdapterDescription& desc = entry->description;
        const bool seen = std::any_of(found.begin(), found.end(), [&](const AdapterEntry& e) {
          const auto& o = e.description;
          return o.backend == desc.backend && o.vendor_id == desc.vendor_id &&
                 o.device_id == desc.device_id && o.device == desc.device &&
                 o.description == desc.description;
        });
        if (!seen) found.push_back(std::move(*entry));
      }
    }
  }
  std::stable_sort(found.begin(), found.end(), [](const AdapterEntry& a, const AdapterEntry& b) {
    return TypeRank(a.description.type) < TypeRank(b.description.type);
  });
  return found;
}

}  // namespace alknet::webgpu
