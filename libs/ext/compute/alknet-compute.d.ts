// TypeScript declarations for alknet:compute (libs/ext/compute/compute.js).
// Checked by apps/alknet/tests/modules/dts_check.mjs: every export has one here, and
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
    /**
     * The tensor's storage as a GPUBuffer of `compute.device` (no copy; usage STORAGE | COPY_SRC |
     * COPY_DST; the first size x bytes-per-element bytes hold the values, row-major). It keeps
     * the storage alive; destroy() throws. A strided view (transpose, slice, expand) has none:
     * reading it throws a TypeError.
     */
    readonly gpuBuffer: GPUBuffer;
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

  /** A model input or output as the model declares it. */
  export interface ValueInfo {
    readonly name: string;
    /** The dtype its data comes as (null: an ONNX type alknet cannot hold, such as string). */
    readonly dtype: DType | null;
    /** The ONNX type name ("float", "int64", ...). */
    readonly onnxType: string;
    /** Dimensions: a number, a symbolic name, or null when open; null: no declared shape. */
    readonly shape: readonly (number | string | null)[] | null;
    /** An ONNX sequence(tensor): fed and returned as an array; dtype and shape are its tensors'. */
    readonly sequence: boolean;
    /** An ONNX optional(...): null (or left out) feeds an empty optional, which returns as null. */
    readonly optional: boolean;
  }

  export type TypedArray = Float32Array | Float64Array | Int32Array | Uint32Array | Int16Array | Uint16Array |
    Int8Array | Uint8Array | BigInt64Array | BigUint64Array;

  /** A value to feed: a Tensor (used on the device without a copy; an int64 input takes an i32
   *  Tensor), a typed array of the input's dtype, or data with its shape. */
  export type TensorFeed = Tensor | TypedArray | number[] | { data: TypedArray | number[]; shape?: readonly number[] };
  /** A sequence input takes an array of tensor feeds; an optional input null for empty. */
  export type Feed = TensorFeed | TensorFeed[] | null;

  export interface OutputValue {
    readonly name: string;
    readonly dtype: DType;
    readonly shape: readonly number[];
    readonly data: TypedArray;
    /** The output on the device, with run(feeds, { tensors: true }). */
    readonly tensor?: Tensor;
  }

  /** What run() gives for any output: a tensor, a sequence (array), an empty optional (null). */
  export type AnyOutputValue = OutputValue | readonly OutputValue[] | null;

  export interface SessionOptions {
    /** Plans kept per distinct input shapes (default 8). */
    planCacheSize?: number;
    /** Nodes with known inputs are folded on the CPU up to this many output elements (default 2^20). */
    foldLimit?: number;
    /** The graph passes (MatMul + Add -> Gemm, Add + Relu, Conv + activation), run once per plan (default true). */
    fuse?: boolean;
  }

  export interface SessionStats {
    readonly plansBuilt: number;
    readonly planCacheHits: number;
    readonly nodesFolded: number;
    readonly nodesOnDevice: number;
    readonly fusions: number;
    readonly initializersUploaded: number;
    /** `If`s decided at plan time and planned in place, in the last plan built. */
    readonly ifsInlined: number;
    /** If/Loop/Scan nodes run between plan segments (data-dependent), over all runs. */
    readonly controlNodesRun: number;
    /** Branch and body runs of those nodes. */
    readonly subgraphRuns: number;
    /** Host ops (NonZero, ...) run between plan segments: each reads its inputs back. */
    readonly hostOpsRun: number;
  }

  /** An ONNX model on the device. Loading needs --allow-read for the model (and its external data). */
  export class Session {
    private constructor();
    static load(path: string | URL, options?: SessionOptions): Promise<Session>;
    readonly inputs: readonly ValueInfo[];
    readonly outputs: readonly ValueInfo[];
    /** The ai.onnx opset the model imports. */
    readonly opset: number;
    /** The op type of each node, in order. */
    readonly opTypes: readonly string[];
    readonly stats: SessionStats;
    /** Timing of the last run(): plan (0 when cached) and run (upload, dispatch, download) in ms. */
    lastRun: { readonly planMs: number; readonly runMs: number; readonly planCached: boolean } | null;
    /** Feeds by input name; a model with one input also takes the value alone. */
    /** Tensor outputs are OutputValues. A model with sequence or optional outputs (see
     *  `outputs[i].sequence` / `.optional`) gives those as AnyOutputValue: an array of
     *  OutputValue (without `tensor`), or null for an empty optional. */
    run(feeds: Record<string, Feed> | Feed, options?: { tensors?: boolean }): Promise<Record<string, OutputValue>>;
    toString(): string;
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
    Session: typeof Session;
    op: typeof op;
    sha256: typeof sha256;
    toHex: typeof toHex;
    ops: typeof ops;
    methodName: typeof methodName;
    /**
     * The device the tensors live on, as a WebGPU GPUDevice (one per script): render and compute
     * passes made with it read tensors' `gpuBuffer` with no copy through the host, and a canvas
     * configured with it presents what they draw.
     */
    readonly device: GPUDevice;
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
    /** ONNX IsInf (1 input): true where the element is +inf (detect_positive) or -inf (detect_negative) */
    isInf: OpMethod;
    /** ONNX IsNaN (1 input): true where the element is NaN */
    isNaN: OpMethod;
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
    /** ONNX ThresholdedRelu (1 input): ThresholdedRelu activation */
    thresholdedRelu: OpMethod;
    /** ONNX Shrink (1 input): Shrink activation */
    shrink: OpMethod;
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
    /** ONNX BitShift (2 inputs): BitShift, broadcasting */
    bitShift: OpMethod;
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
    /** ONNX CastLike (2 inputs): Cast to the dtype of the second input (only its dtype is read) */
    castLike: OpMethod;
    /** ONNX MatMul (2 inputs): matrix product, numpy semantics (batched, broadcast batch dimensions) */
    matMul: OpMethod;
    /** ONNX Gemm (2-3 inputs): alpha * op(A) op(B) + beta * C, C broadcast to [M, N] */
    gemm: OpMethod;
    /** ONNX Trilu (1-2 inputs): upper (upper=1) or lower triangle of the last two dimensions; k shifts the diagonal */
    trilu: OpMethod;
    /** ONNX EyeLike (1 input): ones on the k-th diagonal of a 2-D tensor shaped like the input (a host-built constant) */
    eyeLike: OpMethod;
    /** ONNX Det (1 input): determinant of each square matrix in the last two dimensions (M <= 16) */
    det: OpMethod;
    /** ONNX Softmax (1 input): normalised exponential along an axis */
    softmax: OpMethod;
    /** ONNX LogSoftmax (1 input): log of the normalised exponential along an axis */
    logSoftmax: OpMethod;
    /** ONNX Reshape (2 inputs): the same elements under a new shape (a view; no copy for contiguous input) */
    reshape: OpMethod;
    /** ONNX Transpose (1 input): dimensions permuted (a strided view) */
    transpose: OpMethod;
    /** ONNX Squeeze (1 input): size-1 dimensions removed (a view) */
    squeeze: OpMethod;
    /** ONNX Unsqueeze (1 input): size-1 dimensions inserted (a view) */
    unsqueeze: OpMethod;
    /** ONNX Flatten (1 input): 2-D view [prod(dims[:axis]), prod(dims[axis:])] */
    flatten: OpMethod;
    /** ONNX Expand (2 inputs): broadcast to a shape (a stride-0 view) */
    expand: OpMethod;
    /** ONNX Slice (1 input): elements [start, end) by step along some axes (a view for positive steps) */
    slice: OpMethod;
    /** ONNX Split (1-2 inputs): consecutive pieces along an axis (views; sizes given, or equal parts) */
    split: OpMethod;
    /** ONNX Concat (1-4096 inputs): inputs joined along an axis */
    concat: OpMethod;
    /** ONNX Pad (1 input): pads (or crops, when negative) each dimension: constant, edge, reflect or wrap */
    pad: OpMethod;
    /** ONNX Tile (2 inputs): the input repeated along each dimension (an expanded view, then one copy) */
    tile: OpMethod;
    /** ONNX DepthToSpace (1 input): channel blocks moved into space (DCR or CRD order) */
    depthToSpace: OpMethod;
    /** ONNX SpaceToDepth (1 input): spatial blocks moved into channels */
    spaceToDepth: OpMethod;
    /** ONNX Dropout (1 input): inference: the input unchanged (the optional mask is all true) */
    dropout: OpMethod;
    /** ONNX Gather (2 inputs): slices of one axis picked by an index tensor */
    gather: OpMethod;
    /** ONNX GatherElements (2 inputs): each output element reads data at its own coordinates, the axis one from indices */
    gatherElements: OpMethod;
    /** ONNX Scatter (3 inputs): a copy of data with updates written at indexed positions along an axis */
    scatter: OpMethod;
    /** ONNX ScatterElements (3 inputs): a copy of data with updates written at indexed positions along an axis */
    scatterElements: OpMethod;
    /** ONNX OneHot (3 inputs): indices expanded to one-hot rows of `depth` along an axis */
    oneHot: OpMethod;
    /** ONNX GatherND (2 inputs): slices of data addressed by index tuples (the last indices dimension), batch_dims leading */
    gatherND: OpMethod;
    /** ONNX ScatterND (3 inputs): copy of data with slices addressed by index tuples replaced (or combined: reduction) */
    scatterND: OpMethod;
    /** ONNX ReverseSequence (2 inputs): reverses the first sequence_lens[b] steps along time_axis of each batch entry */
    reverseSequence: OpMethod;
    /** ONNX Compress (2 inputs): slices along an axis (or elements of the flattened input) where condition is true; condition must be known at plan time */
    compress: OpMethod;
    /** ONNX Upsample (1 input): nearest / linear resampling by scales (asymmetric coordinates) */
    upsample: OpMethod;
    /** ONNX Resize (2 inputs): nearest / linear resampling by scales (asymmetric coordinates) */
    resize: OpMethod;
    /** ONNX GridSample (2 inputs): samples X [N, C, H, W] at the grid's normalised (x, y) points: bilinear, nearest or bicubic */
    gridSample: OpMethod;
    /** ONNX RoiAlign (3 inputs): per region of interest, bins of bilinear samples averaged (avg) or maxed (max) */
    roiAlign: OpMethod;
    /** ONNX Shape (1 input): the input's shape as a 1-D i32 tensor */
    shape: OpMethod;
    /** ONNX Size (1 input): the input's element count as an i32 scalar */
    size: OpMethod;
    /** ONNX Constant (0 inputs): a tensor given by an attribute */
    constant: OpMethod;
    /** ONNX ConstantOfShape (1 input): a tensor of the given shape filled with one value */
    constantOfShape: OpMethod;
    /** ONNX Range (3 inputs): start, start + delta, ... up to limit (exclusive) */
    range: OpMethod;
    /** ONNX Sum (1-64 inputs): elementwise sum of all inputs (broadcasting) */
    sum: OpMethod;
    /** ONNX Mean (1-64 inputs): elementwise mean of all inputs (broadcasting) */
    mean: OpMethod;
    /** ONNX Conv (2-3 inputs): N-d convolution (1-D to 3-D): groups, dilations, strides, pads, auto_pad, optional bias */
    conv: OpMethod;
    /** ONNX ConvTranspose (2-3 inputs): transposed N-d convolution (1-D to 3-D): groups, dilations, strides, pads, output_padding, output_shape */
    convTranspose: OpMethod;
    /** ONNX MaxPool (1 input): maximum over sliding windows */
    maxPool: OpMethod;
    /** ONNX AveragePool (1 input): average over sliding windows */
    averagePool: OpMethod;
    /** ONNX GlobalMaxPool (1 input): maximum over all spatial positions */
    globalMaxPool: OpMethod;
    /** ONNX GlobalAveragePool (1 input): average over all spatial positions */
    globalAveragePool: OpMethod;
    /** ONNX MaxUnpool (2-3 inputs): zeros of the unpooled shape (or output_shape) with X written at MaxPool's Indices I */
    maxUnpool: OpMethod;
    /** ONNX BatchNormalization (5 inputs): per-channel normalisation with given statistics (inference) */
    batchNormalization: OpMethod;
    /** ONNX InstanceNormalization (3 inputs): per (batch, channel) normalisation over the spatial axes, then scale and B per channel */
    instanceNormalization: OpMethod;
    /** ONNX LayerNormalization (2-3 inputs): normalisation over the axes from `axis` on, then Scale and B; Mean and InvStdDev outputs */
    layerNormalization: OpMethod;
    /** ONNX MeanVarianceNormalization (1 input): (X - mean) / (std + 1e-9) over the given axes */
    meanVarianceNormalization: OpMethod;
    /** ONNX LpNormalization (1 input): X divided by its L1 or L2 norm along one axis (a zero norm gives 0) */
    lpNormalization: OpMethod;
    /** ONNX LRN (1 input): local response normalisation across channels */
    lRN: OpMethod;
    /** ONNX ReduceSum (1 input): reduction (pre x, sum, post none) over axes given as an attribute */
    reduceSum: OpMethod;
    /** ONNX ReduceMean (1 input): reduction (pre x, sum, post mean) over axes given as an attribute */
    reduceMean: OpMethod;
    /** ONNX ReduceMax (1 input): reduction (pre x, max, post none) over axes given as an attribute */
    reduceMax: OpMethod;
    /** ONNX ReduceMin (1 input): reduction (pre x, min, post none) over axes given as an attribute */
    reduceMin: OpMethod;
    /** ONNX ReduceProd (1 input): reduction (pre x, prod, post none) over axes given as an attribute */
    reduceProd: OpMethod;
    /** ONNX ReduceL1 (1 input): reduction (pre abs, sum, post none) over axes given as an attribute */
    reduceL1: OpMethod;
    /** ONNX ReduceL2 (1 input): reduction (pre square, sum, post sqrt) over axes given as an attribute */
    reduceL2: OpMethod;
    /** ONNX ReduceLogSum (1 input): reduction (pre x, sum, post log) over axes given as an attribute */
    reduceLogSum: OpMethod;
    /** ONNX ReduceLogSumExp (1 input): reduction (pre x, lse, post none) over axes given as an attribute */
    reduceLogSumExp: OpMethod;
    /** ONNX ReduceSumSquare (1 input): reduction (pre square, sum, post none) over axes given as an attribute */
    reduceSumSquare: OpMethod;
    /** ONNX CumSum (2 inputs): prefix sums along an axis (input 1), inclusive or exclusive, forwards or reversed */
    cumSum: OpMethod;
    /** ONNX ArgMax (1 input): index (i32) of the largest element along an axis */
    argMax: OpMethod;
    /** ONNX ArgMin (1 input): index (i32) of the smallest element along an axis */
    argMin: OpMethod;
    /** ONNX Hardmax (1 input): 1 at the first maximum of each row of the input flattened to 2-D at axis, 0 elsewhere */
    hardmax: OpMethod;
    /** ONNX TopK (1 input): the k largest (or smallest) elements along an axis and their i32 indices; ties: lower index first */
    topK: OpMethod;
    /** ONNX Einsum (1-7 inputs): Einstein summation: batched-matmul shapes run as MatMul, any other equation (diagonals, "..." broadcasting, implicit output, 3+ operands) by a generic kernel */
    einsum: OpMethod;
    /** ONNX RNN (3-6 inputs): Elman RNN over a sequence (one fused dispatch) */
    rNN: OpMethod;
    /** ONNX GRU (3-6 inputs): GRU over a sequence (one fused dispatch) */
    gRU: OpMethod;
    /** ONNX LSTM (3-8 inputs): LSTM over a sequence, with peepholes (one fused dispatch) */
    lSTM: OpMethod;
    /** ONNX NegativeLogLikelihoodLoss (2-3 inputs): negative log-likelihood of class targets, with class weights and ignore_index */
    negativeLogLikelihoodLoss: OpMethod;
    /** ONNX SoftmaxCrossEntropyLoss (2-3 inputs): cross entropy of softmax(scores) against class targets; second output log_prob */
    softmaxCrossEntropyLoss: OpMethod;
    /** ONNX HannWindow (1 input): window function of the given size (a host-built constant) */
    hannWindow: OpMethod;
    /** ONNX MelWeightMatrix (5 inputs): triangular mel filters [dft_length / 2 + 1, num_mel_bins] (a host-built constant) */
    melWeightMatrix: OpMethod;
    /** ONNX HammingWindow (1 input): window function of the given size (a host-built constant) */
    hammingWindow: OpMethod;
    /** ONNX BlackmanWindow (1 input): window function of the given size (a host-built constant) */
    blackmanWindow: OpMethod;
    /** ONNX DFT (1-2 inputs): discrete Fourier transform along one signal axis (naive O(L^2)), real or complex input */
    dFT: OpMethod;
    /** ONNX STFT (2-4 inputs): short-time Fourier transform: windowed frames, each a naive DFT (frame_step, frame_length known at plan time) */
    sTFT: OpMethod;
    /** ONNX QuantizeLinear (2-3 inputs): saturate(round(x / scale) + zero_point) to uint8 (u32) or int8 (i32), per tensor or per axis */
    quantizeLinear: OpMethod;
    /** ONNX DequantizeLinear (2-3 inputs): (x - zero_point) * scale, per tensor or per axis */
    dequantizeLinear: OpMethod;
    /** ONNX DynamicQuantizeLinear (1 input): uint8 quantization with scale and zero point computed from the data (outputs y, scale, zero point) */
    dynamicQuantizeLinear: OpMethod;
    /** ONNX MatMulInteger (2-4 inputs): uint8/int8 MatMul to int32: exact sums of (a - a_zero_point)(b - b_zero_point), zero points per tensor, per row of A, per column of B */
    matMulInteger: OpMethod;
    /** ONNX QLinearMatMul (8 inputs): uint8/int8 MatMul: exact i32 accumulation of (a - a_zp)(b - b_zp), requantized with a_scale * b_scale / y_scale to y_zero_point's type (per-row a, per-column b parameters) */
    qLinearMatMul: OpMethod;
    /** ONNX ConvInteger (2-4 inputs): uint8/int8 Conv to int32: exact sums of (x - x_zero_point)(w - w_zero_point); padding reads x_zero_point; w_zero_point per tensor or per output channel */
    convInteger: OpMethod;
    /** ONNX QLinearConv (8-9 inputs): uint8/int8 Conv: exact i32 accumulation (plus the int32 bias), requantized with x_scale * w_scale / y_scale (w per output channel) to y_zero_point's type */
    qLinearConv: OpMethod;
    /** ONNX RandomUniform (0 inputs): uniform[low, high) samples of a given shape; counter-based generator, seeded */
    randomUniform: OpMethod;
    /** ONNX RandomUniformLike (1 input): uniform[low, high) samples of the input's shape; counter-based generator, seeded */
    randomUniformLike: OpMethod;
    /** ONNX RandomNormal (0 inputs): normal(mean, scale) samples of a given shape; counter-based generator, seeded */
    randomNormal: OpMethod;
    /** ONNX RandomNormalLike (1 input): normal(mean, scale) samples of the input's shape; counter-based generator, seeded */
    randomNormalLike: OpMethod;
    /** ONNX Bernoulli (1 input): 1 with probability p (input), else 0; counter-based generator, seeded */
    bernoulli: OpMethod;
    /** ONNX Adagrad (5-194 inputs): Adagrad step over any number of tensors (ai.onnx.preview.training) */
    adagrad: OpMethod;
    /** ONNX Momentum (5-194 inputs): Momentum step over any number of tensors (ai.onnx.preview.training) */
    momentum: OpMethod;
    /** ONNX Adam (6-258 inputs): Adam step over any number of tensors (ai.onnx.preview.training) */
    adam: OpMethod;
    // END GENERATED OPS
  }
  const compute: Compute;
  export default compute;
}
