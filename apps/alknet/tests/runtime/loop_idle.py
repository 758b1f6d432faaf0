#!/usr/bin/env python3
"""The event loop sleeps while it only waits for timers: a script that idles for a second
(timers and an interval) must cost about as much CPU as one that exits at once, also with a
WebGPU device open (the GPU is polled only while a GPU promise is pending).

  loop_idle.py ALKNET
"""
import os
import subprocess
import sys
import time


def cpu_seconds(cmd):
    start = time.monotonic()
    pid = os.spawnv(os.P_NOWAIT, cmd[0], cmd)
    _, status, usage = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{cmd} failed with {status}")
    return usage.ru_utime + usage.ru_stime, time.monotonic() - start


def check(alknet, setup, what):
    idle_script = (setup + "let n = 0; const i = setInterval(() => { if (++n === 10) clearInterval(i) }, 100);"
                   "await new Promise((r) => setTimeout(r, 1000))")
    base = min(cpu_seconds([alknet, "eval", setup])[0] for _ in range(3))
    idle, wall = cpu_seconds([alknet, "eval", idle_script])
    print(f"{what}: cpu {base:.3f}s exiting at once, {idle:.3f}s idling for {wall:.2f}s")
    if wall < 1.0:
        sys.exit("the idle script ended before its timers")
    # A busy loop would burn about `wall` seconds of CPU; allow scheduling noise.
    if idle - base > 0.15:
        sys.exit(f"{what}: the loop used {idle - base:.3f}s of CPU while waiting for timers")


def main():
    alknet = sys.argv[1]
    check(alknet, "", "timers only")
    # With a device open but no GPU promise pending, WebGPU is not polled either.
    check(alknet, "const d = await (await navigator.gpu.requestAdapter()).requestDevice();",
          "device open, no GPU work")


if __name__ == "__main__":
    main()
