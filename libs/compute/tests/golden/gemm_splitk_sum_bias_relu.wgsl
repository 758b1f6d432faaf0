// alknet-compute: linalg/matmul_splitk_sum.wgsl.hbs
@group(0) @binding(0) var<storage, read> partial: array<f32>;
@group(0) @binding(1) var<storage, read> c: array<f32>;
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
  let v = P.alpha * acc + P.beta * c[m * P.c_row_stride + n * P.c_col_stride];
  return max(v, 0.0);
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.x + gid.y * groups.x * 256u;
  let mn = P.M * P.N;
  let total = P.batch * mn;
  if (i >= total) { return; }
  var acc = 0.0;
  for (var s = 0u; s < P.splits; s++) {
    acc += partial[s * total + i];
  }
  let e = i % mn;
  out0[i] = epilogue(acc, e / P.N, e % P.N);
}
