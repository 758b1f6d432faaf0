// alknet-compute: linalg/matmul.wgsl.hbs
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> out0: array<f32>;

struct MatMulParams {
  M: u32,
  N: u32,
  K: u32,
  batch: u32,
  lda: u32,  // elements between rows of the stored A (A^T's rows when transposed)
  ldb: u32,
  c_row_stride: u32,  // C broadcast to [M, N]: 0 along a broadcast dimension
  c_col_stride: u32,
  alpha: f32,
  beta: f32,
  splits: u32,  // split-K: the K slices (alknet.MatMulPartial, MatMulSplitKSum); 0 elsewhere
  k_slice: u32,  // and the K of each (a multiple of BK; the last slice ends at K)
  batch_extent: vec4<u32>,  // the output's batch dimensions, innermost first, 1 past the last
  a_batch_stride: vec4<u32>,  // 0 where A broadcasts
  b_batch_stride: vec4<u32>,
}

@group(0) @binding(3) var<uniform> P: MatMulParams;

// Offsets of A's and B's matrices for output batch `batch` (numpy broadcasting).
fn batch_offsets(batch: u32) -> vec2<u32> {
  var r = batch;
  var o = vec2<u32>(0u, 0u);
  for (var d = 0u; d < 4u; d++) {
    let c = r % P.batch_extent[d];
    r = r / P.batch_extent[d];
    o += c * vec2<u32>(P.a_batch_stride[d], P.b_batch_stride[d]);
  }
  return o;
}

// Gemm's epilogue for output (m, n): alpha * acc + beta * C[m, n] (MatMul: alpha 1, no C).
fn epilogue(acc: f32, m: u32, n: u32) -> f32 {
  return P.alpha * acc;
}

// kernel: tiled 64x64x16, 4x4 per invocation, two workgroup-memory stages
const BM = 64u;
const BN = 64u;
const BK = 16u;
const WX = 16u;  // invocations along N (x) and M (y)
const WY = 16u;
const THREADS = 256u;
const A_STAGE = 256u;  // vec4 per stage: BK * BM / 4
const B_STAGE = 256u;

var<workgroup> tile_a: array<vec4<f32>, 512>;  // 2 stages of [k][m / 4]
var<workgroup> tile_b: array<vec4<f32>, 512>;  // 2 stages of [k][n / 4]

// A[m, k..k+3] and B[k, n..n+3] of the batch's matrices, zero outside them.
fn load_a4(base: u32, m: u32, k: u32) -> vec4<f32> {
  var v = vec4<f32>(0.0);
  for (var j = 0u; j < 4u; j++) {
    if (m < P.M && k + j < P.K) {
      v[j] = a[base + m * P.lda + k + j];
    }
  }
  return v;
}

fn load_b4(base: u32, k: u32, n: u32) -> vec4<f32> {
  var v = vec4<f32>(0.0);
  for (var j = 0u; j < 4u; j++) {
    if (k < P.K && n + j < P.N) {
      v[j] = b[base + k * P.ldb + n + j];
    }
  }
  return v;
}

// Load i (of BM * BK / 4) of A's tile at k0, and of B's (BK * BN / 4). Where a tile has
// fewer vec4s than the invocations' loads, the extra ones load and store nothing.
fn load_a(base: u32, row0: u32, k0: u32, i: u32) -> vec4<f32> {
  return load_a4(base, row0 + i / (BK / 4u), k0 + (i % (BK / 4u)) * 4u);
}

fn load_b(base: u32, col0: u32, k0: u32, i: u32) -> vec4<f32> {
  return load_b4(base, k0 + i / (BN / 4u), col0 + (i % (BN / 4u)) * 4u);
}

// A load into a stage of workgroup memory, transposed; a B load as it is.
fn store_a(stage: u32, i: u32, v: vec4<f32>) {
  let mi = i / (BK / 4u);
  let kk = (i % (BK / 4u)) * 4u;
  let base = stage * A_STAGE + mi / 4u;
  tile_a[base + (kk + 0u) * (BM / 4u)][mi % 4u] = v.x;
  tile_a[base + (kk + 1u) * (BM / 4u)][mi % 4u] = v.y;
  tile_a[base + (kk + 2u) * (BM / 4u)][mi % 4u] = v.z;
  tile_a[base + (kk + 3u) * (BM / 4u)][mi % 4u] = v.w;
}

fn store_b(stage: u32, i: u32, v: vec4<f32>) {
  tile_b[stage * B_STAGE + i] = v;
}

// Output (m, n..n+3) through the epilogue, bounds-checked.
fn store_out(out_base: u32, m: u32, n: u32, v: vec4<f32>) {
  if (m >= P.M || n >= P.N) { return; }
  for (var j = 0u; j < 4u; j++) {
    if (n + j < P.N) { out0[out_base + m * P.N + n + j] = epilogue(v[j], m, n + j); }
  }
}

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let off = batch_offsets(wg.z);
  let row0 = wg.y * BM;
  let col0 = wg.x * BN;
  let tid = lid.y * WX + lid.x;
  var acc_0_0_0 = vec4<f32>(0.0);
  var acc_0_1_0 = vec4<f32>(0.0);
  var acc_0_2_0 = vec4<f32>(0.0);
  var acc_0_3_0 = vec4<f32>(0.0);

  let tiles = (P.K + BK - 1u) / BK;
  var na0 = load_a(off.x, row0, 0u, tid + 0u * THREADS);
  var nb0 = load_b(off.y, col0, 0u, tid + 0u * THREADS);
  store_a(0u, tid + 0u * THREADS, na0);
  store_b(0u, tid + 0u * THREADS, nb0);
  workgroupBarrier();
  for (var t = 0u; t < tiles; t++) {
    let cur = t % 2u;
    let more = t + 1u < tiles;
    if (more) {
      let k0 = (t + 1u) * BK;
      na0 = load_a(off.x, row0, k0, tid + 0u * THREADS);
      nb0 = load_b(off.y, col0, k0, tid + 0u * THREADS);
    }
    let abase = cur * A_STAGE + lid.y;
    let bbase = cur * B_STAGE + lid.x;
    for (var kk = 0u; kk < BK; kk++) {
      let a0 = tile_a[abase + kk * (BM / 4u) + 0u * WY];
      let b0 = tile_b[bbase + kk * (BN / 4u) + 0u * WX];
      acc_0_0_0 = fma(vec4<f32>(a0.x), b0, acc_0_0_0);
      acc_0_1_0 = fma(vec4<f32>(a0.y), b0, acc_0_1_0);
      acc_0_2_0 = fma(vec4<f32>(a0.z), b0, acc_0_2_0);
      acc_0_3_0 = fma(vec4<f32>(a0.w), b0, acc_0_3_0);
    }
    if (more) {
      store_a(1u - cur, tid + 0u * THREADS, na0);
      store_b(1u - cur, tid + 0u * THREADS, nb0);
    }
    workgroupBarrier();
  }

  let out_base = wg.z * P.M * P.N;
  store_out(out_base, row0 + 0u * (BM / 1u) + lid.y * 4u + 0u, col0 + 0u * (BN / 1u) + lid.x * 4u, acc_0_0_0);
  store_out(out_base, row0 + 0u * (BM / 1u) + lid.y * 4u + 1u, col0 + 0u * (BN / 1u) + lid.x * 4u, acc_0_1_0);
  store_out(out_base, row0 + 0u * (BM / 1u) + lid.y * 4u + 2u, col0 + 0u * (BN / 1u) + lid.x * 4u, acc_0_2_0);
  store_out(out_base, row0 + 0u * (BM / 1u) + lid.y * 4u + 3u, col0 + 0u * (BN / 1u) + lid.x * 4u, acc_0_3_0);
}
