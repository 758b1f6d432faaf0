#include "common.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace alknet::python {

namespace {

py::object g_base, g_tensor_error, g_compute_error, g_call_error;

// An exception instance carrying the fields a caller tests (code, rule), message as str().
void Raise(const py::object& cls, const std::string& message,
           std::initializer_list<std::pair<const char*, py::object>> fields) {
  py::object exc = cls(message);
  for (const auto& [k, v] : fields) exc.attr(k) = v;
  PyErr_SetObject(cls.ptr(), exc.ptr());
}

}  // namespace

void RegisterErrors(py::module_& m) {
  g_base = py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
      "alknet._native.AlknetError", "Base class of every error alknet raises.", nullptr, nullptr));
  auto sub = [&](const char* name, const char* doc) {
    return py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
        (std::string("alknet._native.") + name).c_str(), doc, g_base.ptr(), nullptr));
  };
  g_tensor_error = sub("TensorError",
                       "A tensor file or argument is invalid. .rule is the rule number of "
                       "docs/metatensor-format.md section 6 (0: not a rule of the format: I/O, "
                       "a foreign file, a caller error); .code its stable name ('bad-magic').");
  g_compute_error = sub("ComputeError",
                        "A model, op or device error (alknet-compute, alknet-onnx); .code "
                        "names the kind ('unsupported', 'shape', 'device', ...).");
  g_call_error = sub("CallError",
                     "A registry call failed, locally or remotely; .code is the status name "
                     "('invalid-argument', 'unauthenticated', ...), .call the call's name.");
  m.attr("AlknetError") = g_base;
  m.attr("TensorError") = g_tensor_error;
  m.attr("ComputeError") = g_compute_error;
  m.attr("CallError") = g_call_error;
  // The objects live as long as the module; never released at exit (the interpreter may be gone).
  g_base.inc_ref();
  g_tensor_error.inc_ref();
  g_compute_error.inc_ref();
  g_call_error.inc_ref();

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const TensorFailure& f) {
      Raise(g_tensor_error, f.error.ToString(),
            {{"rule", py::int_(f.error.rule())},
             {"code", py::str(tensor::ErrorCodeName(f.error.code()))},
             {"detail", py::str(f.error.message())}});
    } catch (const ComputeFailure& f) {
      Raise(g_compute_error, f.error.ToString(),
            {{"code", py::str(compute::ErrorCodeName(f.error.code))},
             {"detail", py::str(f.error.message)}});
    } catch (const CallFailure& f) {
      // The code as an identifier: "invalid argument" -> "invalid-argument".
      std::string code(call::ErrorCodeName(f.error.code));
      std::replace(code.begin(), code.end(), ' ', '-');
      Raise(g_call_error, f.error.ToString(),
            {{"code", py::str(code)},
             {"call", py::str(f.error.call)},
             {"detail", py::str(f.error.message)}});
    }
  });
}

std::optional<py::dtype> NumpyDTypeOf(tensor::DType d) {
  using D = tensor::DType;
  const char* name = nullptr;
  switch (d) {
    case D::kBool: name = "bool"; break;
    case D::kI8: name = "int8"; break;
    case D::kI16: name = "<i2"; break;
    case D::kI32: name = "<i4"; break;
    case D::kI64: name = "<i8"; break;
    case D::kU8: name = "uint8"; break;
    case D::kU16: name = "<u2"; break;
    case D::kU32: name = "<u4"; break;
    case D::kU64: name = "<u8"; break;
    case D::kF16: name = "<f2"; break;
    case D::kF32: name = "<f4"; break;
    case D::kF64: name = "<f8"; break;
    case D::kComplex64: name = "<c8"; break;
    case D::kComplex128: name = "<c16"; break;
    default: return std::nullopt;
  }
  return py::dtype(name);
}

tensor::DType DTypeOfNumpy(const py::dtype& dt, const std::string& what) {
  using D = tensor::DType;
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  const std::string order = py::str(dt.attr("byteorder"));
  if (order == ">") {
    throw py::type_error(what + ": big-endian dtype " + Str(dt) +
                         "; convert with a.astype(a.dtype.newbyteorder('<'))");
  }
  if (kind == 'b' && size == 1) return D::kBool;
  if (kind == 'i') {
    if (size == 1) return D::kI8;
    if (size == 2) return D::kI16;
    if (size == 4) return D::kI32;
    if (size == 8) return D::kI64;
  }
  if (kind == 'u') {
    if (size == 1) return D::kU8;
    if (size == 2) return D::kU16;
    if (size == 4) return D::kU32;
    if (size == 8) return D::kU64;
  }
  if (kind == 'f') {
    if (size == 2) return D::kF16;
    if (size == 4) return D::kF32;
    if (size == 8) return D::kF64;
  }
  if (kind == 'c') {
    if (size == 8) return D::kComplex64;
    if (size == 16) return D::kComplex128;
  }
  throw py::type_error(what + ": numpy dtype " + Str(dt) +
                       " has no metatensor equivalent (bool, int8..uint64, float16/32/64, "
                       "complex64/128 do)");
}

py::array Contiguous(const py::handle& obj) {
  // Not np.ascontiguousarray: it makes a 0-d array 1-d.
  py::module_ np = py::module_::import("numpy");
  return np.attr("asarray")(obj, py::arg("order") = "C");
}

std::shared_ptr<const void> HoldPython(py::object obj) {
  auto* held = new py::object(std::move(obj));
  return std::shared_ptr<const void>(held, [](const void* p) {
    py::gil_scoped_acquire gil;
    delete static_cast<const py::object*>(p);
  });
}

py::array ViewOf(const py::dtype& dt, const std::vector<int64_t>& shape, const void* data,
                 py::handle owner, bool writeable) {
  std::vector<py::ssize_t> dims(shape.begin(), shape.end());
  // numpy allocates its own memory for a null pointer; an empty tensor may have one.
  static const std::byte empty[16] = {};
  py::array a(dt, dims, {}, data != nullptr ? data : empty, owner);
  if (!writeable) a.attr("flags").attr("writeable") = false;
  return a;
}

py::array AdoptBytes(const py::dtype& dt, const std::vector<int64_t>& shape,
                     std::vector<std::byte> bytes) {
  auto* held = new std::vector<std::byte>(std::move(bytes));
  py::capsule owner(held, [](void* p) { delete static_cast<std::vector<std::byte>*>(p); });
  std::vector<py::ssize_t> dims(shape.begin(), shape.end());
  // A zero-size vector may have no storage; numpy needs a pointer anyway.
  static const std::byte empty[16] = {};
  const void* data = held->empty() ? static_cast<const void*>(empty) : held->data();
  py::array a(dt, dims, {}, data, owner);
  return a;
}

}  // namespace alknet::python
