// Module loading: run under alknet and under node (the same resolution rules), outputs match.
import { greet, counter } from "./lib/util.mjs";
import data from "./data.json" assert { type: "json" };
import { ready } from "./lib/tla.mjs";
import esm from "esm-exports";
import { feature } from "esm-exports/feature";
import { pattern } from "esm-exports/features/one.mjs";
import scoped from "@scope/pkg";
import typed from "esm-type";

console.log(greet("modules"), counter());
console.log("json", data.name, data.values.join(","), data.nested.ok);
console.log("tla", ready);
console.log("packages", esm, feature, pattern, scoped, typed);
console.log("meta", import.meta.url.startsWith("file:///"), import.meta.url.endsWith("/modules/main.mjs"));
const again = await import("./lib/util.mjs");
console.log("dynamic", again.counter(), again.greet === greet);
const dyn = await import("./lib/dynamic.mjs");
console.log("dynamic new", dyn.value);
try {
  await import("./lib/missing.mjs");
} catch (e) {
  console.log("missing module rejects", e instanceof Error);
}
try {
  await import("esm-exports/private.mjs");
} catch (e) {
  console.log("unexported subpath rejects", e instanceof Error);
}
