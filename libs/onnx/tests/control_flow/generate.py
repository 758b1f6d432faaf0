#!/usr/bin/python3
"""Generates the control-flow test models of libs/onnx/tests (If, Loop, Scan) in the ONNX
backend-test layout: <name>/model.onnx and <name>/test_data_set_N/{input,output}_K.pb.
Expected outputs are computed here with numpy, independently of alknet; run it again after
changing a model: /usr/bin/python3 libs/onnx/tests/control_flow/generate.py"""
import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def const(name, value):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.array(value)))


def save(name, graph, datasets, opset=16):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    d = os.path.join(HERE, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for k, (inputs, outputs) in enumerate(datasets):
        ds = os.path.join(d, "test_data_set_%d" % k)
        os.makedirs(ds)
        for i, v in enumerate(inputs):
            t = numpy_helper.from_array(np.asarray(v), graph.input[i].name)
            open(os.path.join(ds, "input_%d.pb" % i), "wb").write(t.SerializeToString())
        for i, v in enumerate(outputs):
            t = numpy_helper.from_array(np.asarray(v), graph.output[i].name)
            open(os.path.join(ds, "output_%d.pb" % i), "wb").write(t.SerializeToString())


rng = np.random.default_rng(14)


def if_sample_rate():
    """An If on an int64 sample-rate input with a nested If in its then branch: the plan
    decides both from the input's value and inlines the branches."""
    inner_then = helper.make_graph(
        [helper.make_node("Mul", ["x", "two"], ["t2"])], "inner_then", [],
        [helper.make_tensor_value_info("t2", F, [1, 8])],
        initializer=[numpy_helper.from_array(np.array(2.0, np.float32), "two")])
    inner_else = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["e2"])], "inner_else", [],
        [helper.make_tensor_value_info("e2", F, [1, 8])])
    then_g = helper.make_graph(
        [const("big", np.int64(12000)), helper.make_node("Greater", ["sr", "big"], ["c2"]),
         helper.make_node("If", ["c2"], ["t1"], then_branch=inner_then, else_branch=inner_else)],
        "then", [], [helper.make_tensor_value_info("t1", F, [1, 8])])
    else_g = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["e1"])], "else", [],
        [helper.make_tensor_value_info("e1", F, [1, 8])])
    g = helper.make_graph(
        [const("low", np.int64(8000)), helper.make_node("Greater", ["sr", "low"], ["c"]),
         helper.make_node("If", ["c"], ["y0"], then_branch=then_g, else_branch=else_g),
         helper.make_node("Add", ["y0", "x"], ["y"])],
        "if_sample_rate",
        [helper.make_tensor_value_info("sr", I64, []), helper.make_tensor_value_info("x", F, [1, 8])],
        [helper.make_tensor_value_info("y", F, [1, 8])])
    sets = []
    for sr in (16000, 8000, 11025):
        x = rng.standard_normal((1, 8)).astype(np.float32)
        y0 = -x if sr <= 8000 else (x * 2 if sr > 12000 else np.maximum(x, 0))
        sets.append(([np.array(sr, np.int64), x], [y0 + x]))
    save("if_sample_rate", g, sets)


def if_score():
    """An If on a computed score (data dependent) whose branches give different shapes."""
    then_g = helper.make_graph(
        [helper.make_node("Mul", ["x", "x"], ["t"])], "then", [],
        [helper.make_tensor_value_info("t", F, ["n"])])
    else_g = helper.make_graph(
        [helper.make_node("Concat", ["x", "x"], ["e"], axis=0)], "else", [],
        [helper.make_tensor_value_info("e", F, ["n"])])
    g = helper.make_graph(
        [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
         const("thr", np.float32(0.5)), helper.make_node("Greater", ["s", "thr"], ["c"]),
         helper.make_node("If", ["c"], ["z"], then_branch=then_g, else_branch=else_g),
         helper.make_node("Relu", ["z"], ["y"])],
        "if_score", [helper.make_tensor_value_info("x", F, [5])],
        [helper.make_tensor_value_info("y", F, ["n"])])
    sets = []
    for sign in (1, -1, 1):
        x = (np.abs(rng.standard_normal(5)) * sign).astype(np.float32)
        z = x * x if x.sum() > 0.5 else np.concatenate([x, x])
        sets.append(([x], [np.maximum(z, 0)]))
    save("if_score", g, sets)


def loop_nested_if():
    """A Loop (trip count from an input) whose body holds an If on the iteration number and
    reads `x` from the outer scope; a loop-carried accumulator and a scan output."""
    then_g = helper.make_graph(
        [helper.make_node("Add", ["acc", "x"], ["t"])], "then", [],
        [helper.make_tensor_value_info("t", F, [3])])
    else_g = helper.make_graph(
        [helper.make_node("Mul", ["acc", "half"], ["e"])], "else", [],
        [helper.make_tensor_value_info("e", F, [3])],
        initializer=[numpy_helper.from_array(np.array(0.5, np.float32), "half")])
    body = helper.make_graph(
        [const("two", np.int64(2)), const("zero", np.int64(0)),
         helper.make_node("Mod", ["i", "two"], ["r"]),
         helper.make_node("Equal", ["r", "zero"], ["even"]),
         helper.make_node("If", ["even"], ["acc2"], then_branch=then_g, else_branch=else_g),
         helper.make_node("Identity", ["cond"], ["cond_out"]),
         helper.make_node("Identity", ["acc2"], ["acc_out"]),
         helper.make_node("Identity", ["acc2"], ["scan_out"])],
        "body",
        [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("cond", B, []),
         helper.make_tensor_value_info("acc", F, [3])],
        [helper.make_tensor_value_info("cond_out", B, []),
         helper.make_tensor_value_info("acc_out", F, [3]),
         helper.make_tensor_value_info("scan_out", F, [3])])
    g = helper.make_graph(
        [helper.make_node("Loop", ["m", "", "acc0"], ["acc", "trace"], body=body)],
        "loop_nested_if",
        [helper.make_tensor_value_info("m", I64, []), helper.make_tensor_value_info("acc0", F, [3]),
         helper.make_tensor_value_info("x", F, [3])],
        [helper.make_tensor_value_info("acc", F, [3]),
         helper.make_tensor_value_info("trace", F, ["n", 3])])
    sets = []
    for m in (5, 1):
        acc0 = rng.standard_normal(3).astype(np.float32)
        x = rng.standard_normal(3).astype(np.float32)
        acc, trace = acc0.copy(), []
        for i in range(m):
            acc = acc + x if i % 2 == 0 else acc * np.float32(0.5)
            trace.append(acc)
        sets.append(([np.array(m, np.int64), acc0, x], [acc, np.stack(trace)]))
    save("loop_nested_if", g, sets)


def loop_counter():
    """A while-style Loop: the body computes its condition on the device (sum < limit), no
    trip count, and a scan output. Zero iterations when the condition starts false (the scan
    output is then [0, 2]: no rows, the element shape of the body)."""
    body = helper.make_graph(
        [helper.make_node("Add", ["v", "step"], ["v2"]),
         helper.make_node("ReduceSum", ["v2"], ["s"], keepdims=0),
         helper.make_node("Less", ["s", "limit"], ["cond_out"]),
         helper.make_node("Identity", ["v2"], ["v_out"]),
         helper.make_node("Neg", ["v2"], ["v_scan"])],
        "body",
        [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("cond", B, []),
         helper.make_tensor_value_info("v", F, [2])],
        [helper.make_tensor_value_info("cond_out", B, []),
         helper.make_tensor_value_info("v_out", F, [2]),
         helper.make_tensor_value_info("v_scan", F, [2])])
    g = helper.make_graph(
        [helper.make_node("Loop", ["", "go", "v0"], ["v", "vs"], body=body)],
        "loop_counter",
        [helper.make_tensor_value_info("go", B, []), helper.make_tensor_value_info("v0", F, [2]),
         helper.make_tensor_value_info("step", F, [2]),
         helper.make_tensor_value_info("limit", F, [])],
        [helper.make_tensor_value_info("v", F, [2]),
         helper.make_tensor_value_info("vs", F, ["n", 2])])
    sets = []
    for go, limit in ((True, 10.0), (False, 10.0), (True, -100.0)):
        v0 = np.array([0.25, 0.5], np.float32)
        step = np.array([1.0, 0.5], np.float32)
        v, keep, vs = v0.copy(), go, []
        while keep:
            v = v + step
            vs.append(-v)
            keep = bool(v.sum() < np.float32(limit))
        vs = np.stack(vs) if vs else np.zeros((0, 2), np.float32)  # no iteration: [0, 2]
        sets.append(([np.array(go), v0, step, np.array(limit, np.float32)], [v, vs]))
    save("loop_counter", g, sets)


def scan_directions():
    """Scan (opset 16) with a running-sum state, one scan input along axis 1 read backwards
    and a scan output stacked along axis 1."""
    body = helper.make_graph(
        [helper.make_node("Add", ["s", "e"], ["s2"]),
         helper.make_node("Identity", ["s2"], ["s_out"]),
         helper.make_node("Mul", ["s2", "w"], ["o"])],
        "body",
        [helper.make_tensor_value_info("s", F, [2]), helper.make_tensor_value_info("e", F, [2])],
        [helper.make_tensor_value_info("s_out", F, [2]), helper.make_tensor_value_info("o", F, [2])])
    g = helper.make_graph(
        [helper.make_node("Scan", ["s0", "xs"], ["s", "ys"], body=body, num_scan_inputs=1,
                          scan_input_axes=[1], scan_input_directions=[1], scan_output_axes=[1])],
        "scan_directions",
        [helper.make_tensor_value_info("s0", F, [2]), helper.make_tensor_value_info("xs", F, [2, 4]),
         helper.make_tensor_value_info("w", F, [2])],
        [helper.make_tensor_value_info("s", F, [2]), helper.make_tensor_value_info("ys", F, [2, 4])])
    s0 = rng.standard_normal(2).astype(np.float32)
    xs = rng.standard_normal((2, 4)).astype(np.float32)
    w = rng.standard_normal(2).astype(np.float32)
    s, ys = s0.copy(), []
    for t in reversed(range(4)):
        s = s + xs[:, t]
        ys.append(s * w)
    save("scan_directions", g, [([s0, xs, w], [s, np.stack(ys, axis=1)])])


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def vad_like():
    """What voice-activity detectors do: an If on the sample rate choosing one of two LSTMs
    (each its own weights), an If on the input's length (Shape arithmetic), and the state
    carried in and out. Both Ifs are decided at plan time."""
    hidden, feat = 4, 4
    weights = {}
    branches = {}
    for tag in ("a", "b"):
        w = (rng.standard_normal((1, 4 * hidden, feat)) * 0.5).astype(np.float32)
        r = (rng.standard_normal((1, 4 * hidden, hidden)) * 0.5).astype(np.float32)
        b = (rng.standard_normal((1, 8 * hidden)) * 0.1).astype(np.float32)
        weights[tag] = (w, r, b)
        branches[tag] = helper.make_graph(
            [helper.make_node("LSTM", ["frames", "W_" + tag, "R_" + tag, "B_" + tag, "", "h", "c"],
                              ["", "h_" + tag, "c_" + tag], hidden_size=hidden)],
            "lstm_" + tag, [],
            [helper.make_tensor_value_info("h_" + tag, F, [1, 1, hidden]),
             helper.make_tensor_value_info("c_" + tag, F, [1, 1, hidden])],
            initializer=[numpy_helper.from_array(w, "W_" + tag),
                         numpy_helper.from_array(r, "R_" + tag),
                         numpy_helper.from_array(b, "B_" + tag)])
    long_g = helper.make_graph(
        [helper.make_node("Identity", ["h_new"], ["score_l"])], "long", [],
        [helper.make_tensor_value_info("score_l", F, [1, 1, hidden])])
    short_g = helper.make_graph(
        [helper.make_node("Neg", ["h_new"], ["score_s"])], "short", [],
        [helper.make_tensor_value_info("score_s", F, [1, 1, hidden])])
    g = helper.make_graph(
        [const("frame_shape", np.array([-1, 1, feat], np.int64)),
         helper.make_node("Reshape", ["x", "frame_shape"], ["frames"]),
         const("sr16k", np.int64(16000)), helper.make_node("Equal", ["sr", "sr16k"], ["is16k"]),
         helper.make_node("If", ["is16k"], ["h_new", "c_new"], then_branch=branches["a"],
                          else_branch=branches["b"]),
         helper.make_node("Shape", ["x"], ["xs"]), const("one", np.int64(1)),
         helper.make_node("Gather", ["xs", "one"], ["len"]), const("min_len", np.int64(16)),
         helper.make_node("Less", ["len", "min_len"], ["short"]),
         helper.make_node("If", ["short"], ["score"], then_branch=short_g, else_branch=long_g)],
        "vad_like",
        [helper.make_tensor_value_info("x", F, [1, "n"]), helper.make_tensor_value_info("sr", I64, []),
         helper.make_tensor_value_info("h", F, [1, 1, hidden]),
         helper.make_tensor_value_info("c", F, [1, 1, hidden])],
        [helper.make_tensor_value_info("score", F, [1, 1, hidden]),
         helper.make_tensor_value_info("c_new", F, [1, 1, hidden])])
    sets = []
    for sr, n in ((16000, 32), (8000, 32), (16000, 8)):
        x = rng.standard_normal((1, n)).astype(np.float32)
        h = rng.standard_normal((1, 1, hidden)).astype(np.float32)
        c = rng.standard_normal((1, 1, hidden)).astype(np.float32)
        w, r, b = weights["a" if sr == 16000 else "b"]
        frames = x.reshape(-1, 1, feat).astype(np.float64)
        hh, cc = h[0].astype(np.float64), c[0].astype(np.float64)
        hidden_dim = hidden
        for t in range(frames.shape[0]):
            gts = frames[t] @ w[0].T + hh @ r[0].T + b[0, :4 * hidden_dim] + b[0, 4 * hidden_dim:]
            i, o, f, cg = (gts[:, k * hidden_dim:(k + 1) * hidden_dim] for k in range(4))
            cc = sigmoid(f) * cc + sigmoid(i) * np.tanh(cg)
            hh = sigmoid(o) * np.tanh(cc)
        score = -hh if n < 16 else hh
        sets.append(([x, np.array(sr, np.int64), h, c],
                     [score.reshape(1, 1, hidden).astype(np.float32),
                      cc.reshape(1, 1, hidden).astype(np.float32)]))
    save("vad_like", g, sets, opset=14)


def loop_rnn():
    """A recurrent cell written as a Loop over time: h = tanh(x[i] W + h R), x[i] taken with
    Gather on the iteration number (on the device), the hidden states as a scan output."""
    steps, feat, hidden = 12, 3, 5
    w = rng.standard_normal((feat, hidden)).astype(np.float32)
    r = (rng.standard_normal((hidden, hidden)) * 0.5).astype(np.float32)
    body = helper.make_graph(
        [helper.make_node("Gather", ["xs", "i"], ["xt"], axis=0),
         helper.make_node("MatMul", ["xt", "W"], ["a"]),
         helper.make_node("MatMul", ["h", "R"], ["b"]),
         helper.make_node("Add", ["a", "b"], ["s"]),
         helper.make_node("Tanh", ["s"], ["h_out"]),
         helper.make_node("Identity", ["cond"], ["cond_out"]),
         helper.make_node("Identity", ["h_out"], ["h_scan"])],
        "cell",
        [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("cond", B, []),
         helper.make_tensor_value_info("h", F, [1, hidden])],
        [helper.make_tensor_value_info("cond_out", B, []),
         helper.make_tensor_value_info("h_out", F, [1, hidden]),
         helper.make_tensor_value_info("h_scan", F, [1, hidden])])
    g = helper.make_graph(
        [helper.make_node("Shape", ["xs"], ["xs_shape"]), const("zero", np.int64(0)),
         helper.make_node("Gather", ["xs_shape", "zero"], ["steps"]),
         helper.make_node("Loop", ["steps", "", "h0"], ["h", "hs"], body=body)],
        "loop_rnn",
        [helper.make_tensor_value_info("xs", F, ["t", 1, feat]),
         helper.make_tensor_value_info("h0", F, [1, hidden])],
        [helper.make_tensor_value_info("h", F, [1, hidden]),
         helper.make_tensor_value_info("hs", F, ["t", 1, hidden])],
        initializer=[numpy_helper.from_array(w, "W"), numpy_helper.from_array(r, "R")])
    xs = rng.standard_normal((steps, 1, feat)).astype(np.float32)
    h0 = rng.standard_normal((1, hidden)).astype(np.float32)
    h, hs = h0.astype(np.float64), []
    for t in range(steps):
        h = np.tanh(xs[t] @ w + h @ r)
        hs.append(h)
    save("loop_rnn", g, [([xs, h0], [h.astype(np.float32), np.stack(hs).astype(np.float32)])])


def if_nested_dynamic():
    """An If decided by the sample rate whose branch holds an If on a computed score: the outer
    If cannot be inlined whole, so it runs on its own (its condition known) and its branch is
    planned in segments around the inner one."""
    inner_then = helper.make_graph(
        [helper.make_node("Mul", ["x", "x"], ["it"])], "inner_then", [],
        [helper.make_tensor_value_info("it", F, [4])])
    inner_else = helper.make_graph(
        [helper.make_node("Sub", ["x", "x"], ["ie"])], "inner_else", [],
        [helper.make_tensor_value_info("ie", F, [4])])
    then_g = helper.make_graph(
        [helper.make_node("ReduceMax", ["x"], ["mx"], keepdims=0),
         const("zero_f", np.float32(0)), helper.make_node("Greater", ["mx", "zero_f"], ["pos"]),
         helper.make_node("If", ["pos"], ["t0"], then_branch=inner_then, else_branch=inner_else),
         helper.make_node("Add", ["t0", "x"], ["t1"])],
        "then", [], [helper.make_tensor_value_info("t1", F, [4])])
    else_g = helper.make_graph(
        [helper.make_node("Abs", ["x"], ["e1"])], "else", [],
        [helper.make_tensor_value_info("e1", F, [4])])
    g = helper.make_graph(
        [const("sr16k", np.int64(16000)), helper.make_node("Equal", ["sr", "sr16k"], ["c"]),
         helper.make_node("If", ["c"], ["y0"], then_branch=then_g, else_branch=else_g),
         helper.make_node("Sigmoid", ["y0"], ["y"])],
        "if_nested_dynamic",
        [helper.make_tensor_value_info("sr", I64, []), helper.make_tensor_value_info("x", F, [4])],
        [helper.make_tensor_value_info("y", F, [4])])
    sets = []
    for sr, sign in ((16000, 1), (16000, -1), (8000, 1)):
        x = (np.abs(rng.standard_normal(4)) * sign).astype(np.float32)
        if sr == 16000:
            y0 = (x * x if x.max() > 0 else x - x) + x
        else:
            y0 = np.abs(x)
        sets.append(([np.array(sr, np.int64), x], [1 / (1 + np.exp(-y0))]))
    save("if_nested_dynamic", g, sets)


def if_refused():
    """An op alknet does not implement inside a branch: refused at load, the message naming the
    path to the node (no data sets)."""
    then_g = helper.make_graph(
        [const("axes", np.array([0], np.int64)),
         helper.make_node("Unsqueeze", ["x", "axes"], ["x2"]),
         helper.make_node("Multinomial", ["x2"], ["draws"], sample_size=4),
         helper.make_node("Squeeze", ["draws", "axes"], ["d1"]),
         helper.make_node("Cast", ["d1"], ["t"], to=F)], "then", [],
        [helper.make_tensor_value_info("t", F, [4])])
    else_g = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["e"])], "else", [],
        [helper.make_tensor_value_info("e", F, [4])])
    g = helper.make_graph(
        [helper.make_node("If", ["c"], ["y"], name="pick", then_branch=then_g,
                          else_branch=else_g)],
        "if_refused",
        [helper.make_tensor_value_info("c", B, []), helper.make_tensor_value_info("x", F, [4])],
        [helper.make_tensor_value_info("y", F, [4])])
    save("if_refused", g, [])


def loop_initializer_inputs():
    """A Loop whose trip count, condition and initial loop-carried value are initializers (as
    exporters write a fixed decode length), and a NonZero on a value computed on the device whose
    indices feed a device op (a host op between plan segments)."""
    body = helper.make_graph(
        [helper.make_node("Mul", ["v", "x"], ["v2"]),
         helper.make_node("Identity", ["cond"], ["cond_out"]),
         helper.make_node("Identity", ["v2"], ["v_out"])],
        "body",
        [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("cond", B, []),
         helper.make_tensor_value_info("v", F, [3])],
        [helper.make_tensor_value_info("cond_out", B, []),
         helper.make_tensor_value_info("v_out", F, [3])])
    inits = [numpy_helper.from_array(np.array(3, np.int64), "trips"),
             numpy_helper.from_array(np.array(True), "always"),
             numpy_helper.from_array(np.ones(3, np.float32), "v0"),
             numpy_helper.from_array(np.array(0.0, np.float32), "zero")]
    g = helper.make_graph(
        [helper.make_node("Loop", ["trips", "always", "v0"], ["v"], body=body),
         helper.make_node("Greater", ["x", "zero"], ["positive"]),
         helper.make_node("NonZero", ["positive"], ["where"]),
         helper.make_node("Flatten", ["where"], ["where2d"], axis=0),
         helper.make_node("Squeeze", ["where2d", "axes0"], ["idx"]),
         helper.make_node("Gather", ["x", "idx"], ["picked"], axis=0)],
        "loop_initializer_inputs",
        [helper.make_tensor_value_info("x", F, [3])],
        [helper.make_tensor_value_info("v", F, [3]),
         helper.make_tensor_value_info("picked", F, ["n"])],
        inits + [numpy_helper.from_array(np.array([0], np.int64), "axes0")])
    sets = []
    for x in (np.array([2.0, -1.0, 0.5], np.float32), np.array([-1.0, -2.0, -3.0], np.float32)):
        sets.append(([x], [x ** 3, x[x > 0]]))
    save("loop_initializer_inputs", g, sets)


def loop_unroll():
    """Four Loops with trip counts known at plan time. `cell`: a constant-true condition, the
    carried state feeding the next iteration and the iteration number read (unrolled).
    `count`: the condition computed from the iteration number (i < 2), so known at plan time
    and false after three iterations (unrolled, stopping early). `grow`: the condition computed
    from the data (sum < limit), ending early at run time (run iteration by iteration).
    `none`: a trip count of 0 (the initial value, an empty [0, 3] scan output)."""
    w = (rng.standard_normal((4, 4)) * 0.5).astype(np.float32)
    tv = helper.make_tensor_value_info
    cell = helper.make_graph(
        [helper.make_node("MatMul", ["h", "w"], ["hw"]),
         helper.make_node("Cast", ["i"], ["fi"], to=F),
         helper.make_node("Mul", ["fi", "tenth"], ["shift"]),
         helper.make_node("Add", ["hw", "shift"], ["pre"]),
         helper.make_node("Tanh", ["pre"], ["h_out"]),
         helper.make_node("Identity", ["cond"], ["cond_out"]),
         helper.make_node("Identity", ["h_out"], ["h_scan"])],
        "cell", [tv("i", I64, []), tv("cond", B, []), tv("h", F, [1, 4])],
        [tv("cond_out", B, []), tv("h_out", F, [1, 4]), tv("h_scan", F, [1, 4])],
        initializer=[numpy_helper.from_array(np.array(0.1, np.float32), "tenth")])
    count = helper.make_graph(
        [helper.make_node("Add", ["acc", "x"], ["acc_out"]),
         helper.make_node("Less", ["i", "two"], ["cond_out"]),
         helper.make_node("Identity", ["acc_out"], ["acc_scan"])],
        "count", [tv("i", I64, []), tv("cond", B, []), tv("acc", F, [3])],
        [tv("cond_out", B, []), tv("acc_out", F, [3]), tv("acc_scan", F, [3])],
        initializer=[numpy_helper.from_array(np.array(2, np.int64), "two")])
    grow = helper.make_graph(
        [helper.make_node("Add", ["v", "x"], ["v_out"]),
         helper.make_node("ReduceSum", ["v_out"], ["s"], keepdims=0),
         helper.make_node("Less", ["s", "limit"], ["cond_out"]),
         helper.make_node("Identity", ["v_out"], ["v_scan"])],
        "grow", [tv("i", I64, []), tv("cond", B, []), tv("v", F, [3])],
        [tv("cond_out", B, []), tv("v_out", F, [3]), tv("v_scan", F, [3])])
    none = helper.make_graph(
        [helper.make_node("Add", ["z", "x"], ["z_out"]),
         helper.make_node("Identity", ["cond"], ["cond_out"]),
         helper.make_node("Identity", ["z_out"], ["z_scan"])],
        "none", [tv("i", I64, []), tv("cond", B, []), tv("z", F, [3])],
        [tv("cond_out", B, []), tv("z_out", F, [3]), tv("z_scan", F, [3])])
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(np.array(5, np.int64), "five"),
             numpy_helper.from_array(np.array(10, np.int64), "ten"),
             numpy_helper.from_array(np.array(0, np.int64), "zero_trips"),
             numpy_helper.from_array(np.array(True), "always")]
    g = helper.make_graph(
        [helper.make_node("Loop", ["five", "always", "h0"], ["h", "hs"], body=cell),
         helper.make_node("Loop", ["ten", "always", "x"], ["acc", "accs"], body=count),
         helper.make_node("Loop", ["ten", "always", "x"], ["v", "vs"], body=grow),
         helper.make_node("Loop", ["zero_trips", "always", "x"], ["z", "zs"], body=none)],
        "loop_unroll",
        [tv("h0", F, [1, 4]), tv("x", F, [3]), tv("limit", F, [])],
        [tv("h", F, [1, 4]), tv("hs", F, [5, 1, 4]), tv("acc", F, [3]), tv("accs", F, ["n", 3]),
         tv("v", F, [3]), tv("vs", F, ["m", 3]), tv("z", F, [3]), tv("zs", F, [0, 3])],
        inits)
    sets = []
    for limit in (4.0, 100.0):
        h0 = rng.standard_normal((1, 4)).astype(np.float32)
        x = np.abs(rng.standard_normal(3)).astype(np.float32) + np.float32(0.5)
        h, hs = h0.astype(np.float64), []
        for i in range(5):
            h = np.tanh(h @ w + 0.1 * i)
            hs.append(h.astype(np.float32))
        acc, accs = x.copy(), []
        for i in range(10):
            acc = acc + x
            accs.append(acc)
            if not i < 2:
                break
        v, vs = x.copy(), []
        for i in range(10):
            v = v + x
            vs.append(v)
            if not v.sum() < np.float32(limit):
                break
        sets.append(([h0, x, np.array(limit, np.float32)],
                     [h.astype(np.float32), np.stack(hs), acc, np.stack(accs), v, np.stack(vs), x,
                      np.zeros((0, 3), np.float32)]))
    save("loop_unroll", g, sets)


if __name__ == "__main__":
    loop_initializer_inputs()
    if_sample_rate()
    if_score()
    loop_nested_if()
    loop_counter()
    scan_directions()
    if_refused()
    vad_like()
    loop_rnn()
    if_nested_dynamic()
    loop_unroll()
