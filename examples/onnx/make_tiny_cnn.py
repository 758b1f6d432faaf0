#!/usr/bin/python3
"""Writes the model and the check data of examples/onnx_classify.js.

    /usr/bin/python3 examples/onnx/make_tiny_cnn.py build/default/apps/alknet/alknet

tiny_cnn.onnx: a small image classifier with a dynamic batch dimension "N" (Conv 3x3 -> Relu
-> MaxPool 2x2 -> Conv 3x3 -> Relu -> GlobalAveragePool -> Flatten -> Gemm -> Softmax),
weights drawn from a seeded generator, built with python3-onnx and checked by its checker.

tiny_cnn_check.mtf: four input images ("image", f32 [4, 1, 12, 12]) and the class
probabilities numpy computes for them in float64 from the same weights ("probs", f64
[4, 10]): the independent reference the JavaScript example compares alknet with. Written as
.npz, then converted with `alknet tensor convert` (the CLI reads numpy's format).

Both files are committed (7 KB); rerun this script after changing the network.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def weights(rng):
    return {
        "w1": (rng.standard_normal((6, 1, 3, 3)) * 0.6).astype(np.float32),
        "b1": (rng.standard_normal(6) * 0.1).astype(np.float32),
        "w2": (rng.standard_normal((12, 6, 3, 3)) * 0.25).astype(np.float32),
        "b2": (rng.standard_normal(12) * 0.1).astype(np.float32),
        "w3": (rng.standard_normal((10, 12)) * 0.8).astype(np.float32),
        "b3": (rng.standard_normal(10) * 0.1).astype(np.float32),
    }


def build(w):
    nodes = [
        helper.make_node("Conv", ["image", "w1", "b1"], ["c1"], name="conv1", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], name="conv2", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        helper.make_node("GlobalAveragePool", ["r2"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten", axis=1),
        helper.make_node("Gemm", ["f", "w3", "b3"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "tiny_cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 1, 12, 12])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["N", 10])],
        [numpy_helper.from_array(a, n) for n, a in w.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="alknet-examples")
    onnx.checker.check_model(model)
    return model


def conv3x3_pad1(x, w, b):
    n, _, h, wd = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, w.shape[0], h, wd))
    for i in range(3):
        for j in range(3):
            out += np.einsum("nchw,oc->nohw", xp[:, :, i:i + h, j:j + wd], w[:, :, i, j])
    return out + b[None, :, None, None]


def reference(x, w):
    w = {k: v.astype(np.float64) for k, v in w.items()}
    x = x.astype(np.float64)
    r1 = np.maximum(conv3x3_pad1(x, w["w1"], w["b1"]), 0)
    n, c, h, wd = r1.shape
    p1 = r1.reshape(n, c, h // 2, 2, wd // 2, 2).max(axis=(3, 5))
    r2 = np.maximum(conv3x3_pad1(p1, w["w2"], w["b2"]), 0)
    g = r2.mean(axis=(2, 3))
    logits = g @ w["w3"].T + w["b3"]
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def images(rng):
    # Four 12x12 test patterns: a bar, a cross, a ring and noise.
    yy, xx = np.mgrid[0:12, 0:12]
    bar = (abs(xx - 6) < 2).astype(np.float32)
    cross = ((abs(xx - yy) < 1.5) | (abs(xx + yy - 11) < 1.5)).astype(np.float32)
    ring = (abs(np.hypot(xx - 5.5, yy - 5.5) - 4) < 1.2).astype(np.float32)
    noise = rng.random((12, 12)).astype(np.float32)
    return np.stack([bar, cross, ring, noise])[:, None, :, :]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    alknet = sys.argv[1]
    rng = np.random.default_rng(20261203)
    w = weights(rng)
    model = build(w)
    onnx.save(model, os.path.join(HERE, "tiny_cnn.onnx"))
    x = images(rng)
    probs = reference(x, w)
    with tempfile.TemporaryDirectory() as tmp:
        npz = os.path.join(tmp, "check.npz")
        np.savez(npz, image=x, probs=probs)
        subprocess.run([alknet, "tensor", "convert", npz, os.path.join(HERE, "tiny_cnn_check.mtf")], check=True)
    print("wrote tiny_cnn.onnx and tiny_cnn_check.mtf; classes", probs.argmax(axis=1).tolist())


if __name__ == "__main__":
    main()
