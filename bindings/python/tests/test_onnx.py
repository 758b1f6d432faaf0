# alknet.onnx.Session against the ONNX backend test data (/usr/share/libonnx-testdata: the
# inputs and expected outputs, read here with python3-onnx's numpy_helper), against
# `alknet infer` on the same model, dtype handling (int64, bool, float16, float64 feeds),
# run_async, and GIL release during a long run. Needs a WebGPU adapter (lavapipe counts);
# skips without one.
import json
import pathlib
import subprocess
import threading
import time

import numpy as np
import pytest

import alknet
from conftest import alknet_bin, device_or_skip

onnx = pytest.importorskip("onnx")
from onnx import helper, numpy_helper, TensorProto  # noqa: E402

NODE = pathlib.Path("/usr/share/libonnx-testdata/data/node")

# One per feed dtype the issue names, plus plain float models.
CASES = ["test_relu", "test_add_bcast", "test_matmul_2d", "test_and2d", "test_max_int64",
         "test_cast_FLOAT16_to_FLOAT", "test_cast_DOUBLE_to_FLOAT", "test_where_long_example"]


@pytest.fixture(autouse=True)
def _device():
    device_or_skip()


def load_case(name):
    d = NODE / name
    if not d.exists():
        pytest.skip(f"{d} not installed (libonnx-testdata)")
    ds = d / "test_data_set_0"
    read = lambda p: numpy_helper.to_array(onnx.load_tensor(str(p)))  # noqa: E731
    ins = [read(p) for p in sorted(ds.glob("input_*.pb"), key=lambda p: int(p.stem.split("_")[1]))]
    outs = [read(p) for p in sorted(ds.glob("output_*.pb"), key=lambda p: int(p.stem.split("_")[1]))]
    return d / "model.onnx", ins, outs


def check(got, want):
    assert got.shape == want.shape
    if want.dtype.kind == "f":
        # The device computes in f32 (DOUBLE narrowed, docs/adr/0002-onnx-dtypes.md).
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64),
                                   rtol=1e-3 if want.dtype == np.float16 else 1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("case", CASES)
def test_run_matches_onnx_expected_outputs(case):
    model, ins, outs = load_case(case)
    s = alknet.onnx.Session(model)
    names = [i.name for i in s.get_inputs()]
    assert len(names) == len(ins)
    for arg, a in zip(s.get_inputs(), ins):
        assert arg.type.startswith("tensor(")
        assert arg.shape is None or len(arg.shape) == a.ndim
    got = s.run(None, dict(zip(names, ins)))
    assert len(got) == len(outs)
    for g, w in zip(got, outs):
        assert g.dtype == w.dtype
        check(g, w)
    # Named outputs, in the order asked.
    out_names = [o.name for o in s.get_outputs()]
    again = s.run(list(reversed(out_names)), dict(zip(names, ins)))
    for g, w in zip(again, reversed(got)):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("case", ["test_matmul_2d", "test_max_int64", "test_and2d"])
def test_run_matches_alknet_infer(tmp_path, case):
    model, ins, _ = load_case(case)
    s = alknet.onnx.Session(model)
    names = [i.name for i in s.get_inputs()]
    cmd = [alknet_bin(), "infer", str(model), "--output", str(tmp_path / "out"), "--json"]
    for n, a in zip(names, ins):
        np.save(tmp_path / f"{n}.npy", a)
        cmd += ["--input", f"{n}={tmp_path / (n + '.npy')}"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    got = s.run(None, dict(zip(names, ins)))
    for o, g in zip(s.get_outputs(), got):
        cli = np.load(tmp_path / "out" / f"{o.name}.npy")
        assert cli.dtype == g.dtype
        np.testing.assert_array_equal(g, cli)
    assert [o["name"] for o in doc["outputs"]] == [o.name for o in s.get_outputs()]


def symbolic_model(path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def test_inputs_outputs_shapes_and_feed_errors(tmp_path):
    s = alknet.onnx.Session(symbolic_model(tmp_path / "m.onnx"))
    [i] = s.get_inputs()
    assert (i.name, i.shape, i.type) == ("x", ["batch", 3], "tensor(float)")
    assert s.get_outputs()[0].name == "y"
    x = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    np.testing.assert_array_equal(s.run(None, {"x": x})[0], np.maximum(x, 0))
    with pytest.raises(TypeError, match="tensor\\(float\\)"):
        s.run(None, {"x": x.astype(np.float64)})
    with pytest.raises(ValueError, match="missing feed"):
        s.run(None, {})
    with pytest.raises(ValueError, match="not an input"):
        s.run(None, {"x": x, "z": x})
    with pytest.raises(ValueError, match="not an output"):
        s.run(["nope"], {"x": x})
    with pytest.raises(alknet.ComputeError):
        s.run(None, {"x": np.zeros((2, 4), np.float32)})  # the model says 3 columns


def test_bad_model_files_raise(tmp_path):
    with pytest.raises(alknet.ComputeError):
        alknet.onnx.Session(tmp_path / "missing.onnx")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x0a\xff\xff\xff\xff\x0f garbage")
    with pytest.raises(alknet.ComputeError):
        alknet.onnx.Session(bad)


def long_model(path, n=256, layers=24):
    rng = np.random.default_rng(0)
    nodes, inits = [], []
    prev = "x"
    for i in range(layers):
        w = (rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32)
        inits.append(numpy_helper.from_array(w, f"w{i}"))
        nodes.append(helper.make_node("MatMul", [prev, f"w{i}"], [f"h{i}"]))
        prev = f"h{i}"
    g = helper.make_graph(nodes, "long", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, n])],
                          [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [n, n])], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path, [numpy_helper.to_array(t) for t in inits]


def test_gil_is_released_while_the_device_works(tmp_path):
    path, ws = long_model(tmp_path / "long.onnx")
    s = alknet.onnx.Session(path)
    x = np.eye(256, dtype=np.float32)
    s.run(None, {"x": x})  # plans, compiles the pipelines
    ticks = []
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=spin)
    t.start()
    time.sleep(0.02)
    start = time.perf_counter()
    [y] = s.run(None, {"x": x})
    end = time.perf_counter()
    stop.set()
    t.join()
    during = [k for k in ticks if start <= k <= end]
    # The spinner ticks every ~1 ms whenever it holds the GIL; were the GIL held for the run,
    # it could not tick at all between start and end.
    assert end - start > 0.005, "the run was too short to tell"
    assert len(during) >= 3, f"{len(during)} ticks during a {1e3 * (end - start):.1f} ms run"
    want = x.astype(np.float64)
    for w in ws:
        want = want @ w.astype(np.float64)
    np.testing.assert_allclose(y, want, rtol=1e-3, atol=1e-4)


def test_run_async(tmp_path):
    s = alknet.onnx.Session(symbolic_model(tmp_path / "m.onnx"))
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    seen = []
    fut = s.run_async(None, {"x": x}, callback=lambda out, err: seen.append((out, err)))
    [y] = fut.result(timeout=60)
    np.testing.assert_array_equal(y, np.maximum(x, 0))
    bad = s.run_async(None, {"x": x.astype(np.int32)})
    with pytest.raises(TypeError):
        bad.result(timeout=60)
    deadline = time.time() + 10
    while not seen and time.time() < deadline:
        time.sleep(0.01)
    assert seen and seen[0][1] is None


def test_outputs_outlive_the_session_and_feeds_may_be_strided():
    model, ins, outs = load_case("test_matmul_2d")
    s = alknet.onnx.Session(model)
    names = [i.name for i in s.get_inputs()]
    # Non-contiguous feeds (a transposed view) are copied into C order first.
    a_t = np.ascontiguousarray(ins[0].T).T
    assert not a_t.flags.c_contiguous
    [y] = s.run(None, {names[0]: a_t, names[1]: ins[1]})
    del s
    import gc
    gc.collect()
    check(y, outs[0])  # the output owns its memory, independent of the session
    y[0, 0] = 1.0  # and it is the caller's to change


def test_int64_feed_outside_the_device_range_is_refused():
    model, ins, _ = load_case("test_max_int64")
    s = alknet.onnx.Session(model)
    feeds = {i.name: a.copy() for i, a in zip(s.get_inputs(), ins)}
    first = next(iter(feeds))
    feeds[first].flat[0] = 2**40  # INT64 runs as i32, range-checked (docs/adr/0002-onnx-dtypes.md)
    with pytest.raises(alknet.ComputeError) as ei:
        s.run(None, feeds)
    assert first in str(ei.value) and "i32" in str(ei.value)
