#!/usr/bin/env python3
"""The JS Session (alknet:compute) takes and returns ONNX sequences (arrays of tensors) and
optionals (null when empty): each test_data_set of the non-hostile models under
libs/onnx/tests/sequences is fed through sequences.mjs and the outputs compared with the set's
expected outputs (numpy references from generate.py, read here with onnx's own protos).

  session_sequences_test.py ALKNET MODELS_DIR SCRIPT
"""
import json
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

MODELS = ["loop_builds_sequence", "sequence_map", "optional_input", "split_and_concat"]


def read_value(path, info):
    """The value of a .pb file as the model declares it: array, list of arrays, or None."""
    data = path.read_bytes()
    t = info.type
    if t.HasField("optional_type"):
        o = onnx.OptionalProto()
        o.ParseFromString(data)
        return numpy_helper.to_array(o.tensor_value) if o.HasField("tensor_value") else None
    if t.HasField("sequence_type"):
        s = onnx.SequenceProto()
        s.ParseFromString(data)
        return [numpy_helper.to_array(v) for v in s.tensor_values]
    p = onnx.TensorProto()
    p.ParseFromString(data)
    return numpy_helper.to_array(p)


def as_json(a):
    if a is None:
        return None
    if isinstance(a, list):
        return [as_json(x) for x in a]
    dtype = "int64" if a.dtype == np.int64 else "float32"
    return {"dtype": dtype, "shape": list(a.shape),
            "data": [int(v) if dtype == "int64" else float(v) for v in a.ravel()]}


def same(have, want, where, failures):
    if want is None or have is None:
        if (want is None) != (have is None):
            failures.append(f"{where}: got {have!r}, expected {want!r}")
        return
    if isinstance(want, list):
        if not isinstance(have, list) or len(have) != len(want):
            failures.append(f"{where}: expected a sequence of {len(want)}, got {have!r}"[:300])
            return
        for k, (h, w) in enumerate(zip(have, want)):
            same(h, w, f"{where}[{k}]", failures)
        return
    got = np.array(have["data"], dtype=np.float64).reshape(have["shape"])
    if list(got.shape) != list(want.shape):
        failures.append(f"{where}: shape {list(got.shape)}, expected {list(want.shape)}")
    elif not np.allclose(got, want.astype(np.float64), rtol=1e-4, atol=1e-5):
        failures.append(f"{where}: differs by {float(np.abs(got - want).max()):.3g}")


def main():
    alknet, models_dir, script = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3]
    failures, checked = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in MODELS:
            model_path = models_dir / name / "model.onnx"
            model = onnx.load(str(model_path))
            for data_set in sorted((models_dir / name).glob("test_data_set_*")):
                feeds = {}
                for k, info in enumerate(model.graph.input):
                    feeds[info.name] = as_json(read_value(data_set / f"input_{k}.pb", info))
                feeds_path = pathlib.Path(tmp) / "feeds.json"
                feeds_path.write_text(json.dumps(feeds))
                r = subprocess.run([alknet, "run", f"--allow-read={models_dir},{tmp}", script,
                                    str(model_path), str(feeds_path)],
                                   capture_output=True, text=True, timeout=120)
                where = f"{name}/{data_set.name}"
                if r.returncode != 0:
                    failures.append(f"{where}: exit {r.returncode}: {r.stderr.strip()}")
                    continue
                got = json.loads(r.stdout)
                for k, info in enumerate(model.graph.input):
                    kind = got["kinds"][k]
                    if kind["sequence"] != info.type.HasField("sequence_type") or \
                            kind["optional"] != info.type.HasField("optional_type"):
                        failures.append(f"{where}: input {info.name} declared as {kind}")
                for k, info in enumerate(model.graph.output):
                    want = read_value(data_set / f"output_{k}.pb", info)
                    if info.name not in got["outputs"]:
                        failures.append(f"{where}: no output {info.name}")
                        continue
                    same(got["outputs"][info.name], want, f"{where}: {info.name}", failures)
                    checked += 1
                print(f"{where}: ok")
    for f in failures:
        print("FAIL", f)
    print(f"{checked} outputs checked, {len(failures)} failures")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
