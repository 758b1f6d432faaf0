// alknet-compute: select/clip.wgsl.hbs
alias T0 = f32;
alias T1 = f32;
alias T2 = f32;
alias T = T0;
alias O = f32;

@group(0) @binding(0) var<storage, read> in0: array<T0>;
@group(0) @binding(1) var<storage, read> in1: array<T1>;
@group(0) @binding(2) var<storage, read> in2: array<T2>;
@group(0) @binding(3) var<storage, read_write> out0: array<O>;

fn in0_index(i: u32) -> u32 {
  return i;
}

fn in1_index(i: u32) -> u32 {
  var r = i;
  var o = 0u;
  return o;
}

fn in2_index(i: u32) -> u32 {
  var r = i;
  var o = 0u;
  return o;
}

fn op(x: T, lo: T1, hi: T2) -> O {
  var r = x;
  r = max(r, lo);
  r = min(r, hi);
  return r;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.x + gid.y * groups.x * 256u;
  if (i >= 10u) { return; }
  out0[i] = op(in0[in0_index(i)], in1[in1_index(i)], in2[in2_index(i)]);
}
