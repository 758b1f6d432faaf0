// alknet tensor: inspect, verify and convert metatensor files (docs/metatensor-format.md).
// Reading .npy, .npz and .safetensors is alknet-tensor-convert's (libs/tensor/convert).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "alknet/base/json.h"
#include "alknet/tensor/convert/npy.h"
#include "alknet/tensor/convert/npz.h"
#include "alknet/tensor/convert/safetensors.h"
#include "alknet/tensor/convert/to_mtf.h"
#include "alknet/tensor/tensor.h"
#include "command.h"
#include "options.h"

namespace alknet::cli {
namespace {

namespace at = alknet::tensor;
namespace tc = alknet::tensor::convert;
namespace fs = std::filesystem;
namespace json = alknet::base::json;
using at::Result;

constexpr const char* kUsage =
    "Usage: alknet tensor <subcommand> [options]\n\n"
    "  inspect FILE [--json]   print the preamble, tensors and metadata of a .mtf file\n"
    "  verify FILE             full validation: every rule, zero padding, tensor checksums\n"
    "                          (exit 0 valid, 1 invalid)\n"
    "  convert IN OUT [--alignment N] [--index-first]\n"
    "                          convert .npy, .npz (np.savez, uncompressed) or .safetensors to "
    ".mtf\n\n"
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

json::Value MetadataJson(const at::MetadataValue& v) {
  return std::visit(
      [](const auto& x) -> json::Value {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, at::Bytes>) {
          static const char* hex = "0123456789abcdef";
          std::string s;
          for (std::byte b : x) {
            s += hex[static_cast<uint8_t>(b) >> 4];
            s += hex[static_cast<uint8_t>(b) & 15];
          }
          return json::Object{{"bytes_hex", s}};
        } else if constexpr (std::is_same_v<T, std::vector<bool>> ||
                             std::is_same_v<T, std::vector<int64_t>> ||
                             std::is_same_v<T, std::vector<uint64_t>> ||
                             std::is_same_v<T, std::vector<double>> ||
                             std::is_same_v<T, std::vector<std::string>>) {
          json::Array a;
          for (const auto& e : x) a.emplace_back(static_cast<typename T::value_type>(e));
          return a;
        } else {
          return json::Value(x);
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
    json::Object out;
    out.append("file", *file);
    out.append("preamble", json::Object{{"version", std::to_string(p.version_major) + "." +
                                                        std::to_string(p.version_minor)},
                                        {"alignment", p.alignment},
                                        {"required_features", p.required_features},
                                        {"optional_features", p.optional_features},
                                        {"index_offset", p.index_offset},
                                        {"index_length", p.index_length},
                                        {"data_offset", p.data_offset},
                                        {"data_length", p.data_length},
                                        {"trailer", p.has_trailer},
                                        {"index_before_data", p.index_before_data()}});
    json::Array tensors;
    for (const auto& t : r->tensors()) {
      json::Array shape;
      for (uint64_t d : t.shape) shape.emplace_back(d);
      tensors.emplace_back(
          json::Object{{"name", std::string(t.name)},
                       {"dtype", at::Info(t.dtype).name},
                       {"shape", std::move(shape)},
                       {"offset", t.offset},
                       {"byte_length", t.byte_length},
                       {"crc32c", t.checksum ? json::Value(*t.checksum) : json::Value()}});
    }
    out.append("tensors", std::move(tensors));
    json::Object meta;
    for (const auto& e : r->metadata()) meta.set(e.key, MetadataJson(e.value));
    out.append("metadata", std::move(meta));
    out.append("skipped_metadata", r->skipped_metadata_count());
    std::printf("%s\n", json::Write(json::Value(std::move(out)), {.indent = 2}).c_str());
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
    std::printf("  meta %s = %s\n", e.key.c_str(), json::Write(MetadataJson(e.value)).c_str());
  }
  return kExitOk;
}

int Verify(std::span<const std::string_view> args) {
  if (args.size() != 1 || args[0].empty() || args[0][0] == '-')
    return Usage("verify: expects FILE");
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

// ---- Conversion: alknet-tensor-convert validates the input and streams it into the writer
// (alknet/tensor/convert/to_mtf.h).

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
  const std::string ext = fs::path(files[0]).extension().string();
  if (ext != ".npy" && ext != ".npz" && ext != ".safetensors") {
    return Usage("convert: IN must end in .npy, .npz or .safetensors");
  }
  auto count = tc::ConvertToMtf(files[0], files[1], o);
  if (!count) {
    std::fprintf(stderr, "alknet tensor convert: %s\n", count.error().ToString().c_str());
    return kExitFailure;
  }
  std::printf("converted %s -> %s: %zu tensors\n", files[0].c_str(), files[1].c_str(), *count);
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

const Registration kReg{
    {"tensor", "Inspect, verify and convert metatensor (.mtf) files", &RunTensor}};

}  // namespace
}  // namespace alknet::cli
