// Frame time of examples/desktop/tensor_image.js's scene offscreen, two ways:
//   shared:    the field is computed on compute.device and drawn from its storage
//              (tensor.gpuBuffer) on the same device: no copy through the host;
//   roundtrip: the same field downloaded (await field.data()) and written into a buffer of a
//              navigator.gpu device, drawn there: what a script did before compute.device.
// Each frame computes, draws, and waits for the queue.
//   alknet run --allow-read tensor_bench.js shared|roundtrip FRAMES WIDTH HEIGHT
// Prints one JSON line: {scene, frames, width, height, ms_per_frame, runtime}.
import compute from "alknet:compute";
import { args } from "alknet:process";
import { COLS, ROWS, createTensorImage, fieldAt } from "../../examples/desktop/scenes/tensor_image.js";

const [mode, frames, width, height] = [args[0], Number(args[1] ?? 200), Number(args[2] ?? 640), Number(args[3] ?? 480)];
if (mode !== "shared" && mode !== "roundtrip") throw new TypeError("usage: tensor_bench.js shared|roundtrip FRAMES WIDTH HEIGHT");
const device = mode === "shared" ? compute.device : await (await navigator.gpu.requestAdapter()).requestDevice();
const format = "bgra8unorm";
const texture = device.createTexture({ size: [width, height], format, usage: GPUTextureUsage.RENDER_ATTACHMENT });
const image = createTensorImage(device, format);
const staging = device.createBuffer({ size: ROWS * COLS * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
async function frame(n) {
  if (mode === "shared") {
    image.render(texture.createView(), n, width, height);
  } else {
    device.queue.writeBuffer(staging, 0, await fieldAt(n).data());
    image.draw(texture.createView(), staging, width, height);
  }
  await device.queue.onSubmittedWorkDone();
}
const warm = 10;
for (let n = 0; n < warm; n++) await frame(n);
const t0 = performance.now();
for (let n = warm; n < warm + frames; n++) await frame(n);
const ms = (performance.now() - t0) / frames;
console.log(JSON.stringify({ scene: "tensor image", frames, width, height, ms_per_frame: Number(ms.toFixed(3)),
                             runtime: mode === "shared" ? "alknet shared" : "alknet roundtrip" }));
