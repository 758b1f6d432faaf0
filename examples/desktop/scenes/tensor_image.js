// The scene of examples/desktop/tensor_image.js, apart from the window (bench/desktop renders it
// offscreen): a field computed by alknet:compute, drawn from its storage by a fragment shader.
import compute, { Tensor } from "alknet:compute";

export const ROWS = 120, COLS = 160;

// A (ROWS x 3) and B(t) (3 x COLS) as float32, row-major (libs/desktop/tests/desktop_test.py
// builds the same ones with numpy for its reference image).
export function factors(t) {
  const a = new Float32Array(ROWS * 3), b = new Float32Array(3 * COLS);
  for (let i = 0; i < ROWS; i++) {
    a.set([Math.cos((2 * Math.PI * i) / ROWS), Math.sin((3 * Math.PI * i) / ROWS), 1], i * 3);
  }
  for (let j = 0; j < COLS; j++) {
    b[j] = 2 * Math.sin((2 * Math.PI * j) / COLS + t);
    b[COLS + j] = 2 * Math.cos((3 * Math.PI * j) / COLS - t);
    b[2 * COLS + j] = -0.2;
  }
  return [Tensor.from(a, [ROWS, 3]), Tensor.from(b, [3, COLS])];
}

// Pixel (x, y) of a w x h target shows element (y * ROWS / h, x * COLS / w) (integer division)
// of the field, a value v in [0, 1] mapped to (v, 4v(1 - v), 1 - v).
const kShader = `
struct Dims { w: u32, h: u32, cols: u32, rows: u32 }
@group(0) @binding(0) var<storage, read> field: array<f32>;
@group(0) @binding(1) var<uniform> dims: Dims;
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4f {
  var p = array(vec2f(-1.0, -1.0), vec2f(3.0, -1.0), vec2f(-1.0, 3.0));
  return vec4f(p[i], 0.0, 1.0);
}
@fragment fn fs(@builtin(position) pos: vec4f) -> @location(0) vec4f {
  let c = u32(pos.x) * dims.cols / dims.w;
  let r = u32(pos.y) * dims.rows / dims.h;
  let v = clamp(field[r * dims.cols + c], 0.0, 1.0);
  return vec4f(v, 4.0 * v * (1.0 - v), 1.0 - v, 1.0);
}`;

// Frame n's field: sigmoid(A x B(n * 0.05)), computed by alknet:compute.
export function fieldAt(n) {
  const [a, b] = factors(n * 0.05);
  return compute.sigmoid(compute.matMul(a, b));
}

export function createTensorImage(device, format) {
  const module = device.createShaderModule({ code: kShader });
  const pipeline = device.createRenderPipeline({
    layout: "auto",
    vertex: { module },
    fragment: { module, targets: [{ format }] },
  });
  const dims = device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  return {
    // Computes frame n's field and draws it from its storage into `view` (a w x h colour
    // attachment of compute.device); returns the field tensor.
    render(view, n, w, h) {
      const field = fieldAt(n);
      this.draw(view, field.gpuBuffer, w, h);
      return field;
    },
    // Draws ROWS x COLS float32 values from `buffer` (a storage buffer of `device`).
    draw(view, buffer, w, h) {
      device.queue.writeBuffer(dims, 0, new Uint32Array([w, h, COLS, ROWS]));
      const bindGroup = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [
        { binding: 0, resource: { buffer } },
        { binding: 1, resource: { buffer: dims } }] });
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginRenderPass({
        colorAttachments: [{ view, clearValue: [0, 0, 0, 1], loadOp: "clear", storeOp: "store" }],
      });
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, bindGroup);
      pass.draw(3);
      pass.end();
      device.queue.submit([encoder.finish()]);
    },
  };
}
