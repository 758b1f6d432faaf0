// Type-checked with `deno check` (ctest desktop.dts_deno_check): alknet-desktop.d.ts is valid
// TypeScript and describes alknet:desktop as the examples use it. Never run.
/// <reference path="../js/alknet-desktop.d.ts" />
declare const desktop: typeof import("alknet:desktop");

const canvas = desktop.createWindow({ width: 320, height: 240, title: "t" });
const context = canvas.getContext("webgpu");
declare const device: GPUDevice;
context.configure({ device, format: "bgra8unorm", alphaMode: "opaque" });
const texture: GPUTexture = context.getCurrentTexture();
const size: number = canvas.width * canvas.devicePixelRatio;
canvas.addEventListener("keydown", (e) => { const k: string = e.key + e.code; });
canvas.addEventListener("pointermove", (e) => { const x: number = e.offsetX + e.clientY; });
canvas.addEventListener("wheel", (e) => { const d: number = e.deltaY; });
canvas.addEventListener("close", (e) => e.preventDefault());
canvas.onresize = () => {};
const id: number = desktop.requestAnimationFrame((t: number) => {});
desktop.cancelAnimationFrame(id);
// @ts-expect-error: only presentable formats
context.configure({ device, format: "r8unorm" });
// @ts-expect-error: a size is a number
desktop.createWindow({ width: "640" });
// @ts-expect-error: key events carry strings
canvas.addEventListener("keyup", (e) => { const n: number = e.key; });
