// Constants and the decoded preamble of metatensor format v1 (docs/metatensor-format.md).
#pragma once

#include <array>
#include <cstdint>

namespace alknet::tensor {

inline constexpr std::array<uint8_t, 8> kMagic = {0x89, 'M', 'T', 'F', 0x0D, 0x0A, 0x1A, 0x0A};
inline constexpr uint16_t kVersionMajor = 1;
inline constexpr uint16_t kVersionMinor = 0;
inline constexpr uint64_t kPreambleSize = 64;
inline constexpr uint64_t kTrailerSize = 32;
inline constexpr uint64_t kIndexHeaderSize = 32;
inline constexpr uint64_t kRecordSize = 40;
inline constexpr uint64_t kMetadataEntryHeaderSize = 16;
inline constexpr uint64_t kDataRegionAlignment = 4096;
inline constexpr uint32_t kDefaultAlignment = 256;
inline constexpr uint32_t kMinAlignment = 64;
inline constexpr uint32_t kMaxAlignment = 1u << 20;

// Required feature bits (spec 3.1): a reader that does not know one must refuse the file.
inline constexpr uint32_t kFeatureTrailer = 1u << 0;  // index located by the trailer
inline constexpr uint32_t kKnownRequiredFeatures = kFeatureTrailer;

// Tensor record flags (spec 4.2).
inline constexpr uint8_t kRecordHasChecksum = 1u << 0;

// The preamble as read (after the trailer, if any, has been applied).
struct Preamble {
  uint16_t version_major = 0;
  uint16_t version_minor = 0;
  uint32_t alignment = 0;
  uint32_t required_features = 0;
  uint32_t optional_features = 0;
  uint64_t index_offset = 0;
  uint64_t index_length = 0;
  uint64_t data_offset = 0;
  uint64_t data_length = 0;
  bool has_trailer = false;
  bool index_before_data() const { return index_offset < data_offset; }
};

}  // namespace alknet::tensor
