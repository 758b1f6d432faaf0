import { check, throws, rejects, done, device as open } from "./check.mjs";

check("navigator.gpu is a GPU", navigator.gpu instanceof GPU);
throws("interfaces are not constructible", () => new GPUBuffer(), "TypeError");
const { adapter, device } = await open();
check("adapter is a GPUAdapter", adapter instanceof GPUAdapter);
check("adapter limits", adapter.limits.maxBufferSize > 0 && adapter.limits.maxComputeWorkgroupSizeX >= 64);
check("limits are cached objects", adapter.limits === adapter.limits);
check("features is a GPUSupportedFeatures of names", adapter.features instanceof GPUSupportedFeatures && !(adapter.features instanceof Set) && [...adapter.features].every((f) => typeof f === "string"));
check("info has strings", typeof adapter.info.vendor === "string" && typeof adapter.info.description === "string");
check("device is a GPUDevice", device instanceof GPUDevice);
check("queue is the same object each time", device.queue === device.queue && device.queue instanceof GPUQueue);
// Without requiredLimits a device gets the spec's defaults, not the adapter's maxima.
check("default limits", device.limits.maxStorageBufferBindingSize === 134217728, `${device.limits.maxStorageBufferBindingSize}`);
// An adapter gives out one device (spec: it is then "consumed"); refused requests do not count.
await rejects("a consumed adapter rejects", adapter.requestDevice(), "OperationError");
const adapter2 = await navigator.gpu.requestAdapter();
await rejects("unknown limit rejects", adapter2.requestDevice({ requiredLimits: { maxWhatever: 1 } }), "OperationError");
await rejects("limit above the adapter rejects", adapter2.requestDevice({ requiredLimits: { maxBindGroups: adapter2.limits.maxBindGroups + 1 } }), "OperationError");
await rejects("unknown feature rejects", adapter2.requestDevice({ requiredFeatures: ["no-such-feature"] }), "TypeError");
const bigger = await adapter2.requestDevice({ requiredLimits: { maxStorageBufferBindingSize: adapter2.limits.maxStorageBufferBindingSize } });
check("required limits are granted", bigger.limits.maxStorageBufferBindingSize === adapter2.limits.maxStorageBufferBindingSize);
bigger.destroy();
const info = await bigger.lost;
check("destroy resolves lost", info.reason === "destroyed", info.reason);
const pipeline = await device.createComputePipelineAsync({
  layout: "auto",
  compute: { module: device.createShaderModule({ code: "@compute @workgroup_size(1) fn main() {}" }), entryPoint: "main" },
});
check("createComputePipelineAsync", pipeline instanceof GPUComputePipeline);
const labelled = device.createBuffer({ size: 4, usage: GPUBufferUsage.COPY_DST, label: "my buffer" });
check("labels come from descriptors", labelled.label === "my buffer" && device.createCommandEncoder().label === "");
labelled.label = "renamed";
check("labels are writable", labelled.label === "renamed");
check("flag constants", GPUBufferUsage.STORAGE === 0x80 && GPUMapMode.READ === 1 && GPUShaderStage.COMPUTE === 4);
done();
