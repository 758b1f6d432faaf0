// ES modules on SpiderMonkey: the resolve, import.meta and dynamic-import hooks. Resolution
// itself is the engine-independent ModuleResolver; this file compiles and links.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "embedded_js.h"
#include "extensions.h"
#include "spidermonkey/sm.h"

namespace alknet::runtime::sm {

namespace {

ModuleInfo* InfoOf(JS::HandleValue private_value) {
  if (private_value.isUndefined()) return nullptr;
  return static_cast<ModuleInfo*>(private_value.toPrivate());
}

// A JSON module is compiled as `export default JSON.parse("<text>")`, so a syntax error in the
// JSON surfaces as an exception when the importing graph evaluates, naming the file.
std::string JsonModuleSource(std::string_view json) {
  std::string out = "export default JSON.parse(\"";
  out.reserve(json.size() + 40);
  for (char c : json) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += "\");\n";
  return out;
}

JSObject* ResolveHook(JSContext* cx, JS::HandleValue referencing_private,
                      JS::HandleObject module_request) {
  return SmEngine::From(cx)->ResolveImport(referencing_private, module_request);
}

bool MetadataHook(JSContext* cx, JS::HandleValue private_value, JS::HandleObject meta) {
  ModuleInfo* info = InfoOf(private_value);
  if (info == nullptr) return true;
  JS::RootedString url(cx, NewString(cx, info->url));
  if (!url || !JS_DefineProperty(cx, meta, "url", url, JSPROP_ENUMERATE)) return false;
  if (info->location.kind == ModuleLocation::Kind::kBuiltin) {
    // A built-in module's native half, reachable from that module only.
    JS::RootedObject core(cx, CreateNativeCore(cx, info->location.builtin));
    if (JS_IsExceptionPending(cx)) return false;
    if (core && !JS_DefineProperty(cx, meta, "native", core, 0)) return false;
  }
  return true;
}

bool DynamicImportHook(JSContext* cx, JS::HandleValue referencing_private,
                       JS::HandleObject module_request, JS::HandleObject promise) {
  SmEngine* engine = SmEngine::From(cx);
  JS::RootedObject module(cx, engine->ResolveImport(referencing_private, module_request));
  JS::RootedValue rval(cx);
  JS::RootedObject evaluation(cx);
  if (module && JS::ModuleInstantiate(cx, module) && JS::ModuleEvaluate(cx, module, &rval)) {
    if (rval.isObject()) evaluation = &rval.toObject();
  }
  if (!evaluation) {
    // Loading failed: hand the exception to the import() promise through a rejected one.
    JS::RootedValue error(cx);
    if (!JS_GetPendingException(cx, &error)) return false;
    JS_ClearPendingException(cx);
    evaluation = JS::NewPromiseObject(cx, nullptr);
    if (!evaluation || !JS::RejectPromise(cx, evaluation, error)) return false;
  }
  return JS::FinishDynamicModuleImport(cx, evaluation, referencing_private, module_request,
                                       promise);
}

bool SupportedAssertionsHook(JSContext*, JS::ImportAssertionVector& values) {
  // `import x from "./a.json" assert { type: "json" }` parses; the file extension decides.
  return values.append(JS::ImportAssertion::Type);
}

}  // namespace

void SmEngine::InstallModuleHooks() {
  JSRuntime* rt = JS_GetRuntime(cx_);
  JS::SetModuleResolveHook(rt, &ResolveHook);
  JS::SetModuleMetadataHook(rt, &MetadataHook);
  JS::SetModuleDynamicImportHook(rt, &DynamicImportHook);
  JS::SetSupportedAssertionsHook(rt, &SupportedAssertionsHook);
}

JSObject* SmEngine::ResolveImport(JS::HandleValue referencing_private,
                                  JS::HandleObject module_request) {
  JS::RootedString spec(cx_, JS::GetModuleRequestSpecifier(cx_, module_request));
  if (!spec) return nullptr;
  std::string specifier = ToUtf8(cx_, spec);
  ModuleInfo* referrer = InfoOf(referencing_private);
  ModuleLocation repl_referrer;
  const ModuleLocation* from = referrer ? &referrer->location : nullptr;
  if (from == nullptr) {
    // import() from a script (the REPL): relative to the working directory.
    repl_referrer.path = std::filesystem::current_path() / "[repl]";
    from = &repl_referrer;
  }
  auto location = host_.resolver->Resolve(specifier, from);
  if (!location) {
    ThrowError(cx_, location.error().message, "TypeError");
    return nullptr;
  }
  return GetOrCompileModule(*location);
}

JSObject* SmEngine::GetOrCompileModule(const ModuleLocation& location,
                                       std::optional<std::string_view> source_override) {
  std::string url = location.Url();
  if (auto it = modules_.find(url); it != modules_.end()) return it->second->get();

  std::string source;
  if (source_override) {
    source = std::string(*source_override);
  } else if (location.kind == ModuleLocation::Kind::kBuiltin) {
    if (const auto* file = embedded::FindEmbeddedFile(location.builtin + ".js")) {
      source = std::string(file->contents);
    } else if (auto ext = ExtensionModuleSource(location.builtin)) {
      source = std::string(*ext);
    } else {
      ThrowError(cx_, "built-in module alknet:" + location.builtin + " is not embedded",
                 "TypeError");
      return nullptr;
    }
  } else {
    auto text = host_.read_module ? host_.read_module(location)
                                  : Result<std::string>(MakeError("no module loader"));
    if (!text) {
      Error e = std::move(text).error();
      // A denial keeps its "Requires ..." text, which makes it a PermissionDenied.
      if (e.message.rfind("Requires ", 0) != 0) {
        e.message = "cannot load module " + location.Url() + ": " + e.message;
      }
      ThrowStatus(cx_, e, "TypeError");
      return nullptr;
    }
    source = std::move(text).value();
    if (location.kind == ModuleLocation::Kind::kJson) source = JsonModuleSource(source);
  }

  JS::CompileOptions opts(cx_);
  opts.setFileAndLine(url.c_str(), 1);
  JS::SourceText<mozilla::Utf8Unit> src;
  if (!src.init(cx_, source.data(), source.size(), JS::SourceOwnership::Borrowed)) return nullptr;
  JS::RootedObject module(cx_, JS::CompileModule(cx_, opts, src));
  if (!module) return nullptr;

  auto info = std::make_unique<ModuleInfo>(ModuleInfo{location, url});
  JS::SetModulePrivate(module, JS::PrivateValue(info.get()));
  module_infos_.push_back(std::move(info));
  modules_.emplace(url, std::make_unique<JS::PersistentRootedObject>(cx_, module));
  return module;
}

}  // namespace alknet::runtime::sm
