// alknet-compute: binary/pow.wgsl.hbs
alias T0 = vec4<i32>;
alias T1 = vec4<f32>;
alias T = T0;
alias O = vec4<i32>;

@group(0) @binding(0) var<storage, read> in0: array<T0>;
@group(0) @binding(1) var<storage, read> in1: array<T1>;
@group(0) @binding(2) var<storage, read_write> out0: array<O>;

fn in0_index(i: u32) -> u32 {
  return i;
}

fn in1_index(i: u32) -> u32 {
  return i;
}

alias S0 = i32;
alias S1 = f32;
alias SO = i32;

fn ipow(a: SO, e: u32) -> SO {
  var r = SO(1);
  var b = a;
  var k = e;
  loop {
    if (k == 0u) { break; }
    if ((k & 1u) == 1u) { r = r * b; }
    b = b * b;
    k = k >> 1u;
  }
  return r;
}

fn pow1(a: S0, e: S1) -> SO {
  let b = f32(e);
  if (floor(b) != b) { return SO(trunc(pow(f32(a), b))); }
  if (b >= 0.0) { return ipow(a, u32(b)); }
  let neg = i32(b);
  // a^-n for integers: 1 for a = 1, +-1 for a = -1, 0 otherwise (truncated 1 / a^n).
  if (a == SO(1)) { return SO(1); }
  if (a == -1) { return select(1, -1, (neg & 1) == 1); }
  return SO(0);
}

fn op(a: T, b: T1) -> O {
  return O(pow1(a.x, b.x), pow1(a.y, b.y), pow1(a.z, b.z), pow1(a.w, b.w));
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.x + gid.y * groups.x * 256u;
  if (i >= 2u) { return; }
  out0[i] = op(in0[in0_index(i)], in1[in1_index(i)]);
}
