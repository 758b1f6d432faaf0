#!/usr/bin/python3
"""Writes the corpus of the foreign-format readers (libs/tensor/convert): seed files for the
fuzz targets and the cases of convert_corpus_test.cpp.

The references are independent of the C++ code: numpy writes the .npy and .npz files
(np.save, np.savez, np.savez_compressed), Python's zipfile checks the zip archives built by
hand here, and the safetensors files come from a writer following the published format
(https://github.com/huggingface/safetensors, "Format"). Each bad file breaks one rule.

File names: good--*.EXT must be read; CODE--*.EXT must fail with error code CODE (see
ErrorCodeName in libs/tensor/src/error.cpp). expected.txt says what each holds:
  T FILE TENSOR DTYPE SHAPE HEX     a tensor (SHAPE "2x3", "-" for rank 0; HEX "-" when empty)
  M FILE KEY VALUE                  a safetensors metadata entry
  E FILE CODE TEXT...               the error message must contain TEXT
  N FILE COUNT                      the file holds COUNT tensors

numpy stamps zip members with the time, so the output is not byte-for-byte reproducible and
there is no --check mode: rerun this script only to change the corpus, and commit the result.

Run: /usr/bin/python3 make_corpus.py [OUT_DIR]   (default: the directory of this script)
"""
import io
import json
import os
import shutil
import struct
import sys
import zipfile
import zlib

import numpy as np

NP_TO_MTF = {np.bool_: "bool", np.int8: "i8", np.int16: "i16", np.int32: "i32", np.int64: "i64",
             np.uint8: "u8", np.uint16: "u16", np.uint32: "u32", np.uint64: "u64",
             np.float16: "f16", np.float32: "f32", np.float64: "f64",
             np.complex64: "complex64", np.complex128: "complex128"}
NP_TO_ST = {np.bool_: "BOOL", np.int8: "I8", np.int16: "I16", np.int32: "I32", np.int64: "I64",
            np.uint8: "U8", np.uint16: "U16", np.uint32: "U32", np.uint64: "U64",
            np.float16: "F16", np.float32: "F32", np.float64: "F64"}
REPRO = "/work/shared/repro/parsers/zip64_oob.npz"

out_dir = os.path.dirname(os.path.abspath(__file__))
manifest = []
rng = np.random.default_rng(20240607)


def put(name, data):
    with open(os.path.join(out_dir, name), "wb") as f:
        f.write(data)


def expect_tensors(name, arrays):
    manifest.append("N %s %d" % (name, len(arrays)))
    for tname, a in arrays.items():
        shape = "x".join(str(d) for d in a.shape) or "-"
        data = np.ascontiguousarray(a).tobytes().hex() or "-"
        manifest.append("T %s %s %s %s %s" % (name, tname, NP_TO_MTF[a.dtype.type], shape, data))


def expect_error(name, code, text):
    manifest.append("E %s %s %s" % (name, code, text))


def npy_bytes(a, **kw):
    b = io.BytesIO()
    np.save(b, a, **kw)
    return b.getvalue()


def npy_raw(header, data=b"", version=(1, 0)):
    """A .npy with a header dict given as text (padded as numpy pads it)."""
    h = header.encode("latin1")
    pre = 10 if version[0] == 1 else 12
    h += b" " * (-(pre + len(h) + 1) % 64) + b"\n"
    size = struct.pack("<H", len(h)) if version[0] == 1 else struct.pack("<I", len(h))
    return b"\x93NUMPY" + bytes(version) + size + h + data


# ---- A zip writer from APPNOTE 6.3, for archives numpy cannot be asked to write.

def zip_archive(members, zip64=False, eocd_over=None, z64_over=None):
    """members: dicts {name, data, and overrides of central/local fields}. Returns bytes."""
    out, central = b"", b""
    for m in members:
        name = m["name"].encode()
        data = m.get("data", b"")
        crc = zlib.crc32(data)
        local_at = m.get("local_at", len(out))
        method = m.get("method", 0)
        size_c = m.get("csize", len(data))
        size_u = m.get("usize", len(data))
        lname = m.get("local_name", m["name"]).encode()
        if "local_at" not in m:
            out += struct.pack("<4sHHHHHIIIHH", m.get("local_sig", b"PK\x03\x04"), 20, 0,
                               m.get("local_method", method), 0, 0x21, crc, len(data), len(data),
                               len(lname), 0) + lname + data
        if zip64 and not m.get("no_zip64_extra"):
            extra = struct.pack("<HHQQQ", 1, 24, size_u, size_c, local_at)
            fields = (0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF)
        else:
            extra = m.get("extra", b"")
            fields = (m.get("cd_csize", size_c), m.get("cd_usize", size_u), m.get("cd_local", local_at))
        central += struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, m.get("flags", 0),
                               method, 0, 0x21, crc, fields[0], fields[1], len(name), len(extra),
                               0, m.get("disk", 0), 0, 0, fields[2]) + name + extra
    cd_at = len(out)
    out += central
    n = len(members)
    e = dict(disk=0, cd_disk=0, n_disk=n, n=n, size=len(central), at=cd_at)
    if zip64:
        z = dict(disk=0, cd_disk=0, n_disk=n, n=n, size=len(central), at=cd_at)
        z.update(z64_over or {})
        z64_at = len(out)
        out += struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, z["disk"], z["cd_disk"],
                           z["n_disk"], z["n"], z["size"], z["at"])
        out += struct.pack("<4sIQI", b"PK\x06\x07", 0, z64_at, 1)
        e.update(n_disk=0xFFFF, n=0xFFFF, size=0xFFFFFFFF, at=0xFFFFFFFF)
    e.update(eocd_over or {})
    out += struct.pack("<4sHHHHIIH", b"PK\x05\x06", e["disk"], e["cd_disk"], e["n_disk"], e["n"],
                       e["size"], e["at"], 0)
    return out


def check_zip(data, want):
    """Python's zipfile reads our archive as the arrays we meant."""
    z = zipfile.ZipFile(io.BytesIO(data))
    for name, a in want.items():
        got = np.load(io.BytesIO(z.read(name + ".npy")))
        assert got.dtype == a.dtype and got.shape == a.shape and got.tobytes() == a.tobytes(), name


# ---- safetensors: u64 LE header size N, N bytes of JSON, the data buffer.

def safetensors(entries, metadata=None, buffer=b"", raw_header=None, size_over=None):
    header = dict(entries)
    if metadata is not None:
        header["__metadata__"] = metadata
    h = raw_header if raw_header is not None else json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", size_over if size_over is not None else len(h)) + h + buffer


def safetensors_of(arrays, metadata=None):
    entries, buf = {}, b""
    for name, a in arrays.items():
        b = np.ascontiguousarray(a).tobytes()
        entries[name] = {"dtype": NP_TO_ST[a.dtype.type], "shape": list(a.shape),
                         "data_offsets": [len(buf), len(buf) + len(b)]}
        buf += b
    return safetensors(entries, metadata, buf)


def main():
    global out_dir
    if len(sys.argv) > 1:
        out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    for f in os.listdir(out_dir):
        if f.split(".")[-1] in ("npy", "npz", "safetensors") or f == "expected.txt":
            os.remove(os.path.join(out_dir, f))

    arrays = {
        "f32": rng.standard_normal((3, 5)).astype(np.float32),
        "f16": rng.standard_normal((7,)).astype(np.float16),
        "f64": np.float64(3.25) * np.ones(()),
        "i64": rng.integers(-2**40, 2**40, size=(2, 2, 2)),
        "u8": rng.integers(0, 255, size=(9,), dtype=np.uint8),
        "b": rng.integers(0, 2, size=(4, 3)).astype(np.bool_),
        "c128": (rng.standard_normal(2) + 1j * rng.standard_normal(2)),
        "empty": np.zeros((0, 4), dtype=np.int32),
        "u16": np.arange(10, dtype=np.uint16).reshape(2, 5)[:, ::2],
    }
    small = arrays["f32"][:1, :3].copy()

    # ---- .npy written by numpy
    for name, a in arrays.items():
        put("good--%s.npy" % name, npy_bytes(a))
        expect_tensors("good--%s.npy" % name, {"good--" + name: a})
    v2 = npy_raw("{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }",
                 np.arange(3, dtype="<i2").tobytes(), version=(2, 0))
    assert (np.load(io.BytesIO(v2)) == np.arange(3)).all()
    put("good--version2.npy", v2)
    expect_tensors("good--version2.npy", {"good--version2": np.arange(3, dtype=np.int16)})
    # Fortran order with one non-trivial dimension is laid out as C order (numpy reads it).
    f1 = npy_raw("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 3), }", small.tobytes())
    assert np.load(io.BytesIO(f1)).tobytes() == small.tobytes()
    put("good--fortran-one-dim.npy", f1)
    expect_tensors("good--fortran-one-dim.npy", {"good--fortran-one-dim": small})

    good = npy_bytes(small)
    bad_npy = [
        ("bad-foreign-file", "bad-magic", b"\x93NUMPX" + good[6:], "magic"),
        ("bad-foreign-file", "too-short", good[:7], "too short for a .npy header"),
        ("unsupported-foreign", "version-4", good[:6] + b"\x04\x00" + good[8:], "version 4.0"),
        ("bad-foreign-file", "header-past-end", good[:8] + struct.pack("<H", 5000) + good[10:],
         "runs past the end"),
        ("foreign-limit", "header-over-cap",
         b"\x93NUMPY\x02\x00" + struct.pack("<I", 100000) + b" " * 100000, "over the cap"),
        ("bad-foreign-file", "not-a-dict", npy_raw("['descr', '<f4']"), "is not a Python dict"),
        ("bad-foreign-file", "lacks-shape", npy_raw("{'descr': '<f4', 'fortran_order': False}"),
         "lacks 'shape'"),
        ("bad-foreign-file", "extra-key",
         npy_raw("{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}", b"\0" * 4),
         "has key 'x'"),
        ("bad-foreign-file", "repeated-key",
         npy_raw("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}", b"\0" * 4),
         "repeats 'descr'"),
        ("bad-foreign-file", "float-dim",
         npy_raw("{'descr': '<f4', 'fortran_order': False, 'shape': (3.5,), }"),
         "'shape' holds something other"),
        ("bad-foreign-file", "huge-dim",
         npy_raw("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }"),
         "'shape' holds something other"),
        ("bad-foreign-file", "shape-not-tuple",
         npy_raw("{'descr': '<f4', 'fortran_order': False, 'shape': (3), }", b"\0" * 12),
         "lacks the comma of a 1-tuple"),
        ("bad-foreign-file", "fortran-not-bool",
         npy_raw("{'descr': '<f4', 'fortran_order': 0, 'shape': (), }", b"\0" * 4),
         "neither True nor False"),
        ("bad-foreign-file", "bytes-after-dict",
         npy_raw("{'descr': '<f4', 'fortran_order': False, 'shape': (), } x", b"\0" * 4),
         "bytes after the dict"),
        ("foreign-limit", "rank-33",
         npy_raw("{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % ("1, " * 33)),
         "more than 32 dimensions"),
        ("foreign-limit", "shape-overflow",
         npy_raw("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }"),
         "overflows"),
        ("unsupported-foreign", "fortran", npy_bytes(np.asfortranarray(arrays["f32"])), "Fortran"),
        ("unsupported-foreign", "big-endian", npy_bytes(arrays["f32"].astype(">f4")), "big-endian"),
        ("unsupported-foreign", "unicode", npy_bytes(np.array(["ab", "c"])), "no metatensor equivalent"),
        ("unsupported-foreign", "structured",
         npy_bytes(np.zeros(2, dtype=[("a", "<i4"), ("b", "<f4")])), "structured"),
        ("bad-foreign-file", "truncated-data", good[:-1], "truncated: the data is 11 bytes"),
        ("bad-foreign-file", "trailing-data", good + b"\0", "trailing bytes"),
    ]
    for code, slug, data, text in bad_npy:
        put("%s--%s.npy" % (code, slug), data)
        expect_error("%s--%s.npy" % (code, slug), code, text)

    # ---- .npz written by numpy, and archives built here (checked by Python's zipfile)
    b = io.BytesIO()
    np.savez(b, **arrays)
    put("good--savez.npz", b.getvalue())
    expect_tensors("good--savez.npz", arrays)
    b = io.BytesIO()
    np.savez(b)
    put("good--savez-empty.npz", b.getvalue())
    expect_tensors("good--savez-empty.npz", {})
    two = {"x": small, "y": arrays["u8"]}
    members = [{"name": k + ".npy", "data": npy_bytes(v)} for k, v in two.items()]
    z64 = zip_archive(members, zip64=True)
    check_zip(z64, two)
    put("good--zip64-records.npz", z64)
    expect_tensors("good--zip64-records.npz", two)

    b = io.BytesIO()
    np.savez_compressed(b, a=small)
    xs = npy_bytes(small)
    xm = {"name": "x.npy", "data": xs}
    cd_entry_size = 46 + 5
    many = zip_archive([xm])
    # 1,000 central directory entries naming the one member: a tiny file, a huge conversion.
    one = many[:-22 - cd_entry_size]
    cd = many[len(one):-22]
    many = one + cd * 1000 + struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, 1000, 1000,
                                         len(cd) * 1000, len(one), 0)
    nested_inner = zip_archive([{"name": "b.npy", "data": xs}])[:30 + 5 + len(xs)]
    outer_data = nested_inner + b"\0" * 8
    nested = zip_archive([{"name": "a.npy", "data": outer_data}, {"name": "b.npy", "local_at": 0 + 30 + 5}])
    bad_npz = [
        ("bad-foreign-file", "too-short", b"PK\x05\x06", "too short for a zip archive"),
        ("bad-foreign-file", "not-zip", npy_bytes(arrays["f32"]), "not a zip archive"),
        ("unsupported-foreign", "savez-compressed", b.getvalue(), "compressed with deflate"),
        ("foreign-overlap", "1000-entries-one-member", many, "overlaps member 'x.npy'"),
        ("foreign-overlap", "member-inside-member", nested, "overlaps member 'a.npy'"),
        ("bad-foreign-file", "duplicate-name",
         zip_archive([xm, dict(xm)]), "appears twice"),
        ("unsupported-foreign", "not-npy", zip_archive([{"name": "x.txt", "data": xs}]),
         "is not a .npy array"),
        ("unsupported-foreign", "encrypted", zip_archive([dict(xm, flags=1)]), "is encrypted"),
        ("unsupported-foreign", "bzip2", zip_archive([dict(xm, method=12)]), "compression method 12"),
        ("bad-foreign-file", "stored-sizes-differ", zip_archive([dict(xm, usize=len(xs) + 1)]),
         "sizes differ"),
        ("bad-foreign-file", "local-offset-past-cd", zip_archive([dict(xm, cd_local=10**6)]),
         "is not before the central directory"),
        ("bad-foreign-file", "bad-local-signature", zip_archive([dict(xm, local_sig=b"PK\x03\x05")]),
         "no local file header"),
        ("bad-foreign-file", "local-method-differs", zip_archive([dict(xm, local_method=8)]),
         "disagree on the method"),
        ("bad-foreign-file", "local-name-differs", zip_archive([dict(xm, local_name="y.npy")]),
         "local header names it 'y.npy'"),
        ("bad-foreign-file", "data-into-cd", zip_archive([dict(xm, csize=len(xs) + 100, usize=len(xs) + 100)]),
         "runs into the central directory"),
        ("bad-foreign-file", "cd-past-eocd", zip_archive([xm], eocd_over={"size": 4000}),
         "runs past the end of central directory record"),
        ("bad-foreign-file", "entries-cannot-fit", zip_archive([xm], eocd_over={"n": 50, "n_disk": 50}),
         "cannot fit a central directory"),
        ("unsupported-foreign", "multi-disk", zip_archive([xm], eocd_over={"disk": 1}), "multi-disk"),
        ("unsupported-foreign", "member-on-disk-2", zip_archive([dict(xm, disk=2)]), "another disk"),
        ("bad-foreign-file", "ffffffff-without-zip64",
         zip_archive([dict(xm, cd_usize=0xFFFFFFFF, cd_csize=0xFFFFFFFF)]), "no zip64 extra field"),
        ("bad-foreign-file", "zip64-eocd-values-without-locator",
         zip_archive([xm], eocd_over={"at": 0xFFFFFFFF}), "without a zip64 end of central directory locator"),
        ("foreign-limit", "zip64-too-many-entries",
         zip_archive([xm], zip64=True, z64_over={"n": 70000, "n_disk": 70000}), "over the cap"),
        ("bad-foreign-file", "extra-header-truncated", zip_archive([dict(xm, extra=b"\x01\x00")]),
         "extra field header is truncated"),
        ("bad-foreign-file", "zip64-extra-lacks-size",
         zip_archive([dict(xm, cd_usize=0xFFFFFFFF, extra=struct.pack("<HH", 1, 0))]),
         "zip64 extra field lacks the uncompressed size"),
        ("bad-foreign-file", "zip64-extra-oob-repro", open(REPRO, "rb").read(),
         "runs past the entry's 4-byte extra area"),
        ("unsupported-foreign", "member-fortran",
         zip_archive([{"name": "f.npy", "data": npy_bytes(np.asfortranarray(arrays["f32"]))}]),
         "member 'f.npy': Fortran"),
        ("bad-foreign-file", "member-truncated-npy",
         zip_archive([{"name": "t.npy", "data": xs[:-2]}]), "member 't.npy': truncated"),
    ]
    for code, slug, data, text in bad_npz:
        put("%s--%s.npz" % (code, slug), data)
        expect_error("%s--%s.npz" % (code, slug), code, text)

    # ---- .safetensors from the writer above
    st = {k: v for k, v in arrays.items() if v.dtype.type in NP_TO_ST}
    meta = {"format": "pt", "note": "h\u00e9 w\u00f6rld"}
    put("good--st-basic.safetensors", safetensors_of(st, meta))
    expect_tensors("good--st-basic.safetensors", st)
    for k, v in meta.items():
        manifest.append("M good--st-basic.safetensors %s %s" % (k, v))
    put("good--st-no-tensors.safetensors", safetensors({}))
    expect_tensors("good--st-no-tensors.safetensors", {})
    # bf16 has no numpy dtype: the expected bytes are the upper halves of float32s.
    bf = (np.array([1.5, -2.0, 3.25], dtype="<f4").view("<u4") >> 16).astype("<u2").tobytes()
    put("good--st-bf16.safetensors",
        safetensors({"w": {"dtype": "BF16", "shape": [3], "data_offsets": [0, 6]}}, None, bf))
    manifest.append("N good--st-bf16.safetensors 1")
    manifest.append("T good--st-bf16.safetensors w bf16 3 " + bf.hex())

    f12 = np.arange(3, dtype="<f4").tobytes()
    one = lambda **kw: {"w": dict({"dtype": "F32", "shape": [3], "data_offsets": [0, 12]}, **kw)}
    many = {"t%d" % i: {"dtype": "F32", "shape": [3], "data_offsets": [0, 12]} for i in range(1000)}
    bad_st = [
        ("bad-foreign-file", "too-short", b"\x08\0\0\0", "too short for the 8-byte header length"),
        ("bad-foreign-file", "header-past-end", struct.pack("<Q", 1000) + b"{}", "runs past the end of the file"),
        ("foreign-limit", "header-over-cap", struct.pack("<Q", 200000000) + b"{}", "over the cap of 100000000"),
        ("bad-foreign-file", "not-json", safetensors({}, raw_header=b"{abc"), "not valid JSON"),
        ("bad-foreign-file", "not-utf8", safetensors({}, raw_header=b'{"\xff": 1}'), "not valid JSON"),
        ("bad-foreign-file", "duplicate-key",
         safetensors({}, raw_header=b'{"a": {}, "a": {}}'), "not valid JSON"),
        ("bad-foreign-file", "not-object-start", safetensors({}, raw_header=b"[1]"), "does not start with '{'"),
        ("bad-foreign-file", "float-offsets",
         safetensors(one(data_offsets=[0.0, 12.0]), None, f12), "'data_offsets' holds 0.0"),
        ("bad-foreign-file", "negative-offset",
         safetensors(one(data_offsets=[-4, 8]), None, f12), "'data_offsets' holds -4"),
        ("bad-foreign-file", "huge-offset",
         safetensors(one(data_offsets=[0, 2**70]), None, f12), "not valid JSON"),
        ("bad-foreign-file", "three-offsets",
         safetensors(one(data_offsets=[0, 12, 12]), None, f12), "not an array of two integers"),
        ("bad-foreign-file", "end-before-begin",
         safetensors(one(data_offsets=[12, 0]), None, f12), "end before they begin"),
        ("bad-foreign-file", "past-buffer",
         safetensors(one(data_offsets=[4, 16]), None, f12), "run past the data buffer of 12 bytes"),
        ("bad-foreign-file", "size-mismatch",
         safetensors(one(shape=[2, 3]), None, f12), "x shape needs 24"),
        ("unsupported-foreign", "dtype-f4",
         safetensors(one(dtype="F4"), None, f12), "dtype 'F4' has no metatensor equivalent"),
        ("bad-foreign-file", "dtype-not-string",
         safetensors(one(dtype=4), None, f12), "'dtype' is not a string"),
        ("bad-foreign-file", "lacks-shape",
         safetensors({"w": {"dtype": "F32", "data_offsets": [0, 12]}}, None, f12), "entry lacks"),
        ("bad-foreign-file", "extra-key",
         safetensors(one(extra=1), None, f12), "entry has key 'extra'"),
        ("bad-foreign-file", "float-dim",
         safetensors(one(shape=[3.0]), None, f12), "'shape' holds 3.0"),
        ("bad-foreign-file", "shape-not-array",
         safetensors(one(shape=3), None, f12), "'shape' is not an array"),
        ("foreign-limit", "rank-33",
         safetensors(one(shape=[1] * 33), None, f12), "more than 32 dimensions"),
        ("foreign-limit", "shape-overflow",
         safetensors(one(shape=[2**40, 2**40]), None, f12), "shape overflows"),
        ("bad-foreign-file", "entry-not-object", safetensors({"w": [1, 2]}, None, f12), "entry is not a JSON object"),
        ("bad-foreign-file", "metadata-not-string",
         safetensors(one(), {"k": 1}, f12), "__metadata__ 'k' is 1, not a string"),
        ("bad-foreign-file", "metadata-not-object",
         safetensors(one(), None, f12, raw_header=json.dumps(dict(one(), __metadata__=[1])).encode()),
         "__metadata__ is not a JSON object"),
        ("foreign-overlap", "1000-tensors-one-range", safetensors(many, None, f12), "overlap tensor"),
        ("foreign-overlap", "partial-overlap",
         safetensors({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                      "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}, None, f12),
         "tensor 'b': data_offsets [4, 12] overlap tensor 'a' [0, 8]"),
        ("bad-foreign-file", "gap",
         safetensors({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                      "b": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}}, None, f12),
         "leave a gap after byte 4"),
        ("bad-foreign-file", "trailing-data", safetensors(one(), None, f12 + b"\0" * 4),
         "the data buffer has 16 bytes but the tensors use 12"),
        ("bad-foreign-file", "truncated", safetensors_of(st, meta)[:-7], "run past the data buffer"),
    ]
    for code, slug, data, text in bad_st:
        put("%s--%s.safetensors" % (code, slug), data)
        expect_error("%s--%s.safetensors" % (code, slug), code, text)

    with open(os.path.join(out_dir, "expected.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(manifest) + "\n")


if __name__ == "__main__":
    main()
