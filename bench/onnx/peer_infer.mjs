// Times one ONNX model on one peer runtime, printing the JSON `alknet infer --json` prints:
//   {"peer","model","load_ms","plan_ms","run_ms":{"first","median","min"},"repeat","outputs"}
// load_ms: reading the file + creating the session (wonnx-wasm and onnxruntime-web compile their
// WebGPU pipelines here). run_ms.first: the first run (inputs in, outputs read back on the
// host); median/min: over --repeat runs after --warmup further runs.
//
//   node bench/onnx/peer_infer.mjs --peer ort-node ...
//   deno run -A bench/onnx/peer_infer.mjs --peer ort-web-webgpu|wonnx ...
//     --model M.onnx --input NAME=FILE.npy ... [--repeat N] [--warmup W] [--save DIR]
// --save DIR writes each output as DIR/<output>.npy (float32) for the driver's cross-check.
import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseInferArgs, timeRuns } from "./infer_args.mjs";
import { readNpy, writeNpy } from "./npy.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = path.resolve(here, "../peers/node_modules");

function fail(code, msg) {
  console.error(`peer_infer: ${msg}`);
  process.exit(code);
}

const args = parseInferArgs(process.argv.slice(2), fail, { "--peer": "peer" });

const inputs = args.inputs.map(({ name, file }) => ({ name, ...readNpy(new Uint8Array(fs.readFileSync(file)), file) }));

// Each peer: create(bytes) -> session; run(session) -> [{name, dtype, shape, data}].
const PEERS = {
  async "ort-node"() {
    const ort = createRequire(path.join(modules, "x.js"))("onnxruntime-node");
    return {
      name: `onnxruntime-node-${ort.env.versions.node} (CPU)`,
      create: (bytes) => ort.InferenceSession.create(bytes, { executionProviders: ["cpu"] }),
      feeds: () => Object.fromEntries(inputs.map((t) => [t.name, new ort.Tensor(t.dtype, t.data, t.shape)])),
      async run(session, feeds) {
        const out = await session.run(feeds);
        return Object.entries(out).map(([name, t]) => ({ name, dtype: t.type, shape: t.dims, data: t.data }));
      },
    };
  },
  async "ort-web-webgpu"() {
    const ort = await import(pathToFileURL(path.join(modules, "onnxruntime-web/dist/ort.webgpu.min.mjs")).href);
    ort.env.wasm.numThreads = 1; // kernels WebGPU lacks fall back to wasm; keep them single-threaded
    ort.env.wasm.wasmPaths = pathToFileURL(path.join(modules, "onnxruntime-web/dist/")).href;
    return {
      name: `onnxruntime-web-${ort.env.versions.web} (WebGPU EP)`,
      // Nodes the WebGPU EP has no kernel for run on onnxruntime's CPU (wasm) EP instead. The
      // verbose log of session creation (on stderr) says where each node went: bench/onnx/run
      // reads it, so that a figure measured mostly on the CPU EP is not taken for a WebGPU one.
      async create(bytes) {
        const s = await ort.InferenceSession.create(bytes, {
          executionProviders: ["webgpu"], logSeverityLevel: 0, logVerbosityLevel: 0,
        });
        if (!ort.env.webgpu.device) throw new Error("the WebGPU execution provider did not start");
        return s;
      },
      feeds: () => Object.fromEntries(inputs.map((t) => [t.name, new ort.Tensor(t.dtype, t.data, t.shape)])),
      async run(session, feeds) {
        const out = await session.run(feeds, { logSeverityLevel: 3 });
        const result = [];
        for (const [name, t] of Object.entries(out)) {
          result.push({ name, dtype: t.type, shape: t.dims, data: await t.getData() });
        }
        return result;
      },
    };
  },
  async wonnx() {
    const wonnx = await import(pathToFileURL(path.join(modules, "@webonnx/wonnx-wasm/wonnx.js")).href);
    await wonnx.default(fs.readFileSync(path.join(modules, "@webonnx/wonnx-wasm/wonnx_bg.wasm")));
    const version = JSON.parse(fs.readFileSync(path.join(modules, "@webonnx/wonnx-wasm/package.json"), "utf8")).version;
    for (const t of inputs) {
      if (t.dtype !== "float32") fail(1, `wonnx-wasm takes float32 inputs only; '${t.name}' is ${t.dtype}`);
    }
    return {
      name: `wonnx-${version} (wasm, WebGPU)`,
      create: (bytes) => wonnx.Session.fromBytes(bytes),
      feeds() {
        const input = new wonnx.Input();
        for (const t of inputs) input.insert(t.name, t.data);
        return input;
      },
      async run(session, input) {
        const out = await session.run(input);
        return [...out].map(([name, values]) => ({ name, dtype: "float32", shape: null, data: values }));
      },
    };
  },
};
if (!PEERS[args.peer]) fail(2, `--peer must be one of ${Object.keys(PEERS).join(", ")}`);

// wonnx-wasm prints progress on stdout; keep stdout for the one JSON line.
const log = console.log;
console.log = (...a) => console.error(...a);

let peer;
try {
  peer = await PEERS[args.peer]();
} catch (err) {
  fail(3, `${args.peer} is not available (${err.message}); run bench/peers/setup`);
}
const errText = (err) => String(err?.message ?? err).split("\n")[0];
const t0 = performance.now();
let session;
try {
  session = await peer.create(new Uint8Array(fs.readFileSync(args.model)));
} catch (err) {
  fail(1, `${args.model}: session creation failed: ${errText(err)}`);
}
const loadMs = performance.now() - t0;
const feeds = peer.feeds();
let first, outputs, median, min;
try {
  ({ first, outputs, median, min } = await timeRuns(() => peer.run(session, feeds), args.warmup, args.repeat));
} catch (err) {
  fail(1, `${args.model}: run failed: ${errText(err)}`);
}

if (args.save) {
  fs.mkdirSync(args.save, { recursive: true });
  for (const o of outputs) {
    fs.writeFileSync(path.join(args.save, `${o.name}.npy`), writeNpy(Float32Array.from(o.data, Number), o.shape ?? [o.data.length]));
  }
}
const r3 = (x) => Math.round(x * 1000) / 1000;
log(JSON.stringify({
  peer: peer.name,
  model: args.model,
  load_ms: r3(loadMs),
  plan_ms: null,
  run_ms: { first: r3(first), median: r3(median), min: r3(min) },
  repeat: args.repeat,
  outputs: outputs.map((o) => ({ name: o.name, dtype: o.dtype, shape: o.shape ? Array.from(o.shape, Number) : null })),
}));
process.exit(0);
