// Particles advanced by a compute shader each frame and drawn as small quads: the scene of
// examples/desktop/particles.js (compute and render on one device, one submit per frame).
// Deterministic: frame n is the same image whether drawn in a window or offscreen.

const kCompute = `
struct Particle { pos: vec2f, vel: vec2f }
@group(0) @binding(0) var<storage, read_write> ps: array<Particle>;
@group(0) @binding(1) var<uniform> attractor: vec4f;  // xy: position, z: strength
@compute @workgroup_size(64) fn step(@builtin(global_invocation_id) id: vec3u) {
  if (id.x >= arrayLength(&ps)) { return; }
  var p = ps[id.x];
  let d = attractor.xy - p.pos;
  let r2 = max(dot(d, d), 0.01);
  p.vel = (p.vel + attractor.z * d / (r2 * sqrt(r2)) * 0.0004) * 0.995;
  p.pos = p.pos + p.vel;
  if (abs(p.pos.x) > 1.0) { p.vel.x = -p.vel.x; p.pos.x = clamp(p.pos.x, -1.0, 1.0); }
  if (abs(p.pos.y) > 1.0) { p.vel.y = -p.vel.y; p.pos.y = clamp(p.pos.y, -1.0, 1.0); }
  ps[id.x] = p;
}`;

const kRender = `
struct Particle { pos: vec2f, vel: vec2f }
@group(0) @binding(0) var<storage, read> ps: array<Particle>;
struct VsOut { @builtin(position) pos: vec4f, @location(0) color: vec3f }
@vertex fn vs(@builtin(vertex_index) v: u32, @builtin(instance_index) i: u32) -> VsOut {
  let corner = array(vec2f(-1, -1), vec2f(1, -1), vec2f(-1, 1), vec2f(1, 1))[v];
  let p = ps[i];
  let speed = clamp(length(p.vel) * 40.0, 0.0, 1.0);
  return VsOut(vec4f(p.pos + corner * 0.006, 0.0, 1.0), mix(vec3f(0.2, 0.5, 1.0), vec3f(1.0, 0.4, 0.1), speed));
}
@fragment fn fs(i: VsOut) -> @location(0) vec4f { return vec4f(i.color, 1.0); }`;

export function createParticleScene(device, format, count = 4096) {
  // A fixed pseudo-random start (xorshift), so every run starts the same.
  let s = 0x9e3779b9;
  const rand = () => { s ^= s << 13; s ^= s >>> 17; s ^= s << 5; return ((s >>> 0) / 4294967296) * 2 - 1; };
  const init = new Float32Array(count * 4);
  for (let i = 0; i < count; i++) init.set([rand() * 0.9, rand() * 0.9, rand() * 0.004, rand() * 0.004], i * 4);
  const particles = device.createBuffer({ size: init.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(particles, 0, init);
  const attractor = device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  const compute = device.createComputePipeline({ layout: "auto",
    compute: { module: device.createShaderModule({ code: kCompute }), entryPoint: "step" } });
  const renderModule = device.createShaderModule({ code: kRender });
  const render = device.createRenderPipeline({ layout: "auto",
    vertex: { module: renderModule }, fragment: { module: renderModule, targets: [{ format }] },
    primitive: { topology: "triangle-strip" } });
  const computeGroup = device.createBindGroup({ layout: compute.getBindGroupLayout(0), entries: [
    { binding: 0, resource: { buffer: particles } }, { binding: 1, resource: { buffer: attractor } }] });
  const renderGroup = device.createBindGroup({ layout: render.getBindGroupLayout(0), entries: [
    { binding: 0, resource: { buffer: particles } }] });
  let target = [0, 0, 1];
  return {
    // Moves the attractor (e.g. to the pointer), in clip space; strength 0 switches it off.
    setAttractor(x, y, strength = 1) { target = [x, y, strength]; },
    // Advances one step and draws into `view`.
    render(view) {
      device.queue.writeBuffer(attractor, 0, new Float32Array([...target, 0]));
      const encoder = device.createCommandEncoder();
      const cpass = encoder.beginComputePass();
      cpass.setPipeline(compute);
      cpass.setBindGroup(0, computeGroup);
      cpass.dispatchWorkgroups(Math.ceil(count / 64));
      cpass.end();
      const pass = encoder.beginRenderPass({ colorAttachments: [
        { view, clearValue: [0.02, 0.02, 0.04, 1], loadOp: "clear", storeOp: "store" }] });
      pass.setPipeline(render);
      pass.setBindGroup(0, renderGroup);
      pass.draw(4, count);
      pass.end();
      device.queue.submit([encoder.finish()]);
    },
  };
}
