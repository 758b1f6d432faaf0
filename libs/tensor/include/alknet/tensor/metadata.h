// Typed metadata entries (docs/metatensor-format.md section 4.4).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace alknet::tensor {

// Wire type ids of a metadata entry. Arrays are one level deep and homogeneous.
enum class MetadataType : uint8_t {
  kBool = 1,
  kI64 = 2,
  kU64 = 3,
  kF64 = 4,
  kString = 5,
  kBytes = 6,
  kArray = 7,
};

using Bytes = std::vector<std::byte>;

// std::string holds UTF-8 (type string); Bytes holds raw bytes (type bytes). The vector
// alternatives are arrays with the element type of the vector.
using MetadataValue = std::variant<bool, int64_t, uint64_t, double, std::string, Bytes,
                                   std::vector<bool>, std::vector<int64_t>, std::vector<uint64_t>,
                                   std::vector<double>, std::vector<std::string>>;

struct MetadataEntry {
  std::string key;
  MetadataValue value;
};

}  // namespace alknet::tensor
