# alknet.call: the local registry, and a remote one: a real `alknet serve` on 127.0.0.1 (port
# picked by the server, bounded in time), with and without its bearer token; tensors in and out
# as numpy, checked against numpy. The compute calls need a WebGPU adapter.
import json
import os
import subprocess

import numpy as np
import pytest

import alknet
from conftest import alknet_bin, device_or_skip


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    token = "py-test-token-0123456789abcdef"
    tf = tmp_path_factory.mktemp("serve") / "token"
    tf.write_text(token + "\n")
    p = subprocess.Popen([alknet_bin(), "serve", "--listen", "127.0.0.1:0", "--json",
                          "--token-file", str(tf), "--max-call-time", "60000"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        if not line:
            pytest.fail(f"alknet serve did not start: {p.stderr.read()}")
        port = json.loads(line)["port"]
        yield f"127.0.0.1:{port}", token
    finally:
        p.terminate()
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def test_local_registry_lists_and_calls():
    c = alknet.call.local()
    names = {e["name"] for e in c.list()}
    assert {"call.list", "compute.add", "crypto.sha256"} <= names
    with pytest.raises(alknet.CallError) as ei:
        c.invoke("no.such.call", [])
    assert ei.value.code == "not-found", ei.value.code
    assert "no.such.call" in str(ei.value)


def test_remote_tensor_calls(server):
    device_or_skip()
    addr, token = server
    with alknet.call.connect(addr, token=token) as c:
        a = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
        b = np.full((4,), 0.5, np.float32)
        y = c.invoke("compute.add", [[a, b]], timeout=60)
        assert isinstance(y, np.ndarray) and y.dtype == np.float32 and not y.flags.writeable
        np.testing.assert_array_equal(y, a + b)
        r = c.compute.relu([a], timeout=60)
        np.testing.assert_array_equal(r, np.maximum(a, 0))
        import hashlib
        [d] = c.crypto.sha256([b"abc"], timeout=60)
        assert d == hashlib.sha256(b"abc").digest()
        assert any(e["name"] == "compute.mat_mul" for e in c.list())
    with pytest.raises(ValueError, match="closed"):
        c.list()


def test_remote_errors(server):
    addr, token = server
    with pytest.raises(alknet.CallError) as ei:
        alknet.call.connect(addr, token="wrong-token-0123456789abcdef").invoke("call.list", [], timeout=30)
    assert ei.value.code == "unauthenticated"
    c = alknet.call.connect(addr, token=token)
    with pytest.raises(alknet.CallError) as ei:
        c.invoke("compute.add", ["not a list"], timeout=30)
    assert ei.value.code == "invalid-argument"
    with pytest.raises(TypeError, match="cannot pass"):
        c.invoke("call.list", [object()])
    # Nobody listens on port 1: unavailable, within the deadline.
    with pytest.raises(alknet.CallError) as ei:
        alknet.call.connect("127.0.0.1:1").invoke("call.list", [], timeout=10)
    assert ei.value.code in ("unavailable", "deadline-exceeded")


def test_pool_spreads_calls_over_workers():
    """connect() takes a gRPC pool target (docs/remote.md): two local workers, 20 calls spread by
    round_robin; each result checked against numpy, each worker's --json log counts its calls."""
    device_or_skip()
    import threading
    workers, counts, threads = [], [], []
    try:
        for k in range(2):
            p = subprocess.Popen([alknet_bin(), "serve", "--listen", "127.0.0.1:0", "--json"],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            workers.append(p)
            port = json.loads(p.stdout.readline())["port"]
            counts.append({"port": port, "calls": 0})

            def drain(p=p, c=counts[-1]):  # one JSON line per call; read so the pipe never fills
                for line in p.stdout:
                    if '"call"' in line and "compute.relu" in line:
                        c["calls"] += 1
            threads.append(threading.Thread(target=drain, daemon=True))
            threads[-1].start()
        target = "ipv4:" + ",".join(f"127.0.0.1:{c['port']}" for c in counts)
        x = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
        with alknet.call.connect(target) as c:
            for _ in range(20):
                np.testing.assert_array_equal(c.compute.relu([x], timeout=60), np.maximum(x, 0))
    finally:
        for p in workers:
            p.terminate()
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    for t in threads:
        t.join(timeout=5)
    assert sum(c["calls"] for c in counts) == 20, counts
    assert all(c["calls"] >= 5 for c in counts), counts  # round_robin: about 10 each
