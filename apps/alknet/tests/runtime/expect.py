#!/usr/bin/env python3
"""Runs a command and checks its exit status and output.

  expect.py --rc N [--stdout REGEX]... [--stderr REGEX]... [--no-stderr REGEX]
            [--stdin TEXT] [--cwd DIR] -- COMMAND...

Each REGEX must match somewhere (re.search, DOTALL).
"""
import argparse
import re
import subprocess
import sys


def main():
    argv = sys.argv[1:]
    split = argv.index("--")
    p = argparse.ArgumentParser()
    p.add_argument("--rc", type=int, required=True)
    p.add_argument("--stdout", action="append", default=[])
    p.add_argument("--stderr", action="append", default=[])
    p.add_argument("--no-stderr", action="append", default=[])
    p.add_argument("--stdin", default=None)
    p.add_argument("--cwd", default=None)
    opts = p.parse_args(argv[:split])
    cmd = argv[split + 1:]
    r = subprocess.run(cmd, input=opts.stdin, capture_output=True, text=True, timeout=60,
                       cwd=opts.cwd)
    problems = []
    if r.returncode != opts.rc:
        problems.append(f"exit status {r.returncode}, expected {opts.rc}")
    for rx in opts.stdout:
        if not re.search(rx, r.stdout, re.S):
            problems.append(f"stdout does not match {rx!r}")
    for rx in opts.stderr:
        if not re.search(rx, r.stderr, re.S):
            problems.append(f"stderr does not match {rx!r}")
    for rx in opts.no_stderr:
        if re.search(rx, r.stderr, re.S):
            problems.append(f"stderr matches {rx!r}")
    if problems:
        print("command:", " ".join(cmd))
        print("\n".join(problems))
        print("--- stdout ---\n" + r.stdout + "--- stderr ---\n" + r.stderr)
        return 1
    print("ok:", " ".join(cmd))
    return 0


if __name__ == "__main__":
    sys.exit(main())
