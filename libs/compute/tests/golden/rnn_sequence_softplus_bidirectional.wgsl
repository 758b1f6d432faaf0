// alknet-compute: recurrent/recurrent.wgsl.hbs
const SEQ = 3u;
const BATCH = 2u;
const IN = 4u;
const H = 5u;
const DIRS = 2u;
const G = 1u;
const WG = 32u;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read> r: array<f32>;
@group(0) @binding(3) var<storage, read_write> out0: array<f32>;
@group(0) @binding(4) var<storage, read_write> out1: array<f32>;

var<workgroup> hs: array<f32, H>;
var<workgroup> hn: array<f32, H>;

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

// X_t W_g^T + Wb_g for unit k.
fn xw(dir: u32, t: u32, b: u32, g: u32, k: u32) -> f32 {
  let row = (dir * G + g) * H + k;
  var s = 0.0;
  for (var i = 0u; i < IN; i++) { s = fma(x[x_at(t, b, i)], w[row * IN + i], s); }
  return s;
}

fn rb(dir: u32, g: u32, k: u32) -> f32 {
  return 0.0;
}

// H R_g^T + Rb_g for unit k, H = the state (hs), or the reset-gated state (aux) for GRU.
fn hr(dir: u32, g: u32, k: u32) -> f32 {
  let row = (dir * G + g) * H + k;
  var s = rb(dir, g, k);
  for (var j = 0u; j < H; j++) { s = fma(hs[j], r[row * H + j], s); }
  return s;
}

@compute @workgroup_size(32)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let dir = wid.x / BATCH;
  let b = wid.x % BATCH;
  let reverse = dir == 1u;
  let a0 = dir * 1u;
  let len = SEQ;
  for (var k = lid.x; k < H; k += WG) {
    hs[k] = 0.0;
  }
  workgroupBarrier();
  for (var n = 0u; n < SEQ; n++) {
    let live = n < len;
    let t = select(n, len - 1u - n, reverse && live);
    if (live) {
      for (var k = lid.x; k < H; k += WG) {
        hn[k] = act(a0, clip(xw(dir, t, b, 0u, k) + hr(dir, 0u, k)));
      }
    }
    workgroupBarrier();
    for (var k = lid.x; k < H; k += WG) {
      if (live) {
        hs[k] = hn[k];
        out0[y_at(t, dir, b, k)] = hn[k];
      } else {
        out0[y_at(n, dir, b, k)] = 0.0;
      }
    }
    workgroupBarrier();
  }
  for (var k = lid.x; k < H; k += WG) {
    out1[state_at(dir, b, k)] = hs[k];
  }
}
