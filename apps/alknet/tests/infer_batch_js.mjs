// Registry.inferBatch() over a pool from JS (infer_batch_js_test.py drives it):
//   alknet run --allow-net --allow-read=TMP --allow-write=TMP infer_batch_js.mjs POOL TOKEN MODEL INPUTS OUT STOP_AFTER
// Phase 1 stops once STOP_AFTER outputs are done (onProgress returns false); phase 2 resumes.
// A throwing onProgress rejects the batch with that error. Prints one JSON line per phase.
import { connect } from "alknet:call";
import { args } from "alknet:process";

const [pool, token, model, inputs, out, stopAfterText] = args;
const stopAfter = Number(stopAfterText);
const remote = connect(pool, { token, concurrency: 3 });

let calls = 0, sawFinal = false;
const first = await remote.inferBatch(model, inputs, {
  outDir: out, concurrency: 3,
  onProgress(p) {
    calls++;
    if (p.final) sawFinal = true;
    return p.done < stopAfter;
  },
});
if (!sawFinal || calls < 2) throw new Error(`onProgress: ${calls} calls, final ${sawFinal}`);
console.log(JSON.stringify({ phase: "stopped", ...first }));

let threw = null;
try {
  await remote.inferBatch(model, inputs, { outDir: out, onProgress() { throw new RangeError("halt"); } });
} catch (e) {
  threw = e;
}
if (!(threw instanceof RangeError) || threw.message !== "halt") throw new Error(`throw: ${threw}`);

const second = await remote.inferBatch(model, [inputs], { outDir: out, concurrency: 4 });
console.log(JSON.stringify({ phase: "resumed", ...second }));

// A bad input fails its item (named), the batch goes on.
let bad = null;
try {
  await remote.inferBatch(model, inputs, { outDir: out, concurrency: 0 });
} catch (e) {
  bad = e;
}
if (!(bad instanceof TypeError)) throw new Error(`concurrency 0: ${bad}`);
