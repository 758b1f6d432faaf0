// Checks our webgpu.h declarations against the loaded library's behaviour, beyond what the
// static_asserts in webgpu_abi.h can see.
#include <cstring>

#include "test_context.h"

namespace alknet::webgpu {
namespace {

using testing::SharedContext;

TEST(Abi, LimitsStructIsExactlyWhatTheLibraryWrites) {
  Context& ctx = SharedContext();
  alignas(8) unsigned char buf[512];
  std::memset(buf, 0xAB, sizeof buf);
  std::memset(buf, 0, 8);  // nextInChain = nullptr
  ASSERT_EQ(P().AdapterGetLimits(ctx.adapter_handle(), reinterpret_cast<WGPULimits*>(buf)),
            WGPUStatus_Success);
  size_t written = 0;
  for (size_t i = 0; i < sizeof buf; ++i) {
    if (buf[i] != 0xAB) written = i + 1;
  }
  EXPECT_EQ(written, sizeof(WGPULimits));
  WGPULimits limits;
  std::memcpy(&limits, buf, sizeof limits);
  // Values every WebGPU adapter must meet (spec defaults), at the offsets we declared.
  EXPECT_GE(limits.maxBindGroups, 4u);
  EXPECT_GE(limits.maxStorageBufferBindingSize, uint64_t{128} << 20);
  EXPECT_GE(limits.maxBufferSize, uint64_t{256} << 20);
  EXPECT_GE(limits.maxComputeWorkgroupsPerDimension, 65535u);
  EXPECT_GE(limits.maxComputeInvocationsPerWorkgroup, 256u);
  EXPECT_EQ(limits.minStorageBufferOffsetAlignment & (limits.minStorageBufferOffsetAlignment - 1), 0u);
}

TEST(Abi, InstanceCapabilitiesReportTimedWaitAny) {
  ASSERT_TRUE(LoadProcs().ok());
  WGPUInstanceCapabilities caps{};
  ASSERT_EQ(P().GetInstanceCapabilities(&caps), WGPUStatus_Success);
  EXPECT_EQ(caps.timedWaitAnyEnable, 1u);
  EXPECT_GE(caps.timedWaitAnyMaxCount, 1u);
}

TEST(Abi, FeatureNumberingMatchesWgslEnables) {
  // A wrong feature number would enable some other feature, and `enable f16;` would fail.
  Context& ctx = SharedContext();
  if (!P().AdapterHasFeature(ctx.adapter_handle(), WGPUFeatureName_ShaderF16)) {
    GTEST_SKIP() << "adapter " << ctx.adapter().Summary() << " lacks shader-f16";
  }
  ASSERT_TRUE(ctx.HasFeature(WGPUFeatureName_ShaderF16));
  auto m = ctx.CompileWgsl(
      "enable f16;\n@compute @workgroup_size(1) fn main() { var x: f16 = 1.0h; _ = x; }\n", "f16");
  EXPECT_TRUE(m.ok()) << m.error().ToString();
  if (ctx.HasFeature(WGPUFeatureName_Subgroups)) {
    auto s = ctx.CompileWgsl(
        "enable subgroups;\n@compute @workgroup_size(32) fn main(@builtin(subgroup_size) n: u32) "
        "{ _ = n; }\n",
        "subgroups");
    EXPECT_TRUE(s.ok()) << s.error().ToString();
  }
}

TEST(Abi, StandardFeatureNames) {
  EXPECT_EQ(FeatureName(WGPUFeatureName_ShaderF16), "shader-f16");
  EXPECT_EQ(FeatureName(WGPUFeatureName_Subgroups), "subgroups");
  EXPECT_EQ(FeatureName(WGPUFeatureName_TimestampQuery), "timestamp-query");
  EXPECT_EQ(FeatureName(static_cast<WGPUFeatureName>(0x50002)), "dawn-0x50002");
}

}  // namespace
}  // namespace alknet::webgpu
