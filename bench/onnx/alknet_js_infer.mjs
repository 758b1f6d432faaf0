// Times one ONNX model through alknet:compute's Session from JavaScript (`alknet run`), printing
// the JSON `alknet infer --json` and peer_infer.mjs print:
//   {"peer","model","load_ms","plan_ms","run_ms":{"first","median","min"},"repeat","outputs"}
// load_ms: Session.load. plan_ms: the first run's planning. run_ms: wall time of run() in JS
// (feeds converted, uploaded, run, outputs read back into typed arrays), the first without its
// planning; median/min over --repeat runs after --warmup further runs.
//
//   alknet run -A bench/onnx/alknet_js_infer.mjs --model M.onnx --input NAME=FILE.npy ...
//       [--repeat N] [--warmup W] [--save DIR]
// --save DIR (an existing folder) writes each output as DIR/<output>.npy (float32).
import { Session } from "alknet:compute";
import { readFileSync, writeFileSync } from "alknet:fs";
import { args as argv, exit } from "alknet:process";
import { parseInferArgs, timeRuns } from "./infer_args.mjs";
import { readNpy, writeNpy } from "./npy.mjs";

function fail(code, msg) {
  console.error(`alknet_js_infer: ${msg}`);
  exit(code);
}

const args = parseInferArgs(argv, fail);

const errText = (err) => String(err?.message ?? err).split("\n")[0];
const t0 = performance.now();
let session;
try {
  session = await Session.load(args.model);
} catch (err) {
  fail(1, `${args.model}: session creation failed: ${errText(err)}`);
}
const loadMs = performance.now() - t0;
const feeds = {};
for (const { name, file } of args.inputs) {
  const t = readNpy(new Uint8Array(readFileSync(file)), file);
  feeds[name] = { data: t.data, shape: t.shape };
}
let planMs;  // the first run's planning, from Session.lastRun
let first, outputs, median, min;
try {
  ({ first, outputs, median, min } = await timeRuns(async () => {
    const out = await session.run(feeds);
    planMs ??= session.lastRun.planMs;
    return out;
  }, args.warmup, args.repeat));
} catch (err) {
  fail(1, `${args.model}: run failed: ${errText(err)}`);
}
first -= planMs;

const values = Object.values(outputs);
if (args.save) {
  for (const o of values) {
    writeFileSync(`${args.save}/${o.name}.npy`, writeNpy(Float32Array.from(o.data, Number), o.shape));
  }
}
const r3 = (x) => Math.round(x * 1000) / 1000;
console.log(JSON.stringify({
  peer: "alknet Session (JavaScript)",
  model: args.model,
  load_ms: r3(loadMs),
  plan_ms: r3(planMs),
  run_ms: { first: r3(first), median: r3(median), min: r3(min) },
  repeat: args.repeat,
  outputs: values.map((o) => ({ name: o.name, dtype: o.dtype, shape: Array.from(o.shape) })),
}));
