// The realm's bootstrap: the Web APIs scripts expect, built on the native core of
// src/spidermonkey/web_api.cpp. Evaluated once per realm; returns the hooks the engine uses.
(function (core, global) {
  "use strict";

  const defineGlobal = (name, value) =>
    Object.defineProperty(global, name, { value, writable: true, configurable: true, enumerable: false });

  // ---- DOMException (WebIDL) ----------------------------------------------------------------
  const kLegacyCodes = {
    IndexSizeError: 1, NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11,
    SyntaxError: 12, InvalidAccessError: 15, TypeMismatchError: 17, SecurityError: 18,
    NetworkError: 19, AbortError: 20, QuotaExceededError: 22, TimeoutError: 23,
    InvalidCharacterError: 5, DataCloneError: 25,
  };
  class DOMException extends Error {
    #name;
    constructor(message = "", name = "Error") {
      super(String(message));
      this.#name = String(name);
    }
    get name() { return this.#name; }
    get code() { return kLegacyCodes[this.#name] ?? 0; }
  }
  defineGlobal("DOMException", DOMException);

  // ---- inspect: console.log's rendering, after Node's util.inspect for common values ----------
  const kBreakLength = 80;
  const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

  function quote(s) {
    const q = !s.includes("'") ? "'" : !s.includes('"') ? '"' : !s.includes("`") ? "`" : "'";
    let out = "";
    for (const ch of s) {
      if (ch === q || ch === "\\") out += "\\" + ch;
      else if (ch === "\n") out += "\\n";
      else if (ch === "\t") out += "\\t";
      else if (ch === "\r") out += "\\r";
      else if (ch < " ") out += "\\x" + ch.charCodeAt(0).toString(16).padStart(2, "0").toUpperCase();
      else out += ch;
    }
    return q + out + q;
  }

  function formatStack(stack) {
    return stack.split("\n").filter((l) => l).map((line) => {
      const at = line.indexOf("@");
      const fn = at < 0 ? "" : line.slice(0, at);
      const where = at < 0 ? line : line.slice(at + 1);
      return fn ? `    at ${fn} (${where})` : `    at ${where}`;
    }).join("\n");
  }

  function formatError(e) {
    let head;
    try { head = Error.prototype.toString.call(e); } catch { head = "Error"; }
    const stack = typeof e.stack === "string" ? formatStack(e.stack) : "";
    return stack ? `${head}\n${stack}` : `[${head}]`;
  }

  const typedArrayProto = Object.getPrototypeOf(Uint8Array.prototype);
  const typedArrayTag = Object.getOwnPropertyDescriptor(typedArrayProto, Symbol.toStringTag).get;

  function constructorName(obj) {
    const proto = Object.getPrototypeOf(obj);
    if (proto === null) return null;
    const ctor = proto.constructor;
    return typeof ctor === "function" && ctor.name ? ctor.name : "Object";
  }

  function inspectValue(v, ctx, depth) {
    switch (typeof v) {
      case "string": return depth === 0 && ctx.top ? v : quote(v);
      case "number": return Object.is(v, -0) ? "-0" : String(v);
      case "bigint": return `${v}n`;
      case "boolean": case "undefined": return String(v);
      case "symbol": return v.toString();
      case "function": {
        const isClass = Function.prototype.toString.call(v).startsWith("class");
        if (isClass) return `[class ${v.name || "(anonymous)"}]`;
        return v.name ? `[Function: ${v.name}]` : "[Function (anonymous)]";
      }
    }
    if (v === null) return "null";
    if (ctx.seen.includes(v)) return "[Circular]";
    if (v instanceof Error) return formatError(v);
    if (v instanceof Date) return isNaN(v) ? "Invalid Date" : v.toISOString();
    if (v instanceof RegExp) return String(v);
    if (v instanceof Promise) {
      const state = core.promiseState(v);
      if (state === 0) return "Promise { <pending> }";
      const r = inspectValue(core.promiseResult(v), ctx, depth + 1);
      return state === 1 ? `Promise { ${r} }` : `Promise { <rejected> ${r} }`;
    }
    if (v instanceof ArrayBuffer) {
      const bytes = [...new Uint8Array(v).slice(0, 50)].map((b) => b.toString(16).padStart(2, "0"));
      const more = v.byteLength > 50 ? ` ... ${v.byteLength - 50} more bytes` : "";
      return `ArrayBuffer { [Uint8Contents]: <${bytes.join(" ")}${more}>, byteLength: ${v.byteLength} }`;
    }
    const tag = ArrayBuffer.isView(v) && !(v instanceof DataView) ? typedArrayTag.call(v) : undefined;
    const isArray = Array.isArray(v);
    const name = constructorName(v);
    if (depth > 2) {
      if (isArray) return "[Array]";
      return `[${name === null ? "Object: null prototype" : name}]`;
    }
    ctx.seen.push(v);
    const entries = [];
    let braces, prefix = "";
    const sub = (x) => inspectValue(x, ctx, depth + 1);
    if (isArray || tag) {
      braces = ["[", "]"];
      const n = v.length;
      const shown = Math.min(n, 100);
      let holes = 0;
      for (let i = 0; i < shown; i++) {
        if (!isArray || Object.prototype.hasOwnProperty.call(v, i)) {
          if (holes) entries.push(`<${holes} empty item${holes > 1 ? "s" : ""}>`), holes = 0;
          entries.push(sub(v[i]));
        } else {
          holes++;
        }
      }
      if (holes) entries.push(`<${holes} empty item${holes > 1 ? "s" : ""}>`);
      if (n > shown) entries.push(`... ${n - shown} more item${n - shown > 1 ? "s" : ""}`);
      if (tag) prefix = `${tag}(${n})`;
      else if (name !== "Array") prefix = `${name}(${n})`;
    } else if (v instanceof Map) {
      braces = ["{", "}"];
      prefix = `Map(${v.size})`;
      for (const [k, val] of v) entries.push(`${sub(k)} => ${sub(val)}`);
    } else if (v instanceof Set) {
      braces = ["{", "}"];
      prefix = `Set(${v.size})`;
      for (const val of v) entries.push(sub(val));
    } else {
      braces = ["{", "}"];
      if (name === null) prefix = "[Object: null prototype]";
      else if (name !== "Object") prefix = name;
    }
    if (!isArray && !tag) {
      for (const key of Reflect.ownKeys(v)) {
        const desc = Object.getOwnPropertyDescriptor(v, key);
        if (!desc.enumerable) continue;
        const k = typeof key === "symbol" ? `[${key.toString()}]` : identifier.test(key) ? key : quote(key);
        const val = "value" in desc ? sub(desc.value) : desc.get && desc.set ? "[Getter/Setter]" : desc.get ? "[Getter]" : "[Setter]";
        entries.push(`${k}: ${val}`);
      }
    } else {
      for (const key of Object.keys(v)) {
        if (/^\d+$/.test(key)) continue;
        entries.push(`${identifier.test(key) ? key : quote(key)}: ${sub(v[key])}`);
      }
    }
    ctx.seen.pop();
    if (entries.length === 0) {
      if (prefix && !tag && !(v instanceof Map) && !(v instanceof Set) && name !== null) return `${prefix} ${braces[0]}${braces[1]}`;
      return `${prefix ? prefix + " " : ""}${braces[0]}${braces[1]}`;
    }
    // Node's rule: one line when it fits in breakLength (80) columns, else one entry per line.
    const indent = "  ".repeat(depth);
    const start = entries.length + indent.length + braces[0].length + prefix.length + 10;
    let total = entries.length + start;
    for (const e of entries) total += e.length;
    const joined = entries.join(", ");
    if (total + entries.length <= kBreakLength && total <= kBreakLength && !joined.includes("\n")) {
      return `${prefix ? prefix + " " : ""}${braces[0]} ${joined} ${braces[1]}`;
    }
    const nl = `\n${indent}`;
    return `${prefix ? prefix + " " : ""}${braces[0]}${nl}  ${entries.join(`,${nl}  `)}${nl}${braces[1]}`;
  }

  function inspect(value, top = false) {
    return inspectValue(value, { seen: [], top }, 0);
  }

  // console.log's format string handling (%s %d %i %f %o %O %j %c %%).
  function format(args) {
    let first = 0;
    let out = "";
    if (typeof args[0] === "string" && args.length > 1 && args[0].includes("%")) {
      const fmt = args[0];
      let a = 1;
      first = 1;
      for (let i = 0; i < fmt.length; i++) {
        if (fmt[i] !== "%" || i + 1 >= fmt.length) { out += fmt[i]; continue; }
        const c = fmt[i + 1];
        if (c === "%") { out += "%"; i++; continue; }
        if (a >= args.length || !"sdifoOjc".includes(c)) { out += fmt[i]; continue; }
        const arg = args[a++];
        i++;
        switch (c) {
          case "s": out += typeof arg === "string" ? arg : typeof arg === "bigint" ? `${arg}n` : typeof arg === "symbol" ? arg.toString() : typeof arg === "object" && arg !== null ? inspect(arg) : String(arg); break;
          case "d": case "i": {
            if (typeof arg === "bigint") out += `${arg}n`;
            else if (typeof arg === "symbol") out += "NaN";
            else { const n = Number(arg); out += c === "i" ? String(Math.trunc(n)) : Object.is(n, -0) ? "-0" : String(n); }
            break;
          }
          case "f": out += typeof arg === "symbol" ? "NaN" : String(parseFloat(arg)); break;
          case "j": try { out += JSON.stringify(arg); } catch { out += "[Circular]"; } break;
          case "o": case "O": out += inspect(arg); break;
          case "c": break;
        }
      }
      first = a;
      const rest = args.slice(first).map((x) => inspect(x, true));
      return rest.length ? `${out} ${rest.join(" ")}` : out;
    }
    return args.map((x) => inspect(x, true)).join(" ");
  }

  // ---- console ---------------------------------------------------------------------------------
  let groupIndent = "";
  const write = (stream, args) => {
    let text = format(args);
    if (groupIndent) text = text.split("\n").map((l) => groupIndent + l).join("\n");
    core.print(stream, text + "\n");
  };
  const timers = new Map();
  const counts = new Map();
  const formatTime = (ms) => ms >= 1000 ? `${(ms / 1000).toFixed(3)}s` : `${ms.toFixed(3)}ms`;

  // console.table, laid out as Node 20's lib/internal/cli_table.js does (cells left-aligned).
  function renderTable(head, columns) {
    const width = (s) => [...s].length;
    const widths = head.map(width);
    const rowsCount = Math.max(...columns.map((c) => c.length));
    const rows = [];
    for (let i = 0; i < head.length; i++) {
      for (let j = 0; j < rowsCount; j++) {
        rows[j] ??= [];
        const value = rows[j][i] = Object.prototype.hasOwnProperty.call(columns[i], j) ? columns[i][j] : "";
        widths[i] = Math.max(widths[i] || 0, width(value));
      }
    }
    const row = (cells) => "│ " + cells.map((c, i) => c + " ".repeat(widths[i] - width(c))).join(" │ ") + " │";
    const divider = widths.map((w) => "─".repeat(w + 2));
    let out = `┌${divider.join("┬")}┐\n${row(head)}\n├${divider.join("┼")}┤\n`;
    for (const r of rows) out += row(r) + "\n";
    return out + `└${divider.join("┴")}┘`;
  }

  function table(data, properties) {
    if (data === null || typeof data !== "object") return write(1, [data]);
    const cell = (v) => inspect(v);
    const map = Object.create(null);
    const values = [];
    let hasPrimitives = false;
    const index = Object.keys(data);
    index.forEach((key, i) => {
      const item = data[key];
      const primitive = item === null || (typeof item !== "function" && typeof item !== "object");
      if (properties === undefined && primitive) {
        hasPrimitives = true;
        values[i] = cell(item);
      } else {
        for (const k of properties || Object.keys(item)) {
          map[k] ??= [];
          map[k][i] = (primitive && properties) || !Object.prototype.hasOwnProperty.call(item, k) ? "" : cell(item[k]);
        }
      }
    });
    const head = Object.keys(map);
    const columns = Object.values(map);
    if (hasPrimitives) { head.push("Values"); columns.push(values); }
    head.unshift("(index)");
    columns.unshift(index);
    core.print(1, renderTable(head, columns) + "\n");
  }

  const console = {
    log: (...a) => write(1, a),
    info: (...a) => write(1, a),
    debug: (...a) => write(1, a),
    error: (...a) => write(2, a),
    warn: (...a) => write(2, a),
    trace: (...a) => write(2, [`Trace: ${format(a)}\n${formatStack(new Error().stack.split("\n").slice(1).join("\n"))}`]),
    dir: (v) => write(1, [inspect(v)]),
    assert: (cond, ...a) => { if (!cond) write(2, a.length ? ["Assertion failed:", ...a] : ["Assertion failed"]); },
    table,
    time: (label = "default") => {
      label = String(label);
      if (timers.has(label)) return write(2, [`Warning: Label '${label}' already exists for console.time()`]);
      timers.set(label, core.now());
    },
    timeLog: (label = "default", ...a) => {
      label = String(label);
      if (!timers.has(label)) return write(2, [`Warning: No such label '${label}' for console.timeLog()`]);
      write(1, [`${label}: ${formatTime(core.now() - timers.get(label))}`, ...a]);
    },
    timeEnd: (label = "default") => {
      label = String(label);
      if (!timers.has(label)) return write(2, [`Warning: No such label '${label}' for console.timeEnd()`]);
      write(1, [`${label}: ${formatTime(core.now() - timers.get(label))}`]);
      timers.delete(label);
    },
    count: (label = "default") => {
      label = String(label);
      counts.set(label, (counts.get(label) ?? 0) + 1);
      write(1, [`${label}: ${counts.get(label)}`]);
    },
    countReset: (label = "default") => { counts.delete(String(label)); },
    group: (...a) => { if (a.length) write(1, a); groupIndent += "  "; },
    groupEnd: () => { groupIndent = groupIndent.slice(2); },
  };
  defineGlobal("console", console);


  // ---- Event / EventTarget (DOM Standard, without the tree: no capture/bubble path) ----------
  // Listener lists live in a WeakMap, not private fields, so native classes (GPUDevice) can
  // inherit EventTarget.prototype without having been built by its constructor.
  const listenersOf = new WeakMap();
  const eventState = new WeakMap();
  class Event {
    constructor(type, init = {}) {
      if (arguments.length === 0) throw new TypeError("Event: 1 argument required, but only 0 present");
      eventState.set(this, {
        type: String(type), bubbles: Boolean(init?.bubbles), cancelable: Boolean(init?.cancelable),
        composed: Boolean(init?.composed), defaultPrevented: false, stop: false, stopImmediate: false,
        target: null, currentTarget: null, phase: 0, timeStamp: core.now(),
      });
    }
    get type() { return eventState.get(this).type; }
    get bubbles() { return eventState.get(this).bubbles; }
    get cancelable() { return eventState.get(this).cancelable; }
    get composed() { return eventState.get(this).composed; }
    get defaultPrevented() { return eventState.get(this).defaultPrevented; }
    get target() { return eventState.get(this).target; }
    get currentTarget() { return eventState.get(this).currentTarget; }
    get eventPhase() { return eventState.get(this).phase; }
    get timeStamp() { return eventState.get(this).timeStamp; }
    get isTrusted() { return false; }
    preventDefault() { const s = eventState.get(this); if (s.cancelable) s.defaultPrevented = true; }
    stopPropagation() { eventState.get(this).stop = true; }
    stopImmediatePropagation() { const s = eventState.get(this); s.stop = s.stopImmediate = true; }
    composedPath() { const t = eventState.get(this).currentTarget; return t ? [t] : []; }
  }
  Object.assign(Event, { NONE: 0, CAPTURING_PHASE: 1, AT_TARGET: 2, BUBBLING_PHASE: 3 });
  class CustomEvent extends Event {
    #detail;
    constructor(type, init = {}) { super(type, init); this.#detail = init?.detail ?? null; }
    get detail() { return this.#detail; }
  }
  const flattenCapture = (options) => typeof options === "boolean" ? options : Boolean(options?.capture);
  class EventTarget {
    addEventListener(type, callback, options = {}) {
      if (callback === null || callback === undefined) return;
      if (typeof callback !== "function" && typeof callback !== "object") {
        throw new TypeError("EventTarget.addEventListener: the listener must be a function or an object");
      }
      const capture = flattenCapture(options);
      const once = typeof options === "object" && Boolean(options?.once);
      const signal = typeof options === "object" ? options?.signal : undefined;
      if (signal?.aborted) return;
      let map = listenersOf.get(this);
      if (!map) listenersOf.set(this, map = new Map());
      const list = map.get(String(type)) ?? [];
      map.set(String(type), list);
      if (list.some((l) => l.callback === callback && l.capture === capture)) return;
      const entry = { callback, capture, once, removed: false };
      list.push(entry);
      signal?.addEventListener?.("abort", () => this.removeEventListener(type, callback, options));
    }
    removeEventListener(type, callback, options = {}) {
      const list = listenersOf.get(this)?.get(String(type));
      if (!list) return;
      const capture = flattenCapture(options);
      const i = list.findIndex((l) => l.callback === callback && l.capture === capture);
      if (i >= 0) { list[i].removed = true; list.splice(i, 1); }
    }
    dispatchEvent(event) {
      if (!(event instanceof Event)) throw new TypeError("EventTarget.dispatchEvent: the argument must be an Event");
      const s = eventState.get(event);
      if (s.phase !== 0) throw new DOMException("The event is already being dispatched", "InvalidStateError");
      s.target = s.currentTarget = this;
      s.phase = 2;
      s.stop = s.stopImmediate = false;
      const list = [...(listenersOf.get(this)?.get(s.type) ?? [])];
      for (const l of list) {
        if (l.removed) continue;
        if (l.once) this.removeEventListener(s.type, l.callback, { capture: l.capture });
        try {
          if (typeof l.callback === "function") l.callback.call(this, event);
          else if (typeof l.callback?.handleEvent === "function") l.callback.handleEvent(event);
        } catch (e) {
          // As in browsers, a throwing listener does not stop the dispatch; the error is
          // reported as uncaught (here: it ends the script, as in Deno).
          queueMicrotask(() => { throw e; });
        }
        if (s.stopImmediate) break;
      }
      s.phase = 0;
      s.currentTarget = null;
      return !s.defaultPrevented;
    }
  }
  const listenerCount = (target, type) => listenersOf.get(target)?.get(type)?.length ?? 0;
  defineGlobal("Event", Event);
  defineGlobal("CustomEvent", CustomEvent);
  defineGlobal("EventTarget", EventTarget);

  // globalThis is an EventTarget (as in browsers and Deno): 'unhandledrejection' and
  // 'rejectionhandled' are fired on it.
  {
    const globalTarget = new EventTarget();
    for (const name of ["addEventListener", "removeEventListener", "dispatchEvent"]) {
      const method = EventTarget.prototype[name];
      defineGlobal(name, { [name](...args) { return method.apply(globalTarget, args); } }[name]);
    }
    var dispatchOnGlobal = (event) => globalTarget.dispatchEvent(event);
  }
  const rejectionState = new WeakMap();
  class PromiseRejectionEvent extends Event {
    constructor(type, init) {
      super(type, init);
      if (init === null || typeof init !== "object" || !("promise" in init)) {
        throw new TypeError("PromiseRejectionEvent: init.promise is required");
      }
      rejectionState.set(this, { promise: init.promise, reason: init.reason });
    }
    get promise() { return rejectionState.get(this).promise; }
    get reason() { return rejectionState.get(this).reason; }
  }
  defineGlobal("PromiseRejectionEvent", PromiseRejectionEvent);
  // Promises 'unhandledrejection' was fired for (HTML's outstanding rejected promises).
  const reportedRejections = new WeakSet();

  // ---- timers and microtasks (HTML: timers; the loop is src/event_loop.cpp) -------------------
  const timerCallbacks = new Map();
  core.setTimerHandler((id) => {
    const t = timerCallbacks.get(id);
    if (t === undefined) return;
    if (!t.repeat) timerCallbacks.delete(id);
    t.fn.apply(undefined, t.args);
  });
  function armTimer(fn, delay, args, repeat, api) {
    if (typeof fn !== "function") {
      throw new TypeError(`${api}: the callback must be a function (got ${inspect(fn)})`);
    }
    const id = core.setTimer(Number(delay) || 0, repeat);
    timerCallbacks.set(id, { fn, args, repeat });
    return id;
  }
  function clearTimer(id) {
    if (typeof id !== "number") return;
    timerCallbacks.delete(id);
    core.clearTimer(id);
  }
  defineGlobal("setTimeout", (fn, delay = 0, ...args) => armTimer(fn, delay, args, false, "setTimeout"));
  defineGlobal("setInterval", (fn, delay = 0, ...args) => armTimer(fn, delay, args, true, "setInterval"));
  defineGlobal("clearTimeout", clearTimer);
  defineGlobal("clearInterval", clearTimer);
  defineGlobal("queueMicrotask", (fn) => {
    if (typeof fn !== "function") {
      throw new TypeError(`queueMicrotask: the callback must be a function (got ${inspect(fn)})`);
    }
    core.enqueueJob(() => fn());
  });

  // ---- performance (High Resolution Time) ------------------------------------------------------
  const timeOrigin = core.timeOrigin();
  defineGlobal("performance", Object.freeze({
    now: () => core.now(),
    get timeOrigin() { return timeOrigin; },
    toJSON: () => ({ timeOrigin }),
  }));

  // ---- Encoding Standard -------------------------------------------------------------------------
  function toBytes(input, api) {
    if (input === undefined) return new Uint8Array(0);
    if (input instanceof ArrayBuffer) return new Uint8Array(input);
    if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    if (typeof SharedArrayBuffer !== "undefined" && input instanceof SharedArrayBuffer) return new Uint8Array(input);
    throw new TypeError(`${api}: the input must be an ArrayBuffer or an ArrayBufferView`);
  }

  class TextEncoder {
    get encoding() { return "utf-8"; }
    encode(input = "") { return core.encodeUtf8(String(input)); }
    encodeInto(source, destination) {
      if (!(destination instanceof Uint8Array)) {
        throw new TypeError("TextEncoder.encodeInto: the destination must be a Uint8Array");
      }
      const [read, written] = core.encodeUtf8Into(String(source), destination);
      return { read, written };
    }
  }
  const kUtf8Labels = ["unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"];
  class TextDecoder {
    #fatal; #ignoreBOM; #pending = null; #bomSeen = false;
    constructor(label = "utf-8", options = {}) {
      const name = String(label).trim().toLowerCase();
      if (!kUtf8Labels.includes(name)) {
        throw new RangeError(`TextDecoder: the "${label}" encoding is not supported (alknet decodes utf-8 only)`);
      }
      this.#fatal = Boolean(options?.fatal);
      this.#ignoreBOM = Boolean(options?.ignoreBOM);
    }
    get encoding() { return "utf-8"; }
    get fatal() { return this.#fatal; }
    get ignoreBOM() { return this.#ignoreBOM; }
    decode(input = undefined, options = {}) {
      const stream = Boolean(options?.stream);
      let bytes = toBytes(input, "TextDecoder.decode");
      if (this.#pending) {
        const joined = new Uint8Array(this.#pending.length + bytes.length);
        joined.set(this.#pending);
        joined.set(bytes, this.#pending.length);
        bytes = joined;
        this.#pending = null;
      }
      let text, consumed;
      try {
        [text, consumed] = core.decodeUtf8(bytes, this.#fatal, stream);
      } catch (e) {
        this.#bomSeen = false;
        throw e;
      }
      if (stream && consumed < bytes.length) this.#pending = bytes.slice(consumed);
      if (!this.#ignoreBOM && !this.#bomSeen && text.length > 0) {
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        this.#bomSeen = true;
      }
      if (!stream) this.#bomSeen = false;
      return text;
    }
  }
  defineGlobal("TextEncoder", TextEncoder);
  defineGlobal("TextDecoder", TextDecoder);

  // ---- atob / btoa (HTML, forgiving-base64) ------------------------------------------------------
  const kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const kDecode = new Int16Array(128).fill(-1);
  for (let i = 0; i < 64; i++) kDecode[kAlphabet.charCodeAt(i)] = i;
  defineGlobal("btoa", function btoa(data) {
    if (arguments.length === 0) throw new TypeError("btoa: 1 argument required, but only 0 present");
    const s = String(data);
    let out = "";
    for (let i = 0; i < s.length; i += 3) {
      const a = s.charCodeAt(i), b = s.charCodeAt(i + 1), c = s.charCodeAt(i + 2);
      if (a > 255 || b > 255 || c > 255) throw new DOMException("Invalid character", "InvalidCharacterError");
      out += kAlphabet[a >> 2] + kAlphabet[((a & 3) << 4) | (i + 1 < s.length ? b >> 4 : 0)];
      out += i + 1 < s.length ? kAlphabet[((b & 15) << 2) | (i + 2 < s.length ? c >> 6 : 0)] : "=";
      out += i + 2 < s.length ? kAlphabet[c & 63] : "=";
    }
    return out;
  });
  defineGlobal("atob", function atob(data) {
    if (arguments.length === 0) throw new TypeError("atob: 1 argument required, but only 0 present");
    let s = String(data).replace(/[\t\n\f\r ]/g, "");
    if (s.length % 4 === 0) s = s.replace(/==?$/, "");
    if (s.length % 4 === 1) {
      throw new DOMException("The string to be decoded is not correctly encoded.", "InvalidCharacterError");
    }
    let out = "", buffer = 0, bits = 0;
    for (let i = 0; i < s.length; i++) {
      const code = s.charCodeAt(i);
      const v = code < 128 ? kDecode[code] : -1;
      if (v < 0) throw new DOMException("Invalid character", "InvalidCharacterError");
      buffer = (buffer << 6) | v;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out += String.fromCharCode((buffer >> bits) & 255);
      }
    }
    return out;
  });

  // ---- structuredClone (HTML) --------------------------------------------------------------------
  // ArrayBuffers handed out by GPUBuffer.getMappedRange (WebGPU: not transferable).
  const mappedRanges = new WeakSet();
  // HTML StructuredSerializeWithTransfer, for ArrayBuffers: the clone is made first, then the
  // transferred buffers are detached on the sending side.
  function cloneWithTransfer(value, transfer, api) {
    const list = transfer === undefined ? [] : [...transfer];
    const seen = new Set();
    for (const t of list) {
      if (!(t instanceof ArrayBuffer)) throw new DOMException(`${api}: only ArrayBuffers can be transferred here`, "DataCloneError");
      if (seen.has(t)) throw new DOMException(`${api}: an ArrayBuffer is listed twice in the transfer list`, "DataCloneError");
      seen.add(t);
      if (mappedRanges.has(t) && !core.isDetachedArrayBuffer(t)) {
        throw new TypeError(`${api}: an ArrayBuffer from GPUBuffer.getMappedRange cannot be transferred`);
      }
      if (core.isDetachedArrayBuffer(t)) throw new DOMException(`${api}: a detached ArrayBuffer cannot be transferred`, "DataCloneError");
    }
    let out;
    try {
      out = core.structuredClone(value);
    } catch (e) {
      if (e instanceof DOMException) throw e;
      throw new DOMException(`${inspect(value)} could not be cloned: ${e.message}`, "DataCloneError");
    }
    for (const t of list) core.detachArrayBuffer(t);
    return out;
  }
  defineGlobal("structuredClone", function structuredClone(value, options = undefined) {
    if (arguments.length === 0) throw new TypeError("structuredClone: 1 argument required, but only 0 present");
    return cloneWithTransfer(value, options?.transfer, "structuredClone");
  });

  // ---- URL, URLSearchParams (WHATWG URL, without IDNA: hosts are ASCII-lowercased) ----------
  const kSpecialPorts = { "ftp:": "21", "file:": "", "http:": "80", "https:": "443", "ws:": "80", "wss:": "443" };
  const isSpecial = (scheme) => Object.prototype.hasOwnProperty.call(kSpecialPorts, scheme);
  const utf8 = new TextEncoder();
  // Percent-encodes every code point outside the printable ASCII range and those in `set`.
  function percentEncode(input, set, keepSpace = false) {
    let out = "";
    for (const ch of input) {
      const c = ch.codePointAt(0);
      if ((c > 0x20 || (keepSpace && c === 0x20)) && c < 0x7f && !set.includes(ch)) { out += ch; continue; }
      for (const b of utf8.encode(ch)) out += "%" + b.toString(16).toUpperCase().padStart(2, "0");
    }
    return out;
  }
  const kFragmentSet = " \"<>`";
  const kQuerySet = " \"#<>";
  const kSpecialQuerySet = " \"#<>'";
  const kPathSet = " \"#<>?`{}";
  const kUserinfoSet = " \"#<>?`{}/:;=@[\\]^|";
  function parseUrl(input, base) {
    input = String(input).replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, "").replace(/[\t\n\r]/g, "");
    const m = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s.exec(input);
    const u = { scheme: "", username: "", password: "", host: null, port: "", path: [], opaque: null, query: null, fragment: null };
    let rest;
    if (m) {
      u.scheme = m[1].toLowerCase() + ":";
      rest = m[2];
      if (isSpecial(u.scheme) && base && base.scheme === u.scheme && !/^[/\\]/.test(rest)) {
        return relative(u, rest, base);
      }
    } else {
      if (!base) throw new TypeError(`Invalid URL: '${input}'`);
      u.scheme = base.scheme;
      if (base.opaque !== null) {
        if (!input.startsWith("#")) throw new TypeError(`Invalid URL: '${input}'`);
        Object.assign(u, base, { fragment: null });
        return withFragment(u, input.slice(1));
      }
      return relative(u, input, base);
    }
    const special = isSpecial(u.scheme);
    if (u.scheme === "file:") {
      if (/^[/\\]{2}/.test(rest)) return authority(u, rest.slice(2));
      u.host = "";
      return pathQueryFragment(u, rest);
    }
    if (special) return authority(u, rest.replace(/^[/\\]*/, ""));
    if (rest.startsWith("//")) return authority(u, rest.slice(2));
    if (rest.startsWith("/")) return pathQueryFragment(u, rest);
    // Opaque path (mailto:, data:, ...).
    const [beforeHash, ...h] = rest.split("#");
    const [opaque, ...q] = beforeHash.split("?");
    u.opaque = percentEncode(opaque, "", true);
    if (q.length) u.query = percentEncode(q.join("?"), kQuerySet);
    if (h.length) u.fragment = percentEncode(h.join("#"), kFragmentSet);
    return u;
  }
  function withFragment(u, f) { u.fragment = percentEncode(f, kFragmentSet); return u; }
  function relative(u, rest, base) {
    const special = isSpecial(u.scheme);
    if ((special ? /^[/\\]{2}/ : /^\/\//).test(rest)) return authority(u, rest.replace(special ? /^[/\\]+/ : /^\/\//, ""));
    Object.assign(u, { username: base.username, password: base.password, host: base.host, port: base.port });
    if (rest === "") { u.path = [...base.path]; u.query = base.query; return u; }
    if (/^[/\\]/.test(rest) && (special || rest[0] === "/")) return pathQueryFragment(u, rest);
    if (rest.startsWith("?")) { u.path = [...base.path]; return pathQueryFragment(u, rest, true); }
    if (rest.startsWith("#")) { u.path = [...base.path]; u.query = base.query; return withFragment(u, rest.slice(1)); }
    u.path = base.path.slice(0, -1);
    return pathQueryFragment(u, rest, false, true);
  }
  function authority(u, rest) {
    const special = isSpecial(u.scheme);
    const end = rest.search(special ? /[/\\?#]/ : /[/?#]/);
    let auth = end < 0 ? rest : rest.slice(0, end);
    rest = end < 0 ? "" : rest.slice(end);
    const at = auth.lastIndexOf("@");
    if (at >= 0) {
      const info = auth.slice(0, at);
      auth = auth.slice(at + 1);
      const colon = info.indexOf(":");
      u.username = percentEncode(colon < 0 ? info : info.slice(0, colon), kUserinfoSet);
      u.password = colon < 0 ? "" : percentEncode(info.slice(colon + 1), kUserinfoSet);
    }
    const pm = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(auth);
    if (!pm) throw new TypeError(`Invalid URL: bad host '${auth}'`);
    let host = pm[1];
    if (special) {
      host = decodeURIComponentSafe(host).toLowerCase();
      if (host === "" && u.scheme !== "file:") throw new TypeError("Invalid URL: empty host");
      if (/[\u0000\t\n\r #/:<>?@[\\\]^|%]/.test(host.replace(/^\[.*\]$/, ""))) throw new TypeError(`Invalid URL: bad host '${host}'`);
      if (u.scheme === "file:" && host === "localhost") host = "";
    } else {
      host = percentEncode(host, "");
    }
    u.host = host;
    if (pm[2] !== undefined && pm[2] !== "") {
      const port = Number(pm[2]);
      if (port > 65535) throw new TypeError(`Invalid URL: port ${pm[2]} out of range`);
      u.port = String(port) === kSpecialPorts[u.scheme] ? "" : String(port);
    }
    return pathQueryFragment(u, rest);
  }
  function decodeURIComponentSafe(s) { try { return decodeURIComponent(s); } catch { return s; } }
  function pathQueryFragment(u, rest, queryOnly = false, keepBase = false) {
    const special = isSpecial(u.scheme);
    let fragment = null, query = null;
    const h = rest.indexOf("#");
    if (h >= 0) { fragment = rest.slice(h + 1); rest = rest.slice(0, h); }
    const q = rest.indexOf("?");
    if (q >= 0) { query = rest.slice(q + 1); rest = rest.slice(0, q); }
    if (!queryOnly) {
      const segments = rest.split(special ? /[/\\]/ : /\//);
      if (!keepBase && segments[0] === "") segments.shift();
      if (keepBase && segments[0] === "" && rest.length && /^[/\\]/.test(rest)) segments.shift();
      const path = keepBase ? u.path : [];
      for (let i = 0; i < segments.length; i++) {
        const seg = segments[i];
        const lower = seg.toLowerCase();
        const last = i === segments.length - 1;
        if (lower === ".." || lower === ".%2e" || lower === "%2e." || lower === "%2e%2e") {
          path.pop();
          if (last) path.push("");
        } else if (lower === "." || lower === "%2e") {
          if (last) path.push("");
        } else {
          path.push(percentEncode(seg, kPathSet));
        }
      }
      u.path = path;
    }
    if (query !== null) u.query = percentEncode(query, special ? kSpecialQuerySet : kQuerySet);
    else if (!queryOnly) u.query = null;
    if (fragment !== null) u.fragment = percentEncode(fragment, kFragmentSet);
    return u;
  }
  function serialize(u, excludeFragment = false) {
    let out = u.scheme;
    if (u.host !== null) {
      out += "//";
      if (u.username || u.password) out += u.username + (u.password ? ":" + u.password : "") + "@";
      out += u.host + (u.port ? ":" + u.port : "");
    }
    out += u.opaque !== null ? u.opaque : (u.host === null && u.path.length > 1 && u.path[0] === "" ? "/." : "") + (u.path.length || u.host !== null ? "/" + u.path.join("/") : "");
    if (u.query !== null) out += "?" + u.query;
    if (!excludeFragment && u.fragment !== null) out += "#" + u.fragment;
    return out;
  }
  const urlRecord = new WeakMap();
  const paramsState = new WeakMap();
  const formEncode = (s) => percentEncode(String(s), " !\"#$%&'()+,/:;<=>?@[\\]^`{|}~").replace(/%20/g, "+");
  const formDecode = (s) => decodeURIComponentSafe(s.replace(/\+/g, " "));
  class URLSearchParams {
    constructor(init = "") {
      const list = [];
      paramsState.set(this, { list, url: null });
      if (typeof init === "object" && init !== null) {
        if (typeof init[Symbol.iterator] === "function") {
          for (const pair of init) {
            const p = [...pair];
            if (p.length !== 2) throw new TypeError("URLSearchParams: each pair must have two elements");
            list.push([String(p[0]), String(p[1])]);
          }
        } else {
          for (const key of Object.keys(init)) list.push([key, String(init[key])]);
        }
      } else {
        let text = String(init);
        if (text.startsWith("?")) text = text.slice(1);
        parseParams(text, list);
      }
    }
    get size() { return paramsState.get(this).list.length; }
    append(name, value) { paramsState.get(this).list.push([String(name), String(value)]); updateUrl(this); }
    delete(name, value = undefined) {
      const st = paramsState.get(this);
      st.list = st.list.filter(([k, v]) => !(k === String(name) && (value === undefined || v === String(value))));
      updateUrl(this);
    }
    get(name) { const e = paramsState.get(this).list.find(([k]) => k === String(name)); return e ? e[1] : null; }
    getAll(name) { return paramsState.get(this).list.filter(([k]) => k === String(name)).map(([, v]) => v); }
    has(name, value = undefined) { return paramsState.get(this).list.some(([k, v]) => k === String(name) && (value === undefined || v === String(value))); }
    set(name, value) {
      const st = paramsState.get(this);
      name = String(name);
      const i = st.list.findIndex(([k]) => k === name);
      if (i < 0) st.list.push([name, String(value)]);
      else {
        st.list[i][1] = String(value);
        st.list = st.list.filter(([k], j) => j <= i || k !== name);
      }
      updateUrl(this);
    }
    sort() {
      const st = paramsState.get(this);
      st.list = st.list.map((e, i) => [e, i]).sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1])).map(([e]) => e);
      updateUrl(this);
    }
    forEach(callback, thisArg = undefined) { for (const [k, v] of paramsState.get(this).list) callback.call(thisArg, v, k, this); }
    *entries() { for (const [k, v] of paramsState.get(this).list) yield [k, v]; }
    *keys() { for (const [k] of paramsState.get(this).list) yield k; }
    *values() { for (const [, v] of paramsState.get(this).list) yield v; }
    [Symbol.iterator]() { return this.entries(); }
    toString() { return paramsState.get(this).list.map(([k, v]) => formEncode(k) + "=" + formEncode(v)).join("&"); }
  }
  function parseParams(text, list) {
    list.length = 0;
    for (const part of text.split("&")) {
      if (part === "") continue;
      const eq = part.indexOf("=");
      list.push(eq < 0 ? [formDecode(part), ""] : [formDecode(part.slice(0, eq)), formDecode(part.slice(eq + 1))]);
    }
  }
  function updateUrl(params) {
    const st = paramsState.get(params);
    if (!st.url) return;
    const u = urlRecord.get(st.url);
    const q = params.toString();
    u.query = q === "" ? null : q;
  }
  class URL {
    constructor(url, base = undefined) {
      const b = base === undefined ? null : parseUrl(base instanceof URL ? base.href : base, null);
      urlRecord.set(this, parseUrl(url instanceof URL ? url.href : url, b));
    }
    static canParse(url, base = undefined) { try { new URL(url, base); return true; } catch { return false; } }
    static parse(url, base = undefined) { try { return new URL(url, base); } catch { return null; } }
    get href() { return serialize(urlRecord.get(this)); }
    set href(v) { urlRecord.set(this, parseUrl(v, null)); const sp = paramsState.get(this.#params ?? {}); if (sp) parseParams(urlRecord.get(this).query ?? "", sp.list); }
    get origin() {
      const u = urlRecord.get(this);
      if (u.scheme === "blob:") { try { return new URL(u.opaque).origin; } catch { return "null"; } }
      if (!isSpecial(u.scheme) || u.scheme === "file:") return "null";
      return u.scheme + "//" + u.host + (u.port ? ":" + u.port : "");
    }
    get protocol() { return urlRecord.get(this).scheme; }
    set protocol(v) {
      const scheme = String(v).replace(/:.*$/s, "").toLowerCase() + ":";
      const u = urlRecord.get(this);
      if (!/^[a-z][a-z0-9+.-]*:$/.test(scheme) || isSpecial(scheme) !== isSpecial(u.scheme)) return;
      u.scheme = scheme;
      if (u.port === kSpecialPorts[scheme]) u.port = "";
    }
    get username() { return urlRecord.get(this).username; }
    set username(v) { const u = urlRecord.get(this); if (u.host) u.username = percentEncode(String(v), kUserinfoSet); }
    get password() { return urlRecord.get(this).password; }
    set password(v) { const u = urlRecord.get(this); if (u.host) u.password = percentEncode(String(v), kUserinfoSet); }
    get host() { const u = urlRecord.get(this); return u.host === null ? "" : u.host + (u.port ? ":" + u.port : ""); }
    set host(v) { const u = urlRecord.get(this); if (u.opaque !== null) return; try { const p = parseUrl(u.scheme + "//" + String(v), null); u.host = p.host; u.port = p.port; } catch {} }
    get hostname() { const u = urlRecord.get(this); return u.host ?? ""; }
    set hostname(v) { const u = urlRecord.get(this); if (u.opaque !== null) return; try { u.host = parseUrl(u.scheme + "//" + String(v).replace(/:.*$/s, ""), null).host; } catch {} }
    get port() { return urlRecord.get(this).port; }
    set port(v) {
      const u = urlRecord.get(this);
      if (u.host === null || u.host === "" || u.scheme === "file:") return;
      const digits = /^\d*/.exec(String(v))[0];
      if (digits === "") { if (String(v) === "") u.port = ""; return; }
      if (Number(digits) > 65535) return;
      u.port = String(Number(digits)) === kSpecialPorts[u.scheme] ? "" : String(Number(digits));
    }
    get pathname() { const u = urlRecord.get(this); return u.opaque !== null ? u.opaque : u.path.length || u.host !== null ? "/" + u.path.join("/") : ""; }
    set pathname(v) { const u = urlRecord.get(this); if (u.opaque !== null) return; const q = u.query, f = u.fragment; pathQueryFragment(u, String(v).replace(/[?#]/g, (c) => (c === "?" ? "%3F" : "%23"))); u.query = q; u.fragment = f; }
    get search() { const q = urlRecord.get(this).query; return q === null || q === "" ? "" : "?" + q; }
    set search(v) {
      const u = urlRecord.get(this);
      let s = String(v);
      if (s.startsWith("?")) s = s.slice(1);
      u.query = s === "" ? null : percentEncode(s, isSpecial(u.scheme) ? kSpecialQuerySet : kQuerySet);
      parseParams(u.query ?? "", paramsState.get(this.searchParams).list);
    }
    get hash() { const f = urlRecord.get(this).fragment; return f === null || f === "" ? "" : "#" + f; }
    set hash(v) { const u = urlRecord.get(this); let s = String(v); if (s.startsWith("#")) s = s.slice(1); u.fragment = s === "" ? null : percentEncode(s, kFragmentSet); }
    #params = null;
    get searchParams() {
      if (this.#params === null) {
        this.#params = new URLSearchParams(urlRecord.get(this).query ?? "");
        paramsState.get(this.#params).url = this;
      }
      return this.#params;
    }
    toString() { return this.href; }
    toJSON() { return this.href; }
  }
  defineGlobal("URL", URL);
  defineGlobal("URLSearchParams", URLSearchParams);

  // ---- AbortController / AbortSignal (DOM Standard) ------------------------------------------
  const signalState = new WeakMap();
  const kSignalToken = Symbol("alknet.abortSignal");
  class AbortSignal extends EventTarget {
    constructor(token) {
      if (token !== kSignalToken) throw new TypeError("Illegal constructor");
      super();
      signalState.set(this, { aborted: false, reason: undefined, onabort: null });
    }
    get aborted() { return signalState.get(this).aborted; }
    get reason() { return signalState.get(this).reason; }
    get onabort() { return signalState.get(this).onabort; }
    set onabort(fn) { signalState.get(this).onabort = typeof fn === "function" ? fn : null; }
    throwIfAborted() { const s = signalState.get(this); if (s.aborted) throw s.reason; }
    static abort(reason = new DOMException("This operation was aborted", "AbortError")) {
      const signal = new AbortSignal(kSignalToken);
      Object.assign(signalState.get(signal), { aborted: true, reason });
      return signal;
    }
    static timeout(ms) {
      const signal = new AbortSignal(kSignalToken);
      setTimeout(() => abortSignal(signal, new DOMException("The operation timed out", "TimeoutError")), Number(ms));
      return signal;
    }
    static any(signals) {
      const signal = new AbortSignal(kSignalToken);
      for (const s of signals) {
        if (s.aborted) { abortSignal(signal, s.reason); return signal; }
      }
      for (const s of signals) s.addEventListener("abort", () => abortSignal(signal, s.reason), { once: true });
      return signal;
    }
  }
  function abortSignal(signal, reason) {
    const s = signalState.get(signal);
    if (s.aborted) return;
    s.aborted = true;
    s.reason = reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
    const event = new Event("abort");
    if (s.onabort) s.onabort.call(signal, event);
    signal.dispatchEvent(event);
  }
  class AbortController {
    #signal = new AbortSignal(kSignalToken);
    get signal() { return this.#signal; }
    abort(reason = undefined) { abortSignal(this.#signal, reason); }
  }
  defineGlobal("AbortSignal", AbortSignal);
  defineGlobal("AbortController", AbortController);

  // ---- MessageChannel / MessagePort / MessageEvent (HTML, within one realm) -----------------
  const eventInit = new WeakMap();
  class MessageEvent extends Event {
    constructor(type, init = {}) {
      super(type, init);
      eventInit.set(this, { data: init?.data, origin: String(init?.origin ?? ""), lastEventId: String(init?.lastEventId ?? ""),
                            source: init?.source ?? null, ports: Object.freeze([...(init?.ports ?? [])]) });
    }
    get data() { return eventInit.get(this).data; }
    get origin() { return eventInit.get(this).origin; }
    get lastEventId() { return eventInit.get(this).lastEventId; }
    get source() { return eventInit.get(this).source; }
    get ports() { return eventInit.get(this).ports; }
  }
  const portState = new WeakMap();
  const kPortToken = Symbol("alknet.messagePort");
  class MessagePort extends EventTarget {
    constructor(token) {
      if (token !== kPortToken) throw new TypeError("Illegal constructor");
      super();
      portState.set(this, { other: null, started: false, closed: false, queue: [], onmessage: null });
    }
    postMessage(message, transfer = undefined) {
      const s = portState.get(this);
      const list = Array.isArray(transfer) || transfer?.[Symbol.iterator] ? transfer : transfer?.transfer;
      const data = cloneWithTransfer(message, list, "MessagePort.postMessage");
      if (s.closed || !s.other) return;
      const target = s.other;
      // Delivered as a task (a timer of 0 ms), after the current one, in order.
      setTimeout(() => deliver(target, data), 0);
    }
    start() { const s = portState.get(this); if (s.started) return; s.started = true; for (const d of s.queue.splice(0)) deliver(this, d); }
    close() { const s = portState.get(this); s.closed = true; if (s.other) portState.get(s.other).other = null; s.other = null; }
    get onmessage() { return portState.get(this).onmessage; }
    set onmessage(fn) { const s = portState.get(this); s.onmessage = typeof fn === "function" ? fn : null; this.start(); }
  }
  function deliver(port, data) {
    const s = portState.get(port);
    if (s.closed) return;
    if (!s.started) { s.queue.push(data); return; }
    const event = new MessageEvent("message", { data });
    if (s.onmessage) s.onmessage.call(port, event);
    port.dispatchEvent(event);
  }
  class MessageChannel {
    #port1 = new MessagePort(kPortToken);
    #port2 = new MessagePort(kPortToken);
    constructor() {
      portState.get(this.#port1).other = this.#port2;
      portState.get(this.#port2).other = this.#port1;
    }
    get port1() { return this.#port1; }
    get port2() { return this.#port2; }
  }
  defineGlobal("MessageEvent", MessageEvent);
  defineGlobal("MessagePort", MessagePort);
  defineGlobal("MessageChannel", MessageChannel);

  // ---- crypto (Web Crypto: getRandomValues, randomUUID) -------------------------------------------
  const kIntegerArrays = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array,
                          Int32Array, Uint32Array, BigInt64Array, BigUint64Array];
  const crypto = {
    getRandomValues(array) {
      if (!kIntegerArrays.some((T) => array instanceof T)) {
        throw new DOMException("The data argument must be an integer-type TypedArray", "TypeMismatchError");
      }
      if (array.byteLength > 65536) {
        throw new DOMException(`The ArrayBufferView's byte length (${array.byteLength}) exceeds the number of bytes of entropy available via this API (65536)`, "QuotaExceededError");
      }
      return core.fillRandom(array);
    },
    randomUUID() {
      const b = core.fillRandom(new Uint8Array(16));
      b[6] = (b[6] & 0x0f) | 0x40;  // RFC 4122 version 4
      b[8] = (b[8] & 0x3f) | 0x80;  // variant 10
      const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    },
  };
  // SubtleCrypto.digest (Web Crypto): SHA-1/256/384/512 through OpenSSL.
  const kDigests = ["SHA-1", "SHA-256", "SHA-384", "SHA-512"];
  crypto.subtle = {
    async digest(algorithm, data) {
      const name = String(typeof algorithm === "object" && algorithm !== null ? algorithm.name : algorithm);
      const normalised = kDigests.find((d) => d.toLowerCase() === name.toLowerCase());
      if (!normalised) throw new DOMException(`Unrecognized algorithm name`, "NotSupportedError");
      return core.digest(normalised, toBytes(data, "crypto.subtle.digest")).buffer;
    },
  };
  defineGlobal("crypto", crypto);
  // WindowOrWorkerGlobalScope.self: libraries (tfjs) look for the global object through it.
  defineGlobal("self", global);

  // ---- WebGPU: flag namespaces and error classes (the interfaces are native, src/spidermonkey/webgpu)
  const frozen = (o) => Object.freeze(Object.assign(Object.create(null), o));
  defineGlobal("GPUBufferUsage", frozen({
    MAP_READ: 0x0001, MAP_WRITE: 0x0002, COPY_SRC: 0x0004, COPY_DST: 0x0008, INDEX: 0x0010,
    VERTEX: 0x0020, UNIFORM: 0x0040, STORAGE: 0x0080, INDIRECT: 0x0100, QUERY_RESOLVE: 0x0200,
  }));
  defineGlobal("GPUMapMode", frozen({ READ: 0x0001, WRITE: 0x0002 }));
  defineGlobal("GPUShaderStage", frozen({ VERTEX: 0x1, FRAGMENT: 0x2, COMPUTE: 0x4 }));
  defineGlobal("GPUTextureUsage", frozen({
    COPY_SRC: 0x01, COPY_DST: 0x02, TEXTURE_BINDING: 0x04, STORAGE_BINDING: 0x08, RENDER_ATTACHMENT: 0x10,
  }));
  defineGlobal("GPUColorWrite", frozen({ RED: 0x1, GREEN: 0x2, BLUE: 0x4, ALPHA: 0x8, ALL: 0xF }));
  class GPUError {
    #message;
    constructor(message = "") { this.#message = String(message); }
    get message() { return this.#message; }
  }
  class GPUValidationError extends GPUError {}
  class GPUOutOfMemoryError extends GPUError {}
  class GPUInternalError extends GPUError {}
  defineGlobal("GPUError", GPUError);
  defineGlobal("GPUValidationError", GPUValidationError);
  defineGlobal("GPUOutOfMemoryError", GPUOutOfMemoryError);
  defineGlobal("GPUInternalError", GPUInternalError);

  class GPUUncapturedErrorEvent extends Event {
    #error;
    constructor(type, init) {
      super(type, init);
      if (!(init?.error instanceof GPUError)) throw new TypeError("GPUUncapturedErrorEvent: init.error must be a GPUError");
      this.#error = init.error;
    }
    get error() { return this.#error; }
  }
  defineGlobal("GPUUncapturedErrorEvent", GPUUncapturedErrorEvent);
  // GPUDevice is an EventTarget (its native prototype gets EventTarget.prototype above it).
  Object.setPrototypeOf(global.GPUDevice.prototype, EventTarget.prototype);
  // onuncapturederror: an EventHandler attribute on the prototype.
  // As HTML's event handler attributes: the first non-null value adds one listener (at that
  // point of the listener list) that calls the current value; changing the value keeps the
  // listener's place; null removes it.
  const uncapturedHandlers = new WeakMap();
  const handlerListeners = new WeakMap();
  const addListener = EventTarget.prototype.addEventListener;
  const removeListener = EventTarget.prototype.removeEventListener;
  Object.defineProperty(global.GPUDevice.prototype, "onuncapturederror", {
    get: function onuncapturederror() { return uncapturedHandlers.get(this) ?? null; },
    set: function onuncapturederror(handler) {
      if (!(this instanceof global.GPUDevice)) throw new TypeError("Illegal invocation: not a GPUDevice");
      const value = typeof handler === "function" || (typeof handler === "object" && handler !== null) ? handler : null;
      if (value === null) {
        uncapturedHandlers.delete(this);
        const listener = handlerListeners.get(this);
        if (listener) removeListener.call(this, "uncapturederror", listener);
        handlerListeners.delete(this);
        return;
      }
      uncapturedHandlers.set(this, value);
      if (!handlerListeners.has(this)) {
        const listener = function (event) {
          const h = uncapturedHandlers.get(this);
          if (typeof h === "function") h.call(this, event);
        };
        handlerListeners.set(this, listener);
        addListener.call(this, "uncapturederror", listener);
      }
    },
    enumerable: true, configurable: true,
  });

  // GPUPipelineError (a DOMException with a reason), constructible from script.
  const kPipelineErrorReasons = ["validation", "internal"];
  class GPUPipelineError extends DOMException {
    #reason;
    constructor(message = "", options = undefined) {
      if (options === null || typeof options !== "object") {
        throw new TypeError("GPUPipelineError: the options argument (a GPUPipelineErrorInit) is required");
      }
      const reason = options.reason;
      if (reason === undefined) throw new TypeError("GPUPipelineErrorInit: required member reason is undefined");
      if (!kPipelineErrorReasons.includes(String(reason))) {
        throw new TypeError(`GPUPipelineErrorInit.reason: '${reason}' is not a valid GPUPipelineErrorReason`);
      }
      super(message, "GPUPipelineError");
      this.#reason = String(reason);
    }
    get reason() { return this.#reason; }
  }
  defineGlobal("GPUPipelineError", GPUPipelineError);

  // The WebGPU interfaces that are views of plain data, built by the native binding through
  // the gpuMake hook below: not constructible from script ("Illegal constructor"), attributes
  // as prototype getters (so Object.keys(instance) is empty, as for every platform object).
  const kConstruct = Symbol("alknet.gpu.construct");
  const dataOf = new WeakMap();
  const brandCheck = (self, iface) => {
    const d = dataOf.get(self);
    if (d === undefined || d.iface !== iface) throw new TypeError(`Illegal invocation: not a ${iface}`);
    return d.values;
  };
  function dataInterface(name, attributes) {
    const C = {
      [name]: class {
        constructor(token, values) {
          if (token !== kConstruct) throw new TypeError("Illegal constructor");
          dataOf.set(this, { iface: name, values });
        }
      },
    }[name];
    for (const attr of attributes) defineGetter(C, name, attr);
    Object.defineProperty(C.prototype, Symbol.toStringTag, { value: name, configurable: true });
    defineGlobal(name, C);
    return C;
  }
  function defineGetter(C, name, attr) {
    Object.defineProperty(C.prototype, attr, {
      get: { [attr]() { return brandCheck(this, name)[attr]; } }[attr],
      enumerable: true, configurable: true,
    });
  }
  // Readonly setlike<DOMString> (WebIDL): has, size, entries, keys, values, forEach, @@iterator.
  function setlikeInterface(name) {
    const C = dataInterface(name, []);
    const set = (self) => brandCheck(self, name);
    Object.defineProperty(C.prototype, "size", {
      get: function size() { return set(this).size; }, enumerable: true, configurable: true,
    });
    const methods = {
      has(value) { return set(this).has(String(value)); },
      entries() { return set(this).entries(); },
      keys() { return set(this).keys(); },
      values() { return set(this).values(); },
      forEach(callback, thisArg = undefined) {
        if (typeof callback !== "function") throw new TypeError(`${name}.forEach: the callback must be a function`);
        for (const v of set(this)) callback.call(thisArg, v, v, this);
      },
    };
    for (const [key, fn] of Object.entries(methods)) {
      Object.defineProperty(C.prototype, key, { value: fn, writable: true, enumerable: true, configurable: true });
    }
    Object.defineProperty(C.prototype, Symbol.iterator, { value: C.prototype.values, writable: true, configurable: true });
    return C;
  }
  const GPUSupportedLimits = dataInterface("GPUSupportedLimits", []);
  const GPUSupportedFeatures = setlikeInterface("GPUSupportedFeatures");
  const WGSLLanguageFeatures = setlikeInterface("WGSLLanguageFeatures");
  const GPUAdapterInfo = dataInterface("GPUAdapterInfo", ["vendor", "architecture", "device", "description",
                                                          "subgroupMinSize", "subgroupMaxSize", "isFallbackAdapter"]);
  const GPUCompilationMessage = dataInterface("GPUCompilationMessage", ["message", "type", "lineNum", "linePos",
                                                                        "offset", "length"]);
  const GPUCompilationInfo = dataInterface("GPUCompilationInfo", ["messages"]);
  const GPUDeviceLostInfo = dataInterface("GPUDeviceLostInfo", ["reason", "message"]);
  const makers = {
    GPUSupportedLimits(data) {
      // The limit names come from the native side (one list, libs/webgpu's LimitList).
      for (const key of Object.keys(data)) {
        if (!Object.prototype.hasOwnProperty.call(GPUSupportedLimits.prototype, key)) {
          defineGetter(GPUSupportedLimits, "GPUSupportedLimits", key);
        }
      }
      return new GPUSupportedLimits(kConstruct, Object.freeze({ ...data }));
    },
    MappedRange: (ab) => { mappedRanges.add(ab); return ab; },
    GPUSupportedFeatures: (names) => new GPUSupportedFeatures(kConstruct, new Set(names)),
    WGSLLanguageFeatures: (names) => new WGSLLanguageFeatures(kConstruct, new Set(names)),
    GPUAdapterInfo: (data) => new GPUAdapterInfo(kConstruct, Object.freeze({ ...data })),
    GPUDeviceLostInfo: (data) => new GPUDeviceLostInfo(kConstruct, Object.freeze({ ...data })),
    GPUCompilationInfo(data) {
      const messages = Object.freeze(data.messages.map((m) => new GPUCompilationMessage(kConstruct, Object.freeze({ ...m }))));
      return new GPUCompilationInfo(kConstruct, { messages });
    },
  };

  // The engine's entry points into this file.
  return {
    inspect: (v) => inspect(v),
    // A rejection no handler took by the microtask checkpoint: true when nobody cancelled
    // the 'unhandledrejection' event (the engine then reports it).
    unhandledRejection(promise, reason) {
      reportedRejections.add(promise);
      const event = new PromiseRejectionEvent("unhandledrejection", { promise, reason, cancelable: true });
      return dispatchOnGlobal(event);
    },
    rejectionHandled(promise) {
      if (!reportedRejections.has(promise)) return;
      reportedRejections.delete(promise);
      dispatchOnGlobal(new PromiseRejectionEvent("rejectionhandled", { promise, reason: core.promiseResult(promise) }));
    },
    gpuMake(kind, data) {
      const make = makers[kind];
      if (make === undefined) throw new TypeError(`internal: gpuMake has no ${kind}`);
      return make(data);
    },
    // An error no error scope caught: onuncapturederror, then the listeners; with neither,
    // the console (WebGPU spec: "uncapturederror" is reported to the developer console).
    gpuUncapturedError(device, error) {
      const event = new GPUUncapturedErrorEvent("uncapturederror", { error, cancelable: true });
      const listened = listenerCount(device, "uncapturederror") > 0;
      device.dispatchEvent(event);
      if (!listened) {
        core.print(2, `WebGPU uncaptured ${error.constructor.name}: ${error.message}\n`);
      }
    },
  };
})
