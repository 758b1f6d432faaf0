// alknet tensor: inspect, verify and convert metatensor files (docs/metatensor-format.md).
// The format library stays standard-library only; the JSON of .safetensors headers and of
// --json output is handled here with nlohmann::json.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "alknet/tensor/tensor.h"
#include "command.h"
#include "npy.h"
#include "options.h"

namespace alknet::cli {
namespace {

namespace at = alknet::tensor;
using nlohmann::json;

constexpr const char* kUsage =
    "Usage: alknet tensor <subcommand> [options]\n\n"
    "  inspect FILE [--json]   print the preamble, tensors and metadata of a .mtf file\n"
    "  verify FILE             full validation: every rule, zero padding, tensor checksums\n"
    "                          (exit 0 valid, 1 invalid)\n"
    "  convert IN OUT [--alignment N] [--index-first]\n"
    "                          convert .npy, .npz (np.savez, uncompressed) or .safetensors to .mtf\n\n"
    "Exit codes: 0 ok, 1 invalid input or failed check, 2 usage.\n";

int Usage(const char* why) {
  std::fprintf(stderr, "alknet tensor: %s\n\n%s", why, kUsage);
  return kExitUsage;
}

std::string ShapeString(std::span<const uint64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

json MetadataJson(const at::MetadataValue& v) {
  return std::visit(
      [](const auto& x) -> json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, at::Bytes>) {
          static const char* hex = "0123456789abcdef";
          std::string s;
          for (std::byte b : x) {
            s += hex[static_cast<uint8_t>(b) >> 4];
            s += hex[static_cast<uint8_t>(b) & 15];
          }
          return json{{"bytes_hex", s}};
        } else {
          return json(x);
        }
      },
      v);
}

int Inspect(std::span<const std::string_view> args) {
  std::optional<std::string> file;
  bool as_json = false;
  for (auto a : args) {
    if (a == "--json") {
      as_json = true;
    } else if (!a.empty() && a[0] == '-') {
      return Usage("inspect: unknown option");
    } else if (!file) {
      file = std::string(a);
    } else {
      return Usage("inspect: one FILE only");
    }
  }
  if (!file) return Usage("inspect: missing FILE");
  auto r = at::Reader::Open(*file);
  if (!r) {
    std::fprintf(stderr, "alknet tensor inspect: %s\n", r.error().ToString().c_str());
    return kExitFailure;
  }
  const at::Preamble& p = r->preamble();
  if (as_json) {
    json out;
    out["file"] = *file;
    out["preamble"] = {{"version", std::to_string(p.version_major) + "." + std::to_string(p.version_minor)},
                       {"alignment", p.alignment},
                       {"required_features", p.required_features},
                       {"optional_features", p.optional_features},
                       {"index_offset", p.index_offset},
                       {"index_length", p.index_length},
                       {"data_offset", p.data_offset},
                       {"data_length", p.data_length},
                       {"trailer", p.has_trailer},
                       {"index_before_data", p.index_before_data()}};
    json tensors = json::array();
    for (const auto& t : r->tensors()) {
      json j{{"name", t.name},
             {"dtype", at::Info(t.dtype).name},
             {"shape", std::vector<uint64_t>(t.shape.begin(), t.shape.end())},
             {"offset", t.offset},
             {"byte_length", t.byte_length}};
      j["crc32c"] = t.checksum ? json(*t.checksum) : json(nullptr);
      tensors.push_back(j);
    }
    out["tensors"] = tensors;
    json meta = json::object();
    for (const auto& e : r->metadata()) meta[e.key] = MetadataJson(e.value);
    out["metadata"] = meta;
    out["skipped_metadata"] = r->skipped_metadata_count();
    std::printf("%s\n", out.dump(2).c_str());
    return kExitOk;
  }
  std::printf("%s: metatensor %u.%u, %zu tensors, %zu metadata entries\n", file->c_str(),
              p.version_major, p.version_minor, r->tensors().size(), r->metadata().size());
  std::printf("  alignment %u, index [%llu, +%llu) %s data [%llu, +%llu)%s\n", p.alignment,
              static_cast<unsigned long long>(p.index_offset),
              static_cast<unsigned long long>(p.index_length),
              p.index_before_data() ? "before" : "after",
              static_cast<unsigned long long>(p.data_offset),
              static_cast<unsigned long long>(p.data_length), p.has_trailer ? ", trailer" : "");
  for (const auto& t : r->tensors()) {
    std::printf("  %-40s %-11s %-20s offset %-12llu %llu bytes\n", std::string(t.name).c_str(),
                std::string(at::Info(t.dtype).name).c_str(), ShapeString(t.shape).c_str(),
                static_cast<unsigned long long>(t.offset),
                static_cast<unsigned long long>(t.byte_length));
  }
  for (const auto& e : r->metadata()) {
    std::printf("  meta %s = %s\n", e.key.c_str(), MetadataJson(e.value).dump().c_str());
  }
  return kExitOk;
}

int Verify(std::span<const std::string_view> args) {
  if (args.size() != 1 || args[0].empty() || args[0][0] == '-') return Usage("verify: expects FILE");
  at::ReadOptions o;
  o.strict_padding = true;
  o.verify_checksums = true;
  auto r = at::Reader::Open(std::string(args[0]), o);
  if (!r) {
    std::fprintf(stderr, "invalid: %s\n", r.error().ToString().c_str());
    return kExitFailure;
  }
  size_t with_sum = 0;
  for (const auto& t : r->tensors()) with_sum += t.checksum.has_value();
  std::printf("valid: %s: %zu tensors (%zu with checksums verified), %zu metadata entries\n",
              std::string(args[0]).c_str(), r->tensors().size(), with_sum, r->metadata().size());
  return kExitOk;
}

// ---- Input formats. Each yields tensors as (name, dtype, shape, byte range of the input file).

struct InputTensor {
  std::string name;
  at::DType dtype;
  std::vector<uint64_t> shape;
  uint64_t offset;  // in the input file
  uint64_t length;
};

struct ConvertError {
  std::string message;
};

class InputFile {
 public:
  explicit InputFile(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd_ >= 0 && ::fstat(fd_, &st) == 0) size_ = static_cast<uint64_t>(st.st_size);
  }
  ~InputFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return fd_ >= 0; }
  uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  std::string Read(uint64_t offset, uint64_t n) const {
    if (offset > size_ || n > size_ - offset) {
      throw ConvertError{path_ + ": truncated (needs " + std::to_string(n) + " bytes at " +
                         std::to_string(offset) + ", file has " + std::to_string(size_) + ")"};
    }
    std::string s(n, '\0');
    ReadInto(offset, s.data(), n);
    return s;
  }
  void ReadInto(uint64_t offset, char* dst, uint64_t n) const {
    uint64_t done = 0;
    while (done < n) {
      const ssize_t k = ::pread(fd_, dst + done, n - done, static_cast<off_t>(offset + done));
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) throw ConvertError{path_ + ": read failed at " + std::to_string(offset + done)};
      done += static_cast<uint64_t>(k);
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

uint64_t Le(const std::string& s, size_t at, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t{static_cast<uint8_t>(s[at + i])} << (8 * i);
  return v;
}

InputTensor ParseNpy(const InputFile& in, uint64_t base, uint64_t limit, std::string name) {
  const std::string where = in.path() + (name.empty() ? "" : " member '" + name + ".npy'");
  auto read = [&](uint64_t offset, uint64_t n) -> std::optional<std::string> {
    if (offset > limit - base || n > limit - base - offset) return std::nullopt;
    return in.Read(base + offset, n);
  };
  auto parsed = npy::ParseHeader(read, limit - base);
  if (auto* error = std::get_if<std::string>(&parsed)) throw ConvertError{where + ": " + *error};
  auto& h = std::get<npy::Header>(parsed);
  return InputTensor{std::move(name), h.dtype, std::move(h.shape), base + h.data_offset, h.data_bytes};
}

// ZIP (APPNOTE 4.3.16 end of central directory, 4.3.12 central directory headers, 4.5.3 the
// zip64 extra field). np.savez writes stored (uncompressed) members, with zip64 fields.
std::vector<InputTensor> ParseNpz(const InputFile& in) {
  const uint64_t size = in.size();
  const uint64_t tail_len = std::min<uint64_t>(size, 65535 + 22);
  const std::string tail = in.Read(size - tail_len, tail_len);
  const auto eocd = tail.rfind(std::string("PK\x05\x06", 4));
  if (eocd == std::string::npos || tail.size() - eocd < 22) throw ConvertError{in.path() + ": not a zip archive"};
  uint64_t entries = Le(tail, eocd + 10, 2);
  uint64_t cd_size = Le(tail, eocd + 12, 4);
  uint64_t cd_offset = Le(tail, eocd + 16, 4);
  if (cd_offset == 0xFFFFFFFF || entries == 0xFFFF) {
    // zip64 end of central directory locator sits just before the EOCD.
    const uint64_t loc_at = size - tail_len + eocd - 20;
    const std::string loc = in.Read(loc_at, 20);
    if (loc.compare(0, 4, std::string("PK\x06\x07", 4)) != 0) throw ConvertError{in.path() + ": bad zip64 locator"};
    const std::string z = in.Read(Le(loc, 8, 8), 56);
    if (z.compare(0, 4, std::string("PK\x06\x06", 4)) != 0) throw ConvertError{in.path() + ": bad zip64 record"};
    entries = Le(z, 32, 8);
    cd_size = Le(z, 40, 8);
    cd_offset = Le(z, 48, 8);
  }
  if (cd_size > (64u << 20)) throw ConvertError{in.path() + ": central directory too large"};
  const std::string cd = in.Read(cd_offset, cd_size);
  std::vector<InputTensor> out;
  size_t p = 0;
  for (uint64_t i = 0; i < entries; ++i) {
    if (cd.size() - p < 46 || cd.compare(p, 4, std::string("PK\x01\x02", 4)) != 0) {
      throw ConvertError{in.path() + ": corrupt central directory"};
    }
    const uint64_t method = Le(cd, p + 10, 2);
    uint64_t csize = Le(cd, p + 20, 4), usize = Le(cd, p + 24, 4);
    const uint64_t nlen = Le(cd, p + 28, 2), xlen = Le(cd, p + 30, 2), clen = Le(cd, p + 32, 2);
    uint64_t local = Le(cd, p + 42, 4);
    if (cd.size() - p - 46 < nlen + xlen + clen) throw ConvertError{in.path() + ": corrupt central directory"};
    std::string name = cd.substr(p + 46, nlen);
    // zip64 extra: the 0xFFFFFFFF fields follow in the order usize, csize, local offset.
    for (size_t x = p + 46 + nlen; x + 4 <= p + 46 + nlen + xlen;) {
      const uint64_t id = Le(cd, x, 2), len = Le(cd, x + 2, 2);
      size_t f = x + 4;
      if (id == 1) {
        if (usize == 0xFFFFFFFF && f + 8 <= x + 4 + len) usize = Le(cd, f, 8), f += 8;
        if (csize == 0xFFFFFFFF && f + 8 <= x + 4 + len) csize = Le(cd, f, 8), f += 8;
        if (local == 0xFFFFFFFF && f + 8 <= x + 4 + len) local = Le(cd, f, 8), f += 8;
      }
      x += 4 + len;
    }
    p += 46 + nlen + xlen + clen;
    if (name.size() < 4 || name.compare(name.size() - 4, 4, ".npy") != 0) {
      throw ConvertError{in.path() + ": member '" + name + "' is not a .npy array"};
    }
    name.resize(name.size() - 4);
    if (method != 0) {
      throw ConvertError{in.path() + ": member '" + name +
                         ".npy' is compressed (np.savez_compressed); only np.savez archives are supported"};
    }
    if (csize != usize) throw ConvertError{in.path() + ": member '" + name + "' has inconsistent sizes"};
    const std::string lh = in.Read(local, 30);
    if (lh.compare(0, 4, std::string("PK\x03\x04", 4)) != 0) throw ConvertError{in.path() + ": bad local header"};
    const uint64_t start = local + 30 + Le(lh, 26, 2) + Le(lh, 28, 2);
    if (start > size || usize > size - start) throw ConvertError{in.path() + ": member '" + name + "' is truncated"};
    out.push_back(ParseNpy(in, start, start + usize, name));
  }
  return out;
}

std::optional<at::DType> SafetensorsDType(const std::string& s) {
  static const std::map<std::string, at::DType> kMap = {
      {"BOOL", at::DType::kBool}, {"I8", at::DType::kI8},     {"I16", at::DType::kI16},
      {"I32", at::DType::kI32},   {"I64", at::DType::kI64},   {"U8", at::DType::kU8},
      {"U16", at::DType::kU16},   {"U32", at::DType::kU32},   {"U64", at::DType::kU64},
      {"F16", at::DType::kF16},   {"BF16", at::DType::kBF16}, {"F32", at::DType::kF32},
      {"F64", at::DType::kF64},   {"F8_E4M3", at::DType::kF8E4M3FN}, {"F8_E5M2", at::DType::kF8E5M2},
      {"C64", at::DType::kComplex64}};
  auto it = kMap.find(s);
  if (it == kMap.end()) return std::nullopt;
  return it->second;
}

// safetensors: u64 header length, a JSON object {name: {dtype, shape, data_offsets}, and an
// optional "__metadata__" of strings}, then the data buffer the offsets index.
std::vector<InputTensor> ParseSafetensors(const InputFile& in, std::vector<at::MetadataEntry>* meta) {
  const uint64_t n = Le(in.Read(0, 8), 0, 8);
  if (n > (100u << 20) || n > in.size() - 8) {
    throw ConvertError{in.path() + ": header length " + std::to_string(n) + " is implausible"};
  }
  json h;
  try {
    h = json::parse(in.Read(8, n));
  } catch (const json::exception& e) {
    throw ConvertError{in.path() + ": header is not JSON: " + e.what()};
  }
  if (!h.is_object()) throw ConvertError{in.path() + ": header is not a JSON object"};
  const uint64_t base = 8 + n;
  std::vector<InputTensor> out;
  for (auto& [name, v] : h.items()) {
    const std::string where = in.path() + ": tensor '" + name + "'";
    if (name == "__metadata__") {
      if (!v.is_object()) throw ConvertError{in.path() + ": __metadata__ is not an object"};
      for (auto& [k, s] : v.items()) {
        if (!s.is_string()) throw ConvertError{in.path() + ": __metadata__['" + k + "'] is not a string"};
        meta->push_back({k, s.get<std::string>()});
      }
      continue;
    }
    try {
      auto dtype = SafetensorsDType(v.at("dtype").get<std::string>());
      if (!dtype) throw ConvertError{where + ": dtype " + v.at("dtype").get<std::string>() + " is not supported"};
      InputTensor t{name, *dtype, v.at("shape").get<std::vector<uint64_t>>(), 0, 0};
      const auto offs = v.at("data_offsets").get<std::vector<uint64_t>>();
      if (offs.size() != 2 || offs[1] < offs[0] || offs[1] > in.size() - base) {
        throw ConvertError{where + ": data_offsets outside the file"};
      }
      auto bytes = at::ByteLength(t.dtype, t.shape);
      if (!bytes || *bytes != offs[1] - offs[0]) {
        throw ConvertError{where + ": data_offsets span " + std::to_string(offs[1] - offs[0]) +
                           " bytes, dtype x shape does not match"};
      }
      t.offset = base + offs[0];
      t.length = *bytes;
      out.push_back(std::move(t));
    } catch (const json::exception& e) {
      throw ConvertError{where + ": " + e.what()};
    }
  }
  // Keep the source's physical order: reading the input sequentially.
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
  return out;
}

int Convert(std::span<const std::string_view> args) {
  std::vector<std::string> files;
  at::WriteOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--alignment" && i + 1 < args.size()) {
      // The writer checks the rest (a power of two in [64, 2^20]) and names the rule.
      auto v = alknet::cli::ParseUnsignedOption("--alignment", args[++i], 0,
                                                std::numeric_limits<uint32_t>::max());
      if (!v) return Usage(("convert: " + v.error().message).c_str());
      o.alignment = static_cast<uint32_t>(*v);
    } else if (args[i] == "--index-first") {
      o.placement = at::IndexPlacement::kBeforeData;
    } else if (!args[i].empty() && args[i][0] == '-') {
      return Usage("convert: unknown option");
    } else {
      files.emplace_back(args[i]);
    }
  }
  if (files.size() != 2) return Usage("convert: expects IN and OUT");
  InputFile in(files[0]);
  if (!in.ok()) {
    std::fprintf(stderr, "alknet tensor convert: %s: %s\n", files[0].c_str(), std::strerror(errno));
    return kExitFailure;
  }
  std::vector<InputTensor> tensors;
  std::vector<at::MetadataEntry> meta;
  try {
    const std::string ext = std::filesystem::path(files[0]).extension().string();
    if (ext == ".npy") {
      tensors.push_back(ParseNpy(in, 0, in.size(), std::filesystem::path(files[0]).stem().string()));
    } else if (ext == ".npz") {
      tensors = ParseNpz(in);
    } else if (ext == ".safetensors") {
      tensors = ParseSafetensors(in, &meta);
    } else {
      return Usage("convert: IN must end in .npy, .npz or .safetensors");
    }
  } catch (const ConvertError& e) {
    std::fprintf(stderr, "alknet tensor convert: %s\n", e.message.c_str());
    return kExitFailure;
  }
  auto fw = at::FileWriter::Create(files[1], o);
  if (!fw) {
    std::fprintf(stderr, "alknet tensor convert: %s\n", fw.error().ToString().c_str());
    return kExitFailure;
  }
  at::Writer& w = (*fw)->writer();
  auto check = [&](at::Status s) {
    if (!s.ok()) throw ConvertError{s.error().ToString()};
  };
  try {
    check(w.SetMetadata("alknet.converted_from", std::filesystem::path(files[0]).filename().string()));
    for (auto& e : meta) check(w.SetMetadata("safetensors." + e.key, e.value));
    if (o.placement == at::IndexPlacement::kBeforeData) {
      for (const auto& t : tensors) check(w.Declare(t.name, t.dtype, t.shape));
    }
    // Stream each tensor through a bounded buffer: memory stays constant for any input size.
    std::vector<char> buf(8u << 20);
    for (const auto& t : tensors) {
      check(w.BeginTensor(t.name, t.dtype, t.shape));
      for (uint64_t done = 0; done < t.length;) {
        const uint64_t k = std::min<uint64_t>(buf.size(), t.length - done);
        in.ReadInto(t.offset + done, buf.data(), k);
        check(w.Write(std::as_bytes(std::span<const char>(buf.data(), k))));
        done += k;
      }
      check(w.EndTensor());
    }
    check((*fw)->Commit());
  } catch (const ConvertError& e) {
    std::fprintf(stderr, "alknet tensor convert: %s\n", e.message.c_str());
    return kExitFailure;
  }
  std::printf("converted %s -> %s: %zu tensors\n", files[0].c_str(), files[1].c_str(), tensors.size());
  return kExitOk;
}

int RunTensor(std::span<const std::string_view> args) {
  if (args.empty()) return Usage("missing subcommand");
  if (args[0] == "-h" || args[0] == "--help" || WantsHelp(args)) {
    std::printf("%s", kUsage);
    return kExitOk;
  }
  const auto rest = args.subspan(1);
  if (args[0] == "inspect") return Inspect(rest);
  if (args[0] == "verify") return Verify(rest);
  if (args[0] == "convert") return Convert(rest);
  return Usage("unknown subcommand");
}

const Registration kReg{{"tensor", "Inspect, verify and convert metatensor (.mtf) files", &RunTensor}};

}  // namespace
}  // namespace alknet::cli
