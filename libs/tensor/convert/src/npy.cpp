// .npy reader and writer. The header grammar is the subset of Python literals numpy's
// format.py writes (and its reader accepts through ast.literal_eval): a dict with exactly the
// keys 'descr' (a string), 'fortran_order' (True/False) and 'shape' (a tuple of ints).
#include "alknet/tensor/convert/npy.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "checked.h"

namespace alknet::tensor::convert {

namespace {

using detail::Fail;

struct DescrEntry {
  std::string_view descr;
  DType dtype;
};
// What numpy writes on a little-endian host for each dtype that has a metatensor equivalent.
constexpr DescrEntry kDescrs[] = {
    {"|b1", DType::kBool},      {"|i1", DType::kI8},          {"<i2", DType::kI16},
    {"<i4", DType::kI32},       {"<i8", DType::kI64},         {"|u1", DType::kU8},
    {"<u2", DType::kU16},       {"<u4", DType::kU32},         {"<u8", DType::kU64},
    {"<f2", DType::kF16},       {"<f4", DType::kF32},         {"<f8", DType::kF64},
    {"<c8", DType::kComplex64}, {"<c16", DType::kComplex128},
};

constexpr std::string_view kMagic("\x93NUMPY", 6);

// A cursor over the header dict's text. Every method fails (returns false / nullopt) rather
// than read past the end.
class DictParser {
 public:
  explicit DictParser(std::string_view text) : s_(text) {}

  void SkipSpace() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\n' || s_[p_] == '\r'))
      ++p_;
  }
  bool Eat(char c) {
    SkipSpace();
    if (p_ < s_.size() && s_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool Peek(char c) {
    SkipSpace();
    return p_ < s_.size() && s_[p_] == c;
  }
  bool AtEnd() {
    SkipSpace();
    return p_ == s_.size();
  }
  size_t pos() const { return p_; }

  // A quoted string without escapes (numpy never writes one in a header it can read back).
  std::optional<std::string_view> String() {
    SkipSpace();
    if (p_ >= s_.size() || (s_[p_] != '\'' && s_[p_] != '"')) return std::nullopt;
    const char quote = s_[p_];
    const size_t start = p_ + 1;
    const size_t end = s_.find(quote, start);
    if (end == std::string_view::npos) return std::nullopt;
    const std::string_view v = s_.substr(start, end - start);
    if (v.find('\\') != std::string_view::npos || v.find('\n') != std::string_view::npos)
      return std::nullopt;
    p_ = end + 1;
    return v;
  }
  std::optional<bool> Bool() {
    SkipSpace();
    for (const auto& [word, value] :
         {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}}) {
      if (s_.substr(p_, word.size()) == word) {
        p_ += word.size();
        return value;
      }
    }
    return std::nullopt;
  }
  // A non-negative decimal integer that fits in 64 bits.
  std::optional<uint64_t> Integer() {
    SkipSpace();
    uint64_t v = 0;
    const size_t start = p_;
    while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9') {
      if (__builtin_mul_overflow(v, 10u, &v) ||
          __builtin_add_overflow(v, uint64_t(s_[p_] - '0'), &v)) {
        return std::nullopt;
      }
      ++p_;
    }
    if (p_ == start) return std::nullopt;
    // "3.5", "3e2", "3L" are not (Python 3) ints.
    if (p_ < s_.size() && s_[p_] != ',' && s_[p_] != ')' && s_[p_] != ' ') return std::nullopt;
    return v;
  }

 private:
  std::string_view s_;
  size_t p_ = 0;
};

// Parses the dict; the error message says what is wrong, the caller adds where.
Result<NpyHeader> ParseDict(std::string_view text, std::string_view where,
                            const ForeignLimits& limits) {
  auto bad = [&](const std::string& what) {
    return Fail(ErrorCode::kBadForeignFile, where, "header " + what);
  };
  DictParser p(text);
  if (!p.Eat('{')) return bad("is not a Python dict (no '{')");
  std::optional<std::string_view> descr;
  std::optional<bool> fortran;
  std::optional<std::vector<uint64_t>> shape;
  while (!p.Eat('}')) {
    auto key = p.String();
    if (!key) return bad("has a malformed key at byte " + std::to_string(p.pos()));
    if (!p.Eat(':')) return bad("lacks ':' after key " + detail::Quote(*key));
    if (*key == "descr") {
      if (descr) return bad("repeats 'descr'");
      if (p.Peek('[')) {
        return Fail(ErrorCode::kUnsupportedForeign, where,
                    "structured arrays (a list 'descr') have no metatensor equivalent");
      }
      descr = p.String();
      if (!descr) return bad("'descr' is not a string");
    } else if (*key == "fortran_order") {
      if (fortran) return bad("repeats 'fortran_order'");
      fortran = p.Bool();
      if (!fortran) return bad("'fortran_order' is neither True nor False");
    } else if (*key == "shape") {
      if (shape) return bad("repeats 'shape'");
      if (!p.Eat('(')) return bad("'shape' is not a tuple");
      shape.emplace();
      bool comma_after_last = false;
      while (!p.Eat(')')) {
        if (shape->size() == limits.max_rank) {
          return Fail(ErrorCode::kForeignLimit, where,
                      "shape has more than " + std::to_string(limits.max_rank) + " dimensions");
        }
        auto dim = p.Integer();
        if (!dim) return bad("'shape' holds something other than a 64-bit non-negative integer");
        shape->push_back(*dim);
        comma_after_last = p.Eat(',');
        if (!comma_after_last && !p.Peek(')')) return bad("'shape' tuple is malformed");
      }
      // Python: (3) is the int 3, not a tuple; numpy always writes (3,).
      if (shape->size() == 1 && !comma_after_last)
        return bad("'shape' (n) lacks the comma of a 1-tuple");
    } else {
      return bad("has key " + detail::Quote(*key) +
                 "; numpy writes only 'descr', 'fortran_order' and 'shape'");
    }
    if (!p.Eat(',') && !p.Peek('}')) return bad("is malformed after key " + detail::Quote(*key));
  }
  if (!p.AtEnd()) return bad("has bytes after the dict's closing '}'");
  if (!descr) return bad("lacks 'descr'");
  if (!fortran) return bad("lacks 'fortran_order'");
  if (!shape) return bad("lacks 'shape'");

  if (*fortran &&
      std::count_if(shape->begin(), shape->end(), [](uint64_t d) { return d > 1; }) > 1) {
    return Fail(ErrorCode::kUnsupportedForeign, where,
                "Fortran-ordered arrays are not supported (save with np.ascontiguousarray)");
  }
  const auto entry = std::find_if(std::begin(kDescrs), std::end(kDescrs),
                                  [&](const DescrEntry& e) { return e.descr == *descr; });
  if (entry == std::end(kDescrs)) {
    if (!descr->empty() && (*descr)[0] == '>') {
      return Fail(ErrorCode::kUnsupportedForeign, where,
                  "numpy dtype " + detail::Quote(*descr) +
                      " is big-endian; save it with arr.astype(arr.dtype.newbyteorder('<'))");
    }
    return Fail(ErrorCode::kUnsupportedForeign, where,
                "numpy dtype " + detail::Quote(*descr) +
                    " has no metatensor equivalent (object, string, datetime and structured "
                    "arrays are not supported)");
  }
  NpyHeader h;
  h.dtype = entry->dtype;
  h.descr = std::string(*descr);
  h.shape = std::move(*shape);
  return h;
}

}  // namespace

std::optional<std::string_view> NpyDescr(DType dtype) {
  for (const auto& e : kDescrs) {
    if (e.dtype == dtype) return e.descr;
  }
  return std::nullopt;
}

Result<NpyHeader> ParseNpyHeader(const ByteSource& src, uint64_t base, uint64_t length,
                                 std::string_view where, const ForeignLimits& limits) {
  if (base > src.size() || length > src.size() - base) {
    return Fail(ErrorCode::kBadForeignFile, where, "the .npy bytes lie outside the file");
  }
  if (length < 10)
    return Fail(ErrorCode::kBadForeignFile, where,
                "too short for a .npy header (" + std::to_string(length) + " bytes)");
  ALKNET_ASSIGN_OR_RETURN(const std::string head,
                          src.ReadString(base, std::min<uint64_t>(length, 12)));
  if (std::string_view(head).substr(0, 6) != kMagic) {
    return Fail(ErrorCode::kBadForeignFile, where, "not a .npy file (no \\x93NUMPY magic)");
  }
  const unsigned major = static_cast<uint8_t>(head[6]), minor = static_cast<uint8_t>(head[7]);
  if (major < 1 || major > 3 || minor != 0) {
    return Fail(ErrorCode::kUnsupportedForeign, where,
                ".npy version " + std::to_string(major) + "." + std::to_string(minor) +
                    " is not supported (1.0, 2.0 and 3.0 are)");
  }
  const unsigned len_bytes = major == 1 ? 2 : 4;
  const auto header_len = detail::LoadLe(head, 8, len_bytes);
  if (!header_len) return Fail(ErrorCode::kBadForeignFile, where, "truncated .npy preamble");
  const uint64_t header_start = 8 + len_bytes;
  if (*header_len > limits.max_npy_header_bytes) {
    return Fail(ErrorCode::kForeignLimit, where,
                "header of " + std::to_string(*header_len) + " bytes is over the cap of " +
                    std::to_string(limits.max_npy_header_bytes));
  }
  if (*header_len > length - header_start) {
    return Fail(
        ErrorCode::kBadForeignFile, where,
        "header of " + std::to_string(*header_len) + " bytes runs past the end of the .npy bytes");
  }
  ALKNET_ASSIGN_OR_RETURN(const std::string text, src.ReadString(base + header_start, *header_len));
  ALKNET_ASSIGN_OR_RETURN(NpyHeader h, ParseDict(text, where, limits));
  h.data_offset = header_start + *header_len;
  auto bytes = ByteLength(h.dtype, h.shape);
  if (!bytes)
    return Fail(ErrorCode::kForeignLimit, where, "shape overflows: " + bytes.error().message());
  h.data_bytes = *bytes;
  const uint64_t have = length - h.data_offset;
  if (have != h.data_bytes) {
    return Fail(ErrorCode::kBadForeignFile, where,
                std::string(have < h.data_bytes ? "truncated" : "trailing bytes") +
                    ": the data is " + std::to_string(have) + " bytes, the shape needs " +
                    std::to_string(h.data_bytes) + " of " + h.descr);
  }
  return h;
}

Result<ForeignFile> ReadNpy(const ByteSource& src, std::string tensor_name,
                            const ForeignLimits& limits) {
  ALKNET_ASSIGN_OR_RETURN(NpyHeader h, ParseNpyHeader(src, 0, src.size(), src.name(), limits));
  ForeignFile out;
  out.tensors.push_back(SourceTensor{std::move(tensor_name), h.dtype, std::move(h.shape),
                                     h.data_offset, h.data_bytes});
  return out;
}

Result<std::string> NpyPreamble(DType dtype, std::span<const uint64_t> shape) {
  const auto descr = NpyDescr(dtype);
  if (!descr) {
    return Error(ErrorCode::kInvalidArgument,
                 "dtype " + std::string(Info(dtype).name) + " has no .npy equivalent");
  }
  if (auto bytes = ByteLength(dtype, shape); !bytes) {
    return Error(ErrorCode::kInvalidArgument, "shape overflows: " + bytes.error().message());
  }
  std::string dims = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    dims += std::to_string(shape[i]) + (i + 1 < shape.size() ? ", " : "");
  if (shape.size() == 1) dims += ",";
  dims += ")";
  std::string header =
      "{'descr': '" + std::string(*descr) + "', 'fortran_order': False, 'shape': " + dims + ", }";
  // Version 1.0: the header, padded with spaces and ended by '\n', makes the data 64-byte aligned.
  const size_t total = (10 + header.size() + 1 + 63) / 64 * 64;
  if (total - 10 > 0xffff)
    return Error(ErrorCode::kInvalidArgument, "shape too long for a .npy 1.0 header");
  header.append(total - 10 - header.size() - 1, ' ');
  header += '\n';
  std::string out(kMagic);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header;
}

Status WriteNpyFile(const std::filesystem::path& path, DType dtype, std::span<const uint64_t> shape,
                    std::span<const std::byte> data) {
  ALKNET_ASSIGN_OR_RETURN(const std::string preamble, NpyPreamble(dtype, shape));
  const uint64_t need = *ByteLength(dtype, shape);
  if (data.size() != need) {
    return Error(ErrorCode::kInvalidArgument, path.string() + ": " + std::to_string(data.size()) +
                                                  " data bytes for a shape that needs " +
                                                  std::to_string(need));
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f)
    return Fail(ErrorCode::kIo, path.string(),
                std::string("cannot create: ") + std::strerror(errno));
  bool ok = std::fwrite(preamble.data(), 1, preamble.size(), f) == preamble.size() &&
            (data.empty() || std::fwrite(data.data(), 1, data.size(), f) == data.size());
  const int write_errno = errno;
  ok = std::fclose(f) == 0 && ok;
  if (!ok)
    return Fail(ErrorCode::kIo, path.string(),
                std::string("write failed: ") + std::strerror(write_errno));
  return Ok{};
}

}  // namespace alknet::tensor::convert
