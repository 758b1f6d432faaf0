// .npz reader: ZIP structures from PKWARE's APPNOTE.TXT 6.3: 4.3.16 end of central directory
// record, 4.3.14/4.3.15 zip64 end of central directory record and locator, 4.3.12 central
// directory file header, 4.3.7 local file header, 4.5.3 zip64 extended information extra field.
#include "alknet/tensor/convert/npz.h"

#include <algorithm>
#include <set>
#include <string_view>

#include "alknet/tensor/convert/npy.h"
#include "checked.h"

namespace alknet::tensor::convert {

namespace {

using detail::Fail;
using detail::LoadLe;

constexpr std::string_view kEocdSig("PK\x05\x06", 4);
constexpr std::string_view kZip64LocatorSig("PK\x06\x07", 4);
constexpr std::string_view kZip64EocdSig("PK\x06\x06", 4);
constexpr std::string_view kCentralSig("PK\x01\x02", 4);
constexpr std::string_view kLocalSig("PK\x03\x04", 4);
constexpr uint64_t kEocdSize = 22, kZip64LocatorSize = 20, kZip64EocdSize = 56;
constexpr uint64_t kCentralSize = 46, kLocalSize = 30;
constexpr uint64_t kMax16 = 0xffff, kMax32 = 0xffffffff;

struct Directory {
  uint64_t entries = 0;
  uint64_t cd_offset = 0;
  uint64_t cd_size = 0;
  uint64_t cd_limit = 0;  // where the records after the central directory begin
};

struct Member {
  std::string name;  // as stored, with ".npy"
  uint16_t method = 0;
  uint64_t compressed = 0, uncompressed = 0, local = 0;
  uint64_t data_start = 0;
};

// Every field read from `buf` below is at an offset checked against its size; LoadLe's
// nullopt can only mean a bug in that check, so it is treated as a truncated record.
uint64_t At(std::string_view buf, uint64_t at, unsigned n) {
  return LoadLe(buf, at, n).value_or(0);
}

Result<Directory> FindDirectory(const ByteSource& src, const ForeignLimits& limits) {
  const std::string& where = src.name();
  const uint64_t size = src.size();
  if (size < kEocdSize)
    return Fail(ErrorCode::kBadForeignFile, where, "too short for a zip archive");
  // The record is the last thing in the file but for a comment of at most 65535 bytes.
  const uint64_t tail_len = std::min<uint64_t>(size, kEocdSize + kMax16);
  ALKNET_ASSIGN_OR_RETURN(const std::string tail, src.ReadString(size - tail_len, tail_len));
  std::optional<uint64_t> found;
  for (uint64_t i = tail_len - kEocdSize + 1; i-- > 0;) {
    if (std::string_view(tail).substr(i, 4) == kEocdSig &&
        At(tail, i + 20, 2) == tail_len - i - kEocdSize) {
      found = i;
      break;
    }
  }
  if (!found) {
    return Fail(ErrorCode::kBadForeignFile, where,
                "not a zip archive (no end of central directory record)");
  }
  const std::string_view eocd = std::string_view(tail).substr(*found, kEocdSize);
  const uint64_t eocd_pos = size - tail_len + *found;
  Directory d;
  d.entries = At(eocd, 10, 2);
  d.cd_size = At(eocd, 12, 4);
  d.cd_offset = At(eocd, 16, 4);
  d.cd_limit = eocd_pos;
  if (At(eocd, 4, 2) != 0 || At(eocd, 6, 2) != 0 || At(eocd, 8, 2) != d.entries) {
    return Fail(ErrorCode::kUnsupportedForeign, where, "multi-disk zip archives are not supported");
  }
  // A zip64 locator right before the record means the zip64 record holds the real values.
  bool zip64 = false;
  if (eocd_pos >= kZip64LocatorSize) {
    ALKNET_ASSIGN_OR_RETURN(const std::string loc,
                            src.ReadString(eocd_pos - kZip64LocatorSize, kZip64LocatorSize));
    if (std::string_view(loc).substr(0, 4) == kZip64LocatorSig) {
      zip64 = true;
      const uint64_t z_at = At(loc, 8, 8);
      if (At(loc, 4, 4) != 0 || At(loc, 16, 4) > 1) {
        return Fail(ErrorCode::kUnsupportedForeign, where,
                    "multi-disk zip archives are not supported");
      }
      const uint64_t loc_pos = eocd_pos - kZip64LocatorSize;
      if (z_at > loc_pos || loc_pos - z_at < kZip64EocdSize) {
        return Fail(ErrorCode::kBadForeignFile, where,
                    "zip64 locator points at offset " + std::to_string(z_at) +
                        ", not at a 56-byte record before it");
      }
      ALKNET_ASSIGN_OR_RETURN(const std::string z, src.ReadString(z_at, kZip64EocdSize));
      if (std::string_view(z).substr(0, 4) != kZip64EocdSig) {
        return Fail(ErrorCode::kBadForeignFile, where,
                    "no zip64 end of central directory record where the locator points");
      }
      if (At(z, 16, 4) != 0 || At(z, 20, 4) != 0 || At(z, 24, 8) != At(z, 32, 8)) {
        return Fail(ErrorCode::kUnsupportedForeign, where,
                    "multi-disk zip archives are not supported");
      }
      d.entries = At(z, 32, 8);
      d.cd_size = At(z, 40, 8);
      d.cd_offset = At(z, 48, 8);
      d.cd_limit = z_at;
    }
  }
  if (!zip64 && (d.entries == kMax16 || d.cd_size == kMax32 || d.cd_offset == kMax32)) {
    return Fail(ErrorCode::kBadForeignFile, where,
                "zip64 sizes without a zip64 end of central directory locator");
  }
  if (d.entries > limits.max_tensors) {
    return Fail(ErrorCode::kForeignLimit, where,
                std::to_string(d.entries) + " members is over the cap of " +
                    std::to_string(limits.max_tensors));
  }
  if (d.cd_size > limits.max_central_directory_bytes) {
    return Fail(ErrorCode::kForeignLimit, where,
                "central directory of " + std::to_string(d.cd_size) + " bytes is over the cap of " +
                    std::to_string(limits.max_central_directory_bytes));
  }
  if (d.cd_offset > d.cd_limit || d.cd_size > d.cd_limit - d.cd_offset) {
    return Fail(
        ErrorCode::kBadForeignFile, where,
        "central directory [" + std::to_string(d.cd_offset) + ", +" + std::to_string(d.cd_size) +
            ") runs past the end of central directory record at " + std::to_string(d.cd_limit));
  }
  if (d.entries > d.cd_size / kCentralSize) {
    return Fail(ErrorCode::kBadForeignFile, where,
                std::to_string(d.entries) + " entries cannot fit a central directory of " +
                    std::to_string(d.cd_size) + " bytes");
  }
  return d;
}

// Reads the central directory entry at cd[*pos] and advances *pos past it.
Result<Member> ParseEntry(std::string_view cd, uint64_t* pos, uint64_t index,
                          const std::string& file, const ForeignLimits& limits) {
  const std::string where = file + ": central directory entry " + std::to_string(index);
  const uint64_t p = *pos;
  if (cd.size() - p < kCentralSize || cd.substr(p, 4) != kCentralSig) {
    return Fail(ErrorCode::kBadForeignFile, where, "is not a central directory file header");
  }
  const uint64_t flags = At(cd, p + 8, 2);
  Member m;
  m.method = static_cast<uint16_t>(At(cd, p + 10, 2));
  m.compressed = At(cd, p + 20, 4);
  m.uncompressed = At(cd, p + 24, 4);
  const uint64_t name_len = At(cd, p + 28, 2), extra_len = At(cd, p + 30, 2),
                 comment_len = At(cd, p + 32, 2);
  uint64_t disk = At(cd, p + 34, 2);
  m.local = At(cd, p + 42, 4);
  if (cd.size() - p - kCentralSize < name_len + extra_len + comment_len) {
    return Fail(ErrorCode::kBadForeignFile, where,
                "name, extra field and comment run past the central directory");
  }
  m.name = std::string(cd.substr(p + kCentralSize, name_len));
  const std::string member = file + ": member " + detail::Quote(m.name);
  if (name_len > limits.max_name_bytes) {
    return Fail(ErrorCode::kForeignLimit, member,
                "name is over the cap of " + std::to_string(limits.max_name_bytes) + " bytes");
  }

  // Extra fields: {u16 id, u16 length, data}; every one must lie inside this entry's extra area.
  const std::string_view extra = cd.substr(p + kCentralSize + name_len, extra_len);
  bool need_u = m.uncompressed == kMax32, need_c = m.compressed == kMax32,
       need_l = m.local == kMax32, need_d = disk == kMax16;
  for (uint64_t x = 0; x < extra.size();) {
    if (extra.size() - x < 4)
      return Fail(ErrorCode::kBadForeignFile, member, "extra field header is truncated");
    const uint64_t id = At(extra, x, 2), len = At(extra, x + 2, 2);
    if (len > extra.size() - x - 4) {
      return Fail(ErrorCode::kBadForeignFile, member,
                  "extra field (id " + std::to_string(id) + ") of " + std::to_string(len) +
                      " bytes runs past the entry's " + std::to_string(extra.size()) +
                      "-byte extra area");
    }
    if (id == 1) {
      // Zip64 (4.5.3): 8-byte values for exactly the fields that hold 0xFFFFFFFF, in this order.
      const std::string_view z = extra.substr(x + 4, len);
      uint64_t f = 0;
      auto take = [&](bool& need, uint64_t& field, unsigned n, const char* what) -> Status {
        if (!need) return Ok{};
        if (z.size() - f < n) {
          return Fail(ErrorCode::kBadForeignFile, member,
                      std::string("zip64 extra field lacks the ") + what);
        }
        field = At(z, f, n);
        f += n;
        need = false;
        return Ok{};
      };
      ALKNET_TRY(take(need_u, m.uncompressed, 8, "uncompressed size"));
      ALKNET_TRY(take(need_c, m.compressed, 8, "compressed size"));
      ALKNET_TRY(take(need_l, m.local, 8, "local header offset"));
      ALKNET_TRY(take(need_d, disk, 4, "disk number"));
    }
    x += 4 + len;
  }
  if (need_u || need_c || need_l || need_d) {
    return Fail(ErrorCode::kBadForeignFile, member,
                "has 0xFFFFFFFF sizes but no zip64 extra field");
  }
  *pos = p + kCentralSize + name_len + extra_len + comment_len;

  if (disk != 0)
    return Fail(ErrorCode::kUnsupportedForeign, member,
                "lies on another disk (multi-disk archive)");
  if (flags & 1) return Fail(ErrorCode::kUnsupportedForeign, member, "is encrypted");
  if (m.method == 8) {
    return Fail(ErrorCode::kUnsupportedForeign, member,
                "is compressed with deflate (np.savez_compressed); only stored members (np.savez) "
                "can be converted: load and re-save it with np.savez");
  }
  if (m.method != 0) {
    return Fail(ErrorCode::kUnsupportedForeign, member,
                "uses compression method " + std::to_string(m.method) +
                    "; only stored members (np.savez) are supported");
  }
  if (m.compressed != m.uncompressed) {
    return Fail(ErrorCode::kBadForeignFile, member,
                "is stored but its sizes differ (" + std::to_string(m.compressed) +
                    " compressed, " + std::to_string(m.uncompressed) + " uncompressed)");
  }
  if (m.name.size() <= 4 || m.name.compare(m.name.size() - 4, 4, ".npy") != 0) {
    return Fail(ErrorCode::kUnsupportedForeign, member,
                "is not a .npy array (np.savez names every member NAME.npy)");
  }
  return m;
}

// Checks the member's local header and finds where its data starts.
Status ReadLocalHeader(const ByteSource& src, const Directory& d, Member& m) {
  const std::string member = src.name() + ": member " + detail::Quote(m.name);
  if (m.local > d.cd_offset || d.cd_offset - m.local < kLocalSize) {
    return Fail(
        ErrorCode::kBadForeignFile, member,
        "local header at " + std::to_string(m.local) + " is not before the central directory");
  }
  ALKNET_ASSIGN_OR_RETURN(const std::string lh, src.ReadString(m.local, kLocalSize));
  if (std::string_view(lh).substr(0, 4) != kLocalSig) {
    return Fail(ErrorCode::kBadForeignFile, member,
                "no local file header at offset " + std::to_string(m.local));
  }
  if (At(lh, 8, 2) != m.method) {
    return Fail(ErrorCode::kBadForeignFile, member,
                "local header and central directory disagree on the method");
  }
  const uint64_t name_len = At(lh, 26, 2), extra_len = At(lh, 28, 2);
  const uint64_t room = d.cd_offset - m.local - kLocalSize;
  if (name_len + extra_len > room || m.compressed > room - name_len - extra_len) {
    return Fail(
        ErrorCode::kBadForeignFile, member,
        "data of " + std::to_string(m.compressed) + " bytes runs into the central directory");
  }
  ALKNET_ASSIGN_OR_RETURN(const std::string local_name,
                          src.ReadString(m.local + kLocalSize, name_len));
  if (local_name != m.name) {
    return Fail(ErrorCode::kBadForeignFile, member,
                "local header names it " + detail::Quote(local_name));
  }
  m.data_start = m.local + kLocalSize + name_len + extra_len;
  return Ok{};
}

}  // namespace

Result<ForeignFile> ReadNpz(const ByteSource& src, const ForeignLimits& limits) {
  ALKNET_ASSIGN_OR_RETURN(const Directory d, FindDirectory(src, limits));
  ALKNET_ASSIGN_OR_RETURN(const std::string cd, src.ReadString(d.cd_offset, d.cd_size));
  std::vector<Member> members;
  members.reserve(d.entries);
  std::set<std::string_view> names;
  uint64_t pos = 0;
  for (uint64_t i = 0; i < d.entries; ++i) {
    ALKNET_ASSIGN_OR_RETURN(Member m, ParseEntry(cd, &pos, i, src.name(), limits));
    ALKNET_TRY(ReadLocalHeader(src, d, m));
    members.push_back(std::move(m));
  }
  // Members may not share bytes: otherwise a small archive (one member, many entries) would
  // expand to a huge conversion.
  std::sort(members.begin(), members.end(),
            [](const Member& a, const Member& b) { return a.local < b.local; });
  for (size_t i = 1; i < members.size(); ++i) {
    const Member& prev = members[i - 1];
    if (members[i].local < prev.data_start + prev.compressed) {
      return Fail(ErrorCode::kForeignOverlap,
                  src.name() + ": member " + detail::Quote(members[i].name),
                  "overlaps member " + detail::Quote(prev.name) + " (local header at " +
                      std::to_string(members[i].local) + ", inside [" + std::to_string(prev.local) +
                      ", " + std::to_string(prev.data_start + prev.compressed) + "))");
    }
  }
  for (const Member& m : members) {
    if (!names.insert(m.name).second) {
      return Fail(ErrorCode::kBadForeignFile, src.name() + ": member " + detail::Quote(m.name),
                  "appears twice");
    }
  }
  ForeignFile out;
  for (Member& m : members) {
    const std::string where = src.name() + ": member " + detail::Quote(m.name);
    ALKNET_ASSIGN_OR_RETURN(NpyHeader h,
                            ParseNpyHeader(src, m.data_start, m.uncompressed, where, limits));
    m.name.resize(m.name.size() - 4);
    out.tensors.push_back(SourceTensor{std::move(m.name), h.dtype, std::move(h.shape),
                                       m.data_start + h.data_offset, h.data_bytes});
  }
  return out;
}

}  // namespace alknet::tensor::convert
