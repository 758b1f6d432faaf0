// A call's tensors travel as one metatensor file (docs/metatensor-format.md), written by
// alknet-tensor's Writer with the index before the data, so a receiver knows every shape
// before the bytes arrive. Tensor i is named "i"; values refer to tensors by that index.
#include "tensor_payload.h"

#include <sys/mman.h>

#include <cstdlib>
#include <mutex>
#include <new>
#include <string>

#include "alknet/tensor/reader.h"
#include "alknet/tensor/writer.h"

namespace alknet::call {

namespace {

// Records what the Writer emits as pieces. Bytes that lie inside a tensor we handed to the
// Writer are referenced where they are (no copy of the tensor data); anything else (preamble,
// index, padding) is copied into owned buffers, so correctness never depends on how the
// Writer buffers.
class PieceSink final : public tensor::Sink {
 public:
  PieceSink(EncodedPayload& out, const std::vector<Tensor>& tensors)
      : out_(out), tensors_(tensors) {}

  tensor::Status Write(std::span<const std::byte> bytes) override {
    if (bytes.empty()) return tensor::Ok{};
    if (InsideATensor(bytes)) {
      FlushOwned();
      out_.pieces.push_back(bytes);
    } else {
      pending_.insert(pending_.end(), bytes.begin(), bytes.end());
    }
    out_.size += bytes.size();
    return tensor::Ok{};
  }

  void FlushOwned() {
    if (pending_.empty()) return;
    out_.owned.push_back(std::move(pending_));  // moving keeps the heap block in place
    out_.pieces.emplace_back(out_.owned.back());
    pending_ = {};
  }

 private:
  bool InsideATensor(std::span<const std::byte> bytes) const {
    const auto* lo = bytes.data();
    const auto* hi = bytes.data() + bytes.size();
    for (const auto& t : tensors_) {
      if (!t.data.empty() && lo >= t.data.data() && hi <= t.data.data() + t.data.size()) {
        return true;
      }
    }
    return false;
  }

  EncodedPayload& out_;
  const std::vector<Tensor>& tensors_;
  std::vector<std::byte> pending_;
};

Error Malformed(std::string what) {
  return MakeError(ErrorCode::kInvalidArgument, "malformed tensor payload: " + what);
}

std::vector<std::uint64_t> Dims(const Tensor& t) {
  return std::vector<std::uint64_t>(t.shape.begin(), t.shape.end());
}

}  // namespace

namespace {

// Large payload buffers released by finished calls, kept for the next call of a similar
// size: a fresh buffer costs the kernel a page fault and a page clear per page (a quarter of
// a 256 MiB loopback transfer), a reused one costs nothing. Bounded in count and bytes.
class PayloadBufferCache {
 public:
  static constexpr std::size_t kHuge = 2u << 20;
  static constexpr std::size_t kMaxEntries = 4;
  static constexpr std::size_t kMaxBytes = 1u << 30;

  ~PayloadBufferCache() {
    for (auto& e : free_) std::free(e.data);
  }

  std::shared_ptr<std::byte[]> Acquire(std::size_t size) {
    const std::size_t rounded = (size + kHuge - 1) / kHuge * kHuge;
    std::byte* data = nullptr;
    std::size_t capacity = rounded;
    {
      std::lock_guard lock(mutex_);
      // Smallest cached buffer that fits without wasting more than the request itself.
      std::size_t best = free_.size();
      for (std::size_t i = 0; i < free_.size(); ++i) {
        if (free_[i].capacity >= rounded && free_[i].capacity <= 2 * rounded &&
            (best == free_.size() || free_[i].capacity < free_[best].capacity)) {
          best = i;
        }
      }
      if (best != free_.size()) {
        data = free_[best].data;
        capacity = free_[best].capacity;
        cached_bytes_ -= capacity;
        free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(best));
      }
    }
    if (!data) {
      data = static_cast<std::byte*>(std::aligned_alloc(kHuge, rounded));
      if (!data) throw std::bad_alloc();
      madvise(data, rounded, MADV_HUGEPAGE);  // advice only: failure means small pages
    }
    return std::shared_ptr<std::byte[]>(data,
                                        [this, capacity](std::byte* p) { Release(p, capacity); });
  }

 private:
  struct Entry {
    std::byte* data;
    std::size_t capacity;
  };

  void Release(std::byte* data, std::size_t capacity) {
    {
      std::lock_guard lock(mutex_);
      if (free_.size() < kMaxEntries && cached_bytes_ + capacity <= kMaxBytes) {
        free_.push_back(Entry{data, capacity});
        cached_bytes_ += capacity;
        return;
      }
    }
    std::free(data);
  }

  std::mutex mutex_;
  std::vector<Entry> free_;
  std::size_t cached_bytes_ = 0;
};

}  // namespace

std::shared_ptr<std::byte[]> AllocatePayload(std::size_t size) {
  if (size < 4 * PayloadBufferCache::kHuge)
    return std::make_shared_for_overwrite<std::byte[]>(size);
  // Leaked on purpose: buffers may be released by threads still running at exit.
  static auto* cache = new PayloadBufferCache;
  return cache->Acquire(size);
}

Result<EncodedPayload> EncodePayload(std::vector<Tensor> tensors) {
  EncodedPayload out;
  if (tensors.empty()) return out;
  out.keep_alive = std::move(tensors);
  const auto& ts = out.keep_alive;
  PieceSink sink(out, ts);
  tensor::WriteOptions options;
  options.alignment = 64;     // the format's minimum: less padding on the wire
  options.checksums = false;  // the transport already guards the bytes (HTTP/2 over TCP/TLS)
  options.placement = tensor::IndexPlacement::kBeforeData;
  tensor::Writer writer(sink, options);
  auto fail = [](std::size_t i, const tensor::Status& s) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cannot encode tensor " + std::to_string(i) + ": " + s.error().ToString());
  };
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const tensor::DTypeInfo* info = tensor::FindDType(ts[i].dtype);
    if (!info) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "tensor " + std::to_string(i) + " has unknown dtype '" + ts[i].dtype + "'");
    }
    const auto dims = Dims(ts[i]);
    if (auto s = writer.Declare(std::to_string(i), info->dtype, dims); !s) return fail(i, s);
  }
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const auto dims = Dims(ts[i]);
    if (auto s = writer.AddTensor(std::to_string(i), tensor::FindDType(ts[i].dtype)->dtype, dims,
                                  ts[i].data);
        !s) {
      return fail(i, s);
    }
  }
  if (auto s = writer.Finish(); !s) return fail(ts.size(), s);
  sink.FlushOwned();
  return out;
}

Result<std::vector<Tensor>> DecodePayload(std::shared_ptr<const std::byte[]> buffer,
                                          std::size_t size) {
  std::vector<Tensor> tensors;
  if (size == 0) return tensors;
  auto reader = tensor::Reader::FromMemory(std::span<const std::byte>(buffer.get(), size));
  if (!reader) return Malformed(reader.error().ToString());
  const std::size_t count = reader->tensors().size();
  tensors.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    auto view = reader->Find(std::to_string(i));
    if (!view) {
      return Malformed("the payload holds " + std::to_string(count) +
                       " tensors but none is named \"" + std::to_string(i) + "\"");
    }
    Tensor t;
    t.dtype = std::string(tensor::Info(view->dtype()).name);
    for (auto d : view->shape()) {
      if (d > static_cast<std::uint64_t>(INT64_MAX)) return Malformed("dimension over int64");
      t.shape.push_back(static_cast<std::int64_t>(d));
    }
    t.data = view->data;  // a view into `buffer` (FromMemory does not copy)
    t.owner = buffer;
    tensors.push_back(std::move(t));
  }
  return tensors;
}

}  // namespace alknet::call
