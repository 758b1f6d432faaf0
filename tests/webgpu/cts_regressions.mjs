// CTS-derived regressions (issue 21, second round), checked against Node + npm `webgpu`
// (dawn.node): each block is a class of CTS failure fixed at the binding layer. Messages are
// not printed (the two Dawn builds word them differently); names, states and values are.
const adapter = await navigator.gpu.requestAdapter();
const device = await adapter.requestDevice();
const show = (label, value) => console.log(`${label}: ${value}`);
const scope = async (f) => {
  device.pushErrorScope("validation");
  try {
    f();
  } catch (e) {
    await device.popErrorScope();
    return `threw ${e.name}`;
  }
  const e = await device.popErrorScope();
  return e ? "validation error" : "ok";
};

// requestDevice: requiredLimits values are GPUSize64 ([EnforceRange] unsigned long long).
// Past 2^32 is not a TypeError but more than the adapter offers (OperationError); alignments
// must be powers of two up to 2^31 (api,operation,adapter,requestDevice:limit,out_of_range).
const request = async (limits) => {
  try {
    const a = await navigator.gpu.requestAdapter();
    const d = await a.requestDevice({ requiredLimits: limits });
    d.destroy();
    return "resolved";
  } catch (e) {
    return `rejected ${e.name}`;
  }
};
for (const name of ["maxBindGroups", "maxTextureDimension2D", "maxStorageBuffersInFragmentStage",
                    "minUniformBufferOffsetAlignment", "maxBufferSize"]) {
  for (const value of [-1, 0, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, Number.MAX_SAFE_INTEGER,
                       Number.MAX_SAFE_INTEGER + 1, 2 ** 64]) {
    show(`requiredLimits.${name} = ${value}`, await request({ [name]: value }));
  }
}

// externalTexture layout entries: a GPUTextureView may be bound to them
// (api,validation,createBindGroup:external_texture,texture_view,*).
let layout;
show("externalTexture layout", await scope(() => {
  layout = device.createBindGroupLayout({ entries: [{ binding: 0, visibility: GPUShaderStage.FRAGMENT, externalTexture: {} }] });
}));
show("externalTexture + sampler in one entry", await scope(() => device.createBindGroupLayout({
  entries: [{ binding: 0, visibility: GPUShaderStage.FRAGMENT, externalTexture: {}, sampler: {} }],
})));
for (const [what, usage, format, dimension, mips] of [
  ["TEXTURE_BINDING rgba8unorm", GPUTextureUsage.TEXTURE_BINDING, "rgba8unorm", "2d", 1],
  ["COPY_DST only", GPUTextureUsage.COPY_DST, "rgba8unorm", "2d", 1],
  ["r8unorm", GPUTextureUsage.TEXTURE_BINDING, "r8unorm", "2d", 1],
  ["rgba8uint", GPUTextureUsage.TEXTURE_BINDING, "rgba8uint", "2d", 1],
  ["3d", GPUTextureUsage.TEXTURE_BINDING, "rgba8unorm", "3d", 1],
  ["two mip levels", GPUTextureUsage.TEXTURE_BINDING, "rgba8unorm", "2d", 2],
]) {
  const texture = device.createTexture({ size: [4, 4, 1], format, usage, dimension, mipLevelCount: mips });
  show(`bind a ${what} view to it`, await scope(() => device.createBindGroup({
    layout, entries: [{ binding: 0, resource: texture.createView() }],
  })));
}
const sampledLayout = device.createBindGroupLayout({ entries: [{ binding: 0, visibility: GPUShaderStage.FRAGMENT, externalTexture: {} }, { binding: 1, visibility: GPUShaderStage.FRAGMENT, sampler: {} }] });
const module = device.createShaderModule({ code: `
  @group(0) @binding(0) var t : texture_external;
  @group(0) @binding(1) var s : sampler;
  @vertex fn vs(@builtin(vertex_index) i : u32) -> @builtin(position) vec4f {
    let p = array(vec2f(-1, -1), vec2f(3, -1), vec2f(-1, 3));
    return vec4f(p[i], 0, 1);
  }
  @fragment fn fs(@builtin(position) p : vec4f) -> @location(0) vec4f {
    return textureSampleBaseClampToEdge(t, s, p.xy / 4);
  }` });
// A texture_external sampled from a plain rgba8unorm view: the quadrants come through.
const source = device.createTexture({ size: [2, 2], format: "rgba8unorm", usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST });
device.queue.writeTexture({ texture: source }, new Uint8Array([255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255]), { bytesPerRow: 8 }, [2, 2]);
const target = device.createTexture({ size: [4, 4], format: "rgba8unorm", usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
let pipeline;
show("texture_external pipeline", await scope(() => {
  pipeline = device.createRenderPipeline({
    layout: device.createPipelineLayout({ bindGroupLayouts: [sampledLayout] }),
    vertex: { module }, fragment: { module, targets: [{ format: "rgba8unorm" }] },
  });
}));
const group = device.createBindGroup({ layout: sampledLayout, entries: [{ binding: 0, resource: source.createView() }, { binding: 1, resource: device.createSampler() }] });
const encoder = device.createCommandEncoder();
const pass = encoder.beginRenderPass({ colorAttachments: [{ view: target.createView(), loadOp: "clear", storeOp: "store" }] });
pass.setPipeline(pipeline);
pass.setBindGroup(0, group);
pass.draw(3);
pass.end();
const readback = device.createBuffer({ size: 256 * 4, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
encoder.copyTextureToBuffer({ texture: target }, { buffer: readback, bytesPerRow: 256 }, [4, 4]);
device.queue.submit([encoder.finish()]);
await readback.mapAsync(GPUMapMode.READ);
const px = new Uint8Array(readback.getMappedRange());
for (const [x, y] of [[0, 0], [3, 0], [0, 3], [3, 3]]) show(`sampled pixel ${x},${y}`, [...px.subarray(y * 256 + x * 4, y * 256 + x * 4 + 4)].join(","));
readback.unmap();

// getMappedRange ranges must be disjoint from those handed out before, an empty range inside
// another included (api,validation,buffer,mapping:getMappedRange,disjointRanges*).
const mappable = device.createBuffer({ size: 80, usage: GPUBufferUsage.MAP_READ });
await mappable.mapAsync(GPUMapMode.READ);
const rangeName = (offset, size) => {
  try {
    mappable.getMappedRange(offset, size);
    return "ok";
  } catch (e) {
    return e.name;
  }
};
for (const [offset, size] of [[16, 20], [24, 0], [8, 8], [8, 0], [36, 0], [32, 8], [0, 8], [40, 40], [16, 4], [8, 20]]) {
  show(`getMappedRange(${offset}, ${size}) after the ranges before`, rangeName(offset, size));
}
mappable.unmap();
await mappable.mapAsync(GPUMapMode.READ);
show("getMappedRange(16, 20) after a new mapping", rangeName(16, 20));
mappable.unmap();

// onuncapturederror is one listener among addEventListener's, in the order it was first set;
// changing it keeps its place, null removes it (api,operation,uncapturederror:
// onuncapturederror_order_wrt_addEventListener).
const order = [];
const named = (id) => (e) => {
  e.preventDefault();
  order.push(id);
};
device.addEventListener("uncapturederror", named("a"));
device.onuncapturederror = named("c");
device.addEventListener("uncapturederror", named("b"));
const raise = async () => {
  order.length = 0;
  device.createBuffer({ size: 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.MAP_WRITE });
  await device.queue.onSubmittedWorkDone();
  await new Promise((r) => setTimeout(r, 50));
  return order.join(",");
};
show("listener order", await raise());
device.onuncapturederror = named("d");
show("after changing the handler", await raise());
device.onuncapturederror = null;
show("after null", await raise());
device.onuncapturederror = named("e");
show("set again", await raise());
