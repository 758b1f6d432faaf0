import { check, throws, rejects, done, device as open } from "./check.mjs";

const { device } = await open();
throws("size is required", () => device.createBuffer({ usage: GPUBufferUsage.STORAGE }), "TypeError");
throws("negative size is a TypeError", () => device.createBuffer({ size: -4, usage: 4 }), "TypeError");
throws("mappedAtCreation needs size % 4 == 0", () => device.createBuffer({ size: 6, usage: 4, mappedAtCreation: true }), "RangeError");

// mappedAtCreation: write, unmap, copy, read back.
const src = device.createBuffer({ size: 32, usage: GPUBufferUsage.COPY_SRC, mappedAtCreation: true });
check("size and usage", src.size === 32 && src.usage === GPUBufferUsage.COPY_SRC);
check("mapped at creation", src.mapState === "mapped");
const range = src.getMappedRange();
new Uint32Array(range).set([1, 2, 3, 4, 5, 6, 7, 8]);
src.unmap();
check("unmap detaches the range", range.byteLength === 0);
check("unmapped", src.mapState === "unmapped");

const dst = device.createBuffer({ size: 32, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
const enc = device.createCommandEncoder();
enc.copyBufferToBuffer(src, 8, dst, 0, 24);
enc.clearBuffer(dst, 24, 8);
device.queue.submit([enc.finish()]);
const mapping = dst.mapAsync(GPUMapMode.READ);
check("mapping is pending", dst.mapState === "pending");
await rejects("second mapAsync rejects", dst.mapAsync(GPUMapMode.READ), "OperationError");
await mapping;
check("mapped", dst.mapState === "mapped");
check("copy and clear", new Uint32Array(dst.getMappedRange()).join() === "3,4,5,6,7,8,0,0");
// Ranges handed out must be disjoint (spec: [[mapped_ranges]]); a new mapping starts afresh.
throws("a range overlapping one handed out", () => dst.getMappedRange(8, 8), "OperationError");
dst.unmap();
await dst.mapAsync(GPUMapMode.READ);
check("sub-range", new Uint32Array(dst.getMappedRange(8, 8)).join() === "5,6");
throws("range outside the mapping", () => dst.getMappedRange(16, 32), "OperationError");
throws("misaligned range", () => dst.getMappedRange(4, 4), "OperationError");
dst.unmap();
throws("getMappedRange after unmap", () => dst.getMappedRange(), "OperationError");

// writeBuffer counts dataOffset/size in elements for typed arrays, bytes for ArrayBuffers.
const target = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
device.queue.writeBuffer(target, 0, new Uint32Array([9, 10, 11, 12, 13]), 1, 3);
device.queue.writeBuffer(target, 12, new Uint8Array([0xff, 0, 0, 0, 1, 2, 3, 4]).buffer, 4, 4);
throws("writeBuffer size beyond data", () => device.queue.writeBuffer(target, 0, new Uint32Array(2), 1, 2), "OperationError");
throws("writeBuffer size not a multiple of 4", () => device.queue.writeBuffer(target, 0, new Uint8Array(3)), "OperationError");
await device.queue.onSubmittedWorkDone();
await target.mapAsync(GPUMapMode.READ, 0, 16);
check("writeBuffer element offsets", new Uint32Array(target.getMappedRange()).join() === [10, 11, 12, 0x04030201].join());
target.unmap();

// A pending map is aborted by unmap.
const aborted = device.createBuffer({ size: 4, usage: GPUBufferUsage.MAP_READ });
const pending = aborted.mapAsync(GPUMapMode.READ);
aborted.unmap();
await rejects("unmap aborts a pending map", pending, "AbortError");

// Mapping a buffer without MAP_READ is a validation error: the promise rejects.
const notMappable = device.createBuffer({ size: 4, usage: GPUBufferUsage.STORAGE });
device.pushErrorScope("validation");
await rejects("mapAsync without MAP_READ rejects", notMappable.mapAsync(GPUMapMode.READ), "OperationError");
check("and reports a validation error", (await device.popErrorScope()) instanceof GPUValidationError);
done();
