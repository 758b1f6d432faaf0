// Web APIs, printed deterministically: run under alknet and under node, outputs must match.
const show = (label, value) => console.log(label, JSON.stringify(value));
const codeUnits = (s) => [...s].map((c) => c.codePointAt(0).toString(16)).join(" ");
// Error names only: messages and Node's extra `code` strings are not standardised.
const errorOf = (fn) => { try { fn(); return "no error"; } catch (e) { return e instanceof DOMException ? `${e.name} DOMException ${e.code}` : e.name; } };

// ---- TextEncoder ----
const enc = new TextEncoder();
console.log("encoding", enc.encoding);
for (const s of ["", "abc", "héllo wörld", "€", "😀", "a\ud800b", "\udc00", "\ud83d\ude00\ud83d", "日本語テキスト"]) {
  show("encode", [...enc.encode(s)]);
}
for (const [s, n] of [["héllo", 3], ["😀x", 3], ["😀x", 4], ["abc", 0], ["€€", 5], ["a\ud800", 10]]) {
  const buf = new Uint8Array(n);
  const r = enc.encodeInto(s, buf);
  show("encodeInto", [r.read, r.written, [...buf]]);
}
show("encode(undefined)", [...enc.encode()]);
show("encode(123)", [...enc.encode(123)]);

// ---- TextDecoder ----
const bytes = [
  [0x68, 0x69], [0xc3, 0xa9], [0xe2, 0x82, 0xac], [0xf0, 0x9f, 0x98, 0x80],
  [0xff], [0xc0, 0x80], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0x61, 0xf0, 0x9f, 0x62], [0xc3], [0x80, 0x80],
  [0xef, 0xbb, 0xbf, 0x61], [0xef, 0xbb, 0xbf], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xfe, 0xff],
];
const dec = new TextDecoder();
console.log("decoder", dec.encoding, dec.fatal, dec.ignoreBOM);
for (const b of bytes) console.log("decode", codeUnits(dec.decode(new Uint8Array(b))));
const fatal = new TextDecoder("utf-8", { fatal: true });
for (const b of bytes) console.log("fatal", errorOf(() => fatal.decode(new Uint8Array(b))));
const keepBom = new TextDecoder("utf8", { ignoreBOM: true });
console.log("ignoreBOM", codeUnits(keepBom.decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]))));
console.log("arraybuffer", dec.decode(new Uint8Array([0x61, 0x62]).buffer));
console.log("dataview", dec.decode(new DataView(new Uint8Array([0x61, 0x62, 0x63]).buffer, 1)));
console.log("undefined", JSON.stringify(dec.decode()));
// Streaming: a code point split across chunks, and the BOM only at the start of the stream.
const streamed = new TextDecoder();
const chunks = [[0xef, 0xbb], [0xbf, 0xe2], [0x82], [0xac, 0xf0, 0x9f], [0x98, 0x80, 0xef, 0xbb, 0xbf]];
let out = "";
for (const c of chunks) out += streamed.decode(new Uint8Array(c), { stream: true });
out += streamed.decode();
console.log("stream", codeUnits(out));
const truncated = new TextDecoder();
console.log("stream-end", codeUnits(truncated.decode(new Uint8Array([0x61, 0xe2]), { stream: true }) + truncated.decode()));
console.log("bad label", errorOf(() => new TextDecoder("klingon")));
console.log("bad input", errorOf(() => dec.decode("string")));

// ---- atob / btoa ----
for (const s of ["", "f", "fo", "foo", "foob", "fooba", "foobar", "\xff\xfe\x00\x01", "\u00e9t\u00e9"]) {
  console.log("btoa", btoa(s));
}
for (const s of ["", "Zg==", "Zm8=", "Zm9v", "Zg", "Zm8", " Zm 9v\n", "Zg=", "Z", "Zm9v=", "Zm9v==", "Zg==Zg==", "Z===", "ab!c", "//79AAE=", "YQ", "YR==", "\u00e9"]) {
  let r;
  try { r = codeUnits(atob(s)); } catch (e) { r = `${e.name} ${e instanceof DOMException} ${e.code}`; }
  console.log("atob", JSON.stringify(s), r);
}
console.log("btoa wide", errorOf(() => btoa("€")));
console.log("atob()", errorOf(() => atob()));
console.log("atob(undefined)", errorOf(() => atob(undefined)));
console.log("atob(null)", codeUnits(atob(null)));

// ---- structuredClone ----
const cyc = { name: "c", list: [1, 2], when: new Date(86400000), re: /ab+c/gi, map: new Map([["k", { v: 1 }]]),
  set: new Set([1, "two"]), bytes: new Uint16Array([1, 65535]), big: 12345678901234567890n, nested: { deep: [null, undefined, -0, NaN] } };
cyc.self = cyc;
const clone = structuredClone(cyc);
console.log("clone distinct", clone !== cyc, clone.self === clone, clone.map !== cyc.map);
console.log("clone values", clone.name, clone.list, clone.when.getTime(), clone.re.source, clone.re.flags,
  clone.map.get("k").v, [...clone.set], clone.bytes instanceof Uint16Array, [...clone.bytes], clone.big,
  Object.is(clone.nested.deep[2], -0), Number.isNaN(clone.nested.deep[3]), clone.nested.deep.length);
const shared = { a: 1 };
const twice = structuredClone([shared, shared]);
console.log("clone identity", twice[0] === twice[1]);
class Point { constructor() { this.x = 1; } }
const p = structuredClone(new Point());
console.log("clone class", Object.getPrototypeOf(p) === Object.prototype, p.x);
console.log("clone function", errorOf(() => structuredClone(() => 1)));
console.log("clone symbol", errorOf(() => structuredClone(Symbol("s"))));
console.log("clone nothing", errorOf(() => structuredClone()));
console.log("clone primitive", structuredClone("s"), structuredClone(5), structuredClone(null));

// ---- crypto.getRandomValues ----
const r8 = new Uint8Array(4096);
console.log("random returns its argument", crypto.getRandomValues(r8) === r8);
const counts = new Array(256).fill(0);
for (const b of r8) counts[b]++;
// 4096 bytes: every value is expected 16 times; all 256 values appear with near certainty.
console.log("random spread", counts.filter((c) => c > 0).length > 240, Math.max(...counts) < 48);
console.log("random 65536 ok", errorOf(() => crypto.getRandomValues(new Uint8Array(65536))));
console.log("random too big", errorOf(() => crypto.getRandomValues(new Uint8Array(65537))));
console.log("random float", errorOf(() => crypto.getRandomValues(new Float32Array(4))));
console.log("random bigint", errorOf(() => crypto.getRandomValues(new BigUint64Array(4))));
const uuid = crypto.randomUUID();
console.log("uuid", /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(uuid));

// ---- crypto.subtle.digest ----
const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
const big = new Uint8Array(1 << 20);
for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24;
for (const alg of ["SHA-256", "sha-1", { name: "SHA-384" }, "SHA-512"]) {
  for (const data of [new Uint8Array(0), enc.encode("abc"), big, new Uint16Array([1, 2, 3]), new DataView(big.buffer, 7, 1000)]) {
    console.log("digest", JSON.stringify(alg), hex(await crypto.subtle.digest(alg, data)));
  }
}
console.log("digest arraybuffer", hex(await crypto.subtle.digest("SHA-256", enc.encode("abc").buffer)));
try { await crypto.subtle.digest("MD5", big); } catch (e) { console.log("digest MD5", e.name); }
try { await crypto.subtle.digest("SHA-256", "text"); } catch (e) { console.log("digest string", e.name); }

// ---- performance ----
const t0 = performance.now();
let spins = 0;
while (performance.now() - t0 < 2) spins++;
const t1 = performance.now();
console.log("performance", typeof t0, t1 >= t0 + 2, t1 - t0 < 1000, Math.abs(performance.timeOrigin + t1 - Date.now()) < 1000);

// ---- DOMException ----
const de = new DOMException("msg", "NotFoundError");
console.log("DOMException", de.name, de.message, de.code, de instanceof Error);
