// An idle window: one frame drawn, then nothing requested. The runner measures the process's
// CPU time while it sits (an idle window must sleep in the event loop, not spin).
import { createWindow } from "alknet:desktop";
const canvas = createWindow({ title: "bench-idle", width: 320, height: 240 });
const device = await (await navigator.gpu.requestAdapter()).requestDevice();
const context = canvas.getContext("webgpu");
context.configure({ device, format: navigator.gpu.getPreferredCanvasFormat() });
canvas.addEventListener("keydown", () => canvas.close());
requestAnimationFrame(() => {
  const encoder = device.createCommandEncoder();
  encoder.beginRenderPass({ colorAttachments: [{ view: context.getCurrentTexture().createView(),
    loadOp: "clear", storeOp: "store", clearValue: [0.2, 0.2, 0.2, 1] }] }).end();
  device.queue.submit([encoder.finish()]);
  console.error(JSON.stringify({ type: "drawn" }));
});
