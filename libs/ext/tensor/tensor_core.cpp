// The native half of alknet:tensor (js/tensor.js): metatensor (.mtf) files as typed arrays.
//
// open() maps the file copy-on-write (MAP_PRIVATE, read/write pages) and hands out each
// tensor as an external ArrayBuffer pointing into the mapping: no copy, and a script that
// writes into a typed array changes its private pages, never the file and never a read-only
// page (which would fault). The mapping lives until the last of its ArrayBuffers is collected.
// Every access is checked against --allow-read / --allow-write first.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>

#include "alknet/ext/tensor.h"
#include "alknet/runtime/native_module.h"
#include "alknet/tensor/reader.h"
#include "alknet/tensor/writer.h"

namespace alknet::ext::tensor_js {
struct EmbeddedFile {
  std::string_view name;
  std::string_view contents;
};
extern const EmbeddedFile kEmbeddedFiles[];  // tensor.js, embedded by CMakeLists.txt
}  // namespace alknet::ext::tensor_js

namespace alknet::runtime::sm::modules {

namespace {

namespace t = alknet::tensor;

struct Mapping {
  void* base = MAP_FAILED;
  size_t size = 0;
  ~Mapping() {
    if (base != MAP_FAILED) munmap(base, size);
  }
};

void ReleaseMapping(void*, void* user) { delete static_cast<std::shared_ptr<Mapping>*>(user); }

bool PathArg(JSContext* cx, const JS::CallArgs& args, std::filesystem::path* out) {
  if (!args.get(0).isString()) return ThrowTypeError(cx, "the path must be a string");
  *out = ToUtf8(cx, args.get(0).toString());
  return true;
}

bool Define(JSContext* cx, JS::HandleObject obj, const char* name, JS::HandleValue v) {
  return JS_DefineProperty(cx, obj, name, v, JSPROP_ENUMERATE);
}

bool MetadataToJs(JSContext* cx, const t::MetadataValue& m, JS::MutableHandleValue out) {
  auto number_array = [&](const auto& vec) -> bool {
    JS::RootedObject arr(cx, JS::NewArrayObject(cx, vec.size()));
    if (!arr) return false;
    for (size_t i = 0; i < vec.size(); ++i) {
      JS::RootedValue e(cx);
      using E = std::decay_t<decltype(vec[0])>;
      if constexpr (std::is_same_v<E, std::string>) {
        JSString* s = NewString(cx, vec[i]);
        if (!s) return false;
        e.setString(s);
      } else if constexpr (std::is_same_v<E, bool>) {
        e.setBoolean(vec[i]);
      } else {
        e.setNumber(static_cast<double>(vec[i]));
      }
      if (!JS_SetElement(cx, arr, static_cast<uint32_t>(i), e)) return false;
    }
    out.setObject(*arr);
    return true;
  };
  return std::visit(
      [&](const auto& v) -> bool {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, bool>) {
          out.setBoolean(v);
        } else if constexpr (std::is_same_v<V, int64_t> || std::is_same_v<V, uint64_t> ||
                             std::is_same_v<V, double>) {
          out.setNumber(static_cast<double>(v));
        } else if constexpr (std::is_same_v<V, std::string>) {
          JSString* s = NewString(cx, v);
          if (!s) return false;
          out.setString(s);
        } else if constexpr (std::is_same_v<V, t::Bytes>) {
          JSObject* a =
              NewUint8Array(cx, std::span(reinterpret_cast<const uint8_t*>(v.data()), v.size()));
          if (!a) return false;
          out.setObject(*a);
        } else {
          return number_array(v);
        }
        return true;
      },
      m);
}

// open(path) -> {metadata: {...}, tensors: [{name, dtype, shape, buffer}]}
bool Open(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  std::filesystem::path path;
  if (!PathArg(cx, args, &path)) return false;
  // Opened beneath the read grant (alknet/base/file.h): a regular file, no link or NUL leading
  // elsewhere, and a FIFO refused rather than waited on.
  auto fd = HostOf(cx).permissions->OpenRead(path);
  if (!fd) return ThrowStatus(cx, fd.error(), "NotFound");
  struct stat st {};
  auto mapping = std::make_shared<Mapping>();
  if (fstat(fd->get(), &st) != 0 || st.st_size == 0) {
    const std::string why = st.st_size == 0 ? "the file is empty" : std::strerror(errno);
    return ThrowError(cx, path.string() + ": not a metatensor file: " + why);
  }
  mapping->size = static_cast<size_t>(st.st_size);
  mapping->base = mmap(nullptr, mapping->size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd->get(), 0);
  const int map_errno = errno;
  *fd = base::UniqueFd();
  if (mapping->base == MAP_FAILED) {
    return ThrowError(cx, "cannot map " + path.string() + ": " + std::strerror(map_errno));
  }
  auto reader =
      t::Reader::FromMemory(std::span(static_cast<const std::byte*>(mapping->base), mapping->size));
  if (!reader)
    return ThrowError(cx, path.string() + ": " + reader.error().ToString(), "InvalidData");

  JS::RootedObject result(cx, JS_NewPlainObject(cx));
  JS::RootedObject meta(cx, JS_NewPlainObject(cx));
  JS::RootedObject list(cx, JS::NewArrayObject(cx, reader->tensors().size()));
  if (!result || !meta || !list) return false;
  for (const t::MetadataEntry& e : reader->metadata()) {
    JS::RootedValue v(cx);
    if (!MetadataToJs(cx, e.value, &v) ||
        !JS_DefineProperty(cx, meta, e.key.c_str(), v, JSPROP_ENUMERATE)) {
      return false;
    }
  }
  for (size_t i = 0; i < reader->tensors().size(); ++i) {
    auto view = reader->Tensor(i);
    if (!view) return ThrowError(cx, path.string() + ": " + view.error().ToString(), "InvalidData");
    JS::RootedObject o(cx, JS_NewPlainObject(cx));
    JS::RootedString name(cx, NewString(cx, view->name()));
    JS::RootedString dtype(cx, NewString(cx, t::Info(view->dtype()).name));
    JS::RootedObject shape(cx, JS::NewArrayObject(cx, view->rank()));
    if (!o || !name || !dtype || !shape) return false;
    for (size_t d = 0; d < view->rank(); ++d) {
      if (!JS_DefineElement(cx, shape, static_cast<uint32_t>(d),
                            static_cast<double>(view->shape()[d]), JSPROP_ENUMERATE)) {
        return false;
      }
    }
    auto* keep = new std::shared_ptr<Mapping>(mapping);
    // The view points into our own (writable, private) mapping, so dropping const is sound.
    void* data = const_cast<std::byte*>(view->data.data());
    JS::RootedObject buffer(
        cx, JS::NewExternalArrayBuffer(cx, view->data.size(), data, ReleaseMapping, keep));
    if (!buffer) {
      delete keep;
      return false;
    }
    JS::RootedValue nv(cx, JS::StringValue(name)), dv(cx, JS::StringValue(dtype)),
        sv(cx, JS::ObjectValue(*shape)), bv(cx, JS::ObjectValue(*buffer));
    if (!Define(cx, o, "name", nv) || !Define(cx, o, "dtype", dv) || !Define(cx, o, "shape", sv) ||
        !Define(cx, o, "buffer", bv) || !JS_SetElement(cx, list, static_cast<uint32_t>(i), o)) {
      return false;
    }
  }
  JS::RootedValue mv(cx, JS::ObjectValue(*meta)), lv(cx, JS::ObjectValue(*list));
  if (!Define(cx, result, "metadata", mv) || !Define(cx, result, "tensors", lv)) return false;
  args.rval().setObject(*result);
  return true;
}

bool MetadataFromJs(JSContext* cx, const std::string& key, JS::HandleValue v,
                    t::MetadataValue* out) {
  const std::string where = "metadata '" + key + "'";
  if (v.isBoolean()) {
    *out = v.toBoolean();
  } else if (v.isNumber()) {
    const double d = v.toNumber();
    if (std::floor(d) == d && std::fabs(d) <= 9007199254740991.0)
      *out = static_cast<int64_t>(d);
    else
      *out = d;
  } else if (v.isString()) {
    *out = ToUtf8(cx, v.toString());
  } else if (v.isObject()) {
    JS::RootedObject obj(cx, &v.toObject());
    if (JS_IsArrayBufferViewObject(obj)) {
      JS::AutoCheckCannotGC nogc;
      auto bytes = BytesOf(v, nogc);
      *out = t::Bytes(reinterpret_cast<const std::byte*>(bytes->data()),
                      reinterpret_cast<const std::byte*>(bytes->data()) + bytes->size());
      return true;
    }
    bool is_array = false;
    if (!JS::IsArrayObject(cx, obj, &is_array)) return false;
    if (!is_array)
      return ThrowTypeError(
          cx, where + ": values are booleans, numbers, strings, Uint8Arrays or arrays");
    uint32_t n = 0;
    if (!JS::GetArrayLength(cx, obj, &n)) return false;
    std::vector<int64_t> ints;
    std::vector<double> floats;
    std::vector<std::string> strings;
    std::vector<bool> bools;
    bool all_int = true;
    for (uint32_t i = 0; i < n; ++i) {
      JS::RootedValue e(cx);
      if (!JS_GetElement(cx, obj, i, &e)) return false;
      if (e.isString()) {
        strings.push_back(ToUtf8(cx, e.toString()));
      } else if (e.isBoolean()) {
        bools.push_back(e.toBoolean());
      } else if (e.isNumber()) {
        const double d = e.toNumber();
        if (std::floor(d) != d) all_int = false;
        ints.push_back(static_cast<int64_t>(d));
        floats.push_back(d);
      } else {
        return ThrowTypeError(cx, where + ": array elements must be numbers, strings or booleans");
      }
    }
    const size_t kinds = (!strings.empty()) + (!bools.empty()) + (!floats.empty());
    if (kinds > 1) return ThrowTypeError(cx, where + ": an array holds one kind of element");
    if (!strings.empty())
      *out = std::move(strings);
    else if (!bools.empty())
      *out = std::move(bools);
    else if (all_int)
      *out = std::move(ints);
    else
      *out = std::move(floats);
  } else {
    return ThrowTypeError(cx,
                          where + ": values are booleans, numbers, strings, Uint8Arrays or arrays");
  }
  return true;
}

// write(path, [{name, dtype, shape, data}], metadata) — atomically (temp file + rename).
bool Write(JSContext* cx, unsigned argc, JS::Value* vp) {
  JS::CallArgs args = JS::CallArgsFromVp(argc, vp);
  std::filesystem::path path;
  if (!PathArg(cx, args, &path)) return false;
  // The write grant is checked (a NUL byte refused before anything normalises the path), then
  // the directory is opened beneath the grant: the temporary file is created and renamed
  // relative to that descriptor, so swapping a directory of the path for a link meanwhile
  // cannot redirect the file. The rename replaces a link at `path` rather than following it.
  auto dir = HostOf(cx).permissions->OpenWriteDirectory(path);
  if (!dir) return ThrowStatus(cx, dir.error());
  bool is_array = false;
  if (!args.get(1).isObject() || !JS::IsArrayObject(cx, args.get(1), &is_array) || !is_array) {
    return ThrowTypeError(cx, "write: tensors must be an array of {name, dtype, shape, data}");
  }
  auto file = t::FileWriter::CreateIn(dir->dir.get(), dir->name, path.string());
  if (!file)
    return ThrowError(cx, "cannot write " + path.string() + ": " + file.error().ToString());
  t::Writer& w = (*file)->writer();
  if (args.get(2).isObject()) {
    JS::RootedObject meta(cx, &args.get(2).toObject());
    JS::Rooted<JS::IdVector> ids(cx, JS::IdVector(cx));
    if (!JS_Enumerate(cx, meta, &ids)) return false;
    for (size_t i = 0; i < ids.length(); ++i) {
      JS::RootedValue key(cx), value(cx);
      std::string k;
      if (!JS_IdToValue(cx, ids[i], &key) || !ValueToUtf8(cx, key, &k) ||
          !JS_GetPropertyById(cx, meta, ids[i], &value)) {
        return false;
      }
      t::MetadataValue m;
      if (!MetadataFromJs(cx, k, value, &m)) return false;
      if (auto s = w.SetMetadata(k, std::move(m)); !s) {
        return ThrowError(cx, path.string() + ": metadata '" + k + "': " + s.error().ToString());
      }
    }
  }
  JS::RootedObject arr(cx, &args.get(1).toObject());
  uint32_t n = 0;
  if (!JS::GetArrayLength(cx, arr, &n)) return false;
  for (uint32_t i = 0; i < n; ++i) {
    const std::string where = "write: tensors[" + std::to_string(i) + "]";
    JS::RootedValue e(cx), name(cx), dtype(cx), shape(cx), data(cx);
    if (!JS_GetElement(cx, arr, i, &e)) return false;
    if (!e.isObject()) return ThrowTypeError(cx, where + " is not an object");
    JS::RootedObject o(cx, &e.toObject());
    if (!JS_GetProperty(cx, o, "name", &name) || !JS_GetProperty(cx, o, "dtype", &dtype) ||
        !JS_GetProperty(cx, o, "shape", &shape) || !JS_GetProperty(cx, o, "data", &data)) {
      return false;
    }
    if (!name.isString() || !dtype.isString())
      return ThrowTypeError(cx, where + ": name and dtype must be strings");
    const std::string tname = ToUtf8(cx, name.toString());
    const std::string dt = ToUtf8(cx, dtype.toString());
    const t::DTypeInfo* info = t::FindDType(dt);
    if (info == nullptr)
      return ThrowTypeError(cx, where + " ('" + tname + "'): unknown dtype '" + dt + "'");
    std::vector<uint64_t> dims;
    bool shape_is_array = false;
    if (!shape.isObject() || !JS::IsArrayObject(cx, shape, &shape_is_array) || !shape_is_array) {
      return ThrowTypeError(cx, where + " ('" + tname + "'): shape must be an array");
    }
    JS::RootedObject sa(cx, &shape.toObject());
    uint32_t rank = 0;
    if (!JS::GetArrayLength(cx, sa, &rank)) return false;
    for (uint32_t d = 0; d < rank; ++d) {
      JS::RootedValue dv(cx);
      if (!JS_GetElement(cx, sa, d, &dv)) return false;
      if (!dv.isNumber() || dv.toNumber() < 0 || std::floor(dv.toNumber()) != dv.toNumber()) {
        return ThrowTypeError(cx, where + " ('" + tname + "'): shape[" + std::to_string(d) +
                                      "] is not a non-negative integer");
      }
      dims.push_back(static_cast<uint64_t>(dv.toNumber()));
    }
    JS::AutoCheckCannotGC nogc;
    auto bytes = BytesOf(data, nogc);
    if (!bytes)
      return ThrowTypeError(
          cx, where + " ('" + tname + "'): data must be a typed array or ArrayBuffer");
    // The writer checks that the byte count matches dtype and shape (rule names in the error).
    if (auto s = w.AddTensor(tname, info->dtype, dims, std::as_bytes(*bytes)); !s) {
      return ThrowError(cx, path.string() + ": tensor '" + tname + "': " + s.error().ToString());
    }
  }
  if (auto s = (*file)->Commit(); !s)
    return ThrowError(cx, "cannot write " + path.string() + ": " + s.error().ToString());
  args.rval().setUndefined();
  return true;
}

const JSFunctionSpec kTensorCore[] = {JS_FN("open", Open, 1, 0), JS_FN("write", Write, 3, 0),
                                      JS_FS_END};

}  // namespace

bool DefineTensorCore(JSContext* cx, JS::HandleObject core) {
  return JS_DefineFunctions(cx, core, kTensorCore);
}

}  // namespace alknet::runtime::sm::modules

namespace alknet::ext {
void InstallTensorModule() {
  runtime::RegisterNativeModule("tensor", tensor_js::kEmbeddedFiles[0].contents,
                                &runtime::sm::modules::DefineTensorCore);
}
}  // namespace alknet::ext
