// Event and EventTarget: run under alknet and under node, outputs must match.
const log = [];
const target = new EventTarget();
const first = (e) => log.push(`first ${e.type} target=${e.target === target} current=${e.currentTarget === target} phase=${e.eventPhase}`);
target.addEventListener("ping", first);
target.addEventListener("ping", first);  // duplicate: ignored
target.addEventListener("ping", { handleEvent(e) { log.push(`object listener ${e.type}`); } });
target.addEventListener("ping", () => log.push("once"), { once: true });
target.addEventListener("ping", (e) => { log.push("prevent"); e.preventDefault(); });
console.log("dispatch 1 returns", target.dispatchEvent(new Event("ping", { cancelable: true })));
console.log("dispatch 2 returns", target.dispatchEvent(new Event("ping")));
target.removeEventListener("ping", first);
target.dispatchEvent(new Event("ping"));
const stopper = new EventTarget();
stopper.addEventListener("x", (e) => { log.push("a"); e.stopImmediatePropagation(); });
stopper.addEventListener("x", () => log.push("b (must not run)"));
stopper.dispatchEvent(new Event("x"));
// (Not compared: listeners added during a dispatch. The DOM Standard clones the listener list
// before invoking it, so they wait for the next dispatch, as alknet and browsers do; node
// invokes them at once.)
const custom = new CustomEvent("c", { detail: { n: 1 } });
console.log("custom", custom.detail.n, custom.type, custom instanceof Event, custom.cancelable, custom.bubbles);
const e = new Event("z");
console.log("fresh event", e.eventPhase, e.target, e.defaultPrevented, e.isTrusted, typeof e.timeStamp);
e.preventDefault();
console.log("not cancelable", e.defaultPrevented);
class Emitter extends EventTarget {}
const em = new Emitter();
em.addEventListener("hello", (ev) => log.push(`subclass ${ev.type}`));
em.dispatchEvent(new Event("hello"));
try { target.dispatchEvent({ type: "fake" }); } catch (err) { console.log("non-event", err.name); }
try { new Event(); } catch (err) { console.log("no type", err.name); }
console.log(log.join("\n"));
