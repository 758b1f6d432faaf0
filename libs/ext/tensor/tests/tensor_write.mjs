// Writes a .mtf file from JS: values follow formulas the test (tensor side) recomputes.
import { write } from "alknet:tensor";
import { args } from "alknet:process";

const f32 = Float32Array.from({ length: 2 * 3 * 5 }, (_, i) => ((i * 7) % 13) - 6.5);
const i32 = Int32Array.from({ length: 17 }, (_, i) => i * i - 100);
const u8 = Uint8Array.from({ length: 9 }, (_, i) => (i * 31) & 255);
write(args[0], [
  { name: "weights", shape: [2, 3, 5], data: f32 },
  { name: "layer.ids", dtype: "i32", data: i32 },
  { name: "bytes", dtype: "u8", shape: [3, 3], data: u8 },
], { author: "alknet:tensor test", version: 3, scale: 0.25, dims: [2, 3, 5], flag: true });
console.log("wrote", args[0]);
