// alknet-compute: conv/conv_transpose.wgsl.hbs
const C = 2u;
const M = 3u;
const CG = 2u;
const MG = 3u;
const P = 49u;
const ID = 1;
const IH = 5;
const IW = 5;
const OH = 7u;
const OW = 7u;
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
const ISP = u32(ID * IH * IW);
const KSP = KD * KH * KW;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read_write> out0: array<f32>;

alias T = f32;
fn leaky_relu(x: T, alpha: T) -> T { return select(alpha * x, x, x >= T(0)); }
fn act(v: T) -> T {
  return leaky_relu(v, T(0.1));
}

// The input index along one axis fed by tap k at output o, or -1.
fn source(o: i32, k: u32, s: i32, d: i32, pad: i32, extent: i32) -> i32 {
  let t = o + pad - i32(k) * d;
  if (t < 0 || t % s != 0 || t / s >= extent) { return -1; }
  return t / s;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.x + gid.y * groups.x * 256u;
  if (i >= 147u) { return; }
  let p = i % P;
  let nm = i / P;
  let m = nm % M;
  let n = nm / M;
  let g = m / MG;
  let ml = m % MG;
  let oz = i32(p / (OH * OW));
  let oy = i32((p / OW) % OH);
  let ox = i32(p % OW);
  var s = 0.0;
  for (var kz = 0u; kz < KD; kz++) {
    let z = source(oz, kz, SD, DLD, PD, ID);
    if (z < 0) { continue; }
    for (var ky = 0u; ky < KH; ky++) {
      let y = source(oy, ky, SH, DLH, PH, IH);
      if (y < 0) { continue; }
      for (var kx = 0u; kx < KW; kx++) {
        let xx = source(ox, kx, SW, DLW, PW, IW);
        if (xx < 0) { continue; }
        let at = u32((z * IH + y) * IW + xx);
        let k = (kz * KH + ky) * KW + kx;
        for (var c = 0u; c < CG; c++) {
          let ci = g * CG + c;
          s = fma(x[(n * C + ci) * ISP + at], w[(ci * MG + ml) * KSP + k], s);
        }
      }
    }
  }
  out0[i] = act(s);
}
