// Offscreen rendering to a PNG: three flat-colored triangles over a clear color, rendered
// into a texture, copied to a buffer, and encoded as PNG by the encoder below (zlib stored
// blocks, CRC-32, Adler-32: no compression library). The script checks its own pixels
// against the scene's geometry and decodes its own PNG before writing it.
//
//   alknet run --allow-write=out.png examples/render_png.js [out.png] [width] [height]
import { args, exit } from "alknet:process";
import { writeFileSync } from "alknet:fs";

const out = args[0];
const W = Number(args[1] ?? 96), H = Number(args[2] ?? 64);
const CLEAR = [16, 24, 48, 255];
// Triangles in pixel coordinates (y down) with their RGBA colors. Counter-clockwise on
// screen is clockwise in clip space (y flips), so front faces are not assumed: no culling.
const TRIANGLES = [
  { points: [[0.10, 0.15], [0.45, 0.15], [0.10, 0.85]], color: [230, 57, 70, 255] },
  { points: [[0.55, 0.85], [0.90, 0.85], [0.90, 0.15]], color: [69, 123, 157, 255] },
  { points: [[0.50, 0.05], [0.70, 0.50], [0.30, 0.50]], color: [241, 250, 238, 255] },
];

// ---- PNG encoder -------------------------------------------------------------------------
const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; ++n) {
    let c = n;
    for (let k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();
function crc32(bytes, crc = 0xffffffff) {
  for (const b of bytes) crc = CRC_TABLE[(crc ^ b) & 0xff] ^ (crc >>> 8);
  return crc;
}
function adler32(bytes) {
  let a = 1, b = 0;
  for (const x of bytes) {
    a = (a + x) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}
// zlib stream of stored (uncompressed) deflate blocks, at most 65535 bytes each (RFC 1950/1951).
function zlibStored(data) {
  const blocks = Math.max(1, Math.ceil(data.length / 65535));
  const outBytes = new Uint8Array(2 + data.length + blocks * 5 + 4);
  outBytes.set([0x78, 0x01]);  // CMF: deflate, 32K window; FLG: check bits, no dictionary
  let o = 2;
  for (let i = 0; i < blocks; ++i) {
    const chunk = data.subarray(i * 65535, Math.min(data.length, (i + 1) * 65535));
    outBytes[o++] = i === blocks - 1 ? 1 : 0;  // BFINAL, BTYPE = 00 (stored)
    outBytes[o++] = chunk.length & 0xff;
    outBytes[o++] = chunk.length >>> 8;
    outBytes[o++] = ~chunk.length & 0xff;
    outBytes[o++] = (~chunk.length >>> 8) & 0xff;
    outBytes.set(chunk, o);
    o += chunk.length;
  }
  new DataView(outBytes.buffer).setUint32(o, adler32(data));
  return outBytes;
}
function chunk(type, data) {
  const bytes = new Uint8Array(12 + data.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; ++i) bytes[4 + i] = type.charCodeAt(i);
  bytes.set(data, 8);
  view.setUint32(8 + data.length, (crc32(bytes.subarray(4, 8 + data.length)) ^ 0xffffffff) >>> 0);
  return bytes;
}
// RGBA8 pixels, `stride` bytes per source row -> PNG (color type 6, filter 0 on every row).
function encodePng(pixels, width, height, stride) {
  const raw = new Uint8Array(height * (1 + width * 4));
  for (let y = 0; y < height; ++y) {
    raw[y * (1 + width * 4)] = 0;
    raw.set(pixels.subarray(y * stride, y * stride + width * 4), y * (1 + width * 4) + 1);
  }
  const header = new Uint8Array(13);
  const hv = new DataView(header.buffer);
  hv.setUint32(0, width);
  hv.setUint32(4, height);
  header.set([8, 6, 0, 0, 0], 8);  // 8 bits, RGBA, deflate, adaptive filtering, no interlace
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", zlibStored(raw)),
    chunk("IEND", new Uint8Array(0)),
  ];
  const png = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    png.set(p, o);
    o += p.length;
  }
  return png;
}
// Reads back what encodePng wrote (stored blocks only): checks every CRC and the Adler-32.
function decodeOwnPng(png) {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let o = 8, width = 0, height = 0, idat = [];
  while (o < png.length) {
    const length = view.getUint32(o);
    const type = String.fromCharCode(...png.subarray(o + 4, o + 8));
    const data = png.subarray(o + 8, o + 8 + length);
    if (((crc32(png.subarray(o + 4, o + 8 + length)) ^ 0xffffffff) >>> 0) !== view.getUint32(o + 8 + length)) {
      throw new Error(`PNG chunk ${type}: CRC mismatch`);
    }
    if (type === "IHDR") [width, height] = [view.getUint32(o + 8), view.getUint32(o + 12)];
    if (type === "IDAT") idat.push(...data);
    o += 12 + length;
  }
  const z = Uint8Array.from(idat);
  const raw = [];
  for (let p = 2, last = 0; !last;) {
    last = z[p] & 1;
    const len = z[p + 1] | (z[p + 2] << 8);
    raw.push(...z.subarray(p + 5, p + 5 + len));
    p += 5 + len;
  }
  const data = Uint8Array.from(raw);
  if (adler32(data) !== new DataView(z.buffer).getUint32(z.length - 4)) throw new Error("PNG: Adler-32 mismatch");
  return { width, height, pixel: (x, y) => Array.from(data.subarray(y * (1 + width * 4) + 1 + x * 4, y * (1 + width * 4) + 5 + x * 4)) };
}

// ---- rendering ---------------------------------------------------------------------------
const adapter = await navigator.gpu.requestAdapter();
if (!adapter) {
  console.error("no WebGPU adapter (without a GPU, lavapipe must be installed: scripts/setup)");
  exit(3);
}
const device = await adapter.requestDevice();
device.onuncapturederror = (e) => {
  console.error("uncaptured WebGPU error:", e.error.message);
  exit(1);
};
const module = device.createShaderModule({
  label: "flat",
  code: `
    struct VOut { @builtin(position) pos: vec4f, @location(0) @interpolate(flat) color: vec4f }
    @vertex fn vs(@location(0) pos: vec2f, @location(1) color: vec4f) -> VOut {
      return VOut(vec4f(pos.x * 2.0 - 1.0, 1.0 - pos.y * 2.0, 0.0, 1.0), color);
    }
    @fragment fn fs(v: VOut) -> @location(0) vec4f { return v.color; }`,
});
const pipeline = device.createRenderPipeline({
  label: "flat triangles",
  layout: "auto",
  vertex: {
    module,
    buffers: [{
      arrayStride: 12,
      attributes: [{ shaderLocation: 0, offset: 0, format: "float32x2" }, { shaderLocation: 1, offset: 8, format: "unorm8x4" }],
    }],
  },
  fragment: { module, targets: [{ format: "rgba8unorm" }] },
});
const vertexData = new ArrayBuffer(TRIANGLES.length * 3 * 12);
TRIANGLES.forEach(({ points, color }, t) => points.forEach(([x, y], v) => {
  new Float32Array(vertexData, (t * 3 + v) * 12, 2).set([x, y]);
  new Uint8Array(vertexData, (t * 3 + v) * 12 + 8, 4).set(color);
}));
const vertices = device.createBuffer({ size: vertexData.byteLength, usage: GPUBufferUsage.VERTEX | GPUBufferUsage.COPY_DST });
device.queue.writeBuffer(vertices, 0, vertexData);
const target = device.createTexture({
  size: [W, H], format: "rgba8unorm", usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC,
});
const stride = Math.ceil((W * 4) / 256) * 256;  // bytesPerRow must be a multiple of 256
const readback = device.createBuffer({ size: stride * H, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
const encoder = device.createCommandEncoder();
const pass = encoder.beginRenderPass({
  colorAttachments: [{
    view: target.createView(),
    loadOp: "clear",
    storeOp: "store",
    clearValue: CLEAR.map((c) => c / 255),
  }],
});
pass.setPipeline(pipeline);
pass.setVertexBuffer(0, vertices);
pass.draw(TRIANGLES.length * 3);
pass.end();
encoder.copyTextureToBuffer({ texture: target }, { buffer: readback, bytesPerRow: stride }, [W, H]);
device.queue.submit([encoder.finish()]);
await readback.mapAsync(GPUMapMode.READ);
const pixels = new Uint8Array(readback.getMappedRange()).slice();
readback.unmap();

// ---- self-check: the scene's geometry says which color each pixel center must have -------
// A pixel is checked only when its center is clearly inside or outside every triangle (more
// than a pixel from each edge), so the rasterizer's tie-breaking rules do not matter.
function edgeDistance([ax, ay], [bx, by], x, y) {
  const cross = (bx - ax) * (y - ay) - (by - ay) * (x - ax);
  return cross / Math.hypot(bx - ax, by - ay);
}
function expectedAt(px, py) {
  let color = CLEAR;
  for (const { points, color: c } of TRIANGLES) {
    const p = points.map(([x, y]) => [x * W, y * H]);
    const d = [0, 1, 2].map((i) => edgeDistance(p[i], p[(i + 1) % 3], px + 0.5, py + 0.5));
    const inside = d.every((v) => v > 1) || d.every((v) => v < -1);
    const near = d.some((v) => Math.abs(v) <= 1);
    if (near) return null;
    if (inside) color = c;
  }
  return color;
}
const png = encodePng(pixels, W, H, stride);
const decoded = decodeOwnPng(png);
let checked = 0, wrong = 0;
for (let y = 0; y < H; ++y) {
  for (let x = 0; x < W; ++x) {
    const want = expectedAt(x, y);
    if (!want) continue;
    ++checked;
    if (decoded.pixel(x, y).join() !== want.join()) {
      if (wrong++ < 5) console.error(`pixel ${x},${y}: ${decoded.pixel(x, y)} expected ${want}`);
    }
  }
}
console.log(`rendered ${decoded.width}x${decoded.height}, PNG ${png.length} bytes; ${checked} pixels checked, ${wrong} wrong`);
if (decoded.width !== W || decoded.height !== H || wrong > 0 || checked < (W * H) / 2) exit(1);
if (out) {
  writeFileSync(out, png);
  console.log(`wrote ${out}`);
}
device.destroy();
