// `alknet info`: every WebGPU adapter with backend, vendor, driver, type, limits and features.
#include <cstdio>
#include <string>

#include "alknet/base/json.h"
#include "alknet/webgpu/context.h"
#include "command.h"

namespace {

namespace json = alknet::base::json;
namespace wg = alknet::webgpu;

constexpr const char* kHelp =
    "Usage: alknet info [--json] [--limits]\n\n"
    "Lists every WebGPU adapter: backend, vendor, driver, type, limits and features.\n"
    "Without a GPU, Mesa's lavapipe (CPU Vulkan) is the adapter.\n\n"
    "Options:\n"
    "  --json     machine-readable output (always includes limits)\n"
    "  --limits   also print every limit in text mode\n\n"
    "Environment:\n"
    "  ALKNET_WEBGPU_LIBRARY  path of the webgpu.h library (default: the one scripts/setup "
    "installs)\n"
    "  ALKNET_ADAPTER         adapter that other commands use: index or name substring\n"
    "  ALKNET_LOG=debug       log adapter discovery to stderr\n";

void WriteJson(const std::vector<wg::AdapterEntry>& adapters) {
  json::Array list;
  for (size_t i = 0; i < adapters.size(); ++i) {
    const auto& d = adapters[i].description;
    json::Array features;
    for (auto f : d.features) features.emplace_back(wg::FeatureName(f));
    json::Object limits;
    for (const auto& [name, value] : wg::LimitList(d.limits)) limits.append(name, value);
    list.emplace_back(json::Object{{"index", i},
                                   {"name", d.device},
                                   {"vendor", d.vendor},
                                   {"architecture", d.architecture},
                                   {"driver", d.description},
                                   {"backend", wg::BackendName(d.backend)},
                                   {"type", wg::AdapterTypeName(d.type)},
                                   {"vendorId", d.vendor_id},
                                   {"deviceId", d.device_id},
                                   {"subgroupMinSize", d.subgroup_min_size},
                                   {"subgroupMaxSize", d.subgroup_max_size},
                                   {"features", std::move(features)},
                                   {"limits", std::move(limits)}});
  }
  const json::Value doc =
      json::Object{{"library", wg::WebGpuLibraryPath()}, {"adapters", std::move(list)}};
  std::printf("%s\n", json::Write(doc).c_str());
}

void WriteText(const std::vector<wg::AdapterEntry>& adapters, bool limits) {
  std::printf("WebGPU library: %s\n", wg::WebGpuLibraryPath().c_str());
  std::printf("%zu adapter(s)\n", adapters.size());
  for (size_t i = 0; i < adapters.size(); ++i) {
    const auto& d = adapters[i].description;
    std::printf("\n[%zu] %s\n", i, d.Summary().c_str());
    if (d.backend == WGPUBackendType_Null) {
      std::printf(
          "  not used:      Dawn's Null backend runs nothing (no Vulkan driver was found)\n");
    }
    std::printf("  vendor:        %s (0x%04x)  device id 0x%04x\n", d.vendor.c_str(), d.vendor_id,
                d.device_id);
    std::printf("  architecture:  %s\n", d.architecture.c_str());
    std::printf("  driver:        %s\n", d.description.c_str());
    std::printf("  subgroups:     %u..%u\n", d.subgroup_min_size, d.subgroup_max_size);
    std::printf("  max buffer:    %llu bytes, storage binding %llu bytes\n",
                static_cast<unsigned long long>(d.limits.maxBufferSize),
                static_cast<unsigned long long>(d.limits.maxStorageBufferBindingSize));
    std::printf("  workgroups:    %u invocations, %u per dimension\n",
                d.limits.maxComputeInvocationsPerWorkgroup,
                d.limits.maxComputeWorkgroupsPerDimension);
    std::string features;
    for (auto f : d.features) features += (features.empty() ? "" : " ") + wg::FeatureName(f);
    std::printf("  features:      %s\n", features.c_str());
    if (limits) {
      std::printf("  limits:\n");
      for (const auto& [name, value] : wg::LimitList(d.limits)) {
        std::printf("    %-44s %llu\n", name.c_str(), static_cast<unsigned long long>(value));
      }
    }
  }
}

int RunInfo(std::span<const std::string_view> args) {
  bool json = false, limits = false;
  for (auto a : args) {
    if (a == "-h" || a == "--help") {
      std::fputs(kHelp, stdout);
      return alknet::cli::kExitOk;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--limits") {
      limits = true;
    } else {
      std::fprintf(stderr, "alknet info: unknown option '%.*s'\n\n%s", static_cast<int>(a.size()),
                   a.data(), kHelp);
      return alknet::cli::kExitUsage;
    }
  }
  auto instance = wg::CreateInstance();
  if (!instance) {
    std::fprintf(stderr, "alknet info: %s\n", instance.error().ToString().c_str());
    return alknet::cli::kExitEnvironment;
  }
  auto adapters = wg::EnumerateAdapters(*instance);
  if (!adapters) {
    std::fprintf(stderr, "alknet info: %s\n", adapters.error().ToString().c_str());
    return alknet::cli::kExitEnvironment;
  }
  if (json) {
    WriteJson(*adapters);
  } else {
    WriteText(*adapters, limits);
  }
  if (adapters->empty()) {
    std::fprintf(stderr,
                 "alknet info: no adapter found. Without a GPU alknet needs Mesa's lavapipe >= 25 "
                 "(scripts/setup installs it from bookworm-backports).\n");
    return alknet::cli::kExitEnvironment;
  }
  return alknet::cli::kExitOk;
}

const alknet::cli::Registration kRegistration{
    {"info", "List WebGPU adapters with limits and features", &RunInfo}};

}  // namespace
