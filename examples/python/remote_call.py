#!/usr/bin/env python3
"""alknet.call: calls to a server, `alknet serve`, with numpy tensors in and out.

    alknet serve --listen 127.0.0.1:7070 &
    /usr/bin/python3 examples/python/remote_call.py 127.0.0.1:7070

With no address it starts `alknet serve` itself on a free loopback port (ALKNET_BIN, else
`alknet` on PATH) and stops it at the end.
"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

import alknet

server = None
if len(sys.argv) > 1:
    address = sys.argv[1]
else:
    binary = os.environ.get("ALKNET_BIN") or shutil.which("alknet")
    if not binary:
        sys.exit("remote_call.py: give HOST:PORT, or put alknet on PATH (scripts/install)")
    server = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:0", "--json"],
                              stdout=subprocess.PIPE, text=True)
    address = f"127.0.0.1:{json.loads(server.stdout.readline())['port']}"
try:
    client = alknet.call.connect(address, token=os.environ.get("ALKNET_TOKEN"))
    print(f"{address}: {len(client.list())} calls")
    x = np.linspace(-2, 2, 10, dtype=np.float32).reshape(2, 5)
    y = client.compute.relu([x], timeout=60)              # the tensor goes to the server and back
    np.testing.assert_array_equal(y, np.maximum(x, 0))
    z = client.invoke("compute.mat_mul", [[x, x.T.copy()]], timeout=60)
    np.testing.assert_allclose(z, x.astype(np.float64) @ x.T, rtol=1e-5, atol=1e-5)
    print("relu:", y.tolist())
    print("OK: remote results match numpy")
finally:
    if server is not None:
        server.terminate()
        server.wait(timeout=30)
