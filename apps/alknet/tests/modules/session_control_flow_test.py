#!/usr/bin/env python3
"""The JS Session (alknet:compute) runs models with If and Loop: each test_data_set of the
control-flow models under libs/onnx/tests/control_flow is fed through control_flow.mjs and the
outputs compared with the set's expected outputs (numpy references from generate.py).

  session_control_flow_test.py ALKNET MODELS_DIR SCRIPT
"""
import json
import pathlib
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

MODELS = ["if_sample_rate", "if_score", "loop_nested_if", "vad_like", "loop_rnn"]


def load_set(folder, prefix):
    tensors = []
    for f in sorted(folder.glob(f"{prefix}_*.pb"), key=lambda p: int(p.stem.split("_")[1])):
        t = onnx.TensorProto()
        t.ParseFromString(f.read_bytes())
        tensors.append(numpy_helper.to_array(t))
    return tensors


def main():
    alknet, models_dir, script = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3]
    failures, checked = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in MODELS:
            model_path = models_dir / name / "model.onnx"
            model = onnx.load(str(model_path))
            in_names = [i.name for i in model.graph.input]
            out_names = [o.name for o in model.graph.output]
            for data_set in sorted((models_dir / name).glob("test_data_set_*")):
                inputs = load_set(data_set, "input")
                expected = load_set(data_set, "output")
                feeds = {}
                for n, a in zip(in_names, inputs):
                    dtype = "int64" if a.dtype == np.int64 else "float32"
                    feeds[n] = {"dtype": dtype, "shape": list(a.shape),
                                "data": [int(v) if dtype == "int64" else float(v) for v in a.ravel()]}
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
                if not got["cached"]:
                    failures.append(f"{where}: the second run did not reuse the plan")
                for n, want in zip(out_names, expected):
                    out = got["outputs"].get(n)
                    if out is None:
                        failures.append(f"{where}: no output {n}")
                        continue
                    have = np.array(out["data"], dtype=np.float64).reshape(out["shape"])
                    if list(have.shape) != list(want.shape):
                        failures.append(f"{where}: {n} has shape {list(have.shape)}, expected {list(want.shape)}")
                    elif not np.allclose(have, want.astype(np.float64), rtol=1e-4, atol=1e-5):
                        err = float(np.abs(have - want).max())
                        failures.append(f"{where}: {n} differs from the expected output by {err:.3g}")
                    elif not out["sameOnSecondRun"]:
                        failures.append(f"{where}: {n} changed on the second run")
                    checked += 1
                print(f"{where}: ops {sorted(set(got['opTypes']))} ok")
    for f in failures:
        print("FAIL", f)
    print(f"{checked} outputs checked, {len(failures)} failures")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
