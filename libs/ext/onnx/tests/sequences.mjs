// alknet:compute's Session on models with sequence and optional inputs and outputs
// (libs/onnx/tests/sequences, made by its generate.py). Feeds the inputs a JSON file gives
// ({name: {dtype, shape, data} | [tensor, ...] | null}), runs once and prints the outputs in
// the same form (a sequence as an array, an empty optional as null) with the declared kinds;
// the test compares them with the ONNX expected outputs.
//   alknet run --allow-read=DIR sequences.mjs MODEL.onnx INPUTS.json
import { Session } from "alknet:compute";
import { readTextFileSync } from "alknet:fs";
import { args } from "alknet:process";

const [model, inputsFile] = args;
const given = JSON.parse(readTextFileSync(inputsFile));
const tensorFeed = (t) => ({
  data: t.dtype === "int64" ? BigInt64Array.from(t.data, (v) => BigInt(v)) : Float32Array.from(t.data),
  shape: t.shape,
});
const feeds = {};
for (const [name, v] of Object.entries(given)) {
  feeds[name] = v === null ? null : Array.isArray(v) ? v.map(tensorFeed) : tensorFeed(v);
}
const session = await Session.load(model);
const result = await session.run(feeds);
const plain = (o) => o === null ? null : Array.isArray(o) ? o.map(plain)
                                                        : { shape: o.shape, data: Array.from(o.data, Number) };
const outputs = {};
for (const [name, out] of Object.entries(result)) outputs[name] = plain(out);
const kinds = session.inputs.map((i) => ({ name: i.name, sequence: i.sequence, optional: i.optional }));
console.log(JSON.stringify({ outputs, kinds }));
