// The block tiling shared by the tiled MatMul kernel (shaders/linalg/matmul_tiled, ops/linalg.cpp)
// and Conv's parametric implicit GEMM (shaders/conv/conv_tiled, ops/conv.cpp): a BM x BN
// output block per workgroup of (BN / TN) x (BM / TM) invocations, TM x TN outputs each (4x4
// patches), K staged BK at a time through two workgroup-memory stages. Spelled
// "tile:BMxBNxBK:TMxTN" in ALKNET_MATMUL_VARIANT and ALKNET_CONV_VARIANT.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "alknet/compute/shader_generator.h"
#include "alknet/hbs/value.h"

namespace alknet::compute {

struct GemmTile {
  uint32_t bm = 64, bn = 64, bk = 16, tm = 4, tn = 4;
  uint32_t wx() const { return bn / tn; }
  uint32_t wy() const { return bm / tm; }
  uint32_t threads() const { return wx() * wy(); }
  uint64_t workgroup_bytes() const { return 2ull * (bm + bn) * bk * 4; }
  std::string Name() const {
    return "tile:" + std::to_string(bm) + "x" + std::to_string(bn) + "x" + std::to_string(bk) +
           ":" + std::to_string(tm) + "x" + std::to_string(tn);
  }
};

// Why `t` cannot run on `caps` (empty when it can): the templates' shape rules and the
// device's limits.
inline std::string GemmTileProblem(const GemmTile& t, const DeviceCaps& caps) {
  auto pow2 = [](uint32_t v) { return v != 0 && (v & (v - 1)) == 0; };
  if (!pow2(t.bm) || !pow2(t.bn) || !pow2(t.bk) || t.bm < 16 || t.bn < 16 || t.bm > 256 ||
      t.bn > 256 || t.bk < 4 || t.bk > 64) {
    return "BM and BN must be powers of two in 16..256, BK a power of two in 4..64";
  }
  if ((t.tm != 4 && t.tm != 8 && t.tm != 16) || (t.tn != 4 && t.tn != 8 && t.tn != 16) ||
      t.tm > t.bm || t.tn > t.bn) {
    return "TM and TN must be 4, 8 or 16 and at most BM and BN";
  }
  const uint32_t th = t.threads();
  if (th < 32) return "the block needs at least 32 invocations ((BM/TM)*(BN/TN))";
  if (th > caps.max_invocations_per_workgroup || t.wx() > caps.max_workgroup_size_x ||
      t.wy() > caps.max_workgroup_size_y) {
    return std::to_string(t.wx()) + "x" + std::to_string(t.wy()) +
           " invocations exceed the device's workgroup limits";
  }
  if (t.workgroup_bytes() > caps.max_workgroup_storage_bytes) {
    return std::to_string(t.workgroup_bytes()) + " bytes of workgroup memory exceed the device's " +
           std::to_string(caps.max_workgroup_storage_bytes);
  }
  return {};
}

// "tile:BMxBNxBK:TMxTN", optionally followed by ":splitS" when `split` is given (then *split
// is S, else 1); nullopt when `v` is not spelled so.
inline std::optional<GemmTile> ParseGemmTile(const std::string& v, uint64_t* split = nullptr) {
  unsigned bm, bn, bk, tm, tn, s;
  char end;
  if (std::sscanf(v.c_str(), "tile:%ux%ux%u:%ux%u%c", &bm, &bn, &bk, &tm, &tn, &end) == 5) {
    if (split != nullptr) *split = 1;
    return GemmTile{bm, bn, bk, tm, tn};
  }
  if (split != nullptr && std::sscanf(v.c_str(), "tile:%ux%ux%u:%ux%u:split%u%c", &bm, &bn, &bk,
                                      &tm, &tn, &s, &end) == 6) {
    *split = s;
    return GemmTile{bm, bn, bk, tm, tn};
  }
  return std::nullopt;
}

// The tiled templates' data: the tiling and the unrolled lists of accumulators (patch row g,
// row r in it, patch column h) and of each invocation's in-flight loads.
inline void AddGemmTileContext(const GemmTile& t, hbs::Object& o) {
  auto list = [](uint32_t n) {
    hbs::Array l;
    for (uint32_t i = 0; i < n; ++i) l.push_back(static_cast<long long>(i));
    return hbs::Value(std::move(l));
  };
  const uint32_t gm = t.tm / 4, gn = t.tn / 4, th = t.threads();
  hbs::Array acc;
  for (uint32_t g = 0; g < gm; ++g) {
    for (uint32_t r = 0; r < 4; ++r) {
      for (uint32_t h = 0; h < gn; ++h) {
        acc.push_back(hbs::Value::object({{"g", static_cast<long long>(g)},
                                          {"r", static_cast<long long>(r)},
                                          {"h", static_cast<long long>(h)},
                                          {"c", std::string(1, "xyzw"[r])}}));
      }
    }
  }
  o.set("bm", t.bm);
  o.set("bn", t.bn);
  o.set("bk", t.bk);
  o.set("tm", t.tm);
  o.set("tn", t.tn);
  o.set("gm", gm);
  o.set("gn", gn);
  o.set("wx", t.wx());
  o.set("wy", t.wy());
  o.set("threads", th);
  o.set("a_stage", t.bk * t.bm / 4);
  o.set("b_stage", t.bk * t.bn / 4);
  o.set("a_tile_len", 2 * t.bk * t.bm / 4);
  o.set("b_tile_len", 2 * t.bk * t.bn / 4);
  o.set("la_list", list((t.bm * t.bk / 4 + th - 1) / th));
  o.set("lb_list", list((t.bk * t.bn / 4 + th - 1) / th));
  o.set("a_exact", (t.bm * t.bk / 4) % th == 0);
  o.set("b_exact", (t.bk * t.bn / 4) % th == 0);
  o.set("gm_list", list(gm));
  o.set("gn_list", list(gn));
  o.set("acc_list", hbs::Value(std::move(acc)));
}

}  // namespace alknet::compute
