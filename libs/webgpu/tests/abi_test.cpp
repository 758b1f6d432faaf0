// Checks our webgpu.h declarations against the loaded library's behaviour, beyond what the
// static_asserts in webgpu_abi.h can see.
#include <cstring>
#include <string>

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
  EXPECT_EQ(limits.minStorageBufferOffsetAlignment & (limits.minStorageBufferOffsetAlignment - 1),
            0u);
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

TEST(Abi, TextureDescriptorFieldsReachTheLibrary) {
  // Every field of WGPUTextureDescriptor at a distinct value, read back through the getters:
  // a field at the wrong offset comes back as some other field's value (or fails validation).
  Context& ctx = SharedContext();
  WGPUTextureDescriptor desc{};
  desc.usage = WGPUTextureUsage_CopyDst | WGPUTextureUsage_TextureBinding;
  desc.dimension = 2;  // 2d
  desc.size = {12, 7, 3};
  desc.format = WGPUTextureFormat_RGBA8Unorm;
  desc.mipLevelCount = 2;
  desc.sampleCount = 1;
  P().DevicePushErrorScope(ctx.device(), WGPUErrorFilter_Validation);
  Texture texture = Texture::Adopt(P().DeviceCreateTexture(ctx.device(), &desc));
  ASSERT_TRUE(texture);
  EXPECT_EQ(P().TextureGetWidth(texture.get()), 12u);
  EXPECT_EQ(P().TextureGetHeight(texture.get()), 7u);
  EXPECT_EQ(P().TextureGetDepthOrArrayLayers(texture.get()), 3u);
  EXPECT_EQ(P().TextureGetMipLevelCount(texture.get()), 2u);
  EXPECT_EQ(P().TextureGetSampleCount(texture.get()), 1u);
  EXPECT_EQ(P().TextureGetDimension(texture.get()), 2u);
  EXPECT_EQ(P().TextureGetFormat(texture.get()), WGPUTextureFormat_RGBA8Unorm);
  EXPECT_EQ(P().TextureGetUsage(texture.get()), desc.usage);
  // A view of one mip level and two layers through WGPUTextureViewDescriptor.
  WGPUTextureViewDescriptor view_desc{};
  view_desc.dimension = 3;  // 2d-array
  view_desc.baseMipLevel = 1;
  view_desc.mipLevelCount = 1;
  view_desc.baseArrayLayer = 1;
  view_desc.arrayLayerCount = 2;
  view_desc.aspect = 1;  // all
  TextureView view = TextureView::Adopt(P().TextureCreateView(texture.get(), &view_desc));
  EXPECT_TRUE(view);
  WGPUQuerySetDescriptor query_desc{};
  query_desc.type = WGPUQueryType_Occlusion;
  query_desc.count = 5;
  QuerySet queries = QuerySet::Adopt(P().DeviceCreateQuerySet(ctx.device(), &query_desc));
  EXPECT_EQ(P().QuerySetGetType(queries.get()), WGPUQueryType_Occlusion);
  EXPECT_EQ(P().QuerySetGetCount(queries.get()), 5u);
  struct Popped {
    bool done = false;
    WGPUErrorType type = WGPUErrorType_Unknown;
    std::string message;
  } popped;
  WGPUPopErrorScopeCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = [](WGPUPopErrorScopeStatus, WGPUErrorType type, WGPUStringView message, void* ud,
                   void*) {
    auto* p = static_cast<Popped*>(ud);
    p->done = true;
    p->type = type;
    p->message = std::string(FromSv(message));
  };
  cb.userdata1 = &popped;
  P().DevicePopErrorScope(ctx.device(), cb);
  for (int i = 0; i < 1000 && !popped.done; ++i) P().InstanceProcessEvents(ctx.instance());
  ASSERT_TRUE(popped.done);
  EXPECT_EQ(popped.type, WGPUErrorType_NoError) << popped.message;
}

TEST(Abi, StandardFeatureNames) {
  EXPECT_EQ(FeatureName(WGPUFeatureName_ShaderF16), "shader-f16");
  EXPECT_EQ(FeatureName(WGPUFeatureName_Subgroups), "subgroups");
  EXPECT_EQ(FeatureName(WGPUFeatureName_TimestampQuery), "timestamp-query");
  EXPECT_EQ(FeatureName(static_cast<WGPUFeatureName>(0x50002)), "dawn-0x50002");
}

}  // namespace
}  // namespace alknet::webgpu
