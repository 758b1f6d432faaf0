// A small reader for the parts of onnx.proto the peer harness needs: TensorProto (the
// input_N.pb / output_N.pb files of the ONNX backend tests) and, from ModelProto, the graph's
// inputs and outputs with their types. Runs unchanged in Node and Deno (no dependencies).
//
// Wire format: https://protobuf.dev/programming-guides/encoding/ ; field numbers from onnx.proto
// (ONNX 1.12). Every read is bounds-checked: a truncated or corrupt file throws with the field.

export class ProtoError extends Error {}

class Reader {
  constructor(bytes, what) {
    this.b = bytes;
    this.pos = 0;
    this.end = bytes.length;
    this.what = what;
  }
  fail(msg) {
    throw new ProtoError(`${this.what}: ${msg} at byte ${this.pos}`);
  }
  done() {
    return this.pos >= this.end;
  }
  // Varints up to 64 bits, as BigInt so that int64 values (dims, int64_data) stay exact.
  varintBig() {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail("truncated varint");
      const byte = this.b[this.pos++];
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
    this.fail("varint longer than 10 bytes");
  }
  varint() {
    const v = this.varintBig();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) this.fail(`varint ${v} too large`);
    return Number(v);
  }
  bytes(n) {
    if (n < 0 || this.pos + n > this.end) this.fail(`length ${n} runs past the end`);
    const out = this.b.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  lengthDelimited() {
    return this.bytes(this.varint());
  }
  skip(wireType) {
    switch (wireType) {
      case 0: this.varintBig(); break;
      case 1: this.bytes(8); break;
      case 2: this.lengthDelimited(); break;
      case 5: this.bytes(4); break;
      default: this.fail(`unsupported wire type ${wireType}`);
    }
  }
  // Calls fn(fieldNumber, wireType) for each field; fn returns false for fields it did not read.
  fields(fn) {
    while (!this.done()) {
      const key = this.varint();
      const field = key >>> 3;
      const wire = key & 7;
      if (field === 0) this.fail("field number 0");
      if (fn(field, wire) === false) this.skip(wire);
    }
  }
}

const text = new TextDecoder("utf-8");

// The backend tests' tensors are at most a few million elements; anything far larger is a corrupt
// dims field, refused before it turns into a huge allocation.
const MAX_ELEMENTS = 2 ** 28;

// TensorProto.DataType -> the dtype names onnxruntime's JS API uses.
export const DTYPES = {
  1: "float32", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64",
  8: "string", 9: "bool", 10: "float16", 11: "float64", 12: "uint32", 13: "uint64",
  14: "complex64", 15: "complex128", 16: "bfloat16",
};

const TYPED = {
  float32: Float32Array, uint8: Uint8Array, int8: Int8Array, uint16: Uint16Array,
  int16: Int16Array, int32: Int32Array, int64: BigInt64Array, bool: Uint8Array,
  float16: Uint16Array, float64: Float64Array, uint32: Uint32Array, uint64: BigUint64Array,
  bfloat16: Uint16Array,
};

// Reads a repeated scalar field that may be packed (wire type 2) or not.
function repeated(r, wire, readOne, out) {
  if (wire === 2) {
    const sub = new Reader(r.lengthDelimited(), r.what);
    while (!sub.done()) out.push(readOne(sub));
  } else {
    out.push(readOne(r));
  }
}
function readFloatChecked(r) {
  const b = r.bytes(4);
  return new DataView(b.buffer, b.byteOffset, 4).getFloat32(0, true);
}
function readDoubleChecked(r) {
  const b = r.bytes(8);
  return new DataView(b.buffer, b.byteOffset, 8).getFloat64(0, true);
}
const toSigned64 = (v) => BigInt.asIntN(64, v);

// Returns {name, dtype, dims: number[], data}: data is a typed array of the dtype's JS type
// (BigInt64Array for int64, Uint8Array 0/1 for bool, Uint16Array bits for float16), or an array
// of strings for string tensors.
export function decodeTensor(bytes, what = "TensorProto") {
  const r = new Reader(bytes, what);
  const dims = [];
  let dataType = 0;
  let name = "";
  let raw = null;
  const floatData = [], int32Data = [], int64Data = [], doubleData = [], uint64Data = [];
  const stringData = [];
  let external = false;
  r.fields((field, wire) => {
    switch (field) {
      case 1: repeated(r, wire, (s) => Number(toSigned64(s.varintBig())), dims); return;
      case 2: dataType = r.varint(); return;
      case 4: repeated(r, wire, readFloatChecked, floatData); return;
      case 5: repeated(r, wire, (s) => Number(BigInt.asIntN(32, s.varintBig())), int32Data); return;
      case 6: stringData.push(text.decode(r.lengthDelimited())); return;
      case 7: repeated(r, wire, (s) => toSigned64(s.varintBig()), int64Data); return;
      case 8: name = text.decode(r.lengthDelimited()); return;
      case 9: raw = r.lengthDelimited(); return;
      case 10: repeated(r, wire, readDoubleChecked, doubleData); return;
      case 11: repeated(r, wire, (s) => s.varintBig(), uint64Data); return;
      case 13: r.lengthDelimited(); external = true; return;
      default: return false;
    }
  });
  const dtype = DTYPES[dataType];
  if (!dtype) throw new ProtoError(`${what}: tensor '${name}' has unknown data_type ${dataType}`);
  if (external) throw new ProtoError(`${what}: tensor '${name}' uses external data (not supported here)`);
  for (const d of dims) {
    if (d < 0) throw new ProtoError(`${what}: tensor '${name}' has negative dim ${d}`);
  }
  const count = dims.reduce((a, b) => a * b, 1);
  if (count > MAX_ELEMENTS) {
    throw new ProtoError(`${what}: tensor '${name}' claims ${count} elements (cap ${MAX_ELEMENTS})`);
  }
  if (dtype === "string") {
    if (stringData.length !== count) {
      throw new ProtoError(`${what}: string tensor '${name}' has ${stringData.length} values for ${count} elements`);
    }
    return { name, dtype, dims, data: stringData };
  }
  if (dtype === "complex64" || dtype === "complex128") {
    throw new ProtoError(`${what}: tensor '${name}' is ${dtype} (not supported here)`);
  }
  const Typed = TYPED[dtype];
  let data;
  if (raw) {
    if (raw.length !== count * Typed.BYTES_PER_ELEMENT) {
      throw new ProtoError(`${what}: tensor '${name}' raw_data has ${raw.length} bytes, ${dtype}[${dims}] needs ${count * Typed.BYTES_PER_ELEMENT}`);
    }
    // Copy into a fresh, aligned buffer (raw_data is little-endian, as is every host we run on).
    data = new Typed(new Uint8Array(raw).buffer); // new Uint8Array(view) copies; Buffer.slice would not
  } else {
    let src;
    switch (dtype) {
      case "float32": src = floatData; break;
      case "float64": src = doubleData; break;
      case "int64": src = int64Data; break;
      case "uint32": src = uint64Data.map(Number); break;
      case "uint64": src = uint64Data; break;
      default: src = int32Data; // int8/16/32, uint8/16, bool, float16 and bfloat16 bits
    }
    if (src.length !== count) {
      throw new ProtoError(`${what}: tensor '${name}' has ${src.length} values for ${count} elements (${dtype}[${dims}])`);
    }
    data = Typed.from(src);
  }
  return { name, dtype, dims, data };
}

// TypeProto -> {kind: "tensor", dtype, shape} or {kind: "sequence"|"map"|"optional"|"sparse"}.
function decodeType(bytes, what) {
  const r = new Reader(bytes, what);
  let type = { kind: "unknown" };
  r.fields((field, wire) => {
    if (field === 1) {
      const t = new Reader(r.lengthDelimited(), what);
      let elem = 0;
      let shape = null;
      t.fields((f) => {
        if (f === 1) { elem = t.varint(); return; }
        if (f === 2) {
          shape = [];
          const s = new Reader(t.lengthDelimited(), what);
          s.fields((sf) => {
            if (sf !== 1) return false;
            const d = new Reader(s.lengthDelimited(), what);
            let dim = null;
            d.fields((df) => {
              if (df === 1) { dim = Number(toSigned64(d.varintBig())); return; }
              if (df === 2) { dim = text.decode(d.lengthDelimited()); return; }
              return false;
            });
            shape.push(dim);
          });
          return;
        }
        return false;
      });
      type = { kind: "tensor", dtype: DTYPES[elem] ?? `type${elem}`, shape };
      return;
    }
    const kinds = { 4: "sequence", 5: "map", 8: "sparse", 9: "optional" };
    if (kinds[field]) { r.lengthDelimited(); type = { kind: kinds[field] }; return; }
    return false;
  });
  return type;
}

function decodeValueInfo(bytes, what) {
  const r = new Reader(bytes, what);
  let name = "";
  let type = { kind: "unknown" };
  r.fields((field) => {
    if (field === 1) { name = text.decode(r.lengthDelimited()); return; }
    if (field === 2) { type = decodeType(r.lengthDelimited(), `${what} '${name}'`); return; }
    return false;
  });
  return { name, type };
}

// ModelProto -> {inputs, outputs, opsets, ops}: inputs excludes graph inputs that are also
// initializers (IR < 4 lists weights as inputs); ops is the set of node op_types.
export function decodeModelSignature(bytes, what = "model.onnx") {
  const r = new Reader(bytes, what);
  let graph = null;
  const opsets = [];
  r.fields((field) => {
    if (field === 7) { graph = r.lengthDelimited(); return; }
    if (field === 8) {
      const o = new Reader(r.lengthDelimited(), what);
      let domain = "", version = 0;
      o.fields((f) => {
        if (f === 1) { domain = text.decode(o.lengthDelimited()); return; }
        if (f === 2) { version = o.varint(); return; }
        return false;
      });
      opsets.push({ domain, version });
      return;
    }
    return false;
  });
  if (!graph) throw new ProtoError(`${what}: no graph`);
  const g = new Reader(graph, `${what} graph`);
  const inputs = [], outputs = [], initializers = new Set(), ops = new Set();
  g.fields((field) => {
    switch (field) {
      case 1: {
        const n = new Reader(g.lengthDelimited(), `${what} node`);
        n.fields((f) => {
          if (f === 4) { ops.add(text.decode(n.lengthDelimited())); return; }
          return false;
        });
        return;
      }
      case 5: {
        const t = new Reader(g.lengthDelimited(), `${what} initializer`);
        t.fields((f) => {
          if (f === 8) { initializers.add(text.decode(t.lengthDelimited())); return; }
          return false;
        });
        return;
      }
      case 11: inputs.push(decodeValueInfo(g.lengthDelimited(), `${what} input`)); return;
      case 12: outputs.push(decodeValueInfo(g.lengthDelimited(), `${what} output`)); return;
      default: return false;
    }
  });
  return {
    inputs: inputs.filter((i) => !initializers.has(i.name)),
    outputs,
    opsets,
    ops: [...ops],
  };
}
