// .npy (NumPy format 1.0-3.0) read and write for the peer benchmark; little-endian, C order.
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
const DESCR = {
  "<f4": ["float32", Float32Array], "<f8": ["float64", Float64Array], "<i4": ["int32", Int32Array],
  "<i8": ["int64", BigInt64Array], "|u1": ["uint8", Uint8Array], "|b1": ["bool", Uint8Array],
  "<u4": ["uint32", Uint32Array], "<i2": ["int16", Int16Array], "|i1": ["int8", Int8Array],
  "<f2": ["float16", Uint16Array],
};

export function readNpy(bytes, what = ".npy") {
  const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
  if (bytes.length < 10 || magic.some((b, i) => bytes[i] !== b)) throw new Error(`${what}: not a .npy file`);
  const major = bytes[6];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLen = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const start = major === 1 ? 10 : 12;
  if (start + headerLen > bytes.length) throw new Error(`${what}: header runs past the end`);
  const header = new TextDecoder().decode(bytes.subarray(start, start + headerLen));
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const fortran = /'fortran_order':\s*True/.test(header);
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)?.[1];
  if (!descr || shapeText === undefined) throw new Error(`${what}: malformed header ${header.trim()}`);
  if (fortran) throw new Error(`${what}: Fortran order is not supported`);
  const entry = DESCR[descr];
  if (!entry) throw new Error(`${what}: dtype ${descr} is not supported`);
  const [dtype, Typed] = entry;
  const shape = shapeText.split(",").map((s) => s.trim()).filter(Boolean).map(Number);
  const count = shape.reduce((a, b) => a * b, 1);
  const body = bytes.subarray(start + headerLen);
  if (body.length !== count * Typed.BYTES_PER_ELEMENT) {
    throw new Error(`${what}: ${body.length} data bytes for ${descr}[${shape}]`);
  }
  return { dtype, shape, data: new Typed(new Uint8Array(body).buffer) };
}

export function writeNpy(data, shape) {
  const descr = { Float32Array: "<f4", Float64Array: "<f8", Int32Array: "<i4", BigInt64Array: "<i8", Uint8Array: "|u1" }[data.constructor.name] ?? "<f4";
  const typed = descr === "<f4" && !(data instanceof Float32Array) ? Float32Array.from(data) : data;
  const dims = shape.length === 1 ? `${shape[0]},` : shape.join(", ");
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  header += " ".repeat(63 - ((10 + header.length) % 64)) + "\n";
  const out = new Uint8Array(10 + header.length + typed.byteLength);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  new DataView(out.buffer).setUint16(8, header.length, true);
  out.set(new TextEncoder().encode(header), 10);
  out.set(new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength), 10 + header.length);
  return out;
}
