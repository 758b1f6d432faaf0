// alknet-compute: activation/relu.wgsl.hbs
enable f16;
alias T0 = vec4<f16>;
alias T = T0;
alias O = vec4<f16>;

@group(0) @binding(0) var<storage, read> in0: array<T0>;
@group(0) @binding(1) var<storage, read_write> out0: array<O>;

fn in0_index(i: u32) -> u32 {
  return i;
}

fn relu(x: T) -> T { return max(x, T(0)); }
fn op(x: T) -> O { return relu(x); }

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.x + gid.y * groups.x * 256u;
  if (i >= 16u) { return; }
  out0[i] = op(in0[in0_index(i)]);
}
