// A tensor from alknet:compute drawn as an image, compute and render on one device: each frame
// computes field = sigmoid(A x B(t)) with compute ops (a 120x3 by 3x160 MatMul, then Sigmoid),
// and a render pass reads the result's storage (field.gpuBuffer) straight from the fragment
// shader, colour-mapping each value: no copy through the host. The canvas is configured with
// compute.device, the GPUDevice the tensors live on.
//   alknet desktop examples/desktop/tensor_image.js
import compute from "alknet:compute";
import { createWindow } from "alknet:desktop";
import { createTensorImage } from "./scenes/tensor_image.js";

const canvas = createWindow({ width: 640, height: 480, title: "tensor image" });
const device = compute.device;
const context = canvas.getContext("webgpu");
const format = navigator.gpu.getPreferredCanvasFormat();
context.configure({ device, format });
const image = createTensorImage(device, format);
let frame = 0;
requestAnimationFrame(function draw() {
  frame++;
  image.render(context.getCurrentTexture().createView(), frame, canvas.width, canvas.height);
  requestAnimationFrame(draw);
});
canvas.addEventListener("keydown", (e) => { if (e.key === "Escape") canvas.close(); });
