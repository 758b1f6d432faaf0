// Offscreen rendering read back as pixels: a triangle from vertex + index buffers, blending,
// write masks, scissor/viewport, a render bundle and an occlusion query.
const adapter = await navigator.gpu.requestAdapter();
const device = await adapter.requestDevice();
const W = 32, H = 32;
const target = device.createTexture({
  size: [W, H],
  format: "rgba8unorm",
  usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC,
});
console.log("target", target.width, target.height, target.depthOrArrayLayers, target.format,
            target.dimension, target.mipLevelCount, target.sampleCount, target.usage);

const module = device.createShaderModule({
  code: `
    struct VOut { @builtin(position) pos: vec4f, @location(0) color: vec4f }
    @vertex fn vs(@location(0) pos: vec2f, @location(1) color: vec4f) -> VOut {
      return VOut(vec4f(pos, 0.0, 1.0), color);
    }
    @fragment fn fs(v: VOut) -> @location(0) vec4f { return v.color; }`,
});
function pipeline(target) {
  return device.createRenderPipeline({
    layout: "auto",
    vertex: {
      module,
      entryPoint: "vs",
      buffers: [{
        arrayStride: 12,
        attributes: [
          { shaderLocation: 0, offset: 0, format: "float32x2" },
          { shaderLocation: 1, offset: 8, format: "unorm8x4" },
        ],
      }],
    },
    fragment: { module, entryPoint: "fs", targets: [target] },
    primitive: { topology: "triangle-list", cullMode: "back" },
  });
}
const opaque = pipeline({ format: "rgba8unorm" });
const blended = pipeline({
  format: "rgba8unorm",
  blend: {
    color: { srcFactor: "src-alpha", dstFactor: "one-minus-src-alpha", operation: "add" },
    alpha: { srcFactor: "one", dstFactor: "zero" },
  },
});
const redOnly = pipeline({ format: "rgba8unorm", writeMask: GPUColorWrite.RED });

// Vertices: x, y (float32) and an rgba8 color packed in 4 bytes. Colors are the same at all
// three vertices of a triangle, so interpolation cannot introduce rounding differences.
function vertices(list) {
  const buf = new ArrayBuffer(list.length * 12);
  const f = new Float32Array(buf), u = new Uint8Array(buf);
  list.forEach(([x, y, r, g, b, a], i) => {
    f[i * 3] = x; f[i * 3 + 1] = y;
    u.set([r, g, b, a], i * 12 + 8);
  });
  return buf;
}
const data = vertices([
  [-0.75, -0.75, 255, 0, 0, 255], [0.75, -0.75, 255, 0, 0, 255], [0.0, 0.75, 255, 0, 0, 255],  // red, CCW
  [-1, -1, 0, 0, 255, 128], [1, -1, 0, 0, 255, 128], [1, 1, 0, 0, 255, 128], [-1, 1, 0, 0, 255, 128],  // blue quad, 50%
  [-1, -1, 200, 200, 200, 255], [1, -1, 200, 200, 200, 255], [-1, 1, 200, 200, 200, 255],  // gray, lower-left half
]);
const vbuf = device.createBuffer({ size: data.byteLength, usage: GPUBufferUsage.VERTEX | GPUBufferUsage.COPY_DST });
device.queue.writeBuffer(vbuf, 0, data);
const ibuf = device.createBuffer({ size: 12, usage: GPUBufferUsage.INDEX | GPUBufferUsage.COPY_DST });
device.queue.writeBuffer(ibuf, 0, new Uint16Array([0, 1, 2, 0, 2, 3]));
const querySet = device.createQuerySet({ type: "occlusion", count: 2 });
console.log("query set", querySet.type, querySet.count);

// A render bundle holding the red triangle.
const bundleEncoder = device.createRenderBundleEncoder({ colorFormats: ["rgba8unorm"] });
bundleEncoder.setPipeline(opaque);
bundleEncoder.setVertexBuffer(0, vbuf);
bundleEncoder.draw(3);
const bundle = bundleEncoder.finish();

const encoder = device.createCommandEncoder();
const pass = encoder.beginRenderPass({
  colorAttachments: [{
    view: target.createView(),
    clearValue: { r: 0, g: 0.5, b: 0, a: 1 },
    loadOp: "clear",
    storeOp: "store",
  }],
  occlusionQuerySet: querySet,
});
pass.beginOcclusionQuery(0);
pass.executeBundles([bundle]);
pass.endOcclusionQuery();
// Blue quad at 50% over the right half only (scissor), drawn indexed from vertex 3.
pass.setPipeline(blended);
pass.setVertexBuffer(0, vbuf, 36);
pass.setIndexBuffer(ibuf, "uint16");
pass.setScissorRect(W / 2, 0, W / 2, H);
pass.drawIndexed(6);
// Gray triangle, red channel only, into the top-left quarter through the viewport.
pass.setScissorRect(0, 0, W, H);
pass.setViewport(0, 0, W / 2, H / 2, 0, 1);
pass.setPipeline(redOnly);
pass.setVertexBuffer(0, vbuf);
pass.beginOcclusionQuery(1);
pass.draw(3, 1, 7, 0);
pass.endOcclusionQuery();
pass.setBlendConstant([0, 0, 0, 0]);
pass.setStencilReference(0);
pass.end();

const bytesPerRow = 256;
const readback = device.createBuffer({ size: bytesPerRow * H, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
encoder.copyTextureToBuffer({ texture: target }, { buffer: readback, bytesPerRow }, { width: W, height: H });
const queryBuffer = device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
const queryRead = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
encoder.resolveQuerySet(querySet, 0, 2, queryBuffer, 0);
encoder.copyBufferToBuffer(queryBuffer, 0, queryRead, 0, 16);
device.queue.submit([encoder.finish()]);

await readback.mapAsync(GPUMapMode.READ);
const bytes = new Uint8Array(readback.getMappedRange());
const px = (x, y) => Array.from(bytes.subarray(y * bytesPerRow + x * 4, y * bytesPerRow + x * 4 + 4)).join(",");
for (const [x, y] of [[0, 0], [16, 16], [16, 30], [24, 30], [30, 2], [3, 3], [12, 3], [3, 28], [28, 28]]) {
  console.log(`pixel ${x},${y}: ${px(x, y)}`);
}
const histogram = new Map();
for (let y = 0; y < H; ++y) for (let x = 0; x < W; ++x) histogram.set(px(x, y), (histogram.get(px(x, y)) ?? 0) + 1);
for (const [color, count] of [...histogram].sort()) console.log(`color ${color}: ${count}`);
readback.unmap();

await queryRead.mapAsync(GPUMapMode.READ);
const q = new BigUint64Array(queryRead.getMappedRange());
console.log("occlusion passed", q[0] > 0n, q[1] > 0n);
queryRead.unmap();
device.destroy();
