// alknet-compute: crypto/sha256_fixed.wgsl.hbs (55-byte messages, 2 per invocation)
@group(0) @binding(0) var<storage, read> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> digest: array<u32>;

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

fn compress(state: array<u32, 8>, m: array<u32, 16>) -> array<u32, 8> {
  var a = state[0];
  var b = state[1];
  var c = state[2];
  var d = state[3];
  var e = state[4];
  var f = state[5];
  var g = state[6];
  var h = state[7];
  var w0 = m[0];
  var w1 = m[1];
  var w2 = m[2];
  var w3 = m[3];
  var w4 = m[4];
  var w5 = m[5];
  var w6 = m[6];
  var w7 = m[7];
  var w8 = m[8];
  var w9 = m[9];
  var w10 = m[10];
  var w11 = m[11];
  var w12 = m[12];
  var w13 = m[13];
  var w14 = m[14];
  var w15 = m[15];
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x428a2f98u + w0;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x71374491u + w1;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xb5c0fbcfu + w2;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xe9b5dba5u + w3;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x3956c25bu + w4;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x59f111f1u + w5;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x923f82a4u + w6;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xab1c5ed5u + w7;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xd807aa98u + w8;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x12835b01u + w9;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x243185beu + w10;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x550c7dc3u + w11;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x72be5d74u + w12;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x80deb1feu + w13;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x9bdc06a7u + w14;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xc19bf174u + w15;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w0 = sigma1(w14) + w9 + sigma0(w1) + w0;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xe49b69c1u + w0;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w1 = sigma1(w15) + w10 + sigma0(w2) + w1;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xefbe4786u + w1;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w2 = sigma1(w0) + w11 + sigma0(w3) + w2;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x0fc19dc6u + w2;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w3 = sigma1(w1) + w12 + sigma0(w4) + w3;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x240ca1ccu + w3;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w4 = sigma1(w2) + w13 + sigma0(w5) + w4;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x2de92c6fu + w4;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w5 = sigma1(w3) + w14 + sigma0(w6) + w5;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x4a7484aau + w5;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w6 = sigma1(w4) + w15 + sigma0(w7) + w6;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x5cb0a9dcu + w6;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w7 = sigma1(w5) + w0 + sigma0(w8) + w7;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x76f988dau + w7;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w8 = sigma1(w6) + w1 + sigma0(w9) + w8;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x983e5152u + w8;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w9 = sigma1(w7) + w2 + sigma0(w10) + w9;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xa831c66du + w9;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w10 = sigma1(w8) + w3 + sigma0(w11) + w10;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xb00327c8u + w10;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w11 = sigma1(w9) + w4 + sigma0(w12) + w11;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xbf597fc7u + w11;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w12 = sigma1(w10) + w5 + sigma0(w13) + w12;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xc6e00bf3u + w12;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w13 = sigma1(w11) + w6 + sigma0(w14) + w13;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xd5a79147u + w13;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w14 = sigma1(w12) + w7 + sigma0(w15) + w14;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x06ca6351u + w14;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w15 = sigma1(w13) + w8 + sigma0(w0) + w15;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x14292967u + w15;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w0 = sigma1(w14) + w9 + sigma0(w1) + w0;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x27b70a85u + w0;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w1 = sigma1(w15) + w10 + sigma0(w2) + w1;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x2e1b2138u + w1;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w2 = sigma1(w0) + w11 + sigma0(w3) + w2;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x4d2c6dfcu + w2;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w3 = sigma1(w1) + w12 + sigma0(w4) + w3;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x53380d13u + w3;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w4 = sigma1(w2) + w13 + sigma0(w5) + w4;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x650a7354u + w4;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w5 = sigma1(w3) + w14 + sigma0(w6) + w5;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x766a0abbu + w5;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w6 = sigma1(w4) + w15 + sigma0(w7) + w6;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x81c2c92eu + w6;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w7 = sigma1(w5) + w0 + sigma0(w8) + w7;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x92722c85u + w7;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w8 = sigma1(w6) + w1 + sigma0(w9) + w8;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xa2bfe8a1u + w8;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w9 = sigma1(w7) + w2 + sigma0(w10) + w9;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xa81a664bu + w9;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w10 = sigma1(w8) + w3 + sigma0(w11) + w10;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xc24b8b70u + w10;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w11 = sigma1(w9) + w4 + sigma0(w12) + w11;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xc76c51a3u + w11;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w12 = sigma1(w10) + w5 + sigma0(w13) + w12;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xd192e819u + w12;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w13 = sigma1(w11) + w6 + sigma0(w14) + w13;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xd6990624u + w13;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w14 = sigma1(w12) + w7 + sigma0(w15) + w14;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xf40e3585u + w14;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w15 = sigma1(w13) + w8 + sigma0(w0) + w15;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x106aa070u + w15;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w0 = sigma1(w14) + w9 + sigma0(w1) + w0;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x19a4c116u + w0;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w1 = sigma1(w15) + w10 + sigma0(w2) + w1;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x1e376c08u + w1;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w2 = sigma1(w0) + w11 + sigma0(w3) + w2;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x2748774cu + w2;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w3 = sigma1(w1) + w12 + sigma0(w4) + w3;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x34b0bcb5u + w3;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w4 = sigma1(w2) + w13 + sigma0(w5) + w4;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x391c0cb3u + w4;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w5 = sigma1(w3) + w14 + sigma0(w6) + w5;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x4ed8aa4au + w5;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w6 = sigma1(w4) + w15 + sigma0(w7) + w6;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x5b9cca4fu + w6;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w7 = sigma1(w5) + w0 + sigma0(w8) + w7;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x682e6ff3u + w7;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w8 = sigma1(w6) + w1 + sigma0(w9) + w8;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x748f82eeu + w8;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w9 = sigma1(w7) + w2 + sigma0(w10) + w9;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x78a5636fu + w9;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w10 = sigma1(w8) + w3 + sigma0(w11) + w10;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x84c87814u + w10;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w11 = sigma1(w9) + w4 + sigma0(w12) + w11;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x8cc70208u + w11;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w12 = sigma1(w10) + w5 + sigma0(w13) + w12;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0x90befffau + w12;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w13 = sigma1(w11) + w6 + sigma0(w14) + w13;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xa4506cebu + w13;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w14 = sigma1(w12) + w7 + sigma0(w15) + w14;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xbef9a3f7u + w14;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  w15 = sigma1(w13) + w8 + sigma0(w0) + w15;
  {
    let t1 = h + big_sigma1(e) + ch(e, f, g) + 0xc67178f2u + w15;
    let t2 = big_sigma0(a) + maj(a, b, c);
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  return array<u32, 8>(state[0] + a, state[1] + b, state[2] + c, state[3] + d,
                       state[4] + e, state[5] + f, state[6] + g, state[7] + h);
}

fn hash(base: u32) -> array<u32, 8> {
  var s = array<u32, 8>(0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au, 0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u);
  s = compress(s, array<u32, 16>(
    bswap(data[base + 0u]),
    bswap(data[base + 1u]),
    bswap(data[base + 2u]),
    bswap(data[base + 3u]),
    bswap(data[base + 4u]),
    bswap(data[base + 5u]),
    bswap(data[base + 6u]),
    bswap(data[base + 7u]),
    bswap(data[base + 8u]),
    bswap(data[base + 9u]),
    bswap(data[base + 10u]),
    bswap(data[base + 11u]),
    bswap(data[base + 12u]),
    ((bswap(data[base + 13u]) & 0xffffff00u) | 0x00000080u),
    0x00000000u,
    0x000001b8u
  ));
  return s;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let invocations = groups.x * groups.y * 64u;
  let first = gid.x + gid.y * groups.x * 64u;
  let count = arrayLength(&digest) / 8u;
  for (var j = 0u; j < 2u; j++) {
    let i = first + j * invocations;
    if (i >= count) { return; }
    let s = hash(i * 14u);
    for (var k = 0u; k < 8u; k++) { digest[8u * i + k] = s[k]; }
  }
}
