// Node + npm `webgpu` (dawn.node): installs navigator.gpu and the WebGPU globals, then runs
// runner.mjs with the same arguments.
//   node node_gpu.mjs CTS_OUT_DIR QUERY [FIRST_INDEX]
import { create, globals } from "webgpu";

Object.assign(globalThis, globals);
Object.defineProperty(globalThis, "navigator", { value: { gpu: create([]) }, configurable: true });
await import("./runner.mjs");
