#!/usr/bin/python3
"""Pools of `alknet serve` workers on loopback, driven by `alknet sha256 --out DIR --remote
ipv4:A,B,C` (one crypto.sha256 call per file), checked against hashlib (an independent
reference) and the workers' own --json call logs.

  pool_cli_test.py ALKNET spread      1,000 calls over 3 workers: each within 2x of the mean
  pool_cli_test.py ALKNET kill        a worker SIGKILLed mid-batch: every call succeeds, once
  pool_cli_test.py ALKNET drain       a worker SIGTERMed mid-batch: no call fails, it exits 0
  pool_cli_test.py ALKNET bad-token   a worker with another token: the batch fails over to the
                                      others (one warning names it); all refusing: a clear error
                                      naming every worker, never a hang

Bounded: every wait has a deadline, every subprocess a timeout, workers are killed on exit."""
import atexit
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ALKNET = sys.argv[1]
CASE = sys.argv[2]
TOKEN = "pool-token-1"
BATCH_TIMEOUT = 120  # seconds; the slowest case takes a few seconds on an idle machine


class Worker:
    """One `alknet serve --json` on 127.0.0.1:0; its call log lines are collected by a thread."""

    def __init__(self, tmp, token, extra=()):
        token_file = os.path.join(tmp, f"token-{token}")
        with open(token_file, "w") as f:
            f.write(token + "\n")
        self.proc = subprocess.Popen(
            [ALKNET, "serve", "--listen", "127.0.0.1:0", "--token-file", token_file, "--json",
             "--drain-timeout", "20000", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError(f"serve did not start: {self.proc.stderr.read()}")
        self.port = json.loads(line)["port"]
        self.calls = []  # the per-call log lines
        self.stderr = ""
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()
        atexit.register(self.kill)

    def _read(self):
        for line in self.proc.stdout:
            doc = json.loads(line)
            with self.lock:
                self.calls.append(doc)

    def _read_err(self):
        self.stderr = self.proc.stderr.read()

    def sha_calls(self, outcome=None):
        with self.lock:
            return [c for c in self.calls if c["call"] == "crypto.sha256" and
                    (outcome is None or c["outcome"] == outcome)]

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


def make_inputs(tmp, n):
    folder = os.path.join(tmp, "in")
    os.makedirs(folder)
    want = {}
    for i in range(n):
        data = os.urandom(16 + (i * 7) % 200)
        name = f"f{i:04d}.bin"
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
        want[name + ".sha256"] = f"{hashlib.sha256(data).hexdigest()}  {name}\n"
    return folder, want


def check_outputs(out, want):
    """Every output present once, equal to hashlib's line, and no temporary file left."""
    got = sorted(os.listdir(out))
    assert got == sorted(want), (
        f"{len(got)} files in the output folder, want {len(want)}: "
        f"extra {sorted(set(got) - set(want))[:5]}, missing {sorted(set(want) - set(got))[:5]}")
    for name in got:
        with open(os.path.join(out, name)) as f:
            assert f.read() == want[name], name


def batch(tmp, folder, workers, concurrency=8, token=TOKEN):
    token_file = os.path.join(tmp, "client-token")
    with open(token_file, "w") as f:
        f.write(token + "\n")
    pool = "ipv4:" + ",".join(f"127.0.0.1:{w.port}" for w in workers)
    out = os.path.join(tmp, "out")
    cmd = [ALKNET, "sha256", "--out", out, "--inputs", folder, "--remote", pool, "--token-file",
           token_file, "--concurrency", str(concurrency)]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True), out


def wait_batch(proc):
    try:
        out, err = proc.communicate(timeout=BATCH_TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError(f"the batch did not finish in {BATCH_TIMEOUT} s (a hang)")
    return proc.returncode, err


def wait_until(what, predicate, timeout=60):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def case_spread(tmp):
    folder, want = make_inputs(tmp, 1000)
    workers = [Worker(tmp, TOKEN) for _ in range(3)]
    proc, out = batch(tmp, folder, workers, concurrency=12)
    code, err = wait_batch(proc)
    assert code == 0, f"batch exit {code}: {err}"
    check_outputs(out, want)
    # Log lines are written before the answer goes out, but read by another thread: wait.
    wait_until("every call log line", lambda: sum(len(w.sha_calls()) for w in workers) >= 1000, 10)
    counts = [len(w.sha_calls("ok")) for w in workers]
    assert sum(counts) == 1000, counts
    mean = sum(counts) / 3
    assert all(mean / 2 <= c <= mean * 2 for c in counts), f"uneven spread {counts}"
    print("calls per worker:", counts)


def case_kill(tmp):
    folder, want = make_inputs(tmp, 400)
    workers = [Worker(tmp, TOKEN) for _ in range(3)]
    proc, out = batch(tmp, folder, workers, concurrency=12)
    victim = workers[1]
    wait_until("the victim to serve 40 calls", lambda: len(victim.sha_calls()) >= 40 or
               proc.poll() is not None)
    assert proc.poll() is None, "the batch finished before the worker could be killed"
    victim.proc.send_signal(signal.SIGKILL)
    victim.proc.wait(timeout=10)
    code, err = wait_batch(proc)
    assert code == 0, f"batch exit {code} after a worker was killed: {err}"
    check_outputs(out, want)
    survivors = sum(len(w.sha_calls("ok")) for w in (workers[0], workers[2]))
    assert survivors > 0 and survivors + len(victim.sha_calls("ok")) >= 400, survivors
    print(f"victim served {len(victim.sha_calls())} before SIGKILL; survivors {survivors}")


def case_drain(tmp):
    folder, want = make_inputs(tmp, 400)
    workers = [Worker(tmp, TOKEN) for _ in range(3)]
    proc, out = batch(tmp, folder, workers, concurrency=12)
    victim = workers[0]
    wait_until("the victim to serve 40 calls", lambda: len(victim.sha_calls()) >= 40 or
               proc.poll() is not None)
    assert proc.poll() is None, "the batch finished before the worker could be drained"
    victim.proc.send_signal(signal.SIGTERM)
    try:
        victim_code = victim.proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        raise AssertionError("a drained worker did not exit within 30 s")
    code, err = wait_batch(proc)
    assert code == 0, f"batch exit {code} while a worker drained: {err}"
    check_outputs(out, want)
    assert victim_code == 0, f"drained worker exited {victim_code}: {victim.stderr}"
    failed = [c for w in workers for c in w.sha_calls() if c["outcome"] != "ok"]
    assert not failed, failed[:3]
    print(f"drained worker served {len(victim.sha_calls())}, exit {victim_code}")


def case_bad_token(tmp):
    folder, want = make_inputs(tmp, 120)
    workers = [Worker(tmp, TOKEN), Worker(tmp, "another-token"), Worker(tmp, TOKEN)]
    bad = f"127.0.0.1:{workers[1].port}"
    start = time.monotonic()
    proc, out = batch(tmp, folder, workers, concurrency=6)
    code, err = wait_batch(proc)
    took = time.monotonic() - start
    # Every call fails over to the good workers; the refusing one is named in one warning.
    assert code == 0, f"batch exit {code}: {err}"
    check_outputs(out, want)
    warnings = [ln for ln in err.splitlines() if "warning" in ln and "refused" in ln]
    assert len(warnings) == 1 and bad in warnings[0], f"want one warning naming {bad}: {err}"
    wait_until("the good workers' call logs", lambda: sum(
        len(w.sha_calls("ok")) for w in (workers[0], workers[2])) >= len(want), 10)
    assert not workers[1].sha_calls("ok"), "the worker with another token ran calls"

    # Every worker refuses: a clear error naming each of them, quickly (no hang).
    shutil.rmtree(out)
    refusing = [Worker(tmp, "third-token"), Worker(tmp, "fourth-token")]
    start2 = time.monotonic()
    proc, out = batch(tmp, folder, refusing, concurrency=4)
    code2, err2 = wait_batch(proc)
    assert code2 != 0, err2
    assert "bearer token" in err2, err2
    for w in refusing:
        assert f"127.0.0.1:{w.port}" in err2, f"127.0.0.1:{w.port} not named: {err2[-2000:]}"
    assert not os.path.isdir(out) or not os.listdir(out), "outputs written by refusing workers"
    print(f"bad-token pool: failed over in {took:.1f} s; all refusing: exit {code2} in "
          f"{time.monotonic() - start2:.1f} s")


def main():
    tmp = tempfile.mkdtemp(prefix="alknet_pool_")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    cases = {"spread": case_spread, "kill": case_kill, "drain": case_drain,
             "bad-token": case_bad_token}
    if CASE not in cases:
        sys.exit(f"unknown case {CASE}; one of {sorted(cases)}")
    cases[CASE](tmp)
    print("ok")


if __name__ == "__main__":
    main()
