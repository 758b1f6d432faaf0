// onnxruntime-node (CPU EP) from the repository's node_modules: session creation, the first
// run and the steady state of one model, as JSON on one line:
//   {"runtime","create_ms","first_ms","first_result_ms","median_ms","min_ms","repeat","outputs"}
// first_result_ms = create_ms + first_ms. outputs: name -> [shape, sum of |values|] (a cheap
// cross-check with alknet's outputs).
//
//   node bench/onnx/ort_first_run.mjs --model M.onnx --input NAME=FILE.npy ... [--repeat N]
import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { parseInferArgs, timeRuns } from "./infer_args.mjs";
import { readNpy } from "./npy.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
// ORT_NODE_MODULES: a folder whose node_modules holds onnxruntime-node (default: the repository).
const root = process.env.ORT_NODE_MODULES ?? path.resolve(here, "../..");
const ort = createRequire(path.join(root, "x.js"))("onnxruntime-node");
const args = parseInferArgs(process.argv.slice(2), (code, msg) => {
  console.error(`ort_first_run: ${msg}`);
  process.exit(code);
});
const feeds = {};
for (const { name, file } of args.inputs) {
  const t = readNpy(new Uint8Array(fs.readFileSync(file)), file);
  feeds[name] = new ort.Tensor(t.dtype, t.data, t.shape);
}
const t0 = performance.now();
const session = await ort.InferenceSession.create(fs.readFileSync(args.model), {
  executionProviders: ["cpu"],
});
const create = performance.now() - t0;
const r = await timeRuns(() => session.run(feeds), args.warmup, args.repeat);
const outputs = {};
for (const [name, t] of Object.entries(r.outputs)) {
  let s = 0;
  for (const v of t.data) s += Math.abs(v);
  outputs[name] = [t.dims, s];
}
console.log(JSON.stringify({
  runtime: `onnxruntime-node ${ort.env.versions.node} (CPU EP)`, create_ms: create,
  first_ms: r.first, first_result_ms: create + r.first, median_ms: r.median, min_ms: r.min,
  repeat: args.repeat, outputs,
}));
