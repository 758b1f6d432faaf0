#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "test_context.h"

namespace alknet::webgpu {
namespace {

using testing::SharedContext;

std::span<const std::byte> Bytes(const std::vector<float>& v) {
  return std::as_bytes(std::span(v));
}

constexpr const char* kSaxpy = R"(
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) n: vec3u) {
  let i = gid.x + gid.y * n.x * 64u;
  if (i >= arrayLength(&y)) { return; }
  y[i] = 2.5 * x[i] + sin(y[i]);
}
)";

TEST(Context, DispatchOddLengthMatchesFloat64Reference) {
  Context& ctx = SharedContext();
  const uint32_t seed = std::random_device{}();
  std::printf("[ seed     ] %u\n", seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  const size_t n = 100003;  // odd, not a multiple of the workgroup size
  std::vector<float> x(n), y(n);
  for (auto& v : x) v = dist(rng);
  for (auto& v : y) v = dist(rng);

  auto xb = ctx.CreateBuffer(n * 4, kStorageUsage, "x");
  auto yb = ctx.CreateBuffer(n * 4, kStorageUsage, "y");
  ASSERT_TRUE(xb.ok() && yb.ok());
  ASSERT_TRUE(ctx.Write(*xb, 0, Bytes(x)).ok());
  ASSERT_TRUE(ctx.Write(*yb, 0, Bytes(y)).ok());
  auto kernel = ctx.GetKernel({.wgsl = kSaxpy,
                               .bindings = {BindingType::kReadOnlyStorage, BindingType::kStorage},
                               .label = "saxpy"});
  ASSERT_TRUE(kernel.ok()) << kernel.error().ToString();
  auto grid = ctx.GridFor(n, 64);
  ASSERT_TRUE(grid.ok());
  Recorder rec = ctx.BeginCommands();
  const BufferBinding bindings[] = {{&*xb}, {&*yb}};
  ASSERT_TRUE(rec.Dispatch(**kernel, bindings, *grid).ok());
  ASSERT_TRUE(ctx.Submit(std::move(rec)).ok());

  std::vector<float> out(n, std::nanf(""));  // poisoned: an unwritten element cannot pass
  ASSERT_TRUE(ctx.Read(*yb, 0, std::as_writable_bytes(std::span(out))).ok());
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const double ref = 2.5 * double(x[i]) + std::sin(double(y[i]));
    if (!(std::fabs(out[i] - ref) <= 1e-5 + 1e-5 * std::fabs(ref))) {
      if (bad++ < 5) ADD_FAILURE() << "element " << i << ": got " << out[i] << ", want " << ref;
    }
  }
  EXPECT_EQ(bad, 0u);
  EXPECT_TRUE(ctx.TakeUncapturedErrors().empty());
}

TEST(Context, PipelineCacheReturnsSameKernelForSameKey) {
  Context& ctx = SharedContext();
  const KernelSpec spec{.wgsl = kSaxpy,
                        .bindings = {BindingType::kReadOnlyStorage, BindingType::kStorage},
                        .label = "saxpy"};
  auto a = ctx.GetKernel(spec);
  const size_t count = ctx.cached_kernel_count();
  auto b = ctx.GetKernel(spec);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(ctx.cached_kernel_count(), count);
  KernelSpec auto_layout = spec;
  auto_layout.bindings.clear();  // a different layout is a different pipeline
  auto c = ctx.GetKernel(auto_layout);
  ASSERT_TRUE(c.ok()) << c.error().ToString();
  EXPECT_NE(*a, *c);
  EXPECT_EQ(ctx.cached_kernel_count(), count + 1);
}

TEST(Context, InvalidWgslNamesLineAndColumn) {
  Context& ctx = SharedContext();
  const char* bad =
      "@compute @workgroup_size(1)\n"
      "fn main() {\n"
      "  let a: f32 = undefined_thing + 1.0;\n"
      "}\n";
  auto m = ctx.CompileWgsl(bad, "bad.wgsl");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, ErrorCode::kShaderCompilation);
  EXPECT_NE(m.error().message.find("bad.wgsl:3:"), std::string::npos) << m.error().message;
  EXPECT_NE(m.error().message.find("undefined_thing"), std::string::npos) << m.error().message;
  // The pipeline path reports the same error instead of caching a broken pipeline.
  auto k = ctx.GetKernel({.wgsl = bad, .label = "bad.wgsl"});
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.error().code, ErrorCode::kShaderCompilation);
}

TEST(Context, ReadsBack256MiB) {
  Context& ctx = SharedContext();
  const size_t n = size_t{256} << 20;
  std::vector<uint32_t> data(n / 4);
  std::mt19937 rng(std::random_device{}());
  for (auto& v : data) v = rng();
  auto buf = ctx.CreateBuffer(n, kStorageUsage, "big");
  ASSERT_TRUE(buf.ok()) << buf.error().ToString();
  // Upload in 64 MiB slices so the queue's staging stays bounded.
  const auto bytes = std::as_bytes(std::span(data));
  for (size_t off = 0; off < n; off += size_t{64} << 20) {
    ASSERT_TRUE(ctx.Write(*buf, off, bytes.subspan(off, size_t{64} << 20)).ok());
  }
  std::vector<uint32_t> out(n / 4, 0xDEADBEEF);
  auto read = ctx.Read(*buf, 0, std::as_writable_bytes(std::span(out)));
  ASSERT_TRUE(read.ok()) << read.error().ToString();
  EXPECT_TRUE(std::memcmp(out.data(), data.data(), n) == 0);
}

TEST(Context, ReadOfUnalignedTailAndOffset) {
  Context& ctx = SharedContext();
  std::vector<std::byte> data(37);
  for (size_t i = 0; i < data.size(); ++i) data[i] = std::byte(i * 7 + 1);
  auto buf = ctx.CreateBuffer(data.size(), kStorageUsage, "tail");
  ASSERT_TRUE(buf.ok());
  EXPECT_EQ(buf->size, 40u);
  ASSERT_TRUE(ctx.Write(*buf, 0, data).ok());
  std::vector<std::byte> out(29);
  ASSERT_TRUE(ctx.Read(*buf, 8, out).ok());
  EXPECT_TRUE(std::equal(out.begin(), out.end(), data.begin() + 8));
  auto misaligned = ctx.Read(*buf, 2, out);
  ASSERT_FALSE(misaligned.ok());
  EXPECT_EQ(misaligned.error().code, ErrorCode::kInvalidArgument);
}

// Several reads in one submit and one map, packed into one staging buffer: ragged lengths and
// offsets, a read of nothing, and, with the caller's commands, a copy recorded before the
// reads that they must see (work and read-back in one submit). Compared with the host bytes
// written.
TEST(Context, ReadManyInOneSubmitMatchesTheWrittenBytes) {
  Context& ctx = SharedContext();
  auto pattern = [](size_t n, int seed) {
    std::vector<std::byte> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = std::byte(static_cast<uint8_t>(i * 31 + seed * 17 + 3));
    return v;
  };
  const std::vector<std::byte> a = pattern(37, 1), b = pattern(4100, 2), c = pattern(8, 3);
  auto ba = ctx.CreateBuffer(a.size(), kStorageUsage, "a");
  auto bb = ctx.CreateBuffer(b.size(), kStorageUsage, "b");
  auto bc = ctx.CreateBuffer(c.size(), kStorageUsage, "c");
  auto bd = ctx.CreateBuffer(b.size(), kStorageUsage, "d");
  ASSERT_TRUE(ba.ok() && bb.ok() && bc.ok() && bd.ok());
  ASSERT_TRUE(ctx.Write(*ba, 0, a).ok());
  ASSERT_TRUE(ctx.Write(*bb, 0, b).ok());
  ASSERT_TRUE(ctx.Write(*bc, 0, c).ok());
  std::vector<std::byte> oa(29), ob(4100 - 12), oc(8), none;
  std::vector<Context::ReadRequest> reads = {
      {&*ba, 8, oa}, {&*bb, 12, ob}, {&*bc, 4, none}, {&*bc, 0, oc}};
  ASSERT_TRUE(ctx.ReadMany(reads).ok());
  EXPECT_TRUE(std::equal(oa.begin(), oa.end(), a.begin() + 8));
  EXPECT_TRUE(std::equal(ob.begin(), ob.end(), b.begin() + 12));
  EXPECT_TRUE(std::equal(oc.begin(), oc.end(), c.begin()));

  // d is filled by a copy in the caller's commands; the read of d in the same submit sees it.
  Recorder rec = ctx.BeginCommands("copy then read");
  rec.Copy(*bb, 0, *bd, 0, bd->size);
  std::vector<std::byte> od(b.size());
  std::vector<Context::ReadRequest> after = {{&*bd, 0, od}, {&*ba, 0, oa}};
  ASSERT_TRUE(ctx.ReadMany(after, std::move(rec)).ok());
  EXPECT_TRUE(od == b);
  EXPECT_TRUE(std::equal(oa.begin(), oa.end(), a.begin()));

  // A bad request is an error, and the caller's commands still run.
  Recorder again = ctx.BeginCommands("copy, bad read");
  again.Copy(*bc, 0, *bd, 0, 8);
  std::vector<Context::ReadRequest> bad = {{&*ba, 2, oc}};
  auto refused = ctx.ReadMany(bad, std::move(again));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kInvalidArgument);
  std::vector<std::byte> head(8);
  ASSERT_TRUE(ctx.Read(*bd, 0, head).ok());
  EXPECT_TRUE(head == c);
}

TEST(Context, OversizeDispatchNamesTheLimit) {
  Context& ctx = SharedContext();
  auto kernel = ctx.GetKernel({.wgsl = kSaxpy,
                               .bindings = {BindingType::kReadOnlyStorage, BindingType::kStorage},
                               .label = "saxpy"});
  ASSERT_TRUE(kernel.ok());
  auto buf = ctx.CreateBuffer(64, kStorageUsage, "small");
  ASSERT_TRUE(buf.ok());
  Recorder rec = ctx.BeginCommands();
  const BufferBinding bindings[] = {{&*buf}, {&*buf}};
  auto s =
      rec.Dispatch(**kernel, bindings, {ctx.limits().maxComputeWorkgroupsPerDimension + 1, 1, 1});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("maxComputeWorkgroupsPerDimension"), std::string::npos);
  // GridFor spreads the same work over two dimensions instead.
  auto grid = ctx.GridFor(uint64_t{ctx.limits().maxComputeWorkgroupsPerDimension + 1} * 64, 64);
  ASSERT_TRUE(grid.ok());
  EXPECT_EQ(grid->y, 2u);
  auto too_big = ctx.CreateBuffer(ctx.limits().maxBufferSize + 1, kStorageUsage, "huge");
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(too_big.error().message.find("maxBufferSize"), std::string::npos);
}

TEST(Context, ValidationErrorIsReportedNotThrown) {
  Context& ctx = SharedContext();
  auto kernel = ctx.GetKernel({.wgsl = kSaxpy,
                               .bindings = {BindingType::kReadOnlyStorage, BindingType::kStorage},
                               .label = "saxpy"});
  ASSERT_TRUE(kernel.ok());
  auto a = ctx.CreateBuffer(64, kStorageUsage, "a");
  ASSERT_TRUE(a.ok());
  Recorder rec = ctx.BeginCommands();
  // Binding the same buffer read-only and read-write in one dispatch is a validation error.
  const BufferBinding bindings[] = {{&*a}, {&*a}};
  ASSERT_TRUE(rec.Dispatch(**kernel, bindings, {1, 1, 1}).ok());
  auto s = ctx.Submit(std::move(rec));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kValidation) << s.error().ToString();
  EXPECT_FALSE(ctx.lost());
}

TEST(Context, DeviceLossIsReportedNotACrash) {
  auto created = Context::Create();
  ASSERT_TRUE(created.ok());
  Context& ctx = **created;
  auto buf = ctx.CreateBuffer(64, kStorageUsage, "before");
  ASSERT_TRUE(buf.ok());
  ctx.DestroyDeviceForTesting();
  EXPECT_TRUE(ctx.lost());
  auto after = ctx.CreateBuffer(64, kStorageUsage, "after");
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.error().code, ErrorCode::kDeviceLost);
  std::vector<std::byte> out(64);
  auto read = ctx.Read(*buf, 0, out);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().code, ErrorCode::kDeviceLost);
}

TEST(Context, AdapterSelectionByNameAndIndex) {
  auto by_index = Context::Create({.adapter = "0"});
  ASSERT_TRUE(by_index.ok());
  const std::string name = (*by_index)->adapter().device;
  auto by_name = Context::Create({.adapter = name.substr(0, 4)});
  ASSERT_TRUE(by_name.ok()) << by_name.error().ToString();
  EXPECT_EQ((*by_name)->adapter().device, name);
  auto missing = Context::Create({.adapter = "no-such-adapter-xyz"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNoAdapter);
  EXPECT_NE(missing.error().message.find(name), std::string::npos)
      << "the error lists the adapters there are: " << missing.error().message;
}

TEST(Context, RequestsAdapterMaximumLimits) {
  Context& ctx = SharedContext();
  EXPECT_EQ(ctx.limits().maxStorageBufferBindingSize,
            ctx.adapter().limits.maxStorageBufferBindingSize);
  EXPECT_EQ(ctx.limits().maxBufferSize, ctx.adapter().limits.maxBufferSize);
  EXPECT_EQ(ctx.limits().maxComputeInvocationsPerWorkgroup,
            ctx.adapter().limits.maxComputeInvocationsPerWorkgroup);
}

}  // namespace
}  // namespace alknet::webgpu

namespace alknet::webgpu {
namespace {
TEST(Context, WaitIdleAfterWorkAndWhenIdle) {
  Context& ctx = testing::SharedContext();
  EXPECT_TRUE(ctx.WaitIdle().ok());  // nothing submitted
  auto buf = ctx.CreateBuffer(1024, kStorageUsage, "idle");
  ASSERT_TRUE(buf.ok());
  Recorder rec = ctx.BeginCommands();
  rec.Clear(*buf, 0, 1024);
  ctx.SubmitUnchecked(std::move(rec));
  auto s = ctx.WaitIdle();
  EXPECT_TRUE(s.ok()) << s.error().ToString();
}
}  // namespace
}  // namespace alknet::webgpu
