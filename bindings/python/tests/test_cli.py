# python3 -m alknet against the alknet CLI on the same inputs: tensor inspect/verify/convert,
# infer (outputs equal to `alknet infer`'s), info, usage errors and exit codes.
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import alknet
from conftest import SOURCE, alknet_bin, device_or_skip

CORPUS = SOURCE / "libs" / "tensor" / "tests" / "corpus"


def py(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "alknet", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout)


def test_help_and_usage():
    r = py("--help")
    assert r.returncode == 0 and "infer" in r.stdout and "tensor" in r.stdout
    assert py("tensor", "--help").returncode == 0
    assert py("bogus").returncode == 2
    assert py("--version").stdout.strip() == f"alknet {alknet.__version__}"


def test_tensor_inspect_matches_the_cli(tmp_path):
    p = CORPUS / "good-basic.mtf"
    mine = json.loads(py("tensor", "inspect", p, "--json").stdout)
    cli = json.loads(subprocess.run([alknet_bin(), "tensor", "inspect", str(p), "--json"],
                                    capture_output=True, text=True, check=True).stdout)
    assert [t["name"] for t in mine["tensors"]] == [t["name"] for t in cli["tensors"]]
    assert [list(t["shape"]) for t in mine["tensors"]] == [list(t["shape"]) for t in cli["tensors"]]


def test_tensor_verify_exit_codes():
    assert py("tensor", "verify", CORPUS / "good-basic.mtf").returncode == 0
    r = py("tensor", "verify", CORPUS / "r36-tensor-checksum.mtf")
    assert r.returncode == 1 and "r36-tensor-checksum.mtf" in r.stderr
    cli = subprocess.run([alknet_bin(), "tensor", "verify", str(CORPUS / "r36-tensor-checksum.mtf")],
                         capture_output=True, text=True)
    assert cli.returncode == 1


def test_tensor_convert(tmp_path):
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    np.save(tmp_path / "a.npy", a)
    r = py("tensor", "convert", tmp_path / "a.npy", tmp_path / "a.mtf")
    assert r.returncode == 0, r.stderr
    with alknet.tensor.open(tmp_path / "a.mtf") as f:
        np.testing.assert_array_equal(f["a"], a)


def test_infer_matches_the_cli(tmp_path):
    device_or_skip()
    model = "/usr/share/libonnx-testdata/data/node/test_matmul_2d/model.onnx"
    if not os.path.exists(model):
        pytest.skip("libonnx-testdata not installed")
    rng = np.random.default_rng(3)
    np.save(tmp_path / "a.npy", rng.standard_normal((3, 4)).astype(np.float32))
    np.save(tmp_path / "b.npy", rng.standard_normal((4, 3)).astype(np.float32))
    ins = ["--input", f"a={tmp_path / 'a.npy'}", "--input", f"b={tmp_path / 'b.npy'}"]
    r = py("infer", model, *ins, "--output", tmp_path / "mine", "--json", "--repeat", "2")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["repeat"] == 2 and doc["outputs"][0]["shape"] == [3, 3]
    subprocess.run([alknet_bin(), "infer", model, *ins, "--output", str(tmp_path / "cli")],
                   capture_output=True, check=True, timeout=120)
    np.testing.assert_array_equal(np.load(tmp_path / "mine" / "c.npy"), np.load(tmp_path / "cli" / "c.npy"))
    bad = py("infer", model, "--input", "nope=1")
    assert bad.returncode == 1 and "not an input" in bad.stderr


def test_info():
    device_or_skip()
    r = py("info", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["version"] == alknet.__version__
