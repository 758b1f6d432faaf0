// alknet-compute: binary/mod.wgsl.hbs
alias T0 = i32;
alias T1 = i32;
alias T = T0;
alias O = i32;

@group(0) @binding(0) var<storage, read> in0: array<T0>;
@group(0) @binding(1) var<storage, read> in1: array<T1>;
@group(0) @binding(2) var<storage, read_write> out0: array<O>;

fn in0_index(i: u32) -> u32 {
  return i;
}

fn in1_index(i: u32) -> u32 {
  return i;
}

fn op(a: T, b: T1) -> O {
  let r = a % b;
  return select(r, r + b, (r != T(0)) & ((r < T(0)) != (b < T(0))));
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.x + gid.y * groups.x * 256u;
  if (i >= 10u) { return; }
  out0[i] = op(in0[in0_index(i)], in1[in1_index(i)]);
}
