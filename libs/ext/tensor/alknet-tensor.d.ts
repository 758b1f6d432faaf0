// TypeScript declarations for alknet:tensor (libs/ext/tensor/tensor.js).
// Checked by apps/alknet/tests/modules/dts_check.mjs: every export has one here.

declare module "alknet:tensor" {
  export type MetadataValue =
    | boolean | number | string | Uint8Array | number[] | string[] | boolean[];

  export interface FileTensor {
    readonly name: string;
    /** metatensor dtype name: "f32", "i64", "q4_0"... */
    readonly dtype: string;
    readonly shape: readonly number[];
    /** A view of the file's mapping (no copy); private pages: writes never reach the file. */
    readonly data: ArrayBufferView;
  }

  export class TensorFile {
    private constructor();
    readonly metadata: Readonly<Record<string, MetadataValue>>;
    readonly names: string[];
    readonly tensors: readonly FileTensor[];
    has(name: string): boolean;
    get(name: string): FileTensor;
  }

  /** Opens and validates a .mtf file (needs --allow-read for it). */
  export function open(path: string): TensorFile;
  /** Writes a .mtf file atomically (needs --allow-write for it). */
  export function write(
    path: string,
    tensors: Iterable<{ name: string; dtype?: string; shape?: number[]; data: ArrayBufferView }>,
    metadata?: Record<string, MetadataValue>,
  ): void;
  /** The typed array type a dtype reads as (Uint8Array for block types). */
  export function arrayTypeOf(dtype: string): { new (buffer: ArrayBuffer): ArrayBufferView };

  const _default: {
    open: typeof open; write: typeof write; arrayTypeOf: typeof arrayTypeOf; TensorFile: typeof TensorFile;
  };
  export default _default;
}
