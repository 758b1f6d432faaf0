// Regenerates the op methods of alknet-compute.d.ts from the op table, or with --check
// reports (exit 1) where the file and the table disagree.
//   alknet run --allow-read --allow-write libs/ext/compute/gen_compute_dts.mjs [--check]
import { ops } from "alknet:compute";
import { readTextFileSync, writeTextFileSync } from "alknet:fs";
import { args, exit } from "alknet:process";

const file = decodeURIComponent(import.meta.url.replace(/^file:\/\//, "").replace(/[^/]*$/, "")) + "alknet-compute.d.ts";
const text = readTextFileSync(file);
const begin = "    // BEGIN GENERATED OPS\n";
const end = "    // END GENERATED OPS\n";
const i = text.indexOf(begin), j = text.indexOf(end);
if (i < 0 || j < i) {
  console.error(`${file}: the GENERATED OPS markers are missing`);
  exit(1);
}
const seen = new Set();
let block = "";
for (const r of ops) {
  if (!r.method || seen.has(r.method)) continue;
  seen.add(r.method);
  const arity = r.minInputs === r.maxInputs ? `${r.minInputs} input${r.minInputs === 1 ? "" : "s"}`
                                             : `${r.minInputs}-${r.maxInputs} inputs`;
  block += `    /** ONNX ${r.name} (${arity}): ${r.summary.replaceAll("*/", "* /")} */\n`;
  block += `    ${r.method}: OpMethod;\n`;
}
const updated = text.slice(0, i + begin.length) + block + text.slice(j);
if (args.includes("--check")) {
  if (updated !== text) {
    const declared = new Set([...text.slice(i, j).matchAll(/^    (\w+): OpMethod;$/gm)].map((m) => m[1]));
    const missing = [...seen].filter((m) => !declared.has(m));
    const extra = [...declared].filter((m) => !seen.has(m));
    console.error(`alknet-compute.d.ts is out of date with the op table` +
                  (missing.length ? `; missing: ${missing.join(", ")}` : "") +
                  (extra.length ? `; not in the table: ${extra.join(", ")}` : "") +
                  `; rerun: alknet run --allow-read --allow-write libs/ext/compute/gen_compute_dts.mjs`);
    exit(1);
  }
  console.log(`alknet-compute.d.ts declares all ${seen.size} op methods`);
} else {
  writeTextFileSync(file, updated);
  console.log(`wrote ${seen.size} op methods to ${file}`);
}
