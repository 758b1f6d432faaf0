// Writer: streams tensors of any size into a Sink without holding them in memory.
//
// Two layouts (docs/metatensor-format.md section 2):
//   - IndexPlacement::kAfterData (default): tensors are streamed as they come; the index
//     follows the data. A sink that can patch (file, memory) gets the final preamble written
//     over the provisional one; a sink that cannot (pipe, socket) gets a trailer instead.
//   - IndexPlacement::kBeforeData: every tensor is Declare()d first, then the index is sent
//     before any data, so a receiver on the network knows all shapes before the bytes arrive.
//
//   alknet::tensor::MemorySink sink;
//   alknet::tensor::Writer w(sink);
//   w.SetMetadata("model", std::string("tiny"));
//   w.AddTensor("w", DType::kF32, shape, bytes);   // or BeginTensor + Write... + EndTensor
//   w.Finish();                                    // sink.bytes() is a complete file
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "alknet/tensor/dtype.h"
#include "alknet/tensor/error.h"
#include "alknet/tensor/metadata.h"

namespace alknet::tensor {

// Where encoded bytes go. Write() is called with consecutive bytes from offset 0.
class Sink {
 public:
  virtual ~Sink() = default;
  virtual Status Write(std::span<const std::byte> bytes) = 0;
  // True if Patch can overwrite bytes already written (files, memory); false for pipes.
  virtual bool CanPatch() const { return false; }
  virtual Status Patch(uint64_t offset, std::span<const std::byte> bytes);
};

// Appends to a growable byte vector.
class MemorySink final : public Sink {
 public:
  Status Write(std::span<const std::byte> bytes) override;
  bool CanPatch() const override { return true; }
  Status Patch(uint64_t offset, std::span<const std::byte> bytes) override;
  const std::vector<std::byte>& bytes() const { return bytes_; }
  std::vector<std::byte> Take() { return std::move(bytes_); }

 private:
  std::vector<std::byte> bytes_;
};

// Writes to a file descriptor the caller owns (not closed here). Patches with pwrite when
// the descriptor is seekable; a pipe or socket gets the trailer layout.
class FdSink final : public Sink {
 public:
  explicit FdSink(int fd);
  Status Write(std::span<const std::byte> bytes) override;
  bool CanPatch() const override { return seekable_; }
  Status Patch(uint64_t offset, std::span<const std::byte> bytes) override;

 private:
  int fd_;
  bool seekable_;
  uint64_t start_;  // file position when the sink was created: patches are relative to it
};

// Writes to a std::ostream (not owned). Never patches, so files get the trailer layout.
class OstreamSink final : public Sink {
 public:
  explicit OstreamSink(std::ostream& out) : out_(out) {}
  Status Write(std::span<const std::byte> bytes) override;

 private:
  std::ostream& out_;
};

enum class IndexPlacement { kAfterData, kBeforeData };

struct WriteOptions {
  uint32_t alignment = 256;  // power of two in [64, 2^20]
  bool checksums = true;     // store a CRC32C per tensor (kAfterData only; see Declare)
  IndexPlacement placement = IndexPlacement::kAfterData;
  bool force_trailer = false;  // write the trailer layout even if the sink can patch
};

class Writer {
 public:
  explicit Writer(Sink& sink, WriteOptions options = {});
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  ~Writer();

  // Metadata may be set until the index is written (Finish, or the first BeginTensor in
  // kBeforeData). Keys are non-empty UTF-8 and unique.
  Status SetMetadata(std::string key, MetadataValue value);

  // kBeforeData only: announces the next tensor. The optional checksum is stored in the index
  // and the writer checks the streamed bytes against it at EndTensor.
  Status Declare(std::string_view name, DType dtype, std::span<const uint64_t> shape,
                 std::optional<uint32_t> checksum = std::nullopt);

  // Starts a tensor; its bytes follow in any number of Write calls, then EndTensor. In
  // kBeforeData the tensor must be the next one declared.
  Status BeginTensor(std::string_view name, DType dtype, std::span<const uint64_t> shape);
  Status Write(std::span<const std::byte> bytes);
  Status EndTensor();

  // BeginTensor + Write + EndTensor.
  Status AddTensor(std::string_view name, DType dtype, std::span<const uint64_t> shape,
                   std::span<const std::byte> bytes);

  // Writes the index (and trailer or patched preamble). After Finish the sink holds a valid file.
  Status Finish();

  uint64_t bytes_written() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A file written atomically: bytes go to "<path>.tmp-<pid>-<n>" in the same directory, and
// Commit() fsyncs it, renames it over `path` and fsyncs the directory. Dropping a FileWriter
// without Commit removes the temporary file; `path` is never left half-written.
// The directory is opened once, when the writer is created: the temporary file is created, and
// renamed, relative to that descriptor (openat, renameat), so replacing the directory by a
// symbolic link meanwhile cannot move where the file lands.
class FileWriter {
 public:
  static Result<std::unique_ptr<FileWriter>> Create(const std::filesystem::path& path,
                                                    WriteOptions options = {});
  // Creates `name` (one path component: no '/', not "." or "..") in the directory open as
  // `dir_fd` (duplicated; the caller keeps its own). `display` names the file in messages.
  // Callers that confine writes open the directory with base::OpenBeneath(kDirectory).
  static Result<std::unique_ptr<FileWriter>> CreateIn(int dir_fd, const std::string& name,
                                                      const std::string& display,
                                                      WriteOptions options = {});
  // Opens `path` (validated as by Reader::Open), copies its tensors and metadata into a new
  // temporary file (pread in 8 MiB chunks, so a concurrently shrinking source is an error, not
  // a fault), then accepts more tensors and metadata. Commit replaces the old file, which stays
  // valid until then. The index is always written after the data (placement is ignored).
  static Result<std::unique_ptr<FileWriter>> Append(const std::filesystem::path& path,
                                                    WriteOptions options = {});
  ~FileWriter();

  Writer& writer();
  // Finish (if not done) + fsync + rename + fsync of the directory.
  Status Commit();

 private:
  FileWriter();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace alknet::tensor
