#!/usr/bin/python3
"""End-to-end test of `alknet tensor` on files written by numpy (the reference writer of .npy
and .npz) and by a safetensors writer following the published format, checking every
converted tensor's dtype, shape and bytes against numpy's own view of the array.

Usage: cli_test.py ALKNET_BINARY
"""
import atexit
import json
import os
import struct
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ALKNET = sys.argv[1]
NP_TO_MTF = {np.bool_: "bool", np.int8: "i8", np.int16: "i16", np.int32: "i32", np.int64: "i64",
             np.uint8: "u8", np.uint16: "u16", np.uint32: "u32", np.uint64: "u64",
             np.float16: "f16", np.float32: "f32", np.float64: "f64",
             np.complex64: "complex64", np.complex128: "complex128"}
failures = []


def run(*args, expect=0):
    p = subprocess.run([ALKNET, "tensor", *args], capture_output=True, text=True, errors="replace")
    if p.returncode != expect:
        failures.append("alknet tensor %s: exit %d, want %d\n%s%s" % (" ".join(args), p.returncode, expect, p.stdout, p.stderr))
    return p


def check_converted(mtf, arrays, meta=None):
    """arrays: name -> numpy array the .mtf must hold, byte for byte."""
    run("verify", mtf)
    info = json.loads(run("inspect", mtf, "--json").stdout or "{}")
    got = {t["name"]: t for t in info.get("tensors", [])}
    if sorted(got) != sorted(arrays):
        failures.append("%s: tensors %s, want %s" % (mtf, sorted(got), sorted(arrays)))
        return
    raw = open(mtf, "rb").read()
    for name, a in arrays.items():
        t = got[name]
        want_dtype = NP_TO_MTF[a.dtype.type]
        if t["dtype"] != want_dtype or t["shape"] != list(a.shape):
            failures.append("%s: %s is %s %s, want %s %s" % (mtf, name, t["dtype"], t["shape"], want_dtype, list(a.shape)))
        data = raw[t["offset"]:t["offset"] + t["byte_length"]]
        if data != np.ascontiguousarray(a).tobytes():
            failures.append("%s: %s bytes differ from numpy's" % (mtf, name))
        if t["offset"] % 256:
            failures.append("%s: %s is not 256-aligned" % (mtf, name))
    for k, v in (meta or {}).items():
        if info["metadata"].get(k) != v:
            failures.append("%s: metadata %s = %r, want %r" % (mtf, k, info["metadata"].get(k), v))


def write_safetensors(path, arrays, metadata):
    """A safetensors file as the format defines it: u64 header size, JSON header, data."""
    names = {np.bool_: "BOOL", np.int8: "I8", np.int16: "I16", np.int32: "I32", np.int64: "I64",
             np.uint8: "U8", np.uint16: "U16", np.uint32: "U32", np.uint64: "U64",
             np.float16: "F16", np.float32: "F32", np.float64: "F64"}
    header, blobs, off = {"__metadata__": metadata}, [], 0
    for name, a in arrays.items():
        b = np.ascontiguousarray(a).tobytes()
        header[name] = {"dtype": names[a.dtype.type], "shape": list(a.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def main():
    rng = np.random.default_rng(1)
    d = tempfile.mkdtemp(prefix="alknet-cli-")
    atexit.register(shutil.rmtree, d, ignore_errors=True)  # also when a check fails
    arrays = {
        "f32": rng.standard_normal((3, 5)).astype(np.float32),
        "f16": rng.standard_normal((7,)).astype(np.float16),
        "f64": np.float64(3.25) * np.ones(()),  # rank 0
        "i64": rng.integers(-2**40, 2**40, size=(2, 2, 2)),
        "u8": rng.integers(0, 255, size=(33,), dtype=np.uint8),
        "b": rng.integers(0, 2, size=(4, 3)).astype(np.bool_),
        "c64": (rng.standard_normal(5) + 1j * rng.standard_normal(5)).astype(np.complex64),
        "empty": np.zeros((0, 4), dtype=np.int32),
        "u16": np.arange(10, dtype=np.uint16).reshape(2, 5)[:, ::2],  # non-contiguous view
        "big": rng.standard_normal((3 << 20) // 8 * 3).astype(np.float64),  # > the 8 MiB copy buffer
    }
    for name, a in arrays.items():
        np.save(os.path.join(d, name + ".npy"), a)
        run("convert", os.path.join(d, name + ".npy"), os.path.join(d, name + ".mtf"))
        check_converted(os.path.join(d, name + ".mtf"), {name: a})

    np.savez(os.path.join(d, "many.npz"), **arrays)
    run("convert", os.path.join(d, "many.npz"), os.path.join(d, "many.mtf"))
    check_converted(os.path.join(d, "many.mtf"), arrays)
    run("convert", os.path.join(d, "many.npz"), os.path.join(d, "many-first.mtf"), "--index-first")
    check_converted(os.path.join(d, "many-first.mtf"), arrays)

    st = {k: v for k, v in arrays.items() if not k.startswith("c")}
    write_safetensors(os.path.join(d, "m.safetensors"), st, {"format": "pt", "note": "h\u00e9"})
    run("convert", os.path.join(d, "m.safetensors"), os.path.join(d, "st.mtf"))
    check_converted(os.path.join(d, "st.mtf"), st, {"safetensors.format": "pt", "safetensors.note": "h\u00e9"})

    # Inputs that must be refused with exit 1 and a message naming the problem.
    np.savez_compressed(os.path.join(d, "z.npz"), a=arrays["f32"])
    p = run("convert", os.path.join(d, "z.npz"), os.path.join(d, "z.mtf"), expect=1)
    if "compressed" not in p.stderr:
        failures.append("compressed npz: message lacks 'compressed': " + p.stderr)
    np.save(os.path.join(d, "fortran.npy"), np.asfortranarray(arrays["f32"]))
    p = run("convert", os.path.join(d, "fortran.npy"), os.path.join(d, "f.mtf"), expect=1)
    if "Fortran" not in p.stderr:
        failures.append("fortran npy: message lacks 'Fortran': " + p.stderr)
    np.save(os.path.join(d, "be.npy"), arrays["f32"].astype(">f4"))
    run("convert", os.path.join(d, "be.npy"), os.path.join(d, "be.mtf"), expect=1)
    with open(os.path.join(d, "cut.safetensors"), "wb") as f:
        f.write(open(os.path.join(d, "m.safetensors"), "rb").read()[:-100])
    run("convert", os.path.join(d, "cut.safetensors"), os.path.join(d, "cut.mtf"), expect=1)
    # Hostile inputs from the readers' corpus (libs/tensor/convert/tests/corpus): the zip64
    # extra field that over-read the heap, 1,000 entries naming one member, offsets as floats.
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                          "libs", "tensor", "convert", "tests", "corpus")
    hostile = {
        "bad-foreign-file--zip64-extra-oob-repro.npz": "member 'y.npy'",
        "foreign-overlap--1000-entries-one-member.npz": "overlaps member 'x.npy'",
        "bad-foreign-file--float-offsets.safetensors": "'data_offsets' holds 0.0",
        "foreign-overlap--1000-tensors-one-range.safetensors": "overlap tensor",
    }
    for name, text in hostile.items():
        p = run("convert", os.path.join(corpus, name), os.path.join(d, "hostile.mtf"), expect=1)
        if text not in p.stderr or name not in p.stderr:
            failures.append("%s: message lacks the file name or %r: %s" % (name, text, p.stderr))
    with open(os.path.join(d, "float.safetensors"), "wb") as f:
        h = json.dumps({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4.0]}}).encode()
        f.write(struct.pack("<Q", len(h)) + h + b"\0" * 4)
    p = run("convert", os.path.join(d, "float.safetensors"), os.path.join(d, "float.mtf"), expect=1)
    if "tensor 'w'" not in p.stderr:
        failures.append("float data_offsets: message lacks the tensor: " + p.stderr)
    for out in ("z.mtf", "f.mtf", "be.mtf", "cut.mtf", "hostile.mtf", "float.mtf"):
        if os.path.exists(os.path.join(d, out)):
            failures.append(out + " exists after a failed conversion")
    if [n for n in os.listdir(d) if ".tmp-" in n]:
        failures.append("temporary files left behind: %s" % os.listdir(d))

    # Mutated inputs (bit flips, stored bytes, truncation): exit 0 or 1, never a crash.
    import random
    rnd = random.Random(7)
    small = {k: arrays[k] for k in ("f32", "u8", "empty", "f64")}
    np.savez(os.path.join(d, "small.npz"), **small)
    write_safetensors(os.path.join(d, "small.safetensors"), small, {"k": "v"})
    seeds = [os.path.join(d, n) for n in ("f32.npy", "small.npz", "small.safetensors", "b.npy")]
    for i in range(240):
        src = open(seeds[i % len(seeds)], "rb").read()
        blob = bytearray(src)
        for _ in range(rnd.randint(1, 4)):
            at = rnd.randrange(min(len(blob), 512) if rnd.random() < 0.7 else len(blob))
            blob[at] = rnd.randrange(256)
        if rnd.random() < 0.3:
            del blob[rnd.randrange(len(blob)):]
        ext = os.path.splitext(seeds[i % len(seeds)])[1]
        path = os.path.join(d, "mut" + ext)
        open(path, "wb").write(blob)
        p = subprocess.run([ALKNET, "tensor", "convert", path, os.path.join(d, "mut.mtf")],
                           capture_output=True, text=True, errors="replace")
        if p.returncode not in (0, 1) or "Sanitizer" in p.stderr:
            failures.append("mutated %s (case %d): exit %d\n%s" % (ext, i, p.returncode, p.stderr[-2000:]))
            break
        if p.returncode == 0:
            run("verify", os.path.join(d, "mut.mtf"))

    # verify: exit 1 on a corrupted file; usage errors exit 2.
    blob = bytearray(open(os.path.join(d, "f32.mtf"), "rb").read())
    blob[4096] ^= 1
    open(os.path.join(d, "bad.mtf"), "wb").write(blob)
    p = run("verify", os.path.join(d, "bad.mtf"), expect=1)
    if "rule 36" not in p.stderr:
        failures.append("verify of a corrupted tensor: " + p.stderr)
    run("verify", expect=2)
    run("frobnicate", expect=2)
    run("--help")

    for f in failures:
        print("FAIL:", f)
    print("%d passed, %d failed" % (1 if not failures else 0, 1 if failures else 0))
    return 1 if failures else 0


sys.exit(main())
