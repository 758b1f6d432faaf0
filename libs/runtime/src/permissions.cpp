#include "alknet/runtime/permissions.h"

#include <fcntl.h>

#include <cerrno>
#include <cstring>
#include <system_error>

namespace alknet::runtime {

namespace fs = std::filesystem;

fs::path CanonicalPath(const fs::path& path) {
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec);
  if (ec) abs = path;
  fs::path canonical = fs::weakly_canonical(abs, ec);
  return ec ? abs.lexically_normal() : canonical;
}

bool PathIsWithin(const fs::path& path, const fs::path& dir) {
  auto p = path.begin();
  for (auto d = dir.begin(); d != dir.end(); ++d, ++p) {
    if (d->empty() && std::next(d) == dir.end()) break;  // "dir/" has a trailing empty element
    if (p == path.end() || *p != *d) return false;
  }
  return true;
}

std::string_view Permissions::FlagName(PermissionKind kind) {
  switch (kind) {
    case PermissionKind::kRead: return "--allow-read";
    case PermissionKind::kWrite: return "--allow-write";
    case PermissionKind::kNet: return "--allow-net";
    case PermissionKind::kEnv: return "--allow-env";
  }
  return "";
}

namespace {
std::string_view KindWord(PermissionKind kind) {
  switch (kind) {
    case PermissionKind::kRead: return "read";
    case PermissionKind::kWrite: return "write";
    case PermissionKind::kNet: return "net";
    case PermissionKind::kEnv: return "env";
  }
  return "";
}

Error Denied(PermissionKind kind, const std::string& what) {
  std::string flag(Permissions::FlagName(kind));
  return MakeError("Requires " + std::string(KindWord(kind)) + " access to \"" + what +
                   "\"; run again with " + flag + " (or " + flag + "=" + what + ")");
}
}  // namespace

Result<bool> Permissions::ParseFlag(std::string_view arg) {
  if (arg == "-A" || arg == "--allow-all") {
    GrantEverything();
    return true;
  }
  for (PermissionKind kind : {PermissionKind::kRead, PermissionKind::kWrite, PermissionKind::kNet,
                              PermissionKind::kEnv}) {
    std::string_view flag = FlagName(kind);
    if (arg.substr(0, flag.size()) != flag) continue;
    std::string_view rest = arg.substr(flag.size());
    if (rest.empty()) {
      GrantAll(kind);
      return true;
    }
    if (rest[0] != '=') continue;  // e.g. --allow-reader: not ours
    rest.remove_prefix(1);
    if (rest.empty()) {
      return MakeError(std::string(flag) + "= needs a value, e.g. " + std::string(flag) +
                       (kind == PermissionKind::kNet ? "=example.com" : "=./data"));
    }
    while (!rest.empty()) {
      size_t comma = rest.find(',');
      std::string_view item = rest.substr(0, comma);
      if (item.empty()) return MakeError("empty item in " + std::string(arg));
      Grant(kind, item);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    return true;
  }
  return false;
}

void Permissions::GrantAll(PermissionKind kind) { grant(kind).all = true; }

void Permissions::GrantEverything() {
  for (auto& g : grants_) g.all = true;
}

void Permissions::Grant(PermissionKind kind, std::string_view item) {
  if (kind == PermissionKind::kRead || kind == PermissionKind::kWrite) {
    grant(kind).items.push_back(CanonicalPath(fs::path(item)).string());
  } else {
    grant(kind).items.emplace_back(item);
  }
}

Result<base::UniqueFd> OpenWithin(const fs::path& dir, const fs::path& path, base::OpenMode mode) {
  fs::path root = dir;
  fs::path relative = path.lexically_relative(dir);
  if (relative.empty() || relative == ".") {
    root = dir.parent_path();
    relative = dir.filename();
  }
  auto fd = base::OpenBeneath(root.string(), relative.string(), mode);
  if (!fd) return MakeError(std::move(fd).error().message);
  return std::move(fd).value();
}

Status Permissions::CheckPath(PermissionKind kind, const fs::path& path) const {
  // Before anything normalises it: the system stops at a NUL, so the string would name one
  // file to the check and another to open().
  if (auto s = base::CheckPathText(path.native()); !s) return MakeError(s.error().message);
  const Grant_& g = grant(kind);
  fs::path canonical = CanonicalPath(path);
  if (g.all) return Ok{};
  for (const auto& item : g.items) {
    if (PathIsWithin(canonical, fs::path(item))) return Ok{};
  }
  return Denied(kind, canonical.string());
}

Result<base::UniqueFd> Permissions::OpenPath(PermissionKind kind, const fs::path& path) const {
  ALKNET_TRY(CheckPath(kind, path));
  const auto mode =
      kind == PermissionKind::kWrite ? base::OpenMode::kWriteTruncate : base::OpenMode::kRead;
  const fs::path canonical = CanonicalPath(path);
  const Grant_& g = grant(kind);
  if (g.all) {
    // Everything is granted: links in the existing part are resolved (CanonicalPath), the last
    // component is opened beneath its directory so a dangling link is still refused.
    return OpenWithin(canonical.parent_path(), canonical, mode);
  }
  // The longest grant covering the path anchors the open.
  const std::string* anchor = nullptr;
  for (const auto& item : g.items) {
    if (PathIsWithin(canonical, fs::path(item)) && (!anchor || item.size() > anchor->size())) {
      anchor = &item;
    }
  }
  if (anchor == nullptr) return Denied(kind, canonical.string());
  return OpenWithin(fs::path(*anchor), canonical, mode);
}

Result<base::UniqueFd> Permissions::OpenRead(const fs::path& path) const {
  return OpenPath(PermissionKind::kRead, path);
}

Result<base::UniqueFd> Permissions::OpenWrite(const fs::path& path) const {
  return OpenPath(PermissionKind::kWrite, path);
}

Result<Permissions::DirectoryEntry> Permissions::OpenWriteDirectory(const fs::path& path) const {
  ALKNET_TRY(CheckPath(PermissionKind::kWrite, path));
  const fs::path canonical = CanonicalPath(path);
  const fs::path parent = canonical.parent_path();
  DirectoryEntry out;
  out.name = canonical.filename().string();
  if (out.name.empty() || out.name == "." || out.name == "..") {
    return MakeError(canonical.string() + ": names a directory, not a file");
  }
  const Grant_& g = grant(PermissionKind::kWrite);
  const std::string* anchor = nullptr;
  if (!g.all) {
    for (const auto& item : g.items) {
      if (PathIsWithin(canonical, fs::path(item)) && (!anchor || item.size() > anchor->size())) {
        anchor = &item;
      }
    }
    if (anchor == nullptr) return Denied(PermissionKind::kWrite, canonical.string());
  }
  // The grant itself (or, for a grant of one file or of everything, the resolved parent) is
  // the trusted anchor; a directory strictly below a grant is opened beneath it.
  if (anchor == nullptr || fs::path(*anchor) == canonical || fs::path(*anchor) == parent) {
    out.dir = base::UniqueFd(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!out.dir.valid()) {
      return MakeError(parent.string() + ": cannot open the directory: " + std::strerror(errno));
    }
    return out;
  }
  const fs::path root(*anchor);
  auto fd = base::OpenBeneath(root.string(), parent.lexically_relative(root).string(),
                              base::OpenMode::kDirectory);
  if (!fd) return MakeError(std::move(fd).error().message);
  out.dir = std::move(fd).value();
  return out;
}

Result<std::string> Permissions::ReadFile(const fs::path& path, uint64_t max_bytes) const {
  ALKNET_ASSIGN_OR_RETURN(base::UniqueFd fd, OpenRead(path));
  auto text = base::ReadAllFd(fd.get(), path.native(), max_bytes);
  if (!text) return MakeError(std::move(text).error().message);
  return std::move(text).value();
}

Status Permissions::CheckRead(const fs::path& path) const {
  return CheckPath(PermissionKind::kRead, path);
}

Status Permissions::CheckWrite(const fs::path& path) const {
  return CheckPath(PermissionKind::kWrite, path);
}

Status Permissions::CheckNet(std::string_view host, uint16_t port) const {
  const Grant_& g = grant(PermissionKind::kNet);
  std::string with_port = std::string(host) + (port ? ":" + std::to_string(port) : "");
  if (g.all) return Ok{};
  for (const auto& item : g.items) {
    // "host" grants every port; "host:port" that port only.
    if (item == host || item == with_port) return Ok{};
  }
  return Denied(PermissionKind::kNet, with_port);
}

Status Permissions::CheckEnv(std::string_view name) const {
  const Grant_& g = grant(PermissionKind::kEnv);
  if (g.all) return Ok{};
  for (const auto& item : g.items) {
    if (item == name) return Ok{};
  }
  return Denied(PermissionKind::kEnv, std::string(name));
}

}  // namespace alknet::runtime
