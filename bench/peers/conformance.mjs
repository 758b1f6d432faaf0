#!/usr/bin/env node
// Runs ONNX backend test folders through a peer runtime and writes results/<peer>.json:
//   {"peer", "machine", "results": {"node/test_abs": "pass" | "fail" | "unsupported" | "error"}}
// plus results/<peer>.details.json (reason and time per test).
//
// Each test runs in a worker process (workers/*.mjs) fed one test folder at a time; a test
// that passes its timeout, or kills the worker, is an "error" and a fresh worker takes the rest.
//
//   node bench/peers/conformance.mjs --peer wonnx|ort-node [--timeout S] [--filter REGEX]
//        [--limit N] [--out FILE] [--models-from DIR] DIR...
// DIR is a folder of test_* folders (/usr/share/libonnx-testdata/data/node) or one test folder.
// --models-from DIR: take each test's model.onnx from DIR/<folder>/<test>/ instead (the
// shape-inferred copies infer_shapes.py writes), its inputs and outputs from the test.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { looksUnsupported } from "./lib/worker.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const DENO = process.env.DENO ?? path.resolve(here, "../../node_modules/.bin/deno");

function pkgVersion(name) {
  const file = path.join(here, "node_modules", name, "package.json");
  return JSON.parse(fs.readFileSync(file, "utf8")).version;
}

const PEERS = {
  "ort-node": () => ({
    name: `onnxruntime-node-${pkgVersion("onnxruntime-node")}`,
    cmd: [process.execPath, path.join(here, "workers/ort_node.mjs")],
  }),
  // Deno exposes navigator.gpu without flags since 2.x; --no-config keeps a deno.json found
  // upwards from the cwd out of it; reading the test data and the wasm needs --allow-read.
  wonnx: () => ({
    name: `wonnx-${pkgVersion("@webonnx/wonnx-wasm")}`,
    cmd: [DENO, "run", "--no-config", "--no-lock", "--allow-read", "--allow-env",
      path.join(here, "workers/wonnx_deno.mjs")],
  }),
};

function usage(msg) {
  if (msg) console.error(`conformance: ${msg}`);
  console.error("usage: conformance.mjs --peer wonnx|ort-node [--timeout S] [--filter REGEX] [--limit N] [--out FILE] [--models-from DIR] DIR...");
  process.exit(2);
}

const args = { timeout: 60, filter: null, limit: Infinity, out: null, peer: null, models: null, dirs: [] };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  const next = () => (i + 1 < process.argv.length ? process.argv[++i] : usage(`${a} needs a value`));
  if (a === "--peer") args.peer = next();
  else if (a === "--timeout") args.timeout = Number(next());
  else if (a === "--filter") args.filter = new RegExp(next());
  else if (a === "--limit") args.limit = Number(next());
  else if (a === "--out") args.out = next();
  else if (a === "--models-from") args.models = next();
  else if (a === "--help" || a === "-h") usage();
  else if (a.startsWith("--")) usage(`unknown option ${a}`);
  else args.dirs.push(a);
}
if (!PEERS[args.peer]) usage(`--peer must be one of ${Object.keys(PEERS).join(", ")}`);
if (args.dirs.length === 0) usage("no test folders given");
if (!(args.timeout > 0)) usage("--timeout must be > 0");

let peer;
try {
  peer = PEERS[args.peer]();
} catch (err) {
  console.error(`conformance: ${args.peer} is not installed (${err.message}); run bench/peers/setup`);
  process.exit(3);
}

// Keys are "<folder>/<test>", e.g. "node/test_abs", as alknet onnx-test names them.
const tests = [];
for (const d of args.dirs) {
  if (!fs.existsSync(d)) usage(`${d} does not exist`);
  if (fs.existsSync(path.join(d, "model.onnx"))) {
    tests.push({ key: `${path.basename(path.dirname(path.resolve(d)))}/${path.basename(d)}`, dir: path.resolve(d) });
    continue;
  }
  for (const t of fs.readdirSync(d).sort()) {
    const dir = path.resolve(d, t);
    if (fs.existsSync(path.join(dir, "model.onnx"))) tests.push({ key: `${path.basename(path.resolve(d))}/${t}`, dir });
  }
}
const selected = tests.filter((t) => !args.filter || args.filter.test(t.key)).slice(0, args.limit);

// A worker process and the promise of its next @@ line.
class Worker {
  constructor() {
    this.proc = spawn(peer.cmd[0], peer.cmd.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
    this.stderr = "";
    this.waiter = null;
    this.exited = false;
    this.proc.stderr.on("data", (b) => { this.stderr = (this.stderr + b).slice(-4000); });
    this.proc.stdin.on("error", () => {}); // writes to a dead worker: its exit reports it
    readline.createInterface({ input: this.proc.stdout }).on("line", (line) => {
      const m = /^@@(\w+) (.*)$/.exec(line);
      if (m && this.waiter) this.waiter.resolve({ tag: m[1], body: JSON.parse(m[2]) });
    });
    this.proc.on("exit", (code, signal) => {
      this.exited = true;
      if (this.waiter) this.waiter.resolve({ tag: "EXIT", body: { code, signal } });
    });
  }
  next(timeoutS) {
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.waiter = null; resolve({ tag: "TIMEOUT" }); }, timeoutS * 1000);
      this.waiter = { resolve: (v) => { clearTimeout(timer); this.waiter = null; resolve(v); } };
      if (this.exited) this.waiter.resolve({ tag: "EXIT", body: {} });
    });
  }
  kill() {
    if (!this.exited) this.proc.kill("SIGKILL");
  }
  crashReason() {
    const lines = this.stderr.replace(/\x1b\[[0-9;]*m/g, "").split("\n").map((l) => l.trim())
      .filter((l) => l && !l.startsWith("at "));
    const panic = lines.findIndex((l) => l.startsWith("panicked at"));
    return (panic >= 0 ? lines.slice(panic, panic + 2) : lines.slice(-2)).join(" | ").slice(0, 400);
  }
}

let info = null;
async function startWorker() {
  for (let attempt = 0; attempt < 3; attempt++) {
    const w = new Worker();
    const msg = await w.next(120);
    if (msg.tag === "INFO") {
      info ??= msg.body;
      return w;
    }
    w.kill();
    console.error(`conformance: ${peer.name} worker did not start: ${w.crashReason()}`);
  }
  console.error(`conformance: ${peer.name} worker failed to start three times; giving up`);
  process.exit(3);
}

const results = {};
const details = {};
const t0 = Date.now();
let worker = await startWorker();
for (const [n, t] of selected.entries()) {
  if (worker.exited) worker = await startWorker();
  worker.stderr = "";
  const model = args.models ? path.join(args.models, t.key, "model.onnx") : undefined;
  worker.proc.stdin.write(`${JSON.stringify({ dir: t.dir, model })}\n`);
  const msg = await worker.next(args.timeout);
  let r;
  if (msg.tag === "RESULT") {
    r = { status: msg.body.status, reason: msg.body.reason, ms: msg.body.ms };
  } else if (msg.tag === "TIMEOUT") {
    worker.kill();
    r = { status: "error", reason: `timeout after ${args.timeout} s` };
  } else {
    const reason = `worker died (${JSON.stringify(msg.body)}): ${worker.crashReason()}`;
    r = { status: looksUnsupported(reason) ? "unsupported" : "error", reason };
  }
  results[t.key] = r.status;
  details[t.key] = r;
  process.stderr.write(`[${n + 1}/${selected.length}] ${t.key}: ${r.status}${r.reason ? ` (${r.reason.slice(0, 120)})` : ""}\n`);
}
worker.kill();
const wallS = (Date.now() - t0) / 1000;

const counts = {};
for (const t of selected) {
  const folder = t.key.split("/")[0];
  counts[folder] ??= { pass: 0, fail: 0, unsupported: 0, error: 0, total: 0 };
  counts[folder][results[t.key]]++;
  counts[folder].total++;
}
const cpu = os.cpus()[0]?.model ?? "unknown CPU";
const machine = `${os.cpus().length} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, ` +
  `${fs.existsSync("/etc/debian_version") ? `Debian ${fs.readFileSync("/etc/debian_version", "utf8").trim()}` : os.type()}` +
  `, ${info.runtime}${info.adapter ? `, WebGPU adapter: ${info.adapter}` : ""}`;
const report = {
  peer: peer.name,
  machine,
  results,
  counts,
  wall_s: Math.round(wallS),
  date: new Date().toISOString(),
  command: `node bench/peers/conformance.mjs ${process.argv.slice(2).join(" ")}`,
  ...(args.models ? { models: "shape-inferred copies (bench/peers/infer_shapes.py)" } : {}),
};
const out = args.out ?? path.join(here, "results", `${peer.name}${args.models ? "+shapes" : ""}.json`);
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, `${JSON.stringify(report, null, 1)}\n`);
fs.writeFileSync(out.replace(/\.json$/, ".details.json"), `${JSON.stringify(details, null, 1)}\n`);
for (const [folder, c] of Object.entries(counts)) {
  console.log(`${peer.name} ${folder}: ${c.pass} pass, ${c.fail} fail, ${c.unsupported} unsupported, ${c.error} error (of ${c.total})`);
}
console.log(`${peer.name}: ${selected.length} tests in ${wallS.toFixed(0)} s -> ${out}`);
