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
import { readNpy, writeNpy } from "./npy.mjs";

function fail(code, msg) {
  console.error(`alknet_js_infer: ${msg}`);
  exit(code);
}

const args = { model: null, inputs: [], repeat: 10, warmup: 1, save: null };
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const next = () => (i + 1 < argv.length ? argv[++i] : fail(2, `${a} needs a value`));
  if (a === "--model") args.model = next();
  else if (a === "--input") {
    const v = next();
    const eq = v.indexOf("=");
    if (eq <= 0) fail(2, `--input wants NAME=FILE.npy, got '${v}'`);
    args.inputs.push({ name: v.slice(0, eq), file: v.slice(eq + 1) });
  } else if (a === "--repeat") args.repeat = Number(next());
  else if (a === "--warmup") args.warmup = Number(next());
  else if (a === "--save") args.save = next();
  else if (a === "--json") { /* always JSON */ } else fail(2, `unknown argument ${a}`);
}
if (!args.model) fail(2, "--model is required");
if (!(args.repeat >= 1) || !(args.warmup >= 0)) fail(2, "--repeat must be >= 1, --warmup >= 0");

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
const timed = async () => {
  const s = performance.now();
  const out = await session.run(feeds);
  return [performance.now() - s, out];
};
let first, outputs, planMs;
try {
  [first, outputs] = await timed();
  planMs = session.lastRun.planMs;
  first -= planMs;
  for (let i = 0; i < args.warmup; i++) await timed();
} catch (err) {
  fail(1, `${args.model}: run failed: ${errText(err)}`);
}
const times = [];
for (let i = 0; i < args.repeat; i++) times.push((await timed())[0]);
times.sort((a, b) => a - b);
const median = times.length % 2 ? times[times.length >> 1] : (times[times.length / 2 - 1] + times[times.length / 2]) / 2;

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
  run_ms: { first: r3(first), median: r3(median), min: r3(times[0]) },
  repeat: args.repeat,
  outputs: values.map((o) => ({ name: o.name, dtype: o.dtype, shape: Array.from(o.shape) })),
}));
