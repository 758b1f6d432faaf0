// A raw WebGPU compute script: y = a * x + b over a vector whose length is not a multiple of
// the workgroup size, checked element by element against a float64 CPU reference (f32
// arithmetic on the GPU, so a relative tolerance). Exits non-zero on any mismatch.
//
//   alknet run examples/webgpu_compute.js [elements]
import { args, exit } from "alknet:process";

const n = Number(args[0] ?? 100_003);
const a = 2.5, b = -1.25;

const adapter = await navigator.gpu.requestAdapter();
if (!adapter) {
  console.error("no WebGPU adapter (without a GPU, lavapipe must be installed: scripts/setup)");
  exit(3);
}
const device = await adapter.requestDevice();
device.onuncapturederror = (e) => {
  console.error("uncaptured WebGPU error:", e.error.message);
  exit(1);
};
console.log(`adapter: ${adapter.info.device || adapter.info.description} (${adapter.info.vendor})`);

const module = device.createShaderModule({
  label: "saxpy",
  code: `
    struct Params { a: f32, b: f32, n: u32 }
    @group(0) @binding(0) var<storage, read> x: array<f32>;
    @group(0) @binding(1) var<storage, read_write> y: array<f32>;
    @group(0) @binding(2) var<uniform> params: Params;

    @compute @workgroup_size(64)
    fn main(@builtin(global_invocation_id) id: vec3u) {
      if (id.x < params.n) {
        y[id.x] = params.a * x[id.x] + params.b;
      }
    }`,
});
const info = await module.getCompilationInfo();
if (info.messages.some((m) => m.type === "error")) {
  console.error("WGSL did not compile:", info.messages.map((m) => `${m.lineNum}:${m.linePos} ${m.message}`));
  exit(1);
}

const x = new Float32Array(n);
for (let i = 0; i < n; i++) x[i] = Math.sin(i) * 100;
const bytes = n * 4;
const xBuffer = device.createBuffer({ size: bytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
const yBuffer = device.createBuffer({ size: bytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
const params = device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM, mappedAtCreation: true });
new Float32Array(params.getMappedRange(0, 8)).set([a, b]);
new Uint32Array(params.getMappedRange(8, 8)).set([n, 0]);
params.unmap();
device.queue.writeBuffer(xBuffer, 0, x);

// Poison the output so a shader that writes nothing cannot pass.
const poison = new Float32Array(n).fill(NaN);
device.queue.writeBuffer(yBuffer, 0, poison);

const pipeline = device.createComputePipeline({ layout: "auto", compute: { module, entryPoint: "main" } });
const bindGroup = device.createBindGroup({
  layout: pipeline.getBindGroupLayout(0),
  entries: [
    { binding: 0, resource: { buffer: xBuffer } },
    { binding: 1, resource: { buffer: yBuffer } },
    { binding: 2, resource: { buffer: params } },
  ],
});
const readback = device.createBuffer({ size: bytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });

device.pushErrorScope("validation");
const encoder = device.createCommandEncoder();
const pass = encoder.beginComputePass();
pass.setPipeline(pipeline);
pass.setBindGroup(0, bindGroup);
pass.dispatchWorkgroups(Math.ceil(n / 64));
pass.end();
encoder.copyBufferToBuffer(yBuffer, 0, readback, 0, bytes);
device.queue.submit([encoder.finish()]);
const error = await device.popErrorScope();
if (error) {
  console.error("validation error:", error.message);
  exit(1);
}

await readback.mapAsync(GPUMapMode.READ);
const y = new Float32Array(readback.getMappedRange().slice(0));
readback.unmap();

let bad = 0;
for (let i = 0; i < n; i++) {
  const want = a * Math.fround(x[i]) + b;  // float64 reference
  if (!(Math.abs(y[i] - want) <= 1e-5 * Math.max(1, Math.abs(want)))) {
    if (bad++ < 5) console.error(`y[${i}] = ${y[i]}, expected ${want}`);
  }
}
if (bad) {
  console.error(`FAIL: ${bad} of ${n} elements differ`);
  exit(1);
}
console.log(`ok: y = ${a} * x + ${b} on ${n} elements matches the float64 reference`);
device.destroy();
