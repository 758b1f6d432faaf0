// alknet._native: the one native module under the Python package alknet (bindings/python/alknet).
#include "common.h"
#include "modules.h"

PYBIND11_MODULE(_native, m) {
  m.doc() = "alknet's native core; use the alknet package (alknet.tensor, alknet.onnx, ...)";
  m.attr("__version__") = ALKNET_VERSION;
  alknet::python::RegisterErrors(m);
  auto tensor = m.def_submodule("tensor", "metatensor files");
  alknet::python::BindTensor(tensor);
  auto onnx = m.def_submodule("onnx", "ONNX sessions");
  alknet::python::BindOnnx(onnx);
  auto compute = m.def_submodule("compute", "device tensors and compute calls");
  alknet::python::BindCompute(compute);
  auto call = m.def_submodule("call", "call targets");
  alknet::python::BindCall(call);
}
