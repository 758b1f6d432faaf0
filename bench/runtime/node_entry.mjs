// Entry for Node with the npm `webgpu` package (Dawn): MODE [COUNT] from the arguments.
import { createRequire } from "node:module";
import { run } from "./workload.mjs";
const { create, globals } = createRequire(import.meta.url)("webgpu");
Object.assign(globalThis, globals);
const gpu = create([]);
console.log(await run(gpu, process.argv[2], Number(process.argv[3] ?? 0)));
process.exit(0);  // Dawn's instance keeps node's loop alive otherwise
