// alknet:compute against a float64 JavaScript reference: MatMul (odd sizes), Add with
// broadcasting, Softmax, Gemm with attributes, Relu through a generated method; every op-table
// record is callable; bad input is a clear error.
import compute, { Tensor, op, ops } from "alknet:compute";

let seed = 12345;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
const randArray = (n) => Float32Array.from({ length: n }, rand);
let failures = 0;

function check(label, got, want, shapeGot, shapeWant, tol = 1e-4) {
  if (JSON.stringify(shapeGot) !== JSON.stringify(shapeWant)) {
    console.error(`${label}: shape ${JSON.stringify(shapeGot)}, want ${JSON.stringify(shapeWant)}`);
    failures++;
    return;
  }
  let worst = 0;
  for (let i = 0; i < want.length; i++) {
    const err = Math.abs(got[i] - want[i]) / Math.max(1, Math.abs(want[i]));
    if (!(err <= worst)) worst = err;  // NaN counts as the worst
  }
  if (got.length !== want.length || !(worst <= tol)) {
    console.error(`${label}: max relative error ${worst} (length ${got.length}/${want.length})`);
    failures++;
  } else {
    console.log(`${label}: ok (max rel err ${worst.toExponential(2)})`);
  }
}

// MatMul [7,13] x [13,5]
{
  const [m, k, n] = [7, 13, 5];
  const a = randArray(m * k), b = randArray(k * n);
  const want = new Float64Array(m * n);
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) {
    let s = 0;
    for (let p = 0; p < k; p++) s += a[i * k + p] * b[p * n + j];
    want[i * n + j] = s;
  }
  const c = compute.matMul(Tensor.from(a, [m, k]), Tensor.from(b, [k, n]));
  check("matMul 7x13 @ 13x5", await c.data(), want, c.shape, [m, n]);
}
// Add [3,1,5] + [4,1] -> [3,4,5]
{
  const a = randArray(15), b = randArray(4);
  const want = new Float64Array(60);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 4; j++) for (let l = 0; l < 5; l++) {
    want[(i * 4 + j) * 5 + l] = a[i * 5 + l] + b[j];
  }
  const c = compute.add(Tensor.from(a, [3, 1, 5]), Tensor.from(b, [4, 1]));
  check("add broadcast [3,1,5]+[4,1]", await c.data(), want, c.shape, [3, 4, 5], 1e-6);
}
// Softmax over the last axis of [4, 9]
{
  const x = randArray(36).map((v) => v * 5);
  const want = new Float64Array(36);
  for (let r = 0; r < 4; r++) {
    const row = Array.from(x.slice(r * 9, r * 9 + 9));
    const mx = Math.max(...row);
    const e = row.map((v) => Math.exp(v - mx));
    const s = e.reduce((p, q) => p + q, 0);
    e.forEach((v, i) => (want[r * 9 + i] = v / s));
  }
  const y = op("Softmax", [Tensor.from(x, [4, 9])], { axis: -1 });
  check("softmax [4,9] axis -1", await y.data(), want, y.shape, [4, 9]);
}
// Gemm with attributes: y = 0.5 * a @ b^T + 2 * c, a [5,3], b [4,3] (transB), c [4] broadcast.
{
  const a = randArray(15), b = randArray(12), c = randArray(4);
  const want = new Float64Array(20);
  for (let i = 0; i < 5; i++) for (let j = 0; j < 4; j++) {
    let s = 0;
    for (let k = 0; k < 3; k++) s += a[i * 3 + k] * b[j * 3 + k];
    want[i * 4 + j] = 0.5 * s + 2 * c[j];
  }
  const y = compute.gemm(Tensor.from(a, [5, 3]), Tensor.from(b, [4, 3]), Tensor.from(c, [4]),
                         { transB: 1, alpha: 0.5, beta: 2 });
  check("gemm transB alpha beta", await y.data(), want, y.shape, [5, 4]);
}
// Relu, LeakyRelu (alpha given as an integer-valued number, read as a float), i32 Add
{
  const x = randArray(11);
  const r = compute.relu(Tensor.from(x));
  check("relu", await r.data(), Array.from(x, (v) => Math.max(0, v)), r.shape, [11], 0);
  const l = compute.leakyRelu(Tensor.from(x), { alpha: 2 });
  check("leakyRelu alpha 2", await l.data(), Array.from(x, (v) => (v < 0 ? 2 * v : v)), l.shape, [11], 1e-6);
  const ia = Int32Array.from({ length: 6 }, (_, i) => i * 1000 - 2500), ib = Int32Array.of(7, -7, 3, 0, 1, 2);
  const s = compute.add(Tensor.from(ia, [2, 3]), Tensor.from(ib, [2, 3]));
  check("add i32", await s.data(), Array.from(ia, (v, i) => v + ib[i]), s.shape, [2, 3], 0);
  if (s.dtype !== "i32") { console.error(`add i32: dtype ${s.dtype}`); failures++; }
}
// Every record of the table has its method.
{
  const named = ops.filter((r) => r.method);
  const missing = named.filter((r) => typeof compute[r.method] !== "function");
  if (missing.length || named.length < 10) {
    console.error(`op methods missing: ${missing.map((r) => r.name).join(", ")} (of ${named.length})`);
    failures++;
  } else {
    console.log(`all ${new Set(named.map((r) => r.method)).size} op-table ops are methods`);
  }
}
// Errors: unknown op, wrong input, shape mismatch.
for (const [label, fn, pattern] of [
  ["unknown op", () => op("NoSuchOp", []), /NoSuchOp.*not in the op table/],
  ["not a tensor", () => compute.relu(new Float32Array(3)), /inputs\[0\] is not a Tensor/],
  ["matmul shapes", () => compute.matMul(Tensor.from(randArray(6), [2, 3]), Tensor.from(randArray(6), [2, 3])), /MatMul/],
]) {
  try {
    fn();
    console.error(`${label}: no error`);
    failures++;
  } catch (e) {
    if (!pattern.test(String(e.message))) {
      console.error(`${label}: unexpected message: ${e.message}`);
      failures++;
    } else {
      console.log(`${label}: refused (${e.message.split("\n")[0]})`);
    }
  }
}
if (failures) throw new Error(`${failures} check(s) failed`);
