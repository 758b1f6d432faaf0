"""python3 -m alknet: the package's command line, mirroring ``alknet`` where it is natural.

    python3 -m alknet info [--json]
    python3 -m alknet infer MODEL.onnx --input NAME=FILE.npy ... [--output OUT] [--repeat N] [--json]
    python3 -m alknet tensor inspect FILE.mtf [--json]
    python3 -m alknet tensor verify FILE.mtf
    python3 -m alknet tensor convert IN OUT [--alignment N] [--index-first]

Exit codes as the CLI's: 0 ok, 1 invalid input or failed check, 2 usage, 3 no device.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any, List, Optional

import numpy as np

import alknet

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_NO_DEVICE = 0, 1, 2, 3


def _err(msg: str) -> None:
    print(f"alknet: {msg}", file=sys.stderr)


def _cmd_info(a: argparse.Namespace) -> int:
    try:
        ad = alknet.compute.adapter()
    except alknet.ComputeError as e:
        _err(str(e))
        return EXIT_NO_DEVICE
    doc = {"version": alknet.__version__, "adapter": ad, "python": sys.version.split()[0],
           "numpy": np.__version__}
    if a.json:
        print(json.dumps(doc, indent=2))
    else:
        print(f"alknet {alknet.__version__} (Python {doc['python']}, numpy {doc['numpy']})")
        kind = "CPU" if ad["cpu"] else "GPU"
        print(f"adapter: {ad['device'] or ad['description']} ({ad['vendor']}, {kind})")
    return EXIT_OK


def _load_input(session: "alknet.onnx.Session", spec: str) -> tuple:
    if "=" not in spec:
        raise ValueError(f"--input {spec!r}: expected NAME=VALUE")
    name, value = spec.split("=", 1)
    declared = {i.name: i for i in session.get_inputs()}
    if name not in declared:
        raise ValueError(f"--input {name}: not an input of the model (inputs: {', '.join(declared)})")
    if value.endswith(".npy"):
        arr = np.load(value, allow_pickle=False)
    elif value.endswith(".mtf"):
        with alknet.tensor.open(value) as f:
            key = name if name in f else (next(iter(f)) if len(f) == 1 else None)
            if key is None:
                raise ValueError(f"--input {name}: {value} has no tensor named {name} (and holds {len(f)})")
            arr = np.array(f[key])
    else:
        arr = np.array(json.loads(value))
    onnx_type = declared[name].type[len("tensor("):-1]
    dt = {"float": np.float32, "double": np.float64, "float16": np.float16, "int8": np.int8,
          "int16": np.int16, "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
          "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
          "bool": np.bool_}.get(onnx_type)
    if dt is None:
        raise ValueError(f"--input {name}: the model's type {onnx_type} has no numpy dtype")
    return name, arr.astype(dt, copy=False)


def _cmd_infer(a: argparse.Namespace) -> int:
    try:
        t0 = time.perf_counter()
        s = alknet.onnx.Session(a.model)
        load_ms = (time.perf_counter() - t0) * 1e3
        feeds = dict(_load_input(s, spec) for spec in a.input)
        times: List[float] = []
        outs = s.run(None, feeds)
        times.append(s.last_run_ms)
        for _ in range(a.repeat):
            outs = s.run(None, feeds)
            times.append(s.last_run_ms)
    except alknet.ComputeError as e:
        _err(f"infer: {e}")
        return EXIT_NO_DEVICE if getattr(e, "code", "") == "device" else EXIT_FAILURE
    except (ValueError, TypeError, OSError, alknet.TensorError) as e:
        _err(f"infer: {e}")
        return EXIT_FAILURE
    names = [o.name for o in s.get_outputs()]
    if a.output:
        if a.output.endswith(".mtf"):
            alknet.tensor.save(a.output, dict(zip(names, outs)))
        elif a.output.endswith(".npy"):
            if len(outs) != 1:
                _err(f"infer: --output {a.output}: the model has {len(outs)} outputs; give a folder")
                return EXIT_USAGE
            np.save(a.output, outs[0])
        else:
            os.makedirs(a.output, exist_ok=True)
            for n, o in zip(names, outs):
                np.save(os.path.join(a.output, n + ".npy"), o)
    summary = []
    for n, o in zip(names, outs):
        d: dict = {"name": n, "dtype": str(o.dtype), "shape": list(o.shape)}
        if o.size and o.dtype.kind in "biuf":
            f = o.astype(np.float64)
            d.update(min=float(f.min()), max=float(f.max()), mean=float(f.mean()))
        summary.append(d)
    doc = {"model": a.model, "adapter": s.adapter, "load_ms": load_ms,
           "run_ms": {"first": times[0], "median": statistics.median(times[1:] or times),
                      "min": min(times[1:] or times)},
           "repeat": a.repeat, "outputs": summary}
    if a.json:
        print(json.dumps(doc, indent=2))
        return EXIT_OK
    print(f"model {a.model} on {s.adapter}: load {load_ms:.1f} ms, first run {times[0]:.2f} ms")
    if a.repeat:
        print(f"  {a.repeat} more runs: median {doc['run_ms']['median']:.3f} ms, "
              f"min {doc['run_ms']['min']:.3f} ms")
    for d, o in zip(summary, outs):
        print(f"{d['name']}: {d['dtype']}{d['shape']}")
        if o.size <= 16:
            print(f"  {o.tolist()}")
        elif "min" in d:
            print(f"  min {d['min']:.6g} max {d['max']:.6g} mean {d['mean']:.6g}")
    return EXIT_OK


def _cmd_tensor(a: argparse.Namespace) -> int:
    try:
        if a.sub == "convert":
            n = alknet.tensor.convert(a.src, a.dst, alignment=a.alignment, index_first=a.index_first)
            print(f"converted {a.src} -> {a.dst}: {n} tensors")
            return EXIT_OK
        with alknet.tensor.open(a.file, verify=a.sub == "verify") as f:
            if a.sub == "verify":
                print(f"{a.file}: valid ({len(f)} tensors, padding and checksums checked)")
                return EXIT_OK
            infos = [f.info(n) for n in f]
            meta = {k: (v.hex() if isinstance(v, bytes) else v) for k, v in f.metadata.items()}
            if a.json:
                print(json.dumps({"file": a.file, "tensors": infos, "metadata": meta}, indent=2))
            else:
                print(f"{a.file}: {len(f)} tensors")
                for i in infos:
                    print(f"  {i['name']}: {i['dtype']}{list(i['shape'])} at {i['offset']}, "
                          f"{i['byte_length']} bytes")
                for k, v in meta.items():
                    print(f"  metadata {k} = {v!r}")
            return EXIT_OK
    except alknet.TensorError as e:
        _err(f"tensor {a.sub}: {e}")
        return EXIT_FAILURE
    except (ValueError, TypeError, OSError) as e:
        _err(f"tensor {a.sub}: {e}")
        return EXIT_FAILURE


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m alknet",
                                description="alknet from Python: adapters, ONNX inference, tensor files.",
                                epilog="Exit codes: 0 ok, 1 invalid input or failed check, 2 usage, 3 no device.")
    p.add_argument("--version", action="version", version=f"alknet {alknet.__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)
    i = sub.add_parser("info", help="the adapter alknet.compute uses")
    i.add_argument("--json", action="store_true", help="a JSON document")
    f = sub.add_parser("infer", help="run an ONNX model on inputs")
    f.add_argument("model")
    f.add_argument("--input", action="append", default=[], metavar="NAME=VALUE",
                   help="a .npy file, a .mtf file (tensor NAME or its only one) or a JSON literal")
    f.add_argument("--output", help="OUT.mtf, OUT.npy (one output) or a folder of NAME.npy")
    f.add_argument("--repeat", type=int, default=0, help="N more runs after the first")
    f.add_argument("--json", action="store_true")
    t = sub.add_parser("tensor", help="inspect, verify, convert .mtf files")
    ts = t.add_subparsers(dest="sub", required=True)
    ins = ts.add_parser("inspect", help="tensors and metadata of a .mtf file")
    ins.add_argument("file")
    ins.add_argument("--json", action="store_true")
    ver = ts.add_parser("verify", help="every rule, padding and checksums (exit 1 if invalid)")
    ver.add_argument("file")
    cv = ts.add_parser("convert", help=".npy/.npz/.safetensors <-> .mtf")
    cv.add_argument("src")
    cv.add_argument("dst")
    cv.add_argument("--alignment", type=int, default=256)
    cv.add_argument("--index-first", action="store_true")
    return p


def main(argv: Optional[List[str]] = None) -> int:
    a = _parser().parse_args(argv)
    if a.cmd == "infer" and a.repeat < 0:
        _err("infer: --repeat must be >= 0")
        return EXIT_USAGE
    return {"info": _cmd_info, "infer": _cmd_infer, "tensor": _cmd_tensor}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
