// The tensors of one remote call travel as one payload in the metatensor format (encoded
// and validated by alknet-tensor), behind this interface so the wire protocol does not
// depend on how the payload is produced.
//
// Encoding yields pieces: small headers it owns plus views of the tensors' own bytes, so a
// 256 MiB tensor is streamed from where it lies. Decoding validates everything and returns
// views into the received buffer (no copy).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "alknet/call/error.h"
#include "alknet/call/value.h"

namespace alknet::call {

struct EncodedPayload {
  std::vector<std::span<const std::byte>> pieces;  // concatenated, they are the payload
  std::vector<std::vector<std::byte>> owned;       // the headers the pieces point into
  std::vector<Tensor> keep_alive;                  // the tensors the pieces point into
  std::uint64_t size = 0;
};

Result<EncodedPayload> EncodePayload(std::vector<Tensor> tensors);

// Uninitialised memory for a received payload. Large buffers (>= 8 MiB) are 2 MiB aligned,
// use transparent huge pages, and are reused by later calls of a similar size (at most four
// of them, 1 GiB in all, stay cached).
std::shared_ptr<std::byte[]> AllocatePayload(std::size_t size);

// `buffer` holds `size` bytes; the returned tensors share its ownership.
Result<std::vector<Tensor>> DecodePayload(std::shared_ptr<const std::byte[]> buffer,
                                          std::size_t size);

}  // namespace alknet::call
