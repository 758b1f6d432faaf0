#!/usr/bin/env python3
"""alknet.compute: tensors on the WebGPU device, ops on them, SHA-256 on the GPU; each result
checked against numpy or hashlib.

    /usr/bin/python3 examples/python/compute_ops.py
"""
import hashlib

import numpy as np

import alknet

C = alknet.compute
print("device:", C.adapter()["description"])
rng = np.random.default_rng(0)
a = C.tensor(rng.standard_normal((16, 32)).astype(np.float32))   # uploaded once
b = C.tensor(rng.standard_normal((32, 8)).astype(np.float32))
y = C.softmax(C.relu(C.mat_mul(a, b)), axis=1)                     # stays on the device
got = y.numpy()                                                    # downloaded

h = np.maximum(a.numpy().astype(np.float64) @ b.numpy(), 0)
want = np.exp(h - h.max(axis=1, keepdims=True))
want /= want.sum(axis=1, keepdims=True)
np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
print(f"softmax(relu(a @ b)): {y}, row sums {got.sum(axis=1)[:3]}...")

data = b"alknet" * 1000
assert C.sha256(data) == hashlib.sha256(data).digest()
print("sha256:", C.sha256(data).hex())
print("OK: matches numpy and hashlib")
