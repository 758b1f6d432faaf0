"""alknet from Python: metatensor files as zero-copy numpy views, ONNX sessions on WebGPU,
device tensors and compute calls, and remote calls to ``alknet serve``.

    import alknet
    with alknet.tensor.open("model.mtf") as f:
        w = f["layer0.weight"]          # a read-only numpy view into the mapping
    s = alknet.onnx.Session("model.onnx")
    y, = s.run(None, {"x": x})

docs/python.md describes the API; ``python3 -m alknet --help`` the command line.
"""

from . import _native

__version__: str = _native.__version__

AlknetError = _native.AlknetError
TensorError = _native.TensorError
ComputeError = _native.ComputeError
CallError = _native.CallError

from . import call, compute, onnx, tensor  # noqa: E402  (after the native module)

__all__ = ["__version__", "AlknetError", "TensorError", "ComputeError", "CallError",
           "tensor", "onnx", "compute", "call"]
