#!/usr/bin/env node
// Prints the markdown table of docs/benchmarks.md's "ONNX conformance of the peers" from
// bench/peers/results/*.json (or the files given).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const files = process.argv.length > 2 ? process.argv.slice(2)
  : fs.readdirSync(path.join(here, "results")).filter((f) => f.endsWith(".json") && !f.endsWith(".details.json"))
    .sort().map((f) => path.join(here, "results", f));
const FOLDERS = ["node", "pytorch-converted", "pytorch-operator", "simple"];
const rows = ["| peer | " + FOLDERS.join(" | ") + " | all | run time |", "| --- |" + " ---: |".repeat(FOLDERS.length + 2)];
for (const file of files) {
  const r = JSON.parse(fs.readFileSync(file, "utf8"));
  const cell = (c) => (c ? `${c.pass} / ${c.total} (${c.fail} fail, ${c.unsupported} unsup., ${c.error} err.)` : "");
  const all = { pass: 0, fail: 0, unsupported: 0, error: 0, total: 0 };
  for (const c of Object.values(r.counts)) for (const k of Object.keys(all)) all[k] += c[k];
  const name = r.peer + (r.models ? " (shape-inferred models)" : "");
  rows.push(`| ${name} | ${FOLDERS.map((f) => cell(r.counts[f])).join(" | ")} | ${cell(all)} | ${Math.round(r.wall_s / 6) / 10} min |`);
}
console.log(rows.join("\n"));
