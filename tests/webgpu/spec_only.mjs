// Spec behaviour Deno 2.9.6 does not follow (so it cannot be checked by comparing the two):
// alknet runs this alone and it checks itself against the spec's text. Exit status 1 on a
// mismatch.
const adapter = await navigator.gpu.requestAdapter();
const device = await adapter.requestDevice();
let failures = 0;
function check(label, got, want) {
  const ok = got === want;
  if (!ok) ++failures;
  console.log(`${ok ? "ok" : "FAIL"} ${label}: ${got}${ok ? "" : ` (spec: ${want})`}`);
}
const errorName = (f) => {
  try {
    f();
    return "no exception";
  } catch (e) {
    return e.constructor.name;
  }
};

// WebIDL: required dictionary members and [EnforceRange] integers are TypeErrors.
check("createBuffer without size", errorName(() => device.createBuffer({ usage: GPUBufferUsage.STORAGE })), "TypeError");
check("createBuffer size -4", errorName(() => device.createBuffer({ size: -4, usage: GPUBufferUsage.STORAGE })), "TypeError");
check("createBuffer size 2^53", errorName(() => device.createBuffer({ size: 2 ** 53, usage: GPUBufferUsage.STORAGE })), "TypeError");
check("draw(NaN)", errorName(() => {
  const t = device.createTexture({ size: [1, 1], format: "rgba8unorm", usage: GPUTextureUsage.RENDER_ATTACHMENT });
  const pass = device.createCommandEncoder().beginRenderPass({
    colorAttachments: [{ view: t.createView(), loadOp: "clear", storeOp: "store" }],
  });
  pass.draw(NaN);
}), "TypeError");

// GPUBlendState's color and alpha are both required members.
const module = device.createShaderModule({
  code: `@vertex fn vs() -> @builtin(position) vec4f { return vec4f(0, 0, 0, 1); }
         @fragment fn fs() -> @location(0) vec4f { return vec4f(1); }`,
});
check("blend without alpha", errorName(() => device.createRenderPipeline({
  layout: "auto",
  vertex: { module },
  fragment: { module, targets: [{ format: "rgba8unorm", blend: { color: {} } }] },
})), "TypeError");

// GPUBuffer.unmap() on an unmapped buffer returns quietly (spec 5.3.3: "If mapState is
// unmapped, return").
const b = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ });
check("unmap while unmapped", errorName(() => b.unmap()), "no exception");

// unmap() while a map is pending rejects the map with AbortError, state back to unmapped.
const pending = b.mapAsync(GPUMapMode.READ);
b.unmap();
const outcome = await pending.then(() => "resolved", (e) => e.name);
check("unmap while pending rejects", outcome, "AbortError");
check("state after abort", b.mapState, "unmapped");

// destroy() unmaps.
await b.mapAsync(GPUMapMode.READ);
b.destroy();
check("state after destroy while mapped", b.mapState, "unmapped");

device.destroy();
console.log(failures === 0 ? "all ok" : `${failures} failed`);
if (failures) throw new Error(`${failures} spec checks failed`);
