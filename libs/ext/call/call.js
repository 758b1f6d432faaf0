// alknet:call — the call registry from JavaScript: the same calls `alknet calls` lists, local
// or (under `alknet run --remote ADDR`, or through connect()) on an `alknet serve` process.
//
//   import { call, connect, register } from "alknet:call";
//   const [digest] = await call("crypto.sha256", [bytes]);
//   const remote = connect("127.0.0.1:7000", { token });
//   await remote.call("compute.add", [a, b]);
//   register("script.double", "(x: number) -> number", (x) => 2 * x);
//
// Values: numbers, strings, booleans, null, Uint8Array (bytes), arrays, plain objects, and
// tensors as {dtype, shape, data: TypedArray} (a Float32Array etc. alone is a 1-D tensor).
const core = import.meta.native;

// Script-defined calls live under this namespace; the registry refuses any other.
export const SCRIPT_NAMESPACE = "script";
const scriptCalls = new Map();

export class Registry {
  #handle;
  constructor(handle) { this.#handle = handle; }

  // Resolves to the call's result; rejects with an Error whose name is the registry's code
  // (InvalidArgument, NotFound, PermissionDenied, Unavailable...).
  async call(name, ...args) {
    name = String(name);
    if (this.#handle === null && scriptCalls.has(name)) {
      core.checkArgs(name, args);
      return await scriptCalls.get(name)(...args);
    }
    return core.invoke(this.#handle, name, args);
  }

  // [{name, signature, owner, doc}], sorted by name (script calls last).
  async list() { return core.list(this.#handle); }

  // One onnx.run per input file (a path, folder or glob, or an array of them), at most
  // `concurrency` in flight over this registry (a pool spreads them), each output written
  // atomically to outDir/STEM.mtf; outputs already there are skipped (resume). onProgress
  // ({total, done, skipped, failed, final}) returning false stops after the calls in flight.
  // Resolves to {done, skipped, failed, stopped, failures: [{input, error}]}. The same code as
  // `alknet infer MODEL --inputs ... --out DIR` (needs --allow-read and --allow-write).
  async inferBatch(model, inputs, options = {}) {
    const specs = typeof inputs === "string" ? [inputs] : Array.from(inputs, String);
    if (options.outDir === undefined) throw new TypeError("inferBatch: options.outDir is required");
    return core.inferBatch(this.#handle, String(model), specs, String(options.outDir),
                           options.concurrency, options.onProgress);
  }
}

const local = new Registry(null);

export function call(name, ...args) { return local.call(name, ...args); }
export function list() { return local.list(); }

// A registry on an `alknet serve` process or a pool of them ("ipv4:A:P,B:P", "dns:///NAME:P";
// needs --allow-net for every worker). The token is sent as a bearer token; without one,
// $ALKNET_TOKEN is not read (pass it explicitly). concurrency: calls in flight at once (8).
export function connect(address, options = {}) {
  const token = options.token === undefined ? undefined : String(options.token);
  return new Registry(core.connect(String(address), token, options.concurrency));
}

export function register(name, signature, fn) {
  if (typeof fn !== "function") throw new TypeError("register(name, signature, fn): fn must be a function");
  name = String(name);
  core.register(name, String(signature), SCRIPT_NAMESPACE);
  scriptCalls.set(name, fn);
}

export default { call, list, connect, register, Registry, SCRIPT_NAMESPACE };
