#!/usr/bin/env python3
"""alknet.tensor: save tensors to a .mtf file, open it as zero-copy numpy views, convert it.

    /usr/bin/python3 examples/python/tensor_files.py [DIR]
"""
import os
import sys
import tempfile

import numpy as np

import alknet

out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="alknet-example-")
path = os.path.join(out, "weights.mtf")
rng = np.random.default_rng(0)
weights = {"layer0.weight": rng.standard_normal((64, 32)).astype(np.float32),
           "layer0.bias": np.zeros(64, np.float16),
           "steps": np.array(1200, np.int64)}
alknet.tensor.save(path, weights, metadata={"model": "example", "layers": [64]})

with alknet.tensor.open(path, verify=True) as f:           # every rule, padding, checksums
    w = f["layer0.weight"]                                  # a view into the mapping: no copy
    print(f"{path}: {len(f)} tensors, metadata {f.metadata}")
    print(f"layer0.weight {w.dtype}{w.shape}, writeable={w.flags.writeable}, base={type(w.base).__name__}")
np.testing.assert_array_equal(w, weights["layer0.weight"])  # still valid after the with block

alknet.tensor.convert(path, os.path.join(out, "weights.safetensors"))
alknet.tensor.convert(os.path.join(out, "weights.safetensors"), os.path.join(out, "back.mtf"))
back = alknet.tensor.load(os.path.join(out, "back.mtf"))
for name, a in weights.items():
    np.testing.assert_array_equal(back[name], a)
print("OK: saved, mapped, converted to .safetensors and back, equal to numpy")
