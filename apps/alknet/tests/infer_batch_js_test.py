#!/usr/bin/python3
"""Registry.inferBatch() from JS (alknet:call) over a pool of two `alknet serve` workers: 20
inputs, a few outputs pre-written (copied from a local `alknet infer --inputs` run), the batch
stopped by onProgress midway and resumed; every output present once and byte-equal to the local
CLI run's (the same runner, alknet/call/batch.h), which itself is checked against numpy's float64
result. A bad input is named in `failures`, and reading outside --allow-read is refused.

Bounded: every subprocess has a timeout; workers are killed on exit."""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from infer_batch_test import make_model, read_mtf_tensor  # noqa: E402

ALKNET = sys.argv[1]
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "infer_batch_js.mjs")
TIMEOUT = 120
N = 20
TOKEN = "js-batch-token"


class Worker:
    def __init__(self, token_file):
        self.proc = subprocess.Popen(
            [ALKNET, "serve", "--listen", "127.0.0.1:0", "--token-file", token_file, "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()
        assert line, "a worker did not start"
        self.port = json.loads(line)["port"]
        atexit.register(self.kill)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


def alknet(*args, expect=0):
    p = subprocess.run([ALKNET, *args], capture_output=True, text=True, timeout=TIMEOUT)
    assert p.returncode == expect, f"{args}: exit {p.returncode}, want {expect}\n{p.stderr}"
    return p


def main():
    tmp = tempfile.mkdtemp(prefix="alknet_infer_js_")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    rng = np.random.default_rng(1917)
    model = os.path.join(tmp, "tiny.onnx")
    w, b = make_model(model, rng)
    inputs = os.path.join(tmp, "in")
    os.makedirs(inputs)
    xs = {}
    for i in range(N):
        x = rng.standard_normal((1, 16)).astype(np.float32)
        np.save(os.path.join(inputs, f"x{i:02d}.npy"), x)
        xs[f"x{i:02d}"] = x

    local = os.path.join(tmp, "local")
    alknet("infer", model, "--inputs", inputs, "--out", local)
    for name, x in xs.items():
        y = read_mtf_tensor(os.path.join(local, name + ".mtf"), "y")
        ref = np.maximum(x.astype(np.float64) @ w + b, 0)
        assert np.allclose(y, ref, rtol=1e-5, atol=1e-5), (name, y, ref)

    token_file = os.path.join(tmp, "token")
    with open(token_file, "w") as f:
        f.write(TOKEN + "\n")
    workers = [Worker(token_file), Worker(token_file)]
    pool = "ipv4:" + ",".join(f"127.0.0.1:{w_.port}" for w_ in workers)
    out = os.path.join(tmp, "remote")
    os.makedirs(out)
    prewritten = ["x03.mtf", "x11.mtf", "x19.mtf"]
    for name in prewritten:
        shutil.copy(os.path.join(local, name), os.path.join(out, name))

    p = alknet("run", "--allow-net=127.0.0.1", f"--allow-read={tmp}", f"--allow-write={tmp}",
               SCRIPT, pool, TOKEN, model, inputs, out, "6")
    phases = [json.loads(ln) for ln in p.stdout.splitlines() if ln.startswith("{")]
    assert [ph["phase"] for ph in phases] == ["stopped", "resumed"], p.stdout
    first, second = phases
    assert first["skipped"] == len(prewritten) and first["failed"] == 0, first
    assert first["stopped"] and 6 <= first["done"] < N - len(prewritten), first
    assert second["skipped"] == len(prewritten) + first["done"], (first, second)
    assert second["done"] + second["skipped"] == N and not second["stopped"], second

    got = sorted(os.listdir(out))
    assert got == sorted(os.listdir(local)), got
    for name in got:
        with open(os.path.join(out, name), "rb") as f, open(os.path.join(local, name), "rb") as g:
            assert f.read() == g.read(), f"{name}: the JS batch and the local CLI run differ"

    # A bad input: that item fails (named), the others are written.
    bad_in = os.path.join(tmp, "bad")
    os.makedirs(bad_in)
    np.save(os.path.join(bad_in, "good.npy"), xs["x00"])
    np.save(os.path.join(bad_in, "wrong.npy"), np.zeros((3, 5), np.float32))
    check = os.path.join(tmp, "check.mjs")
    with open(check, "w") as f:
        f.write('import { connect } from "alknet:call";\n'
                'import { args } from "alknet:process";\n'
                'const r = await connect(args[0], { token: args[1] })'
                '.inferBatch(args[2], args[3], { outDir: args[4] });\n'
                'console.log(JSON.stringify(r));\n')
    p = alknet("run", "--allow-net=127.0.0.1", f"--allow-read={tmp}", f"--allow-write={tmp}",
               check, pool, TOKEN, model, bad_in, os.path.join(tmp, "bad_out"))
    r = json.loads(p.stdout.strip().splitlines()[-1])
    assert r["done"] == 1 and r["failed"] == 1, r
    assert r["failures"][0]["input"].endswith("wrong.npy") and r["failures"][0]["error"], r
    with open(os.path.join(tmp, "bad_out", "good.mtf"), "rb") as f, \
            open(os.path.join(local, "x00.mtf"), "rb") as g:
        assert f.read() == g.read()

    # Outside --allow-write: refused before any call.
    p = alknet("run", "--allow-net=127.0.0.1", f"--allow-read={tmp}", f"--allow-write={inputs}",
               check, pool, TOKEN, model, bad_in, os.path.join(tmp, "denied"), expect=1)
    assert "denied" in p.stderr.lower() or "permission" in p.stderr.lower(), p.stderr
    assert not os.path.exists(os.path.join(tmp, "denied"))
    print(f"JS batch: stopped after {first['done']}, resumed {second['done']}; "
          f"{len(got)} outputs equal to the local run")


if __name__ == "__main__":
    main()
