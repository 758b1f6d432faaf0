// alknet-compute: linalg/matmul.wgsl.hbs
const M = 7u;
const N = 5u;
const K = 13u;
const TILE_K = 16u;

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read> c: array<f32>;
@group(0) @binding(3) var<storage, read_write> out0: array<f32>;

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

fn load_a(base: u32, m: u32, k: u32) -> f32 {
  if (m >= M || k >= K) { return 0.0; }
  return a[base + m * K + k];
}

fn load_b(base: u32, k: u32, n: u32) -> f32 {
  if (k >= K || n >= N) { return 0.0; }
  return b[base + n * K + k];
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

  for (var k0 = 0u; k0 < K; k0 += TILE_K) {
    {
      let mi = tid / 4u;
      let kk = (tid % 4u) * 4u;
      let m = row0 + mi;
      let k = k0 + kk;
      let v = vec4<f32>(load_a(a_base, m, k), load_a(a_base, m, k + 1u),
                        load_a(a_base, m, k + 2u), load_a(a_base, m, k + 3u));
      tile_a[(kk + 0u) * 16u + mi / 4u][mi % 4u] = v.x;
      tile_a[(kk + 1u) * 16u + mi / 4u][mi % 4u] = v.y;
      tile_a[(kk + 2u) * 16u + mi / 4u][mi % 4u] = v.z;
      tile_a[(kk + 3u) * 16u + mi / 4u][mi % 4u] = v.w;
    }
    {
      let kk = tid / 16u;
      let n4 = tid % 16u;
      let k = k0 + kk;
      let n = col0 + n4 * 4u;
      let v = vec4<f32>(load_b(b_base, k, n), load_b(b_base, k, n + 1u),
                        load_b(b_base, k, n + 2u), load_b(b_base, k, n + 3u));
      tile_b[kk * 16u + n4] = v;
    }
    workgroupBarrier();
    for (var kk = 0u; kk < TILE_K; kk++) {
      let av = tile_a[kk * 16u + lid.y];
      let bv = tile_b[kk * 16u + lid.x];
      acc[0] = fma(vec4<f32>(av.x), bv, acc[0]);
      acc[1] = fma(vec4<f32>(av.y), bv, acc[1]);
      acc[2] = fma(vec4<f32>(av.z), bv, acc[2]);
      acc[3] = fma(vec4<f32>(av.w), bv, acc[3]);
    }
    workgroupBarrier();
  }

  let n = col0 + lid.x * 4u;
  for (var i = 0u; i < 4u; i++) {
    let m = row0 + lid.y * 4u + i;
    if (m >= M || n >= N) { continue; }
    var r = acc[i] * 0.5;
    for (var j = 0u; j < 4u; j++) {
      if (n + j < N) { r[j] += 1.0 * c[0u + m * 0u + (n + j) * 1u]; }
    }
    for (var j = 0u; j < 4u; j++) {
      if (n + j < N) { out0[out_base + m * N + n + j] = r[j]; }
    }
  }
}
