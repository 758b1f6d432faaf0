// A tiny assertion helper for the WebGPU scripts: prints "ok <name>" per check, "all ok" at
// the end; the first failure throws (exit status 1, with the stack).
let count = 0;
export function check(name, condition, detail = "") {
  if (!condition) throw new Error(`check failed: ${name}${detail ? ` (${detail})` : ""}`);
  count++;
  console.log(`ok ${name}`);
}
export async function rejects(name, promise, errorName) {
  try {
    await promise;
  } catch (e) {
    check(name, e.name === errorName, `got ${e.name}: ${e.message}`);
    return;
  }
  check(name, false, "did not reject");
}
export function throws(name, fn, errorName) {
  try {
    fn();
  } catch (e) {
    check(name, e.name === errorName, `got ${e.name}: ${e.message}`);
    return;
  }
  check(name, false, "did not throw");
}
export function done() {
  if (count === 0) throw new Error("no checks ran");
  console.log("all ok");
}
export async function device() {
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) throw new Error("no adapter: WebGPU needs lavapipe or a GPU (scripts/setup)");
  return { adapter, device: await adapter.requestDevice() };
}
