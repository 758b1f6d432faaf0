// device.destroy() (and device loss) with mapped buffers: every ArrayBuffer handed out by
// getMappedRange is detached, since the mapping's memory goes with the device. Before the fix,
// writing such a view after destroy() wrote into freed memory (a crash inside libmozjs).
import { check, throws, done, device as open } from "./check.mjs";

const { device } = await open();
const atCreation = device.createBuffer({
  size: 4 << 20, usage: GPUBufferUsage.MAP_WRITE | GPUBufferUsage.COPY_SRC, mappedAtCreation: true });
const written = new Uint8Array(atCreation.getMappedRange());
written.fill(1);
const read = device.createBuffer({ size: 256, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
await read.mapAsync(GPUMapMode.READ);
const readView = new Uint32Array(read.getMappedRange(0, 64));
check("views live before destroy", written.length === 4 << 20 && readView.length === 16);

device.destroy();
check("destroy detaches a mappedAtCreation range", written.length === 0 && written.buffer.byteLength === 0);
check("destroy detaches a mapAsync range", readView.length === 0);
throws("writing a detached view is refused, not a write into freed memory", () => written.fill(7), "TypeError");
const info = await device.lost;
check("device.lost reports destroyed", info.reason === "destroyed");
check("still detached after the loss", written.length === 0);
// A buffer made after destroy is an invalid object, but its mapping is still script memory.
const late = device.createBuffer({ size: 64, usage: GPUBufferUsage.MAP_WRITE, mappedAtCreation: true });
const lateRange = late.getMappedRange();
new Uint8Array(lateRange).fill(3);
late.unmap();
check("unmap after destroy detaches", lateRange.byteLength === 0);
done();
