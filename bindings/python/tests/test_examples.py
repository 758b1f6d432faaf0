# Every example in examples/python runs and checks its own results (each asserts against
# numpy or hashlib and prints OK). The device examples skip without a WebGPU adapter.
import os
import subprocess
import sys

import pytest

from conftest import SOURCE, alknet_bin, device_or_skip

EXAMPLES = sorted((SOURCE / "examples" / "python").glob("*.py"))


def test_there_is_one_example_per_module():
    assert {p.stem for p in EXAMPLES} >= {"tensor_files", "onnx_session", "compute_ops", "remote_call"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs(path, tmp_path):
    if path.stem != "tensor_files":
        device_or_skip()
    env = dict(os.environ, ALKNET_BIN=alknet_bin())
    args = [sys.executable, str(path)]
    if path.stem in ("tensor_files", "onnx_session"):
        args.append(str(tmp_path))
    r = subprocess.run(args, capture_output=True, text=True, timeout=180, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "OK" in r.stdout.splitlines()[-1]
