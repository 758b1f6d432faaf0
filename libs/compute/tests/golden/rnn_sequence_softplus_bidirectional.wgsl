// alknet-compute: recurrent/recurrent.wgsl.hbs
const SEQ = 3u;
const BATCH = 2u;
const IN = 4u;
const H = 5u;
const DIRS = 2u;
const G = 1u;
const GH = 5u;
const WG = 32u;
const UPL = 1u;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> wt: array<f32>;
@group(0) @binding(2) var<storage, read> rt: array<f32>;
@group(0) @binding(3) var<storage, read_write> out0: array<f32>;
@group(0) @binding(4) var<storage, read_write> out1: array<f32>;

var<workgroup> hs: array<f32, 10>;

fn x_at(t: u32, b: u32, i: u32) -> u32 {
  return (t * BATCH + b) * IN + i;
}

fn y_at(t: u32, dir: u32, b: u32, k: u32) -> u32 {
  return ((t * DIRS + dir) * BATCH + b) * H + k;
}

fn state_at(dir: u32, b: u32, k: u32) -> u32 {
  return (dir * BATCH + b) * H + k;
}

alias T = f32;
fn sigmoid(x: T) -> T {
  let e = exp(-abs(x));
  return select(e / (T(1.0) + e), T(1.0) / (T(1.0) + e), x >= T(0));
}
fn softplus(x: T) -> T { return max(x, T(0)) + log(T(1.0) + exp(-abs(x))); }

// Activation `slot` (direction * activations per direction + index) of the node.
fn act(slot: u32, v: f32) -> f32 {
  switch slot {
    case 0u: {
      return softplus(v);
    }
    default: {
      return sigmoid(v);
    }
  }
}

fn clip(v: f32) -> f32 {
  return v;
}

// Wb (half 0) or Rb (half 1) of unit k's gates, gate g in component g.
fn bias(dir: u32, half: u32, k: u32) -> vec4<f32> {
  return vec4<f32>(0.0);
}

// X_t W^T + Wb for every gate of unit k.
fn xw(dir: u32, t: u32, b: u32, k: u32) -> vec4<f32> {
  var s = bias(dir, 0u, k);
  for (var i = 0u; i < IN; i++) {
    let v = x[x_at(t, b, i)];
    let o = (dir * IN + i) * GH + k;
    s.x = fma(v, wt[o], s.x);
  }
  return s;
}

// H R^T + Rb for the gates of unit k that read the state (half `cur` of hs): all of them,
// except GRU's h gate without linear_before_reset (hr_aux).
fn hr(dir: u32, cur: u32, k: u32) -> vec4<f32> {
  var s = bias(dir, 1u, k);
  for (var j = 0u; j < H; j++) {
    let v = hs[cur + j];
    let o = (dir * H + j) * GH + k;
    s.x = fma(v, rt[o], s.x);
  }
  return s;
}

@compute @workgroup_size(32)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let dir = wid.x / BATCH;
  let b = wid.x % BATCH;
  let reverse = dir == 1u;
  let a0 = dir * 1u;
  let len = SEQ;
  for (var m = 0u; m < UPL; m++) {
    let k = lid.x + m * WG;
    if (k < H) {
      hs[k] = 0.0;
    }
  }
  workgroupBarrier();
  for (var n = 0u; n < SEQ; n++) {
    let live = n < len;
    let t = select(n, len - 1u - n, reverse && live);
    let cur = (n % 2u) * H;
    let nxt = H - cur;
    for (var m = 0u; m < UPL; m++) {
      let k = lid.x + m * WG;
      if (k < H) {
        if (live) {
          let xg = xw(dir, t, b, k);
          let hg = hr(dir, cur, k);
          let hnew = act(a0, clip(xg.x + hg.x));
          hs[nxt + k] = hnew;
          out0[y_at(t, dir, b, k)] = hnew;
        } else {
          hs[nxt + k] = hs[cur + k];
          out0[y_at(n, dir, b, k)] = 0.0;
        }
      }
    }
    workgroupBarrier();
  }
  let last = (SEQ % 2u) * H;
  for (var m = 0u; m < UPL; m++) {
    let k = lid.x + m * WG;
    if (k < H) {
      out1[state_at(dir, b, k)] = hs[last + k];
    }
  }
}
