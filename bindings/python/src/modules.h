// The parts of alknet._native, one per Python module of the package.
#pragma once

#include <pybind11/pybind11.h>

namespace alknet::python {

void BindTensor(pybind11::module_& m);
void BindOnnx(pybind11::module_& m);
void BindCompute(pybind11::module_& m);
void BindCall(pybind11::module_& m);

}  // namespace alknet::python
