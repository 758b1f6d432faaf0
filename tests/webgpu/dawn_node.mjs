// Runs a WebGPU script under Node with npm `webgpu` (dawn.node) as navigator.gpu: the second
// reference next to Deno for the corpus (compare_with_deno.py --node). Usage:
//   node dawn_node.mjs SCRIPT
import { pathToFileURL } from "node:url";
import { create, globals } from "webgpu";

Object.assign(globalThis, globals);
Object.defineProperty(globalThis, "navigator", { value: { gpu: create([]) }, configurable: true });
await import(pathToFileURL(process.argv[2]).href);
