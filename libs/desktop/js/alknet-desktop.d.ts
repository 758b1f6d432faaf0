// TypeScript declarations for alknet:desktop (libs/desktop/js/desktop.js), available to scripts
// run by `alknet desktop APP.js`. WebGPU's own types (GPUDevice, GPUTexture, ...) come from the
// WebGPU lib of the checker (Deno's, or @webgpu/types). Checked by libs/desktop/tests:
// every export has a declaration here (desktop_test.py) and the file type-checks (deno check).

declare module "alknet:desktop" {
  export interface WindowOptions {
    /** Size in pixels; the defaults come from `alknet desktop --width/--height` (640x480). */
    width?: number;
    height?: number;
    /** Window title; default: `--title`, else the script's file name. */
    title?: string;
    /** Full screen on the primary monitor (default: `--fullscreen`). */
    fullscreen?: boolean;
  }

  export type PresentableFormat = "bgra8unorm" | "rgba8unorm" | "rgba16float";

  export interface CanvasConfiguration {
    device: GPUDevice;
    format: PresentableFormat;
    /** Default GPUTextureUsage.RENDER_ATTACHMENT. */
    usage?: number;
    viewFormats?: Iterable<string>;
    colorSpace?: "srgb" | "display-p3";
    alphaMode?: "opaque" | "premultiplied";
  }

  /** https://www.w3.org/TR/webgpu/#canvas-context, over a native window's surface. */
  export class GPUCanvasContext {
    private constructor();
    readonly canvas: DesktopCanvas;
    configure(configuration: CanvasConfiguration): undefined;
    unconfigure(): undefined;
    getConfiguration(): (CanvasConfiguration & { viewFormats: string[] }) | null;
    /** The texture of this frame; presented after the frame's requestAnimationFrame callbacks. */
    getCurrentTexture(): GPUTexture;
  }

  export interface DesktopCanvasEventMap {
    keydown: KeyboardEvent;
    keyup: KeyboardEvent;
    pointerdown: PointerEvent;
    pointermove: PointerEvent;
    pointerup: PointerEvent;
    wheel: WheelEvent;
    resize: Event;
    focus: Event;
    blur: Event;
    /** Cancelable: without preventDefault() the window closes, and the app ends with the last one. */
    close: Event;
  }

  /** A native window's canvas: HTMLCanvasElement's shape where it makes sense. */
  export class DesktopCanvas extends EventTarget {
    private constructor();
    /** Size of the drawing buffer in pixels. */
    readonly width: number;
    readonly height: number;
    /** Size in window coordinates (width / devicePixelRatio). */
    readonly clientWidth: number;
    readonly clientHeight: number;
    readonly devicePixelRatio: number;
    title: string;
    readonly closed: boolean;
    getContext(kind: "webgpu"): GPUCanvasContext;
    getContext(kind: string): GPUCanvasContext | null;
    close(): void;
    addEventListener<K extends keyof DesktopCanvasEventMap>(
      type: K, listener: (event: DesktopCanvasEventMap[K]) => void,
      options?: boolean | AddEventListenerOptions): void;
    addEventListener(type: string, listener: EventListenerOrEventListenerObject | null,
                     options?: boolean | AddEventListenerOptions): void;
    onkeydown: ((event: KeyboardEvent) => void) | null;
    onkeyup: ((event: KeyboardEvent) => void) | null;
    onpointerdown: ((event: PointerEvent) => void) | null;
    onpointermove: ((event: PointerEvent) => void) | null;
    onpointerup: ((event: PointerEvent) => void) | null;
    onwheel: ((event: WheelEvent) => void) | null;
    onresize: ((event: Event) => void) | null;
    onfocus: ((event: Event) => void) | null;
    onblur: ((event: Event) => void) | null;
    onclose: ((event: Event) => void) | null;
  }

  class UIEvent extends Event {
    readonly shiftKey: boolean;
    readonly ctrlKey: boolean;
    readonly altKey: boolean;
    readonly metaKey: boolean;
  }
  export class KeyboardEvent extends UIEvent {
    /** The DOM's key value: "a", "A", "Enter", "ArrowLeft", "Escape"... */
    readonly key: string;
    /** The DOM's physical key code: "KeyA", "Digit1", "Space"... */
    readonly code: string;
    readonly repeat: boolean;
  }
  export class PointerEvent extends UIEvent {
    readonly clientX: number;
    readonly clientY: number;
    readonly offsetX: number;
    readonly offsetY: number;
    /** 0 primary, 1 middle, 2 secondary (the DOM's numbering). */
    readonly button: number;
    readonly buttons: number;
    readonly pointerId: number;
    readonly pointerType: "mouse";
    readonly isPrimary: boolean;
  }
  export class WheelEvent extends PointerEvent {
    readonly deltaX: number;
    readonly deltaY: number;
    readonly deltaZ: number;
    /** Always 0 (DOM_DELTA_PIXEL). */
    readonly deltaMode: number;
  }

  /** Opens a window; options the script leaves out come from the command line. */
  export function createWindow(options?: WindowOptions): DesktopCanvas;
  /** Also installed on globalThis. Paced by presentation (60 Hz at most). */
  export function requestAnimationFrame(callback: (time: number) => void): number;
  export function cancelAnimationFrame(id: number): void;
}
