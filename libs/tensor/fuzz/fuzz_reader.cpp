// Any byte string must give a Reader or an Error with a rule number; never a crash, a hang,
// a leak or an out-of-bounds access. A reader that accepts the input must then hand out
// views inside the buffer and survive every data check.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "alknet/tensor/tensor.h"

using namespace alknet::tensor;

namespace {

// Random bytes almost never carry valid CRC32Cs, so most inputs would stop at rules 4 and 16.
// For two inputs in three the checksums are repaired first, letting the fuzzer reach the
// record, metadata and layout rules behind them.
void RepairChecksums(std::vector<std::byte>& b) {
  if (b.size() < kPreambleSize) return;
  auto u64 = [&](size_t at) {
    uint64_t v;
    std::memcpy(&v, b.data() + at, 8);
    return v;
  };
  const uint32_t pre = Crc32c(std::span<const std::byte>(b.data(), 60));
  std::memcpy(b.data() + 60, &pre, 4);
  uint64_t io = u64(24), il = u64(32);
  if (b.size() >= kPreambleSize + kTrailerSize) {
    std::byte* t = b.data() + b.size() - kTrailerSize;
    const uint32_t tc = Crc32c(std::span<const std::byte>(t, 24));
    std::memcpy(t + 24, &tc, 4);
    if (io == 0) std::memcpy(&io, t, 8), std::memcpy(&il, t + 8, 8);
  }
  if (il >= 4 && io < b.size() && il <= b.size() - io) {
    const uint32_t ic = Crc32c(std::span<const std::byte>(b.data() + io, il - 4));
    std::memcpy(b.data() + io + il - 4, &ic, 4);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::byte> copy(reinterpret_cast<const std::byte*>(data),
                              reinterpret_cast<const std::byte*>(data) + size);
  if (size % 3 != 0) RepairChecksums(copy);
  const std::span<const std::byte> bytes(copy);
  ReadOptions options;
  options.strict_padding = size % 2 == 0;
  options.verify_checksums = size % 5 < 2;
  options.limits.max_index_bytes = 1 << 20;  // keep allocations small: limits fail closed
  auto r = Reader::FromMemory(bytes, options);
  if (!r) {
    if (r.error().rule() == 0) std::abort();  // memory input: every rejection is a rule
    return 0;
  }
  for (size_t i = 0; i < r->tensors().size(); ++i) {
    auto t = r->Tensor(i);
    if (!t) std::abort();
    if (t->data.data() < bytes.data() || t->data.data() + t->data.size() > bytes.data() + size) {
      std::abort();
    }
    volatile std::byte sink{0};
    if (!t->data.empty()) sink = t->data.back();
    (void)sink;
  }
  (void)r->VerifyChecksums();
  (void)r->VerifyPadding();
  for (const auto& e : r->metadata()) (void)r->FindMetadata(e.key);
  return 0;
}
