// Random ops (shaders/random/random.wgsl.hbs): RandomUniform, RandomNormal, their *Like forms
// and Bernoulli. A counter-based generator: element i's 32 random bits are a hash of i and the
// seed, so the device and the float64 reference draw the same numbers (the op tests compare
// them), every element is independent of the dispatch order, and a plan folded on the host
// gives what the device would. The ONNX backend tests' expected outputs come from numpy's
// generator, so those values cannot match (the conformance runner reports them as not
// comparable); tests/compute checks the distributions statistically.
//
// Uniform: low + (high - low) * u, u = (bits >> 8) * 2^-24 in [0, 1). Normal: Box-Muller on
// elements 2i and 2i + 1. Bernoulli: 1 when u < p. A node without a seed gets one drawn when
// the model is loaded (libs/onnx), so runs of one session repeat the same numbers.
#include <cmath>
#include <cstdint>
#include <numbers>

#include "ops/elementwise.h"
#include "ops/families.h"
#include "ops/movement.h"
#include "ops/random.h"

namespace alknet::compute::ops {

namespace {

enum class Dist { kUniform, kNormal, kBernoulli };

uint32_t Mix(uint32_t v) {
  v ^= v >> 16;
  v *= 0x7feb352du;
  v ^= v >> 15;
  v *= 0x846ca68bu;
  v ^= v >> 16;
  return v;
}

struct Seed {
  uint32_t lo = 0, hi = 0;
};

Seed SeedFrom(double s) {
  if (!std::isfinite(s)) s = 0;
  const double clamped = std::fmin(std::fmax(s, -9.2e18), 9.2e18);
  const auto v = static_cast<uint64_t>(static_cast<int64_t>(clamped));
  return Seed{static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32) ^ 0x9e3779b9u};
}

Seed SeedOf(const Attributes& at) {
  auto it = at.find("seed");
  return SeedFrom(it == at.end() ? 0.0 : std::get<double>(it->second));
}

uint32_t Draw(uint64_t index, Seed s) {
  return Mix(Mix(static_cast<uint32_t>(index) ^ s.lo) + s.hi);
}

// [0, 1) with 24 bits, exact in float32.
double Unit(uint32_t bits) { return static_cast<double>(bits >> 8) * 0x1p-24; }

double Sample(Dist d, uint64_t i, Seed s, double a, double b, double p) {
  switch (d) {
    case Dist::kUniform: return ToF32(a + ToF32(ToF32(b - a) * Unit(Draw(i, s))));
    case Dist::kNormal: {
      const double u1 = ToF32(Unit(Draw(2 * i, s)) + 0x1p-25);  // (0, 1): log is finite
      const double u2 = Unit(Draw(2 * i + 1, s));
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
      return a + b * z;
    }
    case Dist::kBernoulli: return Unit(Draw(i, s)) < p ? 1.0 : 0.0;
  }
  return 0;
}

OpRecord RandomRecord(const char* name, Dist dist, bool like) {
  OpRecord r;
  r.name = name;
  r.opset_min = dist == Dist::kBernoulli ? 15 : 1;
  r.family = "random";
  r.shader = "random/random";
  const bool normal = dist == Dist::kNormal;
  r.summary = dist == Dist::kBernoulli
                  ? "1 with probability p (input), else 0; counter-based generator, seeded"
                  : std::string(normal ? "normal(mean, scale)" : "uniform[low, high)") +
                        (like ? " samples of the input's shape" : " samples of a given shape") +
                        "; counter-based generator, seeded";
  r.min_inputs = r.max_inputs = like ? 1 : 0;
  r.attributes = {{"seed", std::nullopt, true, {}},
                  {"dtype", like ? std::nullopt : std::optional<AttrValue>(int64_t{1}), like, {}}};
  if (dist == Dist::kUniform) {
    r.attributes.push_back({"low", AttrValue(0.0), false, {}});
    r.attributes.push_back({"high", AttrValue(1.0), false, {}});
  } else if (normal) {
    r.attributes.push_back({"mean", AttrValue(0.0), false, {}});
    r.attributes.push_back({"scale", AttrValue(1.0), false, {}});
  }
  if (!like) r.attributes.push_back({"shape", std::nullopt, false, {}});
  r.infer = [dist, like](const OpNode& node,
                         const Attributes& at) -> Result<std::vector<TensorDesc>> {
    Shape shape;
    if (like) {
      shape = node.inputs[0].shape;
      if (dist == Dist::kBernoulli && node.inputs[0].dtype != DType::kF32 &&
          node.inputs[0].dtype != DType::kF16) {
        return Error{ErrorCode::kUnsupported,
                     node.Describe() + ": the probabilities must be float (f32 or f16)"};
      }
    } else {
      for (int64_t d : std::get<std::vector<int64_t>>(at.at("shape"))) {
        if (d < 0) {
          return Error{ErrorCode::kInvalidAttribute,
                       node.Describe() + ": shape values must be >= 0"};
        }
        shape.push_back(static_cast<uint64_t>(d));
      }
    }
    DType out = like ? node.inputs[0].dtype : DType::kF32;
    if (auto it = at.find("dtype"); it != at.end()) {
      ALKNET_ASSIGN_OR_RETURN(out,
                              DeviceTypeOfOnnx(std::get<int64_t>(it->second), node.Describe()));
    }
    if (dist != Dist::kBernoulli && out != DType::kF32 && out != DType::kF16) {
      return Error{
          ErrorCode::kUnsupported,
          node.Describe() + ": dtype must be float, float16 or double, got " + DTypeName(out)};
    }
    const TensorDesc o{out, shape};
    ALKNET_TRY(CheckIndexable(node, 2 * o.elements()));
    return std::vector<TensorDesc>{o};
  };
  auto params = [dist](const Attributes& at) {
    auto f = [&](const char* k, double dflt) {
      auto it = at.find(k);
      return it == at.end() ? dflt : std::get<double>(it->second);
    };
    if (dist == Dist::kUniform) return std::pair{f("low", 0), f("high", 1)};
    if (dist == Dist::kNormal) return std::pair{f("mean", 0), f("scale", 1)};
    return std::pair{0.0, 0.0};
  };
  r.context = [dist, like, params](const OpNode& node, const Attributes& at,
                                   const DeviceCaps&) -> Result<hbs::Value> {
    const Seed s = SeedOf(at);
    const auto [a, b] = params(at);
    hbs::Object o;
    o.set("total", node.outputs.at(0).elements());
    o.set("seed_lo", static_cast<uint64_t>(s.lo));
    o.set("seed_hi", static_cast<uint64_t>(s.hi));
    o.set("a", FloatLiteral(a));
    o.set("b", FloatLiteral(b));
    o.set("range", FloatLiteral(ToF32(b - a)));
    o.set("uniform", dist == Dist::kUniform);
    o.set("normal", dist == Dist::kNormal);
    o.set("bernoulli", dist == Dist::kBernoulli);
    o.set("like", like);
    return hbs::Value(std::move(o));
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps&) {
    return LinearOver(node.outputs.at(0).elements());
  };
  r.reference = [dist, params](const OpNode& node, const Attributes& at,
                               const std::vector<RefTensor>& in) {
    const Seed s = SeedOf(at);
    const auto [a, b] = params(at);
    RefTensor out{node.outputs.at(0).dtype, node.outputs.at(0).shape, {}};
    const uint64_t n = node.outputs.at(0).elements();
    out.data.resize(n);
    for (uint64_t i = 0; i < n; ++i) {
      const double p = dist == Dist::kBernoulli ? in[0].data[i] : 0.0;
      out.data[i] = Sample(dist, i, s, a, b, p);
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  // Bernoulli and uniform draw the same bits and compare or scale exactly; normal goes
  // through WGSL's log, cos and sqrt (a few ULP each, |z| < 6).
  r.hints = {0, 1, normal ? 2e-5 : 1e-6, normal ? 1e-5 : 1e-6};
  if (like) {
    r.test_cases = {{{Shape{3, 257}}, {{"seed", 5.0}}, {}, "seed 5"},
                    {{Shape{1000}}, {{"seed", -1e12}}, {}, "large negative seed"}};
    if (dist == Dist::kBernoulli) {
      r.test_cases.push_back({{Shape{64}}, {{"seed", 3.0}, {"dtype", int64_t{9}}}, {}, "bool out"});
    }
  } else {
    r.test_cases = {{{}, {{"seed", 1.0}, {"shape", std::vector<int64_t>{4, 301}}}, {}, "4x301"},
                    {{}, {{"shape", std::vector<int64_t>{17}}}, {}, "no seed"}};
    if (dist == Dist::kUniform) {
      r.test_cases.push_back(
          {{},
           {{"seed", 2.0}, {"low", -3.5}, {"high", 10.0}, {"shape", std::vector<int64_t>{2, 2, 9}}},
           {},
           "low -3.5 high 10"});
    }
  }
  return r;
}

}  // namespace

double UniformDraw(uint64_t index, double seed) { return Unit(Draw(index, SeedFrom(seed))); }

void AddRandomOps(OpTable& table) {
  table.Add(RandomRecord("RandomUniform", Dist::kUniform, false));
  table.Add(RandomRecord("RandomUniformLike", Dist::kUniform, true));
  table.Add(RandomRecord("RandomNormal", Dist::kNormal, false));
  table.Add(RandomRecord("RandomNormalLike", Dist::kNormal, true));
  table.Add(RandomRecord("Bernoulli", Dist::kBernoulli, true));
}

}  // namespace alknet::compute::ops
