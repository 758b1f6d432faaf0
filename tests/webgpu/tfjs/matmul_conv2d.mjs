// tfjs's WebGPU backend, unmodified, computing a matmul and a conv2d. The inputs are small
// integers so every product and sum is exact in float32: any two correct runtimes print the
// same digits, and each result is also checked against a float64 reference computed here.
import { installPlatform } from "./platform.mjs";
import * as tf from "@tensorflow/tfjs-core";
import "@tensorflow/tfjs-backend-webgpu";

installPlatform(tf);

const ok = await tf.setBackend("webgpu");
await tf.ready();
console.log("backend", tf.getBackend(), ok);

const ints = (n, seed) => Array.from({ length: n }, (_, i) => ((i * 7 + seed) % 11) - 5);

// matmul: [7, 13] x [13, 5]
const [m, k, n] = [7, 13, 5];
const a = ints(m * k, 1), b = ints(k * n, 3);
const c = await tf.matMul(tf.tensor2d(a, [m, k]), tf.tensor2d(b, [k, n])).data();
let maxDiff = 0;
for (let i = 0; i < m; ++i) {
  for (let j = 0; j < n; ++j) {
    let s = 0;
    for (let t = 0; t < k; ++t) s += a[i * k + t] * b[t * n + j];
    maxDiff = Math.max(maxDiff, Math.abs(s - c[i * n + j]));
  }
}
console.log("matmul shape", [m, n].join("x"), "values", Array.from(c).join(","));
console.log("matmul max |diff| vs float64", maxDiff);

// conv2d: NHWC input [1, 6, 5, 2], filter [3, 3, 2, 4], stride 1, padding "same"
const [H, W, C, F] = [6, 5, 2, 4];
const x = ints(H * W * C, 2), w = ints(3 * 3 * C * F, 5);
const y = await tf.conv2d(tf.tensor4d(x, [1, H, W, C]), tf.tensor4d(w, [3, 3, C, F]), 1, "same").data();
maxDiff = 0;
for (let i = 0; i < H; ++i) {
  for (let j = 0; j < W; ++j) {
    for (let f = 0; f < F; ++f) {
      let s = 0;
      for (let di = 0; di < 3; ++di) {
        for (let dj = 0; dj < 3; ++dj) {
          const yi = i + di - 1, xj = j + dj - 1;
          if (yi < 0 || yi >= H || xj < 0 || xj >= W) continue;
          for (let ch = 0; ch < C; ++ch) s += x[(yi * W + xj) * C + ch] * w[((di * 3 + dj) * C + ch) * F + f];
        }
      }
      maxDiff = Math.max(maxDiff, Math.abs(s - y[(i * W + j) * F + f]));
    }
  }
}
console.log("conv2d shape", [1, H, W, F].join("x"), "values", Array.from(y).join(","));
console.log("conv2d max |diff| vs float64", maxDiff);

// A float case: relu(x @ w + b) with non-integer data, rounded to 4 significant digits.
const fx = tf.tensor2d(Array.from({ length: 12 }, (_, i) => Math.sin(i + 1)), [3, 4]);
const fw = tf.tensor2d(Array.from({ length: 8 }, (_, i) => Math.cos(i * 0.5)), [4, 2]);
const fy = await tf.relu(tf.add(tf.matMul(fx, fw), tf.tensor1d([0.1, -0.2]))).data();
console.log("dense+relu", Array.from(fy).map((v) => v.toPrecision(4)).join(","));
if (maxDiff !== 0) throw new Error("tfjs result differs from the float64 reference");
