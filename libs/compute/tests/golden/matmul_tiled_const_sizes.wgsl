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
  pad0: u32,
  pad1: u32,
  batch_extent: vec4<u32>,  // the output's batch dimensions, innermost first, 1 past the last
  a_batch_stride: vec4<u32>,  // 0 where A broadcasts
  b_batch_stride: vec4<u32>,
}

const P = MatMulParams(65u, 70u, 33u, 3u, 33u, 70u, 0u, 0u, bitcast<f32>(1065353216u), bitcast<f32>(0u), 0u, 0u, vec4<u32>(3u, 1u, 1u, 1u), vec4<u32>(2145u, 0u, 0u, 0u), vec4<u32>(0u, 0u, 0u, 0u));

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

// kernel: tiled 64x64, two workgroup-memory stages
const BM = 64u;
const BN = 64u;
const BK = 16u;
const G = 1u;  // 4x4 patches per invocation along each side
const A_STAGE = 256u;  // vec4 per stage: BK * BM / 4
const B_STAGE = 256u;
const LA = 1u;  // vec4 loads per invocation per tile: BM * BK / 1024
const LB = 1u;

var<workgroup> tile_a: array<vec4<f32>, 512>;  // 2 stages of [k][m / 4]
var<workgroup> tile_b: array<vec4<f32>, 512>;  // 2 stages of [k][n / 4]
var<private> next_a: array<vec4<f32>, 1>;
var<private> next_b: array<vec4<f32>, 1>;

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

// The tile at k0 into registers (global loads in flight while the block computes).
fn load_tile(off: vec2<u32>, row0: u32, col0: u32, k0: u32, tid: u32) {
  for (var j = 0u; j < LA; j++) {
    let i = tid + 256u * j;
    next_a[j] = load_a4(off.x, row0 + i / (BK / 4u), k0 + (i % (BK / 4u)) * 4u);
  }
  for (var j = 0u; j < LB; j++) {
    let i = tid + 256u * j;
    next_b[j] = load_b4(off.y, k0 + i / (BN / 4u), col0 + (i % (BN / 4u)) * 4u);
  }
}

// The registers into a stage of workgroup memory (A transposed).
fn store_tile(stage: u32, tid: u32) {
  for (var j = 0u; j < LA; j++) {
    let i = tid + 256u * j;
    let mi = i / (BK / 4u);
    let kk = (i % (BK / 4u)) * 4u;
    let base = stage * A_STAGE + mi / 4u;
    tile_a[base + (kk + 0u) * (BM / 4u)][mi % 4u] = next_a[j].x;
    tile_a[base + (kk + 1u) * (BM / 4u)][mi % 4u] = next_a[j].y;
    tile_a[base + (kk + 2u) * (BM / 4u)][mi % 4u] = next_a[j].z;
    tile_a[base + (kk + 3u) * (BM / 4u)][mi % 4u] = next_a[j].w;
  }
  for (var j = 0u; j < LB; j++) {
    let i = tid + 256u * j;
    tile_b[stage * B_STAGE + (i / (BN / 4u)) * (BN / 4u) + i % (BN / 4u)] = next_b[j];
  }
}

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let off = batch_offsets(wg.z);
  let row0 = wg.y * BM;
  let col0 = wg.x * BN;
  let tid = lid.y * 16u + lid.x;
  var acc: array<vec4<f32>, 4>;  // [4 G rows][G column groups]

  let tiles = (P.K + BK - 1u) / BK;
  load_tile(off, row0, col0, 0u, tid);
  store_tile(0u, tid);
  workgroupBarrier();
  for (var t = 0u; t < tiles; t++) {
    let cur = t % 2u;
    let more = t + 1u < tiles;
    if (more) { load_tile(off, row0, col0, (t + 1u) * BK, tid); }
    for (var kk = 0u; kk < BK; kk++) {
      var av: array<vec4<f32>, G>;
      var bv: array<vec4<f32>, G>;
      for (var g = 0u; g < G; g++) {
        av[g] = tile_a[cur * A_STAGE + kk * (BM / 4u) + g * (BM / (4u * G)) + lid.y];
        bv[g] = tile_b[cur * B_STAGE + kk * (BN / 4u) + g * (BN / (4u * G)) + lid.x];
      }
      for (var g = 0u; g < G; g++) {
        for (var h = 0u; h < G; h++) {
          acc[(g * 4u + 0u) * G + h] = fma(vec4<f32>(av[g].x), bv[h], acc[(g * 4u + 0u) * G + h]);
          acc[(g * 4u + 1u) * G + h] = fma(vec4<f32>(av[g].y), bv[h], acc[(g * 4u + 1u) * G + h]);
          acc[(g * 4u + 2u) * G + h] = fma(vec4<f32>(av[g].z), bv[h], acc[(g * 4u + 2u) * G + h]);
          acc[(g * 4u + 3u) * G + h] = fma(vec4<f32>(av[g].w), bv[h], acc[(g * 4u + 3u) * G + h]);
        }
      }
    }
    if (more) { store_tile(1u - cur, tid); }
    workgroupBarrier();
  }

  let out_base = wg.z * P.M * P.N;
  for (var g = 0u; g < G; g++) {
    for (var r = 0u; r < 4u; r++) {
      let m = row0 + g * (BM / G) + lid.y * 4u + r;
      if (m >= P.M) { continue; }
      for (var h = 0u; h < G; h++) {
        let n = col0 + h * (BN / G) + lid.x * 4u;
        if (n >= P.N) { continue; }
        let v = acc[(g * 4u + r) * G + h];
        for (var j = 0u; j < 4u; j++) {
          if (n + j < P.N) { out0[out_base + m * P.N + n + j] = epilogue(v[j], m, n + j); }
        }
      }
    }
  }
}
