#!/usr/bin/python3
"""`alknet infer` on hostile ONNX models (issue 18): every one must end with exit 1 and a
message naming the node or tensor, never a signal, an allocation failure or a silently wrong
output. Models are built here with python3-onnx; the crashers found by fuzzing are the files
in libs/onnx/fuzz/crashers.

    /usr/bin/python3 apps/alknet/tests/onnx_hostile_test.py ALKNET CRASHERS_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ALKNET = sys.argv[1]
CRASHERS = sys.argv[2]


def run(args, expect, timeout=120):
    p = subprocess.run([ALKNET] + args, capture_output=True, text=True, timeout=timeout)
    assert p.returncode == expect, (
        f"{args}: exit {p.returncode}, wanted {expect}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    return p


def model(nodes, inputs, outputs, inits, opset=17):
    g = helper.make_graph(nodes, "hostile", inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def save(m, work, name):
    path = os.path.join(work, name)
    onnx.save(m, path)
    return path


def i64(name, values):
    return numpy_helper.from_array(np.array(values, np.int64), name)


def out(name="y", dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, None)


def test_crashers():
    files = sorted(f for f in os.listdir(CRASHERS) if f.endswith(".onnx"))
    assert len(files) >= 25, files
    for f in files:
        path = os.path.join(CRASHERS, f)
        m = onnx.load(path)
        op = m.graph.node[0].op_type
        p = run(["infer", path], expect=1)
        # The error names the node: its index, its name if it has one, and its op type.
        name = m.graph.node[0].name
        named = f"node 0 '{name}' ({op}, opset " if name else f"node 0 ({op}, opset "
        assert named in p.stderr, (f, p.stderr)
    print(f"crashers: {len(files)} files, each refused with the node named")


def test_overflow(work):
    big = 2 ** 32
    cases = {
        # Tile of a [1,1] input by [2^31, 2^31]: 2^62 elements, 2^64 bytes.
        "tile": model([helper.make_node("Tile", ["x", "r"], ["y"], name="tile")],
                      [], [out()],
                      [numpy_helper.from_array(np.ones((1, 1), np.float32), "x"),
                       i64("r", [2 ** 31, 2 ** 31])]),
        "expand": model([helper.make_node("Expand", ["x", "s"], ["y"], name="expand")],
                        [], [out()],
                        [numpy_helper.from_array(np.ones((1,), np.float32), "x"),
                         i64("s", [big, big])]),
        "constant_of_shape": model(
            [helper.make_node("ConstantOfShape", ["s"], ["y"], name="fill")], [], [out()],
            [i64("s", [big, big])]),
    }
    for name, m in cases.items():
        path = save(m, work, name + ".onnx")
        npy = os.path.join(work, name + ".npy")
        p = run(["infer", path, "--output", npy], expect=1)
        node = m.graph.node[0]
        assert f"'{node.name}'" in p.stderr and node.op_type in p.stderr, p.stderr
        assert "2^63" in p.stderr or "memory budget" in p.stderr, p.stderr
        assert "= []" not in p.stdout and not os.path.exists(npy), (p.stdout, npy)
    print("overflow: ok")


def test_budget(work):
    # ConstantOfShape to [1e6, 1e6] (4e12 bytes) and [50000, 50000] (1e10 bytes): over the
    # 4 GiB default, refused before anything is allocated.
    for dims in ([10 ** 6, 10 ** 6], [50000, 50000]):
        m = model([helper.make_node("ConstantOfShape", ["s"], ["y"], name="fill")], [], [out()],
                  [i64("s", dims)])
        p = run(["infer", save(m, work, "cos.onnx")], expect=1)
        assert "'fill'" in p.stderr and "memory budget of 4294967296" in p.stderr, p.stderr
        want = str(dims[0] * dims[1] * 4)
        assert want in p.stderr, (want, p.stderr)

    # Range with a NaN limit: no element count at all.
    m = model([helper.make_node("Range", ["a", "b", "d"], ["y"], name="range")], [], [out()],
              [numpy_helper.from_array(np.array(v, np.float32), n)
               for n, v in (("a", 0), ("b", np.nan), ("d", 1))])
    p = run(["infer", save(m, work, "range.onnx")], expect=1)
    assert "'range'" in p.stderr and "no finite element count" in p.stderr, p.stderr

    # An external initializer of 2^34 floats in a sparse file: refused from its declared size.
    data = os.path.join(work, "w.bin")
    with open(data, "wb") as f:
        f.truncate(2 ** 34 * 4)
    w = TensorProto()
    w.name, w.data_type = "w", TensorProto.FLOAT
    w.dims.append(2 ** 34)
    w.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "w.bin"), ("offset", "0"), ("length", str(2 ** 34 * 4))):
        e = w.external_data.add()
        e.key, e.value = k, v
    m = model([helper.make_node("Identity", ["w"], ["y"])], [], [out()], [w])
    p = run(["infer", save(m, work, "external.onnx")], expect=1)
    assert "initializer 'w'" in p.stderr and "memory budget" in p.stderr, p.stderr
    os.remove(data)

    # --max-memory lowers the budget: 1000 floats (4000 bytes) fit in 4K, not in 3K.
    b = numpy_helper.from_array(np.arange(1000, dtype=np.float32), "b")
    m = model([helper.make_node("Add", ["x", "b"], ["y"], name="add")],
              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1000])], [out()], [b])
    path = save(m, work, "add.onnx")
    x = os.path.join(work, "x.npy")
    np.save(x, np.ones(1000, np.float32))
    y = os.path.join(work, "y.npy")
    run(["infer", path, "--input", f"x={x}", "--max-memory", "8K", "--output", y], expect=0)
    assert np.array_equal(np.load(y), np.arange(1000, dtype=np.float32) + 1)
    p = run(["infer", path, "--input", f"x={x}", "--max-memory", "3K"], expect=1)
    assert "initializer 'b'" in p.stderr and "memory budget of 3072" in p.stderr, p.stderr
    # The plan's values count too: Tile's y (8000 bytes) does not fit in 4K, its inputs do.
    m = model([helper.make_node("Tile", ["x", "r"], ["y"], name="tile")],
              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1000])], [out()],
              [i64("r", [2])])
    tile = save(m, work, "tile2.onnx")
    p = run(["infer", tile, "--input", f"x={x}", "--max-memory", "4K"], expect=1)
    assert "'tile'" in p.stderr and "8000 bytes, more than the memory budget of 4096" in p.stderr, p.stderr
    run(["infer", tile, "--input", f"x={x}", "--max-memory", "8000"], expect=0)
    for bad in ("0", "4T", "-1", "1.5G", ""):
        run(["infer", path, "--max-memory", bad], expect=2)
    print("budget: ok")


def main():
    work = tempfile.mkdtemp(prefix="alknet_onnx_hostile_")
    try:
        test_crashers()
        test_overflow(work)
        test_budget(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
