#!/usr/bin/env python3
"""Runs scripts/webgpu/buffer_gc.mjs (3,000 x 1 MiB GPU buffers, never destroyed) and checks the
process's peak RSS stays far below the 3 GiB those buffers would hold if the GC never saw them.

  buffer_gc.py ALKNET SCRIPT [--limit-mib N]
"""
import argparse
import resource
import subprocess
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("alknet")
    p.add_argument("script")
    p.add_argument("--limit-mib", type=int, default=1024)
    a = p.parse_args()
    r = subprocess.run([a.alknet, "run", a.script], capture_output=True, text=True, timeout=300)
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(r.stdout, end="")
    print(r.stderr, end="", file=sys.stderr)
    print(f"peak RSS {peak_mib:.0f} MiB (limit {a.limit_mib} MiB)")
    if r.returncode != 0 or "made 3000 buffers" not in r.stdout:
        print(f"FAIL: exit status {r.returncode}")
        return 1
    if peak_mib > a.limit_mib:
        print("FAIL: unreleased GPU buffers were not collected")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
