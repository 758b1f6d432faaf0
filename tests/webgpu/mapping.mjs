// Buffer mapping edge cases: map states, ranges, unmapped access, destroy while mapped.
const adapter = await navigator.gpu.requestAdapter();
const device = await adapter.requestDevice();
const errorName = (e) => (e && e.name) || (e && e.constructor && e.constructor.name) || String(e);

async function expectReject(label, promise) {
  try {
    await promise;
    console.log(label, "resolved");
  } catch (e) {
    console.log(label, "rejected", errorName(e));
  }
}
function expectThrow(label, fn) {
  try {
    fn();
    console.log(label, "no exception");
  } catch (e) {
    console.log(label, "threw", errorName(e));
  }
}

// States: unmapped -> pending -> mapped -> unmapped.
const b = device.createBuffer({ size: 64, usage: GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC });
console.log("initial", b.mapState, b.size, b.usage);
const p = b.mapAsync(GPUMapMode.WRITE);
console.log("after mapAsync", b.mapState);
await p;
console.log("after await", b.mapState);
const whole = b.getMappedRange();
console.log("whole range bytes", whole.byteLength);
new Uint8Array(whole).set(Array.from({ length: 64 }, (_, i) => i));
b.unmap();
console.log("after unmap", b.mapState, "detached length", whole.byteLength);

// Mapping a range and reading sub-ranges of it.
const src = device.createBuffer({ size: 64, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
const enc = device.createCommandEncoder();
enc.copyBufferToBuffer(b, 0, src, 0, 64);
device.queue.submit([enc.finish()]);
await src.mapAsync(GPUMapMode.READ, 16, 32);
const sub = new Uint8Array(src.getMappedRange(24, 8));
console.log("range [24,32)", Array.from(sub).join(","));
const rest = new Uint8Array(src.getMappedRange(32, 16));
expectThrow("default size runs past the mapping", () => src.getMappedRange(40));
console.log("range [32,48) length", rest.length, "first", rest[0], "last", rest[rest.length - 1]);
expectThrow("outside mapped range", () => src.getMappedRange(0, 8));
expectThrow("misaligned offset", () => src.getMappedRange(20, 4));
await expectReject("map while mapped", src.mapAsync(GPUMapMode.READ));
src.unmap();

// Unmapped access.
expectThrow("getMappedRange while unmapped", () => src.getMappedRange());
console.log("still", src.mapState);

// (Unmapping while a map is pending must reject it with AbortError, and destroy() must
// leave the buffer "unmapped"; Deno 2.9.6 does neither, so those cases live in
// spec_only.mjs, which alknet runs alone.)

// Destroy while mapped detaches the ranges.
await src.mapAsync(GPUMapMode.READ);
const view = src.getMappedRange();
src.destroy();
console.log("destroy while mapped: detached length", view.byteLength);
await expectReject("map destroyed buffer", src.mapAsync(GPUMapMode.READ));

// mappedAtCreation without MAP usage.
const c = device.createBuffer({ size: 16, usage: GPUBufferUsage.STORAGE, mappedAtCreation: true });
console.log("mappedAtCreation state", c.mapState, "length", c.getMappedRange().byteLength);
c.unmap();
console.log("after unmap", c.mapState);
expectThrow("mappedAtCreation size not multiple of 4", () =>
  device.createBuffer({ size: 6, usage: GPUBufferUsage.STORAGE, mappedAtCreation: true }));

// Mapping with the wrong mode is a validation failure: the promise rejects.
device.pushErrorScope("validation");
const ro = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ });
await expectReject("map READ buffer for WRITE", ro.mapAsync(GPUMapMode.WRITE));
const err = await device.popErrorScope();
console.log("scope after wrong-mode map", err === null ? "null" : err.constructor.name);
device.destroy();
