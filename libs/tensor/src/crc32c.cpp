#include "alknet/tensor/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace alknet::tensor {
namespace {

constexpr uint32_t kPoly = 0x82F63B78u;  // CRC32C, reflected

// Slicing-by-8 tables: table[k][b] is the CRC of byte b followed by k zero bytes.
constexpr std::array<std::array<uint32_t, 256>, 8> MakeTables() {
  std::array<std::array<uint32_t, 256>, 8> t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t c = b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1u) ? kPoly : 0u);
    t[0][b] = c;
  }
  for (uint32_t b = 0; b < 256; ++b) {
    for (int k = 1; k < 8; ++k) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xFFu];
  }
  return t;
}
constexpr auto kTables = MakeTables();

uint32_t Software(const unsigned char* p, size_t n, uint32_t c) {
  while (n >= 8) {
    uint32_t lo = 0, hi = 0;
    std::memcpy(&lo, p, 4);  // little-endian host assumed (the format is little-endian only)
    std::memcpy(&hi, p + 4, 4);
    lo ^= c;
    c = kTables[7][lo & 0xFF] ^ kTables[6][(lo >> 8) & 0xFF] ^ kTables[5][(lo >> 16) & 0xFF] ^
        kTables[4][lo >> 24] ^ kTables[3][hi & 0xFF] ^ kTables[2][(hi >> 8) & 0xFF] ^
        kTables[1][(hi >> 16) & 0xFF] ^ kTables[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n--) c = (c >> 8) ^ kTables[0][(c ^ *p++) & 0xFF];
  return c;
}

#if defined(__x86_64__)
// Multiplication modulo the CRC polynomial in the reflected representation (x^0 = bit 31).
// The raw CRC register is linear: crc(A || B) = shift(crc(A), |B|) ^ crc_from_zero(B), where
// shift(c, n) = c * x^(8n) mod P. That lets three independent crc32q chains run side by side
// (the instruction's latency is 3 cycles, its throughput 1 per cycle) and be merged cheaply.
uint32_t MulModP(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (uint32_t m = 1u << 31; m != 0; m >>= 1) {
    if (a & m) product ^= b;
    b = (b & 1u) ? (b >> 1) ^ kPoly : b >> 1;
  }
  return product;
}

constexpr size_t kStripe = 4096;  // bytes per chain per round

// shift(c, kStripe) as four byte-indexed tables (multiplication by a constant is linear).
struct ShiftTable {
  uint32_t t[4][256];
  ShiftTable() {
    uint32_t x8n = 1u << 31;  // x^0
    for (size_t i = 0; i < 8 * kStripe; ++i) x8n = (x8n & 1u) ? (x8n >> 1) ^ kPoly : x8n >> 1;
    for (int k = 0; k < 4; ++k) {
      for (uint32_t b = 0; b < 256; ++b) t[k][b] = MulModP(x8n, b << (8 * k));
    }
  }
  uint32_t Shift(uint32_t c) const {
    return t[0][c & 0xFF] ^ t[1][(c >> 8) & 0xFF] ^ t[2][(c >> 16) & 0xFF] ^ t[3][c >> 24];
  }
};
const ShiftTable kShift;

__attribute__((target("sse4.2"))) uint64_t Chain(const unsigned char* p, size_t n, uint64_t c) {
  for (; n >= 8; n -= 8, p += 8) {
    unsigned long long v;
    std::memcpy(&v, p, 8);
    c = __builtin_ia32_crc32di(c, v);
  }
  return c;
}

__attribute__((target("sse4.2"))) uint32_t Hardware(const unsigned char* p, size_t n, uint32_t c) {
  while (n >= 3 * kStripe) {
    unsigned long long c0 = c, c1 = 0, c2 = 0;
    const unsigned char* q = p;
    for (size_t i = 0; i < kStripe; i += 8, q += 8) {
      unsigned long long v0, v1, v2;
      std::memcpy(&v0, q, 8);
      std::memcpy(&v1, q + kStripe, 8);
      std::memcpy(&v2, q + 2 * kStripe, 8);
      c0 = __builtin_ia32_crc32di(c0, v0);
      c1 = __builtin_ia32_crc32di(c1, v1);
      c2 = __builtin_ia32_crc32di(c2, v2);
    }
    c = kShift.Shift(kShift.Shift(static_cast<uint32_t>(c0)) ^ static_cast<uint32_t>(c1)) ^
        static_cast<uint32_t>(c2);
    p += 3 * kStripe;
    n -= 3 * kStripe;
  }
  uint32_t c32 = static_cast<uint32_t>(Chain(p, n, c));
  p += n & ~size_t{7};
  n &= 7;
  while (n--) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return c32;
}
// Carry-less multiplication folding (Intel, "Fast CRC Computation for Generic Polynomials
// Using PCLMULQDQ"): four 16-byte accumulators are each moved 64 bytes forward by
// acc * x^512 mod P, which PCLMULQDQ computes per 64-bit lane with the constants x^(8d+31)
// (first lane) and x^(8d-33) (second lane) mod P for a distance of d bytes, in the reflected
// representation. The last 16 bytes of state then go through crc32q as ordinary data.
// Constants (d = 64 and d = 16) were derived from those exponents and are checked by the unit
// test against a bit-at-a-time CRC.
__attribute__((target("pclmul,sse4.2"))) inline __m128i Load(const unsigned char* q) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
}
__attribute__((target("pclmul,sse4.2"))) inline __m128i Fold(__m128i x, __m128i k) {
  return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

__attribute__((target("pclmul,sse4.2"))) uint32_t Folding(const unsigned char* p, size_t n,
                                                          uint32_t c) {
  const __m128i k64 = _mm_set_epi64x(0x9e4addf8, 0x740eef02);
  const __m128i k16 = _mm_set_epi64x(0x493c7d27, 0xf20c0dfe);
  // The register enters as the first four message bytes XORed with it.
  __m128i x0 = _mm_xor_si128(Load(p), _mm_cvtsi32_si128(static_cast<int>(c)));
  __m128i x1 = Load(p + 16), x2 = Load(p + 32), x3 = Load(p + 48);
  p += 64;
  n -= 64;
  for (; n >= 64; p += 64, n -= 64) {
    x0 = _mm_xor_si128(Fold(x0, k64), Load(p));
    x1 = _mm_xor_si128(Fold(x1, k64), Load(p + 16));
    x2 = _mm_xor_si128(Fold(x2, k64), Load(p + 32));
    x3 = _mm_xor_si128(Fold(x3, k64), Load(p + 48));
  }
  x1 = _mm_xor_si128(x1, Fold(x0, k16));
  x2 = _mm_xor_si128(x2, Fold(x1, k16));
  x3 = _mm_xor_si128(x3, Fold(x2, k16));
  unsigned long long r =
      __builtin_ia32_crc32di(0, static_cast<unsigned long long>(_mm_cvtsi128_si64(x3)));
  r = __builtin_ia32_crc32di(r, static_cast<unsigned long long>(_mm_extract_epi64(x3, 1)));
  r = Chain(p, n, r);
  uint32_t c32 = static_cast<uint32_t>(r);
  p += n & ~size_t{7};
  n &= 7;
  while (n--) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return c32;
}
const bool kHavePclmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.2");
const bool kHaveSse42 = __builtin_cpu_supports("sse4.2");
#endif

}  // namespace

uint32_t Crc32c(std::span<const std::byte> bytes, uint32_t crc) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  uint32_t c = ~crc;
#if defined(__x86_64__)
  if (kHavePclmul && bytes.size() >= 256) return ~Folding(p, bytes.size(), c);
  if (kHaveSse42) return ~Hardware(p, bytes.size(), c);
#endif
  return ~Software(p, bytes.size(), c);
}

}  // namespace alknet::tensor
