// Unary elementwise ops: one record each; the shader is shaders/unary/<op>.wgsl.hbs. IsInf
// and IsNaN classify floats (bool output).
#include <cmath>

#include "ops/elementwise.h"
#include "ops/families.h"

namespace alknet::compute::ops {

namespace {

using In = std::span<const double>;

struct Unary {
  const char* name;
  int opset_min;
  const DTypeSet* types;
  double (*ref)(double);
  TestHints hints;
};

double Sign(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; }

// ---- IsInf, IsNaN ---------------------------------------------------------------------------

void AddFloatClassOps(OpTable& table) {
  const DTypeSet f32 = {DType::kF32};
  OpRecord isinf = ElementwiseRecord(
      "IsInf", "unary/isinf",
      "true where the element is +inf (detect_positive) or -inf (detect_negative)", f32,
      OutType::kBool, [](In x, const Attributes& a) {
        const bool pos = std::get<int64_t>(a.at("detect_positive")) != 0;
        const bool neg = std::get<int64_t>(a.at("detect_negative")) != 0;
        return std::isinf(x[0]) && ((x[0] > 0 && pos) || (x[0] < 0 && neg)) ? 1.0 : 0.0;
      });
  isinf.opset_min = 10;
  isinf.attributes = {{"detect_positive", AttrValue(int64_t{1}), false, {}},
                      {"detect_negative", AttrValue(int64_t{1}), false, {}}};
  isinf.hints = {-4, 4, 0, 0};
  const RefTensor specials{DType::kF32, {7}, {1.5, INFINITY, -INFINITY, NAN, 0.0, -3e38, 3e38}};
  isinf.test_cases = {
      {{Shape{7}}, {}, {{0, specials}}, "both signs"},
      {{Shape{7}}, {{"detect_positive", int64_t{0}}}, {{0, specials}}, "negative only"},
      {{Shape{7}}, {{"detect_negative", int64_t{0}}}, {{0, specials}}, "positive only"},
  };
  table.Add(std::move(isinf));

  OpRecord isnan = ElementwiseRecord(
      "IsNaN", "unary/isnan", "true where the element is NaN", f32, OutType::kBool,
      [](In x, const Attributes&) { return std::isnan(x[0]) ? 1.0 : 0.0; });
  isnan.opset_min = 9;
  isnan.hints = {-4, 4, 0, 0};
  isnan.test_cases = {{{Shape{7}}, {}, {{0, specials}}, "specials"},
                      {{Shape{3, 5}}, {}, {}, "finite"}};
  table.Add(std::move(isnan));
}

}  // namespace

void AddUnaryOps(OpTable& table) {
  // asin/acos: WGSL inherits their accuracy from atan2(x, sqrt(1 - x^2)); lavapipe is off by
  // up to 4e-4 near |x| = 0.95.
  // Tolerances follow WGSL's accuracy table: exp/log within a few ULP, sin/cos within 2^-11
  // absolute on [-pi, pi], the rest inherited from the formulas implementations use.
  const TestHints exact{-3, 3, 0, 0};
  const TestHints trig{-3, 3, 6e-4, 1e-5};
  const TestHints tan{-1.2, 1.2, 2e-3, 2e-3};
  const TestHints expo{-5, 5, 1e-5, 4e-6};
  const TestHints hyper{-4, 4, 1e-4, 1e-4};
  const Unary list[] = {
      {"Abs", 1, &kSignedNum, [](double x) { return std::fabs(x); }, exact},
      {"Acos", 7, &kFloat, [](double x) { return std::acos(x); }, {-0.95, 0.95, 1e-3, 1e-4}},
      {"Acosh", 9, &kFloat, [](double x) { return std::acosh(x); }, {1.05, 6, 2e-4, 1e-4}},
      {"Asin", 7, &kFloat, [](double x) { return std::asin(x); }, {-0.95, 0.95, 1e-3, 1e-4}},
      {"Asinh", 9, &kFloat, [](double x) { return std::asinh(x); }, {-5, 5, 2e-4, 1e-4}},
      {"Atan", 7, &kFloat, [](double x) { return std::atan(x); }, {-5, 5, 2e-4, 1e-4}},
      {"Atanh", 9, &kFloat, [](double x) { return std::atanh(x); }, {-0.9, 0.9, 2e-4, 1e-4}},
      {"Ceil", 1, &kFloat, [](double x) { return std::ceil(x); }, exact},
      {"Cos", 7, &kFloat, [](double x) { return std::cos(x); }, trig},
      {"Cosh", 9, &kFloat, [](double x) { return std::cosh(x); }, hyper},
      {"Exp", 1, &kFloat, [](double x) { return std::exp(x); }, expo},
      {"Floor", 1, &kFloat, [](double x) { return std::floor(x); }, exact},
      {"Log", 1, &kFloat, [](double x) { return std::log(x); }, {0.01, 8, 1e-5, 1e-5}},
      {"Neg", 6, &kSignedNum, [](double x) { return -x; }, exact},
      {"Reciprocal", 6, &kFloat, [](double x) { return 1.0 / x; }, {-3, 3, 1e-6, 1e-6, true}},
      {"Round", 11, &kFloat, [](double x) { return std::nearbyint(x); }, exact},
      {"Sign", 9, &kSignedNum, &Sign, exact},
      {"Sin", 7, &kFloat, [](double x) { return std::sin(x); }, trig},
      {"Sinh", 9, &kFloat, [](double x) { return std::sinh(x); }, hyper},
      {"Sqrt", 6, &kFloat, [](double x) { return std::sqrt(x); }, {0, 8, 1e-6, 1e-6}},
      {"Tan", 7, &kFloat, [](double x) { return std::tan(x); }, tan},
      {"Tanh", 6, &kFloat, [](double x) { return std::tanh(x); }, {-5, 5, 1e-5, 1e-5}},
      {"Erf", 9, &kFloat, [](double x) { return std::erf(x); }, {-3, 3, 2e-6, 0}},
      {"Identity", 1, &kAny, [](double x) { return x; }, exact},
      {"Not", 1, &kBoolOnly, [](double x) { return x == 0 ? 1.0 : 0.0; }, exact},
  };
  for (const Unary& u : list) {
    std::string lower = u.name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto fn = u.ref;
    OpRecord r = ElementwiseRecord(
        u.name, "unary/" + lower, std::string(u.name) + " of each element", *u.types,
        OutType::kSame, [fn](std::span<const double> in, const Attributes&) { return fn(in[0]); });
    r.opset_min = u.opset_min;
    r.hints = u.hints;
    if (r.name == "Round") {
      // Halves round to even (ONNX, numpy, WGSL round()); random data never lands on them.
      const RefTensor halves{
          DType::kF32,
          {12},
          {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49, 0.51, 3.5, -3.5, 4194304.5, -0.0}};
      r.test_cases = {{{Shape{12}}, {}, {{0, halves}}, "halves"},
                      {{Shape{3, 5, 7}}, {}, {}, "random"}};
      r.test_dtypes = {DType::kF32};
    }
    table.Add(std::move(r));
  }
  AddFloatClassOps(table);
}

}  // namespace alknet::compute::ops
