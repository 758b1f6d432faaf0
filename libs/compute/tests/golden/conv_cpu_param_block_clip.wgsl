// alknet-compute: conv/conv.wgsl.hbs
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> out0: array<f32>;
struct ConvParams {
  N: u32, C: u32, M: u32, CG: u32,
  MG: u32, groups: u32, K: u32, P: u32,
  ID: i32, IH: i32, IW: i32, ISP: u32,
  OD: u32, OH: u32, OW: u32, KSP: u32,
  KD: u32, KH: u32, KW: u32, mblocks: u32,
  SD: i32, SH: i32, SW: i32, phases: u32,
  DLD: i32, DLH: i32, DLW: i32, Q: u32,
  PD: i32, PH: i32, PW: i32, act_a: f32,
  act_b: f32, QH: u32, QW: u32, xblocks: u32,
}
@group(0) @binding(4) var<uniform> prm: ConvParams;

alias T = f32;
fn act(v: T) -> T {
  return min(max(v, T(prm.act_a)), T(prm.act_b));
}

const WG = 16u;

// Output channel mm (of all M) at positions p (two lanes' worth), bias and activation applied.
fn put(base: u32, mm: u32, p: vec2<u32>, v: vec2<f32>) {
  let s = v + vec2<f32>(bias[mm]);
  if (p.x < prm.P) { out0[base + p.x] = act(s.x); }
  if (p.y < prm.P) { out0[base + p.y] = act(s.y); }
}

@compute @workgroup_size(16, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let g = wg.y / prm.mblocks;
  let m0 = (wg.y % prm.mblocks) * 8u;
  let n = wg.z;
  let P = prm.P;
  let MG = prm.MG;
  // The W rows of the block's 8 channels; rows past MG repeat the last (never stored).
  let last = vec4<u32>(MG - 1u);
  let wr0 = (g * MG + min(vec4<u32>(m0) + vec4<u32>(0u, 1u, 2u, 3u), last)) * prm.K;
  let wr1 = (g * MG + min(vec4<u32>(m0) + vec4<u32>(4u, 5u, 6u, 7u), last)) * prm.K;
  let xg = (n * prm.C + g * prm.CG) * prm.ISP;
  let out_base = (n * prm.M + g * MG + m0) * P;
  for (var xb = wg.x; xb < prm.xblocks; xb += nwg.x) {
    let p = vec2<u32>(xb * 2u * WG + lid.x) + vec2<u32>(0u, WG);
    let q = min(p, vec2<u32>(P - 1u));
    // a*: position p.x, b*: p.y; *0: channels m0..m0+3, *1: m0+4..m0+7.
    var a0 = vec4<f32>(0.0);
    var a1 = vec4<f32>(0.0);
    var b0 = vec4<f32>(0.0);
    var b1 = vec4<f32>(0.0);
    let ohw = prm.OH * prm.OW;
    let z0 = vec2<i32>(q / ohw) * prm.SD - vec2<i32>(prm.PD);
    let y0 = vec2<i32>((q / prm.OW) % prm.OH) * prm.SH - vec2<i32>(prm.PH);
    let x0 = vec2<i32>(q % prm.OW) * prm.SW - vec2<i32>(prm.PW);
    // Taps outside, channels inside: a tap's window test and X offsets are computed once,
    // and the channel loop is the 1x1 kernel's (one X load per position, 8 uniform W loads).
    // Lanes outside the window read X at the group's base (in range) and use 0.
    var kk = 0u;
    for (var kz = 0u; kz < prm.KD; kz++) {
      let z = z0 + vec2<i32>(i32(kz) * prm.DLD);
      let zok = (z >= vec2<i32>(0)) & (z < vec2<i32>(prm.ID));
      for (var ky = 0u; ky < prm.KH; ky++) {
        let y = y0 + vec2<i32>(i32(ky) * prm.DLH);
        let yok = zok & (y >= vec2<i32>(0)) & (y < vec2<i32>(prm.IH));
        let row = (z * prm.IH + y) * prm.IW;
        for (var kx = 0u; kx < prm.KW; kx++) {
          let xx = x0 + vec2<i32>(i32(kx) * prm.DLW);
          let ok = yok & (xx >= vec2<i32>(0)) & (xx < vec2<i32>(prm.IW));
          let idx = vec2<u32>(select(vec2<i32>(0), row + xx, ok)) + vec2<u32>(xg);
          for (var c = 0u; c < prm.CG; c++) {
            let xi = idx + vec2<u32>(c * prm.ISP);
            let v = select(vec2<f32>(0.0), vec2<f32>(x[xi.x], x[xi.y]), ok);
            let k = c * prm.KSP + kk;
            let wa = vec4<f32>(w[wr0.x + k], w[wr0.y + k], w[wr0.z + k], w[wr0.w + k]);
            let wb = vec4<f32>(w[wr1.x + k], w[wr1.y + k], w[wr1.z + k], w[wr1.w + k]);
            a0 = fma(wa, vec4<f32>(v.x), a0);
            a1 = fma(wb, vec4<f32>(v.x), a1);
            b0 = fma(wa, vec4<f32>(v.y), b0);
            b1 = fma(wb, vec4<f32>(v.y), b1);
          }
          kk++;
        }
      }
    }
    for (var j = 0u; j < 4u; j++) {
      let m = m0 + j;
      if (m < MG) { put(out_base + j * P, g * MG + m, p, vec2<f32>(a0[j], b0[j])); }
      if (m + 4u < MG) { put(out_base + (j + 4u) * P, g * MG + m + 4u, p, vec2<f32>(a1[j], b1[j])); }
    }
  }
}
