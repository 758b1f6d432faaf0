#include "alknet/webgpu/dawn_toggles.h"

#include <cstdlib>

namespace alknet::webgpu {

namespace {

constexpr size_t kMaxToggles = 64;
constexpr size_t kMaxNameLength = 128;

bool ValidName(std::string_view n) {
  if (n.empty() || n.size() > kMaxNameLength) return false;
  for (char c : n) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

}  // namespace

Result<DawnToggleList> ParseDawnToggles(std::string_view spec, std::string_view source) {
  DawnToggleList list;
  size_t count = 0;
  while (!spec.empty()) {
    const size_t comma = spec.find(',');
    std::string_view entry = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view() : spec.substr(comma + 1);
    if (entry.empty()) continue;
    const bool disable = entry.front() == '-';
    const std::string_view name = disable ? entry.substr(1) : entry;
    if (!ValidName(name)) {
      return Error{ErrorCode::kInvalidArgument,
                   std::string(source) + ": '" + std::string(entry.substr(0, kMaxNameLength)) +
                       "' is not a Dawn toggle name (lower-case letters, digits and '_', "
                       "'-' in front to disable it; e.g. disable_robustness)"};
    }
    if (++count > kMaxToggles) {
      return Error{ErrorCode::kInvalidArgument,
                   std::string(source) + ": more than " + std::to_string(kMaxToggles) + " toggles"};
    }
    (disable ? list.disabled : list.enabled).emplace_back(name);
  }
  return list;
}

DawnTogglesChain::DawnTogglesChain(const DawnToggleList& list) {
  for (const std::string& n : list.enabled) enabled_.push_back(n.c_str());
  for (const std::string& n : list.disabled) disabled_.push_back(n.c_str());
}

WGPUChainedStruct* DawnTogglesChain::chain(const WGPUChainedStruct* next) {
  if (enabled_.empty() && disabled_.empty()) return nullptr;
  desc_.chain.sType = static_cast<WGPUSType>(0x0005000A);
  desc_.chain.next = next;
  desc_.enabled_count = enabled_.size();
  desc_.enabled = enabled_.data();
  desc_.disabled_count = disabled_.size();
  desc_.disabled = disabled_.data();
  return &desc_.chain;
}

Result<DawnToggleList> DawnTogglesFromEnvironment(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return DawnToggleList{};
  return ParseDawnToggles(v, name);
}

}  // namespace alknet::webgpu
