// alknet-compute: activation/gelu.wgsl.hbs
alias T0 = f32;
alias T = T0;
alias O = f32;

@group(0) @binding(0) var<storage, read> in0: array<T0>;
@group(0) @binding(1) var<storage, read_write> out0: array<O>;

fn in0_index(i: u32) -> u32 {
  return i;
}

fn gelu_tanh(x: T) -> T {
  let u = T(0.7978845608) * (x + T(0.044715) * x * x * x);
  return T(0.5) * x * (T(1.0) + tanh(u));
}
fn op(x: T) -> O { return gelu_tanh(x); }

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.x + gid.y * groups.x * 256u;
  if (i >= 10u) { return; }
  out0[i] = op(in0[in0_index(i)]);
}
