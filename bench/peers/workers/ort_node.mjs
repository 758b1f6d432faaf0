// Conformance worker: onnxruntime-node (CPU execution provider), run by conformance.mjs.
import { createRequire } from "node:module";
import { looksUnsupported, serve } from "../lib/worker.mjs";

const require = createRequire(import.meta.url);
const ort = require("onnxruntime-node");

await serve({
  async info() {
    return { runtime: `node ${process.version}`, version: ort.env.versions.node, backend: "cpu" };
  },
  async run(tc, set) {
    const session = await ort.InferenceSession.create(tc.model, { executionProviders: ["cpu"] });
    try {
      const feeds = {};
      for (const t of set.inputs) feeds[t.name] = new ort.Tensor(t.dtype, t.data, t.dims);
      const results = await session.run(feeds);
      const out = new Map();
      for (const [name, t] of Object.entries(results)) {
        out.set(name, { data: t.data, dims: t.dims, dtype: t.type });
      }
      return out;
    } finally {
      await session.release();
    }
  },
  classify: (msg) => (looksUnsupported(msg) ? "unsupported" : "error"),
});
