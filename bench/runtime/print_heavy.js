// 200,000 console.log lines; docs/benchmarks.md ("Output written through") times it through a
// pipe in alknet (stdout written through on each write since issue 21) and in Node.
for (let i = 0; i < 200000; ++i) console.log("line " + i + " of a print-heavy script");
