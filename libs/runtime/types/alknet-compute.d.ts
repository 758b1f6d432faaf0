// TypeScript declarations for alknet:compute (libs/runtime/js/compute.js).
// Checked by libs/runtime/tests/scripts/modules/dts_check.mjs: every export has one here, and
// the op methods below are generated from the op table by gen_compute_dts.mjs (a ctest fails
// when the table and this file disagree; rerun the script to update).

declare module "alknet:compute" {
  export type DType = "f32" | "f16" | "i32" | "u32" | "bool" | string;
  export type Attributes = Record<string, number | string | number[]>;

  /** A tensor in a GPU buffer. Ops run on the device; data() downloads. */
  export class Tensor {
    private constructor();
    /** Copies a typed array to the device; dtype follows the array type unless given. */
    static from(data: ArrayBufferView, shape?: readonly number[], dtype?: DType): Tensor;
    readonly dtype: DType;
    readonly shape: readonly number[];
    readonly size: number;
    /** Downloads the values (Float32Array for f32, Int32Array for i32, ...). */
    data(): Promise<Float32Array | Int32Array | Uint32Array | Uint16Array | Uint8Array | ArrayBufferView>;
    toString(): string;
  }

  export interface OpInfo {
    readonly name: string;
    readonly family: string;
    readonly minInputs: number;
    readonly maxInputs: number;
    readonly opsetMin: number;
    readonly opsetMax: number;
    readonly summary: string;
    /** The generated method's name ("matMul"), or null for internal records. */
    readonly method: string | null;
  }

  /** Any op of the table by its ONNX name: op("Conv", [x, w], { strides: [1, 1] }). */
  export function op(name: string, inputs: Tensor[], attributes?: Attributes, opset?: number): Tensor;
  /** SHA-256 on the GPU: one 32-byte digest per message. */
  export function sha256(messages: ArrayBufferView | ArrayBuffer): Promise<Uint8Array>;
  export function sha256(messages: (ArrayBufferView | ArrayBuffer)[]): Promise<Uint8Array[]>;
  export function toHex(bytes: Uint8Array): string;
  export function methodName(onnxName: string): string | null;
  export const ops: readonly OpInfo[];

  /** An op method: its inputs, then optionally an attributes object. */
  export type OpMethod = (...args: (Tensor | Attributes)[]) => Tensor;

  export interface Compute {
    Tensor: typeof Tensor;
    op: typeof op;
    sha256: typeof sha256;
    toHex: typeof toHex;
    ops: typeof ops;
    methodName: typeof methodName;
    // BEGIN GENERATED OPS
    /** ONNX Abs (1 input): Abs of each element */
    abs: OpMethod;
    /** ONNX Acos (1 input): Acos of each element */
    acos: OpMethod;
    /** ONNX Acosh (1 input): Acosh of each element */
    acosh: OpMethod;
    /** ONNX Asin (1 input): Asin of each element */
    asin: OpMethod;
    /** ONNX Asinh (1 input): Asinh of each element */
    asinh: OpMethod;
    /** ONNX Atan (1 input): Atan of each element */
    atan: OpMethod;
    /** ONNX Atanh (1 input): Atanh of each element */
    atanh: OpMethod;
    /** ONNX Ceil (1 input): Ceil of each element */
    ceil: OpMethod;
    /** ONNX Cos (1 input): Cos of each element */
    cos: OpMethod;
    /** ONNX Cosh (1 input): Cosh of each element */
    cosh: OpMethod;
    /** ONNX Exp (1 input): Exp of each element */
    exp: OpMethod;
    /** ONNX Floor (1 input): Floor of each element */
    floor: OpMethod;
    /** ONNX Log (1 input): Log of each element */
    log: OpMethod;
    /** ONNX Neg (1 input): Neg of each element */
    neg: OpMethod;
    /** ONNX Reciprocal (1 input): Reciprocal of each element */
    reciprocal: OpMethod;
    /** ONNX Round (1 input): Round of each element */
    round: OpMethod;
    /** ONNX Sign (1 input): Sign of each element */
    sign: OpMethod;
    /** ONNX Sin (1 input): Sin of each element */
    sin: OpMethod;
    /** ONNX Sinh (1 input): Sinh of each element */
    sinh: OpMethod;
    /** ONNX Sqrt (1 input): Sqrt of each element */
    sqrt: OpMethod;
    /** ONNX Tan (1 input): Tan of each element */
    tan: OpMethod;
    /** ONNX Tanh (1 input): Tanh of each element */
    tanh: OpMethod;
    /** ONNX Erf (1 input): Erf of each element */
    erf: OpMethod;
    /** ONNX Identity (1 input): Identity of each element */
    identity: OpMethod;
    /** ONNX Not (1 input): Not of each element */
    not: OpMethod;
    /** ONNX Relu (1 input): Relu activation */
    relu: OpMethod;
    /** ONNX LeakyRelu (1 input): LeakyRelu activation */
    leakyRelu: OpMethod;
    /** ONNX Elu (1 input): Elu activation */
    elu: OpMethod;
    /** ONNX Celu (1 input): Celu activation */
    celu: OpMethod;
    /** ONNX Selu (1 input): Selu activation */
    selu: OpMethod;
    /** ONNX HardSigmoid (1 input): HardSigmoid activation */
    hardSigmoid: OpMethod;
    /** ONNX HardSwish (1 input): HardSwish activation */
    hardSwish: OpMethod;
    /** ONNX Sigmoid (1 input): Sigmoid activation */
    sigmoid: OpMethod;
    /** ONNX Softplus (1 input): Softplus activation */
    softplus: OpMethod;
    /** ONNX Softsign (1 input): Softsign activation */
    softsign: OpMethod;
    /** ONNX Gelu (1 input): Gelu activation */
    gelu: OpMethod;
    /** ONNX PRelu (2 inputs): PRelu activation */
    pRelu: OpMethod;
    /** ONNX Add (2 inputs): Add, broadcasting */
    add: OpMethod;
    /** ONNX Sub (2 inputs): Sub, broadcasting */
    sub: OpMethod;
    /** ONNX Mul (2 inputs): Mul, broadcasting */
    mul: OpMethod;
    /** ONNX Div (2 inputs): Div, broadcasting */
    div: OpMethod;
    /** ONNX Pow (2 inputs): Pow, broadcasting */
    pow: OpMethod;
    /** ONNX Mod (2 inputs): Mod, broadcasting */
    mod: OpMethod;
    /** ONNX Min (1-32 inputs): Min of any number of inputs, broadcasting */
    min: OpMethod;
    /** ONNX Max (1-32 inputs): Max of any number of inputs, broadcasting */
    max: OpMethod;
    /** ONNX Equal (2 inputs): Equal, broadcasting */
    equal: OpMethod;
    /** ONNX Greater (2 inputs): Greater, broadcasting */
    greater: OpMethod;
    /** ONNX GreaterOrEqual (2 inputs): GreaterOrEqual, broadcasting */
    greaterOrEqual: OpMethod;
    /** ONNX Less (2 inputs): Less, broadcasting */
    less: OpMethod;
    /** ONNX LessOrEqual (2 inputs): LessOrEqual, broadcasting */
    lessOrEqual: OpMethod;
    /** ONNX And (2 inputs): And, broadcasting */
    and: OpMethod;
    /** ONNX Or (2 inputs): Or, broadcasting */
    or: OpMethod;
    /** ONNX Xor (2 inputs): Xor, broadcasting */
    xor: OpMethod;
    /** ONNX Where (3 inputs): cond ? X : Y, broadcasting all three */
    where: OpMethod;
    /** ONNX Clip (1 input): clamp to [min, max] (attributes) */
    clip: OpMethod;
    /** ONNX Cast (1 input): convert to the dtype `to` */
    cast: OpMethod;
    /** ONNX MatMul (2 inputs): matrix product, numpy semantics (batched, broadcast batch dimensions) */
    matMul: OpMethod;
    /** ONNX Gemm (2-3 inputs): alpha * op(A) op(B) + beta * C, C broadcast to [M, N] */
    gemm: OpMethod;
    /** ONNX Softmax (1 input): normalised exponential along an axis */
    softmax: OpMethod;
    /** ONNX LogSoftmax (1 input): log of the normalised exponential along an axis */
    logSoftmax: OpMethod;
    /** ONNX Reshape (2 inputs): the same elements under a new shape (a view; no copy for contiguous input) */
    reshape: OpMethod;
    /** ONNX Sum (1-64 inputs): elementwise sum of all inputs (broadcasting) */
    sum: OpMethod;
    /** ONNX Mean (1-64 inputs): elementwise mean of all inputs (broadcasting) */
    mean: OpMethod;
    // END GENERATED OPS
  }
  const compute: Compute;
  export default compute;
}
