// Timestamp queries where the adapter has "timestamp-query": a compute pass with
// timestampWrites, resolved into a buffer; the end is not before the beginning.
const adapter = await navigator.gpu.requestAdapter();
const has = adapter.features.has("timestamp-query");
console.log("adapter has timestamp-query:", has);
if (has) {
  const device = await adapter.requestDevice({ requiredFeatures: ["timestamp-query"] });
  console.log("device has timestamp-query:", device.features.has("timestamp-query"));
  const set = device.createQuerySet({ type: "timestamp", count: 2 });
  console.log("query set", set.type, set.count);
  const module = device.createShaderModule({
    code: `@group(0) @binding(0) var<storage, read_write> x: array<f32>;
           @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) {
             var v = x[id.x];
             for (var i = 0; i < 64; i++) { v = v * 1.0001 + 0.5; }
             x[id.x] = v;
           }`,
  });
  const pipeline = device.createComputePipeline({ layout: "auto", compute: { module } });
  const data = device.createBuffer({ size: 4 * 4096, usage: GPUBufferUsage.STORAGE });
  const resolved = device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
  const read = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass({
    timestampWrites: { querySet: set, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 },
  });
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: data } }] }));
  pass.dispatchWorkgroups(64);
  pass.end();
  encoder.resolveQuerySet(set, 0, 2, resolved, 0);
  encoder.copyBufferToBuffer(resolved, 0, read, 0, 16);
  device.pushErrorScope("validation");
  device.queue.submit([encoder.finish()]);
  const error = await device.popErrorScope();
  console.log("validation:", error === null ? "none" : error.message);
  await read.mapAsync(GPUMapMode.READ);
  const [begin, end] = new BigUint64Array(read.getMappedRange());
  console.log("end >= begin:", end >= begin, "nonzero:", end > 0n);
  read.unmap();
  set.destroy();
  device.destroy();
}
