// alknet:call's connect() against a real `alknet serve` (address and token from the test).
import { connect } from "alknet:call";
import { args } from "alknet:process";

const [address, token] = args;
const remote = connect(address, { token });
const names = (await remote.list()).map((c) => c.name);
if (!names.includes("compute.mat_mul")) throw new Error("remote list() lacks compute.mat_mul");
const a = Float32Array.from({ length: 6 }, (_, i) => i - 2.5);
const b = Float32Array.from({ length: 6 }, (_, i) => (i % 4) * 0.5);
const c = await remote.call("compute.mat_mul", [{ dtype: "f32", shape: [2, 3], data: a }, { dtype: "f32", shape: [3, 2], data: b }]);
const want = [];
for (let i = 0; i < 2; i++) for (let j = 0; j < 2; j++) {
  let s = 0;
  for (let k = 0; k < 3; k++) s += a[i * 3 + k] * b[k * 2 + j];
  want.push(s);
}
if (JSON.stringify(c.shape) !== "[2,2]" || c.data.some((v, i) => Math.abs(v - want[i]) > 1e-5)) {
  throw new Error(`remote mat_mul: ${JSON.stringify(Array.from(c.data))} want ${JSON.stringify(want)}`);
}
try {
  connect(address, { token: "wrong-token" });
  throw new Error("a wrong token was accepted");
} catch (e) {
  if (!/token|unauthenticated|Unauthenticated|permission/i.test(`${e.name} ${e.message}`)) throw e;
  console.log(`wrong token refused: ${e.name}: ${e.message}`);
}
// Tokens gRPC cannot send as a header (it used to abort the process): a clear error instead.
for (const bad of ["s\u00e9cret", "tab\there", "newline\n"]) {
  try {
    connect(address, { token: bad });
    throw new Error(`token ${JSON.stringify(bad)} was accepted`);
  } catch (e) {
    if (!/printable ASCII/.test(e.message)) throw e;
  }
}
console.log("alknet:call remote ok");
