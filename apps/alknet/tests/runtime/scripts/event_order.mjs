// Event-loop ordering: run under alknet and under node, outputs must match.
const log = [];
const note = (s) => log.push(s);

setTimeout(() => note("timeout 30"), 30);
setTimeout(() => note("timeout 10"), 10);
setTimeout(() => note("timeout 20"), 20);
setTimeout((a, b) => note(`timeout args ${a} ${b}`), 40, "x", 7);
const cancelled = setTimeout(() => note("cancelled (must not run)"), 15);
clearTimeout(cancelled);
// Two timers due together: the microtasks queued by the first run before the second.
setTimeout(() => {
  note("A");
  Promise.resolve().then(() => note("A micro"));
  queueMicrotask(() => note("A queueMicrotask"));
}, 50);
setTimeout(() => note("B"), 50);
// The top-level await below resumes from the interval's last tick, not after a fixed delay:
// each tick is scheduled from when the previous one ran, so on a loaded machine the third
// tick could come after any fixed delay, and the order depended on load.
let intervalDone;
const intervalFinished = new Promise((resolve) => { intervalDone = resolve; });
let ticks = 0;
const interval = setInterval(() => {
  note(`interval ${++ticks}`);
  if (ticks === 3) {
    clearInterval(interval);
    intervalDone();
  }
}, 70);
note("sync 1");
queueMicrotask(() => note("microtask 1"));
Promise.resolve().then(() => {
  note("promise 1");
  queueMicrotask(() => note("microtask from promise"));
}).then(() => note("promise 2"));
(async () => {
  note("async start");
  await null;
  note("async after await");
})();
note("sync 2");

await intervalFinished;
note("after top-level await");
setTimeout(() => {
  note("final timer");
  console.log(log.join("\n"));
}, 0);
