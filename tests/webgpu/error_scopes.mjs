// Error scopes: validation errors captured, nesting, filters, uncapturederror.
const adapter = await navigator.gpu.requestAdapter();
const device = await adapter.requestDevice();
const kind = (e) => (e === null ? "null" : e.constructor.name);

// A validation error inside a scope.
device.pushErrorScope("validation");
device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.MAP_WRITE });
let e = await device.popErrorScope();
console.log("invalid usage:", kind(e), e instanceof GPUError, typeof e.message, e.message.length > 0);

// Nothing wrong: null.
device.pushErrorScope("validation");
device.createBuffer({ size: 16, usage: GPUBufferUsage.STORAGE });
console.log("valid buffer:", kind(await device.popErrorScope()));

// Nesting: the innermost matching scope takes the error; the outer sees nothing.
device.pushErrorScope("validation");
device.pushErrorScope("validation");
device.createTexture({ size: [0, 0], format: "rgba8unorm", usage: GPUTextureUsage.COPY_SRC });
const inner = await device.popErrorScope();
const outer = await device.popErrorScope();
console.log("nested inner:", kind(inner), "outer:", kind(outer));

// A non-matching scope lets the error through to the enclosing one.
device.pushErrorScope("validation");
device.pushErrorScope("out-of-memory");
device.createShaderModule({ code: "this is not wgsl" });
const oom = await device.popErrorScope();
const val = await device.popErrorScope();
console.log("oom scope:", kind(oom), "validation scope:", kind(val));

// Two errors in one scope: the first is kept.
device.pushErrorScope("validation");
device.createBuffer({ size: 4, usage: 0 });
device.createSampler({ lodMinClamp: 5, lodMaxClamp: 1 });
e = await device.popErrorScope();
console.log("two errors:", kind(e));

// Internal-filter scope does not catch validation errors.
device.pushErrorScope("validation");
device.pushErrorScope("internal");
device.createBuffer({ size: 4, usage: 0 });
console.log("internal scope:", kind(await device.popErrorScope()), "validation:", kind(await device.popErrorScope()));

// Out of memory: a buffer bigger than the device allows is a validation error, not OOM.
device.pushErrorScope("out-of-memory");
device.pushErrorScope("validation");
device.createBuffer({ size: device.limits.maxBufferSize + 4, usage: GPUBufferUsage.STORAGE });
const tooBig = await device.popErrorScope();
console.log("too big:", kind(tooBig), "oom:", kind(await device.popErrorScope()));

// Popping an empty stack rejects with OperationError.
try {
  await device.popErrorScope();
  console.log("empty pop resolved");
} catch (err) {
  console.log("empty pop:", err.name);
}

// Bad filter is a TypeError (WebIDL enum), thrown synchronously.
try {
  device.pushErrorScope("nope");
} catch (err) {
  console.log("bad filter:", err.constructor.name);
}

// Bad arguments are TypeErrors, not validation errors.
for (const [label, fn] of [
  ["bad format", () => device.createTexture({ size: [4, 4], format: "rgba9unorm", usage: 4 })],
  ["missing texture format", () => device.createTexture({ size: [4, 4], usage: 4 })],
  ["bad query type", () => device.createQuerySet({ type: "pipeline-statistics", count: 1 })],
]) {
  try {
    fn();
    console.log(label, "no exception");
  } catch (err) {
    console.log(label, err.constructor.name);
  }
}

// Uncaptured errors reach onuncapturederror (no scope open).
let resolveEvent;
const fired = new Promise((r) => (resolveEvent = r));
device.onuncapturederror = (event) => resolveEvent(event);
device.createBuffer({ size: 4, usage: 0 });
const event = await fired;
console.log("uncaptured:", event.type, kind(event.error), event instanceof GPUUncapturedErrorEvent);
device.onuncapturederror = null;

// device.lost resolves after destroy().
device.destroy();
const info = await device.lost;
console.log("lost:", info.reason);
