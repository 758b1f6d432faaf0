// The writer produces exactly the layouts of docs/metatensor-format.md section 2 and checks
// every input against the same rules the reader enforces, so it cannot emit a file our own
// reader would reject.
#include "alknet/tensor/writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>

#include "alknet/tensor/crc32c.h"
#include "alknet/tensor/format.h"
#include "alknet/tensor/reader.h"
#include "wire.h"

namespace alknet::tensor {

namespace {

Error Misuse(std::string message) { return Error(ErrorCode::kInvalidArgument, std::move(message)); }
Error IoError(const std::string& what) {
  return Error(ErrorCode::kIo, what + ": " + std::strerror(errno));
}

constexpr std::byte kZeros[4096] = {};

struct PendingRecord {
  std::string name;
  DType dtype;
  std::vector<uint64_t> shape;
  uint64_t offset = 0;  // relative to the data region
  uint64_t length = 0;
  std::optional<uint32_t> checksum;
};

// Metadata payload (spec 4.4) and its type/element-type bytes.
void EncodeValue(const MetadataValue& v, uint8_t* type, uint8_t* elem,
                 std::vector<std::byte>& out) {
  using MT = MetadataType;
  *elem = 0;
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>) {
          *type = uint8_t(MT::kBool);
          out.push_back(std::byte{x ? uint8_t{1} : uint8_t{0}});
        } else if constexpr (std::is_same_v<T, int64_t>) {
          *type = uint8_t(MT::kI64);
          wire::Append(out, x);
        } else if constexpr (std::is_same_v<T, uint64_t>) {
          *type = uint8_t(MT::kU64);
          wire::Append(out, x);
        } else if constexpr (std::is_same_v<T, double>) {
          *type = uint8_t(MT::kF64);
          wire::Append(out, x);
        } else if constexpr (std::is_same_v<T, std::string>) {
          *type = uint8_t(MT::kString);
          wire::AppendBytes(out, x.data(), x.size());
        } else if constexpr (std::is_same_v<T, Bytes>) {
          *type = uint8_t(MT::kBytes);
          wire::AppendBytes(out, x.data(), x.size());
        } else {
          *type = uint8_t(MT::kArray);
          using E = typename T::value_type;
          if constexpr (std::is_same_v<E, bool>) {
            *elem = uint8_t(MT::kBool);
            for (bool b : x) out.push_back(std::byte{b ? uint8_t{1} : uint8_t{0}});
          } else if constexpr (std::is_same_v<E, std::string>) {
            *elem = uint8_t(MT::kString);
            wire::Append(out, static_cast<uint32_t>(x.size()));
            for (const auto& s : x) {
              wire::Append(out, static_cast<uint32_t>(s.size()));
              wire::AppendBytes(out, s.data(), s.size());
            }
          } else {
            *elem = std::is_same_v<E, int64_t>    ? uint8_t(MT::kI64)
                    : std::is_same_v<E, uint64_t> ? uint8_t(MT::kU64)
                                                  : uint8_t(MT::kF64);
            for (E e : x) wire::Append(out, e);
          }
        }
      },
      v);
}

Status CheckValue(const std::string& key, const MetadataValue& v) {
  if (const auto* s = std::get_if<std::string>(&v); s && !wire::ValidUtf8(*s)) {
    return Misuse("metadata '" + key + "': string value is not UTF-8");
  }
  if (const auto* a = std::get_if<std::vector<std::string>>(&v)) {
    for (const auto& s : *a) {
      if (!wire::ValidUtf8(s) || s.size() > UINT32_MAX) {
        return Misuse("metadata '" + key + "': string array element is not UTF-8");
      }
    }
  }
  return Ok{};
}

// Spec 4: header, records, dims, metadata, strings, CRC32C.
Result<std::vector<std::byte>> EncodeIndex(const std::vector<PendingRecord>& records,
                                           const std::vector<MetadataEntry>& metadata) {
  std::vector<std::byte> strings, dims, meta, recs;
  uint64_t dims_count = 0;
  for (const auto& r : records) {
    std::byte rec[kRecordSize] = {};
    wire::Store<uint64_t>(rec, r.offset);
    wire::Store<uint64_t>(rec + 8, r.length);
    wire::Store<uint32_t>(rec + 16, static_cast<uint32_t>(strings.size()));
    wire::Store<uint32_t>(rec + 20, static_cast<uint32_t>(r.name.size()));
    wire::Store<uint32_t>(rec + 24, static_cast<uint32_t>(dims_count));
    wire::Store<uint16_t>(rec + 28, static_cast<uint16_t>(r.dtype));
    wire::Store<uint8_t>(rec + 30, static_cast<uint8_t>(r.shape.size()));
    wire::Store<uint8_t>(rec + 31, r.checksum ? kRecordHasChecksum : 0);
    wire::Store<uint32_t>(rec + 32, r.checksum.value_or(0));
    recs.insert(recs.end(), rec, rec + kRecordSize);
    wire::AppendBytes(strings, r.name.data(), r.name.size());
    for (uint64_t d : r.shape) wire::Append(dims, d);
    dims_count += r.shape.size();
  }
  for (const auto& e : metadata) {
    std::vector<std::byte> payload;
    uint8_t type = 0, elem = 0;
    EncodeValue(e.value, &type, &elem, payload);
    if (payload.size() > UINT32_MAX - kMetadataEntryHeaderSize) {
      return Misuse("metadata '" + e.key + "': value larger than 4 GiB");
    }
    wire::Append(meta, static_cast<uint32_t>(kMetadataEntryHeaderSize + payload.size()));
    wire::Append(meta, static_cast<uint32_t>(strings.size()));
    wire::Append(meta, static_cast<uint32_t>(e.key.size()));
    wire::Append(meta, type);
    wire::Append(meta, elem);
    wire::Append(meta, uint16_t{0});
    meta.insert(meta.end(), payload.begin(), payload.end());
    wire::AppendBytes(strings, e.key.data(), e.key.size());
  }
  if (records.size() > UINT32_MAX || dims_count > UINT32_MAX || meta.size() > UINT32_MAX ||
      strings.size() > UINT32_MAX) {
    return Misuse("index too large: a section exceeds 2^32 entries or bytes");
  }
  std::vector<std::byte> out;
  out.reserve(kIndexHeaderSize + recs.size() + dims.size() + meta.size() + strings.size() + 4);
  wire::AppendBytes(out, "MTFI", 4);
  wire::Append(out, static_cast<uint32_t>(records.size()));
  wire::Append(out, static_cast<uint32_t>(metadata.size()));
  wire::Append(out, static_cast<uint32_t>(dims_count));
  wire::Append(out, static_cast<uint32_t>(meta.size()));
  wire::Append(out, static_cast<uint32_t>(strings.size()));
  wire::Append(out, uint32_t{0});
  wire::Append(out, uint32_t{0});
  out.insert(out.end(), recs.begin(), recs.end());
  out.insert(out.end(), dims.begin(), dims.end());
  out.insert(out.end(), meta.begin(), meta.end());
  out.insert(out.end(), strings.begin(), strings.end());
  wire::Append(out, Crc32c(out));
  return out;
}

std::vector<std::byte> EncodePreamble(uint32_t alignment, uint32_t required, uint64_t index_offset,
                                      uint64_t index_length, uint64_t data_offset,
                                      uint64_t data_length) {
  std::vector<std::byte> p(kPreambleSize);
  std::memcpy(p.data(), kMagic.data(), kMagic.size());
  wire::Store<uint16_t>(p.data() + 8, kVersionMajor);
  wire::Store<uint16_t>(p.data() + 10, kVersionMinor);
  wire::Store<uint32_t>(p.data() + 12, alignment);
  wire::Store<uint32_t>(p.data() + 16, required);
  wire::Store<uint32_t>(p.data() + 20, 0);
  wire::Store<uint64_t>(p.data() + 24, index_offset);
  wire::Store<uint64_t>(p.data() + 32, index_length);
  wire::Store<uint64_t>(p.data() + 40, data_offset);
  wire::Store<uint64_t>(p.data() + 48, data_length);
  wire::Store<uint32_t>(p.data() + 56, 0);
  wire::Store<uint32_t>(p.data() + 60, Crc32c(std::span<const std::byte>(p.data(), 60)));
  return p;
}

// Computes the CRC32C of a large chunk on a second core while the writing thread is in the
// write() system call with the same bytes: both only read the caller's buffer, and Write
// returns after both finish, so checksums cost (almost) no wall time on a multi-core machine.
class CrcWorker {
 public:
  CrcWorker() : thread_([this] { Loop(); }) {}
  ~CrcWorker() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void Start(std::span<const std::byte> bytes, uint32_t crc) {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = bytes;
    crc_ = crc;
    pending_ = true;
    done_ = false;
    cv_.notify_all();
  }
  uint32_t Wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return done_; });
    return crc_;
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      cv_.wait(lock, [this] { return pending_ || stop_; });
      if (stop_) return;
      pending_ = false;
      const auto job = job_;
      const uint32_t crc = crc_;
      lock.unlock();
      const uint32_t result = Crc32c(job, crc);
      lock.lock();
      crc_ = result;
      done_ = true;
      cv_.notify_all();
    }
  }
  std::mutex mutex_;
  std::condition_variable cv_;
  std::span<const std::byte> job_;
  uint32_t crc_ = 0;
  bool pending_ = false, done_ = false, stop_ = false;
  std::thread thread_;  // last: started once the state above exists
};

constexpr size_t kParallelCrcMin = 1u << 20;

}  // namespace

Status Sink::Patch(uint64_t, std::span<const std::byte>) {
  return Misuse("this sink cannot patch bytes already written");
}

Status MemorySink::Write(std::span<const std::byte> bytes) {
  bytes_.insert(bytes_.end(), bytes.begin(), bytes.end());
  return Ok{};
}

Status MemorySink::Patch(uint64_t offset, std::span<const std::byte> bytes) {
  if (offset > bytes_.size() || bytes.size() > bytes_.size() - offset) {
    return Misuse("patch outside the bytes written so far");
  }
  std::memcpy(bytes_.data() + offset, bytes.data(), bytes.size());
  return Ok{};
}

Status OstreamSink::Write(std::span<const std::byte> bytes) {
  out_.write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  if (!out_) return Error(ErrorCode::kIo, "std::ostream write failed");
  return Ok{};
}

FdSink::FdSink(int fd) : fd_(fd), seekable_(false), start_(0) {
  const off_t pos = ::lseek(fd, 0, SEEK_CUR);
  struct stat st;
  if (pos >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    seekable_ = true;
    start_ = static_cast<uint64_t>(pos);
  }
}

Status FdSink::Write(std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return IoError("write");
    }
    bytes = bytes.subspan(static_cast<size_t>(n));
  }
  return Ok{};
}

Status FdSink::Patch(uint64_t offset, std::span<const std::byte> bytes) {
  if (!seekable_) return Sink::Patch(offset, bytes);
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pwrite(fd_, bytes.data() + done, bytes.size() - done,
                               static_cast<off_t>(start_ + offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return IoError("pwrite");
    }
    done += static_cast<size_t>(n);
  }
  return Ok{};
}

struct Writer::Impl {
  Sink& sink;
  WriteOptions options;
  uint64_t data_align;
  uint64_t data_offset = 0;  // absolute, known once the preamble is written
  bool trailer = false;
  bool started = false;  // preamble written
  bool finished = false;
  bool failed = false;    // after an I/O error every call fails: the sink state is unknown
  uint64_t position = 0;  // bytes given to the sink
  uint64_t cursor = 0;    // data-relative end of the last tensor
  std::vector<PendingRecord> records;
  std::unordered_set<std::string> names, keys;
  std::vector<MetadataEntry> metadata;
  size_t next_declared = 0;  // kBeforeData: the next record BeginTensor must match
  // The tensor being streamed.
  bool in_tensor = false;
  size_t current = 0;
  uint64_t written = 0;
  uint32_t crc = 0;
  std::unique_ptr<CrcWorker> crc_worker;  // created on the first large chunk

  Impl(Sink& s, WriteOptions o)
      : sink(s), options(o), data_align(std::max<uint64_t>(kDataRegionAlignment, o.alignment)) {}

  Status Emit(std::span<const std::byte> bytes) {
    if (auto s = sink.Write(bytes); !s) {
      failed = true;
      return s;
    }
    position += bytes.size();
    return Ok{};
  }
  Status EmitZeros(uint64_t n) {
    while (n > 0) {
      const size_t k = static_cast<size_t>(std::min<uint64_t>(n, sizeof kZeros));
      if (auto s = Emit(std::span<const std::byte>(kZeros, k)); !s) return s;
      n -= k;
    }
    return Ok{};
  }
  Status Usable() const {
    if (failed) return Error(ErrorCode::kIo, "an earlier write failed; the output is unusable");
    if (finished) return Misuse("the writer is already finished");
    return Ok{};
  }
  Status CheckNewTensor(std::string_view name, DType dtype, std::span<const uint64_t> shape,
                        uint64_t* length) {
    if (name.empty() || name.size() > 4096 || !wire::ValidUtf8(name)) {
      return Misuse("tensor name '" + std::string(name) +
                    "' must be non-empty UTF-8 of at most 4096 bytes");
    }
    if (names.count(std::string(name)) != 0) {
      return Misuse("tensor name '" + std::string(name) + "' is already used in this file");
    }
    if (shape.size() > 32) return Misuse("tensor '" + std::string(name) + "': rank above 32");
    auto bytes = ByteLength(dtype, shape);
    if (!bytes) return Misuse("tensor '" + std::string(name) + "': " + bytes.error().message());
    *length = *bytes;
    return Ok{};
  }
  // Places a tensor at the next aligned offset of the data region.
  void Place(PendingRecord& r) {
    r.offset = wire::AlignUp(cursor, options.alignment);
    cursor = r.offset + r.length;
  }
  Status Start();
  Status WriteIndexFirst();
};

Status Writer::Impl::Start() {
  if (started) return Ok{};
  const uint32_t a = options.alignment;
  if (a < kMinAlignment || a > kMaxAlignment || (a & (a - 1)) != 0) {
    return Misuse("alignment " + std::to_string(a) + " is not a power of two in [64, 1048576]");
  }
  started = true;
  if (options.placement == IndexPlacement::kBeforeData) return WriteIndexFirst();
  data_offset = data_align;
  trailer = options.force_trailer || !sink.CanPatch();
  // Provisional preamble: with a trailer it is final; otherwise Finish patches it.
  auto p = EncodePreamble(a, trailer ? kFeatureTrailer : 0, 0, 0, data_align, 0);
  if (auto s = Emit(p); !s) return s;
  return EmitZeros(data_align - kPreambleSize);
}

Status Writer::Impl::WriteIndexFirst() {
  auto index = EncodeIndex(records, metadata);
  if (!index) return index.error();
  const uint64_t index_end = kPreambleSize + index->size();
  data_offset = wire::AlignUp(index_end, data_align);
  auto p = EncodePreamble(options.alignment, 0, kPreambleSize, index->size(), data_offset, cursor);
  if (auto s = Emit(p); !s) return s;
  if (auto s = Emit(*index); !s) return s;
  return EmitZeros(data_offset - index_end);
}

Writer::Writer(Sink& sink, WriteOptions options) : impl_(std::make_unique<Impl>(sink, options)) {}
Writer::~Writer() = default;
uint64_t Writer::bytes_written() const { return impl_->position; }

Status Writer::SetMetadata(std::string key, MetadataValue value) {
  Impl& m = *impl_;
  if (auto s = m.Usable(); !s) return s;
  if (m.options.placement == IndexPlacement::kBeforeData && m.started) {
    return Misuse("metadata '" + key + "' set after the index was written (kBeforeData)");
  }
  if (key.empty() || key.size() > 4096 || !wire::ValidUtf8(key)) {
    return Misuse("metadata key must be non-empty UTF-8 of at most 4096 bytes");
  }
  if (auto s = CheckValue(key, value); !s) return s;
  if (!m.keys.insert(key).second) return Misuse("metadata key '" + key + "' is already set");
  m.metadata.push_back(MetadataEntry{std::move(key), std::move(value)});
  return Ok{};
}

Status Writer::Declare(std::string_view name, DType dtype, std::span<const uint64_t> shape,
                       std::optional<uint32_t> checksum) {
  Impl& m = *impl_;
  if (auto s = m.Usable(); !s) return s;
  if (m.options.placement != IndexPlacement::kBeforeData) {
    return Misuse("Declare is for IndexPlacement::kBeforeData; use BeginTensor");
  }
  if (m.started) return Misuse("tensor '" + std::string(name) + "' declared after data began");
  uint64_t length = 0;
  if (auto s = m.CheckNewTensor(name, dtype, shape, &length); !s) return s;
  PendingRecord r{std::string(name), dtype, {shape.begin(), shape.end()}, 0, length, checksum};
  m.Place(r);
  m.names.insert(r.name);
  m.records.push_back(std::move(r));
  return Ok{};
}

Status Writer::BeginTensor(std::string_view name, DType dtype, std::span<const uint64_t> shape) {
  Impl& m = *impl_;
  if (auto s = m.Usable(); !s) return s;
  if (m.in_tensor) return Misuse("BeginTensor('" + std::string(name) + "') before EndTensor");
  if (m.options.placement == IndexPlacement::kBeforeData) {
    if (auto s = m.Start(); !s) return s;
    if (m.next_declared >= m.records.size()) {
      return Misuse("tensor '" + std::string(name) + "' was not declared");
    }
    const PendingRecord& r = m.records[m.next_declared];
    if (r.name != name || r.dtype != dtype ||
        !std::equal(shape.begin(), shape.end(), r.shape.begin(), r.shape.end())) {
      return Misuse("tensor '" + std::string(name) + "' does not match the next declared tensor '" +
                    r.name + "'");
    }
    m.current = m.next_declared++;
  } else {
    uint64_t length = 0;
    if (auto s = m.CheckNewTensor(name, dtype, shape, &length); !s) return s;
    if (auto s = m.Start(); !s) return s;
    PendingRecord r{std::string(name), dtype, {shape.begin(), shape.end()}, 0, length,
                    std::nullopt};
    m.Place(r);
    m.names.insert(r.name);
    m.records.push_back(std::move(r));
    m.current = m.records.size() - 1;
  }
  const PendingRecord& r = m.records[m.current];
  if (auto s = m.EmitZeros(m.data_offset + r.offset - m.position); !s)
    return s;  // spec 2.3 padding
  m.in_tensor = true;
  m.written = 0;
  m.crc = 0;
  return Ok{};
}

Status Writer::Write(std::span<const std::byte> bytes) {
  Impl& m = *impl_;
  if (auto s = m.Usable(); !s) return s;
  if (!m.in_tensor) return Misuse("Write outside BeginTensor/EndTensor");
  const PendingRecord& r = m.records[m.current];
  if (bytes.size() > r.length - m.written) {
    return Misuse("tensor '" + r.name + "': " + std::to_string(m.written + bytes.size()) +
                  " bytes written, its dtype and shape give " + std::to_string(r.length));
  }
  if (m.options.checksums || r.checksum) {
    if (bytes.size() >= kParallelCrcMin && std::thread::hardware_concurrency() > 1) {
      if (!m.crc_worker) m.crc_worker = std::make_unique<CrcWorker>();
      m.crc_worker->Start(bytes, m.crc);
      Status s = m.Emit(bytes);
      m.crc = m.crc_worker->Wait();  // always: the worker reads the caller's buffer
      if (!s) return s;
      m.written += bytes.size();
      return Ok{};
    }
    m.crc = Crc32c(bytes, m.crc);
  }
  if (auto s = m.Emit(bytes); !s) return s;
  m.written += bytes.size();
  return Ok{};
}

Status Writer::EndTensor() {
  Impl& m = *impl_;
  if (auto s = m.Usable(); !s) return s;
  if (!m.in_tensor) return Misuse("EndTensor without BeginTensor");
  PendingRecord& r = m.records[m.current];
  if (m.written != r.length) {
    return Misuse("tensor '" + r.name + "': " + std::to_string(m.written) + " bytes written, " +
                  std::to_string(r.length) + " expected");
  }
  m.in_tensor = false;
  if (m.options.placement == IndexPlacement::kBeforeData) {
    if (r.checksum && *r.checksum != m.crc) {
      m.failed = true;  // the index already promised another checksum: the output is wrong
      return Misuse("tensor '" + r.name + "': streamed bytes do not match the declared CRC32C");
    }
  } else if (m.options.checksums) {
    r.checksum = m.crc;
  }
  return Ok{};
}

Status Writer::AddTensor(std::string_view name, DType dtype, std::span<const uint64_t> shape,
                         std::span<const std::byte> bytes) {
  if (auto s = BeginTensor(name, dtype, shape); !s) return s;
  if (auto s = Write(bytes); !s) return s;
  return EndTensor();
}

Status Writer::Finish() {
  Impl& m = *impl_;
  if (auto s = m.Usable(); !s) return s;
  if (m.in_tensor) return Misuse("Finish inside a tensor: call EndTensor first");
  if (auto s = m.Start(); !s) return s;
  if (m.options.placement == IndexPlacement::kBeforeData) {
    if (m.next_declared != m.records.size()) {
      return Misuse("Finish before every declared tensor was written (next: '" +
                    m.records[m.next_declared].name + "')");
    }
    m.finished = true;
    return Ok{};
  }
  // Index after the data, 8-aligned (spec 2.2).
  const uint64_t data_end = m.data_offset + m.cursor;
  const uint64_t index_offset = wire::AlignUp(data_end, 8);
  if (auto s = m.EmitZeros(index_offset - m.position); !s) return s;
  auto index = EncodeIndex(m.records, m.metadata);
  if (!index) return index.error();
  if (auto s = m.Emit(*index); !s) return s;
  if (m.trailer) {
    std::byte t[kTrailerSize] = {};
    wire::Store<uint64_t>(t, index_offset);
    wire::Store<uint64_t>(t + 8, index->size());
    wire::Store<uint64_t>(t + 16, m.cursor);
    wire::Store<uint32_t>(t + 24, Crc32c(std::span<const std::byte>(t, 24)));
    std::memcpy(t + 28, "MTFT", 4);
    if (auto s = m.Emit(t); !s) return s;
  } else {
    auto p = EncodePreamble(m.options.alignment, 0, index_offset, index->size(), m.data_offset,
                            m.cursor);
    if (auto s = m.sink.Patch(0, p); !s) {
      m.failed = true;
      return s;
    }
  }
  m.finished = true;
  return Ok{};
}

// ---- FileWriter: temporary file, fsync, rename (spec 7, "Writing safely").

struct FileWriter::Impl {
  std::filesystem::path path;  // for messages and Append's reread
  std::string name, temp;      // entries of the directory open as dir_fd
  int dir_fd = -1;
  int fd = -1;
  std::unique_ptr<FdSink> sink;
  std::unique_ptr<Writer> writer;
  bool committed = false;
  ~Impl() {
    if (fd >= 0) ::close(fd);
    if (!committed && !temp.empty()) ::unlinkat(dir_fd, temp.c_str(), 0);
    if (dir_fd >= 0) ::close(dir_fd);
  }
};

FileWriter::FileWriter() : impl_(std::make_unique<Impl>()) {}
FileWriter::~FileWriter() = default;
Writer& FileWriter::writer() { return *impl_->writer; }

Result<std::unique_ptr<FileWriter>> FileWriter::Create(const std::filesystem::path& path,
                                                       WriteOptions options) {
  const std::string name = path.filename().string();
  if (name.empty() || name == "." || name == "..") {
    return Misuse(path.string() + ": names a directory, not a file");
  }
  std::filesystem::path dir = path.parent_path();
  if (dir.empty()) dir = ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return IoError(dir.string() + ": cannot open the directory");
  auto fw = CreateIn(dfd, name, path.string(), options);
  ::close(dfd);
  return fw;
}

Result<std::unique_ptr<FileWriter>> FileWriter::CreateIn(int dir_fd, const std::string& name,
                                                         const std::string& display,
                                                         WriteOptions options) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
      name.find('\0') != std::string::npos) {
    return Misuse(display + ": '" + name + "' is not a file name");
  }
  static std::atomic<uint64_t> counter{0};
  std::unique_ptr<FileWriter> fw(new FileWriter());
  Impl& m = *fw->impl_;
  m.path = display;
  m.name = name;
  m.dir_fd = ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
  if (m.dir_fd < 0) return IoError(display + ": cannot duplicate the directory descriptor");
  const std::string temp =
      name + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  m.fd =
      ::openat(m.dir_fd, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (m.fd < 0) return IoError(display + ": cannot create the temporary file");
  m.temp = temp;
  m.sink = std::make_unique<FdSink>(m.fd);
  m.writer = std::make_unique<Writer>(*m.sink, options);
  return fw;
}

Result<std::unique_ptr<FileWriter>> FileWriter::Append(const std::filesystem::path& path,
                                                       WriteOptions options) {
  auto old = Reader::Open(path);
  if (!old) return old.error();
  options.placement = IndexPlacement::kAfterData;
  auto fw = Create(path, options);
  if (!fw) return fw.error();
  Writer& w = (*fw)->writer();
  for (const auto& e : old->metadata()) {
    if (auto s = w.SetMetadata(e.key, e.value); !s) return s.error();
  }
  for (size_t i = 0; i < old->tensors().size(); ++i) {
    const TensorInfo& t = old->tensors()[i];
    if (auto s = w.BeginTensor(t.name, t.dtype, t.shape); !s) return s.error();
    // Copy through a bounded buffer with pread: survives the old file shrinking, never maps
    // more than one chunk's worth of memory.
    std::vector<std::byte> buf(std::min<uint64_t>(t.byte_length, 8u << 20));
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return IoError(path.string() + ": reopen for append");
    for (uint64_t done = 0; done < t.byte_length;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(buf.size(), t.byte_length - done));
      const ssize_t got = ::pread(fd, buf.data(), n, static_cast<off_t>(t.offset + done));
      if (got <= 0) {
        if (got < 0 && errno == EINTR) continue;
        ::close(fd);
        return got == 0 ? Error(ErrorCode::kFileShrank, path.string() + ": shrank during append")
                        : IoError(path.string() + ": pread");
      }
      if (auto s = w.Write(std::span<const std::byte>(buf.data(), static_cast<size_t>(got))); !s) {
        ::close(fd);
        return s.error();
      }
      done += static_cast<uint64_t>(got);
    }
    ::close(fd);
    if (auto s = w.EndTensor(); !s) return s.error();
  }
  return fw;
}

Status FileWriter::Commit() {
  Impl& m = *impl_;
  if (m.committed) return Misuse("already committed");
  if (auto s = m.writer->Finish(); !s) return s;
  if (::fsync(m.fd) != 0) return IoError(m.path.string() + " (temporary file): fsync");
  if (::close(m.fd) != 0) {
    m.fd = -1;
    return IoError(m.path.string() + " (temporary file): close");
  }
  m.fd = -1;
  if (::renameat(m.dir_fd, m.temp.c_str(), m.dir_fd, m.name.c_str()) != 0) {
    return IoError(m.path.string() + ": rename");
  }
  m.committed = true;
  // The rename is durable only once the directory entry is on disk.
  if (::fsync(m.dir_fd) != 0 && errno != EINVAL) {
    return IoError(m.path.string() + ": fsync of the directory");
  }
  return Ok{};
}

}  // namespace alknet::tensor
