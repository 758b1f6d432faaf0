// Render state that the triangle test leaves out: stencil (ops, reference, masks),
// instancing (stepMode "instance"), indirect draws, 4x multisampling with a resolve target,
// constants overriding a fragment shader's override, a 2d-array texture rendered per layer.
const adapter = await navigator.gpu.requestAdapter();
const device = await adapter.requestDevice();
device.onuncapturederror = (e) => console.log("uncaptured:", e.error.constructor.name);
const W = 16, H = 16;

async function readPixels(texture, layer = 0) {
  const buffer = device.createBuffer({ size: 256 * H, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
  const encoder = device.createCommandEncoder();
  encoder.copyTextureToBuffer({ texture, origin: [0, 0, layer] }, { buffer, bytesPerRow: 256 }, [W, H]);
  device.queue.submit([encoder.finish()]);
  await buffer.mapAsync(GPUMapMode.READ);
  const bytes = new Uint8Array(buffer.getMappedRange()).slice();
  buffer.destroy();
  return (x, y) => Array.from(bytes.subarray(y * 256 + x * 4, y * 256 + x * 4 + 4)).join(",");
}
function histogram(px) {
  const h = new Map();
  for (let y = 0; y < H; ++y) for (let x = 0; x < W; ++x) h.set(px(x, y), (h.get(px(x, y)) ?? 0) + 1);
  return [...h].sort().map(([c, n]) => `${c}x${n}`).join(" ");
}

const module = device.createShaderModule({
  code: `
    override brightness: f32 = 1.0;
    struct VOut { @builtin(position) pos: vec4f, @location(0) @interpolate(flat) color: vec4f }
    @vertex fn vs(@location(0) pos: vec2f, @location(1) offset: vec2f, @location(2) color: vec4f) -> VOut {
      return VOut(vec4f(pos + offset, 0.0, 1.0), color);
    }
    @fragment fn fs(v: VOut) -> @location(0) vec4f { return vec4f(v.color.rgb * brightness, v.color.a); }`,
});
const buffers = [
  { arrayStride: 8, attributes: [{ shaderLocation: 0, offset: 0, format: "float32x2" }] },
  {
    arrayStride: 12,
    stepMode: "instance",
    attributes: [{ shaderLocation: 1, offset: 0, format: "float32x2" }, { shaderLocation: 2, offset: 8, format: "unorm8x4" }],
  },
];
// A small square (two triangles) drawn once per instance at the instance's offset.
const square = new Float32Array([-0.25, -0.25, 0.25, -0.25, 0.25, 0.25, -0.25, -0.25, 0.25, 0.25, -0.25, 0.25]);
const instances = new ArrayBuffer(3 * 12);
[[-0.5, -0.5, [255, 0, 0, 255]], [0.5, 0.5, [0, 255, 0, 255]], [0.5, -0.5, [0, 0, 255, 255]]].forEach(([x, y, c], i) => {
  new Float32Array(instances, i * 12, 2).set([x, y]);
  new Uint8Array(instances, i * 12 + 8, 4).set(c);
});
const vbuf = device.createBuffer({ size: square.byteLength, usage: GPUBufferUsage.VERTEX | GPUBufferUsage.COPY_DST });
device.queue.writeBuffer(vbuf, 0, square);
const ibuf = device.createBuffer({ size: instances.byteLength, usage: GPUBufferUsage.VERTEX | GPUBufferUsage.COPY_DST });
device.queue.writeBuffer(ibuf, 0, instances);

// 1. Instanced + indirect draw (vertexCount 6, instanceCount 3), brightness overridden to 0.5.
const target = device.createTexture({ size: [W, H], format: "rgba8unorm", usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
const indirect = device.createBuffer({ size: 16, usage: GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_DST });
device.queue.writeBuffer(indirect, 0, new Uint32Array([6, 3, 0, 0]));
const half = device.createRenderPipeline({
  layout: "auto",
  vertex: { module, buffers },
  fragment: { module, targets: [{ format: "rgba8unorm" }], constants: { brightness: 0.5 } },
});
let encoder = device.createCommandEncoder();
let pass = encoder.beginRenderPass({ colorAttachments: [{ view: target.createView(), loadOp: "clear", storeOp: "store" }] });
pass.setPipeline(half);
pass.setVertexBuffer(0, vbuf);
pass.setVertexBuffer(1, ibuf);
pass.drawIndirect(indirect, 0);
pass.end();
device.queue.submit([encoder.finish()]);
console.log("instanced indirect:", histogram(await readPixels(target)));

// 2. Stencil: instance 0 writes reference 7 where it covers; then a full-screen pass with
// compare "equal" paints only those pixels (color writes off for the first pass).
const stencil = device.createTexture({ size: [W, H], format: "depth24plus-stencil8", usage: GPUTextureUsage.RENDER_ATTACHMENT });
const mark = device.createRenderPipeline({
  layout: "auto",
  vertex: { module, buffers },
  fragment: { module, targets: [{ format: "rgba8unorm", writeMask: 0 }] },
  depthStencil: {
    format: "depth24plus-stencil8", depthWriteEnabled: false, depthCompare: "always",
    stencilFront: { compare: "always", passOp: "replace" }, stencilBack: { compare: "always", passOp: "replace" },
  },
});
const paint = device.createRenderPipeline({
  layout: "auto",
  vertex: { module, buffers },
  fragment: { module, targets: [{ format: "rgba8unorm" }] },
  depthStencil: {
    format: "depth24plus-stencil8", depthWriteEnabled: false, depthCompare: "always",
    stencilFront: { compare: "equal" }, stencilBack: { compare: "equal" }, stencilReadMask: 0x0f,
  },
});
const full = device.createBuffer({ size: 12, usage: GPUBufferUsage.VERTEX | GPUBufferUsage.COPY_DST });
const fullData = new ArrayBuffer(12);
new Float32Array(fullData, 0, 2).set([0, 0]);
new Uint8Array(fullData, 8, 4).set([255, 255, 0, 255]);
device.queue.writeBuffer(full, 0, fullData);
const big = device.createBuffer({ size: 48, usage: GPUBufferUsage.VERTEX | GPUBufferUsage.COPY_DST });
device.queue.writeBuffer(big, 0, new Float32Array([-1, -1, 1, -1, 1, 1, -1, -1, 1, 1, -1, 1]));
encoder = device.createCommandEncoder();
pass = encoder.beginRenderPass({
  colorAttachments: [{ view: target.createView(), loadOp: "clear", storeOp: "store", clearValue: [0, 0, 0, 1] }],
  depthStencilAttachment: {
    view: stencil.createView(), depthClearValue: 1, depthLoadOp: "clear", depthStoreOp: "store",
    stencilClearValue: 0, stencilLoadOp: "clear", stencilStoreOp: "store",
  },
});
pass.setPipeline(mark);
pass.setStencilReference(0x17);  // read mask 0x0f in the second pass: 0x17 & 0x0f == 7
pass.setVertexBuffer(0, vbuf);
pass.setVertexBuffer(1, ibuf);
pass.draw(6, 1);
pass.setPipeline(paint);
pass.setStencilReference(7);
pass.setVertexBuffer(0, big);
pass.setVertexBuffer(1, full);
pass.draw(6, 1);
pass.end();
device.queue.submit([encoder.finish()]);
console.log("stencil:", histogram(await readPixels(target)));

// 3. 4x MSAA resolved into a single-sample texture; a triangle's edge gets partial coverage.
const msaa = device.createTexture({ size: [W, H], sampleCount: 4, format: "rgba8unorm", usage: GPUTextureUsage.RENDER_ATTACHMENT });
console.log("msaa sampleCount", msaa.sampleCount);
const resolved = device.createTexture({ size: [W, H], format: "rgba8unorm", usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
const ms = device.createRenderPipeline({
  layout: "auto",
  vertex: { module, buffers },
  fragment: { module, targets: [{ format: "rgba8unorm" }] },
  multisample: { count: 4 },
});
const tri = device.createBuffer({ size: 24, usage: GPUBufferUsage.VERTEX | GPUBufferUsage.COPY_DST });
device.queue.writeBuffer(tri, 0, new Float32Array([-1, -1, 1, -1, -1, 1]));
const white = device.createBuffer({ size: 12, usage: GPUBufferUsage.VERTEX | GPUBufferUsage.COPY_DST });
const whiteData = new ArrayBuffer(12);
new Uint8Array(whiteData, 8, 4).set([255, 255, 255, 255]);
device.queue.writeBuffer(white, 0, whiteData);
encoder = device.createCommandEncoder();
pass = encoder.beginRenderPass({
  colorAttachments: [{ view: msaa.createView(), resolveTarget: resolved.createView(), loadOp: "clear", storeOp: "discard", clearValue: [0, 0, 0, 1] }],
});
pass.setPipeline(ms);
pass.setVertexBuffer(0, tri);
pass.setVertexBuffer(1, white);
pass.draw(3);
pass.end();
device.queue.submit([encoder.finish()]);
const px = await readPixels(resolved);
const partial = new Set();
for (let y = 0; y < H; ++y) for (let x = 0; x < W; ++x) if (px(x, y) !== "255,255,255,255" && px(x, y) !== "0,0,0,255") partial.add(px(x, y));
console.log("msaa: corners", px(0, 15), px(15, 0), "partially covered shades", [...partial].sort().join(" "));

// 4. Rendering into each layer of a 2d-array texture through single-layer views.
const layers = device.createTexture({ size: [W, H, 3], format: "rgba8unorm", usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
encoder = device.createCommandEncoder();
for (let layer = 0; layer < 3; ++layer) {
  const p = encoder.beginRenderPass({
    colorAttachments: [{
      view: layers.createView({ dimension: "2d", baseArrayLayer: layer, arrayLayerCount: 1 }),
      loadOp: "clear", storeOp: "store", clearValue: [layer / 2, 0, 1 - layer / 2, 1],
    }],
  });
  p.end();
}
device.queue.submit([encoder.finish()]);
for (let layer = 0; layer < 3; ++layer) console.log(`layer ${layer}:`, (await readPixels(layers, layer))(5, 5));
device.destroy();
