// The command line that peer_infer.mjs and alknet_js_infer.mjs share, parsed the same way:
//   --model M.onnx --input NAME=FILE.npy ... [--repeat N] [--warmup W] [--save DIR] [--json]
// `extra` maps further flags that take one value to their keys ({"--peer": "peer"}).
// `fail(code, message)` reports a bad command line and does not return.
export function parseInferArgs(argv, fail, extra = {}) {
  const args = { model: null, inputs: [], repeat: 10, warmup: 1, save: null };
  for (const key of Object.values(extra)) args[key] = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => (i + 1 < argv.length ? argv[++i] : fail(2, `${a} needs a value`));
    if (a in extra) args[extra[a]] = next();
    else if (a === "--model") args.model = next();
    else if (a === "--input") {
      const v = next();
      const eq = v.indexOf("=");
      if (eq <= 0) fail(2, `--input wants NAME=FILE.npy, got '${v}'`);
      args.inputs.push({ name: v.slice(0, eq), file: v.slice(eq + 1) });
    } else if (a === "--repeat") args.repeat = Number(next());
    else if (a === "--warmup") args.warmup = Number(next());
    else if (a === "--save") args.save = next();
    else if (a === "--json") { /* always JSON */ } else fail(2, `unknown argument ${a}`);
  }
  if (!args.model) fail(2, "--model is required");
  if (!(args.repeat >= 1) || !(args.warmup >= 0)) fail(2, "--repeat must be >= 1, --warmup >= 0");
  return args;
}

// The median of numbers sorted ascending.
export function median(sorted) {
  const n = sorted.length;
  return n % 2 ? sorted[n >> 1] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

// Runs `run` once (the first run, its outputs kept), `warmup` more times, then `repeat` timed
// times: {first, outputs, median, min} in ms of wall time around each call.
export async function timeRuns(run, warmup, repeat) {
  const timed = async () => {
    const s = performance.now();
    const out = await run();
    return [performance.now() - s, out];
  };
  const [first, outputs] = await timed();
  for (let i = 0; i < warmup; i++) await timed();
  const times = [];
  for (let i = 0; i < repeat; i++) times.push((await timed())[0]);
  times.sort((a, b) => a - b);
  return { first, outputs, median: median(times), min: times[0] };
}
