#include "alknet/tensor/dtype.h"

#include <array>
#include <string>

namespace alknet::tensor {
namespace {

// DLPack type codes (dlpack.h, DLDataTypeCode).
constexpr uint8_t kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLComplex = 5, kDLBool = 6,
                  kDLFloat8_e4m3fn = 10, kDLFloat8_e4m3fnuz = 11, kDLFloat8_e5m2 = 12,
                  kDLFloat8_e5m2fnuz = 13;

constexpr DLPackType DL(uint8_t code, uint8_t bits) { return DLPackType{code, bits, 1}; }

// Spec section 5, table 5.1. Order = id order; FindDType relies on ids being 1..N dense.
const std::array<DTypeInfo, 23> kDTypes = {{
    {DType::kBool, "bool", 1, 1, DL(kDLBool, 8)},
    {DType::kI8, "i8", 1, 1, DL(kDLInt, 8)},
    {DType::kI16, "i16", 1, 2, DL(kDLInt, 16)},
    {DType::kI32, "i32", 1, 4, DL(kDLInt, 32)},
    {DType::kI64, "i64", 1, 8, DL(kDLInt, 64)},
    {DType::kU8, "u8", 1, 1, DL(kDLUInt, 8)},
    {DType::kU16, "u16", 1, 2, DL(kDLUInt, 16)},
    {DType::kU32, "u32", 1, 4, DL(kDLUInt, 32)},
    {DType::kU64, "u64", 1, 8, DL(kDLUInt, 64)},
    {DType::kF16, "f16", 1, 2, DL(kDLFloat, 16)},
    {DType::kBF16, "bf16", 1, 2, DL(kDLBfloat, 16)},
    {DType::kF32, "f32", 1, 4, DL(kDLFloat, 32)},
    {DType::kF64, "f64", 1, 8, DL(kDLFloat, 64)},
    {DType::kComplex64, "complex64", 1, 8, DL(kDLComplex, 64)},
    {DType::kComplex128, "complex128", 1, 16, DL(kDLComplex, 128)},
    {DType::kF8E4M3FN, "f8_e4m3fn", 1, 1, DL(kDLFloat8_e4m3fn, 8)},
    {DType::kF8E5M2, "f8_e5m2", 1, 1, DL(kDLFloat8_e5m2, 8)},
    {DType::kF8E4M3FNUZ, "f8_e4m3fnuz", 1, 1, DL(kDLFloat8_e4m3fnuz, 8)},
    {DType::kF8E5M2FNUZ, "f8_e5m2fnuz", 1, 1, DL(kDLFloat8_e5m2fnuz, 8)},
    {DType::kI4, "i4", 2, 1, DL(kDLInt, 4)},
    {DType::kU4, "u4", 2, 1, DL(kDLUInt, 4)},
    {DType::kQ8_0, "q8_0", 32, 34, std::nullopt},
    {DType::kQ4_0, "q4_0", 32, 18, std::nullopt},
}};

}  // namespace

std::span<const DTypeInfo> AllDTypes() { return kDTypes; }

const DTypeInfo* FindDType(uint16_t id) {
  if (id == 0 || id > kDTypes.size()) return nullptr;
  return &kDTypes[id - 1];
}

const DTypeInfo* FindDType(std::string_view name) {
  for (const auto& d : kDTypes) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

Result<uint64_t> ElementCount(std::span<const uint64_t> shape) {
  uint64_t n = 1;
  for (uint64_t d : shape) {
    if (__builtin_mul_overflow(n, d, &n)) {
      return Error(ErrorCode::kArithmeticOverflow, "element count of the shape overflows 64 bits");
    }
  }
  return n;
}

Result<uint64_t> ByteLength(DType dtype, std::span<const uint64_t> shape) {
  const DTypeInfo* info = FindDType(static_cast<uint16_t>(dtype));
  if (info == nullptr) {
    return Error(ErrorCode::kUnknownDType,
                 "unknown dtype id " + std::to_string(static_cast<unsigned>(dtype)));
  }
  auto count = ElementCount(shape);
  if (!count) return count.error();
  const uint64_t n = *count;
  if (info->block_elements == 1) {
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(n, uint64_t{info->block_bytes}, &bytes)) {
      return Error(ErrorCode::kArithmeticOverflow, "byte length overflows 64 bits");
    }
    return bytes;
  }
  if (info->block_elements == 2) return n / 2 + n % 2;  // i4/u4: ceil(n / 2), cannot overflow
  // GGML block types: rows are whole blocks (spec 5.3).
  if (shape.empty() || shape.back() % info->block_elements != 0) {
    return Error(ErrorCode::kByteLengthMismatch,
                 std::string(info->name) + " needs a last dimension that is a multiple of " +
                     std::to_string(info->block_elements));
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(n / info->block_elements, uint64_t{info->block_bytes}, &bytes)) {
    return Error(ErrorCode::kArithmeticOverflow, "byte length overflows 64 bits");
  }
  return bytes;
}

}  // namespace alknet::tensor
