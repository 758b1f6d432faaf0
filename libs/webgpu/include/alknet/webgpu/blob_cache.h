// A persistent store for Dawn's blob cache (its DawnCacheDeviceDescriptor load/store
// callbacks): what Dawn keeps there (Tint's translated shaders, the driver's VkPipelineCache
// data) survives the process, so a pipeline compiled once on a machine is found again by the
// next process instead of being translated and compiled anew. ADR 0024.
//
// One file per entry under the cache directory, named by a hash of Dawn's key; the file holds
// the whole key, so a hash collision or a foreign file is a miss, never the wrong blob. Every
// file is read as untrusted input: a bad header, a size that does not add up, a key that
// differs, a symlink or a non-regular file is a miss. Writes go to a temporary file renamed
// into place, so a reader never sees half an entry. The directory's size is capped.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace alknet::webgpu {

struct BlobCacheStats {
  uint64_t hits = 0;     // loads answered from disk
  uint64_t misses = 0;   // loads with no (valid) entry
  uint64_t stores = 0;   // entries written
  uint64_t refused = 0;  // stores skipped: too large, or the directory is at its cap
};

class DiskBlobCache {
 public:
  static constexpr uint64_t kDefaultMaxBytes = 512ull << 20;
  static constexpr uint64_t kMaxEntryBytes = 64ull << 20;
  static constexpr uint64_t kMaxKeyBytes = 1ull << 20;

  // Opens (creating it, mode 0700) `dir`; nullptr if it cannot be created or is not a
  // directory. Counts the bytes already there against `max_bytes`.
  static std::unique_ptr<DiskBlobCache> Open(const std::string& dir,
                                             uint64_t max_bytes = kDefaultMaxBytes);

  // The directory the environment asks for: ALKNET_PIPELINE_CACHE=off (or 0) disables it
  // (empty result); else ALKNET_CACHE_DIR, $XDG_CACHE_HOME/alknet or $HOME/.cache/alknet,
  // with "/dawn" appended. ALKNET_PIPELINE_CACHE_MAX_MB caps its size (default 512).
  static std::string DirectoryFromEnvironment();
  static uint64_t MaxBytesFromEnvironment();

  // Dawn's protocol: Load with value == nullptr returns the entry's size (0: none); Load with
  // a buffer of exactly that size copies it and returns the size (0 if it changed meanwhile).
  size_t Load(const void* key, size_t key_size, void* value, size_t value_size);
  void Store(const void* key, size_t key_size, const void* value, size_t value_size);

  BlobCacheStats stats() const;
  const std::string& directory() const { return dir_; }

  // The C callbacks for DawnCacheDeviceDescriptor (userdata: the DiskBlobCache).
  static size_t LoadCallback(const void* key, size_t key_size, void* value, size_t value_size,
                             void* userdata);
  static void StoreCallback(const void* key, size_t key_size, const void* value, size_t value_size,
                            void* userdata);

 private:
  DiskBlobCache(std::string dir, uint64_t max_bytes, uint64_t used_bytes);
  std::string PathFor(std::string_view key) const;
  // Reads and validates the entry for `key`; false on any mismatch.
  bool ReadEntry(std::string_view key, std::vector<unsigned char>& value) const;

  std::string dir_;
  uint64_t max_bytes_;
  std::atomic<uint64_t> used_bytes_;
  std::atomic<uint64_t> hits_{0}, misses_{0}, stores_{0}, refused_{0};
  // Dawn asks for the size, then for the bytes: the entry read for the first call is kept for
  // the second, so each hit reads its file once.
  mutable std::mutex mutex_;
  std::string pending_key_;
  std::vector<unsigned char> pending_value_;
  std::atomic<uint64_t> temp_counter_{0};
};

}  // namespace alknet::webgpu
