"""ONNX models on WebGPU with onnxruntime's shape (docs/onnx.md, docs/python.md).

    s = alknet.onnx.Session("model.onnx")
    [i.name for i in s.get_inputs()]            # NodeArg: name, shape, type
    y, = s.run(None, {"x": x})                  # numpy in, numpy out

Feeds must have the dtype the model declares (int64 for tensor(int64), bool, float16,
float64...); the session narrows them as the C++ one does (docs/adr/0002-onnx-dtypes.md:
INT64 runs as i32, range-checked; DOUBLE as f32). The GIL is released while a session loads
and runs, so other Python threads keep going; ``run_async`` runs on a worker thread.
Errors are :class:`alknet.ComputeError` (``.code``: ``"unsupported"``, ``"shape"``...).
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future
from typing import Any, Callable, Mapping, Optional, Sequence, Union

import numpy as np

from . import _native

ComputeError = _native.ComputeError
PathLike = Union[str, "os.PathLike[str]"]

# ONNX type names -> onnxruntime's NodeArg.type strings ("tensor(float)").
_ORT_TYPE = {"FLOAT": "float", "DOUBLE": "double", "FLOAT16": "float16", "BFLOAT16": "bfloat16",
             "INT8": "int8", "INT16": "int16", "INT32": "int32", "INT64": "int64",
             "UINT8": "uint8", "UINT16": "uint16", "UINT32": "uint32", "UINT64": "uint64",
             "BOOL": "bool", "STRING": "string"}


class NodeArg:
    """An input or output of a model: ``name``, ``shape`` (ints; a str for a symbolic
    dimension, None for an unnamed open one; None for an undeclared shape) and ``type``
    (``"tensor(float)"``, as onnxruntime writes it)."""

    __slots__ = ("name", "shape", "type")

    def __init__(self, info: dict) -> None:
        self.name: str = info["name"]
        self.shape: Optional[list] = info["shape"]
        t = str(info["type"]).upper()
        self.type: str = f"tensor({_ORT_TYPE.get(t, t.lower())})"

    def __repr__(self) -> str:
        return f"NodeArg(name={self.name!r}, type={self.type!r}, shape={self.shape!r})"


class Session:
    """An ONNX model loaded for alknet's WebGPU compute.

    adapter: an adapter index or name substring (``alknet info`` lists them); None: the
    ALKNET_ADAPTER environment variable, else the first adapter. max_memory: bytes one model
    may make alknet allocate (0: the C++ default, 4 GiB). fuse: the graph fusion passes.
    """

    def __init__(self, path: PathLike, adapter: Optional[Union[str, int]] = None, *,
                 max_memory: int = 0, fuse: bool = True) -> None:
        self._path = os.fspath(path)
        self._native = _native.onnx.Session(self._path, "" if adapter is None else str(adapter),
                                            int(max_memory), bool(fuse))
        self._inputs = [NodeArg(i) for i in self._native.inputs()]
        self._outputs = [NodeArg(o) for o in self._native.outputs()]
        self.last_run_ms: float = 0.0

    @property
    def path(self) -> str:
        return self._path

    def get_inputs(self) -> list:
        """The graph inputs a run must feed (initializers excluded), in model order."""
        return list(self._inputs)

    def get_outputs(self) -> list:
        """The graph outputs, in model order."""
        return list(self._outputs)

    def get_modelmeta(self) -> dict:
        return {"opset": self._native.opset(), "path": self._path}

    @property
    def adapter(self) -> str:
        """The device this session runs on."""
        return self._native.adapter()

    def stats(self) -> dict:
        """Plans built, plan-cache hits, nodes folded on the host / run on the device, fusions."""
        return self._native.stats()

    def run(self, output_names: Optional[Sequence[str]], input_feed: Mapping[str, Any],
            run_options: Any = None) -> list:
        """Runs the model: ``input_feed`` maps every input name to an array-like of the
        declared dtype; returns the outputs named in ``output_names`` (None: all, in model
        order) as new numpy arrays."""
        if run_options is not None:
            raise TypeError("run_options is not supported (pass None)")
        feeds = {}
        for name, value in input_feed.items():
            feeds[name] = value if isinstance(value, np.ndarray) else np.asarray(value)
        wanted = None
        if output_names is not None:
            if isinstance(output_names, str):
                raise TypeError("output_names is a list of names (or None), not a str")
            known = {o.name for o in self._outputs}
            for n in output_names:
                if n not in known:
                    raise ValueError(f"{n!r} is not an output of {self._path} "
                                     f"(outputs: {', '.join(o.name for o in self._outputs)})")
            wanted = list(output_names)
        outs, run_ms = self._native.run(feeds)
        self.last_run_ms = run_ms
        if wanted is None:
            return [a for _, a in outs]
        by_name = dict(outs)
        return [by_name[n] for n in wanted]

    def run_async(self, output_names: Optional[Sequence[str]], input_feed: Mapping[str, Any],
                  callback: Optional[Callable[[Optional[list], Optional[BaseException]], None]] = None
                  ) -> Future:
        """Runs on a worker thread; returns a concurrent.futures.Future of run()'s list.

        callback(outputs, None) or callback(None, error) is also called from that thread
        when given. Runs of one Session are serialized; different Sessions overlap."""
        fut: Future = Future()
        feeds = dict(input_feed)

        def work() -> None:
            if not fut.set_running_or_notify_cancel():
                return
            try:
                result = self.run(output_names, feeds)
            except BaseException as e:  # noqa: BLE001  (handed to the caller)
                fut.set_exception(e)
                if callback is not None:
                    callback(None, e)
                return
            fut.set_result(result)
            if callback is not None:
                callback(result, None)

        threading.Thread(target=work, name="alknet-onnx-run", daemon=True).start()
        return fut

    def __repr__(self) -> str:
        return (f"<alknet.onnx.Session {self._path!r} inputs={[i.name for i in self._inputs]} "
                f"outputs={[o.name for o in self._outputs]}>")


InferenceSession = Session

__all__ = ["Session", "InferenceSession", "NodeArg", "ComputeError"]
