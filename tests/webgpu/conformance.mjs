// CTS-derived regressions (issue 21), one line per behaviour, the same under alknet, Deno and
// Node + dawn.node where all three follow the spec: interface objects, prototype accessors,
// setlike features, buffer map states, WebIDL sequences from iterables, debug markers on
// pass encoders, adapter consumption, runtime globals. What Deno does differently is in
// spec_only.mjs.
const adapter = await navigator.gpu.requestAdapter();
const device = await adapter.requestDevice();
const show = (label, value) => console.log(`${label}: ${value}`);
const errorName = (f) => {
  try {
    f();
    return "none";
  } catch (e) {
    return e.name;
  }
};
const settle = (p) => p.then(() => "resolved", (e) => `rejected ${e.name}`);

// Interface objects (the CTS touches their prototypes).
for (const name of ["GPU", "GPUAdapter", "GPUDevice", "GPUBuffer", "GPUSupportedLimits", "GPUSupportedFeatures",
                    "WGSLLanguageFeatures", "GPUAdapterInfo", "GPUCompilationInfo", "GPUCompilationMessage",
                    "GPUDeviceLostInfo", "GPUPipelineError", "GPUQueue", "GPUCommandEncoder"]) {
  show(`${name} is a function`, typeof globalThis[name] === "function");
}
show("adapter.limits instanceof GPUSupportedLimits", adapter.limits instanceof GPUSupportedLimits);
show("adapter.features instanceof GPUSupportedFeatures", adapter.features instanceof GPUSupportedFeatures);
show("adapter.info instanceof GPUAdapterInfo", adapter.info instanceof GPUAdapterInfo);
show("device.limits instanceof GPUSupportedLimits", device.limits instanceof GPUSupportedLimits);
show("wgslLanguageFeatures is a WGSLLanguageFeatures", navigator.gpu.wgslLanguageFeatures instanceof WGSLLanguageFeatures);
show("wgslLanguageFeatures [SameObject]", navigator.gpu.wgslLanguageFeatures === navigator.gpu.wgslLanguageFeatures);
show("new GPUSupportedLimits()", errorName(() => new GPUSupportedLimits()));
show("GPUPipelineError.prototype instanceof DOMException", GPUPipelineError.prototype instanceof DOMException);
const pe = new GPUPipelineError("msg", { reason: "validation" });
show("new GPUPipelineError", `${pe.name} ${pe.message} ${pe.reason}`);

// IDL shape: attributes are prototype accessors, so instances have no own keys.
const buffer = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST, label: "b" });
// (device and adapter: dawn.node keeps own properties there; spec_only.mjs checks them.)
for (const [what, obj] of [["buffer", buffer], ["adapter.limits", adapter.limits],
                           ["device.limits", device.limits], ["texture", device.createTexture({ size: [2, 2], format: "r8unorm", usage: GPUTextureUsage.TEXTURE_BINDING })]]) {
  show(`Object.keys(${what})`, JSON.stringify(Object.keys(obj)));
  show(`own property names of ${what}`, JSON.stringify(Object.getOwnPropertyNames(obj)));
}
show("label accessor on GPUBuffer.prototype", typeof Object.getOwnPropertyDescriptor(Object.getPrototypeOf(GPUBuffer.prototype), "label")?.get === "function"
     || typeof Object.getOwnPropertyDescriptor(GPUBuffer.prototype, "label")?.get === "function");
buffer.label = "renamed";
show("label after set", buffer.label);
show("limits by getter", Object.getOwnPropertyDescriptor(GPUSupportedLimits.prototype, "maxBindGroups")?.get !== undefined);
show("device.limits.maxBindGroups", device.limits.maxBindGroups);
show("adapterInfo [SameObject]", device.adapterInfo === device.adapterInfo && device.adapterInfo instanceof GPUAdapterInfo);
show("adapterInfo.vendor matches adapter", device.adapterInfo.vendor === adapter.info.vendor);
show("onuncapturederror accessor", "onuncapturederror" in device && !Object.hasOwn(device, "onuncapturederror"));
show("onuncapturederror default", device.onuncapturederror);

// setlike features: spread, Set copy, has, size, and as requiredFeatures (an iterable).
const names = [...adapter.features];
show("features spread matches size", names.length === adapter.features.size);
show("features copy to a Set", new Set(adapter.features).size === adapter.features.size);
show("features.has(each)", names.every((n) => adapter.features.has(n)));
show("features has no add", typeof adapter.features.add);

// Buffer map states.
device.pushErrorScope("validation");
const mapped = buffer.mapAsync(GPUMapMode.WRITE);  // MAP_READ buffer: a validation error
show("mapState right after an invalid mapAsync", buffer.mapState);
show("invalid mapAsync", await settle(mapped));
show("mapState after the rejection", buffer.mapState);
await buffer.mapAsync(GPUMapMode.READ);
show("mapState mapped", buffer.mapState);
const again = buffer.mapAsync(GPUMapMode.READ);
show("mapState during mapAsync on a mapped buffer", buffer.mapState);
show("mapAsync on a mapped buffer", await settle(again));
await device.popErrorScope();  // the validation errors (messages differ between runtimes)
show("still mapped", buffer.mapState);
buffer.unmap();
const zero = device.createBuffer({ size: 0, usage: GPUBufferUsage.MAP_READ });
await zero.mapAsync(GPUMapMode.READ);
show("getMappedRange on a mapped size-0 buffer", zero.getMappedRange().byteLength);
const pending = buffer.mapAsync(GPUMapMode.READ);
show("second mapAsync while pending", await settle(buffer.mapAsync(GPUMapMode.READ)));
await pending;
buffer.unmap();

// Nullable bind group layouts (sequence<GPUBindGroupLayout?>). Sequences from iterables other
// than arrays: spec_only.mjs (dawn.node takes arrays only).
const layout = device.createBindGroupLayout({ entries: [{ binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: "storage" } }] });
device.pushErrorScope("validation");
device.createPipelineLayout({ bindGroupLayouts: [null, layout] });
show("a null bind group layout", String(await device.popErrorScope()));
show("a non-iterable sequence", errorName(() => device.createPipelineLayout({ bindGroupLayouts: { length: 1, 0: layout } })));

// A GPUTexture where a GPUTextureView is allowed (render pass attachments).
const target = device.createTexture({ size: [4, 4], format: "rgba8unorm", usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
device.pushErrorScope("validation");
let encoder = device.createCommandEncoder();
let pass = encoder.beginRenderPass({ colorAttachments: [{ view: target, loadOp: "clear", storeOp: "store", clearValue: [0, 1, 0, 1] }] });
pass.pushDebugGroup("group");
pass.insertDebugMarker("marker");
pass.popDebugGroup();
pass.end();
const readback = device.createBuffer({ size: 256 * 4, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
encoder.copyTextureToBuffer({ texture: target }, { buffer: readback, bytesPerRow: 256 }, [4, 4]);
const compute = encoder.beginComputePass();
compute.pushDebugGroup("c");
compute.insertDebugMarker("m");
compute.popDebugGroup();
compute.end();
device.queue.submit([encoder.finish()]);
show("texture as attachment + debug markers", String(await device.popErrorScope()));
await readback.mapAsync(GPUMapMode.READ);
show("cleared pixel", [...new Uint8Array(readback.getMappedRange(), 0, 4)].join(","));
readback.unmap();
device.pushErrorScope("validation");
encoder = device.createCommandEncoder();
pass = encoder.beginRenderPass({ colorAttachments: [{ view: target, loadOp: "load", storeOp: "store" }] });
pass.popDebugGroup();  // unbalanced: a validation error at end()/finish()
pass.end();
encoder.finish();
show("unbalanced popDebugGroup is a validation error", (await device.popErrorScope()) instanceof GPUValidationError);

// Adapter consumption and featureLevel.
show("second requestDevice", await settle(adapter.requestDevice()));
const fresh = await navigator.gpu.requestAdapter();
show("unknown limit", await settle(fresh.requestDevice({ requiredLimits: { noSuchLimit: 1 } })));
show("alignment not a power of 2", await settle(fresh.requestDevice({ requiredLimits: { minUniformBufferOffsetAlignment: 255 } })));
show("unknown feature", await settle(fresh.requestDevice({ requiredFeatures: ["no-such-feature"] })));
show("newer limit name", await settle(fresh.requestDevice({ requiredLimits: { maxStorageBuffersInFragmentStage: 1 } })));
show("after a device", await settle(fresh.requestDevice()));
show("featureLevel 'bogus'", await navigator.gpu.requestAdapter({ featureLevel: "bogus" }));

// Device loss.
const lostDevice = await (await navigator.gpu.requestAdapter()).requestDevice();
lostDevice.destroy();
const info = await lostDevice.lost;
show("lost info", `${info instanceof GPUDeviceLostInfo} ${info.reason}`);

// Runtime globals a host provides.
for (const name of ["WeakRef", "FinalizationRegistry", "structuredClone", "queueMicrotask", "URL", "URLSearchParams",
                    "MessageChannel", "MessageEvent", "AbortController", "AbortSignal"]) {
  show(`${name}`, typeof globalThis[name]);
}
show("WeakRef deref", new WeakRef(buffer).deref() === buffer);
