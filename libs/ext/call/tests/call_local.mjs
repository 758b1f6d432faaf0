// alknet:call against the local registry (the calls `alknet calls` lists) and script calls.
import { call, list, register, SCRIPT_NAMESPACE } from "alknet:call";

let failures = 0;
const fail = (msg) => { console.error(msg); failures++; };

const names = (await list()).map((c) => c.name);
for (const n of ["compute.add", "compute.mat_mul", "crypto.sha256", "tensor.info"]) {
  if (!names.includes(n)) fail(`list() lacks ${n}`);
}
const a = Float32Array.from({ length: 12 }, (_, i) => i * 0.5 - 3);
const b = Float32Array.from({ length: 4 }, (_, i) => 10 * i + 0.25);
const sum = await call("compute.add", [{ dtype: "f32", shape: [3, 4], data: a }, { dtype: "f32", shape: [4], data: b }]);
const want = Array.from(a, (v, i) => v + b[i % 4]);
if (JSON.stringify(sum.shape) !== "[3,4]" || sum.dtype !== "f32" || sum.data.some((v, i) => Math.abs(v - want[i]) > 1e-6)) {
  fail(`compute.add: got ${JSON.stringify(sum)}`);
}
const info = await call("tensor.info", { dtype: "f32", shape: [3, 4], data: a });
if (info.dtype !== "f32" || JSON.stringify(info.shape) !== "[3,4]") fail(`tensor.info: ${JSON.stringify(info)}`);

register(`${SCRIPT_NAMESPACE}.double`, "(x: number) -> number", (x) => 2 * x);
register("script.join", "(parts: list, sep: string?) -> string", async (parts, sep = ",") => parts.join(sep));
if ((await call("script.double", 21)) !== 42) fail("script.double(21) != 42");
if ((await call("script.join", ["a", "b"], "-")) !== "a-b") fail("script.join");
if (!(await list()).some((c) => c.name === "script.double" && c.owner === "script")) fail("list() lacks script.double");

async function refused(label, fn, name, pattern) {
  try {
    await fn();
    fail(`${label}: no error`);
  } catch (e) {
    if (e.name !== name || !pattern.test(e.message)) fail(`${label}: ${e.name}: ${e.message}`);
    else console.log(`${label}: ${e.name}: ${e.message}`);
  }
}
await refused("register outside the namespace", () => register("compute.evil", "() -> null", () => null),
              "PermissionDenied", /own namespace 'script'.*belongs to component 'compute'/);
await refused("duplicate script call", () => register("script.double", "(x: number) -> number", (x) => x),
              "AlreadyExists", /script\.double/);
await refused("bad signature", () => register("script.bad", "(x: nonsense) -> int", () => 1),
              "InvalidArgument", /nonsense/);
await refused("script call, wrong type", () => call("script.double", "x"), "InvalidArgument", /script\.double.*x/);
await refused("unknown call", () => call("no_such.call"), "NotFound", /no_such\.call/);
await refused("compute.add, wrong arity", () => call("compute.add"), "InvalidArgument", /compute\.add/);
if (failures) throw new Error(`${failures} check(s) failed`);
console.log("alknet:call local ok");
