// A minimal PNG writer for screenshots: 8-bit RGBA, filter 0, zlib "stored" blocks (no
// compression, no dependency). PNG: https://www.w3.org/TR/png-3/
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace alknet::desktop {

// `rgba` holds height rows of width * 4 bytes.
std::vector<uint8_t> EncodePng(uint32_t width, uint32_t height, std::span<const uint8_t> rgba);

}  // namespace alknet::desktop
