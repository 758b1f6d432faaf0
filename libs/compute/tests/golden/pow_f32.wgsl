// alknet-compute: binary/pow.wgsl.hbs
alias T0 = f32;
alias T1 = f32;
alias T = T0;
alias O = f32;

@group(0) @binding(0) var<storage, read> in0: array<T0>;
@group(0) @binding(1) var<storage, read> in1: array<T1>;
@group(0) @binding(2) var<storage, read_write> out0: array<O>;

fn in0_index(i: u32) -> u32 {
  return i;
}

fn in1_index(i: u32) -> u32 {
  return i;
}

alias S0 = f32;
alias S1 = f32;
alias SO = f32;

fn pow1(a: S0, e: S1) -> SO {
  let b = S0(e);
  let m = pow(abs(a), b);
  let integral = floor(b) == b;
  let odd = integral & (b - S0(2.0) * floor(b * S0(0.5)) == S0(1.0));
  let signed = select(m, -m, odd & (a < S0(0)));
  // A negative base with a fractional exponent has no real result: sqrt of it yields NaN.
  return select(signed, sqrt(a), (a < S0(0)) & !integral);
}

fn op(a: T, b: T1) -> O {
  return pow1(a, b);
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.x + gid.y * groups.x * 256u;
  if (i >= 10u) { return; }
  out0[i] = op(in0[in0_index(i)], in1[in1_index(i)]);
}
