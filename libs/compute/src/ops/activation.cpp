// Activations: shaders/activation/<op>.wgsl.hbs. Attributes reach the template as literals.
#include <cmath>

#include "ops/elementwise.h"
#include "ops/families.h"

namespace alknet::compute::ops {

namespace {

double Get(const Attributes& a, const char* name) { return std::get<double>(a.at(name)); }

AttributeSpec FloatAttr(const char* name, double def) {
  return AttributeSpec{name, AttrValue(def), false, &FiniteFloat};
}

OpRecord Act(const char* name, const char* file, int opset, const DTypeSet& types, ScalarRef ref,
             std::vector<AttributeSpec> attrs = {}, TestHints hints = {-4, 4, 1e-5, 1e-5}) {
  OpRecord r =
      ElementwiseRecord(name, std::string("activation/") + file, std::string(name) + " activation",
                        types, OutType::kSame, std::move(ref));
  r.opset_min = opset;
  r.attributes = std::move(attrs);
  r.hints = hints;
  return r;
}

}  // namespace

void AddActivationOps(OpTable& table) {
  const TestHints expo{-4, 4, 2e-6, 1e-5};
  table.Add(Act("Relu", "relu", 6, kSignedNum,
                [](std::span<const double> x, const Attributes&) { return std::max(x[0], 0.0); },
                {}, {-4, 4, 0, 0}));
  table.Add(Act("LeakyRelu", "leakyrelu", 6, kFloat,
                [](std::span<const double> x, const Attributes& a) {
                  return x[0] >= 0 ? x[0] : ToF32(Get(a, "alpha")) * x[0];
                },
                {FloatAttr("alpha", 0.01)}));
  table.Add(Act(
      "Elu", "elu", 6, kFloat,
      [](std::span<const double> x, const Attributes& a) {
        return x[0] >= 0 ? x[0] : ToF32(Get(a, "alpha")) * std::expm1(x[0]);
      },
      {FloatAttr("alpha", 1.0)}, expo));
  AttributeSpec celu_alpha = FloatAttr("alpha", 1.0);
  celu_alpha.validate = [](const AttrValue& v) {
    const double a = std::get<double>(v);
    return std::isfinite(a) && a != 0 ? std::string() : std::string("must be finite and non-zero");
  };
  table.Add(Act(
      "Celu", "celu", 12, {DType::kF32},
      [](std::span<const double> x, const Attributes& a) {
        const double al = ToF32(Get(a, "alpha"));
        return std::max(0.0, x[0]) + std::min(0.0, al * std::expm1(x[0] / al));
      },
      {celu_alpha}, expo));
  table.Add(Act(
      "Selu", "selu", 6, kFloat,
      [](std::span<const double> x, const Attributes& a) {
        const double al = ToF32(Get(a, "alpha")), g = ToF32(Get(a, "gamma"));
        return x[0] > 0 ? g * x[0] : g * (al * std::exp(x[0]) - al);
      },
      {FloatAttr("alpha", 1.67326319217681884765625),
       FloatAttr("gamma", 1.05070102214813232421875)},
      expo));
  table.Add(Act("HardSigmoid", "hardsigmoid", 6, kFloat,
                [](std::span<const double> x, const Attributes& a) {
                  return std::clamp(ToF32(Get(a, "alpha")) * x[0] + ToF32(Get(a, "beta")), 0.0,
                                    1.0);
                },
                {FloatAttr("alpha", 0.2), FloatAttr("beta", 0.5)}));
  table.Add(
      Act("HardSwish", "hardswish", 14, kFloat, [](std::span<const double> x, const Attributes&) {
        return x[0] * std::clamp(x[0] / 6.0 + 0.5, 0.0, 1.0);
      }));
  table.Add(Act(
      "Sigmoid", "sigmoid", 6, kFloat,
      [](std::span<const double> x, const Attributes&) { return 1.0 / (1.0 + std::exp(-x[0])); },
      {}, {-8, 8, 2e-6, 1e-5}));
  table.Add(Act("Softplus", "softplus", 1, kFloat,
                [](std::span<const double> x, const Attributes&) {
                  return std::max(x[0], 0.0) + std::log1p(std::exp(-std::fabs(x[0])));
                },
                {}, {-8, 8, 2e-6, 1e-5}));
  table.Add(Act(
      "Softsign", "softsign", 1, kFloat,
      [](std::span<const double> x, const Attributes&) { return x[0] / (1.0 + std::fabs(x[0])); }));
  AttributeSpec approx{
      "approximate", AttrValue(std::string("none")), false, [](const AttrValue& v) {
        const auto& s = std::get<std::string>(v);
        return s == "none" || s == "tanh" ? std::string()
                                          : std::string("must be \"none\" or \"tanh\"");
      }};
  table.Add(Act("Gelu", "gelu", 20, kFloat,
                [](std::span<const double> x, const Attributes& a) {
                  const double v = x[0];
                  if (std::get<std::string>(a.at("approximate")) == "tanh") {
                    return 0.5 * v *
                           (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
                  }
                  return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
                },
                {approx}, {-4, 4, 5e-6, 1e-5}));
  table.Add(Act("ThresholdedRelu", "thresholdedrelu", 10, kFloat,
                [](std::span<const double> x, const Attributes& a) {
                  return x[0] > ToF32(Get(a, "alpha")) ? x[0] : 0.0;
                },
                {FloatAttr("alpha", 1.0)}, {-4, 4, 0, 0}));
  AttributeSpec lambd = FloatAttr("lambd", 0.5);
  table.Add(Act("Shrink", "shrink", 9, kFloat,
                [](std::span<const double> x, const Attributes& a) {
                  const double l = ToF32(Get(a, "lambd")), b = ToF32(Get(a, "bias"));
                  return x[0] < -l ? x[0] + b : x[0] > l ? x[0] - b : 0.0;
                },
                {lambd, FloatAttr("bias", 0.0)}, {-4, 4, 1e-6, 1e-6}));
  // PRelu: slope broadcasts to X one way only (ONNX "unidirectional broadcasting").
  OpRecord prelu = Act(
      "PRelu", "prelu", 9, kSignedNum,
      [](std::span<const double> x, const Attributes&) { return x[0] >= 0 ? x[0] : x[1] * x[0]; });
  prelu.min_inputs = prelu.max_inputs = 2;
  prelu.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(auto outs, InferElementwise(node, kSignedNum, OutType::kSame));
    if (outs[0].shape != node.inputs[0].shape) {
      return Error{ErrorCode::kShape,
                   node.Describe() + ": slope " + ShapeToString(node.inputs[1].shape) +
                       " must broadcast to X " + ShapeToString(node.inputs[0].shape) +
                       " without growing it (unidirectional broadcasting)"};
    }
    return outs;
  };
  table.Add(std::move(prelu));
}

}  // namespace alknet::compute::ops
