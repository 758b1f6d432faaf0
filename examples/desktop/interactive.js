// An interactive window: the whole canvas shows one colour that input changes, and every
// event is logged as one JSON line (the tests drive it with xdotool and read both the log and
// the X server's own screenshot).
//   keys r/g/b: red/green/blue; click: the colour comes from the click position;
//   wheel: brightness; Escape: close.
import { createWindow } from "alknet:desktop";

const canvas = createWindow({ title: "interactive" });
const device = await (await navigator.gpu.requestAdapter()).requestDevice();
const context = canvas.getContext("webgpu");
context.configure({ device, format: navigator.gpu.getPreferredCanvasFormat() });

let color = [0.5, 0.5, 0.5];
let brightness = 1;
// stderr: unbuffered, so a reader sees each line as it happens.
const log = (o) => console.error(JSON.stringify(o));
for (const type of ["keydown", "keyup", "pointerdown", "pointerup", "wheel", "resize", "focus", "blur"]) {
  canvas.addEventListener(type, (e) => log({ type, key: e.key, code: e.code, x: e.offsetX, y: e.offsetY,
                                             button: e.button, deltaY: e.deltaY, width: canvas.width, height: canvas.height }));
}
canvas.addEventListener("keydown", (e) => {
  if (e.key === "r") color = [1, 0, 0];
  if (e.key === "g") color = [0, 1, 0];
  if (e.key === "b") color = [0, 0, 1];
  if (e.key === "Escape") canvas.close();
});
canvas.addEventListener("pointerdown", (e) => {
  color = [e.offsetX / canvas.clientWidth, e.offsetY / canvas.clientHeight, e.button / 2];
});
canvas.addEventListener("wheel", (e) => { brightness = Math.min(1, Math.max(0.1, brightness - e.deltaY / 1000)); });

let frames = 0;
requestAnimationFrame(function draw() {
  const texture = context.getCurrentTexture();
  const encoder = device.createCommandEncoder();
  encoder.beginRenderPass({ colorAttachments: [{ view: texture.createView(), loadOp: "clear", storeOp: "store",
    clearValue: [...color.map((c) => c * brightness), 1] }] }).end();
  device.queue.submit([encoder.finish()]);
  if (++frames === 1) log({ type: "first-frame", width: texture.width, height: texture.height });
  requestAnimationFrame(draw);
});
