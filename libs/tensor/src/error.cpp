#include "alknet/tensor/error.h"

#include <string>

namespace alknet::tensor {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "ok";
    case ErrorCode::kFileTooSmall: return "file-too-small";
    case ErrorCode::kBadMagic: return "bad-magic";
    case ErrorCode::kUnsupportedVersion: return "unsupported-version";
    case ErrorCode::kPreambleChecksum: return "preamble-checksum";
    case ErrorCode::kUnknownRequiredFeature: return "unknown-required-feature";
    case ErrorCode::kPreambleReserved: return "preamble-reserved";
    case ErrorCode::kBadAlignment: return "bad-alignment";
    case ErrorCode::kBadTrailer: return "bad-trailer";
    case ErrorCode::kDataMisaligned: return "data-misaligned";
    case ErrorCode::kRegionOutOfFile: return "region-out-of-file";
    case ErrorCode::kRegionsOverlap: return "regions-overlap";
    case ErrorCode::kRegionsNotCovering: return "regions-not-covering";
    case ErrorCode::kIndexTooLarge: return "index-too-large";
    case ErrorCode::kBadIndexHeader: return "bad-index-header";
    case ErrorCode::kCountLimit: return "count-limit";
    case ErrorCode::kIndexChecksum: return "index-checksum";
    case ErrorCode::kRecordReserved: return "record-reserved";
    case ErrorCode::kUnknownDType: return "unknown-dtype";
    case ErrorCode::kDimsOutOfBounds: return "dims-out-of-bounds";
    case ErrorCode::kRankLimit: return "rank-limit";
    case ErrorCode::kNameOutOfBounds: return "name-out-of-bounds";
    case ErrorCode::kBadName: return "bad-name";
    case ErrorCode::kDuplicateName: return "duplicate-name";
    case ErrorCode::kArithmeticOverflow: return "arithmetic-overflow";
    case ErrorCode::kByteLengthMismatch: return "byte-length-mismatch";
    case ErrorCode::kTensorMisaligned: return "tensor-misaligned";
    case ErrorCode::kRecordsUnsorted: return "records-unsorted";
    case ErrorCode::kTensorsOverlap: return "tensors-overlap";
    case ErrorCode::kPaddingTooLong: return "padding-too-long";
    case ErrorCode::kTensorOutOfData: return "tensor-out-of-data";
    case ErrorCode::kNonZeroPadding: return "nonzero-padding";
    case ErrorCode::kBadMetadataEntry: return "bad-metadata-entry";
    case ErrorCode::kBadMetadataKey: return "bad-metadata-key";
    case ErrorCode::kDuplicateMetadataKey: return "duplicate-metadata-key";
    case ErrorCode::kBadMetadataValue: return "bad-metadata-value";
    case ErrorCode::kTensorChecksum: return "tensor-checksum";
    case ErrorCode::kIo: return "io";
    case ErrorCode::kFileShrank: return "file-shrank";
    case ErrorCode::kInvalidArgument: return "invalid-argument";
    case ErrorCode::kNotFound: return "not-found";
    case ErrorCode::kBadForeignFile: return "bad-foreign-file";
    case ErrorCode::kUnsupportedForeign: return "unsupported-foreign";
    case ErrorCode::kForeignLimit: return "foreign-limit";
    case ErrorCode::kForeignOverlap: return "foreign-overlap";
  }
  return "unknown-error";
}

std::string Error::ToString() const {
  std::string out;
  if (rule() != 0) out = "rule " + std::to_string(rule()) + " (";
  out += ErrorCodeName(code_);
  if (rule() != 0) out += ")";
  out += ": " + message_;
  return out;
}

}  // namespace alknet::tensor
