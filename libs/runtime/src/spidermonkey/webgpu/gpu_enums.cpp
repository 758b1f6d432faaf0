#include "spidermonkey/webgpu/gpu_enums.h"

#include <iterator>
#include <string>

#include "spidermonkey/webgpu/gpu_common.h"

namespace alknet::runtime::sm::gpu {

// The entry arrays have internal linkage (namespace-scope const); the tables are the extern
// ones gpu_enums.h declares.
#define ALKNET_GPU_ENUM(Var, Idl, ...)            \
  const EnumEntry Var##Entries[] = {__VA_ARGS__}; \
  const EnumTable Var = {Idl, Var##Entries, std::size(Var##Entries)};

ALKNET_GPU_ENUM(
    kTextureFormat, "GPUTextureFormat", {"r8unorm", 0x01}, {"r8snorm", 0x02}, {"r8uint", 0x03},
    {"r8sint", 0x04}, {"r16uint", 0x05}, {"r16sint", 0x06}, {"r16float", 0x07}, {"rg8unorm", 0x08},
    {"rg8snorm", 0x09}, {"rg8uint", 0x0A}, {"rg8sint", 0x0B}, {"r32float", 0x0C}, {"r32uint", 0x0D},
    {"r32sint", 0x0E}, {"rg16uint", 0x0F}, {"rg16sint", 0x10}, {"rg16float", 0x11},
    {"rgba8unorm", 0x12}, {"rgba8unorm-srgb", 0x13}, {"rgba8snorm", 0x14}, {"rgba8uint", 0x15},
    {"rgba8sint", 0x16}, {"bgra8unorm", 0x17}, {"bgra8unorm-srgb", 0x18}, {"rgb10a2uint", 0x19},
    {"rgb10a2unorm", 0x1A}, {"rg11b10ufloat", 0x1B}, {"rgb9e5ufloat", 0x1C}, {"rg32float", 0x1D},
    {"rg32uint", 0x1E}, {"rg32sint", 0x1F}, {"rgba16uint", 0x20}, {"rgba16sint", 0x21},
    {"rgba16float", 0x22}, {"rgba32float", 0x23}, {"rgba32uint", 0x24}, {"rgba32sint", 0x25},
    {"stencil8", 0x26}, {"depth16unorm", 0x27}, {"depth24plus", 0x28},
    {"depth24plus-stencil8", 0x29}, {"depth32float", 0x2A}, {"depth32float-stencil8", 0x2B},
    {"bc1-rgba-unorm", 0x2C}, {"bc1-rgba-unorm-srgb", 0x2D}, {"bc2-rgba-unorm", 0x2E},
    {"bc2-rgba-unorm-srgb", 0x2F}, {"bc3-rgba-unorm", 0x30}, {"bc3-rgba-unorm-srgb", 0x31},
    {"bc4-r-unorm", 0x32}, {"bc4-r-snorm", 0x33}, {"bc5-rg-unorm", 0x34}, {"bc5-rg-snorm", 0x35},
    {"bc6h-rgb-ufloat", 0x36}, {"bc6h-rgb-float", 0x37}, {"bc7-rgba-unorm", 0x38},
    {"bc7-rgba-unorm-srgb", 0x39}, {"etc2-rgb8unorm", 0x3A}, {"etc2-rgb8unorm-srgb", 0x3B},
    {"etc2-rgb8a1unorm", 0x3C}, {"etc2-rgb8a1unorm-srgb", 0x3D}, {"etc2-rgba8unorm", 0x3E},
    {"etc2-rgba8unorm-srgb", 0x3F}, {"eac-r11unorm", 0x40}, {"eac-r11snorm", 0x41},
    {"eac-rg11unorm", 0x42}, {"eac-rg11snorm", 0x43}, {"astc-4x4-unorm", 0x44},
    {"astc-4x4-unorm-srgb", 0x45}, {"astc-5x4-unorm", 0x46}, {"astc-5x4-unorm-srgb", 0x47},
    {"astc-5x5-unorm", 0x48}, {"astc-5x5-unorm-srgb", 0x49}, {"astc-6x5-unorm", 0x4A},
    {"astc-6x5-unorm-srgb", 0x4B}, {"astc-6x6-unorm", 0x4C}, {"astc-6x6-unorm-srgb", 0x4D},
    {"astc-8x5-unorm", 0x4E}, {"astc-8x5-unorm-srgb", 0x4F}, {"astc-8x6-unorm", 0x50},
    {"astc-8x6-unorm-srgb", 0x51}, {"astc-8x8-unorm", 0x52}, {"astc-8x8-unorm-srgb", 0x53},
    {"astc-10x5-unorm", 0x54}, {"astc-10x5-unorm-srgb", 0x55}, {"astc-10x6-unorm", 0x56},
    {"astc-10x6-unorm-srgb", 0x57}, {"astc-10x8-unorm", 0x58}, {"astc-10x8-unorm-srgb", 0x59},
    {"astc-10x10-unorm", 0x5A}, {"astc-10x10-unorm-srgb", 0x5B}, {"astc-12x10-unorm", 0x5C},
    {"astc-12x10-unorm-srgb", 0x5D}, {"astc-12x12-unorm", 0x5E}, {"astc-12x12-unorm-srgb", 0x5F},
    // Dawn's numbers for formats the spec gained later (texture-formats-tier1).
    {"r16unorm", 0x50000}, {"rg16unorm", 0x50001}, {"rgba16unorm", 0x50002}, {"r16snorm", 0x50003},
    {"rg16snorm", 0x50004}, {"rgba16snorm", 0x50005})
ALKNET_GPU_ENUM(kTextureDimension, "GPUTextureDimension", {"1d", 1}, {"2d", 2}, {"3d", 3})
ALKNET_GPU_ENUM(kTextureViewDimension, "GPUTextureViewDimension", {"1d", 1}, {"2d", 2},
                {"2d-array", 3}, {"cube", 4}, {"cube-array", 5}, {"3d", 6})
ALKNET_GPU_ENUM(kTextureAspect, "GPUTextureAspect", {"all", 1}, {"stencil-only", 2},
                {"depth-only", 3})
ALKNET_GPU_ENUM(kAddressMode, "GPUAddressMode", {"clamp-to-edge", 1}, {"repeat", 2},
                {"mirror-repeat", 3})
ALKNET_GPU_ENUM(kFilterMode, "GPUFilterMode", {"nearest", 1}, {"linear", 2})
ALKNET_GPU_ENUM(kMipmapFilterMode, "GPUMipmapFilterMode", {"nearest", 1}, {"linear", 2})
ALKNET_GPU_ENUM(kCompareFunction, "GPUCompareFunction", {"never", 1}, {"less", 2}, {"equal", 3},
                {"less-equal", 4}, {"greater", 5}, {"not-equal", 6}, {"greater-equal", 7},
                {"always", 8})
ALKNET_GPU_ENUM(kVertexFormat, "GPUVertexFormat", {"uint8", 0x01}, {"uint8x2", 0x02},
                {"uint8x4", 0x03}, {"sint8", 0x04}, {"sint8x2", 0x05}, {"sint8x4", 0x06},
                {"unorm8", 0x07}, {"unorm8x2", 0x08}, {"unorm8x4", 0x09}, {"snorm8", 0x0A},
                {"snorm8x2", 0x0B}, {"snorm8x4", 0x0C}, {"uint16", 0x0D}, {"uint16x2", 0x0E},
                {"uint16x4", 0x0F}, {"sint16", 0x10}, {"sint16x2", 0x11}, {"sint16x4", 0x12},
                {"unorm16", 0x13}, {"unorm16x2", 0x14}, {"unorm16x4", 0x15}, {"snorm16", 0x16},
                {"snorm16x2", 0x17}, {"snorm16x4", 0x18}, {"float16", 0x19}, {"float16x2", 0x1A},
                {"float16x4", 0x1B}, {"float32", 0x1C}, {"float32x2", 0x1D}, {"float32x3", 0x1E},
                {"float32x4", 0x1F}, {"uint32", 0x20}, {"uint32x2", 0x21}, {"uint32x3", 0x22},
                {"uint32x4", 0x23}, {"sint32", 0x24}, {"sint32x2", 0x25}, {"sint32x3", 0x26},
                {"sint32x4", 0x27}, {"unorm10-10-10-2", 0x28}, {"unorm8x4-bgra", 0x29})
ALKNET_GPU_ENUM(kVertexStepMode, "GPUVertexStepMode", {"vertex", 1}, {"instance", 2})
ALKNET_GPU_ENUM(kPrimitiveTopology, "GPUPrimitiveTopology", {"point-list", 1}, {"line-list", 2},
                {"line-strip", 3}, {"triangle-list", 4}, {"triangle-strip", 5})
ALKNET_GPU_ENUM(kIndexFormat, "GPUIndexFormat", {"uint16", 1}, {"uint32", 2})
ALKNET_GPU_ENUM(kFrontFace, "GPUFrontFace", {"ccw", 1}, {"cw", 2})
ALKNET_GPU_ENUM(kCullMode, "GPUCullMode", {"none", 1}, {"front", 2}, {"back", 3})
ALKNET_GPU_ENUM(kStencilOperation, "GPUStencilOperation", {"keep", 1}, {"zero", 2}, {"replace", 3},
                {"invert", 4}, {"increment-clamp", 5}, {"decrement-clamp", 6},
                {"increment-wrap", 7}, {"decrement-wrap", 8})
ALKNET_GPU_ENUM(kBlendOperation, "GPUBlendOperation", {"add", 1}, {"subtract", 2},
                {"reverse-subtract", 3}, {"min", 4}, {"max", 5})
ALKNET_GPU_ENUM(kBlendFactor, "GPUBlendFactor", {"zero", 1}, {"one", 2}, {"src", 3},
                {"one-minus-src", 4}, {"src-alpha", 5}, {"one-minus-src-alpha", 6}, {"dst", 7},
                {"one-minus-dst", 8}, {"dst-alpha", 9}, {"one-minus-dst-alpha", 10},
                {"src-alpha-saturated", 11}, {"constant", 12}, {"one-minus-constant", 13},
                {"src1", 14}, {"one-minus-src1", 15}, {"src1-alpha", 16},
                {"one-minus-src1-alpha", 17})
ALKNET_GPU_ENUM(kLoadOp, "GPULoadOp", {"load", 1}, {"clear", 2})
ALKNET_GPU_ENUM(kStoreOp, "GPUStoreOp", {"store", 1}, {"discard", 2})
ALKNET_GPU_ENUM(kQueryType, "GPUQueryType", {"occlusion", 1}, {"timestamp", 2})
ALKNET_GPU_ENUM(kSamplerBindingType, "GPUSamplerBindingType", {"filtering", 2},
                {"non-filtering", 3}, {"comparison", 4})
ALKNET_GPU_ENUM(kTextureSampleType, "GPUTextureSampleType", {"float", 2}, {"unfilterable-float", 3},
                {"depth", 4}, {"sint", 5}, {"uint", 6})
ALKNET_GPU_ENUM(kStorageTextureAccess, "GPUStorageTextureAccess", {"write-only", 2},
                {"read-only", 3}, {"read-write", 4})
ALKNET_GPU_ENUM(kBufferBindingType, "GPUBufferBindingType", {"uniform", 2}, {"storage", 3},
                {"read-only-storage", 4})
#undef ALKNET_GPU_ENUM

bool ToEnum(JSContext* cx, JS::HandleValue v, const EnumTable& table, std::string_view what,
            uint32_t* out) {
  std::string s;
  if (!ValueToUtf8(cx, v, &s)) return false;
  for (size_t i = 0; i < table.count; ++i) {
    if (table.entries[i].name == s) {
      *out = table.entries[i].value;
      return true;
    }
  }
  return ThrowTypeError(cx, std::string(what) + ": '" + s + "' is not a valid " + table.idl_name);
}

bool OptionalEnum(JSContext* cx, JS::HandleObject dict, const char* name, const EnumTable& table,
                  std::string_view what, uint32_t fallback, uint32_t* out, bool* present) {
  JS::RootedValue v(cx);
  bool has;
  if (!Member(cx, dict, name, &v, &has)) return false;
  if (present) *present = has;
  if (!has) {
    *out = fallback;
    return true;
  }
  return ToEnum(cx, v, table, std::string(what) + "." + name, out);
}

std::string_view EnumName(const EnumTable& table, uint32_t value) {
  for (size_t i = 0; i < table.count; ++i) {
    if (table.entries[i].value == value) return table.entries[i].name;
  }
  return {};
}

}  // namespace alknet::runtime::sm::gpu
