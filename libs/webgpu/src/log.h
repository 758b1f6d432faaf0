// Debug logging for the WebGPU layer: ALKNET_LOG=debug prints to stderr.
#pragma once

#include <string_view>

namespace alknet::webgpu {
bool DebugLogEnabled();
void LogDebug(std::string_view message);
}  // namespace alknet::webgpu
