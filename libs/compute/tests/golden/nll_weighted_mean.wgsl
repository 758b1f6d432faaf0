// alknet-compute: loss/nll.wgsl.hbs
const C = 5u;
const D = 2u;
const COUNT = 6u;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> labels: array<i32>;
@group(0) @binding(2) var<storage, read> weight: array<f32>;
@group(0) @binding(3) var<storage, read_write> out0: array<f32>;

// (loss, weight) of target i.
fn term(i: u32) -> vec2<f32> {
  let t = labels[i];
  if (t < 0 || u32(t) >= C) { return vec2<f32>(bitcast<f32>(0x7fc00000u | (u32(t) & 0u)), 1.0); }
  let n = i / D;
  let j = i % D;
  let w = weight[u32(t)];
  return vec2<f32>(-x[(n * C + u32(t)) * D + j] * w, w);
}

var<workgroup> sums: array<vec2<f32>, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
  var acc = vec2<f32>(0.0, 0.0);
  for (var i = lid; i < COUNT; i += 64u) { acc += term(i); }
  sums[lid] = acc;
  workgroupBarrier();
  for (var s = 64u / 2u; s > 0u; s /= 2u) {
    if (lid < s) { sums[lid] += sums[lid + s]; }
    workgroupBarrier();
  }
  if (lid == 0u) {
    out0[0] = sums[0].x / sums[0].y;
  }
}
