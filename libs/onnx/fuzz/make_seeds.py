#!/usr/bin/python3
"""Writes the seed corpus of the ONNX model fuzz target (fuzz_model.cpp) with python3-onnx.

    /usr/bin/python3 libs/onnx/fuzz/make_seeds.py [--check]

Small valid models, each reaching a different part of what the target exercises: initializers
of every dtype the importer decodes, stored as raw_data and as typed fields, TENSOR attributes
(Constant), subgraph attributes (If), external data (refused without a base folder), empty and
scalar tensors. The replay test (onnx_fuzz_replay) runs each file, every prefix of it and seeded
mutations. --check: exit 1 if the checked-in files differ from what this script writes.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds")


def model(nodes, inputs, outputs, inits, opset=13, name="seed"):
    g = helper.make_graph(nodes, name, inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="alknet-fuzz-seeds")
    m.ir_version = 8
    return m


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def seeds():
    rng = np.random.default_rng(1202)
    out = {}

    # One Add with a float initializer in raw_data.
    w = rng.standard_normal((2, 3)).astype(np.float32)
    out["add_raw_f32"] = model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                               [vi("x", TensorProto.FLOAT, [2, 3])],
                               [vi("y", TensorProto.FLOAT, [2, 3])],
                               [numpy_helper.from_array(w, "w")])

    # Initializers in typed fields (float_data, int64_data, int32_data, double_data) and raw.
    typed = [
        helper.make_tensor("f", TensorProto.FLOAT, [3], [1.5, -2.0, 0.25]),
        helper.make_tensor("i64", TensorProto.INT64, [2, 2], [1, -2, 3, 2**40]),
        helper.make_tensor("i32", TensorProto.INT32, [4], [7, -7, 0, 2**31 - 1]),
        helper.make_tensor("d", TensorProto.DOUBLE, [2], [3.141592653589793, -1e300]),
        helper.make_tensor("u8", TensorProto.UINT8, [3], [0, 128, 255]),
        helper.make_tensor("b", TensorProto.BOOL, [2], [True, False]),
        helper.make_tensor("h", TensorProto.FLOAT16, [2],
                           np.array([1.0, -0.5], np.float16).view(np.uint16).tolist()),
        numpy_helper.from_array(np.arange(6, dtype=np.int8).reshape(2, 3), "i8raw"),
        numpy_helper.from_array(np.array([1.0, 2.0], np.float64), "draw"),
    ]
    out["typed_initializers"] = model([helper.make_node("Identity", ["f"], ["y"], name="id")],
                                      [], [vi("y", TensorProto.FLOAT, [3])], typed)

    # Scalars and empty tensors.
    out["scalar_and_empty"] = model(
        [helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")],
        [vi("x", TensorProto.FLOAT, [1, 4])], [vi("y", TensorProto.FLOAT, [4])],
        [numpy_helper.from_array(np.array([4], np.int64), "shape"),
         numpy_helper.from_array(np.array(2.5, np.float32), "scalar"),
         numpy_helper.from_array(np.zeros((0, 3), np.float32), "empty")])

    # TENSOR attributes: Constant with value, and attributes of every scalar/list kind.
    c = numpy_helper.from_array(rng.standard_normal((2, 2)).astype(np.float32), "c")
    out["constant_attrs"] = model(
        [helper.make_node("Constant", [], ["k"], name="const", value=c),
         helper.make_node("Gemm", ["x", "k"], ["y"], name="gemm", alpha=0.5, beta=1.0, transB=1),
         helper.make_node("Transpose", ["y"], ["z"], name="tr", perm=[1, 0])],
        [vi("x", TensorProto.FLOAT, [2, 2])], [vi("z", TensorProto.FLOAT, [2, 2])], [])

    # String attribute and ints list (Pad mode, Conv attributes).
    wconv = rng.standard_normal((2, 1, 3, 3)).astype(np.float32)
    out["conv_attrs"] = model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="conv", kernel_shape=[3, 3],
                          pads=[1, 1, 1, 1], strides=[1, 1], auto_pad="NOTSET", group=1)],
        [vi("x", TensorProto.FLOAT, [1, 1, 5, 5])], [vi("y", TensorProto.FLOAT, [1, 2, 5, 5])],
        [numpy_helper.from_array(wconv, "w")])

    # A subgraph attribute (If with two branches).
    then_g = helper.make_graph([helper.make_node("Constant", [], ["t"], value=numpy_helper.from_array(
        np.array([1.0], np.float32), "tv"))], "then", [], [vi("t", TensorProto.FLOAT, [1])])
    else_g = helper.make_graph([helper.make_node("Constant", [], ["e"], value=numpy_helper.from_array(
        np.array([0.0], np.float32), "ev"))], "else", [], [vi("e", TensorProto.FLOAT, [1])])
    out["if_subgraphs"] = model(
        [helper.make_node("If", ["cond"], ["y"], name="if", then_branch=then_g, else_branch=else_g)],
        [vi("cond", TensorProto.BOOL, [])], [vi("y", TensorProto.FLOAT, [1])], [])

    # External data: the target decodes with no base folder, so this must be refused cleanly.
    ext = TensorProto()
    ext.name, ext.data_type = "ext", TensorProto.FLOAT
    ext.dims.extend([4])
    ext.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "weights.bin"), ("offset", "0"), ("length", "16")):
        e = ext.external_data.add()
        e.key, e.value = k, v
    out["external_data"] = model([helper.make_node("Identity", ["ext"], ["y"], name="id")],
                                 [], [vi("y", TensorProto.FLOAT, [4])], [ext])

    # A small MLP: MatMul, Add, Relu, Softmax, several initializers.
    w1 = rng.standard_normal((8, 16)).astype(np.float32)
    w2 = rng.standard_normal((16, 4)).astype(np.float32)
    out["mlp"] = model(
        [helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
         helper.make_node("Relu", ["h"], ["r"], name="relu"),
         helper.make_node("MatMul", ["r", "w2"], ["l"], name="fc2"),
         helper.make_node("Softmax", ["l"], ["y"], name="softmax", axis=-1)],
        [vi("x", TensorProto.FLOAT, [1, 8])], [vi("y", TensorProto.FLOAT, [1, 4])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")], opset=17)

    for name, m in out.items():
        if name != "external_data":  # the checker wants weights.bin to exist
            onnx.checker.check_model(m)
    return {k + ".onnx": v.SerializeToString(deterministic=True) for k, v in out.items()}


def main():
    check = "--check" in sys.argv[1:]
    want = seeds()
    if check:
        have = {f for f in os.listdir(HERE) if f.endswith(".onnx") and not f.startswith("crash-")}
        bad = sorted(f for f in want if not os.path.isfile(os.path.join(HERE, f))
                     or open(os.path.join(HERE, f), "rb").read() != want[f])
        bad += sorted(have - set(want))
        if bad:
            print("make_seeds.py --check: differ from the generator: " + ", ".join(bad))
            return 1
        print(f"make_seeds.py --check: {len(want)} seeds up to date")
        return 0
    os.makedirs(HERE, exist_ok=True)
    for name, data in want.items():
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(data)
    print(f"wrote {len(want)} seeds to {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
