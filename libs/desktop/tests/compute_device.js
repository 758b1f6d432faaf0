// compute.device and Tensor.gpuBuffer (alknet:compute's device as a WebGPU GPUDevice), run by
// desktop_test.py with `alknet run`: each check prints "ok ..." or "FAIL ...". The values are
// checked against what the script computes itself in float64 (matMul) and against the tensor's
// own download.
import compute, { Tensor } from "alknet:compute";

let failed = 0;
// `promise`'s value, or null after `ms` (the timer is cleared, so it does not hold the loop).
function within(promise, ms) {
  let timer;
  const timeout = new Promise((resolve) => { timer = setTimeout(() => resolve(null), ms); });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
function check(cond, what) {
  console.log(`${cond ? "ok  " : "FAIL"} ${what}`);
  if (!cond) failed++;
}

const device = compute.device;
check(device instanceof GPUDevice && compute.device === device, "compute.device is one GPUDevice");
check(device.queue instanceof GPUQueue && device.limits.maxStorageBufferBindingSize > 0, "it has a queue and limits");

// A compute op's result read back through its gpuBuffer: a copy on the GPU into a map buffer of
// the same device, then mapAsync (futures of compute's instance, pumped by the loop).
const a = Tensor.from(new Float32Array([1, 2, 3, 4, 5, 6]), [2, 3]);
const b = Tensor.from(new Float32Array([0.5, -1, 2, 0.25, -3, 1.5]), [3, 2]);
const c = compute.matMul(a, b);
const want = [];
for (let i = 0; i < 2; i++)
  for (let j = 0; j < 2; j++) {
    let s = 0;
    for (let k = 0; k < 3; k++) s += [1, 2, 3, 4, 5, 6][i * 3 + k] * [0.5, -1, 2, 0.25, -3, 1.5][k * 2 + j];
    want.push(s);
  }
const buf = c.gpuBuffer;
check(buf instanceof GPUBuffer && c.gpuBuffer === buf, "tensor.gpuBuffer is one GPUBuffer per tensor");
check(buf.size >= 16 && (buf.usage & GPUBufferUsage.STORAGE) && (buf.usage & GPUBufferUsage.COPY_SRC),
      `gpuBuffer: size ${buf.size} >= 16, usage ${buf.usage} has STORAGE | COPY_SRC`);
const read = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
const enc = device.createCommandEncoder();
enc.copyBufferToBuffer(buf, 0, read, 0, 16);
device.queue.submit([enc.finish()]);
await read.mapAsync(GPUMapMode.READ);
const got = Array.from(new Float32Array(read.getMappedRange().slice(0)));
read.unmap();
check(got.every((v, i) => Math.abs(v - want[i]) < 1e-5), `gpuBuffer holds the matMul: ${got} vs float64 ${want}`);
const down = Array.from(await c.data());
check(down.every((v, i) => v === got[i]), "and equals the tensor's own download");

// A compute shader of the script writes into a tensor's storage; the tensor sees it.
const t = compute.add(Tensor.from(new Float32Array(64)), Tensor.from(new Float32Array(64)));
const module = device.createShaderModule({ code: `
@group(0) @binding(0) var<storage, read_write> x: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) { x[g.x] = f32(g.x) * 0.5; }` });
const pipeline = device.createComputePipeline({ layout: "auto", compute: { module, entryPoint: "main" } });
const e2 = device.createCommandEncoder();
const pass = e2.beginComputePass();
pass.setPipeline(pipeline);
pass.setBindGroup(0, device.createBindGroup({ layout: pipeline.getBindGroupLayout(0),
                                              entries: [{ binding: 0, resource: { buffer: t.gpuBuffer } }] }));
pass.dispatchWorkgroups(1);
pass.end();
device.queue.submit([e2.finish()]);
const after = await compute.mul(t, Tensor.from(new Float32Array(64).fill(2))).data();
check(after.every((v, i) => v === i), "a WebGPU compute pass wrote the tensor; compute ops read what it wrote");
await device.queue.onSubmittedWorkDone();
check(true, "onSubmittedWorkDone resolves on compute.device");

// Hostile use: clear errors, no crash.
let msg = "";
try { buf.destroy(); } catch (e) { msg = `${e.name}: ${e.message}`; }
check(msg.startsWith("OperationError") && msg.includes("tensor"), `gpuBuffer.destroy() is refused (${msg})`);
msg = "";
try { compute.transpose(a, { perm: [1, 0] }).gpuBuffer; } catch (e) { msg = `${e.name}: ${e.message}`; }
check(msg.startsWith("TypeError") && msg.includes("strided"), `a strided view has no gpuBuffer (${msg})`);

// Errors no scope caught reach the device's uncapturederror event.
const seen = new Promise((resolve) => device.addEventListener("uncapturederror", (e) => resolve(e.error), { once: true }));
device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.MAP_WRITE });
const err = await within(seen, 5000);
check(err instanceof GPUValidationError, `a validation error on compute.device fires uncapturederror (${err?.constructor?.name})`);
device.pushErrorScope("validation");
device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.MAP_WRITE });
const scoped = await device.popErrorScope();
check(scoped instanceof GPUValidationError, "and error scopes catch them");

// destroy(): device.lost resolves "destroyed"; compute ops then fail with a clear error.
device.destroy();
const info = await within(device.lost, 5000);
check(info?.reason === "destroyed", `device.lost resolves after destroy() (${info?.reason})`);
msg = "";
try { compute.add(a, a); } catch (e) { msg = `${e.name}: ${e.message}`; }
check(msg.includes("lost"), `compute ops after destroy() throw (${msg})`);
console.log(failed ? `compute_device: ${failed} failure(s)` : "compute_device: all passed");
