// TypeScript declarations for alknet:call (libs/ext/call/call.js).
// Checked by apps/alknet/tests/modules/dts_check.mjs: every export has one here.

declare module "alknet:call" {
  /** A tensor as calls carry it: metatensor dtype name, shape, bytes as a typed array. */
  export interface CallTensor {
    dtype: string;
    shape: number[];
    data: ArrayBufferView;
  }
  /** What a call takes and returns. A Uint8Array is bytes; other typed arrays are 1-D tensors. */
  export type CallValue =
    | null | boolean | number | string | Uint8Array | CallTensor | ArrayBufferView
    | CallValue[] | { [key: string]: CallValue };

  export interface CallInfo {
    name: string;
    signature: string;
    owner: string;
    doc: string;
  }

  /** A registry: the host's (local, or remote under `alknet run --remote`) or one from connect(). */
  export class Registry {
    private constructor();
    /** Rejects with an Error whose name is the registry's code (InvalidArgument, NotFound...). */
    call(name: string, ...args: CallValue[]): Promise<CallValue>;
    list(): Promise<CallInfo[]>;
    /**
     * One onnx.run per input file (a path, folder or glob, or an array of them) over this
     * registry, outputs written atomically to outDir/STEM.mtf, existing ones skipped (resume).
     * onProgress returning false stops the batch after the calls in flight.
     */
    inferBatch(model: string, inputs: string | string[], options: {
      outDir: string;
      concurrency?: number;
      onProgress?: (p: BatchProgress) => boolean | void;
    }): Promise<BatchResult>;
  }

  export interface BatchProgress { total: number; done: number; skipped: number; failed: number; final: boolean; }
  export interface BatchResult {
    done: number; skipped: number; failed: number;
    /** onProgress stopped the batch before every input ran. */
    stopped: boolean;
    failures: { input: string; error: string }[];
  }

  /** The namespace of script-defined calls ("script"). */
  export const SCRIPT_NAMESPACE: string;

  export function call(name: string, ...args: CallValue[]): Promise<CallValue>;
  export function list(): Promise<CallInfo[]>;
  /**
   * A registry on an `alknet serve` process at "host:port", or a pool ("ipv4:A:P,B:P",
   * "dns:///NAME:PORT"; needs --allow-net for every worker). concurrency: calls in flight (8).
   */
  export function connect(address: string, options?: { token?: string; concurrency?: number }): Registry;
  /**
   * Declares a call under the script's namespace ("script.<name>"), with a registry signature
   * such as "(x: number) -> number". A name outside the namespace throws PermissionDenied.
   */
  export function register(name: string, signature: string, fn: (...args: any[]) => CallValue | Promise<CallValue>): void;

  const _default: {
    call: typeof call; list: typeof list; connect: typeof connect; register: typeof register;
    Registry: typeof Registry; SCRIPT_NAMESPACE: string;
  };
  export default _default;
}
