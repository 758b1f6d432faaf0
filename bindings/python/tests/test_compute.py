# alknet.compute: device tensors round-trip through the device, ops checked against numpy's
# float64 results, SHA-256 of bytes and of files against hashlib. Needs a WebGPU adapter
# (lavapipe counts); skips without one.
import hashlib

import numpy as np
import pytest

import alknet
from conftest import device_or_skip

C = alknet.compute


@pytest.fixture(autouse=True)
def _device():
    device_or_skip()


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "uint32", "bool"])
def test_tensor_round_trip(dtype):
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((3, 7)) * 100).astype(dtype)
    t = C.tensor(a)
    assert t.shape == (3, 7)
    back = t.numpy()
    assert back.dtype == a.dtype
    np.testing.assert_array_equal(back, a)
    assert back.flags.writeable and back.flags.owndata is False  # owned by its capsule


def test_unsupported_dtype_is_a_clear_error():
    with pytest.raises(TypeError, match="float32, float16, int32"):
        C.tensor(np.zeros(3, np.float64))


def test_ops_against_numpy():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 5)).astype(np.float32)
    b = rng.standard_normal((5, 3)).astype(np.float32)
    ta, tb = C.tensor(a), C.tensor(b)
    mm = C.mat_mul(ta, tb)  # stays on the device
    assert isinstance(mm, C.DeviceTensor) and mm.shape == (4, 3)
    np.testing.assert_allclose(mm.numpy(), a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    r = C.relu(C.add(ta, ta))
    np.testing.assert_allclose(r.numpy(), np.maximum(2 * a.astype(np.float64), 0), rtol=1e-6)
    # Arrays are uploaded on the way in; attributes are keywords; run() takes the ONNX name.
    s = C.run("ReduceSum", [a], opset=11, axes=[1], keepdims=0)  # opset 11: axes an attribute
    np.testing.assert_allclose(s.numpy(), a.astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-5)
    sm = C.softmax(a, axis=1)
    e = np.exp(a - a.max(axis=1, keepdims=True))
    np.testing.assert_allclose(sm.numpy(), e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)
    assert "mat_mul" in C.ops() and C.ops()["mat_mul"][0] == "MatMul"


def test_op_errors():
    with pytest.raises(alknet.ComputeError):
        C.mat_mul(np.zeros((2, 3), np.float32), np.zeros((4, 2), np.float32))
    with pytest.raises(alknet.ComputeError):
        C.run("NoSuchOp", [np.zeros(2, np.float32)])
    with pytest.raises(TypeError):
        C.relu(np.zeros(2, np.float32), axis={"no": 1})


@pytest.mark.parametrize("size", [0, 3, 55, 56, 64, 1000, 70000])
def test_sha256_bytes(size):
    data = np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8).tobytes()
    assert C.sha256(data) == hashlib.sha256(data).digest()
    assert C.sha256(bytearray(data)) == hashlib.sha256(data).digest()
    assert C.sha256(np.frombuffer(data, np.uint8)) == hashlib.sha256(data).digest()


def test_sha256_file(tmp_path):
    p = tmp_path / "f.bin"
    data = np.random.default_rng(9).integers(0, 256, 3 << 20, dtype=np.uint8).tobytes()
    p.write_bytes(data)
    assert C.sha256(p) == hashlib.sha256(data).digest()
    assert C.sha256(str(p)) == hashlib.sha256(data).digest()
    with pytest.raises(FileNotFoundError):
        C.sha256(tmp_path / "missing")


def test_adapter():
    a = C.adapter()
    assert set(a) >= {"vendor", "device", "description", "cpu"}
