// The loop every peer worker runs (in Node or Deno): read one {"dir", "model"?} per line on stdin,
// run it, write one "@@RESULT {json}" line on stdout. The parent (conformance.mjs) owns the
// timeout and restarts the worker when it hangs or dies, so a worker may simply crash.
// Other stdout lines (wonnx prints progress) are ignored by the parent.
import process from "node:process";
import readline from "node:readline";
import { HarnessUnsupported, compareTensor, loadTestCase } from "./testcase.mjs";

function emit(tag, obj) {
  process.stdout.write(`@@${tag} ${JSON.stringify(obj)}\n`);
}

// peer: {info(): Promise<object>, run(testcase, set) -> Promise<Map name -> {data, dims?, dtype?}>,
//        classify(error) -> "unsupported" | "error", restartAfter?(error) -> bool}
export async function serve(peer) {
  emit("INFO", await peer.info());
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  for await (const line of lines) {
    if (!line.trim()) continue;
    const { dir, model } = JSON.parse(line);
    const t0 = performance.now();
    let status = "pass", reason = "", restart = false;
    try {
      const tc = loadTestCase(dir, model);
      for (const set of tc.sets) {
        const got = await peer.run(tc, set);
        for (const expected of set.outputs) {
          const actual = got.get(expected.name);
          const diff = actual ? compareTensor(expected, actual) : `no output '${expected.name}'`;
          if (diff) {
            status = "fail";
            reason = diff;
            break;
          }
        }
        if (status !== "pass") break;
      }
    } catch (err) {
      const msg = String(err?.message ?? err).split("\n").slice(0, 3).join(" | ");
      status = err instanceof HarnessUnsupported ? "unsupported" : peer.classify(msg);
      reason = msg.slice(0, 400);
      restart = peer.restartAfter ? peer.restartAfter(err) : false;
    }
    emit("RESULT", { dir, status, reason, ms: Math.round(performance.now() - t0) });
    if (restart) process.exit(0);
  }
}

// Error texts that mean "this peer does not implement that op / type / attribute", as opposed
// to a crash or a wrong answer. Both peers say so in words; anything else is an error.
export function looksUnsupported(msg) {
  return /not (yet )?implemented|unimplemented|not supported|unsupported|could not find an implementation|is not a registered function\/op|no kernel/i.test(msg);
}
