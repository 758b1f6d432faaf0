// Interim payload encoding, used until alknet-tensor's metatensor reader/writer is merged
// (then this file is replaced by calls into it; the wire protocol does not change).
//
// Layout, little-endian:
//   "ALKNETP1"  u32 count  u32 reserved
//   count x { u8 dtype_len, dtype bytes, u8 ndim, ndim x i64 dims, u64 offset, u64 bytes }
//   zero padding to a multiple of 64, then each tensor's bytes at its offset (64-aligned)
#include "tensor_payload.h"

#include <cstring>
#include <string>

namespace alknet::call {

namespace {

constexpr char kMagic[8] = {'A', 'L', 'K', 'N', 'E', 'T', 'P', '1'};
constexpr std::size_t kAlign = 64;
constexpr std::uint32_t kMaxTensors = 1u << 16;
constexpr std::uint8_t kMaxDims = 32;

std::uint64_t AlignUp(std::uint64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

template <typename T>
void Put(std::vector<std::byte>& out, T v) {
  const auto* p = reinterpret_cast<const std::byte*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

class Reader {
 public:
  Reader(const std::byte* data, std::size_t size) : data_(data), size_(size) {}
  template <typename T>
  bool Get(T& v) {
    if (size_ - pos_ < sizeof v) return false;
    std::memcpy(&v, data_ + pos_, sizeof v);
    pos_ += sizeof v;
    return true;
  }
  bool GetString(std::size_t n, std::string& s) {
    if (size_ - pos_ < n) return false;
    s.assign(reinterpret_cast<const char*>(data_ + pos_), n);
    pos_ += n;
    return true;
  }
  std::size_t pos() const { return pos_; }

 private:
  const std::byte* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

Error Malformed(std::string what) {
  return MakeError(ErrorCode::kInvalidArgument, "malformed tensor payload: " + what);
}

}  // namespace

EncodedPayload EncodePayload(std::vector<Tensor> tensors) {
  EncodedPayload out;
  if (tensors.empty()) return out;
  std::vector<std::byte> header;
  header.insert(header.end(), reinterpret_cast<const std::byte*>(kMagic),
                reinterpret_cast<const std::byte*>(kMagic) + sizeof kMagic);
  Put(header, static_cast<std::uint32_t>(tensors.size()));
  Put(header, std::uint32_t{0});
  std::uint64_t header_size = header.size();
  for (const auto& t : tensors) header_size += 1 + t.dtype.size() + 1 + 8 * t.shape.size() + 16;
  std::uint64_t offset = AlignUp(header_size);
  std::vector<std::uint64_t> offsets;
  for (const auto& t : tensors) {
    header.push_back(static_cast<std::byte>(t.dtype.size()));
    header.insert(header.end(), reinterpret_cast<const std::byte*>(t.dtype.data()),
                  reinterpret_cast<const std::byte*>(t.dtype.data()) + t.dtype.size());
    header.push_back(static_cast<std::byte>(t.shape.size()));
    for (auto d : t.shape) Put(header, static_cast<std::int64_t>(d));
    Put(header, offset);
    Put(header, static_cast<std::uint64_t>(t.data.size()));
    offsets.push_back(offset);
    offset = AlignUp(offset + t.data.size());
  }
  // Padding goes into owned buffers so every piece is a plain span.
  header.resize(AlignUp(header.size()));
  out.owned.push_back(std::move(header));
  out.pieces.emplace_back(out.owned.back());
  std::uint64_t at = out.owned.back().size();
  static const std::byte kZeros[kAlign] = {};
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (offsets[i] > at) {
      out.pieces.emplace_back(kZeros, offsets[i] - at);
      at = offsets[i];
    }
    if (!tensors[i].data.empty()) out.pieces.push_back(tensors[i].data);
    at += tensors[i].data.size();
  }
  out.size = at;
  out.keep_alive = std::move(tensors);
  return out;
}

Result<std::vector<Tensor>> DecodePayload(std::shared_ptr<const std::byte[]> buffer,
                                          std::size_t size) {
  std::vector<Tensor> tensors;
  if (size == 0) return tensors;
  Reader r(buffer.get(), size);
  std::string magic;
  if (!r.GetString(sizeof kMagic, magic) || std::memcmp(magic.data(), kMagic, sizeof kMagic)) {
    return Malformed("bad magic (expected ALKNETP1)");
  }
  std::uint32_t count = 0, reserved = 0;
  if (!r.Get(count) || !r.Get(reserved)) return Malformed("truncated header");
  if (count == 0 || count > kMaxTensors) {
    return Malformed("tensor count " + std::to_string(count) + " outside 1.." +
                     std::to_string(kMaxTensors));
  }
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::string where = "tensor " + std::to_string(i) + ": ";
    Tensor t;
    std::uint8_t dtype_len = 0, ndim = 0;
    if (!r.Get(dtype_len) || !r.GetString(dtype_len, t.dtype) || !r.Get(ndim)) {
      return Malformed(where + "truncated entry");
    }
    if (ndim > kMaxDims) return Malformed(where + "more than 32 dimensions");
    t.shape.resize(ndim);
    for (auto& d : t.shape) {
      std::int64_t v = 0;
      if (!r.Get(v)) return Malformed(where + "truncated shape");
      d = v;
    }
    std::uint64_t offset = 0, bytes = 0;
    if (!r.Get(offset) || !r.Get(bytes)) return Malformed(where + "truncated entry");
    if (offset % kAlign != 0) return Malformed(where + "data offset is not 64-byte aligned");
    if (offset > size || bytes > size - offset) {
      return Malformed(where + "data [" + std::to_string(offset) + ", +" +
                       std::to_string(bytes) + ") lies outside the " + std::to_string(size) +
                       "-byte payload");
    }
    t.data = std::span<const std::byte>(buffer.get() + offset, bytes);
    if (auto valid = t.Validate(); !valid) return Malformed(where + valid.error().message);
    t.owner = buffer;
    tensors.push_back(std::move(t));
  }
  // Data must not overlap the header it is described by.
  for (const auto& t : tensors) {
    if (!t.data.empty() && static_cast<std::size_t>(t.data.data() - buffer.get()) < r.pos()) {
      return Malformed("tensor data overlaps the header");
    }
  }
  return tensors;
}

}  // namespace alknet::call
