#!/usr/bin/env python3
"""Runs a script under alknet and under node (the independent reference) and compares them.

  compare_with_node.py ALKNET SCRIPT [--frames | --frames=strict] [--node NODE]

NODE (default: `node` on PATH) is the reference; ctest passes the node that package.json pins
(CMake's ALKNET_NODE), since console formatting and Web APIs differ between node releases.

stdout and the exit status must be identical. With --frames the script is expected to fail
with exit status 1, and alknet's first frame naming the script must be file:LINE:COL with the
line node reports. Columns are compared only with --frames=strict: V8 and SpiderMonkey put
the column of e.g. `null.x` at different tokens, and only SpiderMonkey lists async callers.
"""
import os
import re
import shutil
import subprocess
import sys


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def main():
    alknet, script = sys.argv[1], sys.argv[2]
    flags = sys.argv[3:]
    node = "node"
    if "--node" in flags:
        at = flags.index("--node")
        node = flags[at + 1]
        del flags[at:at + 2]
    if not os.access(node, os.X_OK) and not shutil.which(node):
        print(f"reference node not found at {node}: run scripts/setup (npm ci installs it)")
        return 1
    frames = "--frames" in flags or "--frames=strict" in flags
    strict = "--frames=strict" in flags
    ours = run([alknet, "run", script])
    ref = run([node, script])
    ok = True
    if ours.stdout != ref.stdout:
        import difflib
        sys.stdout.writelines(difflib.unified_diff(
            ref.stdout.splitlines(True), ours.stdout.splitlines(True), "node", "alknet"))
        ok = False
    if (ours.returncode != 0) != (ref.returncode != 0):
        print(f"exit status: alknet {ours.returncode}, node {ref.returncode}")
        ok = False
    if frames:
        url = re.escape("file://" + os.path.realpath(script))
        with_col = re.compile(url + r":(\d+):(\d+)")
        got = with_col.findall(ours.stderr)
        # node starts an uncaught error with "file:///x.mjs:LINE" above a source excerpt.
        header = re.search(url + r":(\d+)", ref.stderr)
        if not header:
            print("node reported no location in the script:\n" + ref.stderr)
            ok = False
        elif not got or got[0][0] != header.group(1):
            print(f"first frame: alknet {got[:1]}, node line {header.group(1)}")
            ok = False
        if strict and got != with_col.findall(ref.stderr):
            print(f"frames: alknet {got}, node {with_col.findall(ref.stderr)}")
            ok = False
        if ours.returncode != 1:
            print(f"an uncaught error must exit with 1, got {ours.returncode}")
            ok = False
    if not ok:
        print("--- alknet stderr ---\n" + ours.stderr)
        return 1
    print(f"alknet and node agree on {script}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
