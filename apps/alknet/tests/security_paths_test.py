#!/usr/bin/python3
"""Regression tests of the hardening issue's path and file items (docs/security.md, "Files and
paths"), run against the `alknet` binary from outside the process. Each case is one ctest
(security.paths.<case>) and judges by what is on disk afterwards and how the process ended;
every run has a timeout, so a hang (a FIFO opened for reading) fails instead of blocking.

Usage: security_paths_test.py ALKNET_BINARY CASE
"""
import os
import shutil
import subprocess
import sys
import tempfile

ALKNET = sys.argv[1]
CASE = sys.argv[2]
D = tempfile.mkdtemp(prefix="alknet-security-")
G = os.path.join(D, "g")
os.mkdir(G)
failures = []


def run(*args, cwd=None, timeout=20):
    try:
        return subprocess.run([ALKNET, *args], capture_output=True, text=True, errors="replace",
                              cwd=cwd, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        failures.append("alknet %s: still running after %d s (a blocking open?)"
                        % (" ".join(args)[:200], timeout))
        return None


def expect_refused(p, what, needle=None):
    if p is None:
        return
    text = p.stdout + p.stderr
    if p.returncode == 0:
        failures.append("%s: exit 0, want a refusal\n%s" % (what, text))
    elif needle and needle not in text:
        failures.append("%s: the message lacks %r\n%s" % (what, needle, text))
    if "Segmentation" in text or p.returncode < 0:
        failures.append("%s: died with signal %d" % (what, -p.returncode))


def expect_absent(path, what):
    if os.path.lexists(path):
        failures.append("%s: %s exists" % (what, path))


def js_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def case_nul_byte():
    # Item 1: the permission check normalised the whole string, open() stopped at the NUL.
    target = js_str(D + "/pwned") + ' + "\\u0000/../g/z"'
    p = run("eval", "--allow-write=" + G,
            'import fs from "alknet:fs"; fs.writeTextFileSync(%s, "x")' % target)
    expect_refused(p, "alknet:fs write with a NUL byte", "NUL")
    expect_absent(D + "/pwned", "alknet:fs write with a NUL byte")
    expect_absent(G + "/z", "alknet:fs write with a NUL byte")

    p = run("eval", "--allow-write=" + G,
            'import * as t from "alknet:tensor"; t.write(%s + ".mtf", '
            '[{name: "a", dtype: "f32", shape: [1], data: new Float32Array([1])}])' % target)
    expect_refused(p, "alknet:tensor write with a NUL byte", "NUL")
    expect_absent(D + "/pwned", "alknet:tensor write with a NUL byte")

    with open(D + "/secret", "w") as f:
        f.write("s3cret")
    p = run("eval", "--allow-read=" + G,
            'import fs from "alknet:fs"; console.log(fs.readTextFileSync(%s + "\\u0000/../g/x"))'
            % js_str(D + "/secret"))
    expect_refused(p, "alknet:fs read with a NUL byte", "NUL")
    if p and "s3cret" in p.stdout:
        failures.append("alknet:fs read with a NUL byte printed the file outside the grant")


def case_dangling_symlink():
    # Item 2: a link inside the granted directory to a file that does not exist yet, outside.
    os.symlink(D + "/outside.txt", G + "/d")
    p = run("eval", "--allow-write=" + G,
            'import fs from "alknet:fs"; fs.writeTextFileSync(%s, "x")' % js_str(G + "/d"))
    expect_refused(p, "write through a dangling link", "symbolic link")
    expect_absent(D + "/outside.txt", "write through a dangling link")
    # The same grant still writes a plain file (no regression).
    p = run("eval", "--allow-write=" + G,
            'import fs from "alknet:fs"; fs.writeTextFileSync(%s, "ok")' % js_str(G + "/plain"))
    if p is None or p.returncode != 0 or open(G + "/plain").read() != "ok":
        failures.append("a plain write inside the grant failed: %s" % (p and p.stderr))


def case_eval_import():
    # Item 11: `cd / && alknet eval` granted the working directory (here: /) to imports.
    with open(D + "/s.json", "w") as f:
        f.write('{"secret": "s3cret-json"}')
    with open(D + "/k.env", "w") as f:
        f.write("KEY=leakedvalue\n")
    for cwd in ("/", D):
        for name in ("s.json", "k.env"):
            p = run("eval", 'console.log(JSON.stringify((await import(%s)).default))'
                    % js_str(D + "/" + name), cwd=cwd)
            expect_refused(p, "eval import of %s from cwd %s" % (name, cwd), "--allow-read")
            if p and ("s3cret-json" in p.stdout + p.stderr or "leakedvalue" in p.stdout + p.stderr):
                failures.append("eval import of %s from cwd %s leaked the file's contents"
                                % (name, cwd))
    p = run("eval", "--allow-read=" + D,
            'console.log((await import(%s)).default.secret)' % js_str(D + "/s.json"), cwd="/")
    if p is None or p.returncode != 0 or p.stdout.strip() != "s3cret-json":
        failures.append("eval import with --allow-read: %s" % (p and (p.stdout + p.stderr)))
    # A script still imports JSON from its own directory without a grant.
    with open(D + "/main2.mjs", "w") as f:
        f.write('const d = (await import("./s.json")).default;\nconsole.log(d.secret);\n')
    p = run("run", D + "/main2.mjs", cwd="/")
    if p is None or p.returncode != 0 or p.stdout.strip() != "s3cret-json":
        failures.append("run: a JSON import beside the script: %s" % (p and (p.stdout + p.stderr)))


def case_fifo():
    # Item 14: open() blocked on a FIFO before any regular-file check.
    fifo = D + "/m.onnx"
    os.mkfifo(fifo)
    expect_refused(run("infer", fifo), "infer on a FIFO", "FIFO")
    os.mkfifo(D + "/x.npy")
    expect_refused(run("tensor", "convert", D + "/x.npy", D + "/x.mtf"), "tensor convert of a FIFO",
                   "FIFO")
    expect_absent(D + "/x.mtf", "tensor convert of a FIFO")
    os.mkfifo(D + "/t.hbs")
    expect_refused(run("template", "render", D + "/t.hbs"), "template render of a FIFO", "FIFO")
    os.mkfifo(G + "/f")
    for api, needle in (('(await import("alknet:fs")).readTextFileSync(%s)', "FIFO"),
                        ('(await import("alknet:tensor")).open(%s)', "FIFO"),
                        ('await import(%s)', "Module not found")):
        p = run("eval", "--allow-read=" + G, api % js_str(G + "/f"))
        expect_refused(p, "eval %s on a FIFO" % api, needle)

    # External data that is a FIFO (the model itself is a regular file).
    import onnx
    from onnx import TensorProto, helper
    w = helper.make_tensor("w", TensorProto.FLOAT, [2], [0.0, 0.0])
    w.ClearField("float_data")
    w.data_location = TensorProto.EXTERNAL
    w.external_data.add(key="location", value="w.bin")
    w.external_data.add(key="length", value="8")
    node = helper.make_node("Add", ["x", "w"], ["y"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    os.mkdir(D + "/ext")
    onnx.save(model, D + "/ext/m.onnx")
    os.mkfifo(D + "/ext/w.bin")
    expect_refused(run("infer", D + "/ext/m.onnx", "--input", "x=[1,2]"),
                   "infer with FIFO external data", "FIFO")
    # An input file that is a FIFO, for a model with its weights inline.
    model.graph.initializer[0].CopyFrom(helper.make_tensor("w", TensorProto.FLOAT, [2], [0.0, 0.0]))
    onnx.save(model, D + "/plain.onnx")
    os.mkfifo(D + "/in.npy")
    expect_refused(run("infer", D + "/plain.onnx", "--input", "x=" + D + "/in.npy"),
                   "infer with a FIFO input", "FIFO")


def case_template_directory():
    # Item 17: a directory as the template rendered as empty with exit 0.
    os.mkdir(D + "/tdir")
    expect_refused(run("template", "render", D + "/tdir"), "template render of a directory",
                   "directory")
    with open(D + "/ok.hbs", "w") as f:
        f.write("a{{x}}b")
    with open(D + "/ok.json", "w") as f:
        f.write('{"x": 1}')
    p = run("template", "render", D + "/ok.hbs", "--data", D + "/ok.json")
    if p is None or p.returncode != 0 or p.stdout != "a1b":
        failures.append("template render of a file: %s" % (p and (p.stdout + p.stderr)))


def case_token_file():
    # Item 17: --token-file /dev/zero was read without a cap (until memory ran out).
    expect_refused(run("serve", "--listen", "127.0.0.1:0", "--token-file", "/dev/zero"),
                   "serve --token-file /dev/zero", "character device")
    expect_refused(run("calls", "--remote", "127.0.0.1:9", "--token-file", "/dev/zero"),
                   "calls --token-file /dev/zero", "character device")


CASES = {"nul_byte": case_nul_byte, "dangling_symlink": case_dangling_symlink,
         "eval_import": case_eval_import, "fifo": case_fifo,
         "template_directory": case_template_directory, "token_file": case_token_file}

try:
    CASES[CASE]()
finally:
    shutil.rmtree(D, ignore_errors=True)
if failures:
    print("\n".join(failures))
    sys.exit(1)
print("ok:", CASE)
