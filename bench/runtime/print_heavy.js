// 200,000 console.log lines: bench/runtime/README or docs/benchmarks.md time it through a pipe
// in alknet (which writes stdout through on each write since issue 21) and in Node.
for (let i = 0; i < 200000; ++i) console.log("line " + i + " of a print-heavy script");
