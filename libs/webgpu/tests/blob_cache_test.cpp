// DiskBlobCache (ADR 0024): the on-disk store behind Dawn's blob cache. The store alone
// against its own contract and hostile files; then two devices in turn, the second of which
// must load what the first stored (Dawn asks, the store answers) and still compute the
// float64 reference's results, also when every entry was corrupted in between.
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "alknet/webgpu/blob_cache.h"
#include "alknet/webgpu/context.h"

namespace alknet::webgpu {
namespace {

namespace fs = std::filesystem;

fs::path TempDir(const std::string& tag) {
  const fs::path p =
      fs::temp_directory_path() / ("alknet-blob-" + tag + "-" + std::to_string(::getpid()) + "-" +
                                   std::to_string(std::random_device{}()));
  fs::remove_all(p);
  return p;
}

// Loads `key` through Dawn's two-call protocol; nullopt-like empty on a miss.
std::string LoadAll(DiskBlobCache& c, const std::string& key) {
  const size_t n = c.Load(key.data(), key.size(), nullptr, 0);
  if (n == 0) return {};
  std::string out(n, '\0');
  if (c.Load(key.data(), key.size(), out.data(), n) != n) return {};
  return out;
}

void Put(DiskBlobCache& c, const std::string& key, const std::string& value) {
  c.Store(key.data(), key.size(), value.data(), value.size());
}

std::vector<fs::path> Entries(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path());
  return out;
}

TEST(DiskBlobCache, StoresAndLoadsAcrossInstances) {
  const fs::path dir = TempDir("roundtrip");
  std::string big(200000, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 131 + 7);
  {
    auto c = DiskBlobCache::Open(dir.string());
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(LoadAll(*c, "key-a"), "");
    Put(*c, "key-a", "value a");
    Put(*c, "key-b", big);
    EXPECT_EQ(c->stats().stores, 2u);
    EXPECT_EQ(c->stats().misses, 1u);
  }
  EXPECT_EQ((fs::status(dir).permissions() & fs::perms::all), fs::perms::owner_all);
  auto c = DiskBlobCache::Open(dir.string());  // a new process would see the same
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(LoadAll(*c, "key-a"), "value a");
  EXPECT_EQ(LoadAll(*c, "key-b"), big);
  EXPECT_EQ(LoadAll(*c, "key-c"), "");
  // A buffer of another size than announced copies nothing.
  std::string wrong(3, '\0');
  EXPECT_EQ(c->Load("key-a", 5, wrong.data(), wrong.size()), 0u);
  EXPECT_EQ(c->stats().hits, 2u);
  fs::remove_all(dir);
}

TEST(DiskBlobCache, HostileEntriesAreMisses) {
  const fs::path dir = TempDir("hostile");
  auto c = DiskBlobCache::Open(dir.string());
  ASSERT_NE(c, nullptr);
  Put(*c, "k", "the value");
  const std::vector<fs::path> files = Entries(dir);
  ASSERT_EQ(files.size(), 1u);
  const fs::path entry = files[0];
  std::string bytes;
  {
    std::ifstream in(entry, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto rewrite = [&](const std::string& b) {
    fs::remove(entry);
    std::ofstream(entry, std::ios::binary) << b;
  };
  // Truncated, a trailing byte, another magic, a size field that overflows, another key of
  // the same length: each a miss.
  rewrite(bytes.substr(0, bytes.size() - 1));
  EXPECT_EQ(LoadAll(*c, "k"), "");
  rewrite(bytes + "x");
  EXPECT_EQ(LoadAll(*c, "k"), "");
  std::string b = bytes;
  b[0] = 'X';
  rewrite(b);
  EXPECT_EQ(LoadAll(*c, "k"), "");
  b = bytes;
  for (int i = 16; i < 24; ++i) b[i] = '\xff';
  rewrite(b);
  EXPECT_EQ(LoadAll(*c, "k"), "");
  b = bytes;
  b[24] = 'j';  // the stored key
  rewrite(b);
  EXPECT_EQ(LoadAll(*c, "k"), "");
  // A symlink to a valid entry elsewhere, and a directory, in the entry's place.
  const fs::path outside = TempDir("outside");
  fs::create_directories(outside);
  std::ofstream(outside / "e", std::ios::binary) << bytes;
  fs::remove(entry);
  fs::create_symlink(outside / "e", entry);
  EXPECT_EQ(LoadAll(*c, "k"), "");
  fs::remove(entry);
  fs::create_directory(entry);
  EXPECT_EQ(LoadAll(*c, "k"), "");
  fs::remove(entry);
  // Restored, it loads again.
  rewrite(bytes);
  EXPECT_EQ(LoadAll(*c, "k"), "the value");
  fs::remove_all(dir);
  fs::remove_all(outside);
}

TEST(DiskBlobCache, SizeCapRefusesStores) {
  const fs::path dir = TempDir("cap");
  auto c = DiskBlobCache::Open(dir.string(), /*max_bytes=*/4096);
  ASSERT_NE(c, nullptr);
  Put(*c, "a", std::string(3000, 'a'));
  Put(*c, "b", std::string(3000, 'b'));  // would pass the cap
  EXPECT_EQ(c->stats().stores, 1u);
  EXPECT_EQ(c->stats().refused, 1u);
  EXPECT_EQ(LoadAll(*c, "b"), "");
  // A reopened cache counts what is already there.
  auto again = DiskBlobCache::Open(dir.string(), 4096);
  Put(*again, "c", std::string(2000, 'c'));
  EXPECT_EQ(again->stats().refused, 1u);
  fs::remove_all(dir);
}

TEST(DiskBlobCache, EnvironmentChoosesTheDirectory) {
  ::setenv("ALKNET_CACHE_DIR", "/tmp/alknet-x", 1);
  ::unsetenv("ALKNET_PIPELINE_CACHE");
  EXPECT_EQ(DiskBlobCache::DirectoryFromEnvironment(), "/tmp/alknet-x/dawn");
  ::setenv("ALKNET_PIPELINE_CACHE", "off", 1);
  EXPECT_EQ(DiskBlobCache::DirectoryFromEnvironment(), "");
  ::unsetenv("ALKNET_PIPELINE_CACHE");
  ::unsetenv("ALKNET_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/var/tmp/xdg", 1);
  EXPECT_EQ(DiskBlobCache::DirectoryFromEnvironment(), "/var/tmp/xdg/alknet/dawn");
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("ALKNET_PIPELINE_CACHE_MAX_MB", "7", 1);
  EXPECT_EQ(DiskBlobCache::MaxBytesFromEnvironment(), 7ull << 20);
  ::setenv("ALKNET_PIPELINE_CACHE_MAX_MB", "lots", 1);
  EXPECT_EQ(DiskBlobCache::MaxBytesFromEnvironment(), DiskBlobCache::kDefaultMaxBytes);
  ::unsetenv("ALKNET_PIPELINE_CACHE_MAX_MB");
  // A path that cannot be a directory: no cache, not an error.
  EXPECT_EQ(DiskBlobCache::Open("/dev/null/dawn"), nullptr);
}

// A kernel whose source is new to this run (a random constant), so the first device must
// compile it and the second can only find it in the store.
std::string UniqueKernel(float k) {
  return "@group(0) @binding(0) var<storage, read_write> y: array<f32>;\n"
         "@compute @workgroup_size(64)\n"
         "fn main(@builtin(global_invocation_id) gid: vec3u) {\n"
         "  if (gid.x >= arrayLength(&y)) { return; }\n"
         "  y[gid.x] = exp(y[gid.x] * " +
         std::to_string(k) + ") + 1.0;\n}\n";
}

void RunAndCheck(Context& ctx, const std::string& wgsl, float k) {
  const size_t n = 1000;
  std::vector<float> y(n);
  for (size_t i = 0; i < n; ++i) y[i] = static_cast<float>(i % 37) / 37.0f - 0.5f;
  auto yb = ctx.CreateBuffer(n * 4, kStorageUsage, "y");
  ASSERT_TRUE(yb.ok());
  ASSERT_TRUE(ctx.Write(*yb, 0, std::as_bytes(std::span(y))).ok());
  auto kernel = ctx.GetKernel({.wgsl = wgsl, .bindings = {BindingType::kStorage}, .label = "k"});
  ASSERT_TRUE(kernel.ok()) << kernel.error().ToString();
  auto grid = ctx.GridFor(n, 64);
  ASSERT_TRUE(grid.ok());
  Recorder rec = ctx.BeginCommands();
  const BufferBinding bindings[] = {{&*yb}};
  ASSERT_TRUE(rec.Dispatch(**kernel, bindings, *grid).ok());
  ASSERT_TRUE(ctx.Submit(std::move(rec)).ok());
  std::vector<float> out(n, std::nanf(""));
  ASSERT_TRUE(ctx.Read(*yb, 0, std::as_writable_bytes(std::span(out))).ok());
  for (size_t i = 0; i < n; ++i) {
    // k is printed with std::to_string's 6 decimals: the reference uses the same value.
    const double kk = std::stod(std::to_string(k));
    const double ref = std::exp(double(y[i]) * kk) + 1.0;
    ASSERT_NEAR(out[i], ref, 1e-5 * std::fabs(ref)) << "element " << i;
  }
}

TEST(DiskBlobCache, SecondDeviceLoadsWhatTheFirstStored) {
  const fs::path root = TempDir("device");
  ::setenv("ALKNET_CACHE_DIR", root.c_str(), 1);
  const float k = 0.5f + static_cast<float>(std::random_device{}() % 1000) / 4000.0f;
  const std::string wgsl = UniqueKernel(k);
  {
    auto ctx = Context::Create();
    ASSERT_TRUE(ctx.ok()) << ctx.error().ToString();
    ASSERT_NE((*ctx)->pipeline_cache(), nullptr) << "the pinned Dawn took the cache descriptor";
    RunAndCheck(**ctx, wgsl, k);
    const BlobCacheStats s = (*ctx)->pipeline_cache()->stats();
    EXPECT_GT(s.stores, 0u) << "Dawn stored nothing";
    EXPECT_EQ(s.hits, 0u);
  }
  ASSERT_FALSE(Entries(root / "dawn").empty());
  {
    auto ctx = Context::Create();
    ASSERT_TRUE(ctx.ok());
    RunAndCheck(**ctx, wgsl, k);
    const BlobCacheStats s = (*ctx)->pipeline_cache()->stats();
    EXPECT_GT(s.hits, 0u) << "the second device found nothing of the first's";
    EXPECT_EQ(s.stores, 0u) << "everything should have been found";
  }
  // Every entry overwritten with garbage of the same size: misses, recompiles, right results.
  for (const fs::path& p : Entries(root / "dawn")) {
    const auto size = fs::file_size(p);
    fs::remove(p);
    std::ofstream(p, std::ios::binary) << std::string(size, '\x5a');
  }
  {
    auto ctx = Context::Create();
    ASSERT_TRUE(ctx.ok());
    RunAndCheck(**ctx, wgsl, k);
    EXPECT_EQ((*ctx)->pipeline_cache()->stats().hits, 0u);
  }
  // Disabled by option: no store at all.
  {
    ContextOptions o;
    o.pipeline_cache = false;
    auto ctx = Context::Create(o);
    ASSERT_TRUE(ctx.ok());
    EXPECT_EQ((*ctx)->pipeline_cache(), nullptr);
  }
  ::unsetenv("ALKNET_CACHE_DIR");
  fs::remove_all(root);
}

}  // namespace
}  // namespace alknet::webgpu
