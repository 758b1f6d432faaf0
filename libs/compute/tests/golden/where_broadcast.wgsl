// alknet-compute: select/where.wgsl.hbs
alias T0 = u32;
alias T1 = f32;
alias T2 = f32;
alias T = T0;
alias O = f32;

@group(0) @binding(0) var<storage, read> in0: array<T0>;
@group(0) @binding(1) var<storage, read> in1: array<T1>;
@group(0) @binding(2) var<storage, read> in2: array<T2>;
@group(0) @binding(3) var<storage, read_write> out0: array<O>;

fn in0_index(i: u32) -> u32 {
  var r = i;
  var o = 0u;
  r = r / 6u;
  o += r * 1u;
  return o;
}

fn in1_index(i: u32) -> u32 {
  return i;
}

fn in2_index(i: u32) -> u32 {
  var r = i;
  var o = 0u;
  o += (r % 6u) * 1u;
  r = r / 6u;
  return o;
}

fn op(c: T0, x: T1, y: T2) -> O { return select(y, x, c != T0(0u)); }

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.x + gid.y * groups.x * 256u;
  if (i >= 24u) { return; }
  out0[i] = op(in0[in0_index(i)], in1[in1_index(i)], in2[in2_index(i)]);
}
