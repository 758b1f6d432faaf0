// alknet._native's compute half: tensors on the device, ops run on them through the Executor
// (results stay on the device), and SHA-256 of bytes or of a file on the GPU.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "alknet/compute/executor.h"
#include "alknet/compute/op_table.h"
#include "alknet/compute/sha256.h"
#include "alknet/webgpu/context.h"
#include "common.h"
#include "modules.h"

namespace alknet::python {

namespace {

namespace cp = alknet::compute;

// The package's device, opened on first use (ALKNET_ADAPTER picks it, else the first adapter)
// and never closed: device tensors may outlive any Python object that could own it, and
// tearing Dawn down during interpreter exit is not worth the risk.
struct Device {
  std::mutex mutex;
  std::unique_ptr<webgpu::Context> ctx;
  std::unique_ptr<cp::Executor> executor;
};

Device& TheDevice() {
  static Device* d = new Device;
  return *d;
}

// Call with the GIL released and the device mutex held.
cp::Executor& Executor() {
  Device& d = TheDevice();
  if (!d.executor) {
    auto ctx = webgpu::Context::Create();
    if (!ctx.ok()) {
      Throw(cp::Error{cp::ErrorCode::kDevice, "no WebGPU device: " + ctx.error().ToString()});
    }
    d.ctx = std::move(ctx).value();
    d.executor = std::make_unique<cp::Executor>(*d.ctx);
  }
  if (d.ctx->lost())
    Throw(
        cp::Error{cp::ErrorCode::kDevice, "the WebGPU device was lost: " + d.ctx->lost_message()});
  return *d.executor;
}

struct DeviceTensor {
  cp::Tensor tensor;
};

cp::AttrValue AttrOf(const std::string& name, const py::handle& v) {
  if (py::isinstance<py::bool_>(v)) return static_cast<int64_t>(py::cast<bool>(v));
  if (py::isinstance<py::int_>(v)) return py::cast<int64_t>(v);
  if (py::isinstance<py::float_>(v)) return py::cast<double>(v);
  if (py::isinstance<py::str>(v)) return py::cast<std::string>(v);
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    std::vector<int64_t> ints;
    std::vector<double> floats;
    bool all_int = true;
    for (const auto& e : py::reinterpret_borrow<py::sequence>(v)) {
      if (py::isinstance<py::int_>(e)) {
        ints.push_back(py::cast<int64_t>(e));
        floats.push_back(static_cast<double>(ints.back()));
      } else if (py::isinstance<py::float_>(e)) {
        all_int = false;
        floats.push_back(py::cast<double>(e));
      } else {
        throw py::type_error("attribute '" + name + "': lists hold numbers only");
      }
    }
    if (all_int) return ints;
    return floats;
  }
  throw py::type_error("attribute '" + name +
                       "': attributes are int, float, str or a list of numbers");
}

std::string DescOf(const cp::Tensor& t) {
  std::string s = std::string(cp::DTypeName(t.dtype())) + "[";
  for (size_t i = 0; i < t.shape().size(); ++i) s += (i ? "," : "") + std::to_string(t.shape()[i]);
  return s + "]";
}

}  // namespace

void BindCompute(py::module_& m) {
  py::class_<DeviceTensor>(m, "DeviceTensor",
                           "A tensor in device memory (alknet.compute.tensor(array) makes one).")
      .def_property_readonly("shape",
                             [](const DeviceTensor& t) {
                               py::list l;
                               for (uint64_t d : t.tensor.shape()) l.append(d);
                               return py::tuple(l);
                             })
      .def_property_readonly(
          "dtype",
          [](const DeviceTensor& t) { return std::string(cp::DTypeName(t.tensor.dtype())); })
      .def("__repr__",
           [](const DeviceTensor& t) {
             return "alknet.compute.DeviceTensor(" + DescOf(t.tensor) + ")";
           })
      .def(
          "numpy",
          [](const DeviceTensor& t) {
            cp::HostTensor host;
            {
              py::gil_scoped_release nogil;
              std::lock_guard lock(TheDevice().mutex);
              host = Value(Executor().Download(t.tensor));
            }
            auto dt = NumpyDTypeOf(host.dtype);
            if (!dt)
              throw py::type_error("no numpy dtype for " + std::string(cp::DTypeName(host.dtype)));
            std::vector<int64_t> shape(host.shape.begin(), host.shape.end());
            return AdoptBytes(*dt, shape, std::move(host.data));
          },
          "Downloads the tensor into a new numpy array.");

  m.def(
      "upload",
      [](const py::handle& obj) {
        py::array a = Contiguous(obj);
        const tensor::DType dt = DTypeOfNumpy(a.dtype(), "alknet.compute.tensor");
        using D = tensor::DType;
        if (dt != D::kF32 && dt != D::kF16 && dt != D::kI32 && dt != D::kU32 && dt != D::kBool) {
          throw py::type_error(
              "alknet.compute.tensor: device tensors are float32, float16, int32, "
              "uint32 or bool; given " +
              Str(a.dtype()) + " (convert with .astype())");
        }
        cp::Shape shape;
        for (py::ssize_t i = 0; i < a.ndim(); ++i) shape.push_back(a.shape(i));
        const auto data =
            std::span(static_cast<const std::byte*>(a.data()), static_cast<size_t>(a.nbytes()));
        py::gil_scoped_release nogil;
        std::lock_guard lock(TheDevice().mutex);
        return DeviceTensor{Value(Executor().Upload(dt, shape, data))};
      },
      py::arg("array"));

  m.def(
      "run_op",
      [](const std::string& op, const std::vector<const DeviceTensor*>& inputs,
         const py::dict& attrs, int opset) {
        cp::Attributes a;
        for (const auto& [k, v] : attrs) {
          const std::string key = py::cast<std::string>(k);
          a[key] = AttrOf(key, v);
        }
        std::vector<cp::Tensor> in;
        for (const DeviceTensor* t : inputs) {
          if (t == nullptr) throw py::type_error(op + ": an input is None");
          in.push_back(t->tensor);
        }
        py::gil_scoped_release nogil;
        std::lock_guard lock(TheDevice().mutex);
        return DeviceTensor{Value(Executor().Run(op, in, std::move(a), opset))};
      },
      py::arg("op"), py::arg("inputs"), py::arg("attrs"), py::arg("opset") = 17);

  m.def("adapter", [] {
    webgpu::AdapterDescription a;
    {
      py::gil_scoped_release nogil;
      std::lock_guard lock(TheDevice().mutex);
      a = Executor().context().adapter();
    }
    py::dict d;
    d["vendor"] = a.vendor;
    d["architecture"] = a.architecture;
    d["device"] = a.device;
    d["description"] = a.description;
    d["cpu"] = a.type == WGPUAdapterType_CPU;
    return d;
  });

  m.def("op_names", [] {
    py::list l;
    std::vector<std::string> seen;
    for (const cp::OpRecord& r : cp::OpTable::Default().records()) {
      if (r.family == "internal") continue;
      if (std::find(seen.begin(), seen.end(), r.name) != seen.end()) continue;
      seen.push_back(r.name);
      l.append(py::make_tuple(r.name, r.summary));
    }
    return l;
  });

  m.def(
      "sha256_bytes",
      [](const py::buffer& b) {
        const py::buffer_info info = b.request();
        const auto data = std::span(static_cast<const std::byte*>(info.ptr),
                                    static_cast<size_t>(info.size * info.itemsize));
        cp::Sha256Digest d;
        {
          py::gil_scoped_release nogil;
          std::lock_guard lock(TheDevice().mutex);
          cp::Sha256 sha(Executor());
          d = Value(sha.HashOne(data));
        }
        return py::bytes(reinterpret_cast<const char*>(d.data()), d.size());
      },
      py::arg("data"));

  m.def(
      "sha256_file",
      [](const std::string& path) {
        cp::Sha256Digest d;
        {
          py::gil_scoped_release nogil;
          const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
          if (fd < 0) {
            const int e = errno;
            py::gil_scoped_acquire gil;
            PyErr_SetFromErrnoWithFilename(e == ENOENT ? PyExc_FileNotFoundError : PyExc_OSError,
                                           path.c_str());
            throw py::error_already_set();
          }
          struct Closer {
            int fd;
            ~Closer() { ::close(fd); }
          } closer{fd};
          std::lock_guard lock(TheDevice().mutex);
          cp::Sha256 sha(Executor());
          auto read = [&](std::span<std::byte> buf) -> cp::Result<size_t> {
            for (;;) {
              const ssize_t n = ::read(fd, buf.data(), buf.size());
              if (n >= 0) return static_cast<size_t>(n);
              if (errno == EINTR) continue;
              return cp::Error{cp::ErrorCode::kInvalidArgument,
                               path + ": read failed: " + std::strerror(errno)};
            }
          };
          d = Value(sha.HashStream(read));
        }
        return py::bytes(reinterpret_cast<const char*>(d.data()), d.size());
      },
      py::arg("path"));
}

}  // namespace alknet::python
