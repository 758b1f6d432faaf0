// ALKNET_DAWN_TOGGLES / ALKNET_DAWN_ADAPTER_TOGGLES parsing and the chained descriptor.
#include <string>

#include <gtest/gtest.h>

#include "alknet/webgpu/dawn_toggles.h"

namespace alknet::webgpu {
namespace {

TEST(DawnToggles, NamesEnableAndDashesDisable) {
  auto l = ParseDawnToggles("disable_robustness,-vulkan_use_storage_input_output_16,,a1_b", "X");
  ASSERT_TRUE(l.ok()) << l.error().ToString();
  EXPECT_EQ(l->enabled, (std::vector<std::string>{"disable_robustness", "a1_b"}));
  EXPECT_EQ(l->disabled, (std::vector<std::string>{"vulkan_use_storage_input_output_16"}));
  EXPECT_FALSE(l->empty());
  auto e = ParseDawnToggles(",,", "X");
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->empty());
}

TEST(DawnToggles, BadNamesAreErrorsNamingTheVariable) {
  for (const char* spec : {"-", "Disable", "a b", "x;y", "-\xff", "a,-,b"}) {
    auto l = ParseDawnToggles(spec, "ALKNET_DAWN_TOGGLES");
    ASSERT_FALSE(l.ok()) << spec;
    EXPECT_NE(l.error().message.find("ALKNET_DAWN_TOGGLES"), std::string::npos) << spec;
  }
  std::string many;
  for (int i = 0; i < 65; ++i) many += "t" + std::to_string(i) + ",";
  EXPECT_FALSE(ParseDawnToggles(many, "X").ok());
  EXPECT_FALSE(ParseDawnToggles(std::string(200, 'a'), "X").ok());
}

TEST(DawnToggles, ChainPointsAtTheNames) {
  auto l = ParseDawnToggles("a,-b,-c", "X");
  ASSERT_TRUE(l.ok());
  DawnTogglesChain chain(*l);
  WGPUChainedStruct next{};
  WGPUChainedStruct* c = chain.chain(&next);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(static_cast<uint32_t>(c->sType), 0x0005000Au);
  EXPECT_EQ(c->next, &next);
  struct Layout {  // Dawn's DawnTogglesDescriptor
    WGPUChainedStruct chain;
    size_t enabled_count;
    const char* const* enabled;
    size_t disabled_count;
    const char* const* disabled;
  };
  const auto* d = reinterpret_cast<const Layout*>(c);
  ASSERT_EQ(d->enabled_count, 1u);
  EXPECT_STREQ(d->enabled[0], "a");
  ASSERT_EQ(d->disabled_count, 2u);
  EXPECT_STREQ(d->disabled[1], "c");
  DawnTogglesChain none(DawnToggleList{});
  EXPECT_EQ(none.chain(), nullptr);
}

}  // namespace
}  // namespace alknet::webgpu
