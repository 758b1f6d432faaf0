// A rotating textured cube with depth in a window (the scene: scenes/cube.js).
//   alknet desktop examples/desktop/cube.js
import { createWindow } from "alknet:desktop";
import { createCubeScene } from "./scenes/cube.js";

const canvas = createWindow({ width: 640, height: 480, title: "cube" });
const device = await (await navigator.gpu.requestAdapter()).requestDevice();
const context = canvas.getContext("webgpu");
const format = navigator.gpu.getPreferredCanvasFormat();
context.configure({ device, format });
const scene = createCubeScene(device, format, canvas.width, canvas.height);

let frame = 0;
requestAnimationFrame(function draw() {
  frame++;
  scene.render(context.getCurrentTexture().createView(), frame, canvas.width, canvas.height);
  requestAnimationFrame(draw);
});
canvas.addEventListener("keydown", (e) => { if (e.key === "Escape") canvas.close(); });
