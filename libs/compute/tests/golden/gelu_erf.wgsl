// alknet-compute: activation/gelu.wgsl.hbs
alias T0 = f32;
alias T = T0;
alias O = f32;

@group(0) @binding(0) var<storage, read> in0: array<T0>;
@group(0) @binding(1) var<storage, read_write> out0: array<O>;

fn in0_index(i: u32) -> u32 {
  return i;
}

fn erf(x: T) -> T {
  let t = T(1.0) / (T(1.0) + T(0.3275911) * abs(x));
  let poly = t * (T(0.254829592) + t * (T(-0.284496736) + t * (T(1.421413741) +
             t * (T(-1.453152027) + t * T(1.061405429)))));
  return sign(x) * (T(1.0) - poly * exp(-x * x));
}
fn gelu(x: T) -> T { return T(0.5) * x * (T(1.0) + erf(x * T(0.70710678118654752))); }
fn op(x: T) -> O { return gelu(x); }

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.x + gid.y * groups.x * 256u;
  if (i >= 10u) { return; }
  out0[i] = op(in0[in0_index(i)]);
}
