// Where an import specifier leads. Engine-independent: the engine asks, then loads.
//
// Order, as in browsers/Deno/Node:
//   1. the import map (--import-map FILE: "imports" and "scopes", WICG import-maps),
//   2. "alknet:NAME" built-in modules,
//   3. relative ("./", "../") and absolute ("/", "file://") paths, which must name the file
//      exactly (no extension guessing, as in ES modules everywhere),
//   4. bare specifiers ("pkg", "@scope/pkg/sub") through node_modules, walking up from the
//      importing module: package.json "exports" (conditions "alknet", "import", "module",
//      "default"), else "module", else "main". CommonJS packages are refused with an error
//      that says so.
// A ".json" file is a JSON module (its default export is the parsed value).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "alknet/runtime/result.h"

namespace alknet::runtime {

struct ModuleLocation {
  enum class Kind { kBuiltin, kFile, kJson };
  Kind kind = Kind::kFile;
  std::string builtin;         // "fs" for alknet:fs
  std::filesystem::path path;  // absolute, normalised (kFile, kJson)

  // The module's URL: "alknet:fs" or "file:///abs/path.js"; also its key in the module map.
  std::string Url() const;
};

struct ImportMap {
  // Specifier (or prefix ending in "/") -> URL or absolute path.
  std::map<std::string, std::string> imports;
  // Scope URL prefix -> its own specifier map.
  std::map<std::string, std::map<std::string, std::string>> scopes;
  std::filesystem::path file;

  // Parses an import map file; addresses are resolved against the file's directory.
  static Result<ImportMap> Load(const std::filesystem::path& file);
  static Result<ImportMap> Parse(std::string_view json, const std::filesystem::path& file);
};

class ModuleResolver {
 public:
  ModuleResolver(std::set<std::string> builtins, std::optional<ImportMap> import_map);

  // `referrer` is the importing module (nullptr: the entry point, resolved against the cwd).
  Result<ModuleLocation> Resolve(std::string_view specifier, const ModuleLocation* referrer) const;

  const std::set<std::string>& builtins() const { return builtins_; }
  const std::optional<ImportMap>& import_map() const { return import_map_; }

 private:
  Result<ModuleLocation> ResolveUrlLike(std::string_view specifier,
                                        const std::filesystem::path& base_dir,
                                        std::string_view original) const;
  Result<ModuleLocation> ResolvePackage(std::string_view specifier,
                                        const std::filesystem::path& from_dir) const;
  std::optional<std::string> MapThroughImportMap(std::string_view specifier,
                                                 const ModuleLocation* referrer) const;

  std::set<std::string> builtins_;
  std::optional<ImportMap> import_map_;
};

}  // namespace alknet::runtime
