// Frame time of a desktop example's scene rendered offscreen: the same scene code in any
// WebGPU JS runtime (alknet run, deno run --unstable-webgpu). Each frame records, submits and
// waits for the queue (onSubmittedWorkDone), as a presented frame must finish before the next.
//   alknet run --allow-read frame_bench.js cube|particles FRAMES WIDTH HEIGHT
//   deno run --unstable-webgpu --allow-read frame_bench.js cube|particles FRAMES WIDTH HEIGHT
// Prints one JSON line: {scene, frames, width, height, ms_per_frame, first_frame_ms, runtime}.
// first_frame_ms: from before the scene's resources and pipelines are made to the end of its
// first frame (shader compilation included: run with MESA_SHADER_CACHE_DIR set to an empty
// directory for the cold figure).
import { createCubeScene } from "../../examples/desktop/scenes/cube.js";
import { createParticleScene } from "../../examples/desktop/scenes/particles.js";

const argv = globalThis.Deno ? Deno.args : (await import("alknet:process")).args;
const [name, frames, width, height] = [argv[0], Number(argv[1] ?? 200), Number(argv[2] ?? 640), Number(argv[3] ?? 480)];
const device = await (await navigator.gpu.requestAdapter()).requestDevice();
const format = "bgra8unorm";
const tSetup = performance.now();
const texture = device.createTexture({ size: [width, height], format, usage: GPUTextureUsage.RENDER_ATTACHMENT });
const scene = name === "cube" ? createCubeScene(device, format, width, height) : createParticleScene(device, format);
const frame = (n) => scene.render(texture.createView(), n, width, height);
frame(0);
await device.queue.onSubmittedWorkDone();
const firstMs = performance.now() - tSetup;
const warm = 10;
for (let n = 1; n < warm; n++) { frame(n); await device.queue.onSubmittedWorkDone(); }
const t0 = performance.now();
for (let n = warm; n < warm + frames; n++) { frame(n); await device.queue.onSubmittedWorkDone(); }
const ms = (performance.now() - t0) / frames;
console.log(JSON.stringify({ scene: name, frames, width, height, ms_per_frame: Number(ms.toFixed(3)),
                             first_frame_ms: Number(firstMs.toFixed(1)),
                             runtime: globalThis.Deno ? "deno" : "alknet" }));
