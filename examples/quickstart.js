// alknet quickstart: tensors on the GPU (lavapipe when there is none), a matmul, a softmax and
// the SHA-256 of a file, each checked against a float64 (or OpenSSL) reference on the CPU.
//
//   alknet run --allow-read examples/quickstart.js
import compute, { Tensor, sha256, toHex } from "alknet:compute";
import { readFileSync } from "alknet:fs";
import { exit } from "alknet:process";

let failed = 0;
function report(what, ok, detail) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}: ${detail}`);
  if (!ok) failed++;
}
const maxError = (got, want) => want.reduce((m, w, i) => Math.max(m, Math.abs(got[i] - w)), 0);

// 1. A tensor: typed array -> GPU -> typed array.
const a = Tensor.from(new Float32Array([1, 2, 3, 4, 5, 6]), [2, 3]);
const back = await a.data();
report("tensor round trip", back.join() === "1,2,3,4,5,6", `${a} -> [${back.join(", ")}]`);

// 2. A matmul: [2,3] x [3,2] on the GPU against a float64 loop.
const bValues = new Float32Array([0.5, -1, 2, 0.25, -3, 1.5]);
const c = compute.matMul(a, Tensor.from(bValues, [3, 2]));
const want = [];
for (let i = 0; i < 2; i++) for (let j = 0; j < 2; j++) {
  let s = 0;
  for (let k = 0; k < 3; k++) s += (i * 3 + k + 1) * bValues[k * 2 + j];
  want.push(s);
}
const got = await c.data();
report("matmul", maxError(got, want) < 1e-5, `[${got.join(", ")}] (float64: [${want.join(", ")}])`);

// 3. A softmax over the last axis, against exp/sum in float64.
const logits = [2, 1, 0.1, -1, 3, 0.5];
const probs = await compute.softmax(Tensor.from(new Float32Array(logits), [2, 3]), { axis: -1 }).data();
const ref = [];
for (let r = 0; r < 2; r++) {
  const row = logits.slice(r * 3, r * 3 + 3);
  const m = Math.max(...row);
  const e = row.map((v) => Math.exp(v - m));
  const s = e.reduce((x, y) => x + y);
  ref.push(...e.map((v) => v / s));
}
report("softmax", maxError(probs, ref) < 1e-6, `[${Array.from(probs, (p) => p.toFixed(4)).join(", ")}]`);

// 4. SHA-256 of this file on the GPU, against OpenSSL through crypto.subtle.
const path = decodeURIComponent(import.meta.url.replace(/^file:\/\//, ""));
const bytes = readFileSync(path);
const gpu = toHex(await sha256(bytes));
const cpu = toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
report("sha256", gpu === cpu, `${gpu}  ${path.split("/").pop()} (${bytes.length} bytes)`);

if (failed) exit(1);
console.log("quickstart: all checks passed");
