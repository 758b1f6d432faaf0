// Permissions, after Deno: a script may not read or write files, reach the network or read
// the environment unless the command line grants it. GPU use is always allowed.
//
//   --allow-read[=PATH,...]   --allow-write[=PATH,...]   --allow-net[=HOST[:PORT],...]
//   --allow-env[=NAME,...]    -A / --allow-all
//
// A path grant covers the path and everything below it. A denial is an Error whose message
// names the flag that would grant the access. A path with a NUL byte is always refused.
//
// Check* judge a path string; Open* also open the file, through alknet/base/file.h, beneath the
// granted directory that covers it, so what is opened is what was judged: no symbolic link
// (dangling or swapped in after the check), ".." or NUL byte leads outside the grant, and only
// regular files are opened (a FIFO or device never blocks the runtime). Every file a script
// touches is opened with Open*.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "alknet/base/file.h"
#include "alknet/runtime/result.h"

namespace alknet::runtime {

enum class PermissionKind { kRead, kWrite, kNet, kEnv };

class Permissions {
 public:
  // Consumes one command-line flag. Returns true when `arg` was a permission flag, false when
  // it is something else, an Error when it is a malformed permission flag.
  Result<bool> ParseFlag(std::string_view arg);

  void GrantAll(PermissionKind kind);
  void Grant(PermissionKind kind, std::string_view item);
  void GrantEverything();

  Status CheckRead(const std::filesystem::path& path) const;
  Status CheckWrite(const std::filesystem::path& path) const;
  // Opens an existing regular file for reading / a regular file for writing (created or
  // truncated), beneath the grant that covers it.
  Result<base::UniqueFd> OpenRead(const std::filesystem::path& path) const;
  Result<base::UniqueFd> OpenWrite(const std::filesystem::path& path) const;
  // For writers that create a temporary file and rename it over `path` (alknet:tensor write):
  // checks the write grant, then opens the directory that will hold `path` beneath the grant
  // (no link below the grant is followed) and gives its name there. Whatever happens to the
  // path later, openat/renameat through `dir` stay in the directory that was checked.
  struct DirectoryEntry {
    base::UniqueFd dir;
    std::string name;
  };
  Result<DirectoryEntry> OpenWriteDirectory(const std::filesystem::path& path) const;
  // OpenRead, then the whole file, up to max_bytes.
  Result<std::string> ReadFile(const std::filesystem::path& path, uint64_t max_bytes) const;

  // `host` is a name or address, `port` 0 for "any".
  Status CheckNet(std::string_view host, uint16_t port) const;
  Status CheckEnv(std::string_view name) const;

  // "--allow-read" etc.
  static std::string_view FlagName(PermissionKind kind);

 private:
  struct Grant_ {
    bool all = false;
    std::vector<std::string> items;  // canonical paths, hosts ("h" or "h:port") or env names
  };
  Status CheckPath(PermissionKind kind, const std::filesystem::path& path) const;
  Result<base::UniqueFd> OpenPath(PermissionKind kind, const std::filesystem::path& path) const;
  Grant_& grant(PermissionKind kind) { return grants_[static_cast<int>(kind)]; }
  const Grant_& grant(PermissionKind kind) const { return grants_[static_cast<int>(kind)]; }
  Grant_ grants_[4];
};

// A path made absolute and normalised, with symbolic links resolved as far as the path exists
// (so a link cannot smuggle a read outside a granted directory).
std::filesystem::path CanonicalPath(const std::filesystem::path& path);
// True when `path` is `dir` or lies below it (both canonical).
bool PathIsWithin(const std::filesystem::path& path, const std::filesystem::path& dir);
// Opens `path` (canonical, within the canonical `dir`) beneath `dir` with base::OpenBeneath;
// `path` == `dir` (a grant of one file) opens it beneath its parent.
Result<base::UniqueFd> OpenWithin(const std::filesystem::path& dir,
                                  const std::filesystem::path& path, base::OpenMode mode);

}  // namespace alknet::runtime
