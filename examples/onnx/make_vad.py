#!/usr/bin/python3
"""Writes the model and the check data of examples/onnx_vad_stream.js.

    /usr/bin/python3 examples/onnx/make_vad.py build/default/apps/alknet/alknet

vad.onnx: a small streaming voice-activity model shaped like the ones people ship. Per call it
takes a chunk of 512 samples ("audio", f32 [1, 512]), the sample rate ("sr", int64 scalar) and
the recurrent state of the previous call ("h", "c", f32 [1, 1, 32]); it returns the probability
of speech in the chunk ("prob", f32 [1, 1]) and the next state ("hn", "cn"). An `If` on `sr`
picks the front end (16 kHz: Conv1d k=64 s=32, 15 frames; 8 kHz: k=32 s=16, 31 frames) before
log-magnitude features, an LSTM (hidden 32) and Gemm + Sigmoid. The front end and the LSTM
have random weights from a seeded generator; the Gemm read-out is then fitted (logistic
regression in numpy) on another synthetic stream, so that voiced chunks score high.

vad_check.mtf: a stream of 24 chunks (noise, then a voiced burst, then noise; the first 16 at
16 kHz, the last 8 at 8 kHz) and the probabilities numpy computes for it in float64, feeding
the state back chunk after chunk ("audio" f32 [24, 512], "sr" i64 [24], "probs" f64 [24]).
Written as .npz, then converted with `alknet tensor convert`.

Both files are committed (about 30 KB); rerun this script after changing the network.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
CHUNK, HIDDEN, CHANNELS = 512, 32, 24
FRONT_ENDS = {16000: (64, 32), 8000: (32, 16)}  # sample rate -> (kernel, stride)


def weights(rng):
    w = {}
    for sr, (k, _) in FRONT_ENDS.items():
        w[f"fe{sr}"] = (rng.standard_normal((CHANNELS, 1, k)) * np.sqrt(2.0 / k)).astype(np.float32)
    w["W"] = (rng.standard_normal((1, 4 * HIDDEN, CHANNELS)) * 0.3).astype(np.float32)
    w["R"] = (rng.standard_normal((1, 4 * HIDDEN, HIDDEN)) * 0.3).astype(np.float32)
    w["B"] = (rng.standard_normal((1, 8 * HIDDEN)) * 0.1).astype(np.float32)
    w["out_w"] = (rng.standard_normal((HIDDEN, 1)) * 0.5).astype(np.float32)
    w["out_b"] = np.array([-0.5], np.float32)
    return w


def front_end_graph(sr, kernel, stride):
    name = f"fe{sr}"
    nodes = [
        helper.make_node("Reshape", ["audio", "as_signal"], [f"{name}_x"]),
        helper.make_node("Conv", [f"{name}_x", name], [f"{name}_frames"], kernel_shape=[kernel],
                         strides=[stride]),
        helper.make_node("Abs", [f"{name}_frames"], [f"{name}_abs"]),
        helper.make_node("Add", [f"{name}_abs", "eps"], [f"{name}_mag"]),
        helper.make_node("Log", [f"{name}_mag"], [f"{name}_log"]),
        helper.make_node("Transpose", [f"{name}_log"], [f"{name}_feat"], perm=[2, 0, 1]),
    ]
    out = helper.make_tensor_value_info(f"{name}_feat", TensorProto.FLOAT, None)
    return helper.make_graph(nodes, f"front_end_{sr}", [], [out])


def model(w):
    inits = [numpy_helper.from_array(v, k) for k, v in w.items()]
    inits += [numpy_helper.from_array(np.array([1, 1, CHUNK], np.int64), "as_signal"),
              numpy_helper.from_array(np.array(1e-3, np.float32), "eps"),
              numpy_helper.from_array(np.array(16000, np.int64), "sr16k"),
              numpy_helper.from_array(np.array([1, HIDDEN], np.int64), "flat")]
    nodes = [
        helper.make_node("Equal", ["sr", "sr16k"], ["is16k"]),
        helper.make_node("If", ["is16k"], ["features"], name="front_end",
                         then_branch=front_end_graph(16000, *FRONT_ENDS[16000]),
                         else_branch=front_end_graph(8000, *FRONT_ENDS[8000])),
        helper.make_node("LSTM", ["features", "W", "R", "B", "", "h", "c"], ["y", "hn", "cn"],
                         hidden_size=HIDDEN),
        helper.make_node("Reshape", ["hn", "flat"], ["last"]),
        helper.make_node("Gemm", ["last", "out_w", "out_b"], ["logit"]),
        helper.make_node("Sigmoid", ["logit"], ["prob"]),
    ]
    f = TensorProto.FLOAT
    g = helper.make_graph(
        nodes, "vad",
        [helper.make_tensor_value_info("audio", f, [1, CHUNK]),
         helper.make_tensor_value_info("sr", TensorProto.INT64, []),
         helper.make_tensor_value_info("h", f, [1, 1, HIDDEN]),
         helper.make_tensor_value_info("c", f, [1, 1, HIDDEN])],
        [helper.make_tensor_value_info("prob", f, [1, 1]),
         helper.make_tensor_value_info("hn", f, [1, 1, HIDDEN]),
         helper.make_tensor_value_info("cn", f, [1, 1, HIDDEN])],
        inits)
    m = helper.make_model(g, producer_name="alknet examples/onnx/make_vad.py",
                          opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    return m


def sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def reference(w, audio, sr, h, c):
    """One call of the model in float64: ONNX's Conv, LSTM (gates i, o, f, c) and Gemm."""
    kernel, stride = FRONT_ENDS[int(sr)]
    fe = w[f"fe{int(sr)}"].astype(np.float64)[:, 0, :]          # [C, k]
    x = audio.astype(np.float64)[0]
    frames = (len(x) - kernel) // stride + 1
    windows = np.stack([x[t * stride:t * stride + kernel] for t in range(frames)])  # [T, k]
    feats = np.log(np.abs(windows @ fe.T) + np.float64(np.float32(1e-3)))            # [T, C]
    W, R, B = (w[k].astype(np.float64)[0] for k in ("W", "R", "B"))
    bias = B[:4 * HIDDEN] + B[4 * HIDDEN:]
    for t in range(frames):
        gates = feats[t] @ W.T + h @ R.T + bias
        i, o, f, g = np.split(gates, 4)
        i, o, f, g = sigmoid(i), sigmoid(o), sigmoid(f), np.tanh(g)
        c = f * c + i * g
        h = o * np.tanh(c)
    prob = sigmoid(h @ w["out_w"].astype(np.float64)[:, 0] + w["out_b"].astype(np.float64)[0])
    return prob, h, c


def labels():
    return np.array([5 <= k < 11 or 18 <= k < 22 for k in range(24)], np.float64)


def fit_readout(w, rng):
    """Fits out_w/out_b to the LSTM states of a training stream (logistic regression)."""
    states = []
    for _ in range(4):
        audio, rates = stream(rng)
        h, c = np.zeros(HIDDEN), np.zeros(HIDDEN)
        for chunk, sr in zip(audio, rates):
            _, h, c = reference(w, chunk[None, :], sr, h, c)
            states.append(h)
    x = np.array(states)
    y = np.tile(labels(), 4)
    a, b = np.zeros(HIDDEN), 0.0
    for _ in range(3000):
        p = sigmoid(x @ a + b)
        a -= 0.5 * x.T @ (p - y) / len(y)
        b -= 0.5 * np.mean(p - y)
    w["out_w"] = a.astype(np.float32)[:, None]
    w["out_b"] = np.array([b], np.float32)


def stream(rng):
    """24 chunks: noise, a voiced burst (harmonics of 140 Hz, 16 kHz), noise, then the same at
    8 kHz, so both branches of the If run and the state crosses the switch."""
    chunks, rates = [], []
    for k in range(24):
        sr = 16000 if k < 16 else 8000
        t = (np.arange(CHUNK) + k * CHUNK) / sr
        x = 0.01 * rng.standard_normal(CHUNK)
        if labels()[k]:
            x += sum(0.3 / n * np.sin(2 * np.pi * 140 * n * t) for n in range(1, 6))
        chunks.append(x.astype(np.float32))
        rates.append(sr)
    return np.stack(chunks), np.array(rates, np.int64)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    alknet = sys.argv[1]
    rng = np.random.default_rng(20261203)
    w = weights(rng)
    fit_readout(w, np.random.default_rng(7))
    onnx.save(model(w), os.path.join(HERE, "vad.onnx"))
    audio, rates = stream(rng)
    h = np.zeros(HIDDEN)
    c = np.zeros(HIDDEN)
    probs = []
    for chunk, sr in zip(audio, rates):
        p, h, c = reference(w, chunk[None, :], sr, h, c)
        probs.append(p)
    with tempfile.TemporaryDirectory() as tmp:
        npz = os.path.join(tmp, "vad_check.npz")
        np.savez(npz, audio=audio, sr=rates, probs=np.array(probs, np.float64))
        subprocess.run([alknet, "tensor", "convert", npz, os.path.join(HERE, "vad_check.mtf")],
                       check=True)
    print("probs:", np.round(np.array(probs), 3))


if __name__ == "__main__":
    main()
