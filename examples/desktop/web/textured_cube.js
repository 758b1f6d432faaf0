// A rotating textured cube with depth, written as for a web page: only the marked line differs
// from what a browser would run. (Web versions load the texture from an image; this one fills
// it in code, a ring pattern, so the sample needs no file.)
const canvas = (await import("alknet:desktop")).createWindow({ title: "textured cube" });  // the one changed line

const adapter = await navigator.gpu.requestAdapter();
const device = await adapter.requestDevice();
const context = canvas.getContext("webgpu");
canvas.width = canvas.clientWidth * devicePixelRatio;
canvas.height = canvas.clientHeight * devicePixelRatio;
const presentationFormat = navigator.gpu.getPreferredCanvasFormat();
context.configure({ device, format: presentationFormat });

// 36 vertices: position (xyzw) and uv, two counter-clockwise triangles per face seen from outside.
const data = [];
for (const n of [0, 1, 2]) {
  for (const sign of [1, -1]) {
    const u = (n + 1) % 3, v = (n + 2) % 3;  // u x v = the face's normal axis
    const quad = [[-1, -1], [1, -1], [1, 1], [-1, -1], [1, 1], [-1, 1]];
    for (const [s, t] of (sign > 0 ? quad : quad.slice().reverse())) {
      const p = [0, 0, 0];
      p[n] = sign; p[u] = s; p[v] = t;
      data.push(...p, 1, (s + 1) / 2, (t + 1) / 2);
    }
  }
}
const vertices = new Float32Array(data);
const vertexBuffer = device.createBuffer({ size: vertices.byteLength, usage: GPUBufferUsage.VERTEX, mappedAtCreation: true });
new Float32Array(vertexBuffer.getMappedRange()).set(vertices);
vertexBuffer.unmap();

const size = 64;
const texels = new Uint8Array(size * size * 4);
for (let y = 0; y < size; y++)
  for (let x = 0; x < size; x++) {
    const r = Math.hypot(x - size / 2, y - size / 2);
    const ring = Math.floor(r / 4) % 2;
    texels.set(ring ? [250, 200, 60, 255] : [40, 70, 160, 255], (y * size + x) * 4);
  }
const cubeTexture = device.createTexture({ size: [size, size], format: "rgba8unorm",
  usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST | GPUTextureUsage.RENDER_ATTACHMENT });
device.queue.writeTexture({ texture: cubeTexture }, texels, { bytesPerRow: size * 4 }, [size, size]);
const sampler = device.createSampler({ magFilter: "linear", minFilter: "linear" });

const module = device.createShaderModule({ code: `
struct Uniforms { modelViewProjectionMatrix: mat4x4f }
@group(0) @binding(0) var<uniform> uniforms: Uniforms;
@group(0) @binding(1) var mySampler: sampler;
@group(0) @binding(2) var myTexture: texture_2d<f32>;
struct VertexOutput { @builtin(position) Position: vec4f, @location(0) uv: vec2f }
@vertex fn vs(@location(0) position: vec4f, @location(1) uv: vec2f) -> VertexOutput {
  return VertexOutput(uniforms.modelViewProjectionMatrix * position, uv);
}
@fragment fn fs(@location(0) uv: vec2f) -> @location(0) vec4f { return textureSample(myTexture, mySampler, uv); }` });

const pipeline = device.createRenderPipeline({
  layout: "auto",
  vertex: { module, buffers: [{ arrayStride: 24, attributes: [
    { shaderLocation: 0, offset: 0, format: "float32x4" }, { shaderLocation: 1, offset: 16, format: "float32x2" }] }] },
  fragment: { module, targets: [{ format: presentationFormat }] },
  primitive: { topology: "triangle-list", cullMode: "back" },
  depthStencil: { depthWriteEnabled: true, depthCompare: "less", format: "depth24plus" },
});
const depthTexture = device.createTexture({ size: [canvas.width, canvas.height], format: "depth24plus",
                                            usage: GPUTextureUsage.RENDER_ATTACHMENT });
const uniformBuffer = device.createBuffer({ size: 64, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
const uniformBindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [
  { binding: 0, resource: { buffer: uniformBuffer } },
  { binding: 1, resource: sampler },
  { binding: 2, resource: cubeTexture.createView() }] });

// Column-major matrices (what WGSL's mat4x4f reads).
const mul = (a, b) => {
  const o = new Float32Array(16);
  for (let c = 0; c < 4; c++) for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) o[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
  return o;
};
const perspective = (fovy, aspect, near, far) => {
  const f = 1 / Math.tan(fovy / 2), nf = 1 / (near - far);
  return [f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, far * nf, -1, 0, 0, far * near * nf, 0];
};
const rotate = (t) => {
  const [c, s] = [Math.cos(t), Math.sin(t)];
  const ry = [c, 0, -s, 0, 0, 1, 0, 0, s, 0, c, 0, 0, 0, 0, 1];
  const rx = [1, 0, 0, 0, 0, Math.cos(t * 0.7), Math.sin(t * 0.7), 0, 0, -Math.sin(t * 0.7), Math.cos(t * 0.7), 0, 0, 0, 0, 1];
  return mul(rx, ry);
};
const projection = perspective((2 * Math.PI) / 5, canvas.width / canvas.height, 1, 100);
const view = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, -4, 1];

let frameNumber = 0;
function frame() {
  const mvp = mul(projection, mul(view, rotate(frameNumber++ / 60)));
  device.queue.writeBuffer(uniformBuffer, 0, mvp);
  const commandEncoder = device.createCommandEncoder();
  const passEncoder = commandEncoder.beginRenderPass({
    colorAttachments: [{ view: context.getCurrentTexture().createView(), clearValue: [0.5, 0.5, 0.5, 1],
                         loadOp: "clear", storeOp: "store" }],
    depthStencilAttachment: { view: depthTexture.createView(), depthClearValue: 1, depthLoadOp: "clear", depthStoreOp: "store" },
  });
  passEncoder.setPipeline(pipeline);
  passEncoder.setBindGroup(0, uniformBindGroup);
  passEncoder.setVertexBuffer(0, vertexBuffer);
  passEncoder.draw(36);
  passEncoder.end();
  device.queue.submit([commandEncoder.finish()]);
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
