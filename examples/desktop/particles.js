// A compute + render particle system in a window (scenes/particles.js): a compute pass
// advances 4096 particles each frame, a render pass draws them; the pointer moves the
// attractor while a button is held.
//   alknet desktop examples/desktop/particles.js
import { createWindow } from "alknet:desktop";
import { createParticleScene } from "./scenes/particles.js";

const canvas = createWindow({ width: 640, height: 480, title: "particles" });
const device = await (await navigator.gpu.requestAdapter()).requestDevice();
const context = canvas.getContext("webgpu");
const format = navigator.gpu.getPreferredCanvasFormat();
context.configure({ device, format });
const scene = createParticleScene(device, format);

const toClip = (e) => [(e.offsetX / canvas.clientWidth) * 2 - 1, 1 - (e.offsetY / canvas.clientHeight) * 2];
canvas.addEventListener("pointermove", (e) => { if (e.buttons & 1) scene.setAttractor(...toClip(e)); });
canvas.addEventListener("pointerdown", (e) => scene.setAttractor(...toClip(e)));
canvas.addEventListener("keydown", (e) => { if (e.key === "Escape") canvas.close(); });
requestAnimationFrame(function draw() {
  scene.render(context.getCurrentTexture().createView());
  requestAnimationFrame(draw);
});
