#!/usr/bin/env python3
"""Runs one WebGPU script under `alknet run` and under Deno and diffs their stdout.

Usage: compare_with_deno.py ALKNET DENO SCRIPT [--import-map FILE] [--timeout S] [--node NODE]

With --node NODE the reference is Node + npm `webgpu` (dawn.node, through dawn_node.mjs)
instead of Deno: the runtime the WebGPU CTS is run against upstream.

Deno is the independent reference (its WebGPU is wgpu; ours is Dawn). Exit status 0 when
both print the same and exit the same way, 1 on a difference (with a diff), 77 (ctest's
SKIP_RETURN_CODE) when either runtime cannot get a WebGPU adapter on this machine: a skip
that says why, never a silent pass.
"""
import argparse
import atexit
import difflib
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77


def deno_env():
    env = dict(os.environ)
    if "DENO_DIR" not in env:  # ctest sets one in the build tree; else a cache of this run only
        env["DENO_DIR"] = tempfile.mkdtemp(prefix="alknet-deno-cache-")
        atexit.register(shutil.rmtree, env["DENO_DIR"], ignore_errors=True)
    env["DENO_NO_UPDATE_CHECK"] = "1"
    env["NO_COLOR"] = "1"
    return env


def commands(args, script):
    import_map = ["--import-map", args.import_map] if args.import_map else []
    # Both runtimes may read files (tfjs lives in node_modules, which may be a symlink).
    alknet = [args.alknet, "run", "--allow-read"] + import_map + [script]
    deno = [args.deno, "run", "--quiet", "--unstable-webgpu", "--allow-read", "--no-lock"] + import_map + [script]
    if args.node:
        deno = [args.node, os.path.join(HERE, "dawn_node.mjs"), script]
    return alknet, deno


def run(cmd, env, timeout):
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        return "timeout", (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("alknet")
    ap.add_argument("deno")
    ap.add_argument("script")
    ap.add_argument("--import-map")
    ap.add_argument("--timeout", type=float, default=240)
    ap.add_argument("--node")
    args = ap.parse_args()
    env = deno_env()
    ref = "node+dawn.node" if args.node else "deno"
    if args.node and not os.access(args.node, os.X_OK):
        print(f"SKIP: Node not found at {args.node} (npm ci installs it)")
        return SKIP
    if not args.node and not os.access(args.deno, os.X_OK):
        print(f"SKIP: Deno not found at {args.deno} (npm ci installs it)")
        return SKIP

    probe = os.path.join(HERE, "probe_adapter.mjs")
    alknet_probe, deno_probe = commands(argparse.Namespace(**{**vars(args), "import_map": None}), probe)
    for name, cmd in ((ref, deno_probe), ("alknet", alknet_probe)):
        rc, out, err = run(cmd, env, 120)
        if rc != 0 or out.strip() != "adapter":
            print(f"SKIP: {name} gets no WebGPU adapter on this machine "
                  f"(probe exit {rc}, said {out.strip()!r}; {err.strip()[-300:]})")
            return SKIP

    alknet_cmd, deno_cmd = commands(args, args.script)
    a_rc, a_out, a_err = run(alknet_cmd, env, args.timeout)
    d_rc, d_out, d_err = run(deno_cmd, env, args.timeout)
    same = a_rc == d_rc and a_out == d_out
    print(f"alknet: exit {a_rc}, {len(a_out.splitlines())} lines; {ref}: exit {d_rc}, {len(d_out.splitlines())} lines")
    if same:
        print(a_out, end="")
        return 0
    print(f"DIFFERENT OUTPUT (--- {ref}, +++ alknet):")
    sys.stdout.writelines(difflib.unified_diff(d_out.splitlines(True), a_out.splitlines(True), ref, "alknet"))
    if a_err.strip():
        print("alknet stderr:\n" + a_err[-3000:])
    if d_err.strip():
        print(f"{ref} stderr:\n" + d_err[-3000:])
    return 1


if __name__ == "__main__":
    sys.exit(main())
