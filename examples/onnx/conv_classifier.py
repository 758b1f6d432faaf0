#!/usr/bin/python3
"""A small convolutional classifier run end to end through `alknet infer`.

    /usr/bin/python3 examples/onnx/conv_classifier.py build/default/apps/alknet/alknet [WORKDIR]

Builds the model with python3-onnx (Conv 3x3 -> Relu -> Reshape -> MatMul + Add -> Softmax,
weights seeded), writes model.onnx and input.npy, runs `alknet infer ... --output out.npy
--json`, and compares the result with numpy computing the same network in float64.
Exit 0 when it matches, 1 when it does not or when alknet fails (an op table without Conv is
a regression, so it fails too; there is no skip).
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build(rng):
    w1 = rng.standard_normal((4, 1, 3, 3)).astype(np.float32) * 0.5
    b1 = rng.standard_normal(4).astype(np.float32) * 0.1
    w2 = rng.standard_normal((4 * 8 * 8, 10)).astype(np.float32) * 0.05
    b2 = rng.standard_normal(10).astype(np.float32) * 0.1
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c"], name="conv", pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("Reshape", ["r", "flat"], ["f"], name="flatten"),
        helper.make_node("MatMul", ["f", "w2"], ["m"], name="fc"),
        helper.make_node("Add", ["m", "b2"], ["logits"], name="fc_bias"),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=-1),
    ]
    inits = [numpy_helper.from_array(a, n) for a, n in
             [(w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"), (np.array([1, -1], np.int64), "flat")]]
    graph = helper.make_graph(nodes, "conv_classifier",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 8, 8])],
                              [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    return model, (w1, b1, w2, b2)


def reference(x, w1, b1, w2, b2):
    x, w1, b1, w2, b2 = (a.astype(np.float64) for a in (x, w1, b1, w2, b2))
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    c = np.zeros((1, 4, 8, 8))
    for o in range(4):
        for i in range(8):
            for j in range(8):
                c[0, o, i, j] = np.sum(xp[0, :, i:i + 3, j:j + 3] * w1[o]) + b1[o]
    logits = np.maximum(c, 0).reshape(1, -1) @ w2 + b2
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def main():
    alknet = sys.argv[1]
    work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="alknet_conv_")
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(20261202)
    model, weights = build(rng)
    model_path = os.path.join(work, "model.onnx")
    onnx.save(model, model_path)
    x = rng.standard_normal((1, 1, 8, 8)).astype(np.float32)
    np.save(os.path.join(work, "input.npy"), x)
    out_path = os.path.join(work, "out.npy")
    p = subprocess.run([alknet, "infer", model_path, "--input", "x=" + os.path.join(work, "input.npy"),
                        "--output", out_path, "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        print(f"FAIL: alknet infer exited {p.returncode}")
        return 1
    report = json.loads(p.stdout)
    got = np.load(out_path)
    want = reference(x, *weights)
    err = float(np.max(np.abs(got - want)))
    print(f"probs {got.ravel()[:4]}... max |alknet - numpy float64| = {err:.3g}; "
          f"load {report['load_ms']:.1f} ms, plan {report['plan_ms']:.1f} ms, run {report['run_ms']['first']:.2f} ms")
    ok = got.shape == want.shape and np.allclose(got, want, rtol=1e-4, atol=1e-6)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
