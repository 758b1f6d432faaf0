// Frame time in a window: the scene of examples/desktop/{cube,particles}.js presented through the
// window's surface, unpaced (run with `alknet desktop --max-fps 0`). Prints one JSON line on
// stderr (unbuffered) when FRAMES frames after a warm-up of 10 have been presented.
//   alknet desktop --max-fps 0 --width W --height H window_bench.js cube|particles FRAMES
import { createWindow } from "alknet:desktop";
import { args } from "alknet:process";
import { createCubeScene } from "../../examples/desktop/scenes/cube.js";
import { createParticleScene } from "../../examples/desktop/scenes/particles.js";

const [name, frames] = [args[0], Number(args[1] ?? 200)];
const canvas = createWindow({ title: `bench-${name}` });
const device = await (await navigator.gpu.requestAdapter()).requestDevice();
const format = navigator.gpu.getPreferredCanvasFormat();
const context = canvas.getContext("webgpu");
context.configure({ device, format });
const scene = name === "cube" ? createCubeScene(device, format, canvas.width, canvas.height)
                              : createParticleScene(device, format);
let n = 0, t0 = 0;
requestAnimationFrame(function draw() {
  if (n === 10) t0 = performance.now();
  if (n === 10 + frames) {
    const ms = (performance.now() - t0) / frames;
    console.error(JSON.stringify({ scene: name, frames, width: canvas.width, height: canvas.height,
                                   ms_per_frame: Number(ms.toFixed(3)), runtime: "alknet desktop" }));
    canvas.close();
    return;
  }
  scene.render(context.getCurrentTexture().createView(), n, canvas.width, canvas.height);
  n++;
  requestAnimationFrame(draw);
});
