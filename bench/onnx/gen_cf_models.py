#!/usr/bin/python3
"""Control-flow benchmark models (issue 14): the shapes of computation of voice-activity
detectors, score-gated classifiers and greedy decoders that people export, with random weights.
Imported by gen_models.py (bench/onnx/run --only vad_if vad_noif score_if greedy_loop seq_chunks).

  vad_if       a streaming voice-activity step: an `If` on an int64 `sr` input chooses the
               front end (16 kHz: Conv1d k=64 s=32 -> 15 frames; 8 kHz: k=32 s=16 -> 31 frames,
               both real), then log-magnitude, an LSTM (hidden 64) carrying its state in and out
               (`h`, `c`), Gemm + Sigmoid: the probability of speech in the 512-sample chunk.
  vad_noif     the same model with the 16 kHz branch inlined and no `sr` input: an `If` decided
               at plan time should cost what this costs.
  score_if     a classifier whose `If` depends on a computed score: MLP 256-256-10, softmax, and
               when the top probability is below 0.5 a second, larger head refines the logits.
  greedy_loop  a `Loop` greedy decoder over one small attention step: 16 iterations, each a
               token embedding (Gather), attention over a 16x64 memory, a tanh cell and ArgMax
               of 100 logits; the tokens are the Loop's scan output.
  seq_chunks   sequences: SplitToSequence into 16 chunks, SequenceMap of a Gemm-Relu-Gemm MLP
               over each, ConcatFromSequence (planned as one Split, 48 Gemm/Relu nodes, one
               Concat).
  nms_head     a detector head: 1x1 Convs on a [1, 32, 16, 16] feature map give box deltas
               on a 16x16 anchor grid and 3 class scores (Sigmoid), then NonMaxSuppression
               (20 per class, IoU 0.5, score 0.3): a host op after the boxes are read back.
  qlinear_mlp  a uint8 quantized MLP: QuantizeLinear, QLinearMatMul 256x256 and 256x64,
               DequantizeLinear, on a [64, 256] batch.
"""
import numpy as np
from onnx import TensorProto, helper

HIDDEN = 64
CHUNK = 512


def _front_end(g, kernel, stride, channels, prefix):
    """Conv1d framing of the chunk -> log(|frames| + 1e-3) as [T, 1, channels]; a subgraph."""
    nodes_before = len(g.nodes)
    x = g.op("Reshape", ["audio", g.const(prefix + "_shape", np.array([1, 1, CHUNK], np.int64))])
    w = g.weight(prefix + "_w", (channels, 1, kernel), kernel)
    frames = g.op("Conv", [x, w], kernel_shape=[kernel], strides=[stride])  # [1, C, T]
    mag = g.op("Log", [g.op("Add", [g.op("Abs", [frames]),
                                   g.const(prefix + "_eps", np.array(1e-3, np.float32))])])
    out = g.op("Transpose", [mag], perm=[2, 0, 1])  # [T, 1, C]
    nodes = g.nodes[nodes_before:]
    del g.nodes[nodes_before:]
    return nodes, out


def _vad(g, with_if):
    inputs = [helper.make_tensor_value_info("audio", TensorProto.FLOAT, [1, CHUNK])]
    if with_if:
        inputs.append(helper.make_tensor_value_info("sr", TensorProto.INT64, []))
    inputs += [helper.make_tensor_value_info("h", TensorProto.FLOAT, [1, 1, HIDDEN]),
               helper.make_tensor_value_info("c", TensorProto.FLOAT, [1, 1, HIDDEN])]
    # Subgraph initializers live in the main graph (outer-scope capture), as exporters write them.
    hi_nodes, hi_out = _front_end(g, 64, 32, HIDDEN, "fe16k")
    lo_nodes, lo_out = _front_end(g, 32, 16, HIDDEN, "fe8k")
    if with_if:
        feat_info = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, None)  # noqa: E731
        then_g = helper.make_graph(hi_nodes + [helper.make_node("Identity", [hi_out], ["feat_16k"])],
                                   "front_end_16k", [], [feat_info("feat_16k")])
        else_g = helper.make_graph(lo_nodes + [helper.make_node("Identity", [lo_out], ["feat_8k"])],
                                   "front_end_8k", [], [feat_info("feat_8k")])
        is16k = g.op("Equal", ["sr", g.const("sr16k", np.array(16000, np.int64))])
        feats = g.name("features")
        g.nodes.append(helper.make_node("If", [is16k], [feats], name=feats,
                                        then_branch=then_g, else_branch=else_g))
    else:
        g.nodes.extend(hi_nodes)
        feats = hi_out
        # The 8 kHz weights stay out: the inlined model is what a plan-time If should cost.
        g.initializers = [t for t in g.initializers if not t.name.startswith("fe8k")]
    h4 = 4 * HIDDEN
    w = g.weight("lstm_w", (1, h4, HIDDEN), HIDDEN)
    r = g.weight("lstm_r", (1, h4, HIDDEN), HIDDEN)
    b = g.const("lstm_b", (0.05 * g.rng.standard_normal((1, 2 * h4))).astype(np.float32))
    g.nodes.append(helper.make_node("LSTM", [feats, w, r, b, "", "h", "c"], ["lstm_y", "hn", "cn"],
                                    name="lstm", hidden_size=HIDDEN))
    last = g.op("Reshape", ["hn", g.const("flat", np.array([1, HIDDEN], np.int64))])
    wo = g.weight("out_w", (HIDDEN, 1), HIDDEN)
    bo = g.const("out_b", np.zeros(1, np.float32))
    prob = g.op("Sigmoid", [g.op("Gemm", [last, wo, bo])])
    g.nodes.append(helper.make_node("Identity", [prob], ["prob"], name="prob"))
    outputs = [helper.make_tensor_value_info("prob", TensorProto.FLOAT, [1, 1]),
               helper.make_tensor_value_info("hn", TensorProto.FLOAT, [1, 1, HIDDEN]),
               helper.make_tensor_value_info("cn", TensorProto.FLOAT, [1, 1, HIDDEN])]
    graph = helper.make_graph(g.nodes, "vad_if" if with_if else "vad_noif", inputs, outputs,
                              g.initializers)
    values = {"audio": (0.1 * g.rng.standard_normal((1, CHUNK))).astype(np.float32),
              "h": np.zeros((1, 1, HIDDEN), np.float32), "c": np.zeros((1, 1, HIDDEN), np.float32)}
    if with_if:
        values["sr"] = np.array(16000, np.int64)
    return graph, values


def vad_if(g):
    return _vad(g, True)


def vad_noif(g):
    return _vad(g, False)


def _gemm(g, x, din, dout, prefix, nodes=None):
    w = g.weight(prefix + "_w", (din, dout), din)
    b = g.const(prefix + "_b", (0.02 * g.rng.standard_normal(dout)).astype(np.float32))
    return g.op("Gemm", [x, w, b])


def score_if(g):
    d = 256
    hid = g.op("Relu", [_gemm(g, "x", d, d, "l1")])
    logits = _gemm(g, hid, d, 10, "l2")
    score = g.op("ReduceMax", [g.op("Softmax", [logits], axis=-1)], keepdims=0, axes=[0, 1])
    confident = g.op("Greater", [score, g.const("threshold", np.array(0.5, np.float32))])
    # then: keep the logits; else: a larger refinement head on the hidden features.
    before = len(g.nodes)
    r1 = g.op("Relu", [_gemm(g, hid, d, 2 * d, "r1")])
    r2 = g.op("Relu", [_gemm(g, r1, 2 * d, d, "r2")])
    refined = g.op("Add", [logits, _gemm(g, r2, d, 10, "r3")])
    refine_nodes = g.nodes[before:]
    del g.nodes[before:]
    info = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 10])  # noqa: E731
    then_g = helper.make_graph([helper.make_node("Identity", [logits], ["kept"])], "keep", [],
                               [info("kept")])
    else_g = helper.make_graph(refine_nodes + [helper.make_node("Identity", [refined], ["refined"])],
                               "refine", [], [info("refined")])
    g.nodes.append(helper.make_node("If", [confident], ["y"], name="gate", then_branch=then_g,
                                    else_branch=else_g))
    graph = helper.make_graph(g.nodes, "score_if",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, d])],
                              [info("y")], g.initializers)
    return graph, {"x": g.rng.standard_normal((1, d)).astype(np.float32)}


def greedy_loop(g, steps=16, vocab=100, d=64, mem=16):
    emb = g.weight("embedding", (vocab, d), 1)
    wc = g.weight("cell_w", (2 * d, d), 2 * d)
    bc = g.const("cell_b", np.zeros(d, np.float32))
    wo = g.weight("logit_w", (d, vocab), d)
    bo = g.const("logit_b", np.zeros(vocab, np.float32))
    mem2d = g.op("Reshape", ["memory", g.const("mem_shape", np.array([mem, d], np.int64))])
    mem_t = g.op("Transpose", [mem2d], perm=[1, 0])  # [d, mem]
    scale = g.const("scale", np.array(1.0 / np.sqrt(d), np.float32))
    # The body: (iter, cond, token[1], hidden[1,d]) -> (cond, token, hidden, scan: token).
    before = len(g.nodes)
    x = g.op("Add", [g.op("Gather", [emb, "token_in"], axis=0), "hidden_in"])  # [1, d]
    p = g.op("Softmax", [g.op("Mul", [g.op("MatMul", [x, mem_t]), scale])], axis=-1)  # [1, mem]
    ctx = g.op("MatMul", [p, mem2d])  # [1, d]
    h2 = g.op("Tanh", [g.op("Gemm", [g.op("Concat", [x, ctx], axis=1), wc, bc])])
    logits = g.op("Gemm", [h2, wo, bo])
    nxt = g.op("ArgMax", [logits], axis=1, keepdims=0)  # int64 [1]
    body_nodes = g.nodes[before:] + [
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        helper.make_node("Identity", [nxt], ["token_out"]),
        helper.make_node("Identity", [h2], ["hidden_out"]),
        helper.make_node("Identity", [nxt], ["scan_token"]),
    ]
    del g.nodes[before:]
    tv = helper.make_tensor_value_info
    body = helper.make_graph(
        body_nodes, "decode_step",
        [tv("iter", TensorProto.INT64, []), tv("cond_in", TensorProto.BOOL, []),
         tv("token_in", TensorProto.INT64, [1]), tv("hidden_in", TensorProto.FLOAT, [1, d])],
        [tv("cond_out", TensorProto.BOOL, []), tv("token_out", TensorProto.INT64, [1]),
         tv("hidden_out", TensorProto.FLOAT, [1, d]), tv("scan_token", TensorProto.INT64, [1])])
    trip = g.const("max_len", np.array(steps, np.int64))
    cond = g.const("always", np.array(True))
    h0 = g.const("h0", np.zeros((1, d), np.float32))
    g.nodes.append(helper.make_node("Loop", [trip, cond, "start", h0],
                                    ["last_token", "hidden", "tokens"], name="decode", body=body))
    graph = helper.make_graph(
        g.nodes, "greedy_loop",
        [tv("memory", TensorProto.FLOAT, [1, mem, d]), tv("start", TensorProto.INT64, [1])],
        [tv("tokens", TensorProto.INT64, [steps, 1]), tv("hidden", TensorProto.FLOAT, [1, d])],
        g.initializers)
    return graph, {"memory": g.rng.standard_normal((1, mem, d)).astype(np.float32),
                   "start": np.array([1], np.int64)}


def seq_chunks(g, chunks=16, width=64, d=128):
    """A chunked encoder written with sequences: SplitToSequence of a [16*64, 128] input into
    16 chunks, SequenceMap of a two-layer MLP (Gemm, Relu, Gemm) over each chunk, and
    ConcatFromSequence back to [16*64, 128]."""
    w1 = g.weight("seq_w1", (d, d), d)
    w2 = g.weight("seq_w2", (d, d), d)
    b = g.const("seq_b", np.zeros(d, np.float32))
    tv = helper.make_tensor_value_info
    body = helper.make_graph(
        [helper.make_node("Gemm", ["chunk", w1, b], ["h1"]),
         helper.make_node("Relu", ["h1"], ["r1"]),
         helper.make_node("Gemm", ["r1", w2, b], ["out"])],
        "chunk_mlp", [tv("chunk", TensorProto.FLOAT, [width, d])],
        [tv("out", TensorProto.FLOAT, [width, d])])
    size = g.const("seq_split", np.array(width, np.int64))
    seq_t = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [width, d]))
    g.nodes += [helper.make_node("SplitToSequence", ["x", size], ["chunks"], axis=0),
                helper.make_node("SequenceMap", ["chunks"], ["mapped"], body=body),
                helper.make_node("ConcatFromSequence", ["mapped"], ["y"], axis=0)]
    graph = helper.make_graph(
        g.nodes, "seq_chunks", [tv("x", TensorProto.FLOAT, [chunks * width, d])],
        [tv("y", TensorProto.FLOAT, [chunks * width, d])], g.initializers,
        value_info=[helper.make_value_info("chunks", seq_t), helper.make_value_info("mapped", seq_t)])
    return graph, {"x": g.rng.standard_normal((chunks * width, d)).astype(np.float32)}


def nms_head(g, c=32, side=16, classes=3):
    n = side * side
    w_box = g.weight("box_w", (4, c, 1, 1), c)
    w_cls = g.weight("cls_w", (classes, c, 1, 1), c)
    deltas = g.op("Conv", ["features", w_box])  # [1, 4, side, side]
    logits = g.op("Conv", ["features", w_cls])  # [1, classes, side, side]
    d = g.op("Transpose", [g.op("Reshape", [deltas, g.const("d_shape", np.array([1, 4, n], np.int64))])],
             perm=[0, 2, 1])  # [1, n, 4]
    yy, xx = np.meshgrid(np.arange(side), np.arange(side), indexing="ij")
    anchors = np.stack([yy, xx, yy + 2.0, xx + 2.0], axis=-1).reshape(1, n, 4).astype(np.float32)
    boxes = g.op("Add", [g.const("anchors", anchors), d])
    scores = g.op("Sigmoid", [g.op("Reshape", [logits, g.const("s_shape", np.array([1, classes, n], np.int64))])])
    g.nodes.append(helper.make_node(
        "NonMaxSuppression", [boxes, scores, g.const("max_out", np.array([20], np.int64)),
                              g.const("iou", np.array([0.5], np.float32)),
                              g.const("score", np.array([0.3], np.float32))], ["selected"], name="nms"))
    tv = helper.make_tensor_value_info
    graph = helper.make_graph(g.nodes, "nms_head",
                              [tv("features", TensorProto.FLOAT, [1, c, side, side])],
                              [tv("selected", TensorProto.INT64, ["n", 3])], g.initializers)
    return graph, {"features": g.rng.standard_normal((1, c, side, side)).astype(np.float32)}


def qlinear_mlp(g, batch=64, d=256, out=64):
    u8 = lambda name, a: g.const(name, np.asarray(a, np.uint8))  # noqa: E731
    f = lambda name, v: g.const(name, np.array(v, np.float32))  # noqa: E731
    w1 = g.rng.integers(0, 256, (d, d)).astype(np.uint8)
    w2 = g.rng.integers(0, 256, (d, out)).astype(np.uint8)
    xs, xz, hs, hz = f("x_scale", 0.02), u8("x_zp", 128), f("h_scale", 0.05), u8("h_zp", 128)
    ys, yz = f("y_scale", 0.1), u8("y_zp", 128)
    xq = g.op("QuantizeLinear", ["x", xs, xz])
    h = g.op("QLinearMatMul", [xq, xs, xz, u8("w1", w1), f("w1_scale", 0.004), u8("w1_zp", 127),
                               hs, hz])
    y = g.op("QLinearMatMul", [h, hs, hz, u8("w2", w2), f("w2_scale", 0.004), u8("w2_zp", 128),
                               ys, yz])
    g.nodes.append(helper.make_node("DequantizeLinear", [y, ys, yz], ["y"], name="dq"))
    tv = helper.make_tensor_value_info
    graph = helper.make_graph(g.nodes, "qlinear_mlp", [tv("x", TensorProto.FLOAT, [batch, d])],
                              [tv("y", TensorProto.FLOAT, [batch, out])], g.initializers)
    return graph, {"x": g.rng.standard_normal((batch, d)).astype(np.float32)}


MODELS = {"vad_if": vad_if, "vad_noif": vad_noif, "score_if": score_if,
          "greedy_loop": greedy_loop, "seq_chunks": seq_chunks, "nms_head": nms_head,
          "qlinear_mlp": qlinear_mlp}
