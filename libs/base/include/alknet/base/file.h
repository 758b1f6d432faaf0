// Opening files named by untrusted strings (docs/security.md, "Files and paths").
//
// Every file alknet reads for a user or a script goes through here, so three rules hold in one
// place:
//   - a path with a NUL byte is refused (the OS would stop at the NUL, so the file opened would
//     not be the one the string names or a permission check judged);
//   - a file for reading must be a regular file, and the open never blocks: O_NONBLOCK until
//     fstat has said S_ISREG (a FIFO or a device would otherwise hang or never end);
//   - OpenBeneath opens a path under a directory so that nothing in it leads outside: no "..",
//     no absolute part, no symbolic link (openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS
//     where the kernel has it, else one O_NOFOLLOW openat per component). What is checked is
//     then the file opened, not the string.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "alknet/base/result.h"

namespace alknet::base {

// Why a file could not be opened or read: `sys_errno` is the errno of the failing call (0 when
// the refusal is ours, e.g. a NUL byte or a FIFO), `message` names the path and the reason.
struct FileError {
  int sys_errno = 0;
  std::string message;
  const std::string& ToString() const { return message; }
};

// An owned file descriptor: closed on destruction, moved, never copied.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

template <typename T>
using FileResult = Result<T, FileError>;
using FileStatus = Result<void, FileError>;

// Refuses an empty path and one with a NUL byte; `path` is quoted in the message.
FileStatus CheckPathText(std::string_view path);

// Opens an existing regular file for reading without blocking on a FIFO or device, then clears
// O_NONBLOCK so reads behave normally. Follows symbolic links (use OpenBeneath to refuse them).
FileResult<UniqueFd> OpenRegularFile(std::string_view path);

// Reads all of `fd` (from its current offset) up to `max_bytes`; a longer file is an error
// naming `name` and the cap, found before more than max_bytes + 1 bytes are held.
FileResult<std::string> ReadAllFd(int fd, std::string_view name, uint64_t max_bytes);

// OpenRegularFile + ReadAllFd.
FileResult<std::string> ReadRegularFile(std::string_view path, uint64_t max_bytes);

enum class OpenMode {
  kRead,           // an existing regular file, read-only
  kWriteTruncate,  // a regular file, created (0666 & ~umask) or truncated, write-only
  kDirectory       // an existing directory, read-only: an anchor for openat, renameat, fsync
};

// How OpenBeneath resolves: kAuto tries openat2 and walks when the kernel lacks it (or a
// sandbox refuses it); kWalk always walks (tests use it to cover the fallback).
enum class BeneathMethod { kAuto, kWalk };

// Opens `relative` (a relative path: components separated by '/', no "..") under the directory
// `root` (which may itself be reached through links: it is the caller's trusted anchor).
// Refuses, with the path in the message: a NUL byte, an absolute `relative`, a ".." component,
// a symbolic link in any component (the last too: a dangling link is never created through),
// and for kRead anything but a regular file. For kWriteTruncate a non-regular file (FIFO,
// device, directory) is refused before anything is truncated; for kDirectory anything but a
// directory.
FileResult<UniqueFd> OpenBeneath(std::string_view root, std::string_view relative, OpenMode mode,
                                 BeneathMethod method = BeneathMethod::kAuto);

// True when this kernel answers openat2 (Linux >= 5.6); for messages and tests.
bool KernelHasOpenat2();

}  // namespace alknet::base
