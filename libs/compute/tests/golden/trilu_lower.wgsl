// alknet-compute: linalg/trilu.wgsl.hbs
alias T = i32;
const ROWS = 3u;
const COLS = 4u;

@group(0) @binding(0) var<storage, read> x: array<T>;
@group(0) @binding(1) var<storage, read_write> out0: array<T>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.x + gid.y * groups.x * 256u;
  if (i >= 24u) { return; }
  let d = i32(i % COLS) - i32((i / COLS) % ROWS);
  let keep = d <= 0;
  out0[i] = select(T(0), x[i], keep);
}
