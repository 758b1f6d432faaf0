// alknet:desktop — native windows whose canvas draws with the WebGPU API (docs/desktop.md).
//
//   import { createWindow } from "alknet:desktop";
//   const canvas = createWindow({ width: 640, height: 480, title: "cube" });
//   const context = canvas.getContext("webgpu");
//   context.configure({ device, format: navigator.gpu.getPreferredCanvasFormat() });
//   requestAnimationFrame(function frame(t) { ...; requestAnimationFrame(frame); });
//
// The canvas is an EventTarget with the DOM's input events (keydown/keyup, pointerdown/
// pointermove/pointerup, wheel) and resize, focus, blur, close. A frame's texture is presented
// after the requestAnimationFrame callbacks of that frame have run, as in browsers.
import { exit } from "alknet:process";

const core = import.meta.native;
const host = core.hostOptions();

const kFormats = { "bgra8unorm": 0x17, "rgba8unorm": 0x12, "rgba16float": 0x22 };
const kAlphaModes = { "opaque": 1, "premultiplied": 2 };

class UIEvent extends Event {
  #init;
  constructor(type, init = {}) { super(type, init); this.#init = init; }
  get shiftKey() { return Boolean(this.#init.shiftKey); }
  get ctrlKey() { return Boolean(this.#init.ctrlKey); }
  get altKey() { return Boolean(this.#init.altKey); }
  get metaKey() { return Boolean(this.#init.metaKey); }
}
export class KeyboardEvent extends UIEvent {
  #init;
  constructor(type, init = {}) { super(type, init); this.#init = init; }
  get key() { return this.#init.key ?? ""; }
  get code() { return this.#init.code ?? ""; }
  get repeat() { return Boolean(this.#init.repeat); }
}
export class PointerEvent extends UIEvent {
  #init;
  constructor(type, init = {}) { super(type, init); this.#init = init; }
  get clientX() { return this.#init.x ?? 0; }
  get clientY() { return this.#init.y ?? 0; }
  get offsetX() { return this.#init.x ?? 0; }
  get offsetY() { return this.#init.y ?? 0; }
  get button() { return this.#init.button ?? 0; }
  get buttons() { return this.#init.buttons ?? 0; }
  get pointerId() { return 1; }
  get pointerType() { return "mouse"; }
  get isPrimary() { return true; }
}
export class WheelEvent extends PointerEvent {
  #init;
  constructor(type, init = {}) { super(type, init); this.#init = init; }
  get deltaX() { return this.#init.deltaX ?? 0; }
  get deltaY() { return this.#init.deltaY ?? 0; }
  get deltaZ() { return 0; }
  get deltaMode() { return 0; }  // DOM_DELTA_PIXEL
}

// GPUCanvasContext (https://www.w3.org/TR/webgpu/#canvas-context).
export class GPUCanvasContext {
  #canvas; #window; #config = null; #texture = null;
  constructor(canvas, window, key) {
    if (key !== kConstruct) throw new TypeError("Illegal constructor");
    this.#canvas = canvas;
    this.#window = window;
  }
  get canvas() { return this.#canvas; }
  configure(config) {
    if (config === null || typeof config !== "object") {
      throw new TypeError("GPUCanvasContext.configure: expected a GPUCanvasConfiguration");
    }
    if (config.device === undefined) throw new TypeError("GPUCanvasContext.configure: 'device' is required");
    const formatName = String(config.format);
    const format = kFormats[formatName];
    if (format === undefined) {
      throw new TypeError(`GPUCanvasContext.configure: format '${formatName}' cannot be presented ` +
                          `(use one of ${Object.keys(kFormats).join(", ")})`);
    }
    const usage = config.usage ?? GPUTextureUsage.RENDER_ATTACHMENT;
    const alphaName = config.alphaMode ?? "opaque";
    const alpha = kAlphaModes[alphaName];
    if (alpha === undefined) throw new TypeError(`GPUCanvasContext.configure: unknown alphaMode '${alphaName}'`);
    this.#texture = null;
    core.configure(this.#window, config.device, format, usage, alpha);
    this.#config = { device: config.device, format: formatName, usage, alphaMode: alphaName,
                     viewFormats: [...(config.viewFormats ?? [])], colorSpace: config.colorSpace ?? "srgb",
                     toneMapping: { mode: "standard" } };
  }
  unconfigure() {
    this.#texture = null;
    this.#config = null;
    core.unconfigure(this.#window);
  }
  getConfiguration() { return this.#config ? { ...this.#config } : null; }
  getCurrentTexture() {
    if (!this.#config) {
      throw new DOMException("GPUCanvasContext.getCurrentTexture: configure() the context first",
                             "InvalidStateError");
    }
    if (this.#canvas.closed) {
      throw new DOMException("GPUCanvasContext.getCurrentTexture: the window is closed", "InvalidStateError");
    }
    this.#texture ??= core.getCurrentTexture(this.#window);
    pendingPresent.add(this);
    return this.#texture;
  }
  // Called after the frame's callbacks (the "update the rendering" step).
  _present() {
    if (this.#texture === null) return false;
    this.#texture = null;
    if (host.screenshot && host.frames > 0 && framesPresented + 1 === host.frames) {
      core.screenshot(this.#window);
    }
    core.present(this.#window);
    return true;
  }
  _dropTexture() { this.#texture = null; }
}
const kConstruct = Symbol("construct");

const canvases = new Map();  // window id -> canvas
const pendingPresent = new Set();
let framesPresented = 0;

// The canvas of a native window: HTMLCanvasElement's shape where it makes sense.
export class DesktopCanvas extends EventTarget {
  #window; #context = null; #info; #title;
  constructor(window, title, key) {
    super();
    if (key !== kConstruct) throw new TypeError("Illegal constructor; use createWindow()");
    this.#window = window;
    this.#title = title;
    this.#info = core.windowInfo(window);
  }
  get width() { return this.#info.width; }
  get height() { return this.#info.height; }
  // As on a canvas, assigning the drawing buffer's size: here it resizes the window (a no-op
  // for the size it has, which is what web code writing clientWidth * devicePixelRatio does).
  set width(v) { this.#resize(v, this.#info.height); }
  set height(v) { this.#resize(this.#info.width, v); }
  #resize(w, h) {
    w = Math.trunc(Number(w)); h = Math.trunc(Number(h));
    if (w === this.#info.width && h === this.#info.height) return;
    core.setSize(this.#window, w, h);
  }
  get clientWidth() { return Math.round(this.#info.width / this.#info.devicePixelRatio); }
  get clientHeight() { return Math.round(this.#info.height / this.#info.devicePixelRatio); }
  get devicePixelRatio() { return this.#info.devicePixelRatio; }
  get title() { return this.#title; }
  set title(t) { this.#title = String(t); core.setTitle(this.#window, this.#title); }
  get closed() { return !canvases.has(this.#window); }
  getContext(kind) {
    if (kind !== "webgpu") return null;  // as a canvas does for a context type it lacks
    this.#context ??= new GPUCanvasContext(this, this.#window, kConstruct);
    return this.#context;
  }
  close() {
    if (!canvases.has(this.#window)) return;
    this.#context?._dropTexture();
    if (this.#context) pendingPresent.delete(this.#context);
    canvases.delete(this.#window);
    core.closeWindow(this.#window);
  }
  _refresh() { this.#info = core.windowInfo(this.#window); }
  _context() { return this.#context; }
}

for (const type of ["keydown", "keyup", "pointerdown", "pointermove", "pointerup", "wheel",
                    "resize", "focus", "blur", "close"]) {
  // on<type> attributes, as on elements.
  const handlers = new WeakMap();
  Object.defineProperty(DesktopCanvas.prototype, "on" + type, {
    get() { return handlers.get(this) ?? null; },
    set(fn) {
      const old = handlers.get(this);
      if (old) this.removeEventListener(type, old);
      if (typeof fn === "function") { handlers.set(this, fn); this.addEventListener(type, fn); }
      else handlers.delete(this);
    },
    configurable: true,
  });
}

// createWindow({width, height, title, fullscreen}): the host's defaults fill what is left out.
export function createWindow(options = {}) {
  const window = core.createWindow(options);
  const canvas = new DesktopCanvas(window, options.title ?? "alknet", kConstruct);
  canvases.set(window, canvas);
  return canvas;
}

// ---- frames ---------------------------------------------------------------------------------
let frameCallbacks = new Map();
let nextFrameId = 1;
export function requestAnimationFrame(callback) {
  if (typeof callback !== "function") {
    throw new TypeError("requestAnimationFrame: the callback must be a function");
  }
  const id = nextFrameId++;
  frameCallbacks.set(id, callback);
  core.requestFrame();
  return id;
}
export function cancelAnimationFrame(id) { frameCallbacks.delete(Number(id)); }
globalThis.requestAnimationFrame = requestAnimationFrame;
// window.devicePixelRatio, as web code reads it (the first window's; 1 before any).
Object.defineProperty(globalThis, "devicePixelRatio", {
  get() { for (const c of canvases.values()) return c.devicePixelRatio; return 1; },
  configurable: true, enumerable: true,
});
globalThis.cancelAnimationFrame = cancelAnimationFrame;

function makeEvent(e) {
  const init = { ...e, cancelable: e.type === "close" || e.type.startsWith("key") || e.type === "wheel" };
  if (e.type === "keydown" || e.type === "keyup") return new KeyboardEvent(e.type, init);
  if (e.type === "wheel") return new WheelEvent(e.type, init);
  if (e.type.startsWith("pointer")) return new PointerEvent(e.type, init);
  return new Event(e.type, init);
}

core.setTick((events, frameTime) => {
  for (const e of events) {
    const canvas = canvases.get(e.window);
    if (!canvas) continue;
    if (e.type === "resize") canvas._refresh();
    if (e.type === "minimize" || e.type === "restore") { canvas._refresh(); continue; }
    const notCancelled = canvas.dispatchEvent(makeEvent(e));
    if (e.type === "close" && notCancelled) {
      // The default action of closing the window: the app ends (browsers close the page).
      canvas.close();
      if (canvases.size === 0) exit(0);
    }
  }
  // A frame's callbacks run only while a window is open: a window closed by an event handler
  // of this tick ends the frames (the loop then ends with the last window).
  if (frameTime === undefined || canvases.size === 0) return;
  const callbacks = frameCallbacks;
  frameCallbacks = new Map();
  for (const cb of callbacks.values()) cb(frameTime);
  let presented = false;
  for (const context of pendingPresent) presented = context._present() || presented;
  pendingPresent.clear();
  if (presented) framesPresented++;
  if (host.frames > 0 && framesPresented >= host.frames) exit(0);
});
