// alknet._native's call half: a CallTarget (the local registry, or a RemoteRegistry over gRPC)
// with Python values in and out; numpy arrays cross as tensors without a copy on the way in.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alknet/call-grpc/remote.h"
#include "alknet/call/builtins.h"
#include "alknet/call/registry.h"
#include "alknet/compute-calls/calls.h"
#include "common.h"
#include "modules.h"

namespace alknet::python {

namespace {

namespace c = alknet::call;

struct Target {
  std::unique_ptr<c::CallTarget> target;
  std::string address;  // empty: the local registry
};

c::Value ToValue(const py::handle& v) {
  if (v.is_none()) return c::Value();
  if (py::isinstance<py::bool_>(v)) return c::Value(py::cast<bool>(v));
  if (py::isinstance<py::int_>(v)) return c::Value(static_cast<int64_t>(py::cast<int64_t>(v)));
  if (py::isinstance<py::float_>(v)) return c::Value(py::cast<double>(v));
  if (py::isinstance<py::str>(v)) return c::Value(py::cast<std::string>(v));
  if (py::isinstance<py::bytes>(v) || py::isinstance<py::bytearray>(v)) {
    const std::string s = py::cast<std::string>(py::bytes(py::reinterpret_borrow<py::object>(v)));
    return c::Value(c::Bytes(s.begin(), s.end()));
  }
  if (py::isinstance<py::array>(v)) {
    py::array a = Contiguous(v);
    const tensor::DType dt = DTypeOfNumpy(a.dtype(), "call argument");
    c::Tensor t;
    t.dtype = std::string(tensor::Info(dt).name);
    for (py::ssize_t i = 0; i < a.ndim(); ++i) t.shape.push_back(a.shape(i));
    t.data = std::span(static_cast<const std::byte*>(a.data()), static_cast<size_t>(a.nbytes()));
    t.owner = HoldPython(a);
    return c::Value(std::move(t));
  }
  if (py::isinstance<py::dict>(v)) {
    c::Value::Map m;
    for (const auto& [k, x] : py::reinterpret_borrow<py::dict>(v)) {
      if (!py::isinstance<py::str>(k)) throw py::type_error("call arguments: map keys are str");
      m.emplace(py::cast<std::string>(k), ToValue(x));
    }
    return c::Value(std::move(m));
  }
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    c::Value::List l;
    for (const auto& x : py::reinterpret_borrow<py::sequence>(v)) l.push_back(ToValue(x));
    return c::Value(std::move(l));
  }
  throw py::type_error("call arguments: cannot pass a " + Str(v.get_type().attr("__name__")) +
                       " (None, bool, int, float, str, bytes, list, dict or a numpy array)");
}

// Owns a tensor's owner for the numpy array made over its bytes.
struct HeldTensor {
  std::shared_ptr<const void> owner;
};

py::object FromValue(const c::Value& v) {
  switch (v.kind()) {
    case c::ValueKind::kNull: return py::none();
    case c::ValueKind::kBool: return py::bool_(v.as_bool());
    case c::ValueKind::kInt: return py::int_(v.as_int());
    case c::ValueKind::kFloat: return py::float_(v.as_float());
    case c::ValueKind::kString: return py::str(v.as_string());
    case c::ValueKind::kBytes:
      return py::bytes(reinterpret_cast<const char*>(v.as_bytes().data()), v.as_bytes().size());
    case c::ValueKind::kList: {
      py::list l;
      for (const auto& x : v.as_list()) l.append(FromValue(x));
      return l;
    }
    case c::ValueKind::kMap: {
      py::dict d;
      for (const auto& [k, x] : v.as_map()) d[py::str(k)] = FromValue(x);
      return d;
    }
    case c::ValueKind::kTensor: {
      const c::Tensor& t = v.as_tensor();
      const tensor::DTypeInfo* info = tensor::FindDType(t.dtype);
      const auto np = info ? NumpyDTypeOf(info->dtype) : std::nullopt;
      if (!np) {
        py::dict d;
        d["dtype"] = t.dtype;
        d["shape"] = py::cast(t.shape);
        d["data"] = py::bytes(reinterpret_cast<const char*>(t.data.data()), t.data.size());
        return d;
      }
      auto* held = new HeldTensor{t.owner};
      py::capsule owner(held, [](void* p) { delete static_cast<HeldTensor*>(p); });
      static const std::byte empty[16] = {};
      const void* data = t.data.empty() ? empty : static_cast<const void*>(t.data.data());
      return ViewOf(*np, t.shape, data, owner);
    }
  }
  return py::none();
}

}  // namespace

void BindCall(py::module_& m) {
  py::class_<Target>(m, "Target")
      .def_readonly("address", &Target::address)
      .def("list",
           [](Target& t) {
             std::vector<c::CallInfo> infos;
             {
               py::gil_scoped_release nogil;
               infos = Value(t.target->List());
             }
             py::list l;
             for (const auto& i : infos) {
               py::dict d;
               d["name"] = i.name;
               d["signature"] = i.signature;
               d["owner"] = i.owner;
               d["doc"] = i.doc;
               l.append(d);
             }
             return l;
           })
      .def(
          "invoke",
          [](Target& t, const std::string& name, const py::list& args,
             std::optional<double> timeout) {
            std::vector<c::Value> values;
            for (const auto& a : args) values.push_back(ToValue(a));
            c::CallOptions o;
            if (timeout) {
              o.deadline = c::Clock::now() + std::chrono::duration_cast<c::Clock::duration>(
                                                 std::chrono::duration<double>(*timeout));
            }
            std::optional<c::Value> out;
            {
              py::gil_scoped_release nogil;
              auto r = t.target->Invoke(name, values, o);
              values.clear();  // each array owner's release takes the GIL itself (HoldPython)
              out = Value(std::move(r));
            }
            return FromValue(*out);
          },
          py::arg("name"), py::arg("args"), py::arg("timeout") = std::nullopt);

  m.def("local", [] {
    auto registry = std::make_unique<c::CallRegistry>();
    Check(c::RegisterBuiltins(*registry));
    Check(registry->AddComponent(compute::ComputeComponent()));
    registry->Seal();
    auto t = std::make_unique<Target>();
    t->target = std::move(registry);
    return t;
  });

  m.def(
      "connect",
      [](const std::string& address, const std::string& token, bool tls,
         const std::string& tls_root_pem, const std::string& tls_server_name) {
        c::RemoteOptions o;
        o.address = address;
        if (!token.empty()) Check(c::CheckToken(token, "connect() option token"));
        o.token = token;
        o.tls = tls || !tls_root_pem.empty();
        o.tls_root_pem = tls_root_pem;
        o.tls_server_name = tls_server_name;
        auto t = std::make_unique<Target>();
        t->target = Value(c::RemoteRegistry::Connect(o));
        t->address = address;
        return t;
      },
      py::arg("address"), py::arg("token") = "", py::arg("tls") = false,
      py::arg("tls_root_pem") = "", py::arg("tls_server_name") = "");
}

}  // namespace alknet::python
