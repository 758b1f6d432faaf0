// alknet-compute: pool/pool.wgsl.hbs
// The window's numbers (PoolValues in src/ops/pool.cpp, in this order): one pipeline serves
// every pool shape of a kind.
struct PoolParams {
  P: u32, total: u32,
  ID: i32, OD: u32, KD: u32, SD: i32, DLD: i32, PD: i32, PDE: i32,
  IH: i32, OH: u32, KH: u32, SH: i32, DLH: i32, PH: i32, PHE: i32,
  IW: i32, OW: u32, KW: u32, SW: i32, DLW: i32, PW: i32, PWE: i32,
}
@group(0) @binding(2) var<uniform> prm: PoolParams;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out0: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.x + gid.y * groups.x * 256u;
  let P = prm.P; let TOTAL = prm.total;
  let ID = prm.ID; let IH = prm.IH; let IW = prm.IW; let OH = prm.OH; let OW = prm.OW;
  let KD = prm.KD; let KH = prm.KH; let KW = prm.KW; let SD = prm.SD; let SH = prm.SH;
  let SW = prm.SW; let DLD = prm.DLD; let DLH = prm.DLH; let DLW = prm.DLW;
  let PD = prm.PD; let PH = prm.PH; let PW = prm.PW; let PDE = prm.PDE; let PHE = prm.PHE;
  let PWE = prm.PWE; let ISP = u32(ID * IH * IW);
  if (i >= TOTAL) { return; }
  let p = i % P;
  let nc = i / P;
  let xc = nc * ISP;
  let z0 = i32(p / (OH * OW)) * SD - PD;
  let y0 = i32((p / OW) % OH) * SH - PH;
  let x0 = i32(p % OW) * SW - PW;
  var best = f32(0);
  var best_at = 0u;
  var found = false;
  for (var kz = 0u; kz < KD; kz++) {
    let z = z0 + i32(kz) * DLD;
    for (var ky = 0u; ky < KH; ky++) {
      let y = y0 + i32(ky) * DLH;
      for (var kx = 0u; kx < KW; kx++) {
        let xx = x0 + i32(kx) * DLW;
        if (z < 0 || z >= ID || y < 0 || y >= IH || xx < 0 || xx >= IW) { continue; }
        let at = u32((z * IH + y) * IW + xx);
        let v = x[xc + at];
        if (!found || v > best) {
          best = v;
          best_at = at;
          found = true;
        }
      }
    }
  }
  out0[i] = best;
}
