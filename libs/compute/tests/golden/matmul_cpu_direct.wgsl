// alknet-compute: linalg/matmul.wgsl.hbs
const M = 64u;
const N = 64u;
const K = 64u;
const TILE_K = 16u;

@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out0: array<vec4<f32>>;

var<workgroup> tile_a: array<vec4<f32>, 256>;  // [k][m / 4], component m % 4
var<workgroup> tile_b: array<vec4<f32>, 256>;  // [k][n / 4]

fn in0_index(i: u32) -> u32 {
  var r = i;
  var o = 0u;
  return o;
}

fn in1_index(i: u32) -> u32 {
  var r = i;
  var o = 0u;
  return o;
}

// A[m, k..k+3] and B[k, n..n+3], zero outside the matrices.
fn load_a4(base: u32, m: u32, k: u32) -> vec4<f32> {
  if (m >= M || k >= K) { return vec4<f32>(0.0); }
  return a[(base + m * K + k) / 4u];
}

fn load_b4(base: u32, k: u32, n: u32) -> vec4<f32> {
  if (k >= K || n >= N) { return vec4<f32>(0.0); }
  return b[(base + k * N + n) / 4u];
}

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let batch = wg.z;
  let a_base = in0_index(batch);
  let b_base = in1_index(batch);
  let out_base = batch * M * N;
  let row0 = wg.y * 64u;
  let col0 = wg.x * 64u;
  let tid = lid.y * 16u + lid.x;
  var acc: array<vec4<f32>, 4>;

  {
    // No staging: each invocation reads its four rows of A and four columns of B straight
    // from storage, four k at a time (CPU caches do what workgroup memory does on a GPU).
    let m0 = row0 + lid.y * 4u;
    let n0 = col0 + lid.x * 4u;
    for (var k = 0u; k < K; k += 4u) {
      let b0 = load_b4(b_base, k, n0);
      let b1 = load_b4(b_base, k + 1u, n0);
      let b2 = load_b4(b_base, k + 2u, n0);
      let b3 = load_b4(b_base, k + 3u, n0);
      for (var r = 0u; r < 4u; r++) {
        let a = load_a4(a_base, m0 + r, k);
        acc[r] = fma(vec4<f32>(a.x), b0, fma(vec4<f32>(a.y), b1, fma(vec4<f32>(a.z), b2, fma(vec4<f32>(a.w), b3, acc[r]))));
      }
    }
  }

  let n = col0 + lid.x * 4u;
  for (var i = 0u; i < 4u; i++) {
    let m = row0 + lid.y * 4u + i;
    if (m >= M || n >= N) { continue; }
    var r = acc[i];
    out0[(out_base + m * N + n) / 4u] = r;
  }
}
