#!/usr/bin/env python3
"""alknet's JavaScript runtime against Deno and Node (npm `webgpu`, Dawn), side by side.

  bench/runtime/run_bench.py ALKNET [--rounds N] [--dispatches N] [--js-iterations N] [--smoke]
                             [--node NODE]

Three measurements, each the same script (bench/runtime/workload.mjs) in every runtime, with
the runtimes interleaved round by round so machine noise hits them alike:
  start-up   wall time of a process from exec to exit after its first completed dispatch
             (adapter, device, shader, pipeline, one dispatch, read back, check), and the
             CPU time it used (all threads; robust against a busy machine)
  dispatch   µs per dispatch over a loop of small dispatches (one submit each), timed in JS
  js         a compute-heavy pure-JS loop, timed in JS (for information: engine speed)
Prints medians and the ratio alknet / peer (below 1: alknet is faster). --smoke runs one small
round and only checks that every runtime produced a checked result (ctest). Runtimes that are
not installed are reported and skipped, never counted as passed.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def runtimes(alknet, node):
    found = {"alknet": [alknet, "run", os.path.join(HERE, "gpu_entry.mjs")]}
    deno = os.path.join(ROOT, "node_modules", "deno", "deno")  # the binary, not the node shim
    if os.access(deno, os.X_OK):
        # Deno 2 exposes navigator.gpu without a flag; it needs read access for the module.
        found["deno"] = [deno, "run", "--quiet", "--allow-read", os.path.join(HERE, "gpu_entry.mjs")]
    # npm `webgpu` is an ES module that the CommonJS loader of node < 20.19 cannot require().
    node = shutil.which(node)
    if node and os.path.isdir(os.path.join(ROOT, "node_modules", "webgpu")):
        found["node"] = [node, os.path.join(HERE, "node_entry.mjs")]
    return found


def run(cmd, *args, timeout=600):
    env = dict(os.environ, DENO_NO_UPDATE_CHECK="1", NO_COLOR="1")
    # CPU time of the process and all its threads (getrusage of waited-for children): unlike
    # wall time, it does not grow when other work on a busy machine delays the process.
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=timeout, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd + list(args))}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    stdout = p.stdout
    lines = [line for line in stdout.splitlines() if line.strip()]
    return wall, cpu, lines[-1] if lines else ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("alknet")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--dispatches", type=int, default=10000)
    ap.add_argument("--js-iterations", type=int, default=20_000_000)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--node", default="node", help="node >= 20.19 (default: node on PATH)")
    a = ap.parse_args()
    if a.smoke:
        a.rounds, a.dispatches, a.js_iterations = 1, 200, 200_000
    if a.node != "node" and not shutil.which(a.node):
        print(f"error: --node {a.node} not found (scripts/setup installs it with npm ci)")
        return 1
    rts = runtimes(a.alknet, a.node)
    for missing in {"deno", "node"} - rts.keys():
        print(f"note: {missing} not found, skipped")
    start, start_cpu, disp, js = ({n: [] for n in rts} for _ in range(4))
    for _ in range(a.rounds):
        for name, cmd in rts.items():
            wall, cpu, out = run(cmd, "first")
            if out != "first dispatch ok":
                raise RuntimeError(f"{name} first: {out!r}")
            start[name].append(wall * 1000)
            start_cpu[name].append(cpu * 1000)
            _, _, out = run(cmd, "dispatch", str(a.dispatches))
            if not out.startswith("dispatch_us "):
                raise RuntimeError(f"{name} dispatch: {out!r}")
            disp[name].append(float(out.split()[1]))
            if name != "node":
                _, _, out = run(cmd, "js", str(a.js_iterations))
                if not out.startswith("js_ms "):
                    raise RuntimeError(f"{name} js: {out!r}")
                js[name].append(float(out.split()[1]))
    # The pure-JS results must agree between engines (same arithmetic, same order).
    if a.smoke:
        print("smoke: every runtime completed and checked its dispatches:", ", ".join(rts))
    load = os.getloadavg()[0]
    print(f"rounds {a.rounds}, {a.dispatches} dispatches, {a.js_iterations} JS iterations, "
          f"load average {load:.1f} on {os.cpu_count()} CPUs")
    print(f"{'measure':<28}" + "".join(f"{n:>12}" for n in rts) + "   alknet/deno  alknet/node")
    for label, data, unit in [("start-up to 1st dispatch", start, "ms"),
                              ("  its CPU time (all threads)", start_cpu, "ms"),
                              ("per dispatch", disp, "us"), ("pure-JS loop", js, "ms")]:
        med = {n: statistics.median(v) for n, v in data.items() if v}
        row = f"{label + ' (' + unit + ')':<28}" + "".join(
            f"{med[n]:>12.2f}" if n in med else f"{'-':>12}" for n in rts)
        for peer in ["deno", "node"]:
            row += f"{med['alknet'] / med[peer]:>13.2f}" if peer in med else f"{'-':>13}"
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
