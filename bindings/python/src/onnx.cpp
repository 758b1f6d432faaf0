// alknet._native's ONNX half: alknet::onnx::Session with numpy feeds and outputs. The GIL is
// released while a session loads and runs, so other Python threads keep going.
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "alknet/compute/executor.h"
#include "alknet/onnx/session.h"
#include "alknet/webgpu/context.h"
#include "common.h"
#include "modules.h"

namespace alknet::python {

namespace {

namespace ox = alknet::onnx;
namespace at = alknet::tensor;

// The metatensor dtype holding an ONNX type on the host (nullopt: none, e.g. string).
std::optional<at::DType> HostDTypeOf(ox::ElemType t) {
  using E = ox::ElemType;
  using D = at::DType;
  switch (t) {
    case E::kFloat: return D::kF32;
    case E::kDouble: return D::kF64;
    case E::kFloat16: return D::kF16;
    case E::kBFloat16: return D::kBF16;
    case E::kInt8: return D::kI8;
    case E::kInt16: return D::kI16;
    case E::kInt32: return D::kI32;
    case E::kInt64: return D::kI64;
    case E::kUint8: return D::kU8;
    case E::kUint16: return D::kU16;
    case E::kUint32: return D::kU32;
    case E::kUint64: return D::kU64;
    case E::kBool: return D::kBool;
    default: return std::nullopt;
  }
}

// A session with the device it runs on (its own context when an adapter was named), and a
// lock: a Session runs one plan at a time.
struct PySession {
  std::unique_ptr<webgpu::Context> context;
  std::unique_ptr<ox::Session> session;
  std::mutex mutex;
  std::string path;
};

py::list ValueInfos(const std::vector<ox::ValueInfo>& infos) {
  py::list out;
  for (const auto& v : infos) {
    py::dict d;
    d["name"] = v.name;
    d["type"] = ox::ElemTypeName(v.type);
    if (v.has_shape) {
      py::list shape;
      for (size_t i = 0; i < v.shape.size(); ++i) {
        if (v.shape[i] >= 0) {
          shape.append(v.shape[i]);
        } else if (i < v.dim_names.size() && !v.dim_names[i].empty()) {
          shape.append(v.dim_names[i]);
        } else {
          shape.append(py::none());
        }
      }
      d["shape"] = shape;
    } else {
      d["shape"] = py::none();
    }
    out.append(d);
  }
  return out;
}

}  // namespace

void BindOnnx(py::module_& m) {
  py::class_<PySession>(m, "Session")
      .def(py::init([](const std::string& path, const std::string& adapter, uint64_t max_memory,
                       bool fuse) {
             auto s = std::make_unique<PySession>();
             s->path = path;
             py::gil_scoped_release nogil;
             ox::SessionOptions o;
             if (!adapter.empty()) {
               webgpu::ContextOptions co;
               co.adapter = adapter;
               auto ctx = webgpu::Context::Create(co);
               if (!ctx.ok()) Throw(compute::FromWebGpu(ctx.error()));
               s->context = std::move(ctx).value();
               o.context = s->context.get();
             }
             if (max_memory != 0) o.max_memory = max_memory;
             o.fuse = fuse;
             s->session = std::make_unique<ox::Session>(Value(ox::Session::Load(path, o)));
             return s;
           }),
           py::arg("path"), py::arg("adapter") = "", py::arg("max_memory") = 0,
           py::arg("fuse") = true)
      .def("inputs", [](const PySession& s) { return ValueInfos(s.session->inputs()); })
      .def("outputs", [](const PySession& s) { return ValueInfos(s.session->outputs()); })
      .def("opset", [](const PySession& s) { return s.session->opset(""); })
      .def("adapter",
           [](PySession& s) {
             const auto& a = s.session->context().adapter();
             return a.device.empty() ? a.description : a.device;
           })
      .def("stats",
           [](PySession& s) {
             std::lock_guard lock(s.mutex);
             const ox::SessionStats& st = s.session->stats();
             py::dict d;
             d["plans_built"] = st.plans_built;
             d["plan_cache_hits"] = st.plan_cache_hits;
             d["nodes_folded"] = st.nodes_folded;
             d["nodes_on_device"] = st.nodes_on_device;
             d["fusions"] = st.fusions;
             return d;
           })
      .def(
          "run",
          [](PySession& s, const py::dict& feeds) {
            const auto& declared = s.session->inputs();
            std::vector<py::array> held;  // keeps the feeds alive while the GIL is released
            std::vector<ox::HostInput> inputs;
            for (const auto& [k, v] : feeds) {
              const std::string name = py::cast<std::string>(k);
              bool known = false;
              for (const auto& d : declared) known |= d.name == name;
              if (!known) {
                std::string names;
                for (const auto& d : declared) names += (names.empty() ? "" : ", ") + d.name;
                throw py::value_error("feed '" + name +
                                      "' is not an input of the model (inputs: " + names + ")");
              }
            }
            for (const auto& d : declared) {
              if (!feeds.contains(d.name)) {
                throw py::value_error("missing feed for input '" + d.name + "' (" +
                                      ox::ElemTypeName(d.type) + ")");
              }
              py::array a = Contiguous(feeds[py::str(d.name)]);
              const at::DType given = DTypeOfNumpy(a.dtype(), "input '" + d.name + "'");
              const auto want = HostDTypeOf(d.type);
              if (!want || *want != given) {
                throw py::type_error("input '" + d.name + "' expects tensor(" +
                                     ox::ElemTypeName(d.type) + "), given numpy " + Str(a.dtype()) +
                                     "; convert it with .astype() first");
              }
              ox::HostInput in;
              in.name = d.name;
              in.type = d.type;
              for (py::ssize_t i = 0; i < a.ndim(); ++i) in.shape.push_back(a.shape(i));
              in.data = std::span(static_cast<const std::byte*>(a.data()),
                                  static_cast<size_t>(a.nbytes()));
              inputs.push_back(std::move(in));
              held.push_back(std::move(a));
            }
            std::vector<ox::Tensor> outs;
            double run_ms = 0;
            {
              py::gil_scoped_release nogil;
              std::lock_guard lock(s.mutex);
              auto r = Value(s.session->Run(inputs));
              outs = std::move(r.outputs);
              run_ms = r.run_ms;
            }
            py::list result;
            for (auto& t : outs) {
              const auto dt = HostDTypeOf(t.type);
              const auto np = dt ? NumpyDTypeOf(*dt) : std::nullopt;
              if (!np) {
                throw py::type_error("output '" + t.name + "' of type " + ox::ElemTypeName(t.type) +
                                     " has no numpy dtype");
              }
              std::vector<int64_t> shape(t.shape.begin(), t.shape.end());
              result.append(py::make_tuple(t.name, AdoptBytes(*np, shape, std::move(t.data))));
            }
            return py::make_tuple(result, run_ms);
          },
          py::arg("feeds"));
}

}  // namespace alknet::python
