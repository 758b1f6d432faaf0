// Dawn toggles named in the environment, for measurements and for probing what this Dawn build
// offers (docs/adr/0031-f16-and-subgroup-matrices-on-the-h200.md):
//   ALKNET_DAWN_TOGGLES="a,-b"          device toggles (e.g. disable_robustness)
//   ALKNET_DAWN_ADAPTER_TOGGLES="a,-b"  adapter toggles, which decide the features an adapter
//                                       reports (e.g. allow_unsafe_apis)
// A name enables the toggle, "-name" disables it. Chained as Dawn's DawnTogglesDescriptor
// {chain, enabledToggleCount, enabledToggles, disabledToggleCount, disabledToggles}, sType
// 0x0005000A in the pinned Dawn; an implementation that does not know the sType ignores it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "alknet/webgpu/result.h"
#include "alknet/webgpu/webgpu_abi.h"

namespace alknet::webgpu {

struct DawnToggleList {
  std::vector<std::string> enabled, disabled;
  bool empty() const { return enabled.empty() && disabled.empty(); }
};

// "a,-b,c" -> enabled {a, c}, disabled {b}. Names are Dawn's toggle names: lower-case letters,
// digits and '_'; anything else, an empty "-", or more than 64 names is an error that names
// `source` (the variable it came from) and the offending entry.
Result<DawnToggleList> ParseDawnToggles(std::string_view spec, std::string_view source);

// The chained struct over a toggle list; it points into `list`, which must outlive it.
class DawnTogglesChain {
 public:
  explicit DawnTogglesChain(const DawnToggleList& list);
  DawnTogglesChain(const DawnTogglesChain&) = delete;
  DawnTogglesChain& operator=(const DawnTogglesChain&) = delete;
  // nullptr when the list is empty. `next` is chained after it.
  WGPUChainedStruct* chain(const WGPUChainedStruct* next = nullptr);

 private:
  struct Descriptor {
    WGPUChainedStruct chain;
    size_t enabled_count;
    const char* const* enabled;
    size_t disabled_count;
    const char* const* disabled;
  } desc_{};
  std::vector<const char*> enabled_, disabled_;
};

// The toggles of environment variable `name` (empty when unset or empty).
Result<DawnToggleList> DawnTogglesFromEnvironment(const char* name);

}  // namespace alknet::webgpu
