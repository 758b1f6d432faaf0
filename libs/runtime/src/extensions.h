// The engine-independent view of the registered extensions (native_module.h): their names,
// for module resolution, and their JS sources, for loading.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace alknet::runtime {

std::vector<std::string> ExtensionModuleNames();
std::optional<std::string_view> ExtensionModuleSource(std::string_view name);

}  // namespace alknet::runtime
