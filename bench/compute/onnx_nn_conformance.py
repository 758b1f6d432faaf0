#!/usr/bin/python3
"""Runs the ONNX backend node tests of the nn ops (Conv, pools, normalisations) through
`alknet call compute.<op>` (the GPU kernels) and compares output 0 with the expected output.

    /usr/bin/python3 bench/compute/onnx_nn_conformance.py build/default/apps/alknet/alknet

Needs python3-onnx (numpy, onnx) and libonnx-testdata. Prints one line per test and a summary;
exit status 1 if any test that ran disagrees.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import helper, numpy_helper

ROOTS = ["/usr/share/libonnx-testdata/data/node", "/usr/share/libonnx-testdata/data/pytorch-converted",
         "/usr/share/libonnx-testdata/data/pytorch-operator"]
OPS = {"Conv", "ConvTranspose", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
       "BatchNormalization", "InstanceNormalization", "LRN", "LayerNormalization",
       "MeanVarianceNormalization", "LpNormalization"}


def call_name(op):
    out = ""
    for i, ch in enumerate(op):
        if ch.isupper() and i > 0 and op[i - 1].islower():
            out += "_"
        out += ch.lower()
    return "compute." + out


def load(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def main():
    alknet = sys.argv[1]
    ran = passed = 0
    failures = []
    for root in ROOTS:
        for d in sorted(glob.glob(os.path.join(root, "test_*"))):
            model_path = os.path.join(d, "model.onnx")
            if not os.path.exists(model_path):
                continue
            m = onnx.load(model_path)
            if len(m.graph.node) != 1 or m.graph.node[0].op_type not in OPS:
                continue
            node = m.graph.node[0]
            opset = max(o.version for o in m.opset_import if o.domain in ("", "ai.onnx"))
            attrs = {}
            for a in node.attribute:
                v = helper.get_attribute_value(a)
                if isinstance(v, bytes):
                    v = v.decode()
                elif isinstance(v, list):
                    v = [int(x) if isinstance(x, int) else float(x) for x in v]
                attrs[a.name] = v
            for ds in sorted(glob.glob(os.path.join(d, "test_data_set_*"))):
                ins = [load(p) for p in sorted(glob.glob(os.path.join(ds, "input_*.pb")))]
                want = load(os.path.join(ds, "output_0.pb"))
                name = os.path.basename(d) + "/" + os.path.basename(ds)
                if want.dtype != np.float32 or any(x.dtype != np.float32 for x in ins):
                    print(f"SKIP {name}: dtype {want.dtype} / {[str(x.dtype) for x in ins]} (f32 only)")
                    continue
                with tempfile.TemporaryDirectory() as tmp:
                    files = []
                    for i, x in enumerate(ins):
                        p = os.path.join(tmp, f"in{i}.npy")
                        np.save(p, x)
                        files.append(p)
                    cmd = [alknet, "call", call_name(node.op_type), "[" + ",".join(files) + "]", json.dumps(attrs),
                           str(opset), "--out", tmp, "--format", "npy", "--json"]
                    r = subprocess.run(cmd, capture_output=True, text=True)
                    ran += 1
                    outs = glob.glob(os.path.join(tmp, "result*.npy"))
                    if r.returncode != 0 or not outs:
                        failures.append(name)
                        print(f"FAIL {name}: {r.stdout.strip()[:300]} {r.stderr.strip()[:300]}")
                        continue
                    got = np.load(outs[0])
                    if got.shape != want.shape:
                        failures.append(name)
                        print(f"FAIL {name}: shape {got.shape}, expected {want.shape}")
                        continue
                    err = np.max(np.abs(got.astype(np.float64) - want)) if want.size else 0.0
                    tol = 1e-4 + 1e-4 * np.max(np.abs(want)) if want.size else 0
                    if err <= tol:
                        passed += 1
                        print(f"ok   {name} ({node.op_type} opset {opset}, max abs err {err:.2e})")
                    else:
                        failures.append(name)
                        print(f"FAIL {name}: max abs err {err:.3e} (tolerance {tol:.1e})")
    print(f"\n{passed} of {ran} ONNX node tests reproduced" + (": failures " + ", ".join(failures) if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
