#!/usr/bin/env python3
"""The H200 peer of bench_conv: the same layers (batch 1 or --batch N, f32, TF32 off) through
torch's conv2d (cuDNN), timed with CUDA events over many back-to-back launches.

    python3 bench/compute/conv_torch.py [--batch N]   # on the GPU machine, beside bench_conv
"""
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--batch", type=int, default=1)
parser.add_argument("--reps", type=int, default=500)
args = parser.parse_args()

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.backends.cudnn.benchmark = True

# name, C, H, W, M, k, stride, pad, group: the table in bench/compute/conv.cpp
LAYERS = [
    ("resnet_stem_7x7s2", 3, 224, 224, 64, 7, 2, 3, 1),
    ("resnet_3x3_64", 64, 56, 56, 64, 3, 1, 1, 1),
    ("resnet_1x1_256to64", 256, 56, 56, 64, 1, 1, 0, 1),
    ("resnet_1x1_64to256", 64, 56, 56, 256, 1, 1, 0, 1),
    ("resnet_3x3_512_7x7", 512, 7, 7, 512, 3, 1, 1, 1),
    ("mbv2_1x1_24to144", 24, 56, 56, 144, 1, 1, 0, 1),
    ("mbv2_dw3x3_144", 144, 56, 56, 144, 3, 1, 1, 144),
    ("mbv2_1x1_144to24", 144, 56, 56, 24, 1, 1, 0, 1),
]

print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name()}, batch {args.batch}")
total = 0.0
for name, C, H, W, M, k, s, p, g in LAYERS:
    x = torch.randn(args.batch, C, H, W, device="cuda")
    w = torch.randn(M, C // g, k, k, device="cuda")
    for _ in range(20):
        torch.nn.functional.conv2d(x, w, stride=s, padding=p, groups=g)
    torch.cuda.synchronize()
    reps = args.reps
    a = torch.cuda.Event(enable_timing=True)
    b = torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(reps):
        torch.nn.functional.conv2d(x, w, stride=s, padding=p, groups=g)
    b.record()
    torch.cuda.synchronize()
    ms = a.elapsed_time(b) / reps
    total += ms
    print(f"{name:22s} torch {ms:.4f} ms")
print(f"{'total':22s} torch {total:.4f} ms")
