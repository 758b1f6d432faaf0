#!/usr/bin/python3
"""End to end on loopback: `alknet serve` with a token, `alknet calls` and `alknet call`
locally and --remote, checked against numpy (an independent reference). Bounded: every
subprocess has a timeout and the server is stopped with SIGINT."""
import atexit
import json
import os
import signal
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ALKNET = sys.argv[1]
TIMEOUT = 30


def run(*args, env=None, expect=0):
    p = subprocess.run([ALKNET, *args], capture_output=True, text=True, timeout=TIMEOUT, env=env)
    assert p.returncode == expect, f"{args}: exit {p.returncode}, want {expect}\n{p.stdout}\n{p.stderr}"
    return p


def main():
    tmp = tempfile.mkdtemp(prefix="alknet_call_cli_")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)  # also when an assert fails
    token_file = os.path.join(tmp, "token")
    with open(token_file, "w") as f:
        f.write("s3cret-token\n")

    # Non-loopback without a token is refused at start-up.
    env = {k: v for k, v in os.environ.items() if k != "ALKNET_TOKEN"}
    p = run("serve", "--listen", "0.0.0.0:0", env=env, expect=2)
    assert "without a token" in p.stderr, p.stderr

    # A token gRPC cannot send as a header (it used to abort the client): a usage error naming
    # the byte, for the server and for clients.
    for bad in ("s3cret-token\n", "s3cret\ttoken", "s3cr\u00e9t"):
        p = run("serve", "--listen", "127.0.0.1:0", env=dict(env, ALKNET_TOKEN=bad), expect=2)
        assert "printable ASCII" in p.stderr, p.stderr
        p = run("calls", "--remote", "127.0.0.1:1", env=dict(env, ALKNET_TOKEN=bad), expect=2)
        assert "printable ASCII" in p.stderr and "ALKNET_TOKEN" in p.stderr, p.stderr

    server = subprocess.Popen([ALKNET, "serve", "--listen", "127.0.0.1:0", "--token-file",
                               token_file, "--json", "--idle-timeout", "20000",
                               "--max-connection-idle", "60000",
                               "--max-total-tensor-bytes", "1000000000"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = server.stdout.readline()
        info = json.loads(line)
        assert info["token"] is True and info["tls"] is False, info
        addr = f"127.0.0.1:{info['port']}"
        remote = ["--remote", addr, "--token-file", token_file]

        # No token, wrong token: refused, exit 1, and the error says why.
        p = run("calls", "--remote", addr, env=env, expect=1)
        assert "unauthenticated" in p.stderr, p.stderr
        bad_env = dict(env, ALKNET_TOKEN="s3cret-tokex")
        p = run("call", "call.list", "--remote", addr, env=bad_env, expect=1)
        assert "bearer token" in p.stderr, p.stderr
        # The token from the environment variable works too.
        ok_env = dict(env, ALKNET_TOKEN="s3cret-token")
        run("calls", "--remote", addr, env=ok_env)

        # The remote listing is the local listing plus the server's own server.stats.
        local = json.loads(run("calls", "--json").stdout)
        remote_list = json.loads(run("calls", "--json", *remote).stdout)
        stats = [c for c in remote_list if c["name"] == "server.stats"]
        assert len(stats) == 1 and stats[0]["idempotent"], stats
        remote_list = [c for c in remote_list if c["name"] != "server.stats"]
        assert local == remote_list, (local, remote_list)
        names = [c["name"] for c in local]
        assert "tensor.info" in names and "call.list" in names, names

        # tensor.stats against numpy, locally and remotely, with a NaN to skip.
        rng = np.random.default_rng(5)
        a = rng.standard_normal((37, 41)).astype(np.float32)
        a[3, 4] = np.nan
        a_path = os.path.join(tmp, "a.npy")
        np.save(a_path, a)
        for where in ([], remote):
            stats = json.loads(run("call", "tensor.stats", a_path, "--json", *where).stdout)
            assert stats["ok"], stats
            r = stats["result"]
            finite = a[np.isfinite(a)].astype(np.float64)
            assert r["non_finite"] == 1 and r["elements"] == a.size, r
            assert r["min"] == float(finite.min()) and r["max"] == float(finite.max()), r
            assert abs(r["sum"] - float(finite.sum())) <= 1e-9 * max(1.0, abs(finite.sum())), r

        # tensor.cast: result tensors written as .npy, bit-exact against numpy's astype.
        out = os.path.join(tmp, "out")
        b = (rng.standard_normal((5, 6, 7)) * 1000).astype(np.float64)
        b_path = os.path.join(tmp, "b.npy")
        np.save(b_path, b)
        for dtype, npdt in (("f32", np.float32), ("i32", np.int32), ("i16", np.int16)):
            doc = json.loads(run("call", "tensor.cast", b_path, f'"{dtype}"', "--out", out,
                                 "--format", "npy", "--json", *remote).stdout)
            t = doc["result"]["$tensor"]
            assert t["dtype"] == dtype and t["shape"] == [5, 6, 7], t
            got = np.load(t["file"])
            want = b.astype(npdt)
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), dtype

        # .mtf out and back in: the result file is a valid argument to the next call.
        doc = json.loads(run("call", "tensor.cast", a_path, '"f64"', "--out", out, "--json",
                             *remote).stdout)
        mtf = doc["result"]["$tensor"]["file"]
        assert mtf == os.path.join(out, "tensor.cast.mtf"), mtf
        info = json.loads(run("call", "tensor.info", mtf, "--json", *remote).stdout)["result"]
        assert info == {"dtype": "f64", "shape": [37, 41], "elements": 37 * 41,
                        "bytes": 37 * 41 * 8}, info
        back = json.loads(run("call", "tensor.cast", mtf + ":tensor.cast", '"f32"', "--out", out,
                              "--format", "npy", "--json").stdout)
        assert np.load(back["result"]["$tensor"]["file"]).tobytes() == a.tobytes()

        # Scalars as JSON literals; errors name the call and parameter; exit codes.
        d = json.loads(run("call", "call.describe", '"tensor.info"', "--json", *remote).stdout)
        assert d["result"]["signature"] == "(t: tensor) -> map", d
        p = run("call", "tensor.info", "3", "--json", *remote, expect=1)
        err = json.loads(p.stdout)["error"]
        assert err == {"code": "invalid argument", "call": "tensor.info",
                       "message": "parameter 't' expects tensor, given int"}, err
        p = run("call", "tensor.info", "not-json", expect=2)
        assert "neither JSON nor a .mtf/.npy file" in p.stderr, p.stderr
        p = run("call", "no.such", *remote, expect=1)
        assert "not found" in p.stderr, p.stderr
        run("calls", "--remote", "127.0.0.1:1", "--token-file", token_file, expect=3)

        # The server survived everything above.
        run("call", "call.list", *remote)
    finally:
        server.send_signal(signal.SIGINT)
        try:
            code = server.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            server.kill()
            raise
    assert code == 0, f"serve exited {code}: {server.stderr.read()}"
    print("ok")


if __name__ == "__main__":
    main()
