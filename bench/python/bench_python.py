#!/usr/bin/env python3
"""Benchmarks of the Python package against named peers in the same run (docs/benchmarks.md,
"Python package").

1. Opening a tensor file and touching one tensor (its sum), the file just written (warm page
   cache): alknet.tensor.open on one .mtf of N tensors, against numpy on the same data as
   N .npy files (np.load(mmap_mode="r") of every file, and of the one file alone) and as one
   uncompressed .npz (np.load, then reading the one member).
2. Session overhead per run on a tiny model (Relu on a 1x4 float): the wall time of
   Session.run from Python against `alknet infer --repeat`'s median run time (the C++ run,
   so the difference is the binding's cost), and against onnxruntime: its Python API is not
   installable here (not in Debian 12, no PyPI access), so onnxruntime-node 1.30's
   InferenceSession.run (bench/onnx/peer_infer.mjs, bench/peers/setup) is the peer when
   bench/peers/node_modules has it.

    /usr/bin/python3 bench/python/bench_python.py --dir /work/tmp-bench [--size-mib 1024]
        [--tensors 1000] [--repeat 9] [--runs 500] [--alknet BIN] [--json]
PYTHONPATH must name the built package (build/default/bindings/python/site), or install it
(scripts/install). Writes about 3x --size-mib under --dir, deleted at the end.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

import alknet

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def median_ms(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), min(times)


def bench_open(d, size_mib, count, repeat):
    per = size_mib * (1 << 20) // count // 4  # float32 elements per tensor
    names = [f"layer{i:04d}.weight" for i in range(count)]
    target = names[count // 2]
    mtf = os.path.join(d, "model.mtf")
    npy_dir = os.path.join(d, "npy")
    npz = os.path.join(d, "model.npz")
    os.makedirs(npy_dir, exist_ok=True)
    rng = np.random.default_rng(0)
    base = rng.standard_normal(per).astype(np.float32)
    arrays = {n: base + np.float32(i) for i, n in enumerate(names)}
    t0 = time.perf_counter()
    alknet.tensor.save(mtf, arrays)
    write_mtf = time.perf_counter() - t0
    for n, a in arrays.items():
        np.save(os.path.join(npy_dir, n + ".npy"), a)
    np.savez(npz, **arrays)
    want = float(arrays[target].astype(np.float64).sum())
    del arrays

    def ours():
        with alknet.tensor.open(mtf) as f:
            s = float(f[target].sum(dtype=np.float64))
        assert abs(s - want) < 1e-6 * abs(want) + 1e-3, (s, want)

    def npy_all():
        m = {n: np.load(os.path.join(npy_dir, n + ".npy"), mmap_mode="r") for n in names}
        s = float(m[target].sum(dtype=np.float64))
        assert abs(s - want) < 1e-6 * abs(want) + 1e-3

    def npy_one():
        s = float(np.load(os.path.join(npy_dir, target + ".npy"), mmap_mode="r").sum(dtype=np.float64))
        assert abs(s - want) < 1e-6 * abs(want) + 1e-3

    def npz_one():
        with np.load(npz) as z:
            s = float(z[target].sum(dtype=np.float64))
        assert abs(s - want) < 1e-6 * abs(want) + 1e-3

    rows = {}
    for name, fn in [("alknet.tensor.open", ours), ("np.load mmap, all .npy", npy_all),
                     ("np.load mmap, the one .npy", npy_one), ("np.load .npz, one member", npz_one)]:
        fn()  # warm
        med, best = median_ms(fn, repeat)
        rows[name] = {"median_ms": med, "min_ms": best}
    return {"size_mib": size_mib, "tensors": count, "tensor_bytes": per * 4,
            "mtf_write_s": write_mtf, "rows": rows}


def tiny_model(path):
    from onnx import TensorProto, helper
    import onnx
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "tiny",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


def bench_session(d, runs, alknet_bin):
    model = os.path.join(d, "tiny.onnx")
    tiny_model(model)
    x = np.array([[-1, 2, -3, 4]], np.float32)
    np.save(os.path.join(d, "x.npy"), x)
    s = alknet.onnx.Session(model)
    for _ in range(20):
        s.run(None, {"x": x})
    wall, inner = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        (y,) = s.run(None, {"x": x})
        wall.append((time.perf_counter() - t0) * 1e3)
        inner.append(s.last_run_ms)
    np.testing.assert_array_equal(y, np.maximum(x, 0))
    out = {"runs": runs, "python_run_ms": statistics.median(wall),
           "python_run_min_ms": min(wall), "cxx_run_ms_inside": statistics.median(inner)}
    if alknet_bin:
        r = subprocess.run([alknet_bin, "infer", model, "--input", f"x={d}/x.npy", "--repeat",
                            str(runs), "--json"], capture_output=True, text=True, check=True)
        doc = json.loads(r.stdout)
        out["alknet_infer_run_ms"] = doc["run_ms"]["median"]
        out["alknet_infer_run_min_ms"] = doc["run_ms"]["min"]
    peer = os.path.join(ROOT, "bench", "onnx", "peer_infer.mjs")
    node = shutil.which("node", path=os.path.join(ROOT, "node_modules", ".bin")) or shutil.which("node")
    if node and os.path.isdir(os.path.join(ROOT, "bench", "peers", "node_modules", "onnxruntime-node")):
        r = subprocess.run([node, peer, "--peer", "ort-node", "--model", model, "--input",
                            f"x={d}/x.npy", "--repeat", str(runs)], capture_output=True, text=True)
        if r.returncode == 0:
            doc = json.loads(r.stdout)
            out["ort_node_run_ms"] = doc["run_ms"]["median"]
            out["ort_node_run_min_ms"] = doc["run_ms"]["min"]
        else:
            out["ort_node_error"] = r.stderr.strip()[-300:]
    else:
        out["ort_node_error"] = "bench/peers/node_modules has no onnxruntime-node (bench/peers/setup)"
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dir", required=True, help="scratch directory (a subfolder is made and removed)")
    p.add_argument("--size-mib", type=int, default=1024)
    p.add_argument("--tensors", type=int, default=1000)
    p.add_argument("--repeat", type=int, default=9, help="timed repetitions of each open")
    p.add_argument("--runs", type=int, default=500, help="Session runs timed")
    p.add_argument("--alknet", help="the alknet binary (for alknet infer --repeat)")
    p.add_argument("--skip-session", action="store_true")
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    if a.size_mib <= 0 or a.tensors <= 0 or a.repeat <= 0 or a.runs <= 0:
        p.error("sizes and counts must be positive")
    d = os.path.join(a.dir, f"alknet-bench-python-{os.getpid()}")
    os.makedirs(d)
    try:
        res = {"machine": os.uname().nodename, "load_average": os.getloadavg(),
               "open": bench_open(d, a.size_mib, a.tensors, a.repeat)}
        if not a.skip_session:
            res["session"] = bench_session(d, a.runs, a.alknet)
        res["load_average_after"] = os.getloadavg()
    finally:
        shutil.rmtree(d, ignore_errors=True)
    if a.json:
        print(json.dumps(res, indent=2))
        return 0
    o = res["open"]
    print(f"load average {res['load_average'][0]:.2f} -> {res['load_average_after'][0]:.2f}")
    print(f"open + touch one tensor: {o['size_mib']} MiB, {o['tensors']} tensors of {o['tensor_bytes']} bytes")
    ours = o["rows"]["alknet.tensor.open"]["median_ms"]
    for k, v in o["rows"].items():
        print(f"  {k:28s} median {v['median_ms']:9.3f} ms  min {v['min_ms']:9.3f} ms  "
              f"ratio to alknet {v['median_ms'] / ours:7.2f}")
    if "session" in res:
        s = res["session"]
        print(f"Session.run on a tiny model, median of {s['runs']}:")
        print(f"  python Session.run wall      {s['python_run_ms']:.4f} ms (C++ run inside {s['cxx_run_ms_inside']:.4f} ms)")
        if "alknet_infer_run_ms" in s:
            print(f"  alknet infer --repeat        {s['alknet_infer_run_ms']:.4f} ms  "
                  f"ratio {s['python_run_ms'] / s['alknet_infer_run_ms']:.2f}")
        if "ort_node_run_ms" in s:
            print(f"  onnxruntime-node run         {s['ort_node_run_ms']:.4f} ms  "
                  f"ratio {s['python_run_ms'] / s['ort_node_run_ms']:.2f}")
        else:
            print(f"  onnxruntime-node: {s.get('ort_node_error')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
