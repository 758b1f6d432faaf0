"""alknet:compute, alknet:tensor and alknet:call against independent references.

  modules_test.py ALKNET SCRIPTS_DIR {sha256|tensor|call|run-remote|onnx}

SCRIPTS_DIR is the module's own tests folder (libs/ext/<module>/tests).

sha256: the GPU digests of files against Python's hashlib (OpenSSL) and `sha256sum`.
tensor: a .mtf written from JS read by the C++ reader (`alknet tensor verify/inspect --json`,
        CRC32C of the values recomputed here); a .mtf written by the C++ writer (`alknet tensor
        convert` of numpy arrays) read from JS; --allow-read/--allow-write enforced.
call:   connect() against a real `alknet serve` with a token.
run-remote: `alknet run --remote ADDR --token T` binds alknet:call to the server (a stopped
        server makes the same script fail; a wrong token is refused before the script runs).
onnx:   alknet:compute's Session on a model built with python3-onnx (external-data weights, a
        dynamic batch, int64 input and output) against numpy in float64; --allow-read enforced
        for the model and for its external data; bad feeds give errors that say what is wrong.
Every subprocess has a timeout; servers are stopped with SIGINT."""
import hashlib
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile

import numpy as np

ALKNET, SCRIPTS, WHAT = sys.argv[1], sys.argv[2], sys.argv[3]


def run(*args, expect=0, timeout=180):
    p = subprocess.run([ALKNET, *args], capture_output=True, text=True, timeout=timeout)
    if p.returncode != expect:
        raise AssertionError(f"{args}: exit {p.returncode}, want {expect}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def crc32c(data: bytes) -> int:
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    crc = 0xFFFFFFFF
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def test_sha256(d):
    files = []
    for size in [0, 1, 55, 56, 63, 64, 65, 1000, 4096 * 3 + 17]:
        path = os.path.join(d, f"m{size}.bin")
        with open(path, "wb") as f:
            f.write(os.urandom(size))
        files.append(path)
    out = run("run", "--allow-read", os.path.join(SCRIPTS, "sha256.mjs"), *files).stdout
    sums = subprocess.run(["sha256sum", *files], capture_output=True, text=True, check=True, timeout=60).stdout
    assert out == sums, f"GPU:\n{out}\nsha256sum:\n{sums}"
    for line in out.splitlines():
        digest, path = line.split("  ", 1)
        assert digest == hashlib.sha256(open(path, "rb").read()).hexdigest(), path
    print(f"sha256 of {len(files)} files matches sha256sum and hashlib")


def test_tensor(d):
    out = os.path.join(d, "from_js.mtf")
    writer = os.path.join(SCRIPTS, "tensor_write.mjs")
    # Without --allow-write the write is refused and no file appears.
    p = run("run", writer, out, expect=1)
    assert "PermissionDenied" in p.stderr and "--allow-write" in p.stderr, p.stderr
    assert not os.path.exists(out)
    run("run", f"--allow-write={d}", writer, out)
    run("tensor", "verify", out)
    info = json.loads(run("tensor", "inspect", out, "--json").stdout)
    tensors = {t["name"]: t for t in info["tensors"]}
    want = {
        "weights": ("f32", [2, 3, 5], np.array([((i * 7) % 13) - 6.5 for i in range(30)], np.float32)),
        "layer.ids": ("i32", [17], np.array([i * i - 100 for i in range(17)], np.int32)),
        "bytes": ("u8", [3, 3], np.array([(i * 31) & 255 for i in range(9)], np.uint8)),
    }
    for name, (dtype, shape, values) in want.items():
        t = tensors[name]
        assert t["dtype"] == dtype and t["shape"] == shape, t
        assert t["crc32c"] == crc32c(values.tobytes()), (name, t["crc32c"], crc32c(values.tobytes()))
    meta = json.dumps(info.get("metadata"))
    for needle in ["alknet:tensor test", "0.25", "author", "dims", "flag"]:
        assert needle in meta, (needle, meta)

    # C++ writer -> JS reader: numpy arrays converted by `alknet tensor convert`.
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 4, 5)).astype(np.float32)
    b = rng.integers(-1000, 1000, size=(7,)).astype(np.int32)
    np.savez(os.path.join(d, "arrays.npz"), alpha=a, beta=b)
    mtf = os.path.join(d, "from_cpp.mtf")
    run("tensor", "convert", os.path.join(d, "arrays.npz"), mtf)
    before = open(mtf, "rb").read()
    reader = os.path.join(SCRIPTS, "tensor_read.mjs")
    p = run("run", reader, mtf, expect=1)
    assert "PermissionDenied" in p.stderr and "--allow-read" in p.stderr, p.stderr
    got = json.loads(run("run", f"--allow-read={d}", reader, mtf).stdout)
    by = {t["name"]: t for t in got["tensors"]}
    for name, arr, dtype in [("alpha", a, "f32"), ("beta", b, "i32")]:
        t = by[name]
        assert t["dtype"] == dtype and t["shape"] == list(arr.shape), t
        assert np.array_equal(np.array(t["values"], dtype=arr.dtype).reshape(arr.shape), arr), name
    # The script wrote into a mapped array: the file must be unchanged (private mapping).
    assert open(mtf, "rb").read() == before, "writing a mapped typed array changed the file"
    # A corrupt file is a clear error naming the file.
    bad = os.path.join(d, "bad.mtf")
    with open(bad, "wb") as f:
        f.write(before[: len(before) // 2])
    p = run("run", f"--allow-read={d}", reader, bad, expect=1)
    assert "bad.mtf" in p.stderr, p.stderr
    print("alknet:tensor: JS -> C++ reader and C++ writer -> JS agree; permissions enforced")


def start_server(d, token):
    token_file = os.path.join(d, "token")
    with open(token_file, "w") as f:
        f.write(token + "\n")
    server = subprocess.Popen([ALKNET, "serve", "--listen", "127.0.0.1:0", "--token-file", token_file, "--json"],
                              stdout=subprocess.PIPE, text=True)
    addr = json.loads(server.stdout.readline())["listening"]
    return server, addr


def stop(server):
    server.send_signal(signal.SIGINT)
    server.wait(timeout=30)


def test_call(d):
    # list() sees exactly what `alknet calls` lists.
    from_js = json.loads(run("run", os.path.join(SCRIPTS, "call_list.mjs")).stdout)
    from_cli = [{k: c[k] for k in ("name", "signature", "owner")} for c in json.loads(run("calls", "--json").stdout)]
    assert sorted(from_js, key=lambda c: c["name"]) == sorted(from_cli, key=lambda c: c["name"]), "list() != alknet calls"
    print(f"list() = alknet calls ({len(from_js)} calls)")
    run("run", os.path.join(SCRIPTS, "call_local.mjs"))
    token = "tok-" + os.urandom(8).hex()
    server, addr = start_server(d, token)
    try:
        script = os.path.join(SCRIPTS, "call_remote.mjs")
        p = run("run", script, addr, token, expect=1)  # no --allow-net
        assert "PermissionDenied" in p.stderr and "--allow-net" in p.stderr, p.stderr
        print(run("run", "--allow-net=127.0.0.1", script, addr, token).stdout, end="")
    finally:
        stop(server)


def test_run_remote(d):
    token = "tok-" + os.urandom(8).hex()
    server, addr = start_server(d, token)
    script = os.path.join(SCRIPTS, "run_remote.mjs")
    try:
        out = run("run", "--remote", addr, "--token", token, script).stdout
        assert json.loads(out) == [0, 2, 0, 4], out
        p = run("run", "--remote", addr, "--token", "wrong", script, expect=1)
        assert "token" in p.stderr.lower() or "unauthenticated" in p.stderr.lower(), p.stderr
    finally:
        stop(server)
    # The server is gone: the same command now fails, so the call did go to it.
    p = run("run", "--remote", addr, "--token", token, script, expect=1)
    assert "unavailable" in p.stderr.lower() or "connect" in p.stderr.lower(), p.stderr
    print(f"alknet run --remote {addr}: calls reached the server")


def test_onnx(d):
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(7)
    w = rng.standard_normal((4, 5)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("Add", ["m", "b"], ["a"]),
        helper.make_node("Relu", ["a"], ["y"]),
        helper.make_node("Gather", ["y", "idx"], ["z"], axis=1),
        helper.make_node("Shape", ["x"], ["count"]),
    ]
    graph = helper.make_graph(
        nodes, "session_test",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4]),
         helper.make_tensor_value_info("idx", TensorProto.INT64, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 5]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, ["batch", 3]),
         helper.make_tensor_value_info("count", TensorProto.INT64, [2])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    folder = os.path.join(d, "model")
    os.mkdir(folder)
    path = os.path.join(folder, "model.onnx")
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location="weights.bin", size_threshold=0)
    assert os.path.getsize(os.path.join(folder, "weights.bin")) == (20 + 5) * 4
    script = os.path.join(SCRIPTS, "onnx_session.mjs")

    # No --allow-read: the model is refused; the model alone: its external data is refused.
    p = run("run", script, path, expect=1)
    assert "PermissionDenied" in p.stderr and "--allow-read" in p.stderr, p.stderr
    p = run("run", f"--allow-read={path}", script, path, expect=1)
    assert "PermissionDenied" in p.stderr and "weights.bin" in p.stderr and "--allow-read" in p.stderr, p.stderr

    out = json.loads(run("run", f"--allow-read={folder}", script, path).stdout)
    x = np.array([(((i * 7) % 11) - 5) / 4 for i in range(8)], np.float64).reshape(2, 4)
    y = np.maximum(x @ w.astype(np.float64) + b.astype(np.float64), 0)
    z = y[:, [4, 0, 2]]
    assert [i["name"] for i in out["inputs"]] == ["x", "idx"], out["inputs"]
    assert out["inputs"][0] == {"name": "x", "onnxType": "float", "dtype": "f32", "shape": ["batch", 4],
                                "sequence": False, "optional": False}, out["inputs"]
    assert out["inputs"][1]["dtype"] == "i64" and out["inputs"][1]["shape"] == [3], out["inputs"]
    assert [o["name"] for o in out["outputs"]] == ["y", "z", "count"] and out["opset"] == 13, out
    assert out["opTypes"] == ["MatMul", "Add", "Relu", "Gather", "Shape"], out["opTypes"]
    for name, want in [("y", y), ("z", z)]:
        got = out[name]
        assert got["dtype"] == "f32" and got["shape"] == list(want.shape), got
        err = np.abs(np.array(got["data"]) - want.ravel()).max()
        assert err < 1e-5, f"{name}: max error {err}"
    assert out["count"] == {"dtype": "i64", "type": "BigInt64Array", "data": [2, 4]}, out["count"]
    assert out["yTensor"]["shape"] == [2, 5] and np.abs(np.array(out["yTensor"]["data"]) - y.ravel()).max() < 1e-5
    assert np.abs(np.array(out["secondZ"]) - z.ravel()).max() < 1e-5 and out["cached"], out
    assert out["stats"]["plansBuilt"] == 1 and out["stats"]["planCacheHits"] == 1, out["stats"]

    errors = json.loads(run("run", f"--allow-read={folder}", script, path, "errors").stdout)
    want_errors = {
        "unknownInput": ["TypeError", "no input 'nope'", "'x', 'idx'"],
        "missingInput": ["TypeError", "'idx' is missing"],
        "wrongArrayType": ["TypeError", "'idx'", "BigInt64Array", "Int32Array"],
        "dynamicWithoutShape": ["TypeError", "'x'", "[batch, 4]", "{data, shape}"],
        "sizeMismatch": ["TypeError", "'x'", "32 bytes", "48"],
        "notASession": ["TypeError", "Session.load"],
        "tensorOfWrongShape": ["OperationError", "'x'", "[8]"],
    }
    for name, parts in want_errors.items():
        for part in parts:
            assert part in errors[name], f"{name}: {errors[name]!r} lacks {part!r}"
    print(f"Session: outputs match numpy (host and device feeds), permissions enforced, {len(errors)} bad calls explained")


with tempfile.TemporaryDirectory() as tmp:
    {"onnx": test_onnx, "sha256": test_sha256, "tensor": test_tensor, "call": test_call, "run-remote": test_run_remote}[WHAT](tmp)
