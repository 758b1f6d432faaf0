// alknet-compute: unary/abs.wgsl.hbs
alias T0 = vec4<f32>;
alias T = T0;
alias O = vec4<f32>;

@group(0) @binding(0) var<storage, read> in0: array<T0>;
@group(0) @binding(1) var<storage, read_write> out0: array<O>;
// Sizes, strides and float attributes (ElementwiseParams): one pipeline for every shape.
struct ElementwiseParams { w: array<vec4<u32>, 1> }
@group(0) @binding(2) var<uniform> prm: ElementwiseParams;

fn in0_index(i: u32) -> u32 {
  return i;
}

fn op(x: T) -> O { return abs(x); }

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let t = gid.x + gid.y * groups.x * 256u;
  let threads = groups.x * groups.y * 256u;
  for (var k = 0u; k < 8u; k++) {
    let i = t + k * threads;
    if (i >= prm.w[0].x) { return; }
    out0[i] = op(in0[in0_index(i)]);
  }
}
