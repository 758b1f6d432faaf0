#include "alknet/base/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace alknet::base {

namespace {

// Linux's struct open_how and RESOLVE_* (include/uapi/linux/openat2.h, a stable ABI), written
// out so this std-only library needs no kernel header.
struct OpenHow {
  uint64_t flags;
  uint64_t mode;
  uint64_t resolve;
};
constexpr uint64_t kResolveNoMagiclinks = 0x02;
constexpr uint64_t kResolveNoSymlinks = 0x04;
constexpr uint64_t kResolveBeneath = 0x08;

// A path for a message: printable bytes as they are, the others as \xHH, at most 300 bytes.
std::string Quote(std::string_view path) {
  static const char* hex = "0123456789abcdef";
  std::string out = "\"";
  for (size_t i = 0; i < path.size() && i < 300; ++i) {
    const auto c = static_cast<unsigned char>(path[i]);
    if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (path.size() > 300) out += "...";
  return out + "\"";
}

FileError Fail(std::string_view path, const std::string& why, int sys_errno = 0) {
  return FileError{sys_errno, Quote(path) + ": " + why};
}

FileError FailErrno(std::string_view path, std::string_view what, int e) {
  return Fail(path, std::string(what) + ": " + std::strerror(e), e);
}

std::string Join(std::string_view root, std::string_view relative) {
  std::string out(root);
  if (!out.empty() && out.back() != '/') out += '/';
  out += relative;
  return out;
}

// After an open with O_NONBLOCK: refuse anything but a regular file, then make reads and writes
// blocking again (a regular file never blocks, but callers may rely on the flag being clear).
FileStatus RequireRegular(int fd, std::string_view path, bool directory = false) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return FailErrno(path, "cannot stat", errno);
  if (directory) {
    if (S_ISDIR(st.st_mode)) return Ok{};
    return Fail(path, "is not a directory");
  }
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    return Fail(path, std::string("is ") + kind + ", not a regular file");
  }
  const int fl = ::fcntl(fd, F_GETFL);
  if (fl < 0 || ::fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
    return FailErrno(path, "cannot clear O_NONBLOCK", errno);
  }
  return Ok{};
}

int FlagsFor(OpenMode mode) {
  // No O_TRUNC: a FIFO or device must be refused before anything is truncated (ftruncate
  // follows once fstat says regular).
  switch (mode) {
    case OpenMode::kRead: return O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
    case OpenMode::kWriteTruncate: return O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
    case OpenMode::kDirectory: return O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC;
  }
  return O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
}

FileResult<UniqueFd> Finish(UniqueFd fd, std::string_view path, OpenMode mode) {
  if (auto s = RequireRegular(fd.get(), path, mode == OpenMode::kDirectory); !s) {
    return std::move(s).error();
  }
  if (mode == OpenMode::kWriteTruncate && ::ftruncate(fd.get(), 0) != 0) {
    return FailErrno(path, "cannot truncate", errno);
  }
  return fd;
}

FileError OpenFailed(std::string_view path, int e) {
  switch (e) {
    case ELOOP: return Fail(path, "a symbolic link is in the way (links are not followed here)", e);
    case EXDEV: return Fail(path, "leads outside the directory it was opened under", e);
    case ENXIO: return Fail(path, "is a FIFO or device with no peer, not a regular file", e);
    default: return FailErrno(path, "cannot open", e);
  }
}

// The components of a relative path, refusing what could lead outside.
FileResult<std::vector<std::string_view>> Components(std::string_view root,
                                                     std::string_view relative) {
  const std::string full = Join(root, relative);
  if (auto s = CheckPathText(relative); !s) return Fail(full, "names no file");
  if (relative.front() == '/') return Fail(full, "is absolute where a relative path is needed");
  std::vector<std::string_view> parts;
  for (size_t at = 0; at <= relative.size();) {
    size_t slash = relative.find('/', at);
    if (slash == std::string_view::npos) slash = relative.size();
    std::string_view part = relative.substr(at, slash - at);
    at = slash + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") return Fail(full, "has a \"..\" component");
    parts.push_back(part);
  }
  if (parts.empty()) return Fail(full, "names the directory itself, not a file in it");
  return parts;
}

FileResult<UniqueFd> Walk(int root_fd, std::string_view full,
                          const std::vector<std::string_view>& parts, OpenMode mode) {
  UniqueFd dir;
  int at = root_fd;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::string name(parts[i]);
    // O_DIRECTORY with O_NOFOLLOW: a link here fails (ENOTDIR or ELOOP) instead of being used.
    UniqueFd next(::openat(at, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) {
      const int e = errno;
      struct stat st {};
      if ((e == ENOTDIR || e == ELOOP) &&
          ::fstatat(at, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
        return OpenFailed(full, ELOOP);
      }
      return OpenFailed(full, e);
    }
    dir = std::move(next);
    at = dir.get();
  }
  const std::string last(parts.back());
  UniqueFd fd(::openat(at, last.c_str(), FlagsFor(mode) | O_NOFOLLOW, 0666));
  if (!fd.valid()) {
    const int e = errno;
    struct stat st {};
    // kDirectory on a link may say ENOTDIR: name the link as the reason.
    if (e == ENOTDIR && ::fstatat(at, last.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(st.st_mode)) {
      return OpenFailed(full, ELOOP);
    }
    return OpenFailed(full, e);
  }
  return Finish(std::move(fd), full, mode);
}

// -1 with errno ENOSYS when there is no openat2 at all.
int Openat2(int dirfd, const char* path, const OpenHow& how) {
#ifdef SYS_openat2
  return static_cast<int>(::syscall(SYS_openat2, dirfd, path, &how, sizeof how));
#else
  (void)dirfd, (void)path, (void)how;
  errno = ENOSYS;
  return -1;
#endif
}

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

FileStatus CheckPathText(std::string_view path) {
  if (path.empty()) return FileError{0, "an empty path names no file"};
  if (path.find('\0') != std::string_view::npos) {
    return Fail(path,
                "has a NUL byte (a path ends at a NUL for the system, so it would name "
                "another file)");
  }
  return Ok{};
}

FileResult<UniqueFd> OpenRegularFile(std::string_view path) {
  if (auto s = CheckPathText(path); !s) return std::move(s).error();
  const std::string p(path);
  UniqueFd fd(::open(p.c_str(), FlagsFor(OpenMode::kRead)));
  if (!fd.valid()) return OpenFailed(path, errno);
  return Finish(std::move(fd), path, OpenMode::kRead);
}

FileResult<std::string> ReadAllFd(int fd, std::string_view name, uint64_t max_bytes) {
  std::string out;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    if (static_cast<uint64_t>(st.st_size) > max_bytes) {
      return Fail(name, "is " + std::to_string(st.st_size) + " bytes, over the cap of " +
                            std::to_string(max_bytes));
    }
    out.reserve(static_cast<size_t>(st.st_size));
  }
  char buf[65536];
  for (;;) {
    const ssize_t k = ::read(fd, buf, sizeof buf);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return FailErrno(name, "read failed", errno);
    if (k == 0) break;
    if (static_cast<uint64_t>(k) > max_bytes - out.size()) {
      return Fail(name, "is over the cap of " + std::to_string(max_bytes) + " bytes");
    }
    out.append(buf, static_cast<size_t>(k));
  }
  return out;
}

FileResult<std::string> ReadRegularFile(std::string_view path, uint64_t max_bytes) {
  ALKNET_ASSIGN_OR_RETURN(UniqueFd fd, OpenRegularFile(path));
  return ReadAllFd(fd.get(), path, max_bytes);
}

FileResult<UniqueFd> OpenBeneath(std::string_view root, std::string_view relative, OpenMode mode,
                                 BeneathMethod method) {
  if (auto s = CheckPathText(root); !s) return std::move(s).error();
  const std::string full = Join(root, relative);
  if (relative.find('\0') != std::string_view::npos) {
    return std::move(CheckPathText(full)).error();
  }
  ALKNET_ASSIGN_OR_RETURN(auto parts, Components(root, relative));
  const std::string root_text(root);
  UniqueFd root_fd(::open(root_text.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root_fd.valid()) return FailErrno(root, "cannot open the directory", errno);

  if (method == BeneathMethod::kAuto) {
    std::string rel;
    for (auto part : parts) rel += (rel.empty() ? "" : "/") + std::string(part);
    OpenHow how{};
    how.flags = static_cast<uint64_t>(FlagsFor(mode) | O_NOFOLLOW);
    how.mode = mode == OpenMode::kWriteTruncate ? 0666 : 0;
    how.resolve = kResolveBeneath | kResolveNoSymlinks | kResolveNoMagiclinks;
    UniqueFd fd(Openat2(root_fd.get(), rel.c_str(), how));
    if (fd.valid()) return Finish(std::move(fd), full, mode);
    const int e = errno;
    // ENOSYS: a kernel before 5.6; EPERM: a seccomp filter that does not know openat2. The
    // walk gives the same guarantees with one openat per component.
    // ENOTDIR for kDirectory: the walk tells a link (refused as one) from a plain file.
    if (e != ENOSYS && e != EPERM && !(e == ENOTDIR && mode == OpenMode::kDirectory)) {
      return OpenFailed(full, e);
    }
  }
  return Walk(root_fd.get(), full, parts, mode);
}

bool KernelHasOpenat2() {
  OpenHow how{};
  how.flags = O_PATH | O_CLOEXEC;
  UniqueFd fd(Openat2(AT_FDCWD, "/", how));
  return fd.valid();
}

}  // namespace alknet::base
