// alknet._native's tensor half: metatensor files mapped read-only with numpy views into the
// mapping, the streaming atomic writer, and conversion from foreign files.
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "alknet/tensor/convert/npy.h"
#include "alknet/tensor/convert/to_mtf.h"
#include "alknet/tensor/tensor.h"
#include "common.h"
#include "modules.h"

namespace alknet::python {

namespace {

namespace at = alknet::tensor;
namespace tc = alknet::tensor::convert;
namespace fs = std::filesystem;

// An open .mtf file. Arrays handed out have this object as their .base, so the mapping lives
// until the last array of it is gone, whatever the Python File wrapper does.
struct MappedFile {
  std::string path;
  at::Reader reader;
};

const at::TensorView& ViewNamed(const MappedFile& f, const std::string& name, at::TensorView& out) {
  out = Value(f.reader.Find(name));
  return out;
}

py::object MetadataToPython(const at::MetadataValue& v) {
  return std::visit(
      [](const auto& x) -> py::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, at::Bytes>) {
          return py::bytes(reinterpret_cast<const char*>(x.data()), x.size());
        } else if constexpr (std::is_same_v<T, std::vector<bool>>) {
          py::list l;
          for (bool b : x) l.append(py::bool_(b));
          return l;
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>> ||
                             std::is_same_v<T, std::vector<uint64_t>> ||
                             std::is_same_v<T, std::vector<double>> ||
                             std::is_same_v<T, std::vector<std::string>>) {
          py::list l;
          for (const auto& e : x) l.append(py::cast(e));
          return l;
        } else {
          return py::cast(x);
        }
      },
      v);
}

// Python value -> metadata entry: bool, int (i64, or u64 above its range), float, str, bytes,
// or a non-empty list of one of bool/int/float/str.
at::MetadataValue MetadataFromPython(const std::string& key, const py::handle& v) {
  auto bad = [&](const std::string& why) {
    return py::type_error("metadata '" + key + "': " + why +
                          " (values are bool, int, float, str, bytes or a list of one of "
                          "bool/int/float/str)");
  };
  auto as_int = [&](const py::handle& x) -> std::variant<int64_t, uint64_t> {
    const py::int_ i = py::reinterpret_borrow<py::int_>(x);
    if (py::int_(0) <= i && i > py::int_(INT64_MAX)) {
      if (i > py::int_(UINT64_MAX)) throw bad("integer above 2**64-1");
      return static_cast<uint64_t>(py::cast<unsigned long long>(i));
    }
    if (i < py::int_(INT64_MIN)) throw bad("integer below -2**63");
    return static_cast<int64_t>(py::cast<long long>(i));
  };
  if (py::isinstance<py::bool_>(v)) return py::cast<bool>(v);
  if (py::isinstance<py::int_>(v)) {
    auto i = as_int(v);
    if (std::holds_alternative<uint64_t>(i)) return std::get<uint64_t>(i);
    return std::get<int64_t>(i);
  }
  if (py::isinstance<py::float_>(v)) return py::cast<double>(v);
  if (py::isinstance<py::str>(v)) return py::cast<std::string>(v);
  if (py::isinstance<py::bytes>(v)) {
    const std::string s = py::cast<std::string>(v);
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    return at::Bytes(p, p + s.size());
  }
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    const py::sequence seq = py::reinterpret_borrow<py::sequence>(v);
    if (seq.size() == 0) throw bad("an empty list has no element type");
    const py::handle first = seq[0];
    auto all = [&](auto pred) {
      for (const auto& e : seq)
        if (!pred(e)) return false;
      return true;
    };
    if (py::isinstance<py::bool_>(first)) {
      if (!all([](py::handle e) { return py::isinstance<py::bool_>(e); }))
        throw bad("a list mixes types");
      std::vector<bool> out;
      for (const auto& e : seq) out.push_back(py::cast<bool>(e));
      return out;
    }
    if (py::isinstance<py::int_>(first)) {
      if (!all([](py::handle e) {
            return py::isinstance<py::int_>(e) && !py::isinstance<py::bool_>(e);
          }))
        throw bad("a list mixes types");
      std::vector<int64_t> out;
      for (const auto& e : seq) {
        auto i = as_int(e);
        if (std::holds_alternative<uint64_t>(i)) throw bad("list integers must fit int64");
        out.push_back(std::get<int64_t>(i));
      }
      return out;
    }
    if (py::isinstance<py::float_>(first)) {
      if (!all([](py::handle e) { return py::isinstance<py::float_>(e); }))
        throw bad("a list mixes types");
      std::vector<double> out;
      for (const auto& e : seq) out.push_back(py::cast<double>(e));
      return out;
    }
    if (py::isinstance<py::str>(first)) {
      if (!all([](py::handle e) { return py::isinstance<py::str>(e); }))
        throw bad("a list mixes types");
      std::vector<std::string> out;
      for (const auto& e : seq) out.push_back(py::cast<std::string>(e));
      return out;
    }
    throw bad("unsupported list element type");
  }
  throw bad("unsupported type " + Str(v.get_type().attr("__name__")));
}

py::dict InfoDict(const at::TensorInfo& t) {
  py::dict d;
  d["name"] = std::string(t.name);
  d["dtype"] = std::string(at::Info(t.dtype).name);
  py::list shape;
  for (uint64_t s : t.shape) shape.append(s);
  d["shape"] = py::tuple(shape);
  d["offset"] = t.offset;
  d["byte_length"] = t.byte_length;
  d["crc32c"] = t.checksum ? py::cast(*t.checksum) : py::none();
  return d;
}

std::vector<int64_t> Dims(std::span<const uint64_t> shape) {
  return std::vector<int64_t>(shape.begin(), shape.end());
}

}  // namespace

void BindTensor(py::module_& m) {
  py::class_<MappedFile>(m, "MappedFile",
                         "A validated, memory-mapped .mtf file (alknet.tensor.File wraps it).")
      .def_readonly("path", &MappedFile::path)
      .def_property_readonly("size", [](const MappedFile& f) { return f.reader.source_size(); })
      .def("names",
           [](const MappedFile& f) {
             py::list l;
             for (const auto& t : f.reader.tensors()) l.append(std::string(t.name));
             return l;
           })
      .def("info",
           [](const MappedFile& f, const std::string& name) {
             const size_t i = Value(f.reader.IndexOf(name));
             return InfoDict(f.reader.tensors()[i]);
           })
      .def(
          "array",
          [](py::object self, const std::string& name) {
            const MappedFile& f = self.cast<const MappedFile&>();
            at::TensorView v;
            ViewNamed(f, name, v);
            auto dt = NumpyDTypeOf(v.dtype());
            if (!dt) {
              throw py::type_error("tensor '" + name + "' is " +
                                   std::string(at::Info(v.dtype()).name) +
                                   ", which numpy has no dtype for; raw(name) gives its bytes");
            }
            return ViewOf(*dt, Dims(v.shape()), v.data.data(), self);
          },
          "A read-only numpy view of the tensor's bytes in the mapping (no copy).")
      .def(
          "raw",
          [](py::object self, const std::string& name) {
            const MappedFile& f = self.cast<const MappedFile&>();
            at::TensorView v;
            ViewNamed(f, name, v);
            return ViewOf(py::dtype("uint8"), {static_cast<int64_t>(v.data.size())}, v.data.data(),
                          self);
          },
          "The tensor's stored bytes as a read-only uint8 view (any dtype, no copy).")
      .def("metadata",
           [](const MappedFile& f) {
             py::dict d;
             for (const auto& e : f.reader.metadata())
               d[py::str(e.key)] = MetadataToPython(e.value);
             return d;
           })
      .def("verify", [](const MappedFile& f) {
        py::gil_scoped_release nogil;
        Check(f.reader.VerifyPadding());
        Check(f.reader.VerifyChecksums());
      });

  m.def(
      "open_mtf",
      [](const std::string& path, bool verify) {
        at::ReadOptions o;
        o.strict_padding = verify;
        o.verify_checksums = verify;
        std::unique_ptr<MappedFile> f;
        {
          py::gil_scoped_release nogil;
          auto r = at::Reader::Open(path, o);
          if (!r.ok()) Throw(r.error());
          f = std::make_unique<MappedFile>(MappedFile{path, std::move(r).value()});
        }
        return f;
      },
      py::arg("path"), py::arg("verify") = false);

  m.def(
      "save_mtf",
      [](const std::string& path, const py::list& items, const py::dict& metadata,
         uint32_t alignment, bool checksums, bool index_first) {
        at::WriteOptions o;
        o.alignment = alignment;
        o.checksums = checksums && !index_first;
        o.placement =
            index_first ? at::IndexPlacement::kBeforeData : at::IndexPlacement::kAfterData;
        struct Item {
          std::string name;
          at::DType dtype;
          std::vector<uint64_t> shape;
          py::array array;  // kept referenced (and contiguous) while the GIL is released
        };
        std::vector<Item> prepared;
        for (const auto& it : items) {
          const py::tuple pair = py::reinterpret_borrow<py::tuple>(it);
          Item x;
          x.name = py::cast<std::string>(pair[0]);
          x.array = Contiguous(pair[1]);
          x.dtype = DTypeOfNumpy(x.array.dtype(), "tensor '" + x.name + "'");
          for (py::ssize_t i = 0; i < x.array.ndim(); ++i)
            x.shape.push_back(static_cast<uint64_t>(x.array.shape(i)));
          prepared.push_back(std::move(x));
        }
        std::vector<std::pair<std::string, at::MetadataValue>> meta;
        for (const auto& [k, v] : metadata) {
          const std::string key = py::cast<std::string>(k);
          meta.emplace_back(key, MetadataFromPython(key, v));
        }
        py::gil_scoped_release nogil;
        auto fw = Value(at::FileWriter::Create(path, o));
        at::Writer& w = fw->writer();
        for (auto& [k, v] : meta) Check(w.SetMetadata(k, std::move(v)));
        if (index_first) {
          for (const auto& x : prepared) Check(w.Declare(x.name, x.dtype, x.shape));
        }
        for (const auto& x : prepared) {
          const auto* p = static_cast<const std::byte*>(x.array.data());
          const auto n = static_cast<size_t>(x.array.nbytes());
          Check(w.BeginTensor(x.name, x.dtype, x.shape));
          // In pieces, so the writer's checksum thread overlaps the writes of large tensors.
          for (size_t done = 0; done < n;) {
            const size_t len = std::min<size_t>(n - done, size_t{64} << 20);
            Check(w.Write(std::span(p + done, len)));
            done += len;
          }
          Check(w.EndTensor());
        }
        Check(fw->Commit());
      },
      py::arg("path"), py::arg("items"), py::arg("metadata"), py::arg("alignment") = 256,
      py::arg("checksums") = true, py::arg("index_first") = false);

  m.def(
      "convert_to_mtf",
      [](const std::string& src, const std::string& dst, uint32_t alignment, bool index_first) {
        at::WriteOptions o;
        o.alignment = alignment;
        o.placement =
            index_first ? at::IndexPlacement::kBeforeData : at::IndexPlacement::kAfterData;
        py::gil_scoped_release nogil;
        return Value(tc::ConvertToMtf(src, dst, o));
      },
      py::arg("src"), py::arg("dst"), py::arg("alignment") = 256, py::arg("index_first") = false);

  m.def(
      "write_npy",
      [](const std::string& path, const py::handle& obj) {
        py::array a = Contiguous(obj);
        const at::DType dt = DTypeOfNumpy(a.dtype(), path);
        if (!tc::NpyDescr(dt)) throw py::type_error(path + ": no .npy descr for this dtype");
        std::vector<uint64_t> shape;
        for (py::ssize_t i = 0; i < a.ndim(); ++i) shape.push_back(a.shape(i));
        const auto data =
            std::span(static_cast<const std::byte*>(a.data()), static_cast<size_t>(a.nbytes()));
        py::gil_scoped_release nogil;
        Check(tc::WriteNpyFile(path, dt, shape, data));
      },
      py::arg("path"), py::arg("array"));

  m.def("dtype_names", [] {
    py::list l;
    for (const auto& d : at::AllDTypes()) l.append(std::string(d.name));
    return l;
  });
}

}  // namespace alknet::python
