// A program bigger than SpiderMonkey's default 32 MiB heap: 5 million small objects alive at
// once, and 2 GiB of ArrayBuffers (issue 21: scripts died of an uncatchable out-of-memory at
// about 400,000 objects). Prints what it built; the test compares the sums with its own.
const objects = [];
for (let i = 0; i < 5_000_000; i++) objects.push({ i, s: i & 7 });
let sum = 0;
for (const o of objects) sum += o.s;
const buffers = [];
for (let i = 0; i < 8; i++) {
  const b = new Uint8Array(256 << 20);
  b.fill(i + 1);
  buffers.push(b);
}
let bytes = 0, check = 0;
for (const b of buffers) { bytes += b.length; check += b[b.length - 1]; }
console.log(`objects ${objects.length} sum ${sum} bytes ${bytes} check ${check}`);
