import { check, rejects, done, device as open } from "./check.mjs";

const { device } = await open();
// Validation errors go to error scopes, never exceptions (WebGPU spec, "Errors & Debugging").
device.pushErrorScope("validation");
const bad = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.STORAGE });
check("invalid descriptor still returns a GPUBuffer", bad instanceof GPUBuffer);
const error = await device.popErrorScope();
check("the scope caught a GPUValidationError", error instanceof GPUValidationError && error instanceof GPUError);
check("with a message", typeof error.message === "string" && error.message.length > 0);

device.pushErrorScope("out-of-memory");
device.pushErrorScope("validation");
device.createBuffer({ size: 4, usage: 0 });
check("inner scope", (await device.popErrorScope()) instanceof GPUValidationError);
check("outer scope saw nothing", (await device.popErrorScope()) === null);
await rejects("popping an empty stack rejects", device.popErrorScope(), "OperationError");

// WGSL errors: getCompilationInfo has the line and column.
const module = device.createShaderModule({ code: "@compute @workgroup_size(1)\nfn main() {\n  let x: f32 = true;\n}" });
const info = await module.getCompilationInfo();
const err = info.messages.find((m) => m.type === "error");
check("compilation error with its line", err && err.lineNum === 3 && err.linePos > 0, JSON.stringify(err));

// No scope: the error reaches onuncapturederror at the next microtask checkpoint.
const seen = [];
device.onuncapturederror = (event) => seen.push(event.error);
device.createBuffer({ size: 4, usage: 0 });
await new Promise((resolve) => setTimeout(resolve, 0));
check("uncapturederror delivered", seen.length === 1 && seen[0] instanceof GPUValidationError);
check("GPUDevice is an EventTarget", device instanceof EventTarget);
const events = [];
device.addEventListener("uncapturederror", (event) => events.push(event));
device.createBuffer({ size: 4, usage: 0 });
await new Promise((resolve) => setTimeout(resolve, 0));
check("listeners get a GPUUncapturedErrorEvent", events.length === 1 && events[0] instanceof GPUUncapturedErrorEvent &&
      events[0].type === "uncapturederror" && events[0].error instanceof GPUValidationError && seen.length === 2);
done();
