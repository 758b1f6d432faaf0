#!/usr/bin/env python3
"""SHA-256 of 55-byte messages in Triton: the CUDA-side peer for bench_sha256's fixed-length
row on an NVIDIA GPU (one message per lane, one block each, the padding resolved when the
kernel is generated, as alknet's fixed-length kernel does). Digests are checked against
Python's hashlib on a sample. Needs torch with Triton (the H200 machine has both).

    python3 bench/compute/sha256_triton.py [--count N] [--block B] [--reps R]

Prints one line per block size: M hashes/s. The kernel text is generated (64 rounds with a
rolling 16-word schedule) into a temporary module because triton.jit reads its source."""
import argparse
import hashlib
import importlib.util
import math
import os
import sys
import tempfile


def primes(n):
    p = []
    c = 2
    while len(p) < n:
        if all(c % q for q in p if q * q <= c):
            p.append(c)
        c += 1
    return p


def frac_bits(x):
    return int((x - math.floor(x)) * (1 << 32)) & 0xFFFFFFFF


def constants():
    ps = primes(64)
    k = [frac_bits(q ** (1.0 / 3.0)) for q in ps]
    h0 = [frac_bits(math.sqrt(q)) for q in ps[:8]]
    # Checked against the FIPS 180-4 values' first and last entries.
    assert k[0] == 0x428A2F98 and k[63] == 0xC67178F2 and h0[0] == 0x6A09E667
    return k, h0


def kernel_source():
    # consts: K[0..63], H0[64..71], 72: 0xffffff00 (the tail word's three message bytes),
    # 73: 0x80 after them, 74: the bit length 440; loaded as uint32 scalars so no Python literal
    # above 2^31 meets a uint32 tensor.
    lines = [
        "import triton",
        "import triton.language as tl",
        "",
        "@triton.jit",
        "def rotr(x, n: tl.constexpr):",
        "    return (x >> n) | (x << (32 - n))",
        "",
        "@triton.jit",
        "def bswap(x):",
        "    return (x << 24) | ((x << 8) & 0xFF0000) | ((x >> 8) & 0xFF00) | (x >> 24)",
        "",
        "@triton.jit",
        "def sha256_55(data_ptr, consts_ptr, out_ptr, n, BLOCK: tl.constexpr):",
        "    idx = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)",
        "    m = idx < n",
        "    base = idx * 14",
    ]
    for i in range(13):
        lines.append(f"    w{i} = bswap(tl.load(data_ptr + base + {i}, mask=m, other=0)"
                     ".to(tl.uint32, bitcast=True))")
    lines.append("    tail_mask = tl.load(consts_ptr + 72).to(tl.uint32, bitcast=True)")
    lines.append("    pad = tl.load(consts_ptr + 73).to(tl.uint32, bitcast=True)")
    lines.append("    w13 = (bswap(tl.load(data_ptr + base + 13, mask=m, other=0)"
                 ".to(tl.uint32, bitcast=True)) & tail_mask) | pad")
    lines.append("    w14 = w0 ^ w0")
    lines.append("    w15 = w14 + tl.load(consts_ptr + 74).to(tl.uint32, bitcast=True)")
    for j, v in enumerate("abcdefgh"):
        lines.append(f"    h0_{v} = tl.load(consts_ptr + {64 + j}).to(tl.uint32, bitcast=True)")
        lines.append(f"    {v} = w14 + h0_{v}")
    for t in range(64):
        w = t % 16
        if t >= 16:
            w2, w7, w15 = (t + 14) % 16, (t + 9) % 16, (t + 1) % 16
            lines.append(
                f"    w{w} = (rotr(w{w2}, 17) ^ rotr(w{w2}, 19) ^ (w{w2} >> 10)) + w{w7} + "
                f"(rotr(w{w15}, 7) ^ rotr(w{w15}, 18) ^ (w{w15} >> 3)) + w{w}")
        lines.append(f"    k{t} = tl.load(consts_ptr + {t}).to(tl.uint32, bitcast=True)")
        lines.append(f"    t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g))"
                     f" + k{t} + w{w}")
        lines.append("    t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))")
        lines.append("    h = g")
        lines.append("    g = f")
        lines.append("    f = e")
        lines.append("    e = d + t1")
        lines.append("    d = c")
        lines.append("    c = b")
        lines.append("    b = a")
        lines.append("    a = t1 + t2")
    for j, v in enumerate("abcdefgh"):
        lines.append(f"    tl.store(out_ptr + idx * 8 + {j}, ({v} + h0_{v}).to(tl.int32, bitcast=True),"
                     " mask=m)")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=1 << 24)
    ap.add_argument("--block", default="128,256,512")
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    import torch

    k, h0 = constants()
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "sha256_triton_kernel.py")
    with open(path, "w") as f:
        f.write(kernel_source())
    spec = importlib.util.spec_from_file_location("sha256_triton_kernel", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    def s32(v):
        return v - (1 << 32) if v >= 1 << 31 else v

    consts = torch.tensor([s32(v) for v in k + h0 + [0xFFFFFF00, 0x80, 440]], dtype=torch.int32,
                          device="cuda")
    n = args.count
    gen = torch.Generator(device="cpu").manual_seed(1)
    raw = torch.randint(0, 256, (n, 56), dtype=torch.uint8, generator=gen)
    raw[:, 55] = 0
    data = raw.view(torch.int32).reshape(-1).to("cuda")
    out = torch.empty(n * 8, dtype=torch.int32, device="cuda")
    sample = list(range(0, n, max(1, n // 97)))
    for block in [int(b) for b in args.block.split(",")]:
        grid = ((n + block - 1) // block,)
        mod.sha256_55[grid](data, consts, out, n, BLOCK=block)
        torch.cuda.synchronize()
        got = out.view(n, 8).cpu()
        for i in sample:
            want = hashlib.sha256(bytes(raw[i, :55].tolist())).digest()
            words = [int(x) & 0xFFFFFFFF for x in got[i].tolist()]
            have = b"".join(w.to_bytes(4, "big") for w in words)
            if have != want:
                print(f"triton block {block}: digest mismatch at message {i}", file=sys.stderr)
                return 1
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(args.reps):
            mod.sha256_55[grid](data, consts, out, n, BLOCK=block)
        e.record()
        torch.cuda.synchronize()
        sec = s.elapsed_time(e) / 1e3 / args.reps
        print(f"triton sha256 55-byte, block {block}: {n / sec / 1e6:.1f} M hashes/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
