#!/usr/bin/env python3
"""H200 half of the ONNX model benchmark: export ResNet-50, MobileNetV2 and a BERT-base-like encoder
(random weights, fixed seed) to ONNX and time torch eager fp32 on the GPU at batch 1 and 32, TF32 off
(and torch.compile with --compile).

    python3 bench/onnx/h200/torch_bench.py --out OUT_DIR [--repeat 50] [--batches 1 32]

Writes, for each model and batch B:
  OUT_DIR/<model>_b<B>.onnx             fixed batch B, opset --opset (default 17)
  OUT_DIR/<model>_b<B>.input.npy        the input used for timing (float32, seed 1)
  OUT_DIR/<model>_b<B>.expected.npy     torch's output for it (for checking another runtime)
  OUT_DIR/torch.json                    timings: median/min of --repeat runs after --warmup runs,
                                        each run bracketed by torch.cuda.synchronize()
Then `alknet_bench.py --dir OUT_DIR` times alknet on the same files and prints the ratios.
Needs torch with CUDA and numpy; no torchvision, no network.
"""
import argparse
import inspect
import json
import os
import platform
import statistics
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from models import MODELS, build, example_input  # noqa: E402


def export(model, example, path, opset, output="logits"):
    kwargs = dict(input_names=["input"], output_names=[output], opset_version=opset,
                  do_constant_folding=True)
    # torch >= 2.9 defaults to the dynamo exporter, which needs onnxscript; the TorchScript
    # exporter needs nothing else and handles these plain CNNs.
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kwargs["dynamo"] = False
    with torch.no_grad():
        torch.onnx.export(model, (example,), path, **kwargs)


def time_eager(model, x, warmup, repeat):
    times = []
    with torch.inference_mode():
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        model(x)
        torch.cuda.synchronize()
        first = (time.perf_counter() - t0) * 1e3
        for _ in range(warmup):
            model(x)
        for _ in range(repeat):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            model(x)
            torch.cuda.synchronize()
            times.append((time.perf_counter() - t0) * 1e3)
    return {"first_ms": round(first, 4), "median_ms": round(statistics.median(times), 4),
            "min_ms": round(min(times), 4), "repeat": repeat}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--repeat", type=int, default=50)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--batches", type=int, nargs="+", default=[1, 32])
    p.add_argument("--opset", type=int, default=17, choices=range(13, 18))
    p.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    p.add_argument("--compile", type=int, nargs="*", default=[], metavar="BATCH",
                   help="also time torch.compile (default mode) at these batches; its first call "
                        "includes the compilation")
    p.add_argument("--cudnn-benchmark", type=int, default=1, choices=[0, 1],
                   help="let cuDNN pick its fastest algorithms (default 1: torch at its best)")
    args = p.parse_args()

    if not torch.cuda.is_available():
        print("torch_bench: CUDA is not available", file=sys.stderr)
        return 3
    # fp32 means fp32: TF32 would run the convolutions and matmuls at 10-bit mantissa.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = bool(args.cudnn_benchmark)
    os.makedirs(args.out, exist_ok=True)
    device = torch.device("cuda")

    report = {
        "machine": f"{torch.cuda.get_device_name(0)}, {platform.node()}",
        "torch": torch.__version__, "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(), "tf32": False,
        "cudnn_benchmark": bool(args.cudnn_benchmark), "opset": args.opset, "results": {},
    }
    for name in args.models:
        model = build(name)
        report["results"][name] = {}
        for batch in args.batches:
            rng = np.random.default_rng([1, batch])
            x_np = example_input(name, batch, rng)
            base = os.path.join(args.out, f"{name}_b{batch}")
            export(model, torch.from_numpy(x_np), base + ".onnx", args.opset,
                   "hidden" if name == "bert" else "logits")
            np.save(base + ".input.npy", x_np)
            gpu_model = model.to(device)
            x = torch.from_numpy(x_np).to(device)
            r = time_eager(gpu_model, x, args.warmup, args.repeat)
            with torch.inference_mode():
                np.save(base + ".expected.npy", gpu_model(x).float().cpu().numpy())
            if batch in args.compile:
                try:
                    c = time_eager(torch.compile(gpu_model), x, args.warmup, args.repeat)
                except Exception as e:  # no triton / no compiler on the machine: say so, go on
                    c = {"error": f"{type(e).__name__}: {str(e)[:200]}"}
                r["compile"] = c
                print(f"{name} batch {batch}: torch.compile fp32 "
                      + (f"median {c['median_ms']:.3f} ms (first {c['first_ms']:.1f})" if "error" not in c
                         else c["error"]), flush=True)
            model = gpu_model.cpu()
            report["results"][name][str(batch)] = r
            print(f"{name} batch {batch}: torch eager fp32 median {r['median_ms']:.3f} ms "
                  f"(min {r['min_ms']:.3f}, first {r['first_ms']:.1f})", flush=True)
    with open(os.path.join(args.out, "torch.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(f"torch_bench: wrote {args.out}/torch.json and the ONNX files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
