// alknet-compute: pool/pool.wgsl.hbs
const P = 99u;
const TOTAL = 396u;
const ID = 1;
const IH = 9;
const IW = 11;
const OH = 9u;
const OW = 11u;
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
const PDE = 0;
const PHE = 1;
const PWE = 1;
const ISP = u32(ID * IH * IW);

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out0: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.x + gid.y * groups.x * 256u;
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
