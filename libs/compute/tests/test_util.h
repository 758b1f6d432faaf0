// Shared test helpers: one Context per binary, seeded random data, host <-> f16 conversion,
// tolerance checks against float64 references.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "alknet/compute/executor.h"
#include "alknet/compute/op_table.h"
#include "alknet/webgpu/context.h"

namespace alknet::compute::testing {

// WebGPU is unconditional in alknet (lavapipe without a GPU): a missing adapter fails.
inline webgpu::Context& SharedContext() {
  static std::unique_ptr<webgpu::Context> ctx = [] {
    auto created = webgpu::Context::Create();
    if (!created) {
      std::fprintf(stderr, "no WebGPU context: %s\n", created.error().ToString().c_str());
      std::abort();
    }
    std::printf("[ adapter  ] %s%s\n", (*created)->adapter().Summary().c_str(),
                (*created)->HasFeature(WGPUFeatureName_ShaderF16) ? " (shader-f16)" : "");
    return std::move(created).value();
  }();
  return *ctx;
}

// A fresh seed each run, printed so a failure can be replayed with ALKNET_TEST_SEED.
inline uint64_t Seed() {
  static uint64_t seed = [] {
    const char* env = std::getenv("ALKNET_TEST_SEED");
    uint64_t s = env ? std::strtoull(env, nullptr, 10) : std::random_device{}();
    std::printf("[ seed     ] %llu (replay with ALKNET_TEST_SEED=%llu)\n", (unsigned long long)s,
                (unsigned long long)s);
    return s;
  }();
  return seed;
}

inline uint16_t F32ToF16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (((x >> 23) & 0xff) == 0xff)
    return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    const uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t h = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) ++h;  // may carry into the exponent: correct
  return static_cast<uint16_t>(sign | h);
}

inline float F16ToF32(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ffu;
  uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      x = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

// Host bytes (metatensor layout) of reference values.
inline std::vector<std::byte> ToHost(const RefTensor& r) {
  std::vector<std::byte> out;
  auto put = [&](const void* p, size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    out.insert(out.end(), b, b + n);
  };
  for (double v : r.data) {
    switch (r.dtype) {
      case DType::kF32: {
        float f = static_cast<float>(v);
        put(&f, 4);
        break;
      }
      case DType::kF16: {
        uint16_t h = F32ToF16(static_cast<float>(v));
        put(&h, 2);
        break;
      }
      case DType::kI32: {
        int32_t i = static_cast<int32_t>(v);
        put(&i, 4);
        break;
      }
      case DType::kU32: {
        uint32_t u = static_cast<uint32_t>(v);
        put(&u, 4);
        break;
      }
      case DType::kBool: {
        uint8_t b = v != 0;
        put(&b, 1);
        break;
      }
      default: ADD_FAILURE() << "test cannot encode dtype"; break;
    }
  }
  return out;
}

inline std::vector<double> FromHost(const HostTensor& h) {
  std::vector<double> out;
  const std::byte* p = h.data.data();
  const size_t n = h.data.size() / (h.dtype == DType::kBool ? 1 : DeviceElementSize(h.dtype));
  for (size_t i = 0; i < n; ++i) {
    switch (h.dtype) {
      case DType::kF32: {
        float f;
        std::memcpy(&f, p + 4 * i, 4);
        out.push_back(f);
        break;
      }
      case DType::kF16: {
        uint16_t v;
        std::memcpy(&v, p + 2 * i, 2);
        out.push_back(F16ToF32(v));
        break;
      }
      case DType::kI32: {
        int32_t v;
        std::memcpy(&v, p + 4 * i, 4);
        out.push_back(v);
        break;
      }
      case DType::kU32: {
        uint32_t v;
        std::memcpy(&v, p + 4 * i, 4);
        out.push_back(v);
        break;
      }
      case DType::kBool: out.push_back(static_cast<uint8_t>(p[i]) ? 1.0 : 0.0); break;
      default: ADD_FAILURE() << "test cannot decode dtype"; break;
    }
  }
  return out;
}

// Random values for an op's operand, honouring its test hints.
inline RefTensor RandomTensor(std::mt19937_64& rng, DType dtype, const Shape& shape,
                              const TestHints& h) {
  RefTensor t{dtype, shape, {}};
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  std::uniform_real_distribution<double> u(h.lo, h.hi);
  for (uint64_t i = 0; i < n; ++i) {
    double v;
    if (dtype == DType::kBool) {
      v = static_cast<double>(rng() & 1);
    } else if (dtype == DType::kI32 || dtype == DType::kU32) {
      const double lo = dtype == DType::kU32 ? std::max(0.0, std::floor(h.lo)) : std::floor(h.lo);
      std::uniform_int_distribution<int64_t> ui(static_cast<int64_t>(lo),
                                                static_cast<int64_t>(std::ceil(h.hi)));
      do {
        v = static_cast<double>(ui(rng));
      } while (h.nonzero && v == 0);
    } else {
      do {
        v = u(rng);
      } while (h.nonzero && std::fabs(v) < 0.5);
      if (h.integer_valued) v = std::round(v);
      v = dtype == DType::kF16 ? F16ToF32(F32ToF16(static_cast<float>(v))) : static_cast<float>(v);
    }
    t.data.push_back(v);
  }
  return t;
}

// |got - want| <= abs + rel * |want|; NaN matches NaN, infinities match exactly.
inline ::testing::AssertionResult Close(const std::vector<double>& got,
                                        const std::vector<double>& want, double abs_tol,
                                        double rel_tol, const std::string& what) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure()
           << what << ": " << got.size() << " elements, want " << want.size();
  }
  size_t bad = 0, first = 0;
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i];
    bool ok;
    if (std::isnan(w) || std::isnan(g))
      ok = std::isnan(w) && std::isnan(g);
    else if (std::isinf(w) || std::isinf(g))
      ok = g == w;
    else
      ok = std::fabs(g - w) <= abs_tol + rel_tol * std::fabs(w);
    if (!ok) {
      if (bad++ == 0) first = i;
      if (std::isfinite(g) && std::isfinite(w)) worst = std::max(worst, std::fabs(g - w));
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << ": " << bad << " of " << got.size() << " elements off; first at " << first
         << ": got " << got[first] << ", want " << want[first] << " (tolerance abs " << abs_tol
         << " rel " << rel_tol << ", worst finite error " << worst << ")";
}

}  // namespace alknet::compute::testing
