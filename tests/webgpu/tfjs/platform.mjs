// Imported before tfjs: tfjs-core picks its platform at load time from globals. Deno defines
// a Node-style `process`, which makes tfjs take its Node platform (CommonJS `require`); alknet
// defines neither that nor a DOM `window`. Both runtimes therefore hide `process` while tfjs
// loads and get the same small platform afterwards (tfjs's documented tf.setPlatform hook),
// so the two runs take identical code paths through unmodified tfjs.
export const savedProcess = globalThis.process;
try {
  globalThis.process = undefined;
} catch {
  // not writable: nothing to hide
}

export function installPlatform(tf) {
  if (savedProcess !== undefined) globalThis.process = savedProcess;
  tf.setPlatform("webgpu-corpus", {
    fetch: (path, init) => fetch(path, init),
    now: () => performance.now(),
    encode: (text, encoding) => {
      if (encoding !== "utf-8" && encoding !== "utf8") throw new Error(`unsupported encoding ${encoding}`);
      return new TextEncoder().encode(text);
    },
    decode: (bytes, encoding) => new TextDecoder(encoding).decode(bytes),
    setTimeoutCustom: (f, delay) => setTimeout(f, delay),
    isTypedArray: (a) => ArrayBuffer.isView(a) && !(a instanceof DataView),
  });
}
