// Compute passes: a storage-buffer kernel with a uniform, workgroup shared memory, two
// dispatches in one pass, dynamic offsets, and copyBufferToBuffer/clearBuffer around them.
const adapter = await navigator.gpu.requestAdapter();
const device = await adapter.requestDevice();

async function readU32(buffer, size) {
  const staging = device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToBuffer(buffer, 0, staging, 0, size);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const out = Array.from(new Uint32Array(staging.getMappedRange()));
  staging.unmap();
  return out;
}

// 1. y = a * x + b over 300 elements (not a multiple of the workgroup size).
const n = 300;
const module = device.createShaderModule({
  code: `
    struct Params { a: u32, b: u32, n: u32 }
    @group(0) @binding(0) var<uniform> p: Params;
    @group(0) @binding(1) var<storage, read> x: array<u32>;
    @group(0) @binding(2) var<storage, read_write> y: array<u32>;
    @compute @workgroup_size(64)
    fn main(@builtin(global_invocation_id) id: vec3u) {
      if (id.x < p.n) { y[id.x] = p.a * x[id.x] + p.b; }
    }`,
});
const info = await module.getCompilationInfo();
console.log("compilation messages:", info.messages.length);
const pipeline = device.createComputePipeline({ layout: "auto", compute: { module, entryPoint: "main" } });
const params = device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
device.queue.writeBuffer(params, 0, new Uint32Array([3, 7, n, 0]));
const x = device.createBuffer({ size: n * 4, usage: GPUBufferUsage.STORAGE, mappedAtCreation: true });
new Uint32Array(x.getMappedRange()).set(Array.from({ length: n }, (_, i) => i * i % 1000));
x.unmap();
const y = device.createBuffer({ size: n * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
const group = device.createBindGroup({
  layout: pipeline.getBindGroupLayout(0),
  entries: [
    { binding: 0, resource: { buffer: params } },
    { binding: 1, resource: { buffer: x } },
    { binding: 2, resource: { buffer: y } },
  ],
});
let encoder = device.createCommandEncoder();
let pass = encoder.beginComputePass();
pass.setPipeline(pipeline);
pass.setBindGroup(0, group);
pass.dispatchWorkgroups(Math.ceil(n / 64));
pass.end();
device.queue.submit([encoder.finish()]);
const ys = await readU32(y, n * 4);
let bad = 0;
for (let i = 0; i < n; ++i) if (ys[i] !== 3 * (i * i % 1000) + 7) ++bad;
console.log("axpb first", ys.slice(0, 6).join(","), "last", ys[n - 1], "mismatches", bad);

// 2. Workgroup reduction: sum of 256 values per workgroup, 4 workgroups.
const reduce = device.createShaderModule({
  code: `
    @group(0) @binding(0) var<storage, read> data: array<u32>;
    @group(0) @binding(1) var<storage, read_write> sums: array<u32>;
    var<workgroup> partial: array<u32, 256>;
    @compute @workgroup_size(256)
    fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3u) {
      partial[li] = data[wg.x * 256u + li];
      workgroupBarrier();
      var stride = 128u;
      while (stride > 0u) {
        if (li < stride) { partial[li] += partial[li + stride]; }
        workgroupBarrier();
        stride = stride / 2u;
      }
      if (li == 0u) { sums[wg.x] = partial[0]; }
    }`,
});
const reducePipeline = await device.createComputePipelineAsync({ layout: "auto", compute: { module: reduce } });
const values = Uint32Array.from({ length: 1024 }, (_, i) => (i * 7919) % 251);
const data = device.createBuffer({ size: values.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
device.queue.writeBuffer(data, 0, values);
const sums = device.createBuffer({ size: 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
encoder = device.createCommandEncoder();
pass = encoder.beginComputePass({ label: "reduce" });
pass.setPipeline(reducePipeline);
pass.setBindGroup(0, device.createBindGroup({
  layout: reducePipeline.getBindGroupLayout(0),
  entries: [{ binding: 0, resource: { buffer: data } }, { binding: 1, resource: { buffer: sums } }],
}));
pass.dispatchWorkgroups(4);
pass.end();
device.queue.submit([encoder.finish()]);
const got = await readU32(sums, 16);
const want = [0, 1, 2, 3].map((w) => values.slice(w * 256, w * 256 + 256).reduce((a, b) => a + b, 0));
console.log("reduce", got.join(","), "expected", want.join(","));

// 3. Dynamic offsets: one uniform buffer, two slices chosen at setBindGroup time.
const layout = device.createBindGroupLayout({
  entries: [
    { binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: "uniform", hasDynamicOffset: true } },
    { binding: 1, visibility: GPUShaderStage.COMPUTE, buffer: { type: "storage" } },
  ],
});
const dyn = device.createShaderModule({
  code: `
    @group(0) @binding(0) var<uniform> k: vec4u;
    @group(0) @binding(1) var<storage, read_write> out: array<u32>;
    @compute @workgroup_size(1) fn main() { out[k.y] = k.x; }`,
});
const dynPipeline = device.createComputePipeline({
  layout: device.createPipelineLayout({ bindGroupLayouts: [layout] }),
  compute: { module: dyn, entryPoint: "main" },
});
const uniforms = device.createBuffer({ size: 512, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
device.queue.writeBuffer(uniforms, 0, new Uint32Array([111, 0, 0, 0]));
device.queue.writeBuffer(uniforms, 256, new Uint32Array([222, 1, 0, 0]));
const out = device.createBuffer({ size: 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
const dynGroup = device.createBindGroup({
  layout,
  entries: [{ binding: 0, resource: { buffer: uniforms, size: 16 } }, { binding: 1, resource: { buffer: out } }],
});
encoder = device.createCommandEncoder();
encoder.clearBuffer(out);
pass = encoder.beginComputePass();
pass.setPipeline(dynPipeline);
pass.setBindGroup(0, dynGroup, [0]);
pass.dispatchWorkgroups(1);
pass.setBindGroup(0, dynGroup, new Uint32Array([7, 256, 9]), 1, 1);
pass.dispatchWorkgroups(1);
pass.end();
device.queue.submit([encoder.finish()]);
console.log("dynamic offsets", (await readU32(out, 16)).join(","));
device.destroy();
