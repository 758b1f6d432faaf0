#!/usr/bin/python3
"""`alknet infer MODEL --inputs DIR --out DIR [--remote POOL]` (one onnx.run call per input):
200 small inputs over a pool of three `alknet serve` workers, the client SIGKILLed midway and
the batch resumed; every output present once, byte-equal to a local batch's, and close to
numpy's float64 result (an independent reference). Also: the usage errors, and a hostile model
sent to a server is refused with a clear error while the server survives.

Bounded: every subprocess has a timeout; workers are killed on exit."""
import atexit
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ALKNET = sys.argv[1]
TIMEOUT = 120
N = 200


def make_model(path, rng):
    """y = Relu(x @ W + b), x: f32 [1, 16], W [16, 8], b [8]."""
    w = rng.standard_normal((16, 8)).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["xw"]), helper.make_node("Add", ["xw", "b"],
                                                                           ["pre"]),
         helper.make_node("Relu", ["pre"], ["y"])],
        "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return w.astype(np.float64), b.astype(np.float64)


def run(*args, expect=0, timeout=TIMEOUT):
    p = subprocess.run([ALKNET, *args], capture_output=True, text=True, timeout=timeout)
    assert p.returncode == expect, f"{args}: exit {p.returncode}, want {expect}\n{p.stderr}"
    return p


def read_mtf_tensor(path, name):
    doc = json.loads(run("tensor", "inspect", path, "--json").stdout)
    (t,) = [t for t in doc["tensors"] if t["name"] == name]
    assert t["dtype"] == "f32", t
    with open(path, "rb") as f:
        f.seek(t["offset"])
        data = f.read(t["byte_length"])
    return np.frombuffer(data, dtype=np.float32).reshape(t["shape"])


class Worker:
    def __init__(self, extra=()):
        self.proc = subprocess.Popen([ALKNET, "serve", "--listen", "127.0.0.1:0", "--json", *extra],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        assert line, self.proc.stderr.read()
        self.port = json.loads(line)["port"]
        atexit.register(self.kill)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


def main():
    tmp = tempfile.mkdtemp(prefix="alknet_infer_batch_")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    rng = np.random.default_rng(19)
    model = os.path.join(tmp, "tiny.onnx")
    w, b = make_model(model, rng)
    inputs = os.path.join(tmp, "in")
    os.makedirs(inputs)
    xs = {}
    for i in range(N):
        x = rng.standard_normal((1, 16)).astype(np.float32)
        name = f"x{i:03d}"
        np.save(os.path.join(inputs, name + ".npy"), x)
        xs[name] = x

    # Usage errors: exit 2 with the reason.
    p = run("infer", model, "--inputs", inputs, expect=2)
    assert "give --out DIR" in p.stderr, p.stderr
    p = run("infer", model, "--out", os.path.join(tmp, "o"), expect=2)
    assert "needs --inputs" in p.stderr, p.stderr
    p = run("infer", model, "--inputs", os.path.join(tmp, "nothing-*.npy"), "--out", tmp, expect=2)
    assert "names no regular file" in p.stderr, p.stderr

    # The local batch: the reference the remote one must equal byte for byte.
    local = os.path.join(tmp, "local")
    run("infer", model, "--inputs", inputs, "--out", local)
    assert len(os.listdir(local)) == N

    workers = [Worker() for _ in range(3)]
    pool = "ipv4:" + ",".join(f"127.0.0.1:{w_.port}" for w_ in workers)
    remote = os.path.join(tmp, "remote")
    cmd = [ALKNET, "infer", model, "--inputs", os.path.join(inputs, "*.npy"), "--out", remote,
           "--remote", pool, "--concurrency", "4"]
    client = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + TIMEOUT
    while True:
        done = len([n for n in os.listdir(remote) if n.endswith(".mtf")]) if os.path.isdir(
            remote) else 0
        if done >= N // 3 or client.poll() is not None:
            break
        assert time.monotonic() < deadline, "the remote batch made no progress"
        time.sleep(0.01)
    interrupted = client.poll() is None
    client.send_signal(signal.SIGKILL)
    client.wait(timeout=10)
    before = len([n for n in os.listdir(remote) if n.endswith(".mtf")])
    # The resume: skips what was written, cleans the killed run's temporary files.
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT)
    assert p.returncode == 0, p.stderr
    assert f"{before} skipped" in p.stderr or not interrupted, (before, p.stderr)

    got = sorted(os.listdir(remote))
    want = sorted(f"{name}.mtf" for name in xs)
    assert got == want, (f"{len(got)} files, want {len(want)}; extra "
                         f"{sorted(set(got) - set(want))[:5]}")
    for name in got:
        with open(os.path.join(remote, name), "rb") as f, open(os.path.join(local, name),
                                                               "rb") as g:
            assert f.read() == g.read(), f"{name}: remote and local outputs differ"
    for name in got[:20]:
        y = read_mtf_tensor(os.path.join(remote, name), "y")
        ref = np.maximum(xs[name[:-4]].astype(np.float64) @ w + b, 0)
        assert np.allclose(y, ref, rtol=1e-5, atol=1e-5), (name, y, ref)

    # A hostile model through the call: refused with a message, and the server still answers.
    server = ["--remote", f"127.0.0.1:{workers[0].port}"]
    junk = os.path.join(tmp, "junk.npy")
    np.save(junk, np.frombuffer(b"\x0a\xff\xff\xff\xff\x0f" + os.urandom(64), dtype=np.uint8))
    p = run("call", "onnx.run", junk, "{}", *server, expect=1)
    assert "onnx.run" in p.stderr and "protobuf" in p.stderr, p.stderr
    p = run("call", "onnx.run", '"not a model"', "{}", *server, expect=1)
    assert "expects the .onnx file's bytes" in p.stderr, p.stderr
    run("call", "call.list", "--remote", f"127.0.0.1:{workers[0].port}")
    print(f"interrupted after {before} of {N}; resumed; {len(got)} outputs equal to the local run")


if __name__ == "__main__":
    main()
