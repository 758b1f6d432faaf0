// WebIDL argument conversion on the rendering interfaces: which calls throw a TypeError
// (required members, enums, [EnforceRange], sequence lengths) and which are left to
// validation (error scopes). Only the exception's class is printed: messages differ.
const adapter = await navigator.gpu.requestAdapter();
const device = await adapter.requestDevice();
const module = device.createShaderModule({
  code: `@vertex fn vs() -> @builtin(position) vec4f { return vec4f(0, 0, 0, 1); }
         @fragment fn fs() -> @location(0) vec4f { return vec4f(1); }`,
});
const target = device.createTexture({ size: [4, 4], format: "rgba8unorm", usage: GPUTextureUsage.RENDER_ATTACHMENT });
const view = target.createView();
const pipe = (extra) => ({ layout: "auto", vertex: { module }, fragment: { module, targets: [{ format: "rgba8unorm" }] }, ...extra });
function pass() {
  return device.createCommandEncoder().beginRenderPass({ colorAttachments: [{ view, loadOp: "clear", storeOp: "store" }] });
}
const cases = [
  ["pipeline without vertex", () => device.createRenderPipeline({ layout: "auto" })],
  ["pipeline without layout", () => device.createRenderPipeline({ vertex: { module } })],
  ["vertex without module", () => device.createRenderPipeline({ layout: "auto", vertex: {} })],
  ["fragment without targets", () => device.createRenderPipeline(pipe({ fragment: { module } }))],
  ["target without format", () => device.createRenderPipeline(pipe({ fragment: { module, targets: [{}] } }))],
  ["bad topology", () => device.createRenderPipeline(pipe({ primitive: { topology: "quads" } }))],
  ["bad blend factor", () => device.createRenderPipeline(pipe({
    fragment: { module, targets: [{ format: "rgba8unorm", blend: { color: { srcFactor: "half" }, alpha: {} } }] },
  }))],
  ["vertex buffer without attributes", () => device.createRenderPipeline(pipe({ vertex: { module, buffers: [{ arrayStride: 8 }] } }))],
  ["bad vertex format", () => device.createRenderPipeline(pipe({
    vertex: { module, buffers: [{ arrayStride: 8, attributes: [{ format: "float64", offset: 0, shaderLocation: 0 }] }] },
  }))],
  ["depthStencil without format", () => device.createRenderPipeline(pipe({ depthStencil: {} }))],
  ["bad compare", () => device.createRenderPipeline(pipe({ depthStencil: { format: "depth32float", depthCompare: "sometimes" } }))],
  ["pass without colorAttachments", () => device.createCommandEncoder().beginRenderPass({})],
  ["attachment without view", () => device.createCommandEncoder().beginRenderPass({ colorAttachments: [{ loadOp: "clear", storeOp: "store" }] })],
  ["bad loadOp", () => device.createCommandEncoder().beginRenderPass({ colorAttachments: [{ view, loadOp: "keep", storeOp: "store" }] })],
  ["clear color dict missing a", () => device.createCommandEncoder().beginRenderPass({
    colorAttachments: [{ view, loadOp: "clear", storeOp: "store", clearValue: { r: 1, g: 0, b: 0 } }],
  })],
  ["draw without count", () => pass().draw()],
  ["draw -1", () => pass().draw(-1)],
  ["draw 2^32", () => pass().draw(2 ** 32)],
  ["setViewport missing args", () => pass().setViewport(0, 0, 4)],
  ["setScissorRect negative", () => pass().setScissorRect(-1, 0, 1, 1)],
  ["setIndexBuffer bad format", () => pass().setIndexBuffer(device.createBuffer({ size: 4, usage: GPUBufferUsage.INDEX }), "uint8")],
  ["setBlendConstant short", () => pass().setBlendConstant([1, 1, 1])],
  ["texture without usage", () => device.createTexture({ size: [4, 4], format: "rgba8unorm" })],
  ["texture without size", () => device.createTexture({ format: "rgba8unorm", usage: 4 })],
  ["extent dict without width", () => device.createTexture({ size: { height: 4 }, format: "rgba8unorm", usage: 4 })],
  ["empty extent", () => device.createTexture({ size: [], format: "rgba8unorm", usage: 4 })],
  ["bad dimension", () => device.createTexture({ size: [4], dimension: "4d", format: "rgba8unorm", usage: 4 })],
  ["bad aspect", () => target.createView({ aspect: "color-only" })],
  ["query set without count", () => device.createQuerySet({ type: "occlusion" })],
  ["bad filter", () => device.createSampler({ minFilter: "cubic" })],
  ["bundle encoder without colorFormats", () => device.createRenderBundleEncoder({})],
  ["writeTexture without texture", () => device.queue.writeTexture({}, new Uint8Array(4), {}, [1])],
  ["copy with bad origin length", () => device.createCommandEncoder().copyTextureToTexture(
    { texture: target, origin: [0, 0, 0, 0] }, { texture: target }, [1, 1])],
];
for (const [label, fn] of cases) {
  device.pushErrorScope("validation");
  let thrown = "none";
  try {
    fn();
  } catch (e) {
    thrown = e.constructor.name;
  }
  const scoped = await device.popErrorScope();
  console.log(`${label}: threw ${thrown}, scope ${scoped === null ? "null" : scoped.constructor.name}`);
}
device.destroy();
