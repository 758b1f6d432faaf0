// One ONNX backend test folder (model.onnx + test_data_set_N/{input,output}_M.pb) and the
// comparison of a peer's outputs with the expected ones. Shared by every peer's worker.
import fs from "node:fs";
import path from "node:path";
import { decodeModelSignature, decodeTensor } from "./onnx_proto.mjs";

export const RTOL = 1e-3;
export const ATOL = 1e-5;

// Thrown for cases the harness cannot hand to a peer (sequence/map/optional values: the peers'
// JS APIs take and return plain tensors only). Reported as "unsupported".
export class HarnessUnsupported extends Error {}

function pbFiles(dir, prefix) {
  return fs.readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && f.endsWith(".pb"))
    .map((f) => ({ f, i: Number(f.slice(prefix.length, -3)) }))
    .sort((a, b) => a.i - b.i)
    .map(({ f }) => path.join(dir, f));
}

// modelPath: another copy of the test's model (a shape-inferred one); default dir/model.onnx.
export function loadTestCase(dir, modelPath = path.join(dir, "model.onnx")) {
  const model = new Uint8Array(fs.readFileSync(modelPath));
  const signature = decodeModelSignature(model, modelPath);
  for (const v of [...signature.inputs, ...signature.outputs]) {
    if (v.type.kind !== "tensor") {
      throw new HarnessUnsupported(`'${v.name}' is a ${v.type.kind}, not a tensor`);
    }
  }
  const sets = fs.readdirSync(dir).filter((d) => d.startsWith("test_data_set_")).sort()
    .map((d) => {
      const setDir = path.join(dir, d);
      const inputs = pbFiles(setDir, "input_").map((file, i) => {
        const t = decodeTensor(fs.readFileSync(file), file);
        // The backend tests usually name their inputs; fall back to the graph's order.
        const named = signature.inputs.some((v) => v.name === t.name);
        if (!named) {
          if (i >= signature.inputs.length) throw new Error(`${file}: more inputs than the graph has`);
          t.name = signature.inputs[i].name;
        }
        return t;
      });
      const outputs = pbFiles(setDir, "output_").map((file, i) => {
        const t = decodeTensor(fs.readFileSync(file), file);
        if (i >= signature.outputs.length) throw new Error(`${file}: more outputs than the graph has`);
        t.name = signature.outputs[i].name;
        return t;
      });
      return { dir: setDir, inputs, outputs };
    });
  if (sets.length === 0) throw new Error(`${dir}: no test_data_set_*`);
  return { dir, model, signature, sets };
}

// IEEE half bits -> number.
export function halfToFloat(h) {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

function toNumbers(dtype, data) {
  if (dtype === "float16") return Array.from(data, halfToFloat);
  if (dtype === "bfloat16") return Array.from(data, (b) => new Float32Array(new Uint32Array([b << 16]).buffer)[0]);
  return Array.from(data, Number);
}

const FLOAT_DTYPES = new Set(["float32", "float64", "float16", "bfloat16"]);

// actual: {data, dims?, dtype?}. dims and dtype are checked when the peer reports them
// (wonnx-wasm returns flat values only). Returns null when they match, else the first mismatch.
export function compareTensor(expected, actual) {
  const name = expected.name;
  if (actual.dims !== undefined) {
    const a = Array.from(actual.dims, Number);
    if (a.length !== expected.dims.length || a.some((d, i) => d !== expected.dims[i])) {
      return `'${name}': shape [${a}] expected [${expected.dims}]`;
    }
  }
  if (actual.data.length !== expected.data.length) {
    return `'${name}': ${actual.data.length} elements expected ${expected.data.length}`;
  }
  if (expected.dtype === "string") {
    for (let i = 0; i < expected.data.length; i++) {
      if (actual.data[i] !== expected.data[i]) return `'${name}'[${i}]: '${actual.data[i]}' expected '${expected.data[i]}'`;
    }
    return null;
  }
  const e = toNumbers(expected.dtype, expected.data);
  const a = toNumbers(actual.dtype ?? "float32", actual.data);
  const isFloat = FLOAT_DTYPES.has(expected.dtype);
  for (let i = 0; i < e.length; i++) {
    const x = a[i], y = e[i];
    if (isFloat) {
      if (Number.isNaN(y) ? Number.isNaN(x) : (x === y || Math.abs(x - y) <= ATOL + RTOL * Math.abs(y))) continue;
    } else if (expected.dtype === "bool" ? (x !== 0) === (y !== 0) : x === y) {
      continue;
    }
    return `'${name}'[${i}]: ${x} expected ${y}`;
  }
  return null;
}
