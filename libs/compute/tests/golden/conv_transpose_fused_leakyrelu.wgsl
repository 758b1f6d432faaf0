// alknet-compute: conv/conv_transpose.wgsl.hbs
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read_write> out0: array<f32>;
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
@group(0) @binding(3) var<uniform> prm: ConvParams;

alias T = f32;
fn leaky_relu(x: T, alpha: T) -> T { return select(alpha * x, x, x >= T(0)); }
fn act(v: T) -> T {
  return leaky_relu(v, T(prm.act_a));
}

const WG = 64u;

// Output channel mm (of all M) at output offsets o of the lanes where `ok`.
fn put(base: u32, mm: u32, o: vec2<u32>, ok: vec2<bool>, v: vec2<f32>) {
  let s = v;
  if (ok.x) { out0[base + o.x] = act(s.x); }
  if (ok.y) { out0[base + o.y] = act(s.y); }
}

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let g = wg.y / prm.mblocks;
  let m0 = (wg.y % prm.mblocks) * 8u;
  let n = wg.z / prm.phases;
  let f = wg.z % prm.phases;
  let fz = i32(f / u32(prm.SH * prm.SW));
  let fy = i32((f / u32(prm.SW)) % u32(prm.SH));
  let fx = i32(f % u32(prm.SW));
  let MG = prm.MG;
  let KSP = prm.KSP;
  // W[c, m, k] rows of the block's 8 channels; rows past MG repeat the last (never stored).
  let last = vec4<u32>(MG - 1u);
  let wr0 = min(vec4<u32>(m0) + vec4<u32>(0u, 1u, 2u, 3u), last) * KSP;
  let wr1 = min(vec4<u32>(m0) + vec4<u32>(4u, 5u, 6u, 7u), last) * KSP;
  let qhw = prm.QH * prm.QW;
  let out_base = (n * prm.M + g * MG + m0) * prm.P;
  for (var xb = wg.x; xb < prm.xblocks; xb += nwg.x) {
    let p = vec2<u32>(xb * 2u * WG + lid.x) + vec2<u32>(0u, WG);
    let q = min(p, vec2<u32>(prm.Q - 1u));
    let qz = vec2<i32>(q / qhw);
    let qy = vec2<i32>((q / prm.QW) % prm.QH);
    let qx = vec2<i32>(q % prm.QW);
    let oz = qz * prm.SD + vec2<i32>(fz);
    let oy = qy * prm.SH + vec2<i32>(fy);
    let ox = qx * prm.SW + vec2<i32>(fx);
    var a0 = vec4<f32>(0.0);
    var a1 = vec4<f32>(0.0);
    var b0 = vec4<f32>(0.0);
    var b1 = vec4<f32>(0.0);
    for (var kz = 0u; kz < prm.KD; kz++) {
      let tz = fz + prm.PD - i32(kz) * prm.DLD;
      if (tz % prm.SD != 0) { continue; }
      let z = qz + vec2<i32>(tz / prm.SD);
      let zok = (z >= vec2<i32>(0)) & (z < vec2<i32>(prm.ID));
      for (var ky = 0u; ky < prm.KH; ky++) {
        let ty = fy + prm.PH - i32(ky) * prm.DLH;
        if (ty % prm.SH != 0) { continue; }
        let y = qy + vec2<i32>(ty / prm.SH);
        let yok = zok & (y >= vec2<i32>(0)) & (y < vec2<i32>(prm.IH));
        for (var kx = 0u; kx < prm.KW; kx++) {
          let tx = fx + prm.PW - i32(kx) * prm.DLW;
          if (tx % prm.SW != 0) { continue; }
          let xx = qx + vec2<i32>(tx / prm.SW);
          let ok = yok & (xx >= vec2<i32>(0)) & (xx < vec2<i32>(prm.IW));
          let at = vec2<u32>(select(vec2<i32>(0), (z * prm.IH + y) * prm.IW + xx, ok));
          let k = (kz * prm.KH + ky) * prm.KW + kx;
          for (var c = 0u; c < prm.CG; c++) {
            let ci = g * prm.CG + c;
            let xi = (n * prm.C + ci) * prm.ISP;
            let v = select(vec2<f32>(0.0), vec2<f32>(x[xi + at.x], x[xi + at.y]), ok);
            let wi = ci * MG * KSP + k;
            let wa = vec4<f32>(w[wi + wr0.x], w[wi + wr0.y], w[wi + wr0.z], w[wi + wr0.w]);
            let wb = vec4<f32>(w[wi + wr1.x], w[wi + wr1.y], w[wi + wr1.z], w[wi + wr1.w]);
            a0 = fma(wa, vec4<f32>(v.x), a0);
            a1 = fma(wb, vec4<f32>(v.x), a1);
            b0 = fma(wa, vec4<f32>(v.y), b0);
            b1 = fma(wb, vec4<f32>(v.y), b1);
          }
        }
      }
    }
    let ok = (p < vec2<u32>(prm.Q)) & (vec2<u32>(oz) < vec2<u32>(prm.OD)) &
             (vec2<u32>(oy) < vec2<u32>(prm.OH)) & (vec2<u32>(ox) < vec2<u32>(prm.OW));
    let o = (vec2<u32>(oz) * prm.OH + vec2<u32>(oy)) * prm.OW + vec2<u32>(ox);
    for (var j = 0u; j < 4u; j++) {
      let m = m0 + j;
      if (m < MG) { put(out_base + j * prm.P, g * MG + m, o, ok, vec2<f32>(a0[j], b0[j])); }
      if (m + 4u < MG) {
        put(out_base + (j + 4u) * prm.P, g * MG + m + 4u, o, ok, vec2<f32>(a1[j], b1[j]));
      }
    }
  }
}
