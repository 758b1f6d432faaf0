#!/usr/bin/python3
"""Generates the host-evaluation test models of libs/onnx/tests (host_ops_test.cpp) in the ONNX
backend-test layout: <name>/model.onnx and <name>/test_data_set_N/{input,output}_K.pb.
Expected outputs are computed here with numpy, independently of alknet (NonMaxSuppression by
a plain greedy loop written for this file); run it again after changing a model:
/usr/bin/python3 libs/onnx/tests/host/generate.py"""
import os
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
F, D, I64 = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT64


def save(name, graph, datasets, opset=13):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 7
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


rng = np.random.default_rng(1407)


def nms_reference(boxes, scores, max_out, iou_max, score_min):
    """Greedy NMS over corner boxes [y1, x1, y2, x2] (either diagonal), per batch and class."""
    rows = []
    for b in range(boxes.shape[0]):
        for c in range(scores.shape[1]):
            s = scores[b, c].astype(np.float64)
            order = [i for i in np.argsort(-s, kind="stable") if s[i] > score_min]
            kept = []
            for i in order:
                if len(kept) >= max_out:
                    break
                y1, x1, y2, x2 = boxes[b, i].astype(np.float64)
                y1, y2 = min(y1, y2), max(y1, y2)
                x1, x2 = min(x1, x2), max(x1, x2)
                ok = True
                for (ky1, kx1, ky2, kx2) in kept:
                    ih = min(y2, ky2) - max(y1, ky1)
                    iw = min(x2, kx2) - max(x1, kx1)
                    inter = ih * iw if ih > 0 and iw > 0 else 0.0
                    union = (y2 - y1) * (x2 - x1) + (ky2 - ky1) * (kx2 - kx1) - inter
                    if union > 0 and inter / union > iou_max:
                        ok = False
                        break
                if ok:
                    kept.append((y1, x1, y2, x2))
                    rows.append([b, c, i])
    return np.array(rows, np.int64).reshape(-1, 3)


def nms_device_scores():
    """NonMaxSuppression on scores computed on the device (Sigmoid): the plan stops before it,
    reads boxes and scores back and computes it on the host; a device Add reads its output."""
    g = helper.make_graph(
        [helper.make_node("Sigmoid", ["logits"], ["scores"]),
         helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou", "smin"],
                          ["sel"]),
         helper.make_node("Add", ["sel", "one"], ["y"])],
        "nms_device_scores",
        [helper.make_tensor_value_info("boxes", F, [2, 12, 4]),
         helper.make_tensor_value_info("logits", F, [2, 3, 12])],
        [helper.make_tensor_value_info("y", I64, ["n", 3])],
        initializer=[numpy_helper.from_array(np.array([10], np.int64), "max_out"),
                     numpy_helper.from_array(np.array([0.2], np.float32), "iou"),
                     numpy_helper.from_array(np.array([0.3], np.float32), "smin"),
                     numpy_helper.from_array(np.array(1, np.int64), "one")])
    sets = []
    for _ in range(3):
        centre = rng.uniform(0, 5, (2, 12, 2))
        size = rng.uniform(0.5, 4, (2, 12, 2))
        boxes = np.concatenate([centre - size / 2, centre + size / 2], axis=2)
        # Some boxes given by the other diagonal.
        flip = rng.random((2, 12)) < 0.3
        boxes[flip] = boxes[flip][:, [2, 3, 0, 1]]
        boxes = boxes.astype(np.float32)
        logits = rng.standard_normal((2, 3, 12)).astype(np.float32)
        scores = (1 / (1 + np.exp(-logits.astype(np.float64)))).astype(np.float32)
        sel = nms_reference(boxes, scores, 10, np.float32(0.2), np.float32(0.3))
        sets.append(([boxes, logits], [sel + 1]))
    save("nms_device_scores", g, sets, opset=11)


def compress_computed():
    """Compress whose condition is computed on the device (a column-sum test): the plan reads
    the condition back and goes on; a device Relu reads the result."""
    g = helper.make_graph(
        [helper.make_node("ReduceSum", ["x"], ["colsum"], axes=[0], keepdims=0),
         helper.make_node("Greater", ["colsum", "zero"], ["keep"]),
         helper.make_node("Compress", ["x", "keep"], ["picked"], axis=1),
         helper.make_node("Relu", ["picked"], ["y"])],
        "compress_computed",
        [helper.make_tensor_value_info("x", F, [3, 9])],
        [helper.make_tensor_value_info("y", F, [3, "k"])],
        initializer=[numpy_helper.from_array(np.array(0, np.float32), "zero")])
    sets = []
    for _ in range(3):
        x = rng.standard_normal((3, 9)).astype(np.float32)
        keep = x.astype(np.float64).sum(axis=0) > 0
        sets.append(([x], [np.maximum(x[:, keep], 0)]))
    save("compress_computed", g, sets, opset=11)


def float64_wide():
    """float64 values near 1e200 (beyond float32): the run is evaluated on the host; set 1 has
    small values and runs on the device."""
    g = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["s"]),
         helper.make_node("Mul", ["s", "half"], ["m"]),
         helper.make_node("ReduceMax", ["m"], ["y"], axes=[1], keepdims=0)],
        "float64_wide",
        [helper.make_tensor_value_info("a", D, [2, 5]),
         helper.make_tensor_value_info("b", D, [1, 5])],
        [helper.make_tensor_value_info("y", D, [2])],
        initializer=[numpy_helper.from_array(np.array(0.5, np.float64), "half")])
    sets = []
    for scale in (1e200, 1.0):
        a = rng.standard_normal((2, 5)) * scale
        b = rng.standard_normal((1, 5)) * scale
        sets.append(([a, b], [((a + b) * 0.5).max(axis=1)]))
    save("float64_wide", g, sets)


def mel_weight_matrix():
    """MelWeightMatrix (opset 17) for a 16 kHz front-end, folded at plan time; numpy builds the
    triangular filters from ONNX's definition (mel step = range / (bins + 2))."""
    bins, dft, rate, lo, hi = 40, 512, 16000, 20.0, 7600.0
    g = helper.make_graph(
        [helper.make_node("MelWeightMatrix", ["bins", "dft", "rate", "lo", "hi"], ["w"]),
         helper.make_node("MatMul", ["spec", "w"], ["y"])],
        "mel_weight_matrix",
        [helper.make_tensor_value_info("spec", F, [3, dft // 2 + 1])],
        [helper.make_tensor_value_info("y", F, [3, bins])],
        initializer=[numpy_helper.from_array(np.array(bins, np.int64), "bins"),
                     numpy_helper.from_array(np.array(dft, np.int64), "dft"),
                     numpy_helper.from_array(np.array(rate, np.int64), "rate"),
                     numpy_helper.from_array(np.array(lo, np.float32), "lo"),
                     numpy_helper.from_array(np.array(hi, np.float32), "hi")])
    mel = lambda f: 2595.0 * np.log10(1.0 + f / 700.0)
    pts = mel(lo) + np.arange(bins + 2) * (mel(hi) - mel(lo)) / (bins + 2)
    hz = 700.0 * (10.0 ** (pts / 2595.0) - 1)
    b = np.floor((dft + 1) * hz / rate).astype(int)
    w = np.zeros((dft // 2 + 1, bins))
    for i in range(bins):
        l, c, r = b[i], b[i + 1], b[i + 2]
        if c == l:
            w[c, i] = 1
        else:
            w[l:c + 1, i] = (np.arange(l, c + 1) - l) / (c - l)
        if r > c:
            w[c:r, i] = (r - np.arange(c, r)) / (r - c)
    spec = rng.random((3, dft // 2 + 1)).astype(np.float32)
    save("mel_weight_matrix", g, [([spec], [(spec.astype(np.float64) @ w).astype(np.float32)])],
         opset=17)


def tfidf_reference(x, mode, min_n, max_n, skip, counts, indexes, pool, weights):
    """TfIdfVectorizer by brute force: every n-gram of every length and skip, looked up in the
    pool (unigrams once, whatever the skip)."""
    grams = {}
    k = 0
    for g, begin in enumerate(counts):
        end = counts[g + 1] if g + 1 < len(counts) else len(pool)
        for at in range(begin, end, g + 1):
            grams[tuple(pool[at:at + g + 1])] = k
            k += 1
    width = max(indexes) + 1
    rows = x.reshape(1, -1) if x.ndim == 1 else x
    y = np.zeros((rows.shape[0], width), np.float64)
    for r, row in enumerate(rows):
        tf = np.zeros(len(indexes))
        for n in range(min_n, max_n + 1):
            for s in range(1 if n == 1 else skip + 1):
                for start in range(len(row)):
                    pos = [start + j * (s + 1) for j in range(n)]
                    if pos[-1] >= len(row):
                        break
                    key = tuple(int(row[p]) for p in pos)
                    if key in grams:
                        tf[grams[key]] += 1
        w = np.ones(len(indexes)) if weights is None else np.asarray(weights, np.float64)
        val = {"TF": tf, "IDF": (tf > 0) * w, "TFIDF": tf * w}[mode]
        for kk, col in enumerate(indexes):
            y[r, col] = val[kk]
    return (y[0] if x.ndim == 1 else y).astype(np.float32)


def tfidf_models():
    """TfIdfVectorizer (opset 9), cases the ONNX node tests leave out: a 1-D X computed on the
    device (Add), TFIDF with weights, n-grams up to 3 with one skip, then a device Mul; and a
    [2, 10] int32 X in IDF mode with weights."""
    pool = [2, 3, 5, 4,  # unigrams
            5, 6, 7, 8, 6, 7, 3, 3,  # bigrams
            2, 3, 4, 5, 6, 7]  # trigrams
    counts, indexes = [0, 4, 12], [7, 0, 3, 9, 1, 2, 4, 5, 6, 8]
    weights = [0.5, 1.5, 2.0, 0.25, 3.0, 1.0, 0.75, 2.5, 1.25, 4.0]
    attrs = dict(mode="TFIDF", min_gram_length=1, max_gram_length=3, max_skip_count=1,
                 ngram_counts=counts, ngram_indexes=indexes, pool_int64s=pool, weights=weights)
    g = helper.make_graph(
        [helper.make_node("Add", ["x", "one"], ["x1"]),
         helper.make_node("TfIdfVectorizer", ["x1"], ["v"], **attrs),
         helper.make_node("Mul", ["v", "two"], ["y"])],
        "tfidf_1d_device",
        [helper.make_tensor_value_info("x", I64, [14])],
        [helper.make_tensor_value_info("y", F, [10])],
        initializer=[numpy_helper.from_array(np.array(1, np.int64), "one"),
                     numpy_helper.from_array(np.array(2, np.float32), "two")])
    sets = []
    for _ in range(3):
        x = rng.integers(1, 8, 14).astype(np.int64)
        v = tfidf_reference(x + 1, "TFIDF", 1, 3, 1, counts, indexes, pool, weights)
        sets.append(([x], [v * np.float32(2)]))
    save("tfidf_1d_device", g, sets, opset=9)

    attrs.update(mode="IDF", min_gram_length=2, max_gram_length=3, max_skip_count=2)
    g = helper.make_graph(
        [helper.make_node("TfIdfVectorizer", ["x"], ["y"], **attrs)],
        "tfidf_idf_batch",
        [helper.make_tensor_value_info("x", TensorProto.INT32, [2, 10])],
        [helper.make_tensor_value_info("y", F, [2, 10])])
    sets = []
    for _ in range(2):
        x = rng.integers(2, 9, (2, 10)).astype(np.int32)
        sets.append(([x], [tfidf_reference(x, "IDF", 2, 3, 2, counts, indexes, pool, weights)]))
    save("tfidf_idf_batch", g, sets, opset=9)

    # Hostile: a long X with a huge skip count would take ~X^2 lookups; refused, not a hang.
    attrs.update(mode="TF", min_gram_length=2, max_gram_length=2, max_skip_count=1 << 20)
    g = helper.make_graph(
        [helper.make_node("TfIdfVectorizer", ["x"], ["y"], **attrs)],
        "tfidf_hostile_skips",
        [helper.make_tensor_value_info("x", I64, [200000])],
        [helper.make_tensor_value_info("y", F, [10])])
    save("tfidf_hostile_skips", g, [], opset=9)


def bfloat16_models():
    """bfloat16 at the graph's edges: a bfloat16 input widened, scaled on the device and cast
    to bfloat16 at the output (numpy truncates the float32 bits, like ONNX 1.12's reference;
    NaN and infinities included); and a model whose Cast to bfloat16 feeds another node, which
    alknet must refuse (no input data: the test only loads it)."""
    def bf16(name, bits):
        t = numpy_helper.from_array(bits.astype(np.uint16), name)
        t.data_type = TensorProto.BFLOAT16
        return t
    g = helper.make_graph(
        [helper.make_node("Cast", ["x"], ["xf"], to=F),
         helper.make_node("Mul", ["xf", "k"], ["m"]),
         helper.make_node("Cast", ["m"], ["y"], to=TensorProto.BFLOAT16)],
        "bfloat16_edges",
        [helper.make_tensor_value_info("x", TensorProto.BFLOAT16, [12])],
        [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, [12])],
        initializer=[numpy_helper.from_array(np.array(1.37, np.float32), "k")])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    d = os.path.join(HERE, "bfloat16_edges")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    onnx.save(model, os.path.join(d, "model.onnx"))
    f = np.concatenate([rng.standard_normal(9) * 100, [np.nan, np.inf, -np.inf]]).astype(np.float32)
    xbits = (f.view(np.uint32) >> 16).astype(np.uint16)
    xf = (xbits.astype(np.uint32) << 16).view(np.float32)
    m = xf * np.float32(1.37)
    ybits = (m.view(np.uint32) >> 16).astype(np.uint16)
    ybits[np.isnan(m)] |= 0x40
    ds = os.path.join(d, "test_data_set_0")
    open(os.path.join(ds, "input_0.pb"), "wb").write(bf16("x", xbits).SerializeToString())
    open(os.path.join(ds, "output_0.pb"), "wb").write(bf16("y", ybits).SerializeToString())

    g = helper.make_graph(
        [helper.make_node("Cast", ["x"], ["b"], to=TensorProto.BFLOAT16),
         helper.make_node("Cast", ["b"], ["y"], to=F)],
        "bfloat16_intermediate",
        [helper.make_tensor_value_info("x", F, [4])],
        [helper.make_tensor_value_info("y", F, [4])])
    save("bfloat16_intermediate", g, [])


nms_device_scores()
compress_computed()
float64_wide()
mel_weight_matrix()
tfidf_models()
bfloat16_models()
