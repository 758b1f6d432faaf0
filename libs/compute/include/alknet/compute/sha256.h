// SHA-256 on the GPU, through the same generator, pipeline cache and checked submission as
// the ops.
//
//   Sha256 sha(executor);
//   auto digests = sha.HashBatch(messages);      // many messages, one invocation each
//   auto digest = sha.HashStream(read_chunk);    // one long message, chunk by chunk
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "alknet/compute/error.h"
#include "alknet/compute/executor.h"

namespace alknet::compute {

using Sha256Digest = std::array<uint8_t, 32>;
std::string ToHex(const Sha256Digest& d);

struct Sha256Options {
  // Where the 64 round constants come from: "inline" (unrolled rounds, literals), "switch"
  // (a switch table), "array" (a const array). The last two exist for comparison.
  std::string k_mode = "inline";
  uint32_t workgroup_size = 64;
  // How a batch is laid out: "auto" hashes a batch of at least kSha256FixedMinBatch messages
  // that all have the same length (at most kSha256MaxFixedLength bytes) with a kernel rendered
  // for that length (no index, the padding resolved when rendering), any other batch with the
  // indexed kernel (compiled once for every length: a small batch does not pay a compile);
  // "indexed" always takes the indexed kernel (for comparison); "fixed" requires equal lengths.
  std::string layout = "auto";
  // Fixed layout: messages hashed by one invocation (1..8), for instruction-level parallelism.
  uint32_t per_invocation = 1;
};

// Longest message the fixed-length kernel takes (four blocks); longer ones use the indexed one.
inline constexpr uint32_t kSha256MaxFixedLength = 4 * 64 - 9;
// Smallest batch "auto" gives the fixed-length kernel: each length is a pipeline of its own,
// and one file per call at many lengths would compile one each (about 1 s apiece on lavapipe).
inline constexpr size_t kSha256FixedMinBatch = 4096;

class Sha256 {
 public:
  explicit Sha256(Executor& executor, Sha256Options options = {});
  ~Sha256();

  // The rendered WGSL of each kernel (for golden files and inspection).
  Result<std::string> BatchSource() const;
  // The fixed-length kernel for messages of `length` bytes (at most kSha256MaxFixedLength).
  Result<std::string> FixedSource(uint32_t length) const;
  Result<std::string> StreamSource() const;

  Result<std::vector<Sha256Digest>> HashBatch(std::span<const std::span<const std::byte>> messages);

  // One message of any length: `read` fills its argument and returns the byte count, 0 at the
  // end. Chunks of `chunk_bytes` (a multiple of 64) go through one dispatch each.
  Result<Sha256Digest> HashStream(const std::function<Result<size_t>(std::span<std::byte>)>& read,
                                  uint64_t chunk_bytes = 64ull << 20);
  Result<Sha256Digest> HashOne(std::span<const std::byte> message,
                               uint64_t chunk_bytes = 64ull << 20);

  // For benchmarks: upload once, dispatch many times, read once.
  struct Prepared {
    std::shared_ptr<webgpu::Buffer> data, index, digests;  // index: null in the fixed layout
    size_t count = 0;
    bool fixed = false;  // every message has `length` bytes; the fixed-length kernel
    uint32_t length = 0;
    std::string source;  // the kernel, rendered once
  };
  Result<Prepared> Prepare(std::span<const std::span<const std::byte>> messages);
  // Records and submits one pass over the batch without waiting (errors surface in Finish).
  Status Dispatch(const Prepared& p, bool checked = false);
  Result<std::vector<Sha256Digest>> Finish(const Prepared& p);

 private:
  Status CheckOptions() const;
  Executor& ex_;
  Sha256Options options_;
};

}  // namespace alknet::compute
