// The staged upload path of Context::Write (ADR 0021), forced on so it runs on lavapipe too.
// Every check compares the device bytes with a host copy built with memcpy from the same
// source, and the upload counters prove the staged path (not the writeBuffer fallback) ran.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "alknet/webgpu/context.h"

namespace alknet::webgpu {
namespace {

std::unique_ptr<Context> MakeContext(UploadMode mode) {
  ContextOptions options;
  options.upload = mode;
  auto created = Context::Create(options);
  if (!created) {
    ADD_FAILURE() << "no WebGPU context: " << created.error().ToString();
    std::abort();
  }
  return std::move(created).value();
}

Context& Staged() {
  static std::unique_ptr<Context> ctx = MakeContext(UploadMode::kStaged);
  return *ctx;
}

// Pseudo-random bytes (splitmix64, 8 bytes a step: the 136 MiB test fills quickly).
std::vector<std::byte> Pattern(size_t n, uint32_t seed) {
  std::vector<std::byte> v(n);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < n; i += 8) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    std::memcpy(v.data() + i, &z, std::min<size_t>(8, n - i));
  }
  return v;
}

// Fills `buf` with `background` through writeBuffer, so the staged write is checked against
// bytes it must not touch.
void Fill(Context& ctx, const Buffer& buf, const std::vector<std::byte>& background) {
  const UploadMode mode = ctx.upload_mode();
  ctx.set_upload_mode(UploadMode::kWrite);
  ASSERT_TRUE(ctx.Write(buf, 0, background).ok());
  ctx.set_upload_mode(mode);
}

TEST(StagedUpload, OddSizesAndOffsetsReadBackEqual) {
  Context& ctx = Staged();
  ASSERT_EQ(ctx.upload_mode(), UploadMode::kStaged);
  const size_t sizes[] = {1, 2, 3, 4, 5, 7, 4093, (64 << 10) + 1, (1 << 20) - 1, (3 << 20) + 3};
  const uint64_t offsets[] = {0, 4, 12, 4096 + 8};
  uint32_t seed = 1;
  for (size_t n : sizes) {
    for (uint64_t off : offsets) {
      const uint64_t total = (off + n + 3 + 16) & ~uint64_t{3};
      auto buf = ctx.CreateBuffer(total, kStorageUsage, "dst");
      ASSERT_TRUE(buf.ok()) << buf.error().ToString();
      const std::vector<std::byte> background = Pattern(total, seed++);
      Fill(ctx, *buf, background);
      const std::vector<std::byte> data = Pattern(n, seed++);
      const uint64_t staged_before = ctx.upload_stats().staged_bytes;
      ASSERT_TRUE(ctx.Write(*buf, off, data).ok());
      EXPECT_EQ(ctx.upload_stats().staged_bytes - staged_before, n) << n << " at " << off;
      // Expected: the data at off, its ragged tail zero-padded to a word, the rest untouched.
      std::vector<std::byte> want = background;
      std::memcpy(want.data() + off, data.data(), n);
      for (uint64_t i = off + n; i < ((off + n + 3) & ~uint64_t{3}); ++i) want[i] = std::byte{0};
      std::vector<std::byte> got(total);
      ASSERT_TRUE(ctx.Read(*buf, 0, got).ok());
      ASSERT_EQ(std::memcmp(got.data(), want.data(), total), 0) << n << " bytes at " << off;
    }
  }
  EXPECT_EQ(ctx.upload_stats().fallbacks, 0u);
  EXPECT_TRUE(ctx.TakeUncapturedErrors().empty());
}

constexpr const char* kCopy = R"(
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) n: vec3u) {
  let i = gid.x + gid.y * n.x * 64u;
  if (i >= arrayLength(&dst)) { return; }
  dst[i] = src[i];
}
)";

// write A, dispatch B -> X, write B, dispatch B -> Y, with no wait in between: X must hold A
// (the dispatch submitted before the second write reads the old contents) and Y must hold B.
void CheckOrdering(Context& ctx) {
  const size_t n = (2 << 20) + 12;  // bytes, a multiple of 4
  auto kernel = ctx.GetKernel({.wgsl = kCopy,
                               .bindings = {BindingType::kReadOnlyStorage, BindingType::kStorage},
                               .label = "copy"});
  ASSERT_TRUE(kernel.ok()) << kernel.error().ToString();
  auto grid = ctx.GridFor(n / 4, 64);
  ASSERT_TRUE(grid.ok());
  auto src = ctx.CreateBuffer(n, kStorageUsage, "src");
  ASSERT_TRUE(src.ok());
  constexpr int kRounds = 6;
  std::vector<Buffer> outs;
  std::vector<std::vector<std::byte>> datas;
  for (int r = 0; r < kRounds; ++r) {
    auto out = ctx.CreateBuffer(n, kStorageUsage, "out");
    ASSERT_TRUE(out.ok());
    outs.push_back(std::move(out).value());
    datas.push_back(Pattern(n, 100 + r));
  }
  for (int r = 0; r < kRounds; ++r) {
    ASSERT_TRUE(ctx.Write(*src, 0, datas[r]).ok());
    Recorder rec = ctx.BeginCommands();
    const BufferBinding bindings[] = {{&*src}, {&outs[r]}};
    ASSERT_TRUE(rec.Dispatch(**kernel, bindings, *grid).ok());
    ctx.SubmitUnchecked(std::move(rec));
  }
  for (int r = 0; r < kRounds; ++r) {
    std::vector<std::byte> got(n);
    ASSERT_TRUE(ctx.Read(outs[r], 0, got).ok());
    EXPECT_EQ(std::memcmp(got.data(), datas[r].data(), n), 0) << "round " << r;
  }
  EXPECT_TRUE(ctx.TakeUncapturedErrors().empty());
}

TEST(StagedUpload, OrderedLikeWriteBufferAroundDispatches) {
  Context& ctx = Staged();
  const uint64_t before = ctx.upload_stats().staged_bytes;
  CheckOrdering(ctx);
  EXPECT_GT(ctx.upload_stats().staged_bytes, before);
}

TEST(StagedUpload, WriteBufferReferenceOrdering) {
  // The same sequence through writeBuffer, the behaviour the staged path must match.
  auto ctx = MakeContext(UploadMode::kWrite);
  CheckOrdering(*ctx);
  EXPECT_EQ(ctx->upload_stats().staged_bytes, 0u);
}

TEST(StagedUpload, OneWriteLargerThanThePool) {
  Context& ctx = Staged();
  const size_t n = kUploadPoolBytes + (8 << 20) + 6;  // 3 chunks, more than the pool holds
  auto buf = ctx.CreateBuffer(n + 2, kStorageUsage, "big");
  ASSERT_TRUE(buf.ok()) << buf.error().ToString();
  const std::vector<std::byte> data = Pattern(n, 7);
  const uint64_t staged_before = ctx.upload_stats().staged_bytes;
  ASSERT_TRUE(ctx.Write(*buf, 0, data).ok());
  EXPECT_EQ(ctx.upload_stats().staged_bytes - staged_before, n);
  std::vector<std::byte> got(n);
  ASSERT_TRUE(ctx.Read(*buf, 0, got).ok());
  EXPECT_EQ(std::memcmp(got.data(), data.data(), n), 0);
  EXPECT_EQ(ctx.upload_stats().fallbacks, 0u);
}

TEST(StagedUpload, ManyWritesInOneSubmitWindowExceedThePool) {
  Context& ctx = Staged();
  // 20 x 7 MiB = 140 MiB queued without a wait: more bytes and more buffers than the pool
  // holds, so later writes reuse the staging buffers of earlier copies (waiting for them when
  // they have not run yet).
  const size_t n = (7 << 20) + 4;
  constexpr int kWrites = 20;
  std::vector<Buffer> bufs;
  std::vector<std::vector<std::byte>> datas;
  for (int i = 0; i < kWrites; ++i) {
    auto b = ctx.CreateBuffer(n, kStorageUsage, "many");
    ASSERT_TRUE(b.ok());
    bufs.push_back(std::move(b).value());
    datas.push_back(Pattern(n, 1000 + i));
  }
  const auto before = ctx.upload_stats();
  for (int i = 0; i < kWrites; ++i) ASSERT_TRUE(ctx.Write(bufs[i], 0, datas[i]).ok());
  const auto after = ctx.upload_stats();
  EXPECT_EQ(after.staged_bytes - before.staged_bytes, uint64_t{n} * kWrites);
  // Whether a write had to wait depends on how fast the device ran the earlier copies (on a
  // loaded machine they may all be done in time), so only the bound is checked: the pool
  // (at most 8 buffers) reused its buffers instead of making one per write.
  EXPECT_LE(after.staging_buffers_created - before.staging_buffers_created, kUploadPoolCount);
  for (int i = 0; i < kWrites; ++i) {
    std::vector<std::byte> got(n);
    ASSERT_TRUE(ctx.Read(bufs[i], 0, got).ok());
    EXPECT_EQ(std::memcmp(got.data(), datas[i].data(), n), 0) << "write " << i;
  }
  EXPECT_EQ(ctx.upload_stats().fallbacks, 0u);
}

TEST(StagedUpload, DeviceLossWithPendingStagingIsReported) {
  auto ctx = MakeContext(UploadMode::kStaged);
  auto buf = ctx->CreateBuffer(1 << 20, kStorageUsage, "lost");
  ASSERT_TRUE(buf.ok());
  const std::vector<std::byte> data = Pattern(1 << 20, 3);
  ASSERT_TRUE(ctx->Write(*buf, 0, data).ok());  // leaves a staging buffer remapping
  ctx->DestroyDeviceForTesting();
  auto st = ctx->Write(*buf, 0, data);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, ErrorCode::kDeviceLost);
  // ~Context waits for the pending map (rejected by the loss) before freeing the pool.
}

TEST(StagedUpload, AutoKeepsWriteBufferOnCpuAdaptersAndSmallWrites) {
  auto ctx = MakeContext(UploadMode::kAuto);
  EXPECT_FALSE(ctx->StagesWrite(kStagedUploadMinBytes - 4));
  EXPECT_EQ(ctx->StagesWrite(kStagedUploadMinBytes), ctx->adapter().type != WGPUAdapterType_CPU);
  ctx->set_upload_mode(UploadMode::kStaged);
  EXPECT_TRUE(ctx->StagesWrite(1));
  ctx->set_upload_mode(UploadMode::kWrite);
  EXPECT_FALSE(ctx->StagesWrite(uint64_t{1} << 30));
}

TEST(StagedUpload, UploadModeSwitchIsParsedAndChecked) {
  EXPECT_EQ(ParseUploadMode("write"), UploadMode::kWrite);
  EXPECT_EQ(ParseUploadMode("staged"), UploadMode::kStaged);
  EXPECT_EQ(ParseUploadMode("auto"), UploadMode::kAuto);
  EXPECT_FALSE(ParseUploadMode("Staged").has_value());
  EXPECT_FALSE(ParseUploadMode("").has_value());
  const char* old = std::getenv("ALKNET_UPLOAD");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("ALKNET_UPLOAD", "fast", 1);
  auto bad = Context::Create();
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(bad.error().message.find("ALKNET_UPLOAD='fast'"), std::string::npos);
  ::setenv("ALKNET_UPLOAD", "staged", 1);
  auto good = Context::Create();
  ASSERT_TRUE(good.ok()) << good.error().ToString();
  EXPECT_EQ((*good)->upload_mode(), UploadMode::kStaged);
  if (old != nullptr) {
    ::setenv("ALKNET_UPLOAD", saved.c_str(), 1);
  } else {
    ::unsetenv("ALKNET_UPLOAD");
  }
}

}  // namespace
}  // namespace alknet::webgpu
