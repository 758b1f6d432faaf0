"""Pixel helpers shared by the desktop tests: a PNG decoder, a mismatch measure and the
triangle example's reference rasterisation (independent of alknet: pure Python)."""
import struct, zlib


def read_png(path):
    """Decodes an 8-bit RGBA PNG (any filter type): -> (w, h, bytes)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype == 6, "want 8-bit RGBA"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, out, stride = zlib.decompress(idat), bytearray(), w * 4
    prev = bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 4] if i >= 4 else 0
            b, c = prev[i], prev[i - 4] if i >= 4 else 0
            p = a + b - c
            pred = [0, a, b, (a + b) // 2,
                    a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c][f]
            line[i] = (line[i] + pred) & 0xFF
        out += line
        prev = line
    return w, h, bytes(out)


def mismatch(a, b, tol):
    n = sum(1 for i in range(0, len(a), 4) if max(abs(a[i + k] - b[i + k]) for k in range(3)) > tol)
    return n / (len(a) // 4)


def ref_triangle(w, h):
    """RGBA of the red triangle (0, .5), (-.5, -.5), (.5, -.5) on black: pixel centres inside it."""
    tri = [(0.0, 0.5), (-0.5, -0.5), (0.5, -0.5)]
    def inside(px, py):
        x, y = (px + 0.5) / w * 2 - 1, 1 - (py + 0.5) / h * 2
        s = [(tri[(i + 1) % 3][0] - tri[i][0]) * (y - tri[i][1]) - (tri[(i + 1) % 3][1] - tri[i][1]) * (x - tri[i][0]) for i in range(3)]
        return all(v >= 0 for v in s) or all(v <= 0 for v in s)
    ref = bytearray()
    for py in range(h):
        for px in range(w):
            ref += bytes([255, 0, 0, 255]) if inside(px, py) else bytes([0, 0, 0, 255])
    return ref
