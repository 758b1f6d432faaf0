#!/usr/bin/python3
"""Checks deploy/ against the alknet binary it deploys (ctest deploy.*):

  check.py ALKNET manifests    every YAML file parses; the Deployment asks for a GPU, mounts the
                               token Secret and probes the health service; the Service is
                               headless; every flag the files pass to `alknet serve` or
                               `alknet health` is in that command's --help
  check.py ALKNET entrypoint   container/entrypoint.sh starts a worker on loopback that answers
                               `alknet health`, drains on SIGTERM and exits 0; without its token
                               file it exits 2 with a message
  check.py ALKNET packages     each shared library the binary needs comes from a Debian package
                               the Containerfile installs (or one of their dependencies as dpkg
                               records them, or the base image's libc/libstdc++)

Bounded: every subprocess has a timeout."""
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile

import yaml

ALKNET = sys.argv[1]
CASE = sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT = 30


def help_flags(command):
    p = subprocess.run([ALKNET, command, "--help"], capture_output=True, text=True, timeout=TIMEOUT)
    assert p.returncode == 0, p.stderr
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", p.stdout))


def flags_of(words):
    return [w for w in words if w.startswith("--")]


def check_flags(command, words, where):
    known = help_flags(command)
    unknown = [f for f in flags_of(words) if f not in known]
    assert not unknown, f"{where}: `alknet {command}` has no {unknown} (see alknet {command} --help)"
    return len(flags_of(words))


def manifests():
    docs = {}
    for name in sorted(os.listdir(os.path.join(HERE, "k8s"))):
        if name.endswith(".yaml"):
            with open(os.path.join(HERE, "k8s", name)) as f:
                for d in yaml.safe_load_all(f):
                    docs[d["kind"]] = d
    assert set(docs) >= {"Deployment", "Service", "Secret"}, sorted(docs)
    svc = docs["Service"]["spec"]
    assert svc["clusterIP"] == "None", "the Service must be headless for dns:/// pools"
    pod = docs["Deployment"]["spec"]["template"]["spec"]
    (c,) = pod["containers"]
    assert c["resources"]["limits"]["nvidia.com/gpu"] == 1, c["resources"]
    assert svc["selector"] == docs["Deployment"]["spec"]["selector"]["matchLabels"]
    port = c["ports"][0]["containerPort"]
    probe = c["readinessProbe"]["exec"]["command"]
    assert probe[1] == "health" and f"127.0.0.1:{port}" in probe, probe
    assert c["livenessProbe"]["grpc"]["port"] == port, c["livenessProbe"]
    secret = [v for v in pod["volumes"] if "secret" in v]
    assert secret and secret[0]["secret"]["secretName"] == docs["Secret"]["metadata"]["name"]
    env = {e["name"]: e["value"] for e in c["env"]}
    assert env["ALKNET_LISTEN"].endswith(f":{port}"), env
    drain_s = int(env["ALKNET_DRAIN_TIMEOUT_MS"]) / 1000
    assert pod["terminationGracePeriodSeconds"] > drain_s, "the grace period must outlast the drain"
    n = check_flags("serve", c["args"], "k8s/deployment.yaml args")
    n += check_flags("health", probe[2:], "k8s/deployment.yaml readinessProbe")
    # The flags the entrypoint and the systemd unit pass.
    with open(os.path.join(HERE, "container", "entrypoint.sh")) as f:
        line = [ln for ln in f if ln.startswith("exec ")][0]
    n += check_flags("serve", shlex.split(line), "container/entrypoint.sh")
    with open(os.path.join(HERE, "systemd", "alknet-serve.service")) as f:
        unit = f.read()
    start = re.search(r"^ExecStart=(.*)$", unit, re.M).group(1).split()
    assert start[1] == "serve", start
    n += check_flags("serve", start, "systemd/alknet-serve.service ExecStart")
    stop = int(re.search(r"^TimeoutStopSec=(\d+)", unit, re.M).group(1))
    drain = int(start[start.index("--drain-timeout") + 1]) / 1000
    assert stop > drain, "TimeoutStopSec must outlast --drain-timeout"
    print(f"{len(docs)} manifests parse; {n} flags all known")


def entrypoint():
    tmp = tempfile.mkdtemp(prefix="alknet_deploy_")
    env = dict(os.environ, ALKNET_BIN=ALKNET, ALKNET_LISTEN="127.0.0.1:0",
               ALKNET_TOKEN_FILE=os.path.join(tmp, "missing"))
    script = os.path.join(HERE, "container", "entrypoint.sh")
    p = subprocess.run([script], capture_output=True, text=True, timeout=TIMEOUT, env=env)
    assert p.returncode == 2 and "token file" in p.stderr, (p.returncode, p.stderr)
    token = os.path.join(tmp, "token")
    with open(token, "w") as f:
        f.write("deploy-check-token\n")
    env["ALKNET_TOKEN_FILE"] = token
    worker = subprocess.Popen([script, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env)
    try:
        info = json.loads(worker.stdout.readline())
        assert info["token"] is True, info
        addr = f"127.0.0.1:{info['port']}"
        h = subprocess.run([ALKNET, "health", "--remote", addr, "--json"], capture_output=True,
                           text=True, timeout=TIMEOUT)
        assert h.returncode == 0 and json.loads(h.stdout)["status"] == "SERVING", h
        # The token from the file is required.
        c = subprocess.run([ALKNET, "calls", "--remote", addr], capture_output=True, text=True,
                           timeout=TIMEOUT, env={k: v for k, v in os.environ.items()
                                                 if k != "ALKNET_TOKEN"})
        assert c.returncode == 1 and "unauthenticated" in c.stderr, c.stderr
        worker.send_signal(signal.SIGTERM)  # the entrypoint exec'd alknet: it gets the signal
        code = worker.wait(timeout=TIMEOUT)
        assert code == 0, f"the worker exited {code} on SIGTERM: {worker.stderr.read()}"
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait(timeout=10)
    print("entrypoint: serves, answers health, drains on SIGTERM, exit 0")


def packages():
    with open(os.path.join(HERE, "container", "Containerfile")) as f:
        text = f.read()
    runtime = text[text.rindex("FROM "):]
    listed = set()
    for cmd in re.findall(r"apt-get install([^&]*)", runtime):
        listed |= {w for w in cmd.replace("\\", " ").split() if not w.startswith("-") and
                   w != "bookworm-backports"}
    base = {"libc6", "libstdc++6", "libgcc-s1"}
    # What the listed packages pull in: their Depends as dpkg records them here (the packages
    # alknet links are installed on any machine that built it; apt's lists may be absent).
    closure = set(listed) | base
    q = subprocess.run(["dpkg-query", "-W", "-f=${Package}\\t${Depends}\\n", *sorted(listed)],
                       capture_output=True, text=True, timeout=TIMEOUT)
    for line in q.stdout.splitlines():
        pkg, _, deps = line.partition("\t")
        closure |= {d.strip().split()[0].split(":")[0] for d in re.split(r"[,|]", deps) if d.strip()}
    ldd = subprocess.run(["ldd", ALKNET], capture_output=True, text=True, timeout=TIMEOUT).stdout
    needed = subprocess.run(["readelf", "-d", ALKNET], capture_output=True, text=True,
                            timeout=TIMEOUT).stdout
    names = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+)\]", needed)
    paths = {}
    for name in names:
        m = re.search(rf"^\s*{re.escape(name)} => (\S+)", ldd, re.M)
        if m:
            real = os.path.realpath(m.group(1))
            paths[name] = [real, real.replace("/usr/lib/", "/lib/", 1)]
    # One dpkg -S for every path (merged /usr: a file may be recorded under /lib).
    wanted = sorted({p for ps in paths.values() for p in ps})
    s = subprocess.run(["dpkg", "-S", *wanted], capture_output=True, text=True, timeout=TIMEOUT)
    owner_of = {}
    for line in s.stdout.splitlines():
        pkg, _, path = line.partition(": ")
        owner_of[path.strip()] = pkg.split(":")[0]
    missing = []
    for name in names:
        owner = next((owner_of[p] for p in paths.get(name, []) if p in owner_of), None)
        if name.startswith("ld-linux"):
            owner = "libc6"
        if owner not in closure:
            missing.append(f"{name} ({owner or 'no package'})")
    assert not missing, f"the Containerfile's runtime stage lacks {missing}"
    print(f"{len(names)} libraries, all from {sorted(listed)} or their dependencies")


if __name__ == "__main__":
    {"manifests": manifests, "entrypoint": entrypoint, "packages": packages}[CASE]()
    print("ok")
