// The built-in JavaScript files (js/*.js, js/internal/*.js), embedded by
// alknet_embed_files() in libs/runtime/CMakeLists.txt.
#pragma once

#include <cstddef>
#include <string_view>

namespace alknet::runtime::embedded {
struct EmbeddedFile {
  std::string_view name;
  std::string_view contents;
};
extern const EmbeddedFile kEmbeddedFiles[];
extern const std::size_t kEmbeddedFileCount;

// The file "name" (e.g. "fs.js", "internal/prelude.js"), or nullptr.
inline const EmbeddedFile* FindEmbeddedFile(std::string_view name) {
  for (std::size_t i = 0; i < kEmbeddedFileCount; ++i) {
    if (kEmbeddedFiles[i].name == name) return &kEmbeddedFiles[i];
  }
  return nullptr;
}
}  // namespace alknet::runtime::embedded
