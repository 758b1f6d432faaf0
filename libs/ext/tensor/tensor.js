// alknet:tensor — metatensor (.mtf) files as typed arrays (docs/metatensor-format.md).
//
//   import { open, write } from "alknet:tensor";
//   const file = open("weights.mtf");            // needs --allow-read
//   const w = file.get("layer0.weight");          // {name, dtype, shape, data: Float32Array}
//   write("out.mtf", [{ name: "y", dtype: "f32", shape: [2, 2], data }], { author: "me" });
//
// open() maps the file: each tensor's typed array views the mapping without a copy. The
// pages are private (copy-on-write), so writing into an array never changes the file; use
// write() for that (it needs --allow-write and replaces the file atomically).
const core = import.meta.native;
if (!core) {
  throw new Error("alknet:tensor is not available in this host: its native core (alknet-runtime-modules) " +
                  "was not installed; run the script with `alknet run`");
}

const TYPED = {
  f32: Float32Array, f64: Float64Array, i32: Int32Array, u32: Uint32Array, i16: Int16Array,
  u16: Uint16Array, f16: Uint16Array, bf16: Uint16Array, i8: Int8Array, u8: Uint8Array,
  bool: Uint8Array, i64: BigInt64Array, u64: BigUint64Array,
};

// The typed array type a dtype reads as (Uint8Array for block types such as q4_0: raw bytes).
export function arrayTypeOf(dtype) { return TYPED[dtype] ?? Uint8Array; }

export class TensorFile {
  #tensors;
  #byName;
  constructor(raw) {
    this.metadata = Object.freeze(raw.metadata);
    this.#tensors = raw.tensors.map((t) => Object.freeze({
      name: t.name, dtype: t.dtype, shape: Object.freeze(t.shape),
      data: new (arrayTypeOf(t.dtype))(t.buffer),
    }));
    this.#byName = new Map(this.#tensors.map((t) => [t.name, t]));
  }
  // Tensor names in file order.
  get names() { return this.#tensors.map((t) => t.name); }
  get tensors() { return this.#tensors; }
  has(name) { return this.#byName.has(name); }
  get(name) {
    const t = this.#byName.get(name);
    if (!t) throw new Error(`no tensor named '${name}' (the file has: ${this.names.slice(0, 8).join(", ")}${this.#tensors.length > 8 ? ", ..." : ""})`);
    return t;
  }
}

export function open(path) { return new TensorFile(core.open(String(path))); }

// tensors: [{name, dtype, shape, data}] (dtype defaults from the array type); metadata: a
// plain object of booleans, numbers, strings, Uint8Arrays and arrays.
export function write(path, tensors, metadata = {}) {
  const list = Array.from(tensors, (t) => ({
    name: t.name,
    dtype: t.dtype ?? dtypeOfArray(t.data),
    shape: t.shape ?? [t.data.length],
    data: t.data,
  }));
  core.write(String(path), list, metadata);
}

function dtypeOfArray(a) {
  for (const [dtype, T] of Object.entries(TYPED)) if (a instanceof T) return dtype;
  throw new TypeError("write: give a dtype for this data");
}

export default { open, write, arrayTypeOf, TensorFile };
