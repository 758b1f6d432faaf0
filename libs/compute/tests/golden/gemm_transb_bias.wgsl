// alknet-compute: linalg/matmul.wgsl.hbs
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read> c: array<f32>;
@group(0) @binding(3) var<storage, read_write> out0: array<f32>;

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

@group(0) @binding(4) var<uniform> P: MatMulParams;

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
  return P.alpha * acc + P.beta * c[m * P.c_row_stride + n * P.c_col_stride];
}

// kernel: dot (lanes along K, one column per workgroup)
const R = 4u;

var<workgroup> sums: array<f32, 256>;  // [row][lane]

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let off = batch_offsets(wg.z);
  let n = wg.x;
  let m0 = wg.y * R;
  let row0 = min(m0 + 0u, P.M - 1u);
  var acc0 = 0.0;
  let row1 = min(m0 + 1u, P.M - 1u);
  var acc1 = 0.0;
  let row2 = min(m0 + 2u, P.M - 1u);
  var acc2 = 0.0;
  let row3 = min(m0 + 3u, P.M - 1u);
  var acc3 = 0.0;
  for (var k = lid.x; k < P.K; k += 64u) {
    let bv = b[off.y + n * P.ldb + k];
    acc0 = fma(a[off.x + row0 * P.lda + k], bv, acc0);
    acc1 = fma(a[off.x + row1 * P.lda + k], bv, acc1);
    acc2 = fma(a[off.x + row2 * P.lda + k], bv, acc2);
    acc3 = fma(a[off.x + row3 * P.lda + k], bv, acc3);
  }
  sums[0u * 64u + lid.x] = acc0;
  sums[1u * 64u + lid.x] = acc1;
  sums[2u * 64u + lid.x] = acc2;
  sums[3u * 64u + lid.x] = acc3;
  workgroupBarrier();
  for (var s = 32u; s > 0u; s = s >> 1u) {
    if (lid.x < s) {
      for (var r = 0u; r < R; r++) {
        sums[r * 64u + lid.x] += sums[r * 64u + lid.x + s];
      }
    }
    workgroupBarrier();
  }
  let m = m0 + lid.x;
  if (lid.x < R && m < P.M) {
    out0[wg.z * P.M * P.N + m * P.N + n] = epilogue(sums[lid.x * 64u], m, n);
  }
}
