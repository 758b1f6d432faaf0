// A textured cube with depth, rotating with the frame number: the scene of examples/desktop/
// cube.js, kept apart from the window so the tests can render the same frames offscreen
// (libs/desktop/tests/offscreen.js) and compare them with what the window presented.

// Column-major 4x4 matrices, as WGSL's mat4x4f reads them.
function perspective(fovy, aspect, near, far) {
  const f = 1 / Math.tan(fovy / 2), nf = 1 / (near - far);
  return [f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, far * nf, -1, 0, 0, far * near * nf, 0];
}
function multiply(a, b) {
  const out = new Array(16).fill(0);
  for (let c = 0; c < 4; c++)
    for (let r = 0; r < 4; r++)
      for (let k = 0; k < 4; k++) out[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
  return out;
}
function rotation(ax, ay) {
  const [cx, sx, cy, sy] = [Math.cos(ax), Math.sin(ax), Math.cos(ay), Math.sin(ay)];
  const rx = [1, 0, 0, 0, 0, cx, sx, 0, 0, -sx, cx, 0, 0, 0, 0, 1];
  const ry = [cy, 0, -sy, 0, 0, 1, 0, 0, sy, 0, cy, 0, 0, 0, 0, 1];
  return multiply(rx, ry);
}
function translation(x, y, z) { return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1]; }

// 6 faces x 2 triangles x 3 vertices: position (xyz), uv.
function cubeVertices() {
  const faces = [
    [[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[-1, 0, 0], [0, 1, 0], [0, 0, -1]],
    [[0, 1, 0], [0, 0, 1], [1, 0, 0]], [[0, -1, 0], [0, 0, -1], [1, 0, 0]],
    [[0, 0, 1], [0, 1, 0], [-1, 0, 0]], [[0, 0, -1], [0, 1, 0], [1, 0, 0]],
  ];
  const v = [];
  for (const [n, u, w] of faces) {
    const corner = (a, b) => [n[0] + a * u[0] + b * w[0], n[1] + a * u[1] + b * w[1],
                              n[2] + a * u[2] + b * w[2], (a + 1) / 2, (b + 1) / 2];
    const q = [corner(-1, -1), corner(1, -1), corner(1, 1), corner(-1, 1)];
    for (const i of [0, 1, 2, 0, 2, 3]) v.push(...q[i]);
  }
  return new Float32Array(v);
}

const kShader = `
struct Uniforms { mvp: mat4x4f }
@group(0) @binding(0) var<uniform> u: Uniforms;
@group(0) @binding(1) var tex: texture_2d<f32>;
@group(0) @binding(2) var samp: sampler;
struct VsOut { @builtin(position) pos: vec4f, @location(0) uv: vec2f }
@vertex fn vs(@location(0) p: vec3f, @location(1) uv: vec2f) -> VsOut {
  return VsOut(u.mvp * vec4f(p, 1.0), uv);
}
@fragment fn fs(i: VsOut) -> @location(0) vec4f { return textureSample(tex, samp, i.uv); }`;

export function createCubeScene(device, format, width, height) {
  const vertices = cubeVertices();
  const vbuf = device.createBuffer({ size: vertices.byteLength, usage: GPUBufferUsage.VERTEX | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(vbuf, 0, vertices);
  const ubuf = device.createBuffer({ size: 64, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  // An 8x8 checkerboard in two colours, sampled with nearest filtering.
  const texels = new Uint8Array(8 * 8 * 4);
  for (let y = 0; y < 8; y++)
    for (let x = 0; x < 8; x++)
      texels.set((x + y) % 2 ? [230, 120, 30, 255] : [30, 90, 200, 255], (y * 8 + x) * 4);
  const texture = device.createTexture({ size: [8, 8], format: "rgba8unorm",
                                         usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST });
  device.queue.writeTexture({ texture }, texels, { bytesPerRow: 32 }, [8, 8]);
  const module = device.createShaderModule({ code: kShader });
  const pipeline = device.createRenderPipeline({
    layout: "auto",
    vertex: { module, buffers: [{ arrayStride: 20, attributes: [
      { shaderLocation: 0, offset: 0, format: "float32x3" },
      { shaderLocation: 1, offset: 12, format: "float32x2" }] }] },
    fragment: { module, targets: [{ format }] },
    primitive: { topology: "triangle-list", cullMode: "back" },
    depthStencil: { format: "depth24plus", depthWriteEnabled: true, depthCompare: "less" },
  });
  const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [
    { binding: 0, resource: { buffer: ubuf } },
    { binding: 1, resource: texture.createView() },
    { binding: 2, resource: device.createSampler({ magFilter: "nearest", minFilter: "nearest" }) }] });
  let depth = null;
  return {
    // Records and submits frame `n` into `view` (a width x height colour attachment).
    render(view, n, w = width, h = height) {
      if (!depth || depth.width !== w || depth.height !== h) {
        depth?.destroy();
        depth = device.createTexture({ size: [w, h], format: "depth24plus", usage: GPUTextureUsage.RENDER_ATTACHMENT });
      }
      const mvp = multiply(perspective(Math.PI / 4, w / h, 0.1, 100),
                           multiply(translation(0, 0, -5), rotation(0.5 + n * 0.03, n * 0.02)));
      device.queue.writeBuffer(ubuf, 0, new Float32Array(mvp));
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginRenderPass({
        colorAttachments: [{ view, clearValue: [0.08, 0.08, 0.1, 1], loadOp: "clear", storeOp: "store" }],
        depthStencilAttachment: { view: depth.createView(), depthClearValue: 1, depthLoadOp: "clear", depthStoreOp: "store" },
      });
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, bindGroup);
      pass.setVertexBuffer(0, vbuf);
      pass.draw(36);
      pass.end();
      device.queue.submit([encoder.finish()]);
    },
  };
}
