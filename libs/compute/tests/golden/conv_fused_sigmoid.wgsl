// alknet-compute: conv/conv.wgsl.hbs
const C = 3u;
const M = 4u;
const CG = 3u;
const MG = 4u;
const GROUPS = 1u;
const K = 27u;
const P = 36u;
const ID = 1u;
const IH = 8u;
const IW = 8u;
const OD = 1u;
const OH = 6u;
const OW = 6u;
const KD = 1u;
const KH = 3u;
const KW = 3u;
const SD = 1;
const SH = 1;
const SW = 1;
const DLD = 1;
const DLH = 1;
const DLW = 1;
const PD = 0;
const PH = 0;
const PW = 0;
const ISP = ID * IH * IW;
const KSP = KD * KH * KW;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read_write> out0: array<vec4<f32>>;

alias T = vec4<f32>;
fn sigmoid(x: T) -> T {
  let e = exp(-abs(x));
  return select(e / (T(1.0) + e), T(1.0) / (T(1.0) + e), x >= T(0));
}
fn act(v: T) -> T {
  return sigmoid(v);
}

const TM = 32u;
const TN = 32u;

const THREADS = 8u * 8u;
var<workgroup> tile_a: array<vec4<f32>, 4u * TM>;  // [k][m / 4], component m % 4
var<workgroup> tile_b: array<vec4<f32>, 4u * TN>;  // [k][p / 4]

// col[k, p..p+3] for one batch and group (zero outside the input and past K or P).
fn col4(x_base: u32, k: u32, p: u32) -> vec4<f32> {
  var v = vec4<f32>(0.0);
  if (k >= K) { return v; }
  let c = k / KSP;
  let t = k % KSP;
  let kz = i32(t / (KH * KW));
  let ky = i32((t / KW) % KH);
  let kx = i32(t % KW);
  let xc = x_base + c * ISP;
  for (var j = 0u; j < 4u; j++) {
    let q = p + j;
    if (q >= P) { break; }
    let z = i32(q / (OH * OW)) * SD - PD + kz * DLD;
    let y = i32((q / OW) % OH) * SH - PH + ky * DLH;
    let xx = i32(q % OW) * SW - PW + kx * DLW;
    if (u32(z) < ID && u32(y) < IH && u32(xx) < IW) {
      v[j] = x[xc + (u32(z) * IH + u32(y)) * IW + u32(xx)];
    }
  }
  return v;
}

// W[row, k..k+3] (zero past MG or K); `row` counts within the group.
fn w4(w_base: u32, row: u32, k: u32) -> vec4<f32> {
  if (row >= MG || k >= K) { return vec4<f32>(0.0); }
  var v = vec4<f32>(0.0);
  for (var j = 0u; j < 4u; j++) {
    if (k + j < K) { v[j] = w[w_base + row * K + k + j]; }
  }
  return v;
}

@compute @workgroup_size(8, 8, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let n = wg.z / GROUPS;
  let g = wg.z % GROUPS;
  let out_base = (n * M + g * MG) * P;
  let x_base = (n * C + g * CG) * ISP;
  let w_base = g * MG * K;
  let row0 = wg.y * TM;
  let col0 = wg.x * TN;
  let m0 = row0 + lid.y * 4u;
  let p0 = col0 + lid.x * 4u;
  var acc: array<vec4<f32>, 4>;

  let tid = lid.y * 8u + lid.x;
  for (var k0 = 0u; k0 < K; k0 += 16u) {
    for (var e = tid; e < 4u * TM; e += THREADS) {
      let mi = e / 4u;
      let kk = (e % 4u) * 4u;
      let v = w4(w_base, row0 + mi, k0 + kk);
      tile_a[(kk + 0u) * (TM / 4u) + mi / 4u][mi % 4u] = v.x;
      tile_a[(kk + 1u) * (TM / 4u) + mi / 4u][mi % 4u] = v.y;
      tile_a[(kk + 2u) * (TM / 4u) + mi / 4u][mi % 4u] = v.z;
      tile_a[(kk + 3u) * (TM / 4u) + mi / 4u][mi % 4u] = v.w;
    }
    for (var e = tid; e < 4u * TN; e += THREADS) {
      let kk = e / (TN / 4u);
      let n4 = e % (TN / 4u);
      tile_b[kk * (TN / 4u) + n4] = col4(x_base, k0 + kk, col0 + n4 * 4u);
    }
    workgroupBarrier();
    for (var kk = 0u; kk < 16u; kk++) {
      let av = tile_a[kk * (TM / 4u) + lid.y];
      let bv = tile_b[kk * (TN / 4u) + lid.x];
      acc[0] = fma(vec4<f32>(av.x), bv, acc[0]);
      acc[1] = fma(vec4<f32>(av.y), bv, acc[1]);
      acc[2] = fma(vec4<f32>(av.z), bv, acc[2]);
      acc[3] = fma(vec4<f32>(av.w), bv, acc[3]);
    }
    workgroupBarrier();
  }

  let p = col0 + lid.x * 4u;
  if (p >= P) { return; }
  for (var r = 0u; r < 4u; r++) {
    let m = row0 + lid.y * 4u + r;
    if (m >= MG) { break; }
    let v = act(acc[r]);
    out0[(out_base + m * P + p) / 4u] = v;
  }
}
