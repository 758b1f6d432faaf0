#include "npy.h"

#include <algorithm>

namespace alknet::cli::npy {

namespace {

namespace at = alknet::tensor;

struct DescrEntry {
  std::string_view descr;
  at::DType dtype;
};
constexpr DescrEntry kDescrs[] = {
    {"|b1", at::DType::kBool},      {"|i1", at::DType::kI8},         {"<i2", at::DType::kI16},
    {"<i4", at::DType::kI32},       {"<i8", at::DType::kI64},        {"|u1", at::DType::kU8},
    {"<u2", at::DType::kU16},       {"<u4", at::DType::kU32},        {"<u8", at::DType::kU64},
    {"<f2", at::DType::kF16},       {"<f4", at::DType::kF32},        {"<f8", at::DType::kF64},
    {"<c8", at::DType::kComplex64}, {"<c16", at::DType::kComplex128},
};

uint64_t Le(std::string_view s, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t{static_cast<uint8_t>(s[i])} << (8 * i);
  return v;
}

constexpr uint64_t kMaxHeader = uint64_t{1} << 20;

}  // namespace

std::optional<std::string_view> Descr(at::DType dtype) {
  for (const auto& e : kDescrs) {
    if (e.dtype == dtype) return e.descr;
  }
  return std::nullopt;
}

std::variant<Header, std::string> ParseHeader(const ReadFn& read, uint64_t size) {
  const auto head = read(0, std::min<uint64_t>(size, 12));
  if (!head || head->size() < 10) return std::string("too short for a .npy header");
  if (head->compare(0, 6, "\x93NUMPY") != 0) return std::string("not a .npy file (bad magic)");
  const int major = static_cast<uint8_t>((*head)[6]);
  uint64_t hlen, hstart;
  if (major == 1) {
    hlen = Le(std::string_view(*head).substr(8), 2);
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (head->size() < 12) return std::string("truncated .npy header");
    hlen = Le(std::string_view(*head).substr(8), 4);
    hstart = 12;
  } else {
    return ".npy version " + std::to_string(major) + " is not supported";
  }
  if (hlen > size - hstart || hlen > kMaxHeader) return std::string("header runs past the data");
  const auto text = read(hstart, hlen);
  if (!text) return std::string("truncated .npy header");
  const std::string& h = *text;

  // The header is a Python dict literal; numpy writes 'descr', 'fortran_order' and 'shape'.
  std::string error;
  auto value_of = [&](const std::string& key) -> std::optional<std::string> {
    const auto k = h.find("'" + key + "'");
    if (k == std::string::npos) {
      error = "header lacks '" + key + "'";
      return std::nullopt;
    }
    const auto colon = h.find(':', k);
    const size_t v = colon == std::string::npos ? colon : h.find_first_not_of(' ', colon + 1);
    if (v == std::string::npos) {
      error = "malformed header";
      return std::nullopt;
    }
    const char close = h[v] == '\'' ? '\'' : h[v] == '(' ? ')' : '\0';
    if (close != '\0') {
      const auto end = h.find(close, v + 1);
      if (end == std::string::npos) {
        error = "malformed header";
        return std::nullopt;
      }
      return h.substr(v + 1, end - v - 1);
    }
    const auto end = h.find_first_of(",}", v);
    return h.substr(v, end == std::string::npos ? std::string::npos : end - v);
  };
  auto descr = value_of("descr");
  if (!descr) return error;
  auto fortran = value_of("fortran_order");
  if (!fortran) return error;
  if (*fortran != "False") {
    return std::string("Fortran-ordered arrays are not supported (save with np.ascontiguousarray)");
  }
  const auto entry = std::find_if(std::begin(kDescrs), std::end(kDescrs),
                                  [&](const DescrEntry& e) { return e.descr == *descr; });
  if (entry == std::end(kDescrs)) {
    return "numpy dtype '" + *descr +
           "' has no metatensor equivalent (big-endian, object or structured arrays are not "
           "supported)";
  }
  Header out{entry->dtype, *descr, {}, hstart + hlen, 0};
  auto shape = value_of("shape");
  if (!shape) return error;
  size_t pos = 0;
  while (pos < shape->size()) {
    const size_t comma = shape->find(',', pos);
    std::string item = shape->substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
    if (!item.empty()) {
      if (item.find_first_not_of("0123456789") != std::string::npos || item.size() > 19) {
        return "bad shape entry '" + item + "'";
      }
      out.shape.push_back(std::stoull(item));
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  auto bytes = at::ByteLength(out.dtype, out.shape);
  if (!bytes) return bytes.error().message();
  out.data_bytes = *bytes;
  if (out.data_bytes != size - out.data_offset) {
    return "data is " + std::to_string(size - out.data_offset) + " bytes, the shape needs " +
           std::to_string(out.data_bytes) + " of " + out.descr;
  }
  return out;
}

std::string MakePreamble(std::string_view descr, std::span<const uint64_t> shape) {
  std::string dims = "(";
  for (size_t i = 0; i < shape.size(); ++i) dims += std::to_string(shape[i]) + ",";
  if (shape.size() > 1) dims.pop_back();
  dims += ")";
  std::string header =
      "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + dims + ", }";
  // Version 1.0: the header, padded with spaces and ended by \n, makes the data 64-byte aligned.
  const size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
  header.append(total - 10 - header.size() - 1, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header;
}

}  // namespace alknet::cli::npy
