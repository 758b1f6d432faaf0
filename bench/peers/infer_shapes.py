#!/usr/bin/python3
"""Writes shape-inferred copies of ONNX backend test models, for peers that need every
intermediate shape in value_info (wonnx: its docs ask for `nnx infer` / onnx shape inference
before loading). Nothing else in the model changes.

    /usr/bin/python3 bench/peers/infer_shapes.py OUT_DIR DIR...
OUT_DIR/<folder>/<test>/model.onnx for each DIR/<test>/model.onnx (folder = DIR's name).
A model that shape inference rejects is copied unchanged (the peer then sees the original).
"""
import os
import shutil
import sys

import onnx
from onnx import shape_inference


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    out, dirs = sys.argv[1], sys.argv[2:]
    done = failed = 0
    for d in dirs:
        folder = os.path.basename(os.path.normpath(d))
        for test in sorted(os.listdir(d)):
            src = os.path.join(d, test, "model.onnx")
            if not os.path.exists(src):
                continue
            dst = os.path.join(out, folder, test, "model.onnx")
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            try:
                onnx.save(shape_inference.infer_shapes(onnx.load(src)), dst)
                done += 1
            except Exception as e:  # inference errors are the model's business; keep it as is
                shutil.copyfile(src, dst)
                failed += 1
                print(f"infer_shapes: {folder}/{test}: kept as is ({str(e).splitlines()[0][:120]})", file=sys.stderr)
    print(f"infer_shapes: {done} models inferred, {failed} kept as they were -> {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
