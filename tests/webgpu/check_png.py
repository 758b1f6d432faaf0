#!/usr/bin/env python3
"""Checks a PNG with an independent decoder (Python's zlib and struct, not our JS encoder).

Usage: check_png.py FILE WIDTH HEIGHT [X,Y=R,G,B,A ...]

Verifies the signature, every chunk CRC, the IHDR (size, 8-bit RGBA), inflates the IDAT
stream with zlib (which checks the Adler-32), undoes the row filters, and compares the listed
pixels. Exit status 1 with the reason on any mismatch.
"""
import struct
import sys
import zlib


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("not a PNG signature")
    pos, idat, ihdr, types = 8, b"", None, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        ctype = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(ctype + body) & 0xFFFFFFFF != crc:
            fail(f"chunk {ctype!r}: CRC mismatch")
        types.append(ctype.decode())
        if ctype == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif ctype == b"IDAT":
            idat += body
        pos += 12 + length
    if types[0] != "IHDR" or types[-1] != "IEND":
        fail(f"chunk order {types}")
    width, height, depth, color, _, _, interlace = ihdr
    if (depth, color, interlace) != (8, 6, 0):
        fail(f"expected 8-bit RGBA non-interlaced, got depth {depth} color type {color} interlace {interlace}")
    raw = zlib.decompress(idat)
    stride = width * 4
    if len(raw) != height * (stride + 1):
        fail(f"inflated {len(raw)} bytes, expected {height * (stride + 1)}")
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 4] if i >= 4 else 0
            b = prev[i]
            c = prev[i - 4] if i >= 4 else 0
            line[i] = (line[i] + (0, a, b, (a + b) // 2, paeth(a, b, c))[f]) & 0xFF
        rows.append(line)
        prev = line
    return width, height, rows, types


def main():
    path, want_w, want_h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    width, height, rows, types = decode(path)
    if (width, height) != (want_w, want_h):
        fail(f"size {width}x{height}, expected {want_w}x{want_h}")
    for spec in sys.argv[4:]:
        where, color = spec.split("=")
        x, y = map(int, where.split(","))
        want = list(map(int, color.split(",")))
        got = list(rows[y][x * 4:x * 4 + 4])
        if got != want:
            fail(f"pixel {x},{y} is {got}, expected {want}")
    print(f"ok: {width}x{height} RGBA, chunks {' '.join(types)}, {len(sys.argv) - 4} pixels as expected")


if __name__ == "__main__":
    main()
