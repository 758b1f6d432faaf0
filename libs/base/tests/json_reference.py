#!/usr/bin/env python3
"""Writes the reference vectors json_test.cpp checks alknet::base::json against.

Python's json module is the independent reference. The script generates JSON texts (random
documents written with random whitespace and escapes, then byte-level mutations of them, plus
UTF-8 edge cases), parses each with Python under alknet's documented rules, and writes one line
per case:

    <input hex> !                                   the text must be rejected
    <input hex> <canon> <compact hex> <indent hex>  the value, and the writer's two outputs

alknet's rules on top of json.loads: the text must be strict UTF-8 without a byte order mark;
NaN/Infinity are not JSON; a lone surrogate escape is an error; a duplicate key is an error (the
default); a number too large for a double is an error; an integer outside [-2^63, 2^64) becomes
the nearest double. <canon> spells the value exactly: n t f, i<decimal>, d<IEEE bits in hex>,
s<UTF-8 hex>, [a,b], {key:value} with keys as s<hex>. The writer's expected outputs are
json.dumps(..., ensure_ascii=False) with separators (",", ":") and with indent=2.

It also writes lines "u <bytes hex> <replaced hex>": byte strings and their UTF-8 decoding with
errors="replace", which the writer's U+FFFD substitution must match.

Usage: json_reference.py OUT_FILE [--cases N]
"""
import json
import math
import random
import struct
import sys

INT_MIN, UINT_MAX = -(2 ** 63), 2 ** 64 - 1


class Rejected(Exception):
    pass


def reject(*_):
    raise Rejected()


def parse_float(text):
    f = float(text)
    if math.isinf(f):
        raise Rejected()
    return f


def parse_int(text):
    i = int(text)
    if INT_MIN <= i <= UINT_MAX:
        return i
    try:
        return float(i)
    except OverflowError:
        raise Rejected()


def check_strings(v):
    if isinstance(v, str):
        v.encode("utf-8")  # raises on a lone surrogate
    elif isinstance(v, list):
        if v and isinstance(v[0], tuple):  # object pairs
            for k, x in v:
                check_strings(k)
                check_strings(x)
        else:
            for x in v:
                check_strings(x)


def reference_parse(data):
    """The value alknet must produce (as Python objects, objects as pair lists), or Rejected."""
    try:
        text = data.decode("utf-8")
        if text.startswith("\ufeff"):
            raise Rejected()
        v = json.loads(text, parse_constant=reject, parse_float=parse_float,
                       parse_int=parse_int, object_pairs_hook=Pairs)
        check_strings(v)
        return v
    except (ValueError, UnicodeError, RecursionError, Rejected):
        raise Rejected()


class Pairs(list):
    """An object: a list of (key, value) pairs in text order."""

    def __init__(self, pairs):
        if len({k for k, _ in pairs}) != len(pairs):
            raise Rejected()
        super().__init__(pairs)


def canon(v):
    if v is None:
        return "n"
    if v is True:
        return "t"
    if v is False:
        return "f"
    if isinstance(v, int):
        return "i%d" % v
    if isinstance(v, float):
        return "d" + struct.pack(">d", v).hex()
    if isinstance(v, str):
        return "s" + v.encode("utf-8").hex()
    if isinstance(v, Pairs):
        return "{" + ",".join(canon(k) + ":" + canon(x) for k, x in v) + "}"
    return "[" + ",".join(canon(x) for x in v) + "]"


def as_model(v):
    if isinstance(v, Pairs):
        return {k: as_model(x) for k, x in v}
    if isinstance(v, list):
        return [as_model(x) for x in v]
    return v


# ---- Generating texts

def random_number(rng):
    kind = rng.randrange(10)
    if kind == 0:
        return str(rng.choice([0, 1, -1, 2 ** 53, 2 ** 63 - 1, -(2 ** 63), 2 ** 63, UINT_MAX,
                               UINT_MAX + 1, -(2 ** 63) - 1, 10 ** 30, -(10 ** 25)]))
    if kind == 1:
        return str(rng.randrange(-10 ** rng.randrange(1, 25), 10 ** rng.randrange(1, 25)))
    if kind == 2:
        return repr(rng.uniform(-1e6, 1e6))
    if kind == 3:
        return repr(struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0])
    if kind == 4:
        return rng.choice(["-0", "-0.0", "0.0", "0e0", "1E+2", "1e-2", "5e-324", "2.4e-324",
                           "1.7976931348623157e308", "1.7976931348623159e308", "1e400", "-1e400",
                           "1e-400", "0.1", "0.30000000000000004", "123456789012345678901234567890",
                           "9007199254740993", "1.5e300", "2.2250738585072014e-308"])
    # Hand-built forms: digits, an optional fraction and exponent.
    s = rng.choice(["", "-"]) + str(rng.randrange(0, 10 ** rng.randrange(1, 20)))
    if rng.random() < 0.6:
        s += "." + "".join(rng.choice("0123456789") for _ in range(rng.randrange(1, 20)))
    if rng.random() < 0.5:
        s += rng.choice("eE") + rng.choice(["", "+", "-"]) + str(rng.randrange(0, 400))
    return s


CHARS = ["a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\x00", "\x01", "\x1f", "\x7f", "\u00e9",
         "\u20ac", "\u2028", "\ufeff", "\uffff", "\U0001f600", "\U0010ffff"]
LONE_SURROGATES = ["\ud800", "\udbff", "\udc00", "\udfff"]


def random_string(rng):
    out = ['"']
    for _ in range(rng.randrange(0, 12)):
        c = rng.choice(LONE_SURROGATES if rng.random() < 0.02 else CHARS)
        cp = ord(c)
        how = rng.randrange(4)
        if 0xD800 <= cp <= 0xDFFF:
            out.append("\\u%04x" % cp)  # a lone surrogate: rejected
        elif how == 0 or c in "\"\\" or cp < 0x20:
            if cp > 0xFFFF:
                v = cp - 0x10000
                out.append("\\u%04X\\u%04x" % (0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF)))
            else:
                short = {"\"": "\\\"", "\\": "\\\\", "/": "\\/", "\n": "\\n", "\t": "\\t"}
                out.append(short[c] if c in short and how != 0 else "\\u%04x" % cp)
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def space(rng):
    return "".join(rng.choice(" \t\n\r") for _ in range(rng.choice([0, 0, 0, 1, 2])))


def random_text(rng, depth=0):
    kind = rng.randrange(8 if depth < 6 else 5)
    if kind == 0:
        return rng.choice(["true", "false", "null"])
    if kind in (1, 2):
        return random_number(rng)
    if kind in (3, 4):
        return random_string(rng)
    if kind == 5 or kind == 6:
        items = [space(rng) + random_text(rng, depth + 1) + space(rng)
                 for _ in range(rng.randrange(0, 5))]
        return "[" + (",".join(items) if items else space(rng)) + "]"
    keys = [random_string(rng) if rng.random() < 0.3 else '"k%d"' % rng.randrange(8)
            for _ in range(rng.randrange(0, 5))]
    members = [space(rng) + k + space(rng) + ":" + space(rng) + random_text(rng, depth + 1)
               + space(rng) for k in keys]
    return "{" + (",".join(members) if members else space(rng)) + "}"


def mutate(rng, data):
    data = bytearray(data)
    for _ in range(rng.randrange(1, 4)):
        at = rng.randrange(len(data) + 1)
        op = rng.randrange(4)
        if op == 0 and at < len(data):
            del data[at]
        elif op == 1:
            data[at:at] = rng.choice([b",", b"]", b"}", b"[", b"{", b'"', b"\\", b":", b"0",
                                      b"-", b".", b"e", b" ", b"\x00", b"\xff", b"\xc3", b"t"])
        elif op == 2 and at < len(data):
            data[at] = rng.randrange(256)
        else:
            data = data[:at]
    return bytes(data)


UTF8_EDGES = [b"\xc0\x80", b"\xc1\xbf", b"\xc2\x80", b"\xdf\xbf", b"\xe0\x80\x80", b"\xe0\x9f\xbf",
              b"\xe0\xa0\x80", b"\xed\x9f\xbf", b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xee\x80\x80",
              b"\xef\xbf\xbf", b"\xf0\x8f\xbf\xbf", b"\xf0\x90\x80\x80", b"\xf4\x8f\xbf\xbf",
              b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xff", b"\x80", b"\xe2\x82",
              b"\xf0\x9f\x98", b"\xef\xbb\xbf"]


def main():
    out_path = sys.argv[1]
    n = int(sys.argv[sys.argv.index("--cases") + 1]) if "--cases" in sys.argv else 3000
    rng = random.Random(20240611)
    texts = [b"", b" ", b"\xef\xbb\xbf{}", b"[]", b"{}", b"NaN", b"[Infinity]", b"-Infinity"]
    texts += [b'"' + e + b'"' for e in UTF8_EDGES] + [b'["a' + e + b'b", 1]' for e in UTF8_EDGES]
    while len(texts) < n:
        t = random_text(rng).encode("utf-8", "surrogatepass")
        texts.append(t)
        texts.append(mutate(rng, t))
    with open(out_path, "w") as f:
        valid = 0
        for t in texts:
            try:
                v = reference_parse(t)
            except Rejected:
                f.write("%s !\n" % (t.hex() or "-"))
                continue
            valid += 1
            model = as_model(v)
            compact = json.dumps(model, ensure_ascii=False, separators=(",", ":"))
            indented = json.dumps(model, ensure_ascii=False, indent=2)
            f.write("%s %s %s %s\n" % (t.hex() or "-", canon(v), compact.encode().hex(),
                                       indented.encode().hex()))
        for _ in range(500):
            b = bytes(rng.choice([rng.randrange(256), rng.randrange(0x80, 0x100), 0x41])
                      for _ in range(rng.randrange(1, 8)))
            if rng.random() < 0.3:
                b = rng.choice(UTF8_EDGES) + b
            f.write("u %s %s\n" % (b.hex(), b.decode("utf-8", "replace").encode().hex()))
    print("%d texts (%d valid) written to %s" % (len(texts), valid, out_path))


if __name__ == "__main__":
    main()
