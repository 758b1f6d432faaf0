// A canvas configured with compute.device, then a navigator.gpu device, then compute.device again
// (desktop_test.py): the surface is made again on each device's instance. Frames 1-2 red on
// compute.device, 3-5 green on the other device, 6+ blue on compute.device.
import compute from "alknet:compute";
import { createWindow } from "alknet:desktop";
const canvas = createWindow({ width: 320, height: 240 });
const context = canvas.getContext("webgpu");
const format = navigator.gpu.getPreferredCanvasFormat();
const other = await (await navigator.gpu.requestAdapter()).requestDevice();
let n = 0;
function clear(device, rgb) {
  const enc = device.createCommandEncoder();
  enc.beginRenderPass({ colorAttachments: [{ view: context.getCurrentTexture().createView(), loadOp: "clear", storeOp: "store", clearValue: [...rgb, 1] }] }).end();
  device.queue.submit([enc.finish()]);
}
context.configure({ device: compute.device, format });
requestAnimationFrame(function draw() {
  n++;
  if (n === 3) context.configure({ device: other, format });
  if (n === 6) context.configure({ device: compute.device, format });
  clear(n >= 3 && n < 6 ? other : compute.device, n < 3 ? [1, 0, 0] : n < 6 ? [0, 1, 0] : [0, 0, 1]);
  console.error("frame", n, context.getConfiguration().device === compute.device ? "compute" : "other");
  requestAnimationFrame(draw);
});
