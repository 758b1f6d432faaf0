#!/usr/bin/python3
"""Writes the benchmark models of bench/onnx/run, with random weights from a fixed seed.

    /usr/bin/python3 bench/onnx/gen_models.py OUT_DIR [--image 112]

For each model: OUT_DIR/<name>/model.onnx and OUT_DIR/<name>/inputs/<input>.npy.
  resnet18      ResNet-18 layout (conv/BatchNormalization/Relu, residual Add, MaxPool,
                GlobalAveragePool, Gemm), 1x3xSxS (S = --image, default 112), opset 13
  transformer   one encoder block: 4-head self-attention (MatMul/Reshape/Transpose/Softmax),
                LayerNorm written out (ReduceMean/Sub/Mul/Sqrt/Div), Gelu through Erf, 1x128x256,
                opset 13 (LayerNormalization itself needs opset 17, which fewer runtimes load)
  kws_mlp       keyword-spotting MLP: [1, 2400] features, Gemm 2400x128, LayerNorm, Relu,
                Gemm 128x128, LayerNorm, Relu, Gemm 128x32, Softmax (Gemm with transB = 1 as
                torch exports Linear, LayerNorm written out: 24 nodes), opset 13
  maxpool_1m    MaxPool 3x3 stride 2 pad 1 on 1x16x256x256 (1,048,576 elements), opset 13
  vad_if, vad_noif, score_if, greedy_loop
                control flow (If on a host input, the same model inlined, If on a computed
                score, a Loop decoder): gen_cf_models.py says what each is
Needs only Debian's python3-onnx (onnx 1.12) and numpy. Files are generated at benchmark
time, never committed. Each model is checked with onnx.checker and shape inference.
"""
import argparse
import os
import sys
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper, shape_inference

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_cf_models  # noqa: E402

OPSET = 13


class GraphBuilder:
    """Collects nodes and initializers, naming values uniquely."""

    def __init__(self, rng):
        self.rng = rng
        self.nodes = []
        self.initializers = []
        self.count = 0

    def name(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def const(self, prefix, array):
        n = self.name(prefix)
        self.initializers.append(numpy_helper.from_array(array, n))
        return n

    def weight(self, prefix, shape, fan_in):
        # He-style scale keeps activations O(1) through the depth, so outputs are not inf/0.
        w = self.rng.standard_normal(shape).astype(np.float32) * np.float32(np.sqrt(2.0 / fan_in))
        return self.const(prefix, w)

    def op(self, op_type, inputs, **attrs):
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out


def conv_bn(g, x, cin, cout, k, stride, relu=True):
    w = g.weight("conv_w", (cout, cin, k, k), cin * k * k)
    y = g.op("Conv", [x, w], kernel_shape=[k, k], strides=[stride, stride],
             pads=[k // 2] * 4)
    scale = g.const("bn_scale", (1.0 + 0.1 * g.rng.standard_normal(cout)).astype(np.float32))
    bias = g.const("bn_bias", (0.1 * g.rng.standard_normal(cout)).astype(np.float32))
    mean = g.const("bn_mean", (0.1 * g.rng.standard_normal(cout)).astype(np.float32))
    var = g.const("bn_var", (1.0 + 0.1 * g.rng.random(cout)).astype(np.float32))
    y = g.op("BatchNormalization", [y, scale, bias, mean, var], epsilon=1e-5)
    return g.op("Relu", [y]) if relu else y


def basic_block(g, x, cin, cout, stride):
    y = conv_bn(g, x, cin, cout, 3, stride)
    y = conv_bn(g, y, cout, cout, 3, 1, relu=False)
    shortcut = conv_bn(g, x, cin, cout, 1, stride, relu=False) if (stride != 1 or cin != cout) else x
    return g.op("Relu", [g.op("Add", [y, shortcut])])


def resnet18(rng, image):
    g = GraphBuilder(rng)
    x = conv_bn(g, "input", 3, 64, 7, 2)
    x = g.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
        x = basic_block(g, x, cin, cout, stride)
        x = basic_block(g, x, cout, cout, 1)
        cin = cout
    x = g.op("GlobalAveragePool", [x])
    x = g.op("Flatten", [x], axis=1)
    # Weights stored [in, out] (transB = 0): wonnx 0.5 rejects Gemm with transB = 1, and the
    # layout is the runtime's choice to make, not the benchmark's.
    w = g.weight("fc_w", (512, 1000), 512)
    b = g.const("fc_b", (0.02 * g.rng.standard_normal(1000)).astype(np.float32))
    g.nodes.append(helper.make_node("Gemm", [x, w, b], ["logits"], name="fc"))
    graph = helper.make_graph(
        g.nodes, "resnet18",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, image, image])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 1000])],
        g.initializers)
    inputs = {"input": rng.standard_normal((1, 3, image, image)).astype(np.float32)}
    return graph, inputs


def layer_norm(g, x, d):
    mean = g.op("ReduceMean", [x], axes=[-1], keepdims=1)
    centered = g.op("Sub", [x, mean])
    var = g.op("ReduceMean", [g.op("Mul", [centered, centered])], axes=[-1], keepdims=1)
    std = g.op("Sqrt", [g.op("Add", [var, g.const("eps", np.array(1e-5, np.float32))])])
    y = g.op("Div", [centered, std])
    gamma = g.const("ln_gamma", (1.0 + 0.1 * g.rng.standard_normal(d)).astype(np.float32))
    beta = g.const("ln_beta", (0.1 * g.rng.standard_normal(d)).astype(np.float32))
    return g.op("Add", [g.op("Mul", [y, gamma]), beta])


def linear(g, x, din, dout):
    w = g.weight("w", (din, dout), din)
    b = g.const("b", (0.02 * g.rng.standard_normal(dout)).astype(np.float32))
    return g.op("Add", [g.op("MatMul", [x, w]), b])


def transformer(rng, seq=128, d=256, heads=4, ffn=1024):
    g = GraphBuilder(rng)
    dh = d // heads
    x = "input"  # [1, seq, d]
    split = g.const("heads_shape", np.array([1, seq, heads, dh], np.int64))
    merge = g.const("model_shape", np.array([1, seq, d], np.int64))

    def project(prefix):
        y = g.op("Reshape", [linear(g, x, d, d), split])     # [1, seq, heads, dh]
        return g.op("Transpose", [y], perm=[0, 2, 1, 3])      # [1, heads, seq, dh]

    q, k, v = project("q"), project("k"), project("v")
    kt = g.op("Transpose", [k], perm=[0, 1, 3, 2])            # [1, heads, dh, seq]
    scores = g.op("Mul", [g.op("MatMul", [q, kt]),
                          g.const("scale", np.array(1.0 / np.sqrt(dh), np.float32))])
    attn = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])   # [1, heads, seq, dh]
    attn = g.op("Reshape", [g.op("Transpose", [attn], perm=[0, 2, 1, 3]), merge])
    h = layer_norm(g, g.op("Add", [x, linear(g, attn, d, d)]), d)

    up = linear(g, h, d, ffn)
    erf = g.op("Erf", [g.op("Mul", [up, g.const("inv_sqrt2", np.array(1 / np.sqrt(2), np.float32))])])
    gelu = g.op("Mul", [g.op("Mul", [up, g.const("half", np.array(0.5, np.float32))]),
                        g.op("Add", [erf, g.const("one", np.array(1.0, np.float32))])])
    y = layer_norm(g, g.op("Add", [h, linear(g, gelu, ffn, d)]), d)
    g.nodes.append(helper.make_node("Identity", [y], ["output"], name="output"))
    graph = helper.make_graph(
        g.nodes, "transformer_block",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, seq, d])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, seq, d])],
        g.initializers)
    inputs = {"input": rng.standard_normal((1, seq, d)).astype(np.float32)}
    return graph, inputs


def gemm(g, x, din, dout):
    # torch.onnx's Linear: Gemm(x, W[dout, din], b, transB=1).
    w = g.weight("w", (dout, din), din)
    b = g.const("b", (0.02 * g.rng.standard_normal(dout)).astype(np.float32))
    return g.op("Gemm", [x, w, b], transB=1)


def kws_mlp(rng, features=2400, hidden=128, classes=32):
    """A GEMV-heavy model (batch 1): each Gemm is M = 1, the first K = 2400."""
    g = GraphBuilder(rng)
    h = g.op("Relu", [layer_norm(g, gemm(g, "input", features, hidden), hidden)])
    h = g.op("Relu", [layer_norm(g, gemm(g, h, hidden, hidden), hidden)])
    logits = gemm(g, h, hidden, classes)
    g.nodes.append(helper.make_node("Softmax", [logits], ["probs"], name="probs", axis=-1))
    graph = helper.make_graph(
        g.nodes, "kws_mlp",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, features])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, classes])],
        g.initializers)
    inputs = {"input": rng.standard_normal((1, features)).astype(np.float32)}
    return graph, inputs


def maxpool_1m(rng):
    node = helper.make_node("MaxPool", ["input"], ["output"], name="pool",
                            kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    graph = helper.make_graph(
        [node], "maxpool_1m",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 16, 256, 256])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 16, 128, 128])])
    inputs = {"input": rng.standard_normal((1, 16, 256, 256)).astype(np.float32)}
    return graph, inputs


def write(out_dir, name, graph, inputs):
    # SequenceMap exists from opset 17 on.
    opset = 17 if any(n.op_type == "SequenceMap" for n in graph.node) else OPSET
    model = helper.make_model(graph, producer_name="alknet bench/onnx/gen_models.py",
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8  # ONNX 1.12's IR; older runtimes (wonnx 0.5) read it too
    onnx.checker.check_model(model, full_check=True)
    # wonnx needs every intermediate shape in value_info; the others ignore the annotation.
    model = shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    folder = os.path.join(out_dir, name)
    os.makedirs(os.path.join(folder, "inputs"), exist_ok=True)
    onnx.save(model, os.path.join(folder, "model.onnx"))
    for input_name, value in inputs.items():
        np.save(os.path.join(folder, "inputs", f"{input_name}.npy"), value)
    print(f"{name}: {len(graph.node)} nodes, "
          f"{sum(int(np.prod(t.dims)) for t in graph.initializer):,} weights -> {folder}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--image", type=int, default=112, help="ResNet input size (default 112)")
    parser.add_argument("--seed", type=int, default=20261202)
    parser.add_argument("--only", nargs="*", help="model names to write (default: all)")
    args = parser.parse_args()
    makers = {
        "resnet18": lambda rng: resnet18(rng, args.image),
        "transformer": transformer,
        "maxpool_1m": maxpool_1m,
        "kws_mlp": kws_mlp,
    }
    # Control-flow models (gen_cf_models.py): If on a host input, If on a computed score, Loop.
    for cf_name, cf_make in gen_cf_models.MODELS.items():
        makers[cf_name] = lambda rng, f=cf_make: f(GraphBuilder(rng))
    for name, make in makers.items():
        if args.only and name not in args.only:
            continue
        # One generator per model, so that one model's weights do not depend on the others.
        graph, inputs = make(np.random.default_rng([args.seed, zlib.crc32(name.encode())]))
        write(args.out_dir, name, graph, inputs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
