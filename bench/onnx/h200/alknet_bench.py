#!/usr/bin/env python3
"""H200 companion of torch_bench.py: time `alknet infer` on the ONNX files torch_bench.py wrote
and print alknet / torch ratios.

    python3 bench/onnx/h200/alknet_bench.py --dir OUT_DIR [--alknet build/default/apps/alknet/alknet]
        [--repeat 50]

For each OUT_DIR/<model>_b<B>.onnx it runs
    alknet infer <model>_b<B>.onnx --input input=<model>_b<B>.input.npy --repeat N --json
in a fresh process, checks the reported output shape against torch's (<model>_b<B>.expected.npy),
writes OUT_DIR/alknet.json and prints a markdown table (steady = run_ms.median; cold = load +
plan + first run) next to OUT_DIR/torch.json's eager fp32 medians. Needs only python3 (numpy
is used when present, to read the expected shape).
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))


def npy_shape(path):
    """Shape from a .npy header, without numpy."""
    with open(path, "rb") as f:
        head = f.read(4096)
    m = re.search(rb"'shape':\s*\(([^)]*)\)", head)
    return [int(d) for d in m.group(1).split(b",") if d.strip()] if m else None


def parse_json(text):
    """alknet infer --json pretty-prints one document; tolerate lines printed before it."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    for line in reversed(text.splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dir", required=True)
    p.add_argument("--alknet", default=os.environ.get("ALKNET", os.path.join(ROOT, "build/default/apps/alknet/alknet")))
    p.add_argument("--repeat", type=int, default=50)
    p.add_argument("--timeout", type=int, default=1800)
    args = p.parse_args()

    models = sorted(glob.glob(os.path.join(args.dir, "*_b*.onnx")))
    if not models:
        print(f"alknet_bench: no *_b*.onnx in {args.dir}; run torch_bench.py first", file=sys.stderr)
        return 2
    if subprocess.run([args.alknet, "infer", "--help"], capture_output=True).returncode != 0:
        print(f"alknet_bench: `{args.alknet} infer` is not available", file=sys.stderr)
        return 3
    torch_report = {}
    if os.path.exists(os.path.join(args.dir, "torch.json")):
        with open(os.path.join(args.dir, "torch.json")) as f:
            torch_report = json.load(f)

    results = {}
    for path in models:
        base = path[:-len(".onnx")]
        name, batch = re.match(r"(.*)_b(\d+)$", os.path.basename(base)).groups()
        cmd = [args.alknet, "infer", path, "--input", f"input={base}.input.npy",
               "--repeat", str(args.repeat), "--json"]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
        except subprocess.TimeoutExpired:
            r = {"error": f"timeout after {args.timeout} s"}
        else:
            r = parse_json(proc.stdout)
            if proc.returncode != 0 or not isinstance(r, dict):
                tail = [l for l in (proc.stderr + proc.stdout).splitlines() if l.strip()]
                r = {"error": f"exit {proc.returncode}: {tail[-1] if tail else 'no output'}"}
        if "error" not in r:
            want = npy_shape(base + ".expected.npy")
            got = [o.get("shape") for o in r.get("outputs", [])]
            if want and got and got[0] != want:
                r["mismatch"] = f"output shape {got[0]}, torch has {want}"
        results.setdefault(name, {})[batch] = r
        shown = r.get("error") or f"median {r['run_ms']['median']:.3f} ms, first {r['run_ms']['first']:.1f} ms"
        print(f"{name} batch {batch}: alknet {shown}", file=sys.stderr, flush=True)

    with open(os.path.join(args.dir, "alknet.json"), "w") as f:
        json.dump({"command": " ".join(sys.argv), "results": results}, f, indent=1)

    # torch times the model on an input already on the GPU; alknet's steady time includes the
    # input's upload and the output's download, so the device part is shown beside it.
    rows = ["| model | batch | alknet steady ms | of which device ms | torch eager fp32 ms | alknet / torch "
            "| device / torch | alknet cold ms | torch.compile ms | alknet / compile |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name in sorted(results):
        for batch in sorted(results[name], key=int):
            r = results[name][batch]
            tr = torch_report.get("results", {}).get(name, {}).get(batch, {})
            t = tr.get("median_ms")
            tc = tr.get("compile", {}).get("median_ms")
            if "error" in r:
                rows.append(f"| {name} | {batch} | {r['error'][:80]} | | {t or ''} | | | | {tc or ''} | |")
                continue
            a = r["run_ms"]["median"]
            cold = sum(x or 0 for x in (r.get("load_ms"), r.get("plan_ms"), r["run_ms"].get("first")))
            flag = f" ✗ {r['mismatch']}" if "mismatch" in r else ""
            ratio = f"{a / t:.2f}" if t else ""
            dev = r.get("run_parts_ms", {}).get("device")
            dev_text = f"{dev:.3f}" if dev is not None else ""
            dev_ratio = f"{dev / t:.2f}" if t and dev is not None else ""
            rows.append(f"| {name} | {batch} | {a:.3f}{flag} | {dev_text} | {t if t is not None else ''} | {ratio} "
                        f"| {dev_ratio} | {cold:.0f} | {tc if tc is not None else ''} "
                        f"| {f'{a / tc:.2f}' if tc else ''} |")
    if torch_report:
        rows.append("")
        rows.append(f"torch {torch_report.get('torch')} (CUDA {torch_report.get('cuda')}, cuDNN "
                    f"{torch_report.get('cudnn')}, TF32 off, cudnn.benchmark "
                    f"{torch_report.get('cudnn_benchmark')}) on {torch_report.get('machine')}.")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
