// CRC32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of the format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace alknet::tensor {

// Continues a CRC32C: Crc32c(b, Crc32c(a)) == Crc32c(a ++ b). Start with crc = 0.
// Uses the SSE4.2 instruction when the CPU has it.
uint32_t Crc32c(std::span<const std::byte> bytes, uint32_t crc = 0);

}  // namespace alknet::tensor
