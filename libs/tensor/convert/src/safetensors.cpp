#include "alknet/tensor/convert/safetensors.h"

#include <algorithm>
#include <string_view>

#include "alknet/base/json.h"
#include "checked.h"

namespace alknet::tensor::convert {

namespace {

namespace json = base::json;
using detail::Fail;

struct DTypeName {
  std::string_view name;
  DType dtype;
};
// safetensors' Dtype names (safetensors/src/tensor.rs) that have a metatensor equivalent.
constexpr DTypeName kDTypes[] = {
    {"BOOL", DType::kBool},      {"I8", DType::kI8},         {"I16", DType::kI16},
    {"I32", DType::kI32},        {"I64", DType::kI64},       {"U8", DType::kU8},
    {"U16", DType::kU16},        {"U32", DType::kU32},       {"U64", DType::kU64},
    {"F16", DType::kF16},        {"BF16", DType::kBF16},     {"F32", DType::kF32},
    {"F64", DType::kF64},        {"C64", DType::kComplex64}, {"F8_E4M3", DType::kF8E4M3FN},
    {"F8_E5M2", DType::kF8E5M2},
};

std::string RangeText(uint64_t begin, uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
}

// One tensor entry of the header; offsets are relative to the data buffer.
Result<SourceTensor> ParseTensor(const std::string& name, const json::Value& v,
                                 uint64_t buffer_size, std::string_view file,
                                 const ForeignLimits& limits) {
  const std::string where = std::string(file) + ": tensor " + detail::Quote(name);
  auto bad = [&](const std::string& what) { return Fail(ErrorCode::kBadForeignFile, where, what); };
  if (name.size() > limits.max_name_bytes) {
    return Fail(ErrorCode::kForeignLimit, where,
                "name is over the cap of " + std::to_string(limits.max_name_bytes) + " bytes");
  }
  if (!v.is_object()) return bad("entry is not a JSON object");
  for (const auto& [key, unused] : v.as_object()) {
    if (key != "dtype" && key != "shape" && key != "data_offsets") {
      return bad("entry has key " + detail::Quote(key) +
                 "; only 'dtype', 'shape' and 'data_offsets' are allowed");
    }
  }
  const json::Value* dtype = v.find("dtype");
  const json::Value* shape = v.find("shape");
  const json::Value* offsets = v.find("data_offsets");
  if (!dtype || !shape || !offsets) return bad("entry lacks 'dtype', 'shape' or 'data_offsets'");
  if (!dtype->is_string()) return bad("'dtype' is not a string");
  const auto entry = std::find_if(std::begin(kDTypes), std::end(kDTypes),
                                  [&](const DTypeName& d) { return d.name == dtype->as_string(); });
  if (entry == std::end(kDTypes)) {
    return Fail(ErrorCode::kUnsupportedForeign, where,
                "dtype " + detail::Quote(dtype->as_string()) + " has no metatensor equivalent");
  }
  SourceTensor t;
  t.name = name;
  t.dtype = entry->dtype;
  if (!shape->is_array()) return bad("'shape' is not an array");
  if (shape->as_array().size() > limits.max_rank) {
    return Fail(ErrorCode::kForeignLimit, where,
                "shape has more than " + std::to_string(limits.max_rank) + " dimensions");
  }
  for (const json::Value& d : shape->as_array()) {
    const auto dim = d.is_integer() ? d.to_uint64() : std::nullopt;
    if (!dim) return bad("'shape' holds " + json::Write(d) + ", not a non-negative integer");
    t.shape.push_back(*dim);
  }
  // Integers only: the reference's serde reads offsets as usize, and a float would round.
  if (!offsets->is_array() || offsets->as_array().size() != 2)
    return bad("'data_offsets' is not an array of two integers");
  uint64_t range[2];
  for (int i = 0; i < 2; ++i) {
    const json::Value& o = offsets->as_array()[i];
    const auto n = o.is_integer() ? o.to_uint64() : std::nullopt;
    if (!n) return bad("'data_offsets' holds " + json::Write(o) + ", not a non-negative integer");
    range[i] = *n;
  }
  if (range[1] < range[0])
    return bad("data_offsets " + RangeText(range[0], range[1]) + " end before they begin");
  if (range[1] > buffer_size) {
    return bad("data_offsets " + RangeText(range[0], range[1]) + " run past the data buffer of " +
               std::to_string(buffer_size) + " bytes");
  }
  auto bytes = ByteLength(t.dtype, t.shape);
  if (!bytes)
    return Fail(ErrorCode::kForeignLimit, where, "shape overflows: " + bytes.error().message());
  if (*bytes != range[1] - range[0]) {
    return bad("data_offsets " + RangeText(range[0], range[1]) + " span " +
               std::to_string(range[1] - range[0]) + " bytes, dtype " + std::string(entry->name) +
               " x shape needs " + std::to_string(*bytes));
  }
  t.offset = range[0];
  t.byte_length = *bytes;
  return t;
}

}  // namespace

Result<ForeignFile> ReadSafetensors(const ByteSource& src, const ForeignLimits& limits) {
  const std::string& file = src.name();
  if (src.size() < 8)
    return Fail(ErrorCode::kBadForeignFile, file, "too short for the 8-byte header length");
  ALKNET_ASSIGN_OR_RETURN(const std::string len_bytes, src.ReadString(0, 8));
  const uint64_t n = detail::LoadLe(len_bytes, 0, 8).value_or(0);
  if (n > limits.max_header_bytes) {
    return Fail(ErrorCode::kForeignLimit, file,
                "header of " + std::to_string(n) + " bytes is over the cap of " +
                    std::to_string(limits.max_header_bytes));
  }
  if (n > src.size() - 8) {
    return Fail(ErrorCode::kBadForeignFile, file,
                "header of " + std::to_string(n) + " bytes runs past the end of the file (" +
                    std::to_string(src.size()) + " bytes)");
  }
  ALKNET_ASSIGN_OR_RETURN(const std::string text, src.ReadString(8, n));
  if (text.empty() || text[0] != '{')
    return Fail(ErrorCode::kBadForeignFile, file, "header does not start with '{'");
  json::ParseOptions options;
  options.max_size = static_cast<size_t>(n);
  options.max_depth = 8;  // the format nests three levels
  options.big_integers_as_double = false;
  auto header = json::Parse(text, options);
  if (!header)
    return Fail(ErrorCode::kBadForeignFile, file,
                "header is not valid JSON: " + header.error().ToString());
  if (!header->is_object())
    return Fail(ErrorCode::kBadForeignFile, file, "header is not a JSON object");
  const json::Object& members = header->as_object();
  const uint64_t buffer_size = src.size() - 8 - n;

  ForeignFile out;
  for (const auto& [name, v] : members) {
    if (name == "__metadata__") {
      if (!v.is_object())
        return Fail(ErrorCode::kBadForeignFile, file, "__metadata__ is not a JSON object");
      for (const auto& [key, value] : v.as_object()) {
        if (!value.is_string()) {
          return Fail(ErrorCode::kBadForeignFile, file,
                      "__metadata__ " + detail::Quote(key) + " is " + json::Write(value) +
                          ", not a string");
        }
        out.metadata.push_back({key, value.as_string()});
      }
      continue;
    }
    if (out.tensors.size() == limits.max_tensors) {
      return Fail(ErrorCode::kForeignLimit, file,
                  "more than " + std::to_string(limits.max_tensors) + " tensors");
    }
    ALKNET_ASSIGN_OR_RETURN(SourceTensor t, ParseTensor(name, v, buffer_size, file, limits));
    out.tensors.push_back(std::move(t));
  }

  // The tensors tile the buffer: sorted by offset, each begins where the previous ended.
  std::sort(out.tensors.begin(), out.tensors.end(),
            [](const SourceTensor& a, const SourceTensor& b) {
              return a.offset != b.offset ? a.offset < b.offset : a.byte_length < b.byte_length;
            });
  uint64_t end = 0, prev_begin = 0;
  std::string_view prev_name;
  for (SourceTensor& t : out.tensors) {
    const std::string where = file + ": tensor " + detail::Quote(t.name);
    if (t.offset < end) {
      return Fail(ErrorCode::kForeignOverlap, where,
                  "data_offsets " + RangeText(t.offset, t.offset + t.byte_length) +
                      " overlap tensor " + detail::Quote(prev_name) + " " +
                      RangeText(prev_begin, end));
    }
    if (t.offset > end) {
      return Fail(ErrorCode::kBadForeignFile, where,
                  "data_offsets " + RangeText(t.offset, t.offset + t.byte_length) +
                      " leave a gap after byte " + std::to_string(end) + " of the data buffer");
    }
    prev_begin = t.offset;
    prev_name = t.name;
    end = t.offset + t.byte_length;
    t.offset += 8 + n;
  }
  if (end != buffer_size) {
    return Fail(ErrorCode::kBadForeignFile, file,
                "the data buffer has " + std::to_string(buffer_size) +
                    " bytes but the tensors use " + std::to_string(end) +
                    " (truncated or trailing data)");
  }
  return out;
}

}  // namespace alknet::tensor::convert
