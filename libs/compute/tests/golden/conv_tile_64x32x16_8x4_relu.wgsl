// alknet-compute: conv/conv.wgsl.hbs
const C = 5u;
const M = 6u;
const CG = 5u;
const MG = 6u;
const GROUPS = 1u;
const K = 45u;
const P = 63u;
const ID = 1u;
const IH = 7u;
const IW = 9u;
const OD = 1u;
const OH = 7u;
const OW = 9u;
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
const PH = 1;
const PW = 1;
const ISP = ID * IH * IW;
const KSP = KD * KH * KW;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> out0: array<f32>;

alias T = vec4<f32>;
fn relu(x: T) -> T { return max(x, T(0)); }
fn act(v: T) -> T {
  return relu(v);
}

// kernel: conv tiled 64x32x16, 8x4 per invocation, two workgroup-memory stages
const BM = 64u;
const BN = 32u;
const BK = 16u;
const WX = 8u;  // invocations along positions (x) and channels (y)
const WY = 8u;
const THREADS = 64u;
const A_STAGE = 256u;  // vec4 per stage: BK * BM / 4
const B_STAGE = 128u;

var<workgroup> tile_a: array<vec4<f32>, 512>;  // 2 stages of [k][m / 4]
var<workgroup> tile_b: array<vec4<f32>, 256>;  // 2 stages of [k][p / 4]

// W[row, k..k+3] of the group, zero past MG or k_end (`row` counts within the group).
fn w4(w_base: u32, row: u32, k: u32, k_end: u32) -> vec4<f32> {
  if (row >= MG || k >= k_end) { return vec4<f32>(0.0); }
  var v = vec4<f32>(0.0);
  for (var j = 0u; j < 4u; j++) {
    if (k + j < k_end) { v[j] = w[w_base + row * K + k + j]; }
  }
  return v;
}

// The windows of four neighbouring output positions: origins in the input (stride and pad
// applied) and which of the four are inside P.
struct Origin {
  z: vec4<i32>,
  y: vec4<i32>,
  x: vec4<i32>,
  ok: vec4<bool>,
}
fn origin(p: u32) -> Origin {
  var o: Origin;
  for (var j = 0u; j < 4u; j++) {
    let q = min(p + j, P - 1u);
    o.z[j] = i32(q / (OH * OW)) * SD - PD;
    o.y[j] = i32((q / OW) % OH) * SH - PH;
    o.x[j] = i32(q % OW) * SW - PW;
    o.ok[j] = p + j < P;
  }
  return o;
}

// col[k, p..p+3]: the input under tap k = (c, kz, ky, kx) of the four windows, zero in the
// padding, past P and past k_end.
fn col4(x_base: u32, k: u32, k_end: u32, o: Origin) -> vec4<f32> {
  if (k >= k_end) { return vec4<f32>(0.0); }
  let c = k / KSP;
  let t = k % KSP;
  let z = o.z + vec4<i32>(i32(t / (KH * KW)) * DLD);
  let y = o.y + vec4<i32>(i32((t / KW) % KH) * DLH);
  let xx = o.x + vec4<i32>(i32(t % KW) * DLW);
  let ok = o.ok & (z >= vec4<i32>(0)) & (z < vec4<i32>(i32(ID))) & (y >= vec4<i32>(0)) &
           (y < vec4<i32>(i32(IH))) & (xx >= vec4<i32>(0)) & (xx < vec4<i32>(i32(IW)));
  let pos = (z * i32(IH) + y) * i32(IW) + xx + vec4<i32>(i32(x_base + c * ISP));
  let idx = vec4<u32>(select(vec4<i32>(0), pos, ok));
  return select(vec4<f32>(0.0), vec4<f32>(x[idx.x], x[idx.y], x[idx.z], x[idx.w]), ok);
}

// Load i (of BM * BK / 4) of W's tile at k0, and of col's (BK * BN / 4). Where a tile has
// fewer vec4s than the invocations' loads, the extra ones load and store nothing.
fn load_a(w_base: u32, row0: u32, k0: u32, k_end: u32, i: u32) -> vec4<f32> {
  return w4(w_base, row0 + i / (BK / 4u), k0 + (i % (BK / 4u)) * 4u, k_end);
}

fn load_b(x_base: u32, k0: u32, k_end: u32, i: u32, o: Origin) -> vec4<f32> {
  return col4(x_base, k0 + i / (BN / 4u), k_end, o);
}

// A load into a stage of workgroup memory, transposed; a col load as it is.
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

// Channel m (of the group) at positions p..p+3 through the epilogue, bounds-checked.
fn store_out(out_base: u32, g: u32, m: u32, p: u32, a: vec4<f32>) {
  if (m >= MG || p >= P) { return; }
  let v = act(a + vec4<f32>(bias[g * MG + m]));
  for (var j = 0u; j < 4u; j++) {
    if (p + j < P) { out0[out_base + m * P + p + j] = v[j]; }
  }
}

@compute @workgroup_size(8, 8, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let n = wg.z / GROUPS;
  let g = wg.z % GROUPS;
  let k_begin = 0u;
  let k_end = K;
  let out_base = (n * M + g * MG) * P;
  let x_base = (n * C + g * CG) * ISP;
  let w_base = g * MG * K;
  let row0 = wg.y * BM;
  let col0 = wg.x * BN;
  let tid = lid.y * WX + lid.x;
  var acc_0_0_0 = vec4<f32>(0.0);
  var acc_0_1_0 = vec4<f32>(0.0);
  var acc_0_2_0 = vec4<f32>(0.0);
  var acc_0_3_0 = vec4<f32>(0.0);
  var acc_1_0_0 = vec4<f32>(0.0);
  var acc_1_1_0 = vec4<f32>(0.0);
  var acc_1_2_0 = vec4<f32>(0.0);
  var acc_1_3_0 = vec4<f32>(0.0);
  // Each col load keeps its positions through the K walk.
  let o0 = origin(col0 + ((tid + 0u * THREADS) % (BN / 4u)) * 4u);
  let o1 = origin(col0 + ((tid + 1u * THREADS) % (BN / 4u)) * 4u);

  let tiles = (k_end - k_begin + BK - 1u) / BK;
  var na0 = load_a(w_base, row0, k_begin, k_end, tid + 0u * THREADS);
  var na1 = load_a(w_base, row0, k_begin, k_end, tid + 1u * THREADS);
  var na2 = load_a(w_base, row0, k_begin, k_end, tid + 2u * THREADS);
  var na3 = load_a(w_base, row0, k_begin, k_end, tid + 3u * THREADS);
  var nb0 = load_b(x_base, k_begin, k_end, tid + 0u * THREADS, o0);
  var nb1 = load_b(x_base, k_begin, k_end, tid + 1u * THREADS, o1);
  store_a(0u, tid + 0u * THREADS, na0);
  store_a(0u, tid + 1u * THREADS, na1);
  store_a(0u, tid + 2u * THREADS, na2);
  store_a(0u, tid + 3u * THREADS, na3);
  store_b(0u, tid + 0u * THREADS, nb0);
  store_b(0u, tid + 1u * THREADS, nb1);
  workgroupBarrier();
  for (var t = 0u; t < tiles; t++) {
    let cur = t % 2u;
    let more = t + 1u < tiles;
    if (more) {
      let k0 = k_begin + (t + 1u) * BK;
      na0 = load_a(w_base, row0, k0, k_end, tid + 0u * THREADS);
      na1 = load_a(w_base, row0, k0, k_end, tid + 1u * THREADS);
      na2 = load_a(w_base, row0, k0, k_end, tid + 2u * THREADS);
      na3 = load_a(w_base, row0, k0, k_end, tid + 3u * THREADS);
      nb0 = load_b(x_base, k0, k_end, tid + 0u * THREADS, o0);
      nb1 = load_b(x_base, k0, k_end, tid + 1u * THREADS, o1);
    }
    let abase = cur * A_STAGE + lid.y;
    let bbase = cur * B_STAGE + lid.x;
    for (var kk = 0u; kk < BK; kk++) {
      let a0 = tile_a[abase + kk * (BM / 4u) + 0u * WY];
      let a1 = tile_a[abase + kk * (BM / 4u) + 1u * WY];
      let b0 = tile_b[bbase + kk * (BN / 4u) + 0u * WX];
      acc_0_0_0 = fma(vec4<f32>(a0.x), b0, acc_0_0_0);
      acc_0_1_0 = fma(vec4<f32>(a0.y), b0, acc_0_1_0);
      acc_0_2_0 = fma(vec4<f32>(a0.z), b0, acc_0_2_0);
      acc_0_3_0 = fma(vec4<f32>(a0.w), b0, acc_0_3_0);
      acc_1_0_0 = fma(vec4<f32>(a1.x), b0, acc_1_0_0);
      acc_1_1_0 = fma(vec4<f32>(a1.y), b0, acc_1_1_0);
      acc_1_2_0 = fma(vec4<f32>(a1.z), b0, acc_1_2_0);
      acc_1_3_0 = fma(vec4<f32>(a1.w), b0, acc_1_3_0);
    }
    if (more) {
      store_a(1u - cur, tid + 0u * THREADS, na0);
      store_a(1u - cur, tid + 1u * THREADS, na1);
      store_a(1u - cur, tid + 2u * THREADS, na2);
      store_a(1u - cur, tid + 3u * THREADS, na3);
      store_b(1u - cur, tid + 0u * THREADS, nb0);
      store_b(1u - cur, tid + 1u * THREADS, nb1);
    }
    workgroupBarrier();
  }

  store_out(out_base, g, row0 + 0u * (BM / 2u) + lid.y * 4u + 0u, col0 + 0u * (BN / 1u) + lid.x * 4u, acc_0_0_0);
  store_out(out_base, g, row0 + 0u * (BM / 2u) + lid.y * 4u + 1u, col0 + 0u * (BN / 1u) + lid.x * 4u, acc_0_1_0);
  store_out(out_base, g, row0 + 0u * (BM / 2u) + lid.y * 4u + 2u, col0 + 0u * (BN / 1u) + lid.x * 4u, acc_0_2_0);
  store_out(out_base, g, row0 + 0u * (BM / 2u) + lid.y * 4u + 3u, col0 + 0u * (BN / 1u) + lid.x * 4u, acc_0_3_0);
  store_out(out_base, g, row0 + 1u * (BM / 2u) + lid.y * 4u + 0u, col0 + 0u * (BN / 1u) + lid.x * 4u, acc_1_0_0);
  store_out(out_base, g, row0 + 1u * (BM / 2u) + lid.y * 4u + 1u, col0 + 0u * (BN / 1u) + lid.x * 4u, acc_1_1_0);
  store_out(out_base, g, row0 + 1u * (BM / 2u) + lid.y * 4u + 2u, col0 + 0u * (BN / 1u) + lid.x * 4u, acc_1_2_0);
  store_out(out_base, g, row0 + 1u * (BM / 2u) + lid.y * 4u + 3u, col0 + 0u * (BN / 1u) + lid.x * 4u, acc_1_3_0);
}
