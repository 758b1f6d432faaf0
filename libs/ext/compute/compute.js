// alknet:compute — device-resident tensors, every op of the op table, and SHA-256 on the GPU.
//
//   import compute, { Tensor } from "alknet:compute";
//   const a = Tensor.from(new Float32Array([1, 2, 3, 4]), [2, 2]);
//   const c = compute.matMul(a, a);                  // one method per op-table record
//   const y = compute.op("Softmax", [c], { axis: -1 });
//   console.log(await y.data());                     // download is async
//   const [digest] = await compute.sha256([bytes]);
//   const session = await compute.Session.load("model.onnx");  // ONNX models (Session below)
//   const device = compute.device;                   // the tensors' device as a GPUDevice
//   pass.setBindGroup(0, device.createBindGroup({ ..., resource: { buffer: c.gpuBuffer } }));
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
  #gpuBuffer = null;
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

  // A GPUBuffer over the tensor's storage on compute.device (no copy; usage STORAGE |
  // COPY_SRC | COPY_DST; its first size * bytes-per-element bytes are the values, row-major):
  // bind it in a render or compute pass, or copy it to a texture. It keeps the storage alive;
  // destroy() is refused.
  get gpuBuffer() {
    this.#gpuBuffer ??= core.gpuBuffer(this[HANDLE], gpuDevice());
    return this.#gpuBuffer;
  }

  toString() { return `Tensor(${this.#dtype}, [${this.#shape.join(", ")}])`; }
}

// The module's device as a GPUDevice (one per script), the device of every tensor: a script
// that renders with it reads tensors' gpuBuffer directly.
let theDevice = null;
function gpuDevice() {
  theDevice ??= core.device();
  return theDevice;
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

// The typed array each dtype is fed and returned as (one per dtype; bool is Uint8Array).
function arrayTypeOf(dtype) { return TYPED[dtype] ?? Uint8Array; }

function shapeText(shape) { return `[${shape.map((d) => d ?? "?").join(", ")}]`; }

function pathOf(path, where) {
  if (typeof path === "string") return path;
  if (path && typeof path === "object" && path.protocol === "file:") return decodeURIComponent(path.pathname);
  throw new TypeError(`${where}: the model path must be a string or a file: URL`);
}

// One feed value as the native core takes it: {name, tensor} or {name, dtype, shape, data};
// a sequence input an array of those ({name, items}), an empty optional null ({name, none}).
function feedOf(info, value) {
  const where = `Session.run: input '${info.name}'`;
  if (info.optional && (value === null || value === undefined)) return { name: info.name, none: true };
  if (info.sequence) {
    if (!Array.isArray(value)) throw new TypeError(`${where} is a sequence: give an array of tensors`);
    const element = { ...info, sequence: false, optional: false };
    return { name: info.name, dtype: info.dtype ?? undefined, items: value.map((v) => feedOf(element, v)) };
  }
  if (value instanceof Tensor) return { name: info.name, tensor: value[HANDLE], dtype: info.dtype ?? undefined };
  let data = value, shape;
  if (value !== null && typeof value === "object" && !ArrayBuffer.isView(value) && !Array.isArray(value)) {
    ({ data, shape } = value);
    if (data === undefined) throw new TypeError(`${where}: give a Tensor, a typed array or {data, shape}`);
  }
  const dtype = info.dtype;
  if (dtype === null) throw new TypeError(`${where} has ONNX type ${info.onnxType}, which alknet cannot feed`);
  const T = arrayTypeOf(dtype);
  if (Array.isArray(data)) {
    data = dtype === "i64" || dtype === "u64" ? T.from(data, (v) => BigInt(v)) : T.from(data, (v) => Number(v));
  } else if (!ArrayBuffer.isView(data)) {
    throw new TypeError(`${where}: data must be a typed array or an array of numbers`);
  } else if (data.constructor !== T) {
    throw new TypeError(`${where} is ${dtype} (ONNX ${info.onnxType}) in the model: pass a ${T.name}, ` +
                        `not a ${data.constructor.name}`);
  }
  if (shape === undefined) {
    const declared = info.shape;
    if (declared && declared.every((d) => typeof d === "number")) {
      shape = declared;
    } else if (declared && declared.length === 1) {
      shape = [data.length];
    } else {
      throw new TypeError(`${where} has shape ${declared ? shapeText(declared) : "(undeclared)"} in the model: ` +
                          "pass {data, shape} to say its dimensions");
    }
  }
  return { name: info.name, dtype, shape: Array.from(shape), data };
}

function uploadOutput(name, data, shape, dtype) {
  if (dtype === "i64" || dtype === "u64") {
    const narrow = Int32Array.from(data, (v) => {
      if (v < -2147483648n || v > 2147483647n) {
        throw new RangeError(`Session.run: output '${name}' holds ${v}, outside the device's i32 range`);
      }
      return Number(v);
    });
    return Tensor.from(narrow, shape, "i32");
  }
  if (dtype === "f64") return Tensor.from(Float32Array.from(data), shape, "f32");
  return Tensor.from(data, shape, dtype);
}

// An ONNX model on alknet:compute's device (alknet-onnx: shape inference, CPU folding of
// what is known early, fusions, a plan cached per input shapes; docs/onnx.md).
//
//   const session = await Session.load("model.onnx");      // needs --allow-read
//   session.inputs   // [{name, dtype, onnxType, shape: [1, 3, "height", null]}]
//   const { probs } = await session.run({ x: { data: pixels, shape: [1, 3, 224, 224] } });
//   probs.data       // Float32Array; probs.shape, probs.dtype
//
// Feeds are Tensors (used on the device as they are; an int64 input takes an i32 Tensor),
// typed arrays of the input's dtype (the model's declared shape) or {data, shape}; a model
// with one input also takes the value alone. `{ tensors: true }` also
// returns each output as a device Tensor (`.tensor`) to keep computing on.
export class Session {
  #handle;
  #info;
  constructor(handle, key) {
    if (key !== HANDLE) throw new TypeError("use Session.load(path) to open an ONNX model");
    this.#handle = handle;
    const info = core.onnxInfo(handle);
    const freeze = (list) => Object.freeze(list.map((v) => Object.freeze({ ...v, shape: v.shape && Object.freeze(v.shape) })));
    this.#info = { inputs: freeze(info.inputs), outputs: freeze(info.outputs), opset: info.opset,
                   opTypes: Object.freeze(info.opTypes) };
    this.lastRun = null;
  }

  // options: {planCacheSize = 8, foldLimit = 2^20 elements, fuse = true}
  static async load(path, options = {}) {
    if (typeof core.onnxLoad !== "function") {
      throw new Error("Session.load: this program was built without alknet-onnx (libs/ext/onnx is not installed)");
    }
    return new Session(core.onnxLoad(pathOf(path, "Session.load"), options), HANDLE);
  }

  get inputs() { return this.#info.inputs; }
  get outputs() { return this.#info.outputs; }
  get opset() { return this.#info.opset; }
  get opTypes() { return this.#info.opTypes; }
  // {plansBuilt, planCacheHits, nodesFolded, nodesOnDevice, fusions, initializersUploaded,
  //  ifsInlined, controlNodesRun, subgraphRuns, hostOpsRun}
  get stats() { return core.onnxStats(this.#handle); }

  // Runs the model: {outputName: {name, dtype, shape, data, tensor?}}. `lastRun` then holds
  // {planMs, runMs, planCached}.
  async run(feeds, options = {}) {
    const inputs = this.#info.inputs;
    const single = inputs.length === 1 && (feeds instanceof Tensor || ArrayBuffer.isView(feeds) ||
                                           Array.isArray(feeds) ||
                                           (typeof feeds === "object" && feeds !== null && "data" in feeds &&
                                            !(inputs[0].name in feeds)));
    if (single) feeds = { [inputs[0].name]: feeds };
    if (feeds === null || typeof feeds !== "object") {
      throw new TypeError("Session.run: feeds must be an object {inputName: value}");
    }
    const known = new Set(inputs.map((i) => i.name));
    for (const name of Object.keys(feeds)) {
      if (!known.has(name)) {
        throw new TypeError(`Session.run: the model has no input '${name}'; its inputs are ` +
                            inputs.map((i) => `'${i.name}'`).join(", "));
      }
    }
    const list = inputs.map((info) => {
      if (!(info.name in feeds) && !info.optional) throw new TypeError(`Session.run: input '${info.name}' is missing`);
      return feedOf(info, feeds[info.name]);
    });
    const result = core.onnxRun(this.#handle, list, Boolean(options.tensors));
    this.lastRun = Object.freeze({ planMs: result.planMs, runMs: result.runMs, planCached: result.planCached });
    const out = {};
    // A sequence output is an array of values, an empty optional null.
    const hostValue = (o) => {
      if (o.kind === "none") return null;
      if (o.kind === "sequence") return Object.freeze(o.items.map(hostValue));
      return Object.freeze({ name: o.name, dtype: o.dtype, shape: Object.freeze(o.shape),
                             data: new (arrayTypeOf(o.dtype))(o.buffer) });
    };
    for (const o of result.outputs) {
      if (o.kind !== undefined) {
        out[o.name] = hostValue(o);
        continue;
      }
      const value = { name: o.name, dtype: o.dtype, shape: Object.freeze(o.shape), data: new (arrayTypeOf(o.dtype))(o.buffer) };
      if (options.tensors) {
        // Outputs folded on the host have no device tensor yet: upload them, in the dtype the
        // device would hold (docs/adr/0002-onnx-dtypes.md: int64 as i32, double as f32).
        value.tensor = o.tensor !== undefined ? new Tensor(o.tensor, HANDLE) : uploadOutput(o.name, value.data, o.shape, o.dtype);
      }
      out[o.name] = Object.freeze(value);
    }
    return out;
  }

  toString() {
    return `Session(opset ${this.opset}, ${this.inputs.map((i) => `${i.name}: ${i.dtype}${shapeText(i.shape ?? [])}`).join(", ")} -> ` +
           `${this.outputs.map((o) => o.name).join(", ")})`;
  }
}

const compute = { Tensor, Session, op, sha256, toHex, ops, methodName };
Object.defineProperty(compute, "device", { get: gpuDevice, enumerable: true });
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
