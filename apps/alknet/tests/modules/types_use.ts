// Type-checked with `deno check` (ctest runtime.alknet_modules.dts_deno_check): the .d.ts files
// are valid TypeScript and describe the modules as scripts use them. Never run.
/// <reference path="../../../../libs/ext/compute/alknet-compute.d.ts" />
/// <reference path="../../../../libs/ext/tensor/alknet-tensor.d.ts" />
/// <reference path="../../../../libs/ext/call/alknet-call.d.ts" />
declare const compute: typeof import("alknet:compute")["default"];
declare const tensor: typeof import("alknet:tensor");
declare const calls: typeof import("alknet:call");

const a = compute.Tensor.from(new Float32Array(4), [2, 2]);
const b: import("alknet:compute").Tensor = compute.matMul(a, a);
const y = compute.softmax(b, { axis: -1 });
const g = compute.op("Gemm", [a, b], { transB: 1 }, 13);
const digest: Promise<Uint8Array> = compute.sha256(new Uint8Array(3));
const digests: Promise<Uint8Array[]> = compute.sha256([new Uint8Array(3), new ArrayBuffer(2)]);
const computeDevice: GPUDevice = compute.device;
const storage: GPUBuffer = b.gpuBuffer;
computeDevice.createBindGroup({ layout: computeDevice.createBindGroupLayout({ entries: [] }),
                                entries: [{ binding: 0, resource: { buffer: storage } }] });
const shape: readonly number[] = tensor.open("x.mtf").get("w").shape;
tensor.write("y.mtf", [{ name: "w", data: new Float32Array(2) }], { step: 3, tags: ["a"] });
calls.register("script.x", "(n: number) -> number", (n: number) => n + 1);
const remote = calls.connect("127.0.0.1:7000", { token: "t" });
const listed: Promise<import("alknet:call").CallInfo[]> = remote.list();
const r = calls.call("compute.add", [{ dtype: "f32", shape: [1], data: new Float32Array(1) }]);
const session: Promise<import("alknet:compute").Session> = compute.Session.load("model.onnx", { fuse: false });
const probs = session.then((s) => s.run({ x: { data: new Float32Array(4), shape: [1, 4] } }, { tensors: true }))
  .then((out) => out["probs"].data);
// @ts-expect-error: feeds are values, not strings
session.then((s) => s.run({ x: "pixels" }));
// @ts-expect-error: a Tensor is not built from a plain array
compute.Tensor.from([1, 2, 3]);
// @ts-expect-error: register needs a function
calls.register("script.y", "() -> null", 3);
export { digest, digests, g, listed, probs, r, shape, y };
