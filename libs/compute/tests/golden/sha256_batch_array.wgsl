// alknet-compute: crypto/sha256.wgsl.hbs (K: array)
@group(0) @binding(0) var<storage, read> data: array<u32>;
@group(0) @binding(1) var<storage, read> index: array<u32>;
@group(0) @binding(2) var<storage, read_write> digest: array<u32>;

fn rotr(x: u32, n: u32) -> u32 { return (x >> n) | (x << (32u - n)); }
fn ch(x: u32, y: u32, z: u32) -> u32 { return (x & y) ^ (~x & z); }
fn maj(x: u32, y: u32, z: u32) -> u32 { return (x & y) ^ (x & z) ^ (y & z); }
fn big_sigma0(x: u32) -> u32 { return rotr(x, 2u) ^ rotr(x, 13u) ^ rotr(x, 22u); }
fn big_sigma1(x: u32) -> u32 { return rotr(x, 6u) ^ rotr(x, 11u) ^ rotr(x, 25u); }
fn sigma0(x: u32) -> u32 { return rotr(x, 7u) ^ rotr(x, 18u) ^ (x >> 3u); }
fn sigma1(x: u32) -> u32 { return rotr(x, 17u) ^ rotr(x, 19u) ^ (x >> 10u); }
// Message words are big-endian; storage words are read little-endian.
fn bswap(x: u32) -> u32 {
  return (x << 24u) | ((x << 8u) & 0xff0000u) | ((x >> 8u) & 0xff00u) | (x >> 24u);
}

const K = array<u32, 64>(
  0x428a2f98u,
  0x71374491u,
  0xb5c0fbcfu,
  0xe9b5dba5u,
  0x3956c25bu,
  0x59f111f1u,
  0x923f82a4u,
  0xab1c5ed5u,
  0xd807aa98u,
  0x12835b01u,
  0x243185beu,
  0x550c7dc3u,
  0x72be5d74u,
  0x80deb1feu,
  0x9bdc06a7u,
  0xc19bf174u,
  0xe49b69c1u,
  0xefbe4786u,
  0x0fc19dc6u,
  0x240ca1ccu,
  0x2de92c6fu,
  0x4a7484aau,
  0x5cb0a9dcu,
  0x76f988dau,
  0x983e5152u,
  0xa831c66du,
  0xb00327c8u,
  0xbf597fc7u,
  0xc6e00bf3u,
  0xd5a79147u,
  0x06ca6351u,
  0x14292967u,
  0x27b70a85u,
  0x2e1b2138u,
  0x4d2c6dfcu,
  0x53380d13u,
  0x650a7354u,
  0x766a0abbu,
  0x81c2c92eu,
  0x92722c85u,
  0xa2bfe8a1u,
  0xa81a664bu,
  0xc24b8b70u,
  0xc76c51a3u,
  0xd192e819u,
  0xd6990624u,
  0xf40e3585u,
  0x106aa070u,
  0x19a4c116u,
  0x1e376c08u,
  0x2748774cu,
  0x34b0bcb5u,
  0x391c0cb3u,
  0x4ed8aa4au,
  0x5b9cca4fu,
  0x682e6ff3u,
  0x748f82eeu,
  0x78a5636fu,
  0x84c87814u,
  0x8cc70208u,
  0x90befffau,
  0xa4506cebu,
  0xbef9a3f7u,
  0xc67178f2u,
);

fn compress(state: array<u32, 8>, m: array<u32, 16>) -> array<u32, 8> {
  var a = state[0];
  var b = state[1];
  var c = state[2];
  var d = state[3];
  var e = state[4];
  var f = state[5];
  var g = state[6];
  var h = state[7];
  var w = m;
  for (var t = 0u; t < 64u; t++) {
    let i = t % 16u;
    if (t >= 16u) {
      w[i] = sigma1(w[(t + 14u) % 16u]) + w[(t + 9u) % 16u] + sigma0(w[(t + 1u) % 16u]) + w[i];
    }
    let t1 = h + big_sigma1(e) + ch(e, f, g) + K[t] + w[i];
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  return array<u32, 8>(state[0] + a, state[1] + b, state[2] + c, state[3] + d,
                       state[4] + e, state[5] + f, state[6] + g, state[7] + h);
}

fn message_word(off: u32, len: u32, p: u32) -> u32 {
  if (p + 4u <= len) { return bswap(data[(off + p) / 4u]); }
  if (p < len) {
    // The message's last 1..3 bytes, then 0x80: one load, masked.
    let n = len - p;
    return (bswap(data[(off + p) / 4u]) & (0xffffffffu << (32u - 8u * n))) | (0x80u << (24u - 8u * n));
  }
  if (p == len) { return 0x80000000u; }
  return 0u;
}

fn message_block(off: u32, len: u32, block: u32, last: bool, bits_hi: u32, bits_lo: u32) -> array<u32, 16> {
  var m: array<u32, 16>;
  for (var k = 0u; k < 16u; k++) { m[k] = message_word(off, len, block * 64u + 4u * k); }
  if (last) {
    m[14] = bits_hi;
    m[15] = bits_lo;
  }
  return m;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.x + gid.y * groups.x * 64u;
  if (i >= arrayLength(&index) / 2u) { return; }
  let off = index[2u * i];
  let len = index[2u * i + 1u];
  let blocks = (len + 8u) / 64u + 1u;
  var s = array<u32, 8>(0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au, 0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u);
  for (var blk = 0u; blk < blocks; blk++) {
    s = compress(s, message_block(off, len, blk, blk + 1u == blocks, len >> 29u, len << 3u));
  }
  for (var k = 0u; k < 8u; k++) { digest[8u * i + k] = s[k]; }
}
