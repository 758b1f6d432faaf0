#!/usr/bin/python3
"""`alknet infer` and `alknet onnx-test` from outside the process, against numpy and the ONNX
test data's expected outputs.

    /usr/bin/python3 apps/alknet/tests/onnx_cli_test.py ALKNET infer|runner
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ALKNET = sys.argv[1]
DATA = "/usr/share/libonnx-testdata/data/node"


def run(args, env=None, expect=0):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([ALKNET] + args, capture_output=True, text=True, env=e)
    assert p.returncode == expect, f"{args}: exit {p.returncode}, wanted {expect}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    return p


def save(model, path):
    onnx.checker.check_model(model)
    onnx.save(model, path)


def test_infer(work):
    # One output: y = relu(x) + b.
    b = np.array([0.5, -1.0], np.float32)
    g = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Add", ["r", "b"], ["y"])], "one",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 2])], [numpy_helper.from_array(b, "b")])
    one = os.path.join(work, "one.onnx")
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), one)

    x = np.array([[1, -2], [3, -4], [0.25, 8]], np.float32)
    want = np.maximum(x, 0) + b
    p = run(["infer", one, "--input", "x=[[1,-2],[3,-4],[0.25,8]]", "--json", "--repeat", "3"])
    j = json.loads(p.stdout)
    for key in ("model", "load_ms", "plan_ms", "run_ms", "repeat", "outputs"):
        assert key in j, (key, j)
    assert j["repeat"] == 3 and j["run_ms"]["min"] <= j["run_ms"]["median"], j
    assert set(j["run_ms"]) >= {"first", "median", "min"}, j
    parts = j["run_parts_ms"]
    assert set(parts) == {"upload", "device", "download", "record"} and all(v >= 0 for v in parts.values()), parts
    assert parts["record"] <= parts["device"], parts
    assert parts["upload"] + parts["device"] + parts["download"] <= j["run_ms"]["median"] * 1.5 + 0.5, (parts, j["run_ms"])
    o = j["outputs"][0]
    assert o["name"] == "y" and o["dtype"] == "float" and o["shape"] == [3, 2], o
    assert np.allclose(np.array(o["values"]).reshape(3, 2), want, rtol=1e-6), (o, want)

    # --profile: one node per device node of the plan, named as in the model, each with its
    # dispatches and a positive time; the text report lists them and the time per op type.
    p = run(["infer", one, "--input", "x=[[1,-2],[3,-4],[0.25,8]]", "--json", "--profile"])
    prof = json.loads(p.stdout)["profile"]
    assert prof["sync_ms"] > 0, prof
    ops = [n["op"] for n in prof["nodes"]]
    assert ops == ["Relu", "Add"], prof
    assert all(n["ms"] > 0 and n["dispatches"] >= 1 for n in prof["nodes"]), prof
    assert prof["nodes"][1]["output"] == "f32[3,2]", prof
    p = run(["infer", one, "--input", "x=[[1,-2],[3,-4],[0.25,8]]", "--profile"])
    assert "profile: 2 device nodes" in p.stdout and "per op type" in p.stdout, p.stdout

    np.save(os.path.join(work, "x.npy"), x.astype(np.float64))  # converted to the declared float
    out = os.path.join(work, "y.npy")
    p = run(["infer", one, "--input", "x=" + os.path.join(work, "x.npy"), "--output", out])
    assert "y: float[3,2]" in p.stdout and "load" in p.stdout, p.stdout
    got = np.load(out)
    assert got.dtype == np.float32 and np.allclose(got, want, rtol=1e-6), got

    # Two outputs, int64: a folder of NAME.npy, and .mtf.
    g2 = helper.make_graph(
        [helper.make_node("Mul", ["i", "i"], ["sq"]), helper.make_node("Neg", ["i"], ["neg"])], "two",
        [helper.make_tensor_value_info("i", TensorProto.INT64, [4])],
        [helper.make_tensor_value_info("sq", TensorProto.INT64, [4]),
         helper.make_tensor_value_info("neg", TensorProto.INT64, [4])])
    two = os.path.join(work, "two.onnx")
    save(helper.make_model(g2, opset_imports=[helper.make_opsetid("", 13)]), two)
    folder = os.path.join(work, "outs")
    run(["infer", two, "--input", "i=[3,-40000,7,0]", "--output", folder])
    sq, neg = np.load(os.path.join(folder, "sq.npy")), np.load(os.path.join(folder, "neg.npy"))
    ii = np.array([3, -40000, 7, 0], np.int64)
    assert sq.dtype == np.int64 and (sq == ii * ii).all(), sq
    assert (neg == -ii).all(), neg
    mtf = os.path.join(work, "outs.mtf")
    run(["infer", two, "--input", "i=[1,2,3,4]", "--output", mtf])
    assert os.path.getsize(mtf) > 0
    p = run(["infer", two, "--input", "i=[1,2,3,4]", "--output", os.path.join(work, "x.npy")], expect=1)
    assert "2 outputs" in p.stderr, p.stderr

    # Errors: a missing input is named; an int64 value beyond i32 is refused, not wrapped.
    p = run(["infer", one], expect=1)
    assert "input 'x'" in p.stderr, p.stderr
    p = run(["infer", two, "--input", "i=[5000000000,1,2,3]"], expect=1)
    assert "does not fit" in p.stderr and "'i'" in p.stderr, p.stderr
    p = run(["infer", one, "--input", "nope=[1]"], expect=1)
    p = run(["infer"], expect=2)

    # Sequences and optionals: a folder of 0.npy, 1.npy, ... in and out, 'none' for an empty
    # optional (docs/cli.md). outs[k] = xs[k] * 2; has = whether the optional holds a value.
    body = helper.make_graph(
        [helper.make_node("Add", ["a", "a"], ["d"])], "body",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, ["n"])],
        [helper.make_tensor_value_info("d", TensorProto.FLOAT, ["n"])])
    seq_t = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, ["n"]))
    opt_t = helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [1]))
    g3 = helper.make_graph(
        [helper.make_node("SequenceMap", ["xs"], ["outs"], body=body),
         helper.make_node("OptionalHasElement", ["o"], ["has"])], "seq",
        [helper.make_value_info("xs", seq_t), helper.make_value_info("o", opt_t)],
        [helper.make_value_info("outs", seq_t), helper.make_tensor_value_info("has", TensorProto.BOOL, [])])
    seqm = os.path.join(work, "seq.onnx")
    save(helper.make_model(g3, opset_imports=[helper.make_opsetid("", 17)]), seqm)
    xs = os.path.join(work, "xs")
    os.makedirs(xs)
    parts = [np.array([1, 2, 3], np.float32), np.array([-4], np.float32)]
    for k, a in enumerate(parts):
        np.save(os.path.join(xs, "%d.npy" % k), a)
    out3 = os.path.join(work, "seq_out")
    run(["infer", seqm, "--input", "xs=" + xs, "--input", "o=none", "--output", out3])
    for k, a in enumerate(parts):
        got = np.load(os.path.join(out3, "outs", "%d.npy" % k))
        assert (got == a * 2).all(), (k, got)
    assert not os.path.exists(os.path.join(out3, "outs", "2.npy"))
    assert not np.load(os.path.join(out3, "has.npy")), "an empty optional has no element"
    p = run(["infer", seqm, "--input", "xs=" + os.path.join(out3, "outs"), "--input", "o=[7]", "--json"])
    j = json.loads(p.stdout)
    outs = j["outputs"][0]
    assert outs["kind"] == "sequence" and [i["values"] for i in outs["items"]] == [[4, 8, 12], [-16]], outs
    assert j["outputs"][1]["values"] == [1], j["outputs"][1]
    p = run(["infer", seqm, "--input", "xs=" + os.path.join(xs, "0.npy")], expect=1)
    assert "is a sequence: give a folder" in p.stderr, p.stderr
    print("infer: ok")


def make_suite(work):
    suite = os.path.join(work, "node")
    os.makedirs(suite)
    for t in ("test_abs", "test_relu", "test_add"):
        shutil.copytree(os.path.join(DATA, t), os.path.join(suite, t))
    # A test whose expected output is wrong on purpose: must be classified "wrong".
    shutil.copytree(os.path.join(DATA, "test_abs"), os.path.join(suite, "test_abs_tampered"))
    shutil.copy(os.path.join(DATA, "test_neg", "test_data_set_0", "output_0.pb"),
                os.path.join(suite, "test_abs_tampered", "test_data_set_0", "output_0.pb"))
    return suite


def statuses(stdout):
    j = json.loads(stdout)
    return {t["id"]: t["status"] for t in j["tests"]}, j


def test_runner(work):
    suite = make_suite(work)
    p = run(["onnx-test", suite, "--json"])
    s, j = statuses(p.stdout)
    assert s == {"node/test_abs": "pass", "node/test_relu": "pass", "node/test_add": "pass",
                 "node/test_abs_tampered": "wrong"}, s
    assert j["folders"]["node"]["pass"] == 3, j["folders"]

    # A test that crashes the worker, one that hangs it: contained, the rest still pass.
    p = run(["onnx-test", suite, "--json"], env={"ALKNET_ONNX_TEST_CRASH_ON": "test_add"})
    s, _ = statuses(p.stdout)
    assert s["node/test_add"] == "crash" and s["node/test_abs"] == "pass" and s["node/test_relu"] == "pass", s
    p = run(["onnx-test", suite, "--json", "--timeout", "5"], env={"ALKNET_ONNX_TEST_HANG_ON": "test_abs_tampered"})
    s, _ = statuses(p.stdout)
    assert s["node/test_abs_tampered"] == "timeout" and s["node/test_add"] == "pass" and s["node/test_relu"] == "pass", s

    # Floors: met -> 0, missed -> 1; --filter; --write-doc with a peer file.
    floor = os.path.join(work, "floor.json")
    with open(floor, "w") as f:
        json.dump({"node": 3}, f)
    run(["onnx-test", suite, "--floor", floor])
    with open(floor, "w") as f:
        json.dump({"node": 4}, f)
    p = run(["onnx-test", suite, "--floor", floor], expect=1)
    assert "below the floor" in p.stdout, p.stdout
    p = run(["onnx-test", suite, "--json", "--filter", "relu"])
    s, _ = statuses(p.stdout)
    assert list(s) == ["node/test_relu"], s
    peers = os.path.join(work, "peers")
    os.makedirs(peers)
    with open(os.path.join(peers, "wonnx-0.5.1.json"), "w") as f:
        json.dump({"peer": "wonnx-0.5.1", "machine": "test", "results": {"node/test_abs": "pass", "node/test_add": "fail"}}, f)
    doc = os.path.join(work, "conformance.md")
    run(["onnx-test", suite, "--write-doc", doc, "--peers", peers])
    text = open(doc).read()
    assert "| Abs | 2 | 1 | 1 | 0 | 0 | 0 | 1/2 |" in text, text
    assert "| node | 4 | 3 | 1 |" in text, text
    run(["onnx-test", "/nonexistent/dir"], expect=2)
    print("runner: ok")


def main():
    work = tempfile.mkdtemp(prefix="alknet_onnx_cli_")
    try:
        {"infer": test_infer, "runner": test_runner}[sys.argv[2]](work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
