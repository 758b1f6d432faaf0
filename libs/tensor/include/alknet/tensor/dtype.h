// The dtype registry of docs/metatensor-format.md section 5. Ids are stable and never reused.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "alknet/tensor/error.h"

namespace alknet::tensor {

enum class DType : uint16_t {
  kBool = 1,
  kI8 = 2,
  kI16 = 3,
  kI32 = 4,
  kI64 = 5,
  kU8 = 6,
  kU16 = 7,
  kU32 = 8,
  kU64 = 9,
  kF16 = 10,
  kBF16 = 11,
  kF32 = 12,
  kF64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kF8E4M3FN = 16,
  kF8E5M2 = 17,
  kF8E4M3FNUZ = 18,
  kF8E5M2FNUZ = 19,
  kI4 = 20,    // two per byte, element 0 in the low nibble
  kU4 = 21,    // two per byte, element 0 in the low nibble
  kQ8_0 = 22,  // GGML q8_0 blocks of 32: f16 scale + 32 x i8 (34 bytes)
  kQ4_0 = 23,  // GGML q4_0 blocks of 32: f16 scale + 16 bytes of nibbles (18 bytes)
};

// DLPack's DLDataType for a dtype: {code, bits, lanes}. Codes from dlpack.h (kDLInt = 0,
// kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLComplex = 5, kDLBool = 6, kDLFloat8_* = 10..13).
struct DLPackType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct DTypeInfo {
  DType dtype;
  std::string_view name;  // spec name, e.g. "f32", "q4_0"
  uint32_t
      block_elements;    // elements per storage block: 1 for plain types, 2 for i4/u4, 32 for q*_0
  uint32_t block_bytes;  // bytes per storage block
  std::optional<DLPackType> dlpack;
};

// The registry: every known dtype in id order.
std::span<const DTypeInfo> AllDTypes();
// nullptr for an id this implementation does not know (rule 18).
const DTypeInfo* FindDType(uint16_t id);
const DTypeInfo* FindDType(std::string_view name);
inline const DTypeInfo& Info(DType d) { return *FindDType(static_cast<uint16_t>(d)); }

// Element count of a shape (1 for rank 0), or kArithmeticOverflow.
Result<uint64_t> ElementCount(std::span<const uint64_t> shape);
// Bytes a tensor of this dtype and shape occupies (spec 5.2): checked arithmetic; block dtypes
// need the last dimension to be a multiple of the block (kByteLengthMismatch otherwise).
Result<uint64_t> ByteLength(DType dtype, std::span<const uint64_t> shape);

}  // namespace alknet::tensor
