// Reader: opens a metatensor file or an in-memory buffer, validates the whole index against
// every rule of docs/metatensor-format.md section 6, and only then hands out tensors.
//
//   auto r = alknet::tensor::Reader::Open("model.mtf");
//   if (!r) { fprintf(stderr, "%s\n", r.error().ToString().c_str()); return 1; }
//   auto w = r->Find("layer0.weight");   // Result<TensorView>, zero-copy
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "alknet/tensor/error.h"
#include "alknet/tensor/format.h"
#include "alknet/tensor/metadata.h"
#include "alknet/tensor/tensor_view.h"

namespace alknet::tensor {

// Caps on every size the file declares, checked before anything is allocated from them.
// Exceeding one is an error (fail closed), never a silent truncation.
struct ReaderLimits {
  uint64_t max_index_bytes = 256ull << 20;
  uint32_t max_tensors = 1u << 20;
  uint32_t max_metadata_entries = 1u << 16;
  uint32_t max_dims = 1u << 24;  // entries of the dims array
  uint32_t max_rank = 32;
  uint32_t max_name_bytes = 4096;  // tensor names and metadata keys
};

enum class Access {
  kMap,    // mmap the file; TensorView points into the mapping (falls back to kPread if mmap fails)
  kPread,  // read tensors with pread into reader-owned memory on first access
};

struct ReadOptions {
  ReaderLimits limits;
  Access access = Access::kMap;
  bool strict_padding = false;    // rule 31: check every padding byte is zero (touches the file)
  bool verify_checksums = false;  // rule 36: check per-tensor CRC32C while opening
};

// Const member functions may be called from several threads at once. Move-only.
class Reader {
 public:
  // Opens and validates a file. The file is read with pread for the index (no fault if it
  // shrinks meanwhile) and mapped for tensor data.
  static Result<Reader> Open(const std::filesystem::path& path, const ReadOptions& options = {});
  // Validates a buffer the caller keeps alive for the Reader's lifetime (no copy).
  static Result<Reader> FromMemory(std::span<const std::byte> bytes,
                                   const ReadOptions& options = {});
  // Same, taking ownership of the buffer.
  static Result<Reader> FromBuffer(std::vector<std::byte> bytes, const ReadOptions& options = {});

  Reader(Reader&&) noexcept;
  Reader& operator=(Reader&&) noexcept;
  ~Reader();

  const Preamble& preamble() const;
  uint64_t source_size() const;  // bytes of the file or buffer when validated

  // The validated index, in file order (sorted by offset).
  std::span<const TensorInfo> tensors() const;
  std::span<const MetadataEntry> metadata() const;
  // Entries with a type id this reader does not know, skipped by their length (spec 4.4).
  uint32_t skipped_metadata_count() const;
  const MetadataValue* FindMetadata(std::string_view key) const;

  // Index of the tensor named `name`, or kNotFound.
  Result<size_t> IndexOf(std::string_view name) const;
  // The tensor's bytes without copying (kMap, memory) or after one pread (kPread).
  // kFileShrank if the file is now shorter than the tensor's end. Nothing the Reader does
  // itself can fault on a shrunken file (it reads with pread); but a kMap view obtained
  // earlier still points into the mapping, and touching it after another process truncated
  // the file raises SIGBUS. For files others may modify, use Access::kPread or CopyTensor.
  Result<TensorView> Tensor(size_t index) const;
  Result<TensorView> Find(std::string_view name) const;

  // Copies a tensor's bytes into dst (dst.size() == byte_length) with pread or memcpy.
  // Safe even if the file shrinks meanwhile: that is reported as kFileShrank.
  Status CopyTensor(size_t index, std::span<std::byte> dst) const;
  // Rule 36 for every tensor that carries a checksum (reads through CopyTensor's path).
  Status VerifyChecksums() const;
  // Rule 31 for every padding byte of the source.
  Status VerifyPadding() const;

 private:
  struct Impl;
  explicit Reader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace alknet::tensor
