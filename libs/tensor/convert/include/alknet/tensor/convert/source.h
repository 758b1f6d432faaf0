// Reading tensors out of foreign files (.npy, .npz, .safetensors) to convert them to .mtf.
// Each reader validates the whole layout of its input before it returns anything: every read
// is bounds-checked, every size from the file is capped and checked for overflow, and two
// tensors never share bytes. What it returns is a list of byte ranges of the input, so a
// converter can stream any size with constant memory.
//
//   auto src = alknet::tensor::convert::FileSource::Open("weights.safetensors");
//   auto file = alknet::tensor::convert::ReadSafetensors(**src);
//   for (const auto& t : file->tensors) src->ReadAt(t.offset, buffer);  // in pieces
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "alknet/tensor/dtype.h"
#include "alknet/tensor/error.h"

namespace alknet::tensor::convert {

// Random-access bytes with a name for messages (the file path, or what the caller says).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual const std::string& name() const = 0;
  virtual uint64_t size() const = 0;
  // Fills dst with the bytes at offset: kBadForeignFile when [offset, +dst.size()) is not inside
  // the source, kIo when the read fails, kFileShrank when the file got shorter since opening.
  virtual Status ReadAt(uint64_t offset, std::span<std::byte> dst) const = 0;

  // The bytes [offset, +length) as a string, with the same errors as ReadAt.
  Result<std::string> ReadString(uint64_t offset, uint64_t length) const;
};

// A buffer the caller keeps alive.
class MemorySource final : public ByteSource {
 public:
  MemorySource(std::string name, std::span<const std::byte> bytes)
      : name_(std::move(name)), bytes_(bytes) {}
  const std::string& name() const override { return name_; }
  uint64_t size() const override { return bytes_.size(); }
  Status ReadAt(uint64_t offset, std::span<std::byte> dst) const override;

 private:
  std::string name_;
  std::span<const std::byte> bytes_;
};

// A file read with pread: nothing is mapped, so a file that shrinks meanwhile is an error,
// not a SIGBUS.
class FileSource final : public ByteSource {
 public:
  static Result<std::unique_ptr<FileSource>> Open(const std::filesystem::path& path);
  ~FileSource() override;
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  const std::string& name() const override { return name_; }
  uint64_t size() const override { return size_; }
  Status ReadAt(uint64_t offset, std::span<std::byte> dst) const override;

 private:
  FileSource(std::string name, int fd, uint64_t size)
      : name_(std::move(name)), fd_(fd), size_(size) {}
  std::string name_;
  int fd_;
  uint64_t size_;
};

// One tensor of a foreign file: its bytes are [offset, +byte_length) of the source, laid out
// exactly as a .mtf tensor of this dtype and shape (C order, little-endian).
struct SourceTensor {
  std::string name;
  DType dtype;
  std::vector<uint64_t> shape;
  uint64_t offset = 0;
  uint64_t byte_length = 0;
};

struct SourceMetadata {
  std::string key;
  std::string value;
};

// A foreign file's tensors in the order of their bytes in the source (ascending offset), and
// its string metadata (safetensors' __metadata__; empty for numpy files).
struct ForeignFile {
  std::vector<SourceTensor> tensors;
  std::vector<SourceMetadata> metadata;
};

// Caps on the sizes a foreign file declares, checked before anything is allocated from them.
struct ForeignLimits {
  uint64_t max_header_bytes = 100'000'000;  // safetensors JSON header (the reference's cap)
  uint64_t max_npy_header_bytes = 65'535;   // a .npy header dict (numpy's own cap is 10,000)
  uint64_t max_central_directory_bytes = 64ull << 20;  // .npz
  uint32_t max_tensors = 1u << 16;                     // .npz members, safetensors tensors
  uint32_t max_rank = 32;
  uint32_t max_name_bytes = 4096;
};

}  // namespace alknet::tensor::convert
