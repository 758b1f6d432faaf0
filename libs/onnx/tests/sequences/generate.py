#!/usr/bin/python3
"""Generates the sequence and optional test models of libs/onnx/tests in the ONNX backend-test
layout: <name>/model.onnx and <name>/test_data_set_N/{input,output}_K.pb, where a sequence is a
SequenceProto file and an optional an OptionalProto file (as in ONNX's own node tests).
Expected outputs are computed here with numpy, independently of alknet. Hostile models have
an `error.txt` instead of outputs: the text alknet's error must contain.
Run it again after changing a model: /usr/bin/python3 libs/onnx/tests/sequences/generate.py"""
import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
rng = np.random.default_rng(1414)


def const(name, value):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.array(value)))


def seq_info(name, elem, shape=None):
    return helper.make_value_info(
        name, helper.make_sequence_type_proto(helper.make_tensor_type_proto(elem, shape)))


def opt_info(name, elem, shape=None):
    return helper.make_value_info(
        name, helper.make_optional_type_proto(helper.make_tensor_type_proto(elem, shape)))


def encode(value, name, info):
    """A value as the proto file ONNX's test data uses for its declared type."""
    t = info.type
    if t.HasField("optional_type"):
        o = onnx.OptionalProto()
        o.name = name
        if value is None:
            o.elem_type = onnx.OptionalProto.TENSOR
        else:
            o.elem_type = onnx.OptionalProto.TENSOR
            o.tensor_value.CopyFrom(numpy_helper.from_array(np.asarray(value), name))
        return o.SerializeToString()
    if t.HasField("sequence_type"):
        s = onnx.SequenceProto()
        s.name = name
        s.elem_type = onnx.SequenceProto.TENSOR
        for v in value:
            s.tensor_values.append(numpy_helper.from_array(np.asarray(v)))
        return s.SerializeToString()
    return numpy_helper.from_array(np.asarray(value), name).SerializeToString()


def save(name, graph, datasets, opset=17, error=None):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    d = os.path.join(HERE, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    onnx.save(model, os.path.join(d, "model.onnx"))
    if error is not None:
        open(os.path.join(d, "error.txt"), "w").write(error + "\n")
    for k, (inputs, outputs) in enumerate(datasets):
        ds = os.path.join(d, "test_data_set_%d" % k)
        os.makedirs(ds)
        for i, v in enumerate(inputs):
            info = graph.input[i]
            open(os.path.join(ds, "input_%d.pb" % i), "wb").write(encode(v, info.name, info))
        for i, v in enumerate(outputs):
            info = graph.output[i]
            open(os.path.join(ds, "output_%d.pb" % i), "wb").write(encode(v, info.name, info))


def loop_builds_sequence():
    """A Loop whose loop-carried value is a sequence: each iteration appends x * i; the
    sequence, its length and the tensors stacked along a new axis are outputs. Zero
    iterations give the empty sequence."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Cast", ["i"], ["fi"], to=F),
         helper.make_node("Mul", ["x", "fi"], ["xi"]),
         helper.make_node("SequenceInsert", ["seq_in", "xi"], ["seq_out"])],
        "body",
        [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("cond_in", B, []),
         seq_info("seq_in", F)],
        [helper.make_tensor_value_info("cond_out", B, []), seq_info("seq_out", F)])
    g = helper.make_graph(
        [helper.make_node("SequenceEmpty", [], ["empty"], dtype=F),
         helper.make_node("Loop", ["trips", "", "empty"], ["seq"], body=body),
         helper.make_node("SequenceLength", ["seq"], ["len"])],
        "loop_builds_sequence",
        [helper.make_tensor_value_info("trips", I64, []), helper.make_tensor_value_info("x", F, [2, 3])],
        [seq_info("seq", F), helper.make_tensor_value_info("len", I64, [])])
    sets = []
    for trips in (4, 0, 1):
        x = rng.standard_normal((2, 3)).astype(np.float32)
        seq = [x * np.float32(i) for i in range(trips)]
        sets.append(([np.array(trips, np.int64), x], [seq, np.array(trips, np.int64)]))
    save("loop_builds_sequence", g, sets)


def loop_stacks_sequence():
    """The same loop, its sequence concatenated along a new axis after the loop."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Cast", ["i"], ["fi"], to=F),
         helper.make_node("Add", ["x", "fi"], ["xi"]),
         helper.make_node("SequenceInsert", ["seq_in", "xi"], ["seq_out"])],
        "body",
        [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("cond_in", B, []),
         seq_info("seq_in", F)],
        [helper.make_tensor_value_info("cond_out", B, []), seq_info("seq_out", F)])
    g = helper.make_graph(
        [helper.make_node("SequenceEmpty", [], ["empty"], dtype=F),
         helper.make_node("Loop", ["trips", "", "empty"], ["seq"], body=body),
         helper.make_node("ConcatFromSequence", ["seq"], ["stacked"], axis=0, new_axis=1)],
        "loop_stacks_sequence",
        [helper.make_tensor_value_info("trips", I64, []), helper.make_tensor_value_info("x", F, [3])],
        [helper.make_tensor_value_info("stacked", F, ["n", 3])])
    sets = []
    for trips in (3, 1):
        x = rng.standard_normal(3).astype(np.float32)
        sets.append(([np.array(trips, np.int64), x],
                     [np.stack([x + np.float32(i) for i in range(trips)])]))
    save("loop_stacks_sequence", g, sets)


def sequence_map():
    """SequenceMap over a sequence of tensors of different lengths and a tensor: the body
    adds the tensor's sum and also returns each element's shape."""
    body = helper.make_graph(
        [helper.make_node("ReduceSum", ["b"], ["s"], keepdims=0),
         helper.make_node("Add", ["a", "s"], ["out"]),
         helper.make_node("Shape", ["a"], ["shape"])],
        "body",
        [helper.make_tensor_value_info("a", F, ["n"]), helper.make_tensor_value_info("b", F, [2])],
        [helper.make_tensor_value_info("out", F, ["n"]), helper.make_tensor_value_info("shape", I64, [1])])
    g = helper.make_graph(
        [helper.make_node("SequenceMap", ["xs", "y"], ["outs", "shapes"], body=body)],
        "sequence_map",
        [seq_info("xs", F, ["n"]), helper.make_tensor_value_info("y", F, [2])],
        [seq_info("outs", F, ["n"]), seq_info("shapes", I64, [1])])
    sets = []
    for lengths in ((3, 1, 5), (2,)):
        xs = [rng.standard_normal(n).astype(np.float32) for n in lengths]
        y = rng.standard_normal(2).astype(np.float32)
        sets.append(([xs, y], [[x + y.sum() for x in xs],
                               [np.array([len(x)], np.int64) for x in xs]]))
    save("sequence_map", g, sets)


def optional_input():
    """An optional input: present, its Relu; absent, zeros. OptionalHasElement decides an If
    at plan time (one plan per case)."""
    then_g = helper.make_graph(
        [helper.make_node("OptionalGetElement", ["x"], ["xv"]),
         helper.make_node("Relu", ["xv"], ["t"])], "then", [],
        [helper.make_tensor_value_info("t", F, [3])])
    else_g = helper.make_graph(
        [const("e", np.zeros(3, np.float32))], "else", [],
        [helper.make_tensor_value_info("e", F, [3])])
    g = helper.make_graph(
        [helper.make_node("OptionalHasElement", ["x"], ["has"]),
         helper.make_node("If", ["has"], ["y"], then_branch=then_g, else_branch=else_g)],
        "optional_input", [opt_info("x", F, [3])],
        [helper.make_tensor_value_info("y", F, [3]), helper.make_tensor_value_info("has", B, [])])
    x = rng.standard_normal(3).astype(np.float32)
    sets = [([x], [np.maximum(x, 0), np.array(True)]),
            ([None], [np.zeros(3, np.float32), np.array(False)])]
    save("optional_input", g, sets)


def split_and_concat():
    """SplitToSequence with sizes from an input (read on the host), the last piece, the
    pieces concatenated back, and a split into single rows without the axis."""
    g = helper.make_graph(
        [helper.make_node("SplitToSequence", ["x", "sizes"], ["pieces"], axis=1),
         const("last", np.int64(-1)),
         helper.make_node("SequenceAt", ["pieces", "last"], ["tail"]),
         helper.make_node("SequenceErase", ["pieces"], ["front"]),
         helper.make_node("ConcatFromSequence", ["pieces"], ["back"], axis=1),
         helper.make_node("SplitToSequence", ["x"], ["rows"], axis=0, keepdims=0),
         helper.make_node("SequenceLength", ["front"], ["nfront"])],
        "split_and_concat",
        [helper.make_tensor_value_info("x", F, [3, 5]), helper.make_tensor_value_info("sizes", I64, [2])],
        [helper.make_tensor_value_info("tail", F, [3, "k"]), helper.make_tensor_value_info("back", F, [3, 5]),
         seq_info("rows", F, [5]), helper.make_tensor_value_info("nfront", I64, [])])
    sets = []
    for sizes in ((2, 3), (4, 1)):
        x = rng.standard_normal((3, 5)).astype(np.float32)
        sets.append(([x, np.array(sizes, np.int64)],
                     [x[:, sizes[0]:], x, [x[r] for r in range(3)], np.array(1, np.int64)]))
    save("split_and_concat", g, sets)


def hostile():
    """Models that must fail with a clear error, never a crash."""
    g = helper.make_graph(
        [helper.make_node("SequenceConstruct", ["a", "b"], ["s"]),
         helper.make_node("SequenceAt", ["s", "pos"], ["y"])],
        "hostile_sequence_at",
        [helper.make_tensor_value_info("a", F, [2]), helper.make_tensor_value_info("b", F, [2]),
         helper.make_tensor_value_info("pos", I64, [])],
        [helper.make_tensor_value_info("y", F, [2])])
    save("hostile_sequence_at", g,
         [([np.ones(2, np.float32), np.ones(2, np.float32), np.array(5, np.int64)], [])],
         error="position 5 is out of range for a sequence of 2 tensors")

    g = helper.make_graph(
        [helper.make_node("SequenceConstruct", ["a", "b"], ["s"]),
         helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=0)],
        "hostile_concat_shapes",
        [helper.make_tensor_value_info("a", F, [2, 3]), helper.make_tensor_value_info("b", F, [2, 4])],
        [helper.make_tensor_value_info("y", F, [4, "k"])])
    save("hostile_concat_shapes", g,
         [([np.ones((2, 3), np.float32), np.ones((2, 4), np.float32)], [])],
         error="(Concat for ConcatFromSequence")

    g = helper.make_graph(
        [const("shape", np.array([100000], np.int64)),
         helper.make_node("ConstantOfShape", ["shape"], ["x"]),
         helper.make_node("Add", ["x", "one"], ["x1"]),
         helper.make_node("SplitToSequence", ["x1"], ["s"], axis=0),
         helper.make_node("SequenceLength", ["s"], ["n"])],
        "hostile_split_count",
        [helper.make_tensor_value_info("one", F, [1])],
        [helper.make_tensor_value_info("n", I64, [])])
    save("hostile_split_count", g, [([np.ones(1, np.float32)], [])],
         error="more than the limit of 65536")


def sequence_map_stacked():
    """SequenceMap over equal chunks of a SplitToSequence (planned once over the stacked
    chunks): Gemm, Relu, MatMul, Add, Softmax, Transpose, and a broadcast with a tensor input;
    the results concatenated along axis 0 (a reshape of the stacked form), along axis 1 and
    with a new axis, and one sequence returned as it is (its elements observed)."""
    w1 = rng.standard_normal((5, 4)).astype(np.float32)
    b1 = rng.standard_normal(4).astype(np.float32)
    w2 = rng.standard_normal((4, 4)).astype(np.float32)
    b2 = rng.standard_normal(4).astype(np.float32)
    body = helper.make_graph(
        [helper.make_node("Gemm", ["c", "w1", "b1"], ["h"]),
         helper.make_node("Relu", ["h"], ["r"]),
         helper.make_node("MatMul", ["r", "w2"], ["m"]),
         helper.make_node("Add", ["m", "b2"], ["a"]),
         helper.make_node("Softmax", ["a"], ["p"], axis=1),
         helper.make_node("Transpose", ["p"], ["out"], perm=[1, 0]),
         helper.make_node("Mul", ["c", "y"], ["prod"])],
        "body",
        [helper.make_tensor_value_info("c", F, [3, 5]), helper.make_tensor_value_info("y", F, [5])],
        [helper.make_tensor_value_info("out", F, [4, 3]), helper.make_tensor_value_info("prod", F, [3, 5])],
        initializer=[numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(b1, "b1"),
                     numpy_helper.from_array(w2, "w2"), numpy_helper.from_array(b2, "b2")])
    g = helper.make_graph(
        [const("three", np.int64(3)),
         helper.make_node("SplitToSequence", ["x", "three"], ["chunks"], axis=0),
         helper.make_node("SequenceMap", ["chunks", "y"], ["outs", "prods"], body=body),
         helper.make_node("ConcatFromSequence", ["outs"], ["rows"], axis=0),
         helper.make_node("ConcatFromSequence", ["outs"], ["cols"], axis=1),
         helper.make_node("ConcatFromSequence", ["prods"], ["stack"], axis=0, new_axis=1)],
        "sequence_map_stacked",
        [helper.make_tensor_value_info("x", F, [12, 5]), helper.make_tensor_value_info("y", F, [5])],
        [helper.make_tensor_value_info("rows", F, [16, 3]), helper.make_tensor_value_info("cols", F, [4, 12]),
         helper.make_tensor_value_info("stack", F, [4, 3, 5]), seq_info("prods", F, [3, 5])])
    x = rng.standard_normal((12, 5)).astype(np.float32)
    y = rng.standard_normal(5).astype(np.float32)
    outs, prods = [], []
    for k in range(4):
        c = x[3 * k:3 * k + 3].astype(np.float64)
        a = np.maximum(c @ w1 + b1, 0) @ w2 + b2
        e = np.exp(a - a.max(axis=1, keepdims=True))
        outs.append((e / e.sum(axis=1, keepdims=True)).T.astype(np.float32))
        prods.append((c * y).astype(np.float32))
    save("sequence_map_stacked", g,
         [([x, y], [np.concatenate(outs, 0), np.concatenate(outs, 1), np.stack(prods), prods])])


def sequence_map_unbatched():
    """SequenceMap over equal-shape elements whose body reduces each element (ReduceMax over
    its axis 0): not rewritten for a stacked axis, planned per element."""
    body = helper.make_graph(
        [helper.make_node("ReduceMax", ["c"], ["mx"], axes=[0], keepdims=0),
         helper.make_node("Neg", ["mx"], ["out"])],
        "body", [helper.make_tensor_value_info("c", F, [2, 3])],
        [helper.make_tensor_value_info("out", F, [3])])
    g = helper.make_graph(
        [helper.make_node("SplitToSequence", ["x"], ["rows"], axis=0, keepdims=0),
         helper.make_node("SequenceMap", ["rows"], ["maxes"], body=body),
         helper.make_node("ConcatFromSequence", ["maxes"], ["y"], axis=0, new_axis=1)],
        "sequence_map_unbatched", [helper.make_tensor_value_info("x", F, [4, 2, 3])],
        [helper.make_tensor_value_info("y", F, [4, 3])])
    x = rng.standard_normal((4, 2, 3)).astype(np.float32)
    save("sequence_map_unbatched", g, [([x], [-x.max(axis=1)])])


if __name__ == "__main__":
    loop_builds_sequence()
    loop_stacks_sequence()
    sequence_map()
    optional_input()
    split_and_concat()
    hostile()
    sequence_map_stacked()
    sequence_map_unbatched()
