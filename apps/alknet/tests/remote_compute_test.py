"""`alknet serve` + `alknet call compute.*` on loopback, against numpy. Every subprocess has a timeout; the server is stopped with SIGINT."""
import json
import os
import signal
import subprocess
import sys
import tempfile

import numpy as np

ALKNET = sys.argv[1]


def call(*args, expect=0):
    p = subprocess.run([ALKNET, "call", *args], capture_output=True, text=True, timeout=120)
    assert p.returncode == expect, (args, p.returncode, p.stdout, p.stderr)
    return p


def main():
    rng = np.random.default_rng()
    with tempfile.TemporaryDirectory() as d:
        token = os.path.join(d, "token")
        with open(token, "w") as f:
            f.write("s3cret-" + os.urandom(8).hex() + "\n")
        server = subprocess.Popen([ALKNET, "serve", "--listen", "127.0.0.1:0", "--token-file",
                                   token, "--json"], stdout=subprocess.PIPE, text=True)
        try:
            line = json.loads(server.stdout.readline())
            addr = line["listening"]
            assert addr, line
            a = rng.standard_normal((3, 1, 5), dtype=np.float32)
            b = rng.standard_normal((4, 1), dtype=np.float32)
            np.save(os.path.join(d, "a.npy"), a)
            np.save(os.path.join(d, "b.npy"), b)
            remote = ["--remote", addr, "--token-file", token]
            for op, ref in [("compute.add", a + b), ("compute.mul", a * b)]:
                out = os.path.join(d, op)
                call(op, f"[{d}/a.npy,{d}/b.npy]", "--out", out, "--format", "npy", *remote)
                got = np.load(os.path.join(out, op + ".npy"))
                assert got.shape == ref.shape, (op, got.shape, ref.shape)
                assert np.allclose(got, ref, rtol=1e-6, atol=1e-6), op
            # The same call locally gives bit-identical bytes.
            out = os.path.join(d, "local")
            call("compute.add", f"[{d}/a.npy,{d}/b.npy]", "--out", out, "--format", "npy")
            assert np.array_equal(np.load(os.path.join(out, "compute.add.npy")),
                                  np.load(os.path.join(d, "compute.add", "compute.add.npy")))
            # A bad token is refused.
            bad = os.path.join(d, "bad")
            with open(bad, "w") as f:
                f.write("wrong\n")
            call("compute.add", f"[{d}/a.npy,{d}/b.npy]", "--remote", addr, "--token-file", bad,
                 expect=1)
            print("remote compute on", addr, "ok")
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
