// alknet:compute's Session on models with If and Loop (libs/onnx/tests/control_flow, made by
// its generate.py). Feeds the inputs a JSON file gives ({name: {dtype, shape, data}}), runs
// twice (the second run must reuse the plan), prints the outputs and the session's control-flow
// counters as JSON; the test compares them with the ONNX expected outputs.
//   alknet run --allow-read=DIR control_flow.mjs MODEL.onnx INPUTS.json
import { Session } from "alknet:compute";
import { readTextFileSync } from "alknet:fs";
import { args } from "alknet:process";

const [model, inputsFile] = args;
const given = JSON.parse(readTextFileSync(inputsFile));
const feeds = {};
for (const [name, t] of Object.entries(given)) {
  const data = t.dtype === "int64" ? BigInt64Array.from(t.data, (v) => BigInt(v)) : Float32Array.from(t.data);
  feeds[name] = { data, shape: t.shape };
}
const session = await Session.load(model);
const first = await session.run(feeds);
const second = await session.run(feeds);
const outputs = {};
for (const [name, out] of Object.entries(first)) {
  const again = Array.from(second[name].data, Number);
  const data = Array.from(out.data, Number);
  outputs[name] = { shape: out.shape, data, sameOnSecondRun: again.every((v, i) => Object.is(v, data[i])) };
}
console.log(JSON.stringify({ outputs, opTypes: session.opTypes, cached: session.lastRun.planCached, stats: session.stats }));
