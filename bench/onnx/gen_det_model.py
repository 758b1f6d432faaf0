#!/usr/bin/python3
"""Writes a DB-style text detector (about 100 Conv) with random weights from a fixed seed.

    /usr/bin/python3 bench/onnx/gen_det_model.py OUT_DIR [--height 320] [--width 448]

OUT_DIR/model.onnx and OUT_DIR/inputs/x.npy (1x3xHxW). The layout of the OCR detectors
(PaddleOCR's DB on MobileNetV3): a MobileNetV3-large-like backbone (Conv + HardSwish stem;
inverted residual blocks of 1x1 expansion, depthwise 3x3 / 5x5 with stride, squeeze-excite
through GlobalAveragePool, 1x1, Relu, 1x1 and HardSigmoid, 1x1 projection, residual Add), an FPN
(PP-OCRv3's RSE-FPN: 1x1 laterals and 3x3 smoothing convs, each with a squeeze-excite and a
residual Add; nearest Resize x2 top-down with Add; Resize to 1/4 and Concat) and the DB head
(two branches of 3x3 conv, Relu, two ConvTranspose 2x2 stride 2, Sigmoid; output 1x2xHxW).
BatchNormalization is folded into the convs' biases, as exported inference models have it.
Opset 14 (HardSwish). Needs only numpy and onnx (Debian python3-onnx); nothing is downloaded.
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper, shape_inference

OPSET = 14

# MobileNetV3-large: (kernel, expansion, out, squeeze-excite, activation, stride).
BLOCKS = [
    (3, 16, 16, False, "Relu", 1),
    (3, 64, 24, False, "Relu", 2),
    (3, 72, 24, False, "Relu", 1),
    (5, 72, 40, True, "Relu", 2),
    (5, 120, 40, True, "Relu", 1),
    (5, 120, 40, True, "Relu", 1),
    (3, 240, 80, False, "HardSwish", 2),
    (3, 200, 80, False, "HardSwish", 1),
    (3, 184, 80, False, "HardSwish", 1),
    (3, 184, 80, False, "HardSwish", 1),
    (3, 480, 112, True, "HardSwish", 1),
    (3, 672, 112, True, "HardSwish", 1),
    (5, 672, 160, True, "HardSwish", 2),
    (5, 960, 160, True, "HardSwish", 1),
    (5, 960, 160, True, "HardSwish", 1),
]


class Builder:
    def __init__(self, rng):
        self.rng = rng
        self.nodes, self.inits, self.count, self.convs = [], [], 0, 0

    def name(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def const(self, prefix, array):
        n = self.name(prefix)
        self.inits.append(numpy_helper.from_array(array, n))
        return n

    def op(self, op_type, inputs, **attrs):
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    def conv(self, x, cin, cout, k, stride=1, group=1, act=None):
        # He-style scale keeps activations O(1) through the depth.
        fan_in = cin // group * k * k
        w = self.rng.standard_normal((cout, cin // group, k, k)).astype(np.float32)
        w *= np.float32(np.sqrt(2.0 / fan_in))
        b = (0.05 * self.rng.standard_normal(cout)).astype(np.float32)
        self.convs += 1
        y = self.op("Conv", [x, self.const("w", w), self.const("b", b)], kernel_shape=[k, k],
                    strides=[stride, stride], pads=[k // 2] * 4, group=group)
        return self.op(act, [y]) if act else y

    def conv_t(self, x, cin, cout, act=None):
        w = (self.rng.standard_normal((cin, cout, 2, 2)) * np.sqrt(2.0 / cin)).astype(np.float32)
        b = (0.05 * self.rng.standard_normal(cout)).astype(np.float32)
        y = self.op("ConvTranspose", [x, self.const("wt", w), self.const("bt", b)],
                    kernel_shape=[2, 2], strides=[2, 2])
        return self.op(act, [y]) if act else y

    def resize(self, x, factor):
        scales = self.const("scales", np.array([1, 1, factor, factor], np.float32))
        return self.op("Resize", [x, "", scales], mode="nearest")


def detector(rng, height, width):
    g = Builder(rng)
    x = g.conv("x", 3, 16, 3, 2, act="HardSwish")
    cin, stages = 16, []
    for i, (k, exp, out, se, act, stride) in enumerate(BLOCKS):
        if stride == 2 and i > 1:  # the 1/4, 1/8 and 1/16 maps
            stages.append((x, cin))
        y = g.conv(x, cin, exp, 1, act=act) if exp != cin else x
        y = g.conv(y, exp, exp, k, stride, group=exp, act=act)
        if se:
            s = g.op("GlobalAveragePool", [y])
            s = g.conv(s, exp, exp // 4, 1, act="Relu")
            s = g.conv(s, exp // 4, exp, 1)
            s = g.op("HardSigmoid", [s], alpha=0.2, beta=0.5)
            y = g.op("Mul", [y, s])
        y = g.conv(y, exp, out, 1)
        x = g.op("Add", [x, y]) if stride == 1 and cin == out else y
        cin = out
    x = g.conv(x, cin, 480, 1, act="HardSwish")
    stages.append((x, 480))
    # stages: 1/4 (24 ch), 1/8 (40), 1/16 (112), 1/32 (480)
    inner = 96

    # RSE layer (PP-OCRv3's FPN): a conv whose output is rescaled by its own squeeze-excite
    # and added back.
    def rse(x, cin, cout, k):
        y = g.conv(x, cin, cout, k)
        s = g.op("GlobalAveragePool", [y])
        s = g.conv(s, cout, max(cout // 4, 4), 1, act="Relu")
        s = g.conv(s, max(cout // 4, 4), cout, 1)
        s = g.op("HardSigmoid", [s], alpha=0.2, beta=0.5)
        return g.op("Add", [y, g.op("Mul", [y, s])])

    lat = [rse(s, c, inner, 1) for s, c in stages]
    top = lat[3]
    merged = [top]
    for i in (2, 1, 0):
        top = g.op("Add", [lat[i], g.resize(top, 2.0)])
        merged.insert(0, top)
    outs = [rse(m, inner, inner // 4, 3) for m in merged]
    ups = [outs[0]] + [g.resize(o, float(2 ** i)) for i, o in enumerate(outs[1:], 1)]
    fuse = g.op("Concat", ups, axis=1)
    # DB head, two branches (probability and threshold maps) at full resolution.
    maps = []
    for _ in range(2):
        h = g.conv(fuse, inner, inner // 4, 3, act="Relu")
        h = g.conv_t(h, inner // 4, inner // 4, act="Relu")
        maps.append(g.op("Sigmoid", [g.conv_t(h, inner // 4, 1)]))
    g.nodes.append(helper.make_node("Concat", maps, ["maps"], name="maps", axis=1))
    graph = helper.make_graph(
        g.nodes, "db_detector",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, height, width])],
        [helper.make_tensor_value_info("maps", TensorProto.FLOAT, [1, 2, height, width])],
        g.inits)
    return graph, g.convs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--height", type=int, default=320)
    ap.add_argument("--width", type=int, default=448)
    a = ap.parse_args()
    if a.height % 32 or a.width % 32:
        ap.error("--height and --width must be multiples of 32")
    rng = np.random.default_rng(20261203)
    graph, convs = detector(rng, a.height, a.width)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="alknet bench/onnx/gen_det_model.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    model = shape_inference.infer_shapes(model)
    os.makedirs(os.path.join(a.out, "inputs"), exist_ok=True)
    onnx.save(model, os.path.join(a.out, "model.onnx"))
    x = rng.random((1, 3, a.height, a.width), dtype=np.float32)
    np.save(os.path.join(a.out, "inputs", "x.npy"), x)
    kinds = {}
    for n in model.graph.node:
        kinds[n.op_type] = kinds.get(n.op_type, 0) + 1
    print(f"{a.out}/model.onnx: {convs} Conv, " +
          ", ".join(f"{v} {k}" for k, v in sorted(kinds.items()) if k != "Conv"))


if __name__ == "__main__":
    main()
