#include <gtest/gtest.h>

#include "alknet/webgpu/procs.h"

namespace alknet::webgpu {
namespace {

TEST(Loader, MissingLibraryGivesActionableError) {
  auto r = LoadProcsFrom("/nonexistent/libwebgpu_wrapper.so");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kLibraryNotFound);
  EXPECT_NE(r.error().message.find("/nonexistent/libwebgpu_wrapper.so"), std::string::npos);
  EXPECT_NE(r.error().message.find("scripts/setup"), std::string::npos);
  EXPECT_NE(r.error().message.find("ALKNET_WEBGPU_LIBRARY"), std::string::npos);
}

TEST(Loader, LibraryWithoutWebGpuSymbolsIsRejected) {
  // libm is a real shared library that implements none of webgpu.h.
  auto r = LoadProcsFrom("libm.so.6");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kSymbolMissing);
  EXPECT_NE(r.error().message.find("wgpuCreateInstance"), std::string::npos);
}

TEST(Loader, EnvironmentVariableChoosesTheLibrary) {
  ::setenv("ALKNET_WEBGPU_LIBRARY", "/opt/other/libwebgpu.so", 1);
  EXPECT_EQ(WebGpuLibraryPath(), "/opt/other/libwebgpu.so");
  ::unsetenv("ALKNET_WEBGPU_LIBRARY");
  EXPECT_NE(WebGpuLibraryPath().find("libwebgpu_wrapper.so"), std::string::npos);
}

}  // namespace
}  // namespace alknet::webgpu
