// The benchmark workload, the same code for alknet, Deno and Node (webgpu npm): only how
// `gpu` (a GPU object, navigator.gpu) is obtained differs (see the entry files).
//
//   mode "first":    adapter, device, one 1024-element dispatch, read back, check. The driver
//                    times the whole process (cold start to first completed dispatch).
//   mode "dispatch": N small dispatches, one submit each, then one wait; prints µs/dispatch.
//   mode "js":       a compute-heavy pure-JS loop (no GPU); prints ms.
const SHADER = `
@group(0) @binding(0) var<storage, read_write> data: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  if (id.x < arrayLength(&data)) { data[id.x] = data[id.x] * 2.0 + 1.0; }
}`;

async function setup(gpu, n) {
  const adapter = await gpu.requestAdapter();
  if (!adapter) throw new Error("no WebGPU adapter");
  const device = await adapter.requestDevice();
  const buffer = device.createBuffer({
    size: n * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
  });
  const init = new Float32Array(n).map((_, i) => i);
  device.queue.writeBuffer(buffer, 0, init);
  const module = device.createShaderModule({ code: SHADER });
  const pipeline = device.createComputePipeline({ layout: "auto", compute: { module, entryPoint: "main" } });
  const bindGroup = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer } }],
  });
  return { device, buffer, pipeline, bindGroup, n };
}

function dispatch({ device, pipeline, bindGroup, n }) {
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bindGroup);
  pass.dispatchWorkgroups(Math.ceil(n / 64));
  pass.end();
  device.queue.submit([encoder.finish()]);
}

async function readBack({ device, buffer, n }) {
  const staging = device.createBuffer({ size: n * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToBuffer(buffer, 0, staging, 0, n * 4);
  device.queue.submit([encoder.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const out = new Float32Array(staging.getMappedRange().slice(0));
  staging.unmap();
  return out;
}

export async function run(gpu, mode, count) {
  if (mode === "first") {
    const ctx = await setup(gpu, 1024);
    dispatch(ctx);
    const out = await readBack(ctx);
    for (let i = 0; i < 1024; i++) {
      if (out[i] !== i * 2 + 1) throw new Error(`element ${i}: ${out[i]}, want ${i * 2 + 1}`);
    }
    return "first dispatch ok";
  }
  if (mode === "dispatch") {
    const ctx = await setup(gpu, 256);
    dispatch(ctx);  // warm: the pipeline is compiled before timing
    await readBack(ctx);
    const t0 = performance.now();
    for (let i = 0; i < count; i++) dispatch(ctx);
    const out = await readBack(ctx);
    const us = ((performance.now() - t0) * 1000) / count;
    // Every dispatch ran: x -> 2x + 1 applied count + 1 times to element 0 from 0 (2^(k)-1).
    const want = Math.min(2 ** (count + 1) - 1, 3.4028234663852886e38);
    if (!(out[0] === want || (count > 126 && !Number.isFinite(out[0])))) {
      throw new Error(`element 0 after ${count + 1} dispatches: ${out[0]}, want ${want}`);
    }
    return `dispatch_us ${us.toFixed(3)}`;
  }
  if (mode === "js") {
    const t0 = performance.now();
    let acc = 0;
    for (let i = 1; i <= count; i++) acc += Math.sqrt(i) * Math.sin(i) / (1 + (i & 7));
    const ms = performance.now() - t0;
    return `js_ms ${ms.toFixed(2)} acc ${acc.toFixed(6)}`;
  }
  throw new Error(`unknown mode ${mode}`);
}
