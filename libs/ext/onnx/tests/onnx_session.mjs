// alknet:compute's Session on a model that alknet_modules_test.py builds (external-data
// weights, a dynamic batch, an int64 input and a host-folded int64 output). Prints what it
// computed as JSON for the test to compare with numpy; `errors` prints the messages of bad
// calls instead.
//   alknet run --allow-read=DIR onnx_session.mjs DIR/model.onnx [errors]
import { Session, Tensor } from "alknet:compute";
import { args } from "alknet:process";

const [model, mode] = args;
const session = await Session.load(model);
const x = Float32Array.from({ length: 8 }, (_, i) => (((i * 7) % 11) - 5) / 4);
const idx = new BigInt64Array([4n, 0n, 2n]);

if (mode === "errors") {
  const attempts = {
    unknownInput: () => session.run({ x: { data: x, shape: [2, 4] }, idx, nope: x }),
    missingInput: () => session.run({ x: { data: x, shape: [2, 4] } }),
    wrongArrayType: () => session.run({ x: { data: x, shape: [2, 4] }, idx: new Int32Array([4, 0, 2]) }),
    dynamicWithoutShape: () => session.run({ x, idx }),
    sizeMismatch: () => session.run({ x: { data: x, shape: [3, 4] }, idx }),
    notASession: () => new Session(1, 2),
    tensorOfWrongShape: () => session.run({ x: Tensor.from(x, [8]), idx }),
  };
  const messages = {};
  for (const [name, f] of Object.entries(attempts)) {
    try {
      await f();
      messages[name] = "no error";
    } catch (e) {
      messages[name] = `${e.name}: ${e.message}`;
    }
  }
  console.log(JSON.stringify(messages));
} else {
  const first = await session.run({ x: { data: x, shape: [2, 4] }, idx }, { tensors: true });
  // Plain arrays convert to the input's dtype; a Tensor feeds as it is (int64: an i32 Tensor).
  const second = await session.run({ x: Tensor.from(x, [2, 4]), idx: Tensor.from(new Int32Array([4, 0, 2])) });
  console.log(JSON.stringify({
    inputs: session.inputs,
    outputs: session.outputs,
    opset: session.opset,
    opTypes: session.opTypes,
    y: { dtype: first.y.dtype, shape: first.y.shape, data: Array.from(first.y.data) },
    z: { dtype: first.z.dtype, shape: first.z.shape, data: Array.from(first.z.data) },
    count: { dtype: first.count.dtype, type: first.count.data.constructor.name, data: Array.from(first.count.data, Number) },
    yTensor: { shape: first.y.tensor.shape, data: Array.from(await first.y.tensor.data()) },
    secondZ: Array.from(second.z.data),
    cached: session.lastRun.planCached,
    stats: session.stats,
  }));
}
