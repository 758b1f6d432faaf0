// libFuzzer target of the .safetensors reader: any byte string gives tensors inside the input or an
// error of the format's codes; never a crash, a hang, a leak or an out-of-bounds access.
#include <cstddef>
#include <cstdint>
#include <span>

#include "alknet/tensor/convert/safetensors.h"
#include "fuzz_check.h"

using namespace alknet::tensor::convert;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const MemorySource src("fuzz.safetensors", std::as_bytes(std::span(data, size)));
  ForeignLimits limits;
  limits.max_header_bytes = 1 << 20;  // keep allocations small: limits fail closed
  fuzz::CheckAnswer(ReadSafetensors(src, limits), size);
  return 0;
}
