// Textures: writeTexture, copies between textures and buffers, views, a sampler in a render,
// texture properties and argument errors.
const adapter = await navigator.gpu.requestAdapter();
const device = await adapter.requestDevice();

const src = device.createTexture({
  label: "src",
  size: { width: 4, height: 4 },
  format: "rgba8unorm",
  usage: GPUTextureUsage.COPY_DST | GPUTextureUsage.COPY_SRC | GPUTextureUsage.TEXTURE_BINDING,
});
console.log("label", src.label, "size", src.width, src.height, src.depthOrArrayLayers, "usage", src.usage);
const texels = Uint8Array.from({ length: 64 }, (_, i) => (i * 37) & 255);
device.queue.writeTexture({ texture: src }, texels, { bytesPerRow: 16 }, [4, 4]);

// copyTextureToTexture into the corner of a bigger texture, then copy both back.
const dst = device.createTexture({
  size: [8, 8, 1],
  format: "rgba8unorm",
  usage: GPUTextureUsage.COPY_DST | GPUTextureUsage.COPY_SRC,
  mipLevelCount: 2,
});
console.log("dst mips", dst.mipLevelCount);
const staging = device.createBuffer({ size: 256 * 8, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
const upload = device.createBuffer({ size: 256 * 2, usage: GPUBufferUsage.COPY_SRC, mappedAtCreation: true });
new Uint8Array(upload.getMappedRange()).fill(9);
upload.unmap();
let encoder = device.createCommandEncoder();
encoder.copyTextureToTexture({ texture: src, origin: [1, 1] }, { texture: dst, origin: { x: 2, y: 3 } }, [3, 3]);
encoder.copyBufferToTexture({ buffer: upload, bytesPerRow: 256 }, { texture: dst, mipLevel: 1 }, [4, 2]);
encoder.copyTextureToBuffer({ texture: dst }, { buffer: staging, bytesPerRow: 256, rowsPerImage: 8 }, [8, 8]);
device.queue.submit([encoder.finish()]);
await staging.mapAsync(GPUMapMode.READ);
const rows = new Uint8Array(staging.getMappedRange());
let ok = 0, wrong = 0;
for (let y = 0; y < 8; ++y) {
  for (let x = 0; x < 8; ++x) {
    for (let c = 0; c < 4; ++c) {
      const inside = x >= 2 && x < 5 && y >= 3 && y < 6;
      const want = inside ? texels[((y - 3 + 1) * 4 + (x - 2 + 1)) * 4 + c] : 0;
      if (rows[y * 256 + x * 4 + c] === want) ++ok; else ++wrong;
    }
  }
}
console.log("copyTextureToTexture texels ok", ok, "wrong", wrong);
staging.unmap();

// Sampling: draw a full-screen triangle sampling src with a nearest sampler at texel centers.
const sampler = device.createSampler({ magFilter: "nearest", minFilter: "nearest" });
const target = device.createTexture({
  size: [4, 4], format: "rgba8unorm", usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC,
});
const module = device.createShaderModule({
  code: `
    @group(0) @binding(0) var t: texture_2d<f32>;
    @group(0) @binding(1) var s: sampler;
    @vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f {
      let p = array(vec2f(-1, -1), vec2f(3, -1), vec2f(-1, 3));
      return vec4f(p[i], 0, 1);
    }
    @fragment fn fs(@builtin(position) p: vec4f) -> @location(0) vec4f {
      return textureSample(t, s, p.xy / 4.0);
    }`,
});
const layout = device.createBindGroupLayout({
  entries: [
    { binding: 0, visibility: GPUShaderStage.FRAGMENT, texture: { sampleType: "float" } },
    { binding: 1, visibility: GPUShaderStage.FRAGMENT, sampler: { type: "filtering" } },
  ],
});
const pipeline = await device.createRenderPipelineAsync({
  layout: device.createPipelineLayout({ bindGroupLayouts: [layout] }),
  vertex: { module },
  fragment: { module, targets: [{ format: "rgba8unorm" }] },
});
const view = src.createView({ dimension: "2d", baseMipLevel: 0, mipLevelCount: 1 });
encoder = device.createCommandEncoder();
const pass = encoder.beginRenderPass({
  colorAttachments: [{ view: target.createView(), loadOp: "clear", storeOp: "store", clearValue: [1, 1, 1, 1] }],
});
pass.setPipeline(pipeline);
pass.setBindGroup(0, device.createBindGroup({ layout, entries: [{ binding: 0, resource: view }, { binding: 1, resource: sampler }] }));
pass.draw(3);
pass.end();
const out = device.createBuffer({ size: 256 * 4, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
encoder.copyTextureToBuffer({ texture: target }, { buffer: out, bytesPerRow: 256 }, [4, 4]);
device.queue.submit([encoder.finish()]);
await out.mapAsync(GPUMapMode.READ);
const sampled = new Uint8Array(out.getMappedRange());
let same = 0;
for (let y = 0; y < 4; ++y) for (let x = 0; x < 16; ++x) if (sampled[y * 256 + x] === texels[y * 16 + x]) ++same;
console.log("sampled texels equal to source", same, "of 64");
out.unmap();

// Pipeline errors: createRenderPipelineAsync rejects with a GPUPipelineError.
try {
  await device.createRenderPipelineAsync({
    layout: "auto",
    vertex: { module, entryPoint: "nope" },
    fragment: { module, targets: [{ format: "rgba8unorm" }] },
  });
  console.log("bad pipeline resolved");
} catch (e) {
  console.log("bad pipeline:", e.name, e.reason);
}

// Depth: a depth32float attachment cleared to 0.25, a triangle at depth 0.5 fails "less".
const depth = device.createTexture({ size: [4, 4], format: "depth32float", usage: GPUTextureUsage.RENDER_ATTACHMENT });
const depthModule = device.createShaderModule({
  code: `
    @vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f {
      let p = array(vec2f(-1, -1), vec2f(3, -1), vec2f(-1, 3));
      return vec4f(p[i], 0.5, 1);
    }
    @fragment fn fs() -> @location(0) vec4f { return vec4f(1, 0, 0, 1); }`,
});
const depthPipeline = device.createRenderPipeline({
  layout: "auto",
  vertex: { module: depthModule },
  fragment: { module: depthModule, targets: [{ format: "rgba8unorm" }] },
  depthStencil: { format: "depth32float", depthWriteEnabled: true, depthCompare: "less" },
});
for (const clear of [0.25, 0.75]) {
  encoder = device.createCommandEncoder();
  const p2 = encoder.beginRenderPass({
    colorAttachments: [{ view: target.createView(), loadOp: "clear", storeOp: "store", clearValue: [0, 0, 0, 1] }],
    depthStencilAttachment: { view: depth.createView(), depthClearValue: clear, depthLoadOp: "clear", depthStoreOp: "store" },
  });
  p2.setPipeline(depthPipeline);
  p2.draw(3);
  p2.end();
  encoder.copyTextureToBuffer({ texture: target }, { buffer: out, bytesPerRow: 256 }, [4, 4]);
  device.queue.submit([encoder.finish()]);
  await out.mapAsync(GPUMapMode.READ);
  console.log(`depth clear ${clear}: pixel`, Array.from(new Uint8Array(out.getMappedRange(0, 4))).join(","));
  out.unmap();
}

// Argument errors are TypeErrors; validation errors are not exceptions.
const tryIt = (label, fn) => {
  try {
    fn();
    console.log(label, "no exception");
  } catch (e) {
    console.log(label, e.constructor.name);
  }
};
tryIt("bad view dimension", () => src.createView({ dimension: "4d" }));
tryIt("bad extent length", () => device.createTexture({ size: [1, 1, 1, 1], format: "rgba8unorm", usage: 4 }));
tryIt("bad clear color", () => device.createCommandEncoder().beginRenderPass({
  colorAttachments: [{ view: target.createView(), loadOp: "clear", storeOp: "store", clearValue: [1, 2] }],
}));
tryIt("missing loadOp", () => device.createCommandEncoder().beginRenderPass({
  colorAttachments: [{ view: target.createView(), storeOp: "store" }],
}));
tryIt("bad address mode", () => device.createSampler({ addressModeU: "wrap" }));
device.pushErrorScope("validation");
tryIt("mip level out of range", () => src.createView({ baseMipLevel: 3 }));
const e = await device.popErrorScope();
console.log("its scope:", e === null ? "null" : e.constructor.name);
src.destroy();
console.log("destroyed texture still reports", src.width, src.format);
device.destroy();
