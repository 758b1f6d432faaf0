// alknet-compute: linalg/matmul.wgsl.hbs
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out0: array<vec4<f32>>;

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

// kernel: rows (four columns per lane, R uniform rows)
const R = 4u;

// A[m, k..k+3] (k + 3 < K), at a uniform address.
fn load_a4(base: u32, m: u32, k: u32) -> vec4<f32> {
  return a[(base + m * P.lda + k) / 4u];
}

fn load_a1(base: u32, m: u32, k: u32) -> f32 {
  let i = base + m * P.lda + k;
  return a[i / 4u][i % 4u];
}

// B[k, n..n+3]; columns past N read anything in bounds, and are never stored.
fn load_b4(base: u32, k: u32, n: u32) -> vec4<f32> {
  return b[(base + k * P.ldb + n) / 4u];
}

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let off = batch_offsets(wg.z);
  // Row blocks run along x, so workgroups that run one after another share B's columns.
  let n = (wg.y * 64u + lid.x) * 4u;
  let m0 = wg.x * R;
  // Rows past M repeat the last one (loads stay in bounds); their sums are never stored.
  let row0 = min(m0 + 0u, P.M - 1u);
  var acc0 = vec4<f32>(0.0);
  let row1 = min(m0 + 1u, P.M - 1u);
  var acc1 = vec4<f32>(0.0);
  let row2 = min(m0 + 2u, P.M - 1u);
  var acc2 = vec4<f32>(0.0);
  let row3 = min(m0 + 3u, P.M - 1u);
  var acc3 = vec4<f32>(0.0);
  var k = 0u;
  for (; k + 4u <= P.K; k += 4u) {
    let b0 = load_b4(off.y, k, n);
    let b1 = load_b4(off.y, k + 1u, n);
    let b2 = load_b4(off.y, k + 2u, n);
    let b3 = load_b4(off.y, k + 3u, n);
    let a0 = load_a4(off.x, row0, k);
    acc0 = fma(vec4<f32>(a0.x), b0, fma(vec4<f32>(a0.y), b1, fma(vec4<f32>(a0.z), b2, fma(vec4<f32>(a0.w), b3, acc0))));
    let a1 = load_a4(off.x, row1, k);
    acc1 = fma(vec4<f32>(a1.x), b0, fma(vec4<f32>(a1.y), b1, fma(vec4<f32>(a1.z), b2, fma(vec4<f32>(a1.w), b3, acc1))));
    let a2 = load_a4(off.x, row2, k);
    acc2 = fma(vec4<f32>(a2.x), b0, fma(vec4<f32>(a2.y), b1, fma(vec4<f32>(a2.z), b2, fma(vec4<f32>(a2.w), b3, acc2))));
    let a3 = load_a4(off.x, row3, k);
    acc3 = fma(vec4<f32>(a3.x), b0, fma(vec4<f32>(a3.y), b1, fma(vec4<f32>(a3.z), b2, fma(vec4<f32>(a3.w), b3, acc3))));
  }
  for (; k < P.K; k++) {
    let bv = load_b4(off.y, k, n);
    acc0 = fma(vec4<f32>(load_a1(off.x, row0, k)), bv, acc0);
    acc1 = fma(vec4<f32>(load_a1(off.x, row1, k)), bv, acc1);
    acc2 = fma(vec4<f32>(load_a1(off.x, row2, k)), bv, acc2);
    acc3 = fma(vec4<f32>(load_a1(off.x, row3, k)), bv, acc3);
  }
  if (n >= P.N) { return; }
  let out_base = wg.z * P.M * P.N;
  if (m0 + 0u < P.M) {
    let m = m0 + 0u;
    out0[(out_base + m * P.N + n) / 4u] = vec4<f32>(epilogue(acc0.x, m, n), epilogue(acc0.y, m, n + 1u), epilogue(acc0.z, m, n + 2u), epilogue(acc0.w, m, n + 3u));
  }
  if (m0 + 1u < P.M) {
    let m = m0 + 1u;
    out0[(out_base + m * P.N + n) / 4u] = vec4<f32>(epilogue(acc1.x, m, n), epilogue(acc1.y, m, n + 1u), epilogue(acc1.z, m, n + 2u), epilogue(acc1.w, m, n + 3u));
  }
  if (m0 + 2u < P.M) {
    let m = m0 + 2u;
    out0[(out_base + m * P.N + n) / 4u] = vec4<f32>(epilogue(acc2.x, m, n), epilogue(acc2.y, m, n + 1u), epilogue(acc2.z, m, n + 2u), epilogue(acc2.w, m, n + 3u));
  }
  if (m0 + 3u < P.M) {
    let m = m0 + 3u;
    out0[(out_base + m * P.N + n) / 4u] = vec4<f32>(epilogue(acc3.x, m, n), epilogue(acc3.y, m, n + 1u), epilogue(acc3.z, m, n + 2u), epilogue(acc3.w, m, n + 3u));
  }
}
