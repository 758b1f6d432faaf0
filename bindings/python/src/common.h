// Shared pieces of the native module alknet._native: the exception classes, and numpy arrays
// as metatensor dtypes and back.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alknet/call/error.h"
#include "alknet/compute/error.h"
#include "alknet/tensor/dtype.h"
#include "alknet/tensor/error.h"

namespace alknet::python {

namespace py = pybind11;

// Thrown by the bindings, turned into alknet.TensorError / ComputeError / CallError (with
// .code, and .rule for the format's rules) by the translator registered in module.cpp.
struct TensorFailure {
  tensor::Error error;
};
struct ComputeFailure {
  compute::Error error;
};
struct CallFailure {
  call::Error error;
};

[[noreturn]] inline void Throw(const tensor::Error& e) { throw TensorFailure{e}; }
[[noreturn]] inline void Throw(const compute::Error& e) { throw ComputeFailure{e}; }
[[noreturn]] inline void Throw(const call::Error& e) { throw CallFailure{e}; }

// The value of a Result, or the error raised as a Python exception.
template <typename R>
auto Value(R&& r) {
  if (!r.ok()) Throw(r.error());
  return std::move(r).value();
}
template <typename S>
void Check(const S& s) {
  if (!s.ok()) Throw(s.error());
}

void RegisterErrors(py::module_& m);

// str(obj) as UTF-8.
inline std::string Str(py::handle h) { return py::str(h).cast<std::string>(); }

// The numpy dtype of a metatensor dtype; nullopt when numpy has none (bf16, f8, i4, q8_0...).
std::optional<py::dtype> NumpyDTypeOf(tensor::DType d);
// The metatensor dtype of a numpy array's dtype: native or little-endian bool, integers,
// floats and complex; anything else raises TypeError naming `what`.
tensor::DType DTypeOfNumpy(const py::dtype& dt, const std::string& what);

// A C-contiguous array (copied only when the given one is not), for reading its bytes.
py::array Contiguous(const py::handle& obj);

// Keeps a Python object alive from C++ (a shared_ptr owner of its memory); the last release
// takes the GIL, whichever thread it happens on.
std::shared_ptr<const void> HoldPython(py::object obj);

// A read-only array over `data` (dtype `dt`, C order) whose .base is `owner`.
py::array ViewOf(const py::dtype& dt, const std::vector<int64_t>& shape, const void* data,
                 py::handle owner, bool writeable = false);

// Takes the bytes into a heap block owned by the returned array (no copy of the data).
py::array AdoptBytes(const py::dtype& dt, const std::vector<int64_t>& shape,
                     std::vector<std::byte> bytes);

}  // namespace alknet::python
