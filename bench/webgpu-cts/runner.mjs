// Runs the cases of one WebGPU CTS query in this process, through the CTS's own loader,
// test framework and logger, and prints one line per case (bench/webgpu-cts/run reads them):
//   CASE <index> <name>          before a case starts
//   RESULT <index> <status> <ms> after it ends (status: pass, fail, skip, warn)
//   DONE <count>
// The same file runs under alknet, Deno and Node (+ npm `webgpu`, see node_gpu.mjs).
//   runner.mjs CTS_OUT_DIR QUERY [FIRST_INDEX]
// FIRST_INDEX lets the driver resume after a case that crashed or hung the process.
const args = globalThis.Deno ? Deno.args
  : globalThis.process?.argv ? globalThis.process.argv.slice(2)
  : (await import("alknet:process")).args;
if (args.length < 2) {
  console.log("usage: runner.mjs CTS_OUT_DIR QUERY [FIRST_INDEX]");
  throw new Error("runner.mjs: missing arguments");
}
const [outDir, query, first = "0"] = args;
const base = new URL(outDir.endsWith("/") ? outDir : outDir + "/", "file://");
const load = (path) => import(new URL(path, base).href);

const { DefaultTestFileLoader } = await load("common/internal/file_loader.js");
const { Logger } = await load("common/internal/logging/logger.js");
const { parseQuery } = await load("common/internal/query/parseQuery.js");
const { dataCache } = await load("common/framework/data_cache.js");
// No precomputed data cache: the CTS computes what it needs (the same in every runtime).
dataCache.setStore({ load: () => Promise.reject(new Error("no data cache")) });

const loader = new DefaultTestFileLoader();
const cases = await loader.loadCases(parseQuery(query));
const log = new Logger();
const now = () => globalThis.performance.now();
let index = 0;
const start = Number(first);
for (const testcase of cases) {
  if (index < start) {
    ++index;
    continue;
  }
  const name = testcase.query.toString();
  console.log(`CASE ${index} ${name}`);
  const [rec, res] = log.record(name);
  const t0 = now();
  await testcase.run(rec, []);
  console.log(`RESULT ${index} ${res.status} ${(now() - t0).toFixed(1)}`);
  if (res.status === "fail" && res.logs) {
    // The first failure message, for the driver's --failures report (one line).
    const first = res.logs.find((l) => String(l).includes("FAIL") || String(l).includes("EXPECTATION")) ?? res.logs[0];
    console.log(`LOG ${index} ${JSON.stringify(String(first).split("\n").slice(0, 3).join(" | ").slice(0, 400))}`);
  }
  ++index;
}
console.log(`DONE ${index}`);
// Devices and timers the CTS left behind must not keep the process alive.
if (globalThis.Deno) Deno.exit(0);
else if (globalThis.process?.exit) globalThis.process.exit(0);
else (await import("alknet:process")).exit(0);
