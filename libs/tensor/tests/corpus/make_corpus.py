#!/usr/bin/env python3
"""Writes the metatensor conformance corpus (docs/metatensor-format.md section 8).

An encoder written from the spec alone (standard library only), independent of the C++ and
Rust code, so the corpus checks both readers against a third reading of the spec. Each bad
file breaks exactly one rule; its name starts with the rule number the readers must report
("r07-bad-alignment.mtf" -> rule 7). good-*.mtf must be accepted in strict mode with checksums.

Run: python3 make_corpus.py [OUT_DIR]   (default: the directory of this script)
     python3 make_corpus.py --check     (ctest: the checked-in files are up to date)
"""
import os
import struct
import sys

MAGIC = bytes([0x89, 0x4D, 0x54, 0x46, 0x0D, 0x0A, 0x1A, 0x0A])


def _crc_table():
    table = []
    for b in range(256):
        c = b
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
        table.append(c)
    return table


_TABLE = _crc_table()


def crc32c(data, crc=0):
    c = crc ^ 0xFFFFFFFF
    for b in data:
        c = (c >> 8) ^ _TABLE[(c ^ b) & 0xFF]
    return c ^ 0xFFFFFFFF


def align_up(v, a):
    return (v + a - 1) // a * a


# dtype id -> (elements per block, bytes per block); spec table 5.1
DTYPES = {1: (1, 1), 2: (1, 1), 3: (1, 2), 4: (1, 4), 5: (1, 8), 6: (1, 1), 7: (1, 2), 8: (1, 4),
          9: (1, 8), 10: (1, 2), 11: (1, 2), 12: (1, 4), 13: (1, 8), 14: (1, 8), 15: (1, 16),
          16: (1, 1), 17: (1, 1), 18: (1, 1), 19: (1, 1), 20: (2, 1), 21: (2, 1), 22: (32, 34),
          23: (32, 18)}


def nbytes(dtype, shape):
    n = 1
    for d in shape:
        n *= d
    per, size = DTYPES[dtype]
    return (n + per - 1) // per * size


def tensor(name, dtype, shape, data=None, checksum=True, over=None):
    if data is None:
        data = bytes((i * 7 + 3) & 0xFF for i in range(nbytes(dtype, shape)))
    return dict(name=name.encode() if isinstance(name, str) else name, dtype=dtype, shape=shape,
                data=data, checksum=checksum, over=over or {})


def meta(key, type_, payload, elem=0, **over):
    return dict(key=key.encode() if isinstance(key, str) else key, type=type_, elem=elem,
                payload=payload, over=over)


def build(tensors, metadata=(), alignment=256, placement="after", trailer=False, pre=None,
          hdr=None, pad_byte=0, index_crc_xor=0, pre_crc_xor=0, trailer_over=None, tail=b""):
    """Assembles a file; the keyword overrides poke single fields after layout."""
    pre = pre or {}
    hdr = hdr or {}
    strings = bytearray()
    dims = []
    records = []
    data = bytearray()
    cursor = 0
    for t in tensors:
        off = align_up(cursor, alignment)
        data += bytes([pad_byte]) * (off - cursor)
        data += t["data"]
        cursor = off + len(t["data"])
        r = dict(offset=off, length=len(t["data"]), name_offset=len(strings),
                 name_length=len(t["name"]), dims_index=len(dims), dtype=t["dtype"],
                 rank=len(t["shape"]), flags=1 if t["checksum"] else 0,
                 checksum=crc32c(t["data"]) if t["checksum"] else 0, reserved=0)
        strings += t["name"]
        dims += t["shape"]
        r.update(t["over"])
        records.append(r)
    rec_bytes = b"".join(struct.pack("<QQIIIHBBII", r["offset"], r["length"], r["name_offset"],
                                     r["name_length"], r["dims_index"], r["dtype"], r["rank"],
                                     r["flags"], r["checksum"], r["reserved"]) for r in records)
    meta_bytes = bytearray()
    for m in metadata:
        e = dict(length=16 + len(m["payload"]), key_offset=len(strings), key_length=len(m["key"]),
                 type=m["type"], elem=m["elem"], reserved=0)
        e.update(m["over"])
        strings += m["key"]
        meta_bytes += struct.pack("<IIIBBH", e["length"], e["key_offset"], e["key_length"],
                                  e["type"], e["elem"], e["reserved"]) + m["payload"]
    h = dict(magic=b"MTFI", tensor_count=len(records), meta_count=len(metadata),
             dims_count=len(dims), meta_bytes=len(meta_bytes), string_bytes=len(strings),
             r0=0, r1=0)
    h.update(hdr)
    index = (h["magic"] + struct.pack("<IIIIIII", h["tensor_count"], h["meta_count"],
                                      h["dims_count"], h["meta_bytes"], h["string_bytes"],
                                      h["r0"], h["r1"])
             + rec_bytes + struct.pack("<%dQ" % len(dims), *dims) + meta_bytes + strings)
    index += struct.pack("<I", crc32c(index) ^ index_crc_xor)
    data_align = max(4096, alignment)
    p = dict(magic=MAGIC, major=1, minor=0, alignment=alignment, required=0, optional=0,
             reserved=0, data_length=len(data))
    if placement == "before":
        p.update(index_offset=64, index_length=len(index),
                 data_offset=align_up(64 + len(index), data_align))
    else:
        p.update(data_offset=data_align, index_length=len(index),
                 index_offset=align_up(data_align + len(data), 8))
    real = dict(p)
    if trailer:
        p.update(required=1, index_offset=0, index_length=0, data_length=0)
    p.update(pre)

    def preamble():
        b = p["magic"] + struct.pack("<HHIIIQQQQI", p["major"], p["minor"], p["alignment"],
                                     p["required"], p["optional"], p["index_offset"],
                                     p["index_length"], p["data_offset"], p["data_length"],
                                     p["reserved"])
        return b + struct.pack("<I", crc32c(b) ^ pre_crc_xor)

    out = bytearray(preamble())
    if placement == "before":
        out += index
        out += bytes(real["data_offset"] - len(out))
        out += data
    else:
        out += bytes(real["data_offset"] - len(out))
        out += data
        out += bytes(real["index_offset"] - len(out))
        out += index
    if trailer:
        t = dict(index_offset=real["index_offset"], index_length=len(index),
                 data_length=len(data), magic=b"MTFT", crc_xor=0)
        t.update(trailer_over or {})
        tb = struct.pack("<QQQ", t["index_offset"], t["index_length"], t["data_length"])
        out += tb + struct.pack("<I", crc32c(tb) ^ t["crc_xor"]) + t["magic"]
    return bytes(out) + tail


def base_tensors():
    return [tensor("a", 12, [2, 3]), tensor("b", 2, [5], checksum=False)]


def base_meta():
    return [meta("name", 5, b"tiny")]


def good_files():
    all_meta = [
        meta("flag", 1, b"\x01"), meta("i", 2, struct.pack("<q", -5)),
        meta("u", 3, struct.pack("<Q", 2**63)), meta("f", 4, struct.pack("<d", 0.5)),
        meta("s", 5, "h\u00e9llo".encode()), meta("raw", 6, b"\x00\xff"),
        meta("bools", 7, b"\x01\x00", elem=1), meta("ints", 7, struct.pack("<2q", -1, 2), elem=2),
        meta("uints", 7, struct.pack("<Q", 7), elem=3), meta("floats", 7, struct.pack("<d", 1.5), elem=4),
        meta("strs", 7, struct.pack("<II", 2, 1) + b"x" + struct.pack("<I", 0), elem=5),
        meta("future", 200, b"skipped by length"),
    ]
    every_dtype = [tensor("t%d" % d, d, [3, 64]) for d in sorted(DTYPES)]
    return {
        "good-basic.mtf": build(base_tensors(), base_meta()),
        "good-index-first.mtf": build(base_tensors(), base_meta(), placement="before"),
        "good-trailer.mtf": build(base_tensors(), base_meta(), trailer=True),
        "good-empty.mtf": build([], []),
        "good-metadata.mtf": build([tensor("scalar", 13, [])], all_meta),
        "good-every-dtype.mtf": build(every_dtype, alignment=64),
        "good-zero-length.mtf": build([tensor("z", 12, [0, 4]), tensor("y", 6, [3]),
                                       tensor("x", 12, [4, 0])]),
        "good-big-alignment.mtf": build(base_tensors(), alignment=1 << 13, placement="before"),
    }


def bad_files():
    g = build(base_tensors(), base_meta())
    return {
        "r01-file-too-small.mtf": g[:10],
        "r02-bad-magic.mtf": build(base_tensors(), pre=dict(magic=b"PK\x03\x04MTF\n")),
        "r03-unsupported-version.mtf": build(base_tensors(), pre=dict(major=2)),
        "r04-preamble-checksum.mtf": build(base_tensors(), pre_crc_xor=1),
        "r05-unknown-required-feature.mtf": build(base_tensors(), pre=dict(required=1 << 7)),
        "r06-preamble-reserved.mtf": build(base_tensors(), pre=dict(reserved=1)),
        "r07-bad-alignment.mtf": build(base_tensors(), alignment=96),
        "r08-bad-trailer.mtf": build(base_tensors(), trailer=True, trailer_over=dict(magic=b"MTFX")),
        "r09-index-too-large.mtf": build(base_tensors(), pre=dict(index_length=1 << 40)),
        "r10-data-misaligned.mtf": build(base_tensors(), pre=dict(data_offset=2048)),
        "r11-region-out-of-file.mtf": build(base_tensors(), pre=dict(data_length=1 << 20)),
        "r12-regions-overlap.mtf": build(base_tensors(), pre=dict(index_offset=4096)),
        "r13-regions-not-covering.mtf": build(base_tensors(), tail=bytes(8)),
        "r14-bad-index-header.mtf": build(base_tensors(), hdr=dict(magic=b"MTFX")),
        "r15-count-limit.mtf": build(base_tensors(), hdr=dict(tensor_count=1 << 21)),
        "r16-index-checksum.mtf": build(base_tensors(), index_crc_xor=1),
        "r17-record-reserved.mtf": build([tensor("a", 12, [2, 3], over=dict(flags=0x81))]),
        "r18-unknown-dtype.mtf": build([tensor("a", 12, [2, 3], over=dict(dtype=999))]),
        "r19-rank-limit.mtf": build([tensor("a", 12, [1] * 33)]),
        "r20-dims-out-of-bounds.mtf": build([tensor("a", 12, [2, 3], over=dict(dims_index=100))]),
        "r21-name-out-of-bounds.mtf": build([tensor("a", 12, [2, 3], over=dict(name_offset=1000))]),
        "r22-bad-name.mtf": build([tensor(b"\xff\xfe", 12, [2, 3])]),
        "r23-duplicate-name.mtf": build([tensor("a", 12, [2, 3]), tensor("a", 2, [5])]),
        "r24-arithmetic-overflow.mtf": build([tensor("a", 6, [1 << 33, 1 << 33], data=b"")]),
        "r25-byte-length-mismatch.mtf": build([tensor("a", 12, [2, 3], data=bytes(20))]),
        "r26-tensor-misaligned.mtf": build([tensor("a", 12, [2, 3]), tensor("b", 2, [5], over=dict(offset=320))]),
        # c is empty, so listing it at offset 0 after b overlaps nothing: only the order is wrong.
        "r27-records-unsorted.mtf": build([tensor("a", 12, [2, 3]), tensor("b", 2, [5]),
                                           tensor("c", 2, [0], over=dict(offset=0))]),
        "r28-tensors-overlap.mtf": build([tensor("a", 12, [2, 3]), tensor("b", 2, [5], over=dict(offset=0))]),
        "r29-padding-too-long.mtf": build([tensor("a", 12, [2, 3]), tensor("b", 2, [5], over=dict(offset=512))]),
        "r30-tensor-out-of-data.mtf": _out_of_data(),
        "r31-nonzero-padding.mtf": build(base_tensors(), pad_byte=0xAA),
        "r32-bad-metadata-entry.mtf": build(base_tensors(), [meta("name", 5, b"tiny", length=8)]),
        "r33-bad-metadata-key.mtf": build(base_tensors(), [meta("", 5, b"tiny")]),
        "r34-duplicate-metadata-key.mtf": build(base_tensors(), [meta("k", 5, b"x"), meta("k", 2, bytes(8))]),
        "r35-bad-metadata-value.mtf": build(base_tensors(), [meta("flag", 1, b"\x02")]),
        "r36-tensor-checksum.mtf": build([tensor("a", 12, [2, 3], over=dict(checksum=1234))]),
    }


def _out_of_data():
    # Index first, data region declared (and present) 4 bytes short of tensor b's end.
    f = build(base_tensors(), placement="before", pre=dict(data_length=256 + 1))
    return f[:struct.unpack_from("<Q", f, 40)[0] + 256 + 1]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    files = {**good_files(), **bad_files()}
    if sys.argv[1:] == ["--check"]:
        # ctest: the checked-in corpus is exactly what this encoder writes.
        on_disk = sorted(n for n in os.listdir(here) if n.endswith(".mtf"))
        stale = [n for n in files if not os.path.exists(os.path.join(here, n))
                 or open(os.path.join(here, n), "rb").read() != files[n]]
        extra = [n for n in on_disk if n not in files]
        for n in stale + extra:
            print("corpus file out of date: %s (run make_corpus.py)" % n)
        print("%d passed, %d failed" % (len(files) - len(stale), len(stale) + len(extra)))
        return 1 if stale or extra else 0
    out = sys.argv[1] if len(sys.argv) > 1 else here
    os.makedirs(out, exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as fh:
            fh.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
