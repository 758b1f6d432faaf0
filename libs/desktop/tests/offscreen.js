// Renders frame N of a desktop example's scene into an offscreen bgra8unorm texture and writes
// its pixels as raw RGBA: the reference the window's screenshot is compared with
// (desktop_test.py). Same scene code, no window, no surface.
//   alknet run --allow-read --allow-write=OUT offscreen.js cube|particles N WIDTH HEIGHT OUT
import { args } from "alknet:process";
import { writeFileSync } from "alknet:fs";
import { createCubeScene } from "../../../examples/desktop/scenes/cube.js";
import { createParticleScene } from "../../../examples/desktop/scenes/particles.js";

const [name, n, width, height, out] = [args[0], Number(args[1]), Number(args[2]), Number(args[3]), args[4]];
const device = await (await navigator.gpu.requestAdapter()).requestDevice();
const format = "bgra8unorm";
const texture = device.createTexture({ size: [width, height], format,
  usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
if (name === "cube") {
  createCubeScene(device, format, width, height).render(texture.createView(), n, width, height);
} else {
  const scene = createParticleScene(device, format);
  for (let i = 0; i < n; i++) scene.render(texture.createView());
}
const row = Math.ceil((width * 4) / 256) * 256;
const buffer = device.createBuffer({ size: row * height, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
const encoder = device.createCommandEncoder();
encoder.copyTextureToBuffer({ texture }, { buffer, bytesPerRow: row }, [width, height]);
device.queue.submit([encoder.finish()]);
await buffer.mapAsync(GPUMapMode.READ);
const src = new Uint8Array(buffer.getMappedRange());
const rgba = new Uint8Array(width * height * 4);
for (let y = 0; y < height; y++)
  for (let x = 0; x < width; x++) {
    const i = y * row + x * 4, o = (y * width + x) * 4;
    rgba[o] = src[i + 2]; rgba[o + 1] = src[i + 1]; rgba[o + 2] = src[i]; rgba[o + 3] = src[i + 3];
  }
writeFileSync(out, rgba);
