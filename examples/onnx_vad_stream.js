// Streaming voice activity from JavaScript: a recurrent ONNX model with an `If` on its
// sample-rate input, run chunk after chunk, its LSTM state fed back each call, and checked
// against numpy's float64 result for the same stream.
//
//   alknet run --allow-read=examples examples/onnx_vad_stream.js
//
// examples/onnx/vad.onnx takes 512 samples, the sample rate and the state (h, c); it returns the
// probability of speech and the next state. examples/onnx/vad_check.mtf holds a 24-chunk stream
// (the first 16 chunks at 16 kHz, the last 8 at 8 kHz) and numpy's probabilities
// (examples/onnx/make_vad.py writes both). The `If` is decided when a plan is made, from the
// sample rate's value: one plan per rate, each as fast as a model without the `If`. Exits 1 if
// any probability differs from numpy's by more than 1e-4.
import { Session } from "alknet:compute";
import { open } from "alknet:tensor";
import { exit } from "alknet:process";

const here = decodeURIComponent(import.meta.url.replace(/^file:\/\//, "").replace(/[^/]*$/, ""));
const session = await Session.load(`${here}onnx/vad.onnx`);
const check = open(`${here}onnx/vad_check.mtf`);
const audio = check.get("audio");  // f32 [24, 512]
const rates = check.get("sr");     // i64 [24]
const want = check.get("probs");   // f64 [24], numpy
const [chunks, samples] = audio.shape;
const hidden = 32;

let h = { data: new Float32Array(hidden), shape: [1, 1, hidden] };
let c = { data: new Float32Array(hidden), shape: [1, 1, hidden] };
let worst = 0;
let line = "";
const times = [];
for (let k = 0; k < chunks; k++) {
  const feeds = {
    audio: { data: audio.data.subarray(k * samples, (k + 1) * samples), shape: [1, samples] },
    sr: { data: BigInt64Array.of(BigInt(rates.data[k])), shape: [] },
    h, c,
  };
  const out = await session.run(feeds);
  times.push(session.lastRun.runMs);
  h = out.hn;  // the state goes back in with the next chunk
  c = out.cn;
  const p = out.prob.data[0];
  worst = Math.max(worst, Math.abs(p - want.data[k]));
  line += p > 0.5 ? "#" : ".";
}
const ok = worst <= 1e-4;
times.sort((a, b) => a - b);
console.log(`speech: ${line}  (one mark per ${samples}-sample chunk, # = speech)`);
console.log(`${chunks} chunks, median ${times[times.length >> 1].toFixed(2)} ms per chunk; ` +
            `plans: ${session.stats.plansBuilt} (one per sample rate, each with its If inlined: ${session.stats.ifsInlined})`);
console.log(`${ok ? "ok  " : "FAIL"} max |alknet - numpy| = ${worst.toExponential(2)}`);
exit(ok ? 0 : 1);
