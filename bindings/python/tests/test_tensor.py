# alknet.tensor against numpy: zero-copy views of the mapping, round trips of every dtype,
# conversion from/to .npy/.npz/.safetensors (checked with numpy's own readers and an
# independent safetensors parse), the conformance corpus' bad files with their rule numbers,
# and reference lifetimes.
import gc
import json
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import alknet
from conftest import SOURCE, alknet_bin

CORPUS = SOURCE / "libs" / "tensor" / "tests" / "corpus"

NUMPY_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                "uint64", "float16", "float32", "float64", "complex64", "complex128"]


def sample(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    dt = np.dtype(dtype)
    if dt.kind == "b":
        a = rng.integers(0, 2, n).astype(bool)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    elif dt.kind == "f":
        a = rng.standard_normal(n).astype(dt)
        a[:1] = np.inf if n else a[:1]
    else:
        a = (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt)
    return a.reshape(shape)


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_round_trip_every_dtype(tmp_path, dtype):
    arrays = {"a": sample(dtype, (3, 5)), "scalar": sample(dtype, ()), "empty": sample(dtype, (0, 4))}
    p = tmp_path / "t.mtf"
    alknet.tensor.save(p, arrays)
    with alknet.tensor.open(p, verify=True) as f:
        assert sorted(f) == sorted(arrays)
        for name, want in arrays.items():
            got = f[name]
            assert got.dtype == np.dtype(dtype).newbyteorder("<")
            assert got.shape == want.shape
            np.testing.assert_array_equal(got, want)
            assert f.info(name)["crc32c"] is not None


def test_views_are_zero_copy_and_read_only(tmp_path):
    p = tmp_path / "z.mtf"
    a = np.arange(1 << 16, dtype=np.float32).reshape(256, 256)
    alknet.tensor.save(p, {"w": a}, alignment=4096)
    f = alknet.tensor.open(p)
    v = f["w"]
    # The array owns nothing: its base is the native mapping object.
    assert not v.flags.owndata
    assert type(v.base).__name__ == "MappedFile"
    assert f["w"].base is v.base
    # Its address is inside the mapping at the offset the index gives (4096-aligned).
    assert v.ctypes.data % 4096 == 0
    raw = f.raw("w")
    assert raw.ctypes.data == v.ctypes.data and raw.nbytes == v.nbytes
    with pytest.raises(ValueError):
        v[0, 0] = 1
    with pytest.raises(ValueError):
        v.flags.writeable = True
    # Pages are shared with the file: the view sees a change another writer makes through
    # the file (proof there is no copy).
    off = f.info("w")["offset"]
    with open(p, "r+b") as raw_file:
        raw_file.seek(off)
        raw_file.write(struct.pack("<f", 42.0))
    assert v[0, 0] == 42.0


def test_view_outlives_file_and_close_fails_clearly(tmp_path):
    p = tmp_path / "l.mtf"
    alknet.tensor.save(p, {"x": np.arange(10, dtype=np.int64)})
    f = alknet.tensor.open(p)
    v = f["x"]
    f.close()
    del f
    gc.collect()
    os.unlink(p)  # the mapping stays valid after the name is gone
    np.testing.assert_array_equal(v, np.arange(10))
    alknet.tensor.save(p, {"x": np.arange(3, dtype=np.int64)})
    with alknet.tensor.open(p) as f3:
        pass
    assert f3.closed
    with pytest.raises(ValueError, match="closed"):
        f3["x"]
    with pytest.raises(ValueError, match="closed"):
        list(f3)
    with pytest.raises(ValueError, match="closed"):
        f3.metadata
    with pytest.raises(KeyError):
        alknet.tensor.open(p)["nope"]


def test_metadata_values(tmp_path):
    p = tmp_path / "m.mtf"
    meta = {"s": "héllo", "i": -3, "big": 2**64 - 1, "f": 1.5, "b": True, "raw": b"\x00\x01",
            "ints": [1, -2, 3], "floats": [0.5, 2.0], "strs": ["a", "b"], "bools": [True, False]}
    alknet.tensor.save(p, {"x": np.zeros(2, np.float32)}, metadata=meta)
    with alknet.tensor.open(p) as f:
        assert f.metadata == meta
    with pytest.raises(TypeError, match="metadata 'bad'"):
        alknet.tensor.save(p, {}, metadata={"bad": [1, "x"]})
    with pytest.raises(TypeError, match="metadata 'bad'"):
        alknet.tensor.save(p, {}, metadata={"bad": {"nested": 1}})


def test_save_is_atomic_and_refuses_bad_input(tmp_path):
    p = tmp_path / "a.mtf"
    alknet.tensor.save(p, {"x": np.ones(4, np.float32)})
    before = p.read_bytes()
    with pytest.raises(TypeError, match="big-endian"):
        alknet.tensor.save(p, {"x": np.ones(4, ">f4")})
    with pytest.raises(TypeError, match="no metatensor equivalent"):
        alknet.tensor.save(p, {"x": np.array(["a"])})
    with pytest.raises(alknet.TensorError):
        alknet.tensor.save(p, {"": np.ones(4, np.float32)})
    # A failed save leaves the old file whole and no temporary beside it.
    assert p.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["a.mtf"]
    # A non-contiguous array is written as its values.
    t = np.arange(12, dtype=np.int32).reshape(3, 4).T
    alknet.tensor.save(p, {"t": t})
    with alknet.tensor.open(p) as f:
        np.testing.assert_array_equal(f["t"], t)


def test_file_is_readable_by_the_cli(tmp_path):
    p = tmp_path / "c.mtf"
    alknet.tensor.save(p, {"x": np.arange(6, dtype=np.float32).reshape(2, 3)}, metadata={"k": "v"})
    out = subprocess.run([alknet_bin(), "tensor", "verify", str(p)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    doc = json.loads(subprocess.run([alknet_bin(), "tensor", "inspect", str(p), "--json"],
                                    capture_output=True, text=True, check=True).stdout)
    assert [t["name"] for t in doc["tensors"]] == ["x"]


@pytest.mark.parametrize("path", sorted(CORPUS.glob("r*.mtf")), ids=lambda p: p.stem)
def test_corpus_bad_file_raises_its_rule(path):
    rule = int(path.name[1:3])
    with pytest.raises(alknet.TensorError) as ei:
        alknet.tensor.open(path, verify=True)
    assert ei.value.rule == rule, str(ei.value)
    assert path.name in str(ei.value)
    assert isinstance(ei.value.code, str) and ei.value.code
    assert isinstance(ei.value, alknet.AlknetError)


@pytest.mark.parametrize("path", sorted(CORPUS.glob("good-*.mtf")), ids=lambda p: p.stem)
def test_corpus_good_file_opens(path):
    with alknet.tensor.open(path, verify=True) as f:
        for name in f:
            assert f.raw(name).nbytes == f.info(name)["byte_length"]


def test_corpus_covers_every_rule():
    assert sorted(int(p.name[1:3]) for p in CORPUS.glob("r*.mtf")) == list(range(1, 37))


def test_missing_file_and_not_a_file(tmp_path):
    with pytest.raises(alknet.TensorError) as ei:
        alknet.tensor.open(tmp_path / "nope.mtf")
    assert ei.value.rule == 0 and "nope.mtf" in str(ei.value)
    with pytest.raises(alknet.TensorError):
        alknet.tensor.open(tmp_path)


def test_convert_from_npy_npz_safetensors(tmp_path):
    a = sample("float32", (4, 3))
    b = sample("int64", (5,), 1)
    np.save(tmp_path / "a.npy", a)
    np.savez(tmp_path / "ab.npz", a=a, b=b)
    assert alknet.tensor.convert(tmp_path / "a.npy", tmp_path / "a.mtf") == 1
    assert alknet.tensor.convert(tmp_path / "ab.npz", tmp_path / "ab.mtf") == 2
    with alknet.tensor.open(tmp_path / "a.mtf") as f:
        np.testing.assert_array_equal(f["a"], a)
        assert f.metadata["alknet.converted_from"] == "a.npy"
    with alknet.tensor.open(tmp_path / "ab.mtf") as f:
        np.testing.assert_array_equal(f["a"], a)
        np.testing.assert_array_equal(f["b"], b)
    # .mtf -> .safetensors, parsed here independently, then back.
    alknet.tensor.convert(tmp_path / "ab.mtf", tmp_path / "ab.safetensors")
    data = (tmp_path / "ab.safetensors").read_bytes()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    s, e = header["b"]["data_offsets"]
    assert header["b"]["dtype"] == "I64" and header["b"]["shape"] == [5]
    np.testing.assert_array_equal(np.frombuffer(body[s:e], "<i8"), b)
    assert header["__metadata__"]["alknet.converted_from"] == "ab.npz"
    assert alknet.tensor.convert(tmp_path / "ab.safetensors", tmp_path / "back.mtf") == 2
    with alknet.tensor.open(tmp_path / "back.mtf") as f:
        np.testing.assert_array_equal(f["a"], a)
        assert f.metadata["safetensors.alknet.converted_from"] == "ab.npz"


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_convert_to_npy_npz_every_dtype(tmp_path, dtype):
    a = sample(dtype, (2, 3), 2)
    alknet.tensor.save(tmp_path / "one.mtf", {"v": a})
    alknet.tensor.convert(tmp_path / "one.mtf", tmp_path / "v.npy")
    np.testing.assert_array_equal(np.load(tmp_path / "v.npy"), a)
    alknet.tensor.convert(tmp_path / "one.mtf", tmp_path / "v.npz")
    with np.load(tmp_path / "v.npz") as z:
        np.testing.assert_array_equal(z["v"], a)
    d = tmp_path / "dir"
    d.mkdir()
    alknet.tensor.convert(tmp_path / "one.mtf", d)
    np.testing.assert_array_equal(np.load(d / "v.npy"), a)


def test_convert_refuses_hostile_foreign_files(tmp_path):
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(struct.pack("<Q", 1 << 40) + b"{}")
    with pytest.raises(alknet.TensorError) as ei:
        alknet.tensor.convert(bad, tmp_path / "out.mtf")
    assert "bad.safetensors" in str(ei.value)
    assert not (tmp_path / "out.mtf").exists()
    (tmp_path / "bad.npy").write_bytes(b"\x93NUMPY\x01\x00\xff\xff{'descr': '<f4'")
    with pytest.raises(alknet.TensorError):
        alknet.tensor.convert(tmp_path / "bad.npy", tmp_path / "out.mtf")
    with pytest.raises(ValueError):
        alknet.tensor.convert(tmp_path / "x.txt", tmp_path / "out.mtf")


def test_dtypes_lists_the_spec_names():
    names = alknet.tensor.dtypes()
    assert {"bool", "f32", "bf16", "i64"} <= set(names) and len(names) == len(set(names))
