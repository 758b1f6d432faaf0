// A compute shader that never ends (its exit condition reads a value nothing writes). lavapipe
// cannot preempt it: run with --gpu-timeout=MS, the watchdog must report it and exit (code 4)
// instead of leaving the process running forever.
const adapter = await navigator.gpu.requestAdapter();
const device = await adapter.requestDevice();
const module = device.createShaderModule({ code: `
  @group(0) @binding(0) var<storage, read_write> data: array<u32>;
  @compute @workgroup_size(1) fn main() {
    loop {
      if (data[0] == 12345u) { break; }
      data[1] = data[1] + 1u;
    }
  }` });
const pipeline = device.createComputePipeline({ layout: "auto", compute: { module, entryPoint: "main" } });
const buffer = device.createBuffer({ size: 16, usage: GPUBufferUsage.STORAGE });
const group = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0),
  entries: [{ binding: 0, resource: { buffer } }] });
const encoder = device.createCommandEncoder();
const pass = encoder.beginComputePass();
pass.setPipeline(pipeline);
pass.setBindGroup(0, group);
pass.dispatchWorkgroups(1);
pass.end();
device.queue.submit([encoder.finish()]);
console.log("submitted");
await device.queue.onSubmittedWorkDone();
console.log("finished (unexpected)");
