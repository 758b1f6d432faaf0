#include "alknet/tensor/convert/source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "alknet/base/file.h"
#include "checked.h"

namespace alknet::tensor::convert {

namespace {

Error OutOfSource(const ByteSource& src, uint64_t offset, uint64_t n) {
  return detail::Fail(ErrorCode::kBadForeignFile, src.name(),
                      "truncated: needs " + std::to_string(n) + " bytes at offset " +
                          std::to_string(offset) + ", the file has " + std::to_string(src.size()));
}

}  // namespace

Result<std::string> ByteSource::ReadString(uint64_t offset, uint64_t length) const {
  // Check before allocating: a length from the file may be anything.
  if (offset > size() || length > size() - offset) return OutOfSource(*this, offset, length);
  std::string out(length, '\0');
  ALKNET_TRY(ReadAt(offset, std::as_writable_bytes(std::span<char>(out))));
  return out;
}

Status MemorySource::ReadAt(uint64_t offset, std::span<std::byte> dst) const {
  if (offset > bytes_.size() || dst.size() > bytes_.size() - offset) {
    return OutOfSource(*this, offset, dst.size());
  }
  if (!dst.empty()) std::memcpy(dst.data(), bytes_.data() + offset, dst.size());
  return Ok{};
}

namespace detail {

std::string Quote(std::string_view name) {
  static const char* hex = "0123456789abcdef";
  std::string out = "'";
  for (size_t i = 0; i < name.size() && i < 200; ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7f || c == '\'' || c == '\\') {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (name.size() > 200) out += "...";
  return out + "'";
}

}  // namespace detail

Result<std::unique_ptr<FileSource>> FileSource::Open(const std::filesystem::path& path) {
  // O_NONBLOCK + fstat before any read (alknet/base/file.h): a FIFO or device is refused, never
  // waited on, and a path with a NUL byte never opens the file its prefix names.
  auto opened = base::OpenRegularFile(path.native());
  if (!opened) return Error(ErrorCode::kIo, opened.error().message);
  const int fd = opened->release();
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    return detail::Fail(ErrorCode::kIo, path.string(),
                        std::string("cannot stat: ") + std::strerror(e));
  }
  return std::unique_ptr<FileSource>(
      new FileSource(path.string(), fd, static_cast<uint64_t>(st.st_size)));
}

FileSource::~FileSource() { ::close(fd_); }

Status FileSource::ReadAt(uint64_t offset, std::span<std::byte> dst) const {
  if (offset > size_ || dst.size() > size_ - offset) return OutOfSource(*this, offset, dst.size());
  uint64_t done = 0;
  while (done < dst.size()) {
    const ssize_t k =
        ::pread(fd_, dst.data() + done, dst.size() - done, static_cast<off_t>(offset + done));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      return detail::Fail(
          ErrorCode::kIo, name_,
          "read failed at offset " + std::to_string(offset + done) + ": " + std::strerror(errno));
    }
    if (k == 0) {
      return detail::Fail(ErrorCode::kFileShrank, name_,
                          "the file became shorter than " + std::to_string(offset + dst.size()) +
                              " bytes while it was read");
    }
    done += static_cast<uint64_t>(k);
  }
  return Ok{};
}

}  // namespace alknet::tensor::convert
