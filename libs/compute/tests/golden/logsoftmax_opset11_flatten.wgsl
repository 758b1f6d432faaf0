// alknet-compute: softmax/softmax.wgsl.hbs
const OUTER = 3u;
const AXIS = 20u;
const INNER = 1u;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> out0: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.x + gid.y * groups.x * 256u;
  if (i >= OUTER * INNER) { return; }
  let base = (i / INNER) * AXIS * INNER + i % INNER;
  var hi = x[base];
  for (var j = 1u; j < AXIS; j++) { hi = max(hi, x[base + j * INNER]); }
  var sum = 0.0;
  for (var j = 0u; j < AXIS; j++) { sum += exp(x[base + j * INNER] - hi); }
  let log_sum = log(sum);
  for (var j = 0u; j < AXIS; j++) { out0[base + j * INNER] = x[base + j * INNER] - hi - log_sum; }
}
