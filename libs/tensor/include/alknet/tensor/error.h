// Errors of alknet-tensor: every failure carries a code and a message naming what is wrong
// and where (file, tensor, byte offset). Codes 1..99 are the numbered validation rules of
// docs/metatensor-format.md section 6; a second implementation reports the same numbers.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "alknet/base/result.h"

namespace alknet::tensor {

// The numeric value is stable and is the rule number of the spec (section 6). Never renumber.
enum class ErrorCode : int {
  kOk = 0,
  // Preamble and trailer (spec 6.1)
  kFileTooSmall = 1,
  kBadMagic = 2,
  kUnsupportedVersion = 3,
  kPreambleChecksum = 4,
  kUnknownRequiredFeature = 5,
  kPreambleReserved = 6,
  kBadAlignment = 7,
  kBadTrailer = 8,
  // Regions (spec 6.2)
  kIndexTooLarge = 9,
  kDataMisaligned = 10,
  kRegionOutOfFile = 11,
  kRegionsOverlap = 12,
  kRegionsNotCovering = 13,
  // Index (spec 6.3)
  kBadIndexHeader = 14,
  kCountLimit = 15,
  kIndexChecksum = 16,
  // Tensor records (spec 6.4)
  kRecordReserved = 17,
  kUnknownDType = 18,
  kRankLimit = 19,
  kDimsOutOfBounds = 20,
  kNameOutOfBounds = 21,
  kBadName = 22,
  kDuplicateName = 23,
  kArithmeticOverflow = 24,
  kByteLengthMismatch = 25,
  kTensorMisaligned = 26,
  kRecordsUnsorted = 27,
  kTensorsOverlap = 28,
  kPaddingTooLong = 29,
  kTensorOutOfData = 30,
  kNonZeroPadding = 31,
  // Metadata (spec 6.5)
  kBadMetadataEntry = 32,
  kBadMetadataKey = 33,
  kDuplicateMetadataKey = 34,
  kBadMetadataValue = 35,
  // Data (spec 6.6)
  kTensorChecksum = 36,

  // Not rules of the format: the environment or the caller.
  kIo = 100,               // open/read/write/fsync/rename failed (errno in the message)
  kFileShrank = 101,       // the file became shorter than the validated layout after opening
  kInvalidArgument = 102,  // API misuse: bad name or shape given to the writer, wrong order
  kNotFound = 103,         // no tensor or metadata entry of that name
  // Foreign tensor files (.npy, .npz, .safetensors; alknet/tensor/convert/).
  kBadForeignFile = 104,      // the bytes break the format's own rules (truncated, bad header...)
  kUnsupportedForeign = 105,  // a valid file using a feature alknet does not read (compression...)
  kForeignLimit = 106,        // a size the file declares is over a reader cap
  kForeignOverlap = 107,      // two members or tensors share bytes of the file
};

// The rule number for a format violation, 0 for errors that are not about the bytes.
constexpr int RuleNumber(ErrorCode code) {
  const int v = static_cast<int>(code);
  return v >= 1 && v <= 99 ? v : 0;
}

// Short stable identifier, e.g. "bad-magic", used in CLI output and the corpus file names.
const char* ErrorCodeName(ErrorCode code);

class Error {
 public:
  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}
  ErrorCode code() const { return code_; }
  int rule() const { return RuleNumber(code_); }
  const std::string& message() const { return message_; }
  // "rule 2 (bad-magic): <message>" or "io: <message>".
  std::string ToString() const;

 private:
  ErrorCode code_;
  std::string message_;
};

template <typename T>
using Result = base::Result<T, Error>;
using Status = base::Result<void, Error>;
using base::Ok;

}  // namespace alknet::tensor
