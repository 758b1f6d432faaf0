// ONNX inference from JavaScript: a small image classifier run through alknet:compute's
// Session, checked against numpy's float64 result for the same weights.
//
//   alknet run --allow-read=examples examples/onnx_classify.js
//
// examples/onnx/tiny_cnn.onnx has a dynamic batch dimension; examples/onnx/tiny_cnn_check.mtf
// holds four test images and the probabilities numpy computed for them
// (examples/onnx/make_tiny_cnn.py writes both). The script runs the batch of four, then each
// image alone (a second plan, for batch 1, then cached), keeps one output on the device to
// keep computing, and exits 1 if any probability differs from numpy's by more than 1e-5.
import compute, { Session, Tensor } from "alknet:compute";
import { open } from "alknet:tensor";
import { exit } from "alknet:process";

const here = decodeURIComponent(import.meta.url.replace(/^file:\/\//, "").replace(/[^/]*$/, ""));
const session = await Session.load(`${here}onnx/tiny_cnn.onnx`);
console.log(`loaded ${session}`);
console.log(`nodes: ${session.opTypes.join(" -> ")}`);

const check = open(`${here}onnx/tiny_cnn_check.mtf`);
const image = check.get("image");   // f32 [4, 1, 12, 12]
const want = check.get("probs");    // f64 [4, 10], numpy
const [batch, , height, width] = image.shape;
const classes = want.shape[1];

let failures = 0;
function compare(what, got, offset) {
  let worst = 0;
  for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i] - want.data[offset + i]));
  const ok = worst <= 1e-5;
  if (!ok) failures++;
  console.log(`${ok ? "ok  " : "FAIL"} ${what}: max |alknet - numpy| = ${worst.toExponential(2)}`);
}
const argmax = (values) => values.indexOf(Math.max(...values));

// The whole batch at once; the result also stays on the device as a Tensor.
const { probs } = await session.run({ image: { data: image.data, shape: image.shape } }, { tensors: true });
console.log(`batch of ${batch}: probs ${probs.dtype} [${probs.shape}] in ${session.lastRun.runMs.toFixed(2)} ms ` +
            `(plan ${session.lastRun.planMs.toFixed(2)} ms)`);
compare(`batch of ${batch}`, probs.data, 0);
for (let n = 0; n < batch; n++) {
  const row = Array.from(probs.data.subarray(n * classes, (n + 1) * classes));
  const wantRow = Array.from(want.data.subarray(n * classes, (n + 1) * classes));
  const top = argmax(row);
  const same = top === argmax(wantRow);
  if (!same) failures++;
  console.log(`${same ? "ok  " : "FAIL"} image ${n}: class ${top} (p = ${row[top].toFixed(4)}), numpy says ${argmax(wantRow)}`);
}

// Keep computing on the device: each row of probabilities sums to 1 (probs x a column of ones).
const ones = Tensor.from(new Float32Array(classes).fill(1), [classes, 1]);
const sums = await compute.matMul(probs.tensor, ones).data();
const sumsOk = Array.from(sums).every((s) => Math.abs(s - 1) < 1e-5);
if (!sumsOk) failures++;
console.log(`${sumsOk ? "ok  " : "FAIL"} rows sum to 1 on the device: ${Array.from(sums, (s) => s.toFixed(6)).join(", ")}`);

// One image at a time: a new plan for batch 1, then the cached one.
const pixels = height * width;
for (let n = 0; n < batch; n++) {
  const one = image.data.subarray(n * pixels, (n + 1) * pixels);
  const out = await session.run({ data: one, shape: [1, 1, height, width] });
  compare(`image ${n} alone${session.lastRun.planCached ? " (cached plan)" : ""}`, out.probs.data, n * classes);
}
const stats = session.stats;
const cacheOk = stats.plansBuilt === 2 && stats.planCacheHits === batch - 1;
if (!cacheOk) failures++;
console.log(`${cacheOk ? "ok  " : "FAIL"} plans built ${stats.plansBuilt} (batch ${batch} and 1), ` +
            `cache hits ${stats.planCacheHits}, fusions ${stats.fusions}`);

if (failures) {
  console.error(`${failures} check(s) failed`);
  exit(1);
}
console.log("all checks passed");
