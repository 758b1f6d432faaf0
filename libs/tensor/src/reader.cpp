// Validation follows docs/metatensor-format.md section 6 rule by rule; the rule number is the
// ErrorCode. Everything sized from the file is compared with a ReaderLimits cap or with the
// bytes actually present before it is used, and all arithmetic on file values is checked.
#include "alknet/tensor/reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "alknet/tensor/crc32c.h"
#include "wire.h"

namespace alknet::tensor {

using wire::Load;

namespace {

Error Fail(ErrorCode code, std::string message) { return Error(code, std::move(message)); }

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Reads bytes of the source at absolute offsets: pread for files, memcpy for buffers.
struct Source {
  int fd = -1;
  std::span<const std::byte> memory;  // used when fd < 0
  std::string label;                  // file name for messages

  Status ReadAt(uint64_t offset, std::span<std::byte> dst) const {
    if (fd < 0) {
      if (offset > memory.size() || dst.size() > memory.size() - offset) {
        return Fail(ErrorCode::kFileShrank, label + ": read past the end of the buffer");
      }
      if (!dst.empty()) std::memcpy(dst.data(), memory.data() + offset, dst.size());
      return Ok{};
    }
    size_t done = 0;
    while (done < dst.size()) {
      const ssize_t n =
          ::pread(fd, dst.data() + done, dst.size() - done, static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return Fail(ErrorCode::kIo, label + ": pread at " + std::to_string(offset + done) + ": " +
                                        std::strerror(errno));
      }
      if (n == 0) {
        return Fail(ErrorCode::kFileShrank,
                    label + ": file ended at " + std::to_string(offset + done) + " while reading " +
                        std::to_string(dst.size()) + " bytes at " + std::to_string(offset) +
                        " (it shrank after it was opened)");
      }
      done += static_cast<size_t>(n);
    }
    return Ok{};
  }
};

struct Record {
  uint64_t offset, length;
  uint32_t name_offset, name_length, dims_index;
  uint16_t dtype;
  uint8_t rank, flags;
  uint32_t checksum, reserved;
};

}  // namespace

struct Reader::Impl {
  Source source;
  uint64_t size = 0;
  Preamble preamble;
  ReadOptions options;
  std::vector<std::byte> owned;  // FromBuffer
  void* map = nullptr;           // mmap of the whole file (kMap)
  size_t map_length = 0;
  std::vector<std::byte> index;  // copy of the index: names point into it
  std::vector<uint64_t> dims;
  std::vector<TensorInfo> infos;
  std::unordered_map<std::string_view, size_t> by_name;
  std::vector<MetadataEntry> metadata;
  uint32_t skipped_metadata = 0;
  mutable std::mutex cache_mutex;  // kPread: bytes read on first access
  mutable std::vector<std::unique_ptr<std::byte[]>> cache;

  ~Impl() {
    if (map != nullptr) ::munmap(map, map_length);
    if (source.fd >= 0) ::close(source.fd);
  }

  std::string Where() const { return source.label; }
  std::string TensorWhere(size_t i, std::string_view name = {}) const {
    std::string s = source.label + ": tensor #" + std::to_string(i);
    if (!name.empty()) s += " '" + std::string(name) + "'";
    return s;
  }

  Status Finalize();
  Status Validate();
  Status ValidatePreamble(uint64_t* region_limit);
  Status ValidateIndex();
  Status ValidateRecords(uint32_t count, uint64_t records_at, uint64_t dims_at, uint32_t dims_count,
                         uint64_t strings_at, uint32_t strings_bytes);
  Status ValidateMetadata(uint32_t count, uint64_t at, uint32_t bytes, uint64_t strings_at,
                          uint32_t strings_bytes);
  Status CheckPaddingRange(uint64_t from, uint64_t to) const;
  Status VerifyPadding() const;
  Status CopyTensor(size_t i, std::span<std::byte> dst) const;
  Status VerifyChecksums() const;
};

Status Reader::Impl::ValidatePreamble(uint64_t* region_limit) {
  const std::string& f = source.label;
  if (size < kPreambleSize) {  // rule 1
    return Fail(ErrorCode::kFileTooSmall,
                f + ": " + std::to_string(size) + " bytes, smaller than the 64-byte preamble");
  }
  std::byte p[kPreambleSize];
  if (auto s = source.ReadAt(0, p); !s) return s;
  if (std::memcmp(p, kMagic.data(), kMagic.size()) != 0) {  // rule 2
    return Fail(ErrorCode::kBadMagic,
                f + ": not a metatensor file (bytes 0..7 are not 89 4D 54 46 0D 0A 1A 0A)");
  }
  preamble.version_major = Load<uint16_t>(p + 8);
  preamble.version_minor = Load<uint16_t>(p + 10);
  if (preamble.version_major != kVersionMajor) {  // rule 3
    return Fail(ErrorCode::kUnsupportedVersion,
                f + ": format version " + std::to_string(preamble.version_major) + "." +
                    std::to_string(preamble.version_minor) + ", this reader supports 1.x");
  }
  const uint32_t stored_crc = Load<uint32_t>(p + 60);
  const uint32_t crc = Crc32c(std::span<const std::byte>(p, 60));
  if (crc != stored_crc) {  // rule 4
    return Fail(ErrorCode::kPreambleChecksum,
                f + ": preamble CRC32C is " + Hex(stored_crc) + ", bytes 0..59 give " + Hex(crc));
  }
  preamble.alignment = Load<uint32_t>(p + 12);
  preamble.required_features = Load<uint32_t>(p + 16);
  preamble.optional_features = Load<uint32_t>(p + 20);
  preamble.index_offset = Load<uint64_t>(p + 24);
  preamble.index_length = Load<uint64_t>(p + 32);
  preamble.data_offset = Load<uint64_t>(p + 40);
  preamble.data_length = Load<uint64_t>(p + 48);
  const uint64_t reserved = Load<uint64_t>(p + 56) & 0xFFFFFFFFu;
  if (const uint32_t unknown = preamble.required_features & ~kKnownRequiredFeatures) {  // rule 5
    return Fail(ErrorCode::kUnknownRequiredFeature,
                f + ": required feature bits " + Hex(unknown) + " are unknown to this reader");
  }
  if (reserved != 0) {  // rule 6
    return Fail(ErrorCode::kPreambleReserved, f + ": preamble bytes 56..59 must be zero");
  }
  const uint32_t a = preamble.alignment;
  if (a < kMinAlignment || a > kMaxAlignment || (a & (a - 1)) != 0) {  // rule 7
    return Fail(ErrorCode::kBadAlignment,
                f + ": alignment " + std::to_string(a) + " is not a power of two in [64, 1048576]");
  }
  *region_limit = size;
  if (preamble.required_features & kFeatureTrailer) {  // rule 8
    preamble.has_trailer = true;
    if (preamble.index_offset != 0 || preamble.index_length != 0 || preamble.data_length != 0) {
      return Fail(ErrorCode::kBadTrailer,
                  f + ": trailer flag set but the preamble's index/data fields are not zero");
    }
    if (size < kPreambleSize + kTrailerSize) {
      return Fail(ErrorCode::kBadTrailer, f + ": trailer flag set but the file has no room for it");
    }
    std::byte t[kTrailerSize];
    if (auto s = source.ReadAt(size - kTrailerSize, t); !s) return s;
    if (std::memcmp(t + 28, "MTFT", 4) != 0) {
      return Fail(ErrorCode::kBadTrailer, f + ": last 4 bytes are not the trailer magic 'MTFT'");
    }
    const uint32_t tcrc = Crc32c(std::span<const std::byte>(t, 24));
    if (tcrc != Load<uint32_t>(t + 24)) {
      return Fail(ErrorCode::kBadTrailer, f + ": trailer CRC32C mismatch");
    }
    preamble.index_offset = Load<uint64_t>(t);
    preamble.index_length = Load<uint64_t>(t + 8);
    preamble.data_length = Load<uint64_t>(t + 16);
    *region_limit = size - kTrailerSize;
  }
  return Ok{};
}

Status Reader::Impl::Validate() {
  uint64_t limit = 0;
  if (auto s = ValidatePreamble(&limit); !s) return s;
  const std::string& f = source.label;
  const Preamble& P = preamble;
  if (P.index_length > options.limits.max_index_bytes) {  // rule 9
    return Fail(ErrorCode::kIndexTooLarge, f + ": index of " + std::to_string(P.index_length) +
                                               " bytes exceeds the limit " +
                                               std::to_string(options.limits.max_index_bytes) +
                                               " (ReaderLimits::max_index_bytes)");
  }
  const uint64_t data_align = std::max<uint64_t>(kDataRegionAlignment, P.alignment);
  if (P.data_offset % data_align != 0) {  // rule 10
    return Fail(ErrorCode::kDataMisaligned, f + ": data offset " + std::to_string(P.data_offset) +
                                                " is not a multiple of " +
                                                std::to_string(data_align));
  }
  uint64_t index_end = 0, data_end = 0;
  if (__builtin_add_overflow(P.index_offset, P.index_length, &index_end) || index_end > limit ||
      __builtin_add_overflow(P.data_offset, P.data_length, &data_end) ||
      data_end > limit) {  // rule 11
    return Fail(ErrorCode::kRegionOutOfFile,
                f + ": index [" + std::to_string(P.index_offset) + ", +" +
                    std::to_string(P.index_length) + ") or data [" + std::to_string(P.data_offset) +
                    ", +" + std::to_string(P.data_length) + ") reaches past the end (" +
                    std::to_string(limit) + ")");
  }
  if (P.index_offset < kPreambleSize || P.data_offset < kPreambleSize ||
      (P.index_offset < data_end && P.data_offset < index_end)) {  // rule 12
    return Fail(ErrorCode::kRegionsOverlap, f + ": the preamble, index and data regions overlap");
  }
  bool covers;
  if (P.index_offset < P.data_offset) {
    covers = P.index_offset == kPreambleSize &&
             P.data_offset == wire::AlignUp(index_end, data_align) && data_end == limit;
  } else {
    covers = P.data_offset == data_align && P.index_offset == wire::AlignUp(data_end, 8) &&
             index_end == limit;
  }
  if (!covers) {  // rule 13
    return Fail(ErrorCode::kRegionsNotCovering,
                f +
                    ": regions do not tile the file exactly (spec 2.2: preamble, index, padding "
                    "to the data boundary, data; or preamble, padding, data, padding to 8, index" +
                    std::string(P.has_trailer ? ", trailer" : "") + ")");
  }
  return ValidateIndex();
}

Status Reader::Impl::ValidateIndex() {
  const std::string& f = source.label;
  const uint64_t len = preamble.index_length;
  if (len < kIndexHeaderSize + 4) {  // rule 14
    return Fail(ErrorCode::kBadIndexHeader, f + ": index of " + std::to_string(len) +
                                                " bytes is shorter than its 32-byte header + CRC");
  }
  index.resize(len);  // capped by rule 13 above
  if (auto s = source.ReadAt(preamble.index_offset, index); !s) return s;
  const std::byte* h = index.data();
  if (std::memcmp(h, "MTFI", 4) != 0 || Load<uint32_t>(h + 24) != 0 ||
      Load<uint32_t>(h + 28) != 0) {
    return Fail(ErrorCode::kBadIndexHeader,
                f + ": index header at " + std::to_string(preamble.index_offset) +
                    " lacks the 'MTFI' magic or has non-zero reserved words");
  }
  const uint32_t tensor_count = Load<uint32_t>(h + 4);
  const uint32_t meta_count = Load<uint32_t>(h + 8);
  const uint32_t dims_count = Load<uint32_t>(h + 12);
  const uint32_t meta_bytes = Load<uint32_t>(h + 16);
  const uint32_t string_bytes = Load<uint32_t>(h + 20);
  const ReaderLimits& L = options.limits;
  if (tensor_count > L.max_tensors || meta_count > L.max_metadata_entries ||
      dims_count > L.max_dims) {  // rule 15
    return Fail(ErrorCode::kCountLimit, f + ": index declares " + std::to_string(tensor_count) +
                                            " tensors, " + std::to_string(meta_count) +
                                            " metadata entries, " + std::to_string(dims_count) +
                                            " dims; limits are " + std::to_string(L.max_tensors) +
                                            ", " + std::to_string(L.max_metadata_entries) + ", " +
                                            std::to_string(L.max_dims));
  }
  // All u32 counts times small constants: the sum fits in 64 bits without overflow.
  const uint64_t expected = kIndexHeaderSize + kRecordSize * tensor_count + 8ull * dims_count +
                            meta_bytes + string_bytes + 4;
  if (expected != len) {  // rule 14
    return Fail(ErrorCode::kBadIndexHeader, f + ": index sections add up to " +
                                                std::to_string(expected) +
                                                " bytes but the index is " + std::to_string(len));
  }
  const uint32_t stored = Load<uint32_t>(h + len - 4);
  const uint32_t crc = Crc32c(std::span<const std::byte>(h, len - 4));
  if (stored != crc) {  // rule 16
    return Fail(ErrorCode::kIndexChecksum,
                f + ": index CRC32C is " + Hex(stored) + ", the index bytes give " + Hex(crc));
  }
  const uint64_t records_at = kIndexHeaderSize;
  const uint64_t dims_at = records_at + kRecordSize * tensor_count;
  const uint64_t meta_at = dims_at + 8ull * dims_count;
  const uint64_t strings_at = meta_at + meta_bytes;
  if (auto s =
          ValidateRecords(tensor_count, records_at, dims_at, dims_count, strings_at, string_bytes);
      !s) {
    return s;
  }
  if (auto s = ValidateMetadata(meta_count, meta_at, meta_bytes, strings_at, string_bytes); !s) {
    return s;
  }
  return Ok{};
}

Status Reader::Impl::ValidateRecords(uint32_t count, uint64_t records_at, uint64_t dims_at,
                                     uint32_t dims_count, uint64_t strings_at,
                                     uint32_t strings_bytes) {
  dims.resize(dims_count);
  for (uint32_t i = 0; i < dims_count; ++i)
    dims[i] = Load<uint64_t>(index.data() + dims_at + 8ull * i);
  infos.reserve(count);
  by_name.reserve(count);
  const uint64_t A = preamble.alignment;
  uint64_t cursor = 0, prev_offset = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const std::byte* r = index.data() + records_at + kRecordSize * i;
    Record rec{Load<uint64_t>(r),      Load<uint64_t>(r + 8),  Load<uint32_t>(r + 16),
               Load<uint32_t>(r + 20), Load<uint32_t>(r + 24), Load<uint16_t>(r + 28),
               Load<uint8_t>(r + 30),  Load<uint8_t>(r + 31),  Load<uint32_t>(r + 32),
               Load<uint32_t>(r + 36)};
    // Messages are built only on failure: this loop runs once per tensor on every open.
    std::string_view known_name;
    auto where = [&] { return TensorWhere(i, known_name); };
    if ((rec.flags & ~kRecordHasChecksum) != 0 || rec.reserved != 0 ||
        (!(rec.flags & kRecordHasChecksum) && rec.checksum != 0)) {  // rule 17
      return Fail(ErrorCode::kRecordReserved,
                  where() + ": unknown flag bits or non-zero reserved/checksum fields");
    }
    const DTypeInfo* dt = FindDType(rec.dtype);
    if (dt == nullptr) {  // rule 18
      return Fail(ErrorCode::kUnknownDType,
                  where() + ": unknown dtype id " + std::to_string(rec.dtype));
    }
    if (rec.rank > options.limits.max_rank) {  // rule 19
      return Fail(ErrorCode::kRankLimit, where() + ": rank " + std::to_string(rec.rank) +
                                             " exceeds the limit " +
                                             std::to_string(options.limits.max_rank));
    }
    if (uint64_t{rec.dims_index} + rec.rank > dims_count) {  // rule 20
      return Fail(ErrorCode::kDimsOutOfBounds,
                  where() + ": dims [" + std::to_string(rec.dims_index) + ", +" +
                      std::to_string(rec.rank) + ") outside the dims array of " +
                      std::to_string(dims_count));
    }
    if (uint64_t{rec.name_offset} + rec.name_length > strings_bytes) {  // rule 21
      return Fail(ErrorCode::kNameOutOfBounds,
                  where() + ": name [" + std::to_string(rec.name_offset) + ", +" +
                      std::to_string(rec.name_length) + ") outside the string table of " +
                      std::to_string(strings_bytes) + " bytes");
    }
    const std::string_view name(
        reinterpret_cast<const char*>(index.data() + strings_at + rec.name_offset),
        rec.name_length);
    if (name.empty() || name.size() > options.limits.max_name_bytes ||
        !wire::ValidUtf8(name)) {  // rule 22
      return Fail(ErrorCode::kBadName, where() + ": name is empty, longer than " +
                                           std::to_string(options.limits.max_name_bytes) +
                                           " bytes, or not UTF-8");
    }
    known_name = name;
    if (!by_name.emplace(name, i).second) {  // rule 23
      return Fail(ErrorCode::kDuplicateName, where() + ": name used by an earlier tensor");
    }
    const std::span<const uint64_t> shape(dims.data() + rec.dims_index, rec.rank);
    auto bytes = ByteLength(static_cast<DType>(rec.dtype), shape);  // rules 24, 25
    if (!bytes) return Fail(bytes.error().code(), where() + ": " + bytes.error().message());
    uint64_t end = 0;
    if (__builtin_add_overflow(rec.offset, rec.length, &end)) {  // rule 24
      return Fail(ErrorCode::kArithmeticOverflow, where() + ": offset + byte length overflows");
    }
    if (*bytes != rec.length) {  // rule 25
      return Fail(ErrorCode::kByteLengthMismatch,
                  where() + ": byte length " + std::to_string(rec.length) + " but " +
                      std::string(dt->name) + " of this shape needs " + std::to_string(*bytes));
    }
    if (rec.offset % A != 0) {  // rule 26
      return Fail(ErrorCode::kTensorMisaligned,
                  where() + ": data offset " + std::to_string(rec.offset) +
                      " is not a multiple of the alignment " + std::to_string(A));
    }
    if (i > 0 && rec.offset < prev_offset) {  // rule 27
      return Fail(ErrorCode::kRecordsUnsorted, where() + ": records are not sorted by offset");
    }
    if (rec.offset < cursor) {  // rule 28
      return Fail(ErrorCode::kTensorsOverlap,
                  where() + ": starts at " + std::to_string(rec.offset) +
                      ", inside the previous tensor which ends at " + std::to_string(cursor));
    }
    if (rec.offset - cursor >= A) {  // rule 29
      return Fail(ErrorCode::kPaddingTooLong,
                  where() + ": " + std::to_string(rec.offset - cursor) +
                      " padding bytes before it, the alignment allows at most " +
                      std::to_string(A - 1));
    }
    if (end > preamble.data_length) {  // rule 30
      return Fail(ErrorCode::kTensorOutOfData, where() + ": ends at " + std::to_string(end) +
                                                   ", past the data region of " +
                                                   std::to_string(preamble.data_length) + " bytes");
    }
    cursor = end;
    prev_offset = rec.offset;
    TensorInfo info;
    info.name = name;
    info.dtype = static_cast<DType>(rec.dtype);
    info.shape = shape;
    info.offset = preamble.data_offset + rec.offset;  // cannot overflow: data_end <= size
    info.byte_length = rec.length;
    if (rec.flags & kRecordHasChecksum) info.checksum = rec.checksum;
    infos.push_back(info);
  }
  if (cursor != preamble.data_length) {  // rule 29: data region ends with the last tensor
    return Fail(ErrorCode::kPaddingTooLong,
                source.label + ": data region is " + std::to_string(preamble.data_length) +
                    " bytes but the last tensor ends at " + std::to_string(cursor));
  }
  return Ok{};
}

Status Reader::Impl::ValidateMetadata(uint32_t count, uint64_t at, uint32_t bytes,
                                      uint64_t strings_at, uint32_t strings_bytes) {
  const std::string& f = source.label;
  std::unordered_set<std::string_view> keys;
  uint64_t pos = 0;
  metadata.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    auto where = [&] { return f + ": metadata entry #" + std::to_string(i); };
    if (bytes - pos < kMetadataEntryHeaderSize) {  // rule 32
      return Fail(ErrorCode::kBadMetadataEntry, where() + ": runs past the metadata section");
    }
    const std::byte* e = index.data() + at + pos;
    const uint32_t length = Load<uint32_t>(e);
    const uint32_t key_offset = Load<uint32_t>(e + 4);
    const uint32_t key_length = Load<uint32_t>(e + 8);
    const uint8_t type = Load<uint8_t>(e + 12);
    const uint8_t elem = Load<uint8_t>(e + 13);
    const uint16_t reserved = Load<uint16_t>(e + 14);
    if (length < kMetadataEntryHeaderSize || length > bytes - pos || reserved != 0) {  // rule 32
      return Fail(ErrorCode::kBadMetadataEntry,
                  where() + ": entry length " + std::to_string(length) +
                      " is below 16 or past the section end, or reserved bytes are set");
    }
    if (uint64_t{key_offset} + key_length > strings_bytes) {  // rule 33
      return Fail(ErrorCode::kBadMetadataKey, where() + ": key outside the string table");
    }
    const std::string_view key(
        reinterpret_cast<const char*>(index.data() + strings_at + key_offset), key_length);
    if (key.empty() || key.size() > options.limits.max_name_bytes || !wire::ValidUtf8(key)) {
      return Fail(ErrorCode::kBadMetadataKey, where() + ": key is empty, too long or not UTF-8");
    }
    if (!keys.insert(key).second) {  // rule 34
      return Fail(ErrorCode::kDuplicateMetadataKey,
                  where() + ": key '" + std::string(key) + "' appears twice");
    }
    const std::byte* v = e + kMetadataEntryHeaderSize;
    const uint64_t n = length - kMetadataEntryHeaderSize;
    pos += length;
    auto bad = [&](const std::string& why) {  // rule 35
      return Fail(ErrorCode::kBadMetadataValue, where() + " '" + std::string(key) + "': " + why);
    };
    const auto mtype = static_cast<MetadataType>(type);
    if (type < 1 || type > 7) {
      ++skipped_metadata;  // unknown type: skipped by its length (spec 4.4)
      continue;
    }
    if (mtype != MetadataType::kArray && elem != 0) return bad("element type set on a scalar");
    MetadataValue value;
    switch (mtype) {
      case MetadataType::kBool:
        if (n != 1 || static_cast<uint8_t>(v[0]) > 1) return bad("bool must be one byte 0 or 1");
        value = static_cast<uint8_t>(v[0]) == 1;
        break;
      case MetadataType::kI64:
        if (n != 8) return bad("i64 payload must be 8 bytes");
        value = Load<int64_t>(v);
        break;
      case MetadataType::kU64:
        if (n != 8) return bad("u64 payload must be 8 bytes");
        value = Load<uint64_t>(v);
        break;
      case MetadataType::kF64:
        if (n != 8) return bad("f64 payload must be 8 bytes");
        value = Load<double>(v);
        break;
      case MetadataType::kString: {
        std::string s(reinterpret_cast<const char*>(v), n);
        if (!wire::ValidUtf8(s)) return bad("string is not UTF-8");
        value = std::move(s);
        break;
      }
      case MetadataType::kBytes: value = Bytes(v, v + n); break;
      case MetadataType::kArray: {
        const auto et = static_cast<MetadataType>(elem);
        const uint64_t width =
            et == MetadataType::kBool ? 1
            : (et == MetadataType::kI64 || et == MetadataType::kU64 || et == MetadataType::kF64)
                ? 8
                : 0;
        if (width != 0 && n % width != 0)
          return bad("array payload is not a whole number of elements");
        if (et == MetadataType::kBool) {
          std::vector<bool> a(n);
          for (uint64_t k = 0; k < n; ++k) {
            if (static_cast<uint8_t>(v[k]) > 1) return bad("bool element is not 0 or 1");
            a[k] = static_cast<uint8_t>(v[k]) == 1;
          }
          value = std::move(a);
        } else if (et == MetadataType::kI64) {
          std::vector<int64_t> a(n / 8);
          for (uint64_t k = 0; k < a.size(); ++k) a[k] = Load<int64_t>(v + 8 * k);
          value = std::move(a);
        } else if (et == MetadataType::kU64) {
          std::vector<uint64_t> a(n / 8);
          for (uint64_t k = 0; k < a.size(); ++k) a[k] = Load<uint64_t>(v + 8 * k);
          value = std::move(a);
        } else if (et == MetadataType::kF64) {
          std::vector<double> a(n / 8);
          for (uint64_t k = 0; k < a.size(); ++k) a[k] = Load<double>(v + 8 * k);
          value = std::move(a);
        } else if (et == MetadataType::kString) {
          // u32 count, then count x (u32 length, bytes); must fill the payload exactly.
          if (n < 4) return bad("string array lacks its count");
          const uint32_t cnt = Load<uint32_t>(v);
          if (cnt > (n - 4) / 4) return bad("string array count exceeds its payload");
          std::vector<std::string> a;
          a.reserve(cnt);
          uint64_t p = 4;
          for (uint32_t k = 0; k < cnt; ++k) {
            if (n - p < 4) return bad("string array element runs past the payload");
            const uint32_t sl = Load<uint32_t>(v + p);
            p += 4;
            if (sl > n - p) return bad("string array element runs past the payload");
            std::string s(reinterpret_cast<const char*>(v + p), sl);
            if (!wire::ValidUtf8(s)) return bad("string array element is not UTF-8");
            a.push_back(std::move(s));
            p += sl;
          }
          if (p != n) return bad("string array payload has trailing bytes");
          value = std::move(a);
        } else {
          return bad("array element type " + std::to_string(elem) +
                     " is not bool, i64, u64, f64 or string");
        }
        break;
      }
    }
    metadata.push_back(MetadataEntry{std::string(key), std::move(value)});
  }
  if (pos != bytes) {  // rule 32
    return Fail(ErrorCode::kBadMetadataEntry, f + ": metadata entries fill " + std::to_string(pos) +
                                                  " of the section's " + std::to_string(bytes) +
                                                  " bytes");
  }
  return Ok{};
}

Status Reader::Impl::CheckPaddingRange(uint64_t from, uint64_t to) const {
  std::byte buf[4096];
  while (from < to) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(sizeof buf, to - from));
    if (auto s = source.ReadAt(from, std::span<std::byte>(buf, n)); !s) return s;
    for (size_t k = 0; k < n; ++k) {
      if (buf[k] != std::byte{0}) {  // rule 31
        return Fail(ErrorCode::kNonZeroPadding, source.label + ": padding byte at " +
                                                    std::to_string(from + k) + " is not zero");
      }
    }
    from += n;
  }
  return Ok{};
}

Status Reader::Impl::VerifyPadding() const {
  const Preamble& P = preamble;
  const uint64_t index_end = P.index_offset + P.index_length;
  if (P.index_before_data()) {
    if (auto s = CheckPaddingRange(index_end, P.data_offset); !s) return s;
  } else {
    if (auto s = CheckPaddingRange(kPreambleSize, P.data_offset); !s) return s;
    if (auto s = CheckPaddingRange(P.data_offset + P.data_length, P.index_offset); !s) return s;
  }
  uint64_t cursor = P.data_offset;
  for (const auto& t : infos) {
    if (auto s = CheckPaddingRange(cursor, t.offset); !s) return s;
    cursor = t.offset + t.byte_length;
  }
  return Ok{};
}

Status Reader::Impl::CopyTensor(size_t i, std::span<std::byte> dst) const {
  if (i >= infos.size()) {
    return Fail(ErrorCode::kNotFound, source.label + ": no tensor #" + std::to_string(i));
  }
  const TensorInfo& t = infos[i];
  if (dst.size() != t.byte_length) {
    return Fail(ErrorCode::kInvalidArgument,
                TensorWhere(i, t.name) + ": destination holds " + std::to_string(dst.size()) +
                    " bytes, tensor has " + std::to_string(t.byte_length));
  }
  return source.ReadAt(t.offset, dst);
}

Status Reader::Impl::VerifyChecksums() const {
  std::vector<std::byte> buf(std::min<uint64_t>(1u << 20, std::max<uint64_t>(1, size)));
  for (size_t i = 0; i < infos.size(); ++i) {
    const TensorInfo& t = infos[i];
    if (!t.checksum) continue;
    uint32_t crc = 0;
    for (uint64_t done = 0; done < t.byte_length;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(buf.size(), t.byte_length - done));
      if (auto s = source.ReadAt(t.offset + done, std::span<std::byte>(buf.data(), n)); !s)
        return s;
      crc = Crc32c(std::span<const std::byte>(buf.data(), n), crc);
      done += n;
    }
    if (crc != *t.checksum) {  // rule 36
      return Fail(ErrorCode::kTensorChecksum, TensorWhere(i, t.name) + ": CRC32C of the data is " +
                                                  Hex(crc) + ", the index says " +
                                                  Hex(*t.checksum));
    }
  }
  return Ok{};
}

// Nothing is handed out before this has passed: structure, then the optional full-data checks.
Status Reader::Impl::Finalize() {
  if (auto s = Validate(); !s) return s;
  if (options.strict_padding) {
    if (auto s = VerifyPadding(); !s) return s;
  }
  if (options.verify_checksums) {
    if (auto s = VerifyChecksums(); !s) return s;
  }
  return Ok{};
}

Reader::Reader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Reader::Reader(Reader&&) noexcept = default;
Reader& Reader::operator=(Reader&&) noexcept = default;
Reader::~Reader() = default;

Result<Reader> Reader::Open(const std::filesystem::path& path, const ReadOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->source.label = path.string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Fail(ErrorCode::kIo, path.string() + ": cannot open: " + std::strerror(errno));
  impl->source.fd = fd;
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return Fail(ErrorCode::kIo, path.string() + ": fstat: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return Fail(ErrorCode::kIo, path.string() + ": not a regular file");
  impl->size = static_cast<uint64_t>(st.st_size);
  if (auto s = impl->Finalize(); !s) return s.error();
  if (options.access == Access::kMap && impl->size > 0) {
    void* m = ::mmap(nullptr, impl->size, PROT_READ, MAP_SHARED, fd, 0);
    if (m != MAP_FAILED) {
      impl->map = m;
      impl->map_length = impl->size;
      impl->source.memory =
          std::span<const std::byte>(static_cast<const std::byte*>(m), impl->size);
    } else {
      impl->options.access = Access::kPread;  // e.g. a filesystem without mmap support
    }
  } else {
    impl->options.access = Access::kPread;
  }
  if (impl->options.access == Access::kPread) impl->cache.resize(impl->infos.size());
  return Reader(std::move(impl));
}

Result<Reader> Reader::FromMemory(std::span<const std::byte> bytes, const ReadOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->options.access = Access::kMap;  // memory is always addressable
  impl->source.label = "<memory>";
  impl->source.memory = bytes;
  impl->size = bytes.size();
  if (auto s = impl->Finalize(); !s) return s.error();
  return Reader(std::move(impl));
}

Result<Reader> Reader::FromBuffer(std::vector<std::byte> bytes, const ReadOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->options.access = Access::kMap;
  impl->source.label = "<buffer>";
  impl->owned = std::move(bytes);
  impl->source.memory = impl->owned;
  impl->size = impl->owned.size();
  if (auto s = impl->Finalize(); !s) return s.error();
  return Reader(std::move(impl));
}

const Preamble& Reader::preamble() const { return impl_->preamble; }
uint64_t Reader::source_size() const { return impl_->size; }
std::span<const TensorInfo> Reader::tensors() const { return impl_->infos; }
std::span<const MetadataEntry> Reader::metadata() const { return impl_->metadata; }
uint32_t Reader::skipped_metadata_count() const { return impl_->skipped_metadata; }

const MetadataValue* Reader::FindMetadata(std::string_view key) const {
  for (const auto& e : impl_->metadata) {
    if (e.key == key) return &e.value;
  }
  return nullptr;
}

Result<size_t> Reader::IndexOf(std::string_view name) const {
  auto it = impl_->by_name.find(name);
  if (it == impl_->by_name.end()) {
    return Fail(ErrorCode::kNotFound,
                impl_->Where() + ": no tensor named '" + std::string(name) + "'");
  }
  return it->second;
}

Result<TensorView> Reader::Tensor(size_t index) const {
  const Impl& m = *impl_;
  if (index >= m.infos.size()) {
    return Fail(ErrorCode::kNotFound, m.Where() + ": no tensor #" + std::to_string(index) + " (" +
                                          std::to_string(m.infos.size()) + " tensors)");
  }
  const TensorInfo& t = m.infos[index];
  if (m.options.access == Access::kPread) {
    std::lock_guard<std::mutex> lock(m.cache_mutex);
    if (!m.cache[index]) {
      auto buf = std::make_unique<std::byte[]>(std::max<uint64_t>(1, t.byte_length));
      if (auto s = m.source.ReadAt(t.offset, std::span<std::byte>(buf.get(), t.byte_length)); !s) {
        return s.error();
      }
      m.cache[index] = std::move(buf);
    }
    return TensorView{&t, std::span<const std::byte>(m.cache[index].get(), t.byte_length)};
  }
  if (m.source.fd >= 0) {
    // The mapping faults (SIGBUS) on pages past the current end of file: refuse to hand out a
    // view into bytes the file no longer has.
    struct stat st;
    if (::fstat(m.source.fd, &st) != 0 ||
        static_cast<uint64_t>(st.st_size) < t.offset + t.byte_length) {
      return Fail(ErrorCode::kFileShrank, m.TensorWhere(index, t.name) +
                                              ": the file is now shorter than the tensor's end " +
                                              std::to_string(t.offset + t.byte_length));
    }
  }
  return TensorView{&t, m.source.memory.subspan(t.offset, t.byte_length)};
}

Result<TensorView> Reader::Find(std::string_view name) const {
  auto i = IndexOf(name);
  if (!i) return i.error();
  return Tensor(*i);
}

// Source::ReadAt uses pread whenever there is a file, mapped or not: a shrunken file gives a
// short read (kFileShrank), never a fault.
Status Reader::CopyTensor(size_t index, std::span<std::byte> dst) const {
  return impl_->CopyTensor(index, dst);
}

Status Reader::VerifyChecksums() const { return impl_->VerifyChecksums(); }
Status Reader::VerifyPadding() const { return impl_->VerifyPadding(); }

}  // namespace alknet::tensor
