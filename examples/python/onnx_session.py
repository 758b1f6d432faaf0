#!/usr/bin/env python3
"""alknet.onnx: an ONNX model (built here with the onnx package) run with onnxruntime's API
shape, checked against numpy in float64.

    /usr/bin/python3 examples/python/onnx_session.py [DIR]
"""
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import alknet

out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="alknet-example-")
rng = np.random.default_rng(0)
w = rng.standard_normal((8, 4)).astype(np.float32)
b = rng.standard_normal(4).astype(np.float32)
graph = helper.make_graph(
    [helper.make_node("Gemm", ["x", "w", "b"], ["h"]), helper.make_node("Softmax", ["h"], ["y"], axis=1)],
    "classifier",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])],
    [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
path = os.path.join(out, "classifier.onnx")
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)

session = alknet.onnx.Session(path)
print("inputs:", session.get_inputs(), "outputs:", session.get_outputs(), "on", session.adapter)
x = rng.standard_normal((5, 8)).astype(np.float32)
(y,) = session.run(None, {"x": x})

h = x.astype(np.float64) @ w + b
want = np.exp(h - h.max(axis=1, keepdims=True))
want /= want.sum(axis=1, keepdims=True)
np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)
(y2,) = session.run_async(["y"], {"x": x}).result()
np.testing.assert_array_equal(y2, y)
print("y =", np.round(y, 4).tolist())
print("OK: matches numpy's float64 result")
