// Unreleased GPU buffers are memory the GC must see: 3,000 buffers of 1 MiB, written and then
// dropped without destroy(). Their memory counts toward the JS heap's pressure, so collection
// frees them as the script goes (the test runner checks the process's peak RSS).
const adapter = await navigator.gpu.requestAdapter();
const device = await adapter.requestDevice();
const bytes = new Uint8Array(1 << 20).fill(9);
let last;
for (let i = 0; i < 3000; i++) {
  last = device.createBuffer({ size: 1 << 20, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.STORAGE });
  device.queue.writeBuffer(last, 0, bytes);
  if (i % 100 === 99) {
    device.queue.submit([]);  // flushes the pending writes (Dawn holds their staging until then)
    await device.queue.onSubmittedWorkDone();
  }
}
await device.queue.onSubmittedWorkDone();
console.log("made 3000 buffers, last size", last.size);
