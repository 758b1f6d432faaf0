// Conformance worker: wonnx 0.5.1's WebAssembly build on Deno's WebGPU, run by conformance.mjs.
import { fileURLToPath } from "node:url";
import fs from "node:fs";
import init, { Input, Session } from "../node_modules/@webonnx/wonnx-wasm/wonnx.js";
import { HarnessUnsupported } from "../lib/testcase.mjs";
import { looksUnsupported, serve } from "../lib/worker.mjs";

const pkg = new URL("../node_modules/@webonnx/wonnx-wasm/", import.meta.url);
await init(fs.readFileSync(fileURLToPath(new URL("wonnx_bg.wasm", pkg))));
const version = JSON.parse(fs.readFileSync(fileURLToPath(new URL("package.json", pkg)), "utf8")).version;

await serve({
  async info() {
    const adapter = await navigator.gpu.requestAdapter();
    return { runtime: `deno ${Deno.version.deno}`, version, adapter: adapter?.info?.description ?? "none" };
  },
  async run(tc, set) {
    // The wasm API's Input.insert takes a Float32Array only, and outputs come back as flat
    // float arrays without shapes: other input types cannot be handed to it.
    for (const t of set.inputs) {
      if (t.dtype !== "float32") {
        throw new HarnessUnsupported(`wonnx-wasm takes float32 inputs only; '${t.name}' is ${t.dtype}`);
      }
    }
    const session = await Session.fromBytes(tc.model);
    try {
      const input = new Input();
      for (const t of set.inputs) input.insert(t.name, t.data);
      const results = await session.run(input);
      const out = new Map();
      for (const [name, values] of results) out.set(name, { data: values });
      return out;
    } finally {
      session.free();
    }
  },
  classify: (msg) => (looksUnsupported(msg) ? "unsupported" : "error"),
  // A Rust panic traps the wasm instance (RuntimeError: unreachable) and leaves it unusable.
  restartAfter: (err) => err instanceof WebAssembly.RuntimeError,
});
