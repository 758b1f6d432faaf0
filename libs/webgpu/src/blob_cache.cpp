#include "alknet/webgpu/blob_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "alknet/base/file.h"
#include "log.h"

namespace alknet::webgpu {

namespace {

// Entry file: magic, key size, value size (little-endian u64), key bytes, value bytes.
constexpr char kMagic[8] = {'A', 'L', 'K', 'B', 'L', 'O', 'B', '1'};
constexpr size_t kHeaderBytes = sizeof kMagic + 16;

void PutU64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

uint64_t GetU64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// FNV-1a, 64 bits: names the file only; the key stored inside decides a hit.
uint64_t Fnv1a(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

bool WriteAll(int fd, const unsigned char* data, size_t n) {
  while (n > 0) {
    const ssize_t put = ::write(fd, data, n);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    data += put;
    n -= static_cast<size_t>(put);
  }
  return true;
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

}  // namespace

std::string DiskBlobCache::DirectoryFromEnvironment() {
  const std::string mode = Env("ALKNET_PIPELINE_CACHE");
  if (mode == "off" || mode == "0" || mode == "false" || mode == "no") return {};
  std::string base = Env("ALKNET_CACHE_DIR");
  if (base.empty()) {
    const std::string xdg = Env("XDG_CACHE_HOME");
    if (!xdg.empty() && xdg[0] == '/') {
      base = xdg + "/alknet";
    } else {
      const std::string home = Env("HOME");
      if (home.empty() || home[0] != '/') return {};
      base = home + "/.cache/alknet";
    }
  }
  return base + "/dawn";
}

uint64_t DiskBlobCache::MaxBytesFromEnvironment() {
  const std::string mb = Env("ALKNET_PIPELINE_CACHE_MAX_MB");
  if (mb.empty()) return kDefaultMaxBytes;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(mb.c_str(), &end, 10);
  if (errno != 0 || end == mb.c_str() || *end != 0 || v > (1ull << 20)) {
    LogDebug("ALKNET_PIPELINE_CACHE_MAX_MB=" + mb + " is not a size in MiB (0..1048576); using " +
             std::to_string(kDefaultMaxBytes >> 20));
    return kDefaultMaxBytes;
  }
  return static_cast<uint64_t>(v) << 20;
}

std::unique_ptr<DiskBlobCache> DiskBlobCache::Open(const std::string& dir, uint64_t max_bytes) {
  namespace fs = std::filesystem;
  if (dir.empty()) return nullptr;
  std::error_code ec;
  const fs::path path(dir);
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    LogDebug("pipeline cache: cannot create " + dir + ": " + std::strerror(errno));
    return nullptr;
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || ::access(dir.c_str(), W_OK) != 0) {
    LogDebug("pipeline cache: " + dir + " is not a writable directory; not caching");
    return nullptr;
  }
  uint64_t used = 0;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    if (it->is_regular_file(e2)) used += it->file_size(e2);
  }
  return std::unique_ptr<DiskBlobCache>(new DiskBlobCache(dir, max_bytes, used));
}

DiskBlobCache::DiskBlobCache(std::string dir, uint64_t max_bytes, uint64_t used_bytes)
    : dir_(std::move(dir)), max_bytes_(max_bytes), used_bytes_(used_bytes) {}

std::string DiskBlobCache::PathFor(std::string_view key) const {
  char name[24];
  std::snprintf(name, sizeof name, "%016llx",
                static_cast<unsigned long long>(Fnv1a(key) ^ (key.size() * 0x9e3779b97f4a7c15ull)));
  return dir_ + "/" + name;
}

bool DiskBlobCache::ReadEntry(std::string_view key, std::vector<unsigned char>& value) const {
  // base::OpenBeneath: a regular file directly in the cache directory, no symbolic link, no
  // blocking open; ReadAllFd stops at the largest entry there can be.
  const std::string name = PathFor(key).substr(dir_.size() + 1);
  auto fd = base::OpenBeneath(dir_, name, base::OpenMode::kRead);
  if (!fd.ok()) return false;
  auto bytes = base::ReadAllFd(fd->get(), name, kHeaderBytes + kMaxKeyBytes + kMaxEntryBytes);
  if (!bytes.ok() || bytes->size() < kHeaderBytes) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes->data());
  if (std::memcmp(p, kMagic, sizeof kMagic) != 0) return false;
  const uint64_t key_size = GetU64(p + 8);
  const uint64_t value_size = GetU64(p + 16);
  if (key_size != key.size() || value_size > kMaxEntryBytes ||
      bytes->size() != kHeaderBytes + key_size + value_size ||
      std::memcmp(p + kHeaderBytes, key.data(), key_size) != 0) {
    return false;
  }
  value.assign(p + kHeaderBytes + key_size, p + bytes->size());
  return true;
}

size_t DiskBlobCache::Load(const void* key, size_t key_size, void* value, size_t value_size) {
  if (key == nullptr || key_size == 0 || key_size > kMaxKeyBytes) return 0;
  const std::string_view k(static_cast<const char*>(key), key_size);
  std::lock_guard lock(mutex_);
  if (value == nullptr) {
    pending_key_.clear();
    pending_value_.clear();
    if (!ReadEntry(k, pending_value_) || pending_value_.empty()) {
      misses_.fetch_add(1);
      pending_value_.clear();
      return 0;
    }
    pending_key_ = std::string(k);
    return pending_value_.size();
  }
  std::vector<unsigned char> fresh;
  const std::vector<unsigned char>* blob = nullptr;
  if (pending_key_ == k) {
    blob = &pending_value_;
  } else if (ReadEntry(k, fresh)) {
    blob = &fresh;
  }
  size_t copied = 0;
  if (blob != nullptr && blob->size() == value_size && value_size > 0) {
    std::memcpy(value, blob->data(), value_size);
    copied = value_size;
    hits_.fetch_add(1);
  } else {
    misses_.fetch_add(1);
  }
  pending_key_.clear();
  pending_value_.clear();
  return copied;
}

void DiskBlobCache::Store(const void* key, size_t key_size, const void* value, size_t value_size) {
  if (key == nullptr || value == nullptr || key_size == 0 || value_size == 0) return;
  if (key_size > kMaxKeyBytes || value_size > kMaxEntryBytes) {
    refused_.fetch_add(1);
    return;
  }
  const uint64_t bytes = kHeaderBytes + key_size + value_size;
  if (used_bytes_.load() + bytes > max_bytes_) {
    refused_.fetch_add(1);
    return;
  }
  const std::string_view k(static_cast<const char*>(key), key_size);
  const std::string final_path = PathFor(k);
  const std::string temp_path = dir_ + "/.tmp-" + std::to_string(::getpid()) + "-" +
                                std::to_string(temp_counter_.fetch_add(1));
  auto opened =
      base::OpenBeneath(dir_, temp_path.substr(dir_.size() + 1), base::OpenMode::kWriteTruncate);
  if (!opened.ok()) return;
  const int fd = opened->release();
  unsigned char header[kHeaderBytes];
  std::memcpy(header, kMagic, sizeof kMagic);
  PutU64(header + 8, key_size);
  PutU64(header + 16, value_size);
  bool ok = WriteAll(fd, header, kHeaderBytes) &&
            WriteAll(fd, static_cast<const unsigned char*>(key), key_size) &&
            WriteAll(fd, static_cast<const unsigned char*>(value), value_size);
  ok = (::close(fd) == 0) && ok;
  if (!ok || ::rename(temp_path.c_str(), final_path.c_str()) != 0) {
    ::unlink(temp_path.c_str());
    return;
  }
  used_bytes_.fetch_add(bytes);
  stores_.fetch_add(1);
}

BlobCacheStats DiskBlobCache::stats() const {
  return {hits_.load(), misses_.load(), stores_.load(), refused_.load()};
}

size_t DiskBlobCache::LoadCallback(const void* key, size_t key_size, void* value, size_t value_size,
                                   void* userdata) {
  return static_cast<DiskBlobCache*>(userdata)->Load(key, key_size, value, value_size);
}

void DiskBlobCache::StoreCallback(const void* key, size_t key_size, const void* value,
                                  size_t value_size, void* userdata) {
  static_cast<DiskBlobCache*>(userdata)->Store(key, key_size, value, value_size);
}

}  // namespace alknet::webgpu
