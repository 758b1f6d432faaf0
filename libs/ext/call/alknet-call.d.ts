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
  }

  /** The namespace of script-defined calls ("script"). */
  export const SCRIPT_NAMESPACE: string;

  export function call(name: string, ...args: CallValue[]): Promise<CallValue>;
  export function list(): Promise<CallInfo[]>;
  /** A registry on an `alknet serve` process at "host:port" (needs --allow-net). */
  export function connect(address: string, options?: { token?: string }): Registry;
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
