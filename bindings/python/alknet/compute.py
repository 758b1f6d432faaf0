"""Tensors on the WebGPU device and the compute registry's ops on them (docs/python.md).

    a = alknet.compute.tensor(np.ones((2, 3), np.float32))   # uploaded once
    b = alknet.compute.relu(alknet.compute.add(a, a))          # stays on the device
    b.numpy()                                                  # downloaded
    alknet.compute.sha256(b"abc")                              # SHA-256 on the GPU

Every op of the registry's compute calls (``alknet call --list``: ``compute.mat_mul`` ...)
is a function here under the same snake_case name, and ``run("MatMul", [a, b])`` takes the
ONNX name. Inputs are DeviceTensors or arrays (uploaded); attributes are keyword arguments
(int, float, str, lists of numbers). The device is opened on first use (ALKNET_ADAPTER
picks it); the GIL is released while it works. Errors are :class:`alknet.ComputeError`.
"""

from __future__ import annotations

import os
import re
from typing import Any, Callable, Sequence, Union

import numpy as np

from . import _native

_c = _native.compute
ComputeError = _native.ComputeError
DeviceTensor = _c.DeviceTensor


def tensor(array: Any) -> DeviceTensor:
    """Uploads an array (float32, float16, int32, uint32 or bool) to the device."""
    if isinstance(array, DeviceTensor):
        return array
    return _c.upload(np.asarray(array))


def _snake(op: str) -> str:
    # As compute-calls names its calls: an underscore before an upper-case letter that
    # follows a lower-case one (MatMul -> mat_mul, ReduceSum -> reduce_sum, GELU -> gelu).
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", op).lower()


_OPS = {_snake(name): (name, summary) for name, summary in _c.op_names()}


def ops() -> dict:
    """The ops, as function name -> (ONNX op name, summary)."""
    return dict(_OPS)


def run(op: str, inputs: Sequence[Any], opset: int = 17, **attrs: Any) -> DeviceTensor:
    """Runs one op (its ONNX name: "MatMul") on device tensors; the result stays on the device."""
    return _c.run_op(op, [tensor(x) for x in inputs], attrs, opset)


def _make(fname: str, op: str, summary: str) -> Callable[..., DeviceTensor]:
    def call(*inputs: Any, opset: int = 17, **attrs: Any) -> DeviceTensor:
        return run(op, inputs, opset, **attrs)

    call.__name__ = fname
    call.__qualname__ = fname
    call.__doc__ = f"{summary} (ONNX {op}); inputs are DeviceTensors or arrays, attributes keywords."
    return call


for _fname, (_op, _summary) in _OPS.items():
    if _fname not in globals():
        globals()[_fname] = _make(_fname, _op, _summary)
del _fname, _op, _summary


def adapter() -> dict:
    """The device alknet.compute runs on: vendor, architecture, device, description, cpu."""
    return _c.adapter()


def sha256(data: Union[bytes, bytearray, memoryview, np.ndarray, str, "os.PathLike[str]"]) -> bytes:
    """SHA-256 on the GPU of bytes (any buffer) or of a file (a str or path: streamed)."""
    if isinstance(data, (str, os.PathLike)):
        return _c.sha256_file(os.fspath(data))
    if isinstance(data, np.ndarray):
        data = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
    return _c.sha256_bytes(data)


__all__ = ["DeviceTensor", "ComputeError", "tensor", "run", "ops", "adapter", "sha256"] + sorted(_OPS)
