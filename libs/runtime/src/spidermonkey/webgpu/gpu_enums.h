// The spec's enum strings and their webgpu.h numbers (webgpu-headers f2c7b3a, the revision
// the pinned Dawn implements). WebIDL: an enum argument is converted with ToString and a
// string outside the enum is a TypeError.
#pragma once

#include <string_view>

#include "spidermonkey/sm.h"

namespace alknet::runtime::sm::gpu {

struct EnumEntry {
  std::string_view name;
  uint32_t value;
};
struct EnumTable {
  const char* idl_name;  // for messages: "GPUTextureFormat"
  const EnumEntry* entries;
  size_t count;
};

extern const EnumTable kTextureFormat, kTextureDimension, kTextureViewDimension, kTextureAspect,
    kAddressMode, kFilterMode, kMipmapFilterMode, kCompareFunction, kVertexFormat, kVertexStepMode,
    kPrimitiveTopology, kIndexFormat, kFrontFace, kCullMode, kStencilOperation, kBlendOperation,
    kBlendFactor, kLoadOp, kStoreOp, kQueryType, kSamplerBindingType, kTextureSampleType,
    kStorageTextureAccess, kBufferBindingType;

// Converts `v` (ToString) and looks it up; TypeError naming `what` and the enum otherwise.
bool ToEnum(JSContext* cx, JS::HandleValue v, const EnumTable& table, std::string_view what,
            uint32_t* out);
// dict[name] as an enum, or `fallback` when absent. `present` (optional) reports presence.
bool OptionalEnum(JSContext* cx, JS::HandleObject dict, const char* name, const EnumTable& table,
                  std::string_view what, uint32_t fallback, uint32_t* out, bool* present = nullptr);
// The spec string of a number ("" if the table lacks it).
std::string_view EnumName(const EnumTable& table, uint32_t value);

}  // namespace alknet::runtime::sm::gpu
