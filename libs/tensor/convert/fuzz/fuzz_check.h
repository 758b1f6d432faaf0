// What every foreign-format fuzz target checks of a reader's answer on arbitrary bytes: an
// error from the format's own codes (never an I/O code: the input is in memory), or tensors
// whose byte ranges lie inside the input, match dtype x shape and never share a byte.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "alknet/tensor/convert/source.h"

namespace alknet::tensor::convert::fuzz {

inline void CheckAnswer(const Result<ForeignFile>& r, uint64_t size) {
  if (!r) {
    const ErrorCode c = r.error().code();
    if (c != ErrorCode::kBadForeignFile && c != ErrorCode::kUnsupportedForeign &&
        c != ErrorCode::kForeignLimit && c != ErrorCode::kForeignOverlap) {
      std::abort();
    }
    if (r.error().message().empty()) std::abort();
    return;
  }
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const SourceTensor& t : r->tensors) {
    auto bytes = ByteLength(t.dtype, t.shape);
    if (!bytes || *bytes != t.byte_length) std::abort();
    if (t.offset > size || t.byte_length > size - t.offset) std::abort();
    if (t.byte_length > 0) ranges.emplace_back(t.offset, t.offset + t.byte_length);
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].first < ranges[i - 1].second) std::abort();
  }
}

}  // namespace alknet::tensor::convert::fuzz
