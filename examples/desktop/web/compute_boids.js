// Compute boids written as for a web page (Reynolds' flocking: cohesion, separation, alignment):
// a compute pass advances 1,500 boids between two storage buffers each frame, a render pass draws
// each as a small triangle from the buffer just written. Only the marked line differs from what
// a browser would run.
const canvas = (await import("alknet:desktop")).createWindow({ title: "compute boids" });  // the one changed line

const adapter = await navigator.gpu.requestAdapter();
const device = await adapter.requestDevice();
const context = canvas.getContext("webgpu");
canvas.width = canvas.clientWidth * devicePixelRatio;
canvas.height = canvas.clientHeight * devicePixelRatio;
const presentationFormat = navigator.gpu.getPreferredCanvasFormat();
context.configure({ device, format: presentationFormat });

const numBoids = 1500;
const simParams = { deltaT: 0.04, near: 0.1, separation: 0.025, align: 0.025,
                    cohesionScale: 0.02, separationScale: 0.05, alignScale: 0.005 };

const drawModule = device.createShaderModule({ code: `
struct VsOut { @builtin(position) pos: vec4f, @location(0) color: vec3f }
@vertex fn vs(@location(0) boidPos: vec2f, @location(1) boidVel: vec2f, @location(2) corner: vec2f) -> VsOut {
  let angle = -atan2(boidVel.x, boidVel.y);
  let p = vec2f(corner.x * cos(angle) - corner.y * sin(angle), corner.x * sin(angle) + corner.y * cos(angle));
  let speed = clamp(length(boidVel) * 8.0, 0.0, 1.0);
  return VsOut(vec4f(p + boidPos, 0.0, 1.0), vec3f(1.0 - speed, 0.6, 0.3 + 0.7 * speed));
}
@fragment fn fs(i: VsOut) -> @location(0) vec4f { return vec4f(i.color, 1.0); }` });

const simModule = device.createShaderModule({ code: `
struct Boid { pos: vec2f, vel: vec2f }
struct Params { deltaT: f32, near: f32, separation: f32, align: f32,
                cohesionScale: f32, separationScale: f32, alignScale: f32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> boidsIn: array<Boid>;
@group(0) @binding(2) var<storage, read_write> boidsOut: array<Boid>;
@compute @workgroup_size(64) fn step(@builtin(global_invocation_id) id: vec3u) {
  let i = id.x;
  if (i >= arrayLength(&boidsIn)) { return; }
  let me = boidsIn[i];
  var centre = vec2f(0.0); var apart = vec2f(0.0); var heading = vec2f(0.0);
  var nCentre = 0u; var nHeading = 0u;
  for (var j = 0u; j < arrayLength(&boidsIn); j++) {
    if (j == i) { continue; }
    let other = boidsIn[j];
    let d = distance(other.pos, me.pos);
    if (d < params.near) { centre += other.pos; nCentre++; }
    if (d < params.separation) { apart -= other.pos - me.pos; }
    if (d < params.align) { heading += other.vel; nHeading++; }
  }
  var vel = me.vel;
  if (nCentre > 0u) { vel += (centre / f32(nCentre) - me.pos) * params.cohesionScale; }
  if (nHeading > 0u) { vel += heading / f32(nHeading) * params.alignScale; }
  vel += apart * params.separationScale;
  vel = normalize(vel) * clamp(length(vel), 0.0, 0.1);
  var pos = me.pos + vel * params.deltaT;
  // Wrap around the edges of clip space.
  pos = select(pos, vec2f(-pos.x, pos.y), abs(pos.x) > 1.0);
  pos = select(pos, vec2f(pos.x, -pos.y), abs(pos.y) > 1.0);
  boidsOut[i] = Boid(pos, vel);
}` });

const renderPipeline = device.createRenderPipeline({
  layout: "auto",
  vertex: { module: drawModule, buffers: [
    { arrayStride: 16, stepMode: "instance", attributes: [
      { shaderLocation: 0, offset: 0, format: "float32x2" }, { shaderLocation: 1, offset: 8, format: "float32x2" }] },
    { arrayStride: 8, stepMode: "vertex", attributes: [{ shaderLocation: 2, offset: 0, format: "float32x2" }] }] },
  fragment: { module: drawModule, targets: [{ format: presentationFormat }] },
  primitive: { topology: "triangle-list" },
});
const computePipeline = device.createComputePipeline({ layout: "auto", compute: { module: simModule } });

const corners = new Float32Array([-0.01, -0.02, 0.01, -0.02, 0.0, 0.02]);
const cornerBuffer = device.createBuffer({ size: corners.byteLength, usage: GPUBufferUsage.VERTEX, mappedAtCreation: true });
new Float32Array(cornerBuffer.getMappedRange()).set(corners);
cornerBuffer.unmap();

const params = new Float32Array(Object.values(simParams));
const paramsBuffer = device.createBuffer({ size: 32, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
device.queue.writeBuffer(paramsBuffer, 0, params);

// A fixed start (a linear congruential sequence), so runs are repeatable.
let seed = 12345;
const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296);
const initial = new Float32Array(numBoids * 4);
for (let i = 0; i < numBoids; i++) {
  initial.set([2 * (random() - 0.5), 2 * (random() - 0.5), 2 * (random() - 0.5) * 0.1, 2 * (random() - 0.5) * 0.1], i * 4);
}
const boidBuffers = [0, 1].map(() => {
  const b = device.createBuffer({ size: initial.byteLength, usage: GPUBufferUsage.VERTEX | GPUBufferUsage.STORAGE, mappedAtCreation: true });
  new Float32Array(b.getMappedRange()).set(initial);
  b.unmap();
  return b;
});
const bindGroups = [0, 1].map((i) => device.createBindGroup({
  layout: computePipeline.getBindGroupLayout(0),
  entries: [{ binding: 0, resource: { buffer: paramsBuffer } },
            { binding: 1, resource: { buffer: boidBuffers[i] } },
            { binding: 2, resource: { buffer: boidBuffers[1 - i] } }],
}));

let t = 0;
function frame() {
  const commandEncoder = device.createCommandEncoder();
  const computePass = commandEncoder.beginComputePass();
  computePass.setPipeline(computePipeline);
  computePass.setBindGroup(0, bindGroups[t % 2]);
  computePass.dispatchWorkgroups(Math.ceil(numBoids / 64));
  computePass.end();
  const renderPass = commandEncoder.beginRenderPass({ colorAttachments: [{
    view: context.getCurrentTexture().createView(), clearValue: [0, 0, 0, 1], loadOp: "clear", storeOp: "store" }] });
  renderPass.setPipeline(renderPipeline);
  renderPass.setVertexBuffer(0, boidBuffers[(t + 1) % 2]);
  renderPass.setVertexBuffer(1, cornerBuffer);
  renderPass.draw(3, numBoids);
  renderPass.end();
  device.queue.submit([commandEncoder.finish()]);
  t++;
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
