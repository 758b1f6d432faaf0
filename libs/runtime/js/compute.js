// alknet:compute — device-resident tensors, every op of the op table, and SHA-256 on the GPU.
//
//   import compute, { Tensor } from "alknet:compute";
//   const a = Tensor.from(new Float32Array([1, 2, 3, 4]), [2, 2]);
//   const c = compute.matMul(a, a);                  // one method per op-table record
//   const y = compute.op("Softmax", [c], { axis: -1 });
//   console.log(await y.data());                     // download is async
//   const [digest] = await compute.sha256([bytes]);
//
// The op methods are generated when the module loads from the table itself (ops()), so a new
// record is callable with no change here: "MatMul" -> matMul, "LeakyRelu" -> leakyRelu.
const core = import.meta.native;
if (!core) {
  throw new Error("alknet:compute is not available in this host: its native core (alknet-runtime-modules) " +
                  "was not installed; run the script with `alknet run`");
}

const TYPED = {
  f32: Float32Array, f64: Float64Array, i32: Int32Array, u32: Uint32Array, i16: Int16Array,
  u16: Uint16Array, f16: Uint16Array, i8: Int8Array, u8: Uint8Array, bool: Uint8Array,
  i64: BigInt64Array, u64: BigUint64Array,
};
const DTYPE_OF = new Map([
  [Float32Array, "f32"], [Int32Array, "i32"], [Uint32Array, "u32"], [Uint8Array, "u8"],
  [Int8Array, "i8"], [Int16Array, "i16"], [Uint16Array, "u16"], [Float64Array, "f64"],
]);

const HANDLE = Symbol("alknet.compute.handle");

export class Tensor {
  #dtype;
  #shape;
  constructor(handle, key) {
    if (key !== HANDLE) throw new TypeError("use Tensor.from(typedArray, shape) to make a Tensor");
    this[HANDLE] = handle;
    const d = core.describe(handle);
    this.#dtype = d.dtype;
    this.#shape = Object.freeze(d.shape);
  }

  // Copies `data` (a typed array) to the device. `shape` defaults to [data.length]; dtype
  // follows the array type (Float32Array -> f32...) unless given.
  static from(data, shape, dtype) {
    if (!ArrayBuffer.isView(data)) throw new TypeError("Tensor.from: data must be a typed array");
    dtype ??= DTYPE_OF.get(data.constructor);
    if (!dtype) throw new TypeError(`Tensor.from: give a dtype for a ${data.constructor.name}`);
    shape ??= [data.length];
    return new Tensor(core.upload(dtype, Array.from(shape), data), HANDLE);
  }

  get dtype() { return this.#dtype; }
  get shape() { return this.#shape; }
  get size() { return this.#shape.reduce((a, b) => a * b, 1); }

  // Downloads the values into a new typed array of the dtype's type (Float32Array for f32;
  // f16/bool come back as their raw Uint16Array/Uint8Array).
  async data() {
    const buffer = core.download(this[HANDLE]);
    const T = TYPED[this.#dtype] ?? Uint8Array;
    return new T(buffer);
  }

  toString() { return `Tensor(${this.#dtype}, [${this.#shape.join(", ")}])`; }
}

function handles(inputs, name) {
  if (!Array.isArray(inputs)) throw new TypeError(`${name}: inputs must be an array of Tensors`);
  return inputs.map((t, i) => {
    if (!(t instanceof Tensor)) throw new TypeError(`${name}: inputs[${i}] is not a Tensor`);
    return t[HANDLE];
  });
}

// Any op of the table by its ONNX name: op("Conv", [x, w], { strides: [1, 1] }).
export function op(name, inputs, attributes = {}, opset = 17) {
  name = String(name);
  return new Tensor(core.run(name, handles(inputs, name), attributes, opset), HANDLE);
}

// SHA-256 of each message (Uint8Array or ArrayBuffer) on the GPU: 32-byte digests.
export async function sha256(messages) {
  const single = !Array.isArray(messages);
  const out = core.sha256(single ? [messages] : messages);
  return single ? out[0] : out;
}

export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// The op table: [{name, family, minInputs, maxInputs, opsetMin, opsetMax, summary, method}].
export const ops = Object.freeze(core.ops().map((r) => Object.freeze({ ...r, method: methodName(r.name) })));

// "MatMul" -> "matMul", "LeakyRelu" -> "leakyRelu", "PRelu" -> "pRelu", "alknet.Foo" -> skipped.
export function methodName(onnxName) {
  if (onnxName.includes(".")) return null;
  return onnxName[0].toLowerCase() + onnxName.slice(1);
}

// A future `Session` (ONNX models) goes here, built on compute's ONNX session API; it is not
// part of this module yet.

const compute = { Tensor, op, sha256, toHex, ops, methodName };
for (const r of ops) {
  if (!r.method || r.method in compute) continue;
  const name = r.name;
  // Inputs first, then an optional attributes object: compute.gemm(a, b, c, { transB: 1 }).
  compute[r.method] = (...args) => {
    let attrs = {};
    const last = args[args.length - 1];
    if (last !== null && typeof last === "object" && Object.getPrototypeOf(last) === Object.prototype) {
      attrs = args.pop();
    }
    return op(name, args, attrs);
  };
}
Object.freeze(compute);

export default compute;
