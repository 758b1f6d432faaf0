// URL / URLSearchParams, AbortController / AbortSignal, MessageChannel: the same output as
// node (the reference for WHATWG URL parsing and these DOM/HTML interfaces).
const cases = [
  ["https://user:pa ss@EXAMPLE.com:443/a/./b/../c d?q=1 2#frag ment"],
  ["http://example.com:8080/path?x#y"],
  ["../x/y?z", "http://h.example/a/b/c"],
  ["?only", "http://h/a/b?old#f"],
  ["#h", "http://h/a?b"],
  ["//other.host/p", "https://h/a"],
  ["/abs", "https://h/a/b"],
  ["file:///tmp/a/../b.txt"],
  ["file:///work/cts/out/"],
  ["common/internal/x.js", "file:///work/cts/out/"],
  ["mailto:someone@example.com?subject=hi"],
  ["data:text/plain,hello world"],
  ["HTTP://EX.com"],
  ["http://h/%7Efoo/é"],
  ["wss://h:443/"],
  ["foo://host/a/../b"],
];
for (const [input, base] of cases) {
  const u = new URL(input, base);
  console.log(JSON.stringify([u.href, u.origin, u.protocol, u.username, u.password, u.host, u.hostname, u.port, u.pathname, u.search, u.hash]));
}
for (const bad of ["not a url", "http://", "https://h:99999/"]) console.log(bad, URL.canParse(bad));
const u = new URL("https://h/p?a=1&b=2&a=3");
u.searchParams.append("c", "x y");
u.searchParams.set("a", "9");
u.searchParams.delete("b");
console.log(u.href, [...u.searchParams].join(";"), u.searchParams.getAll("a"), u.searchParams.has("c"));
u.hash = "top";
u.search = "?z=1";
u.pathname = "/new path";
u.port = "8443";
console.log(u.href, String(u), JSON.stringify({ u }));
const p = new URLSearchParams({ x: "1", "y z": "&=" });
p.sort();
console.log(p.toString(), new URLSearchParams("?a=b+c&d=%26").get("a"), new URLSearchParams([["k", "v"]]).toString());

const controller = new AbortController();
let fired = 0;
controller.signal.addEventListener("abort", () => ++fired);
controller.signal.onabort = () => ++fired;
console.log(controller.signal.aborted);
controller.abort("why");
controller.abort("again");
console.log(controller.signal.aborted, controller.signal.reason, fired);
try { controller.signal.throwIfAborted(); } catch (e) { console.log("threw", e); }
console.log(AbortSignal.abort().reason.name, AbortSignal.abort().aborted);
try { new AbortSignal(); } catch (e) { console.log(e.constructor.name); }

const channel = new MessageChannel();
const got = new Promise((resolve) => { channel.port2.onmessage = (e) => resolve(e.data); });
const original = { n: 1, list: [1, 2], nested: { s: "x" } };
channel.port1.postMessage(original);
const data = await got;
console.log(JSON.stringify(data), data !== original);
channel.port1.close();
channel.port2.close();
