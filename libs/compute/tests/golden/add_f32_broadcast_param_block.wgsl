// alknet-compute: binary/add.wgsl.hbs
alias T0 = f32;
alias T1 = f32;
alias T = T0;
alias O = f32;

@group(0) @binding(0) var<storage, read> in0: array<T0>;
@group(0) @binding(1) var<storage, read> in1: array<T1>;
@group(0) @binding(2) var<storage, read_write> out0: array<O>;
// Sizes, strides and float attributes (ElementwiseParams): one pipeline for every shape.
struct ElementwiseParams { w: array<vec4<u32>, 3> }
@group(0) @binding(3) var<uniform> prm: ElementwiseParams;

fn in0_index(i: u32) -> u32 {
  var r = i;
  var o = prm.w[0].y;
  o += (r % prm.w[0].z) * prm.w[0].w;
  r = r / prm.w[0].z;
  r = r / prm.w[1].x;
  o += r * prm.w[1].y;
  return o;
}

fn in1_index(i: u32) -> u32 {
  var r = i;
  var o = prm.w[1].z;
  r = r / prm.w[1].w;
  o += (r % prm.w[2].x) * prm.w[2].y;
  r = r / prm.w[2].x;
  return o;
}

fn op(a: T, b: T1) -> O { return a + b; }

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let t = gid.x + gid.y * groups.x * 256u;
  let threads = groups.x * groups.y * 256u;
  for (var k = 0u; k < 8u; k++) {
    let i = t + k * threads;
    if (i >= prm.w[0].x) { return; }
    out0[i] = op(in0[in0_index(i)], in1[in1_index(i)]);
  }
}
