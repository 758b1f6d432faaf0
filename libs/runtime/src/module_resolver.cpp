#include "alknet/runtime/module_resolver.h"

#include "alknet/base/file.h"
#include "alknet/base/json.h"
#include "alknet/runtime/permissions.h"

namespace alknet::runtime {

namespace fs = std::filesystem;
namespace json = base::json;

namespace {

constexpr std::string_view kFileScheme = "file://";
constexpr std::string_view kBuiltinScheme = "alknet:";
// package.json "exports" conditions we match, in our order of preference within an object
// (the object's own key order decides, as Node does; these are the keys we accept).
constexpr std::string_view kConditions[] = {"alknet", "import", "module", "default"};

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}
bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
bool IsRelative(std::string_view s) {
  return StartsWith(s, "./") || StartsWith(s, "../") || s == "." || s == "..";
}
bool IsUrlLike(std::string_view s) {
  return IsRelative(s) || StartsWith(s, "/") || StartsWith(s, kFileScheme);
}

// Import maps and package.json files: regular files (a FIFO is refused, not waited on) of a
// size a JSON document of this kind can sensibly have.
constexpr uint64_t kMaxManifestBytes = 64ull << 20;

Result<std::string> ReadFile(const fs::path& path) {
  auto text = base::ReadRegularFile(path.native(), kMaxManifestBytes);
  if (!text) return MakeError("cannot read " + std::move(text).error().message);
  return std::move(text).value();
}

// Import maps and package.json are read as JSON.parse reads them (a duplicate key: the last
// value wins); errors read "file:line:col: what".
Result<json::Value> ParseJsonFile(std::string_view text, const std::string& name) {
  json::ParseOptions options;
  options.duplicate_keys = json::DuplicateKeys::kLastWins;
  auto doc = json::Parse(text, options);
  if (!doc.ok()) return MakeError(name + ":" + doc.error().ToString());
  return std::move(doc).value();
}

const json::Object* AsObject(const json::Value& v) {
  return v.is_object() ? &v.as_object() : nullptr;
}
const json::Array* AsArray(const json::Value& v) { return v.is_array() ? &v.as_array() : nullptr; }
const std::string* AsString(const json::Value* v) {
  return v != nullptr && v->is_string() ? &v->as_string() : nullptr;
}

ModuleLocation FileModule(const fs::path& path) {
  ModuleLocation m;
  m.path = CanonicalPath(path);
  m.kind =
      m.path.extension() == ".json" ? ModuleLocation::Kind::kJson : ModuleLocation::Kind::kFile;
  return m;
}

std::string ReferrerName(const ModuleLocation* referrer) {
  return referrer ? referrer->Url() : std::string("the command line");
}

// Resolves an import-map address (URL, absolute path or relative to the map) to a string the
// resolver accepts as a specifier.
std::string NormaliseAddress(std::string_view address, const fs::path& base_dir) {
  if (StartsWith(address, kBuiltinScheme) || StartsWith(address, kFileScheme)) {
    return std::string(address);
  }
  if (IsRelative(address) || StartsWith(address, "/")) {
    bool trailing_slash = EndsWith(address, "/");
    std::string p = (fs::path(address).is_absolute() ? fs::path(address) : base_dir / address)
                        .lexically_normal()
                        .string();
    if (trailing_slash && !EndsWith(p, "/")) p += "/";
    return std::string(kFileScheme) + p;
  }
  return std::string(address);
}

Result<std::map<std::string, std::string>> ParseSpecifierMap(const json::Value& v,
                                                             const fs::path& file,
                                                             std::string_view where) {
  const json::Object* o = AsObject(v);
  if (o == nullptr)
    return MakeError(file.string() + ": \"" + std::string(where) + "\" must be an object");
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : *o) {
    const std::string* target = AsString(&value);
    if (target == nullptr) {
      return MakeError(file.string() + ": \"" + std::string(where) + "\" entry \"" + key +
                       "\" must map to a string");
    }
    if (EndsWith(key, "/") && !EndsWith(*target, "/")) {
      return MakeError(file.string() + ": \"" + key + "\" ends with '/' so its address \"" +
                       *target + "\" must too");
    }
    std::string k = IsUrlLike(key) ? NormaliseAddress(key, file.parent_path()) : key;
    out[k] = NormaliseAddress(*target, file.parent_path());
  }
  return out;
}

// Import-map lookup: an exact key, else the longest key ending in "/" that prefixes it.
std::optional<std::string> LookUp(const std::map<std::string, std::string>& map,
                                  std::string_view specifier) {
  if (auto it = map.find(std::string(specifier)); it != map.end()) return it->second;
  const std::string* best_key = nullptr;
  const std::string* best_value = nullptr;
  for (const auto& [key, value] : map) {
    if (EndsWith(key, "/") && StartsWith(specifier, key) &&
        (best_key == nullptr || key.size() > best_key->size())) {
      best_key = &key;
      best_value = &value;
    }
  }
  if (best_key == nullptr) return std::nullopt;
  return *best_value + std::string(specifier.substr(best_key->size()));
}

// package.json "exports" target resolution (Node's PACKAGE_TARGET_RESOLVE, conditions above).
// Sets saw_require when a "require"-only branch was the reason for no match.
std::optional<std::string> ResolveTarget(const json::Value& target, std::string_view star,
                                         bool& saw_require) {
  if (const std::string* s = AsString(&target)) {
    if (!StartsWith(*s, "./")) return std::nullopt;
    std::string out = *s;
    if (auto p = out.find('*'); p != std::string::npos) out.replace(p, 1, star);
    return out;
  }
  if (const json::Array* a = AsArray(target)) {
    for (const auto& item : *a) {
      if (auto r = ResolveTarget(item, star, saw_require)) return r;
    }
    return std::nullopt;
  }
  if (const json::Object* o = AsObject(target)) {
    for (const auto& [cond, value] : *o) {
      bool ours = false;
      for (auto c : kConditions) ours = ours || cond == c;
      if (cond == "require") saw_require = true;
      if (!ours) continue;
      if (auto r = ResolveTarget(value, star, saw_require)) return r;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string ModuleLocation::Url() const {
  if (kind == Kind::kBuiltin) return std::string(kBuiltinScheme) + builtin;
  return std::string(kFileScheme) + path.string();
}

Result<ImportMap> ImportMap::Load(const fs::path& file) {
  auto text = ReadFile(file);
  if (!text) return MakeError("the import map: " + text.error().message);
  return Parse(*text, CanonicalPath(file));
}

Result<ImportMap> ImportMap::Parse(std::string_view text, const fs::path& file) {
  auto doc = ParseJsonFile(text, file.string());
  if (!doc) return doc.error();
  if (!doc->is_object()) return MakeError(file.string() + ": an import map is a JSON object");
  ImportMap map;
  map.file = file;
  for (const auto& [key, value] : doc->as_object()) {
    if (key == "imports") {
      auto m = ParseSpecifierMap(value, file, "imports");
      if (!m) return m.error();
      map.imports = std::move(*m);
    } else if (key == "scopes") {
      if (!value.is_object()) return MakeError(file.string() + ": \"scopes\" must be an object");
      for (const auto& [scope, specifiers] : value.as_object()) {
        auto m = ParseSpecifierMap(specifiers, file, scope);
        if (!m) return m.error();
        map.scopes[NormaliseAddress(scope, file.parent_path())] = std::move(*m);
      }
    } else {
      return MakeError(file.string() + ": unknown key \"" + key +
                       "\" (an import map has \"imports\" and \"scopes\")");
    }
  }
  return map;
}

ModuleResolver::ModuleResolver(std::set<std::string> builtins, std::optional<ImportMap> import_map)
    : builtins_(std::move(builtins)), import_map_(std::move(import_map)) {}

std::optional<std::string> ModuleResolver::MapThroughImportMap(
    std::string_view specifier, const ModuleLocation* referrer) const {
  if (!import_map_) return std::nullopt;
  std::string key(specifier);
  if (IsRelative(specifier) || StartsWith(specifier, "/")) {
    fs::path base = referrer && referrer->kind != ModuleLocation::Kind::kBuiltin
                        ? referrer->path.parent_path()
                        : fs::current_path();
    key = NormaliseAddress(specifier, base);
  }
  if (referrer) {
    // Scopes: the longest scope prefix of the referrer's URL wins.
    std::string url = referrer->Url();
    const std::map<std::string, std::string>* best = nullptr;
    size_t best_len = 0;
    for (const auto& [scope, map] : import_map_->scopes) {
      if (StartsWith(url, scope) && scope.size() >= best_len) {
        best = &map;
        best_len = scope.size();
      }
    }
    if (best) {
      if (auto r = LookUp(*best, key)) return r;
    }
  }
  return LookUp(import_map_->imports, key);
}

Result<ModuleLocation> ModuleResolver::Resolve(std::string_view specifier,
                                               const ModuleLocation* referrer) const {
  if (auto mapped = MapThroughImportMap(specifier, referrer)) {
    if (!StartsWith(*mapped, kBuiltinScheme) && !IsUrlLike(*mapped)) {
      return MakeError("import map entry for \"" + std::string(specifier) + "\" maps to \"" +
                       *mapped + "\", which is neither a path nor a URL");
    }
    return Resolve(*mapped, nullptr);
  }
  if (StartsWith(specifier, kBuiltinScheme)) {
    std::string name(specifier.substr(kBuiltinScheme.size()));
    if (builtins_.count(name) == 0) {
      std::string known;
      for (const auto& b : builtins_) known += (known.empty() ? "" : ", ") + ("alknet:" + b);
      return MakeError("unknown built-in module \"" + std::string(specifier) + "\" imported from " +
                       ReferrerName(referrer) + " (built-ins: " + known + ")");
    }
    ModuleLocation m;
    m.kind = ModuleLocation::Kind::kBuiltin;
    m.builtin = std::move(name);
    return m;
  }
  fs::path base_dir = referrer && referrer->kind != ModuleLocation::Kind::kBuiltin
                          ? referrer->path.parent_path()
                          : fs::current_path();
  if (IsUrlLike(specifier) || referrer == nullptr) {
    // The entry point may be given as a plain path ("main.js"), as for `node main.js`.
    return ResolveUrlLike(specifier, base_dir, specifier);
  }
  if (StartsWith(specifier, "node:")) {
    return MakeError("\"" + std::string(specifier) + "\" imported from " + ReferrerName(referrer) +
                     ": Node's built-in modules are not available in alknet");
  }
  if (specifier.find(':') != std::string_view::npos) {
    return MakeError("unsupported URL scheme in \"" + std::string(specifier) + "\" imported from " +
                     ReferrerName(referrer) + " (alknet loads file paths, alknet: and packages)");
  }
  auto r = ResolvePackage(specifier, base_dir);
  if (!r) return MakeError(r.error().message + " (imported from " + ReferrerName(referrer) + ")");
  return r;
}

Result<ModuleLocation> ModuleResolver::ResolveUrlLike(std::string_view specifier,
                                                      const fs::path& base_dir,
                                                      std::string_view original) const {
  std::string_view s = specifier;
  if (StartsWith(s, kFileScheme)) s.remove_prefix(kFileScheme.size());
  fs::path p = fs::path(s).is_absolute() ? fs::path(s) : base_dir / fs::path(s);
  p = p.lexically_normal();
  std::error_code ec;
  if (fs::is_regular_file(p, ec)) {
    if (p.extension() == ".cjs") {
      return MakeError(p.string() + " is a CommonJS module (.cjs); alknet loads ES modules only");
    }
    return FileModule(p);
  }
  std::string msg =
      "Module not found \"" + std::string(original) + "\" (looked for " + p.string() + ")";
  for (const char* ext : {".js", ".mjs", ".json", "/index.js"}) {
    fs::path guess = p.string() + ext;
    if (fs::is_regular_file(guess, ec)) {
      msg += "; ES module specifiers need the full file name: did you mean \"" +
             std::string(original) + ext + "\"?";
      break;
    }
  }
  return MakeError(msg);
}

Result<ModuleLocation> ModuleResolver::ResolvePackage(std::string_view specifier,
                                                      const fs::path& from_dir) const {
  // "@scope/name/sub/path" -> ("@scope/name", "./sub/path"); "name" -> ("name", ".").
  size_t name_end = specifier.find('/');
  if (StartsWith(specifier, "@")) {
    if (name_end == std::string_view::npos) {
      return MakeError("invalid package specifier \"" + std::string(specifier) + "\"");
    }
    name_end = specifier.find('/', name_end + 1);
  }
  std::string name(specifier.substr(0, name_end));
  std::string subpath =
      name_end == std::string_view::npos ? "." : "." + std::string(specifier.substr(name_end));

  fs::path package_dir;
  std::string searched;
  std::error_code ec;
  for (fs::path dir = from_dir;; dir = dir.parent_path()) {
    fs::path candidate = dir / "node_modules" / name;
    searched += (searched.empty() ? "" : ", ") + (dir / "node_modules").string();
    if (fs::is_regular_file(candidate / "package.json", ec)) {
      package_dir = candidate;
      break;
    }
    if (dir == dir.parent_path()) break;
  }
  if (package_dir.empty()) {
    return MakeError("Cannot find package \"" + name + "\" (searched " + searched +
                     "); install it with npm, or map \"" + name + "\" with --import-map");
  }
  fs::path manifest = package_dir / "package.json";
  auto text = ReadFile(manifest);
  if (!text) return text.error();
  auto pkg = ParseJsonFile(*text, manifest.string());
  if (!pkg) return pkg.error();

  const std::string* type = AsString(pkg->find("type"));
  const bool esm_package = type && *type == "module";
  const std::string commonjs_hint =
      "; alknet loads ES modules only (CommonJS, i.e. require/module.exports, is not supported): "
      "use the package's ES-module build, e.g. through --import-map";

  if (const json::Value* exports = pkg->find("exports")) {
    // "exports": "./x.js" | [...] | {conditions} are shorthand for {".": ...}.
    bool subpath_keys = false;
    if (const json::Object* o = AsObject(*exports)) {
      for (const auto& [k, v] : *o) subpath_keys = subpath_keys || StartsWith(k, ".");
    }
    const json::Value* target = nullptr;
    std::string star;
    json::Object shorthand;
    const json::Object* table = nullptr;
    if (subpath_keys) {
      table = AsObject(*exports);
    } else {
      shorthand.append(".", *exports);
      table = &shorthand;
    }
    if (const json::Value* exact = table->find(subpath)) {
      target = exact;
    } else {
      size_t best = 0;
      for (const auto& [key, value] : *table) {
        size_t st = key.find('*');
        if (st == std::string::npos) continue;
        std::string_view prefix = std::string_view(key).substr(0, st);
        std::string_view suffix = std::string_view(key).substr(st + 1);
        if (StartsWith(subpath, prefix) && EndsWith(subpath, suffix) &&
            subpath.size() >= prefix.size() + suffix.size() && prefix.size() >= best) {
          best = prefix.size();
          target = &value;
          star = subpath.substr(prefix.size(), subpath.size() - prefix.size() - suffix.size());
        }
      }
    }
    if (target == nullptr) {
      return MakeError("package \"" + name + "\" does not export \"" + subpath + "\" (" +
                       manifest.string() + " \"exports\")");
    }
    bool saw_require = false;
    auto resolved = ResolveTarget(*target, star, saw_require);
    if (!resolved) {
      if (saw_require) {
        return MakeError("package \"" + name + "\" exports \"" + subpath +
                         "\" only under the \"require\" condition" + commonjs_hint);
      }
      return MakeError("package \"" + name + "\" has no \"import\"/\"default\" target for \"" +
                       subpath + "\" in " + manifest.string());
    }
    fs::path file = (package_dir / *resolved).lexically_normal();
    if (file.extension() == ".cjs") {
      return MakeError("package \"" + name + "\" resolves to " + file.string() + commonjs_hint);
    }
    if (!fs::is_regular_file(file, ec)) {
      return MakeError("package \"" + name + "\" exports \"" + subpath + "\" as " + file.string() +
                       ", which does not exist");
    }
    return FileModule(file);
  }

  fs::path file;
  if (subpath == ".") {
    const std::string* module = AsString(pkg->find("module"));
    const std::string* main = AsString(pkg->find("main"));
    if (module) {
      file = package_dir / *module;
    } else {
      std::string main_file = main ? *main : "index.js";
      file = package_dir / main_file;
      if (!esm_package && file.extension() != ".mjs") {
        return MakeError("package \"" + name + "\" is CommonJS (\"main\": \"" + main_file +
                         "\", no \"type\": \"module\", \"module\" or \"exports\" in " +
                         manifest.string() + ")" + commonjs_hint);
      }
    }
  } else {
    file = package_dir / subpath;
  }
  file = file.lexically_normal();
  if (file.extension() == ".cjs") {
    return MakeError("package \"" + name + "\" resolves to " + file.string() + commonjs_hint);
  }
  if (!fs::is_regular_file(file, ec)) {
    return MakeError("package \"" + name + "\": " + file.string() + " does not exist");
  }
  return FileModule(file);
}

}  // namespace alknet::runtime
