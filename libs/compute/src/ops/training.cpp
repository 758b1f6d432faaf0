// Optimizer steps from the ai.onnx.preview.training domain (opset 1): Adagrad, Momentum
// (standard and Nesterov) and Adam over any number of tensors. Each tensor's update is one
// alknet.OptimizerStep kernel (shaders/training/optimizer.wgsl.hbs) that writes the new
// tensor and its new state(s) in one pass; the ops are compositions of those.
#include <cmath>

#include "ops/elementwise.h"
#include "ops/families.h"

namespace alknet::compute::ops {

namespace {

// Inputs per tensor after R and T, and the state outputs after X_new.
struct Rule {
  const char* name;
  int per_tensor;  // X, G and the states
  int states;      // V and/or H
};

const Rule kAdagrad{"adagrad", 3, 1};    // X, G, H -> X_new, H_new
const Rule kMomentum{"momentum", 3, 1};  // X, G, V -> X_new, V_new
const Rule kAdam{"adam", 4, 2};          // X, G, V, H -> X_new, V_new, H_new

double F(const Attributes& a, const char* n) { return ToF32(std::get<double>(a.at(n))); }

// One tensor's step in float64: x, g and the states in, new x and new states out.
std::vector<double> Step(const std::string& rule, const Attributes& a, double r, double t, double x,
                         double g, double s1, double s2) {
  if (rule == "adagrad") {
    const double rr = r / (1 + t * F(a, "decay_factor"));
    const double gr = F(a, "norm_coefficient") * x + g;
    const double h = s1 + gr * gr;
    return {x - rr * gr / (std::sqrt(h) + F(a, "epsilon")), h};
  }
  if (rule == "adam") {
    const double al = F(a, "alpha"), be = F(a, "beta");
    const double gr = F(a, "norm_coefficient") * x + g;
    const double v = al * s1 + (1 - al) * gr;
    const double h = be * s2 + (1 - be) * gr * gr;
    const double ra = t > 0 ? r * std::sqrt(1 - std::pow(be, t)) / (1 - std::pow(al, t)) : r;
    const double xn = x - ra * (v / (std::sqrt(h) + F(a, "epsilon")));
    return {(1 - F(a, "norm_coefficient_post")) * xn, v, h};
  }
  const double al = F(a, "alpha");
  const double gr = F(a, "norm_coefficient") * x + g;
  const double v = al * s1 + (t > 0 ? F(a, "beta") : 1.0) * gr;
  const bool nesterov = std::get<std::string>(a.at("mode")) == "nesterov";
  return {nesterov ? x - r * (gr + al * v) : x - r * v, v};
}

AttributeSpec FloatAttr(const char* name, double def) {
  return AttributeSpec{name, AttrValue(def), false, &FiniteFloat};
}

// Defaults as in the ONNX schemas (onnx.defs.get_schema(..., "ai.onnx.preview.training")).
std::vector<AttributeSpec> AttributesOf(const Rule& rule) {
  if (std::string(rule.name) == "adagrad") {
    return {FloatAttr("decay_factor", 0.0), FloatAttr("epsilon", 1e-6),
            FloatAttr("norm_coefficient", 0.0)};
  }
  if (std::string(rule.name) == "adam") {
    return {FloatAttr("alpha", 0.9), FloatAttr("beta", 0.999), FloatAttr("epsilon", 1e-6),
            FloatAttr("norm_coefficient", 0.0), FloatAttr("norm_coefficient_post", 0.0)};
  }
  AttributeSpec mode{"mode", std::nullopt, false, [](const AttrValue& v) {
                       if (v.index() != 2) return std::string("must be a string");
                       const auto& m = std::get<std::string>(v);
                       return m == "standard" || m == "nesterov"
                                  ? std::string()
                                  : std::string("must be \"standard\" or \"nesterov\"");
                     }};
  // ONNX gives Momentum no defaults.
  AttributeSpec alpha{"alpha", std::nullopt, false, &FiniteFloat};
  AttributeSpec beta{"beta", std::nullopt, false, &FiniteFloat};
  AttributeSpec norm{"norm_coefficient", std::nullopt, false, &FiniteFloat};
  return {alpha, beta, mode, norm};
}

Status CheckStepInputs(const OpNode& node, size_t first, int per_tensor) {
  const TensorDesc& r = node.inputs[0];
  const TensorDesc& t = node.inputs[1];
  if (r.dtype != DType::kF32 || r.elements() != 1 || t.dtype != DType::kI32 || t.elements() != 1) {
    return Error{ErrorCode::kUnsupported,
                 node.Describe() + ": R must be an f32 scalar and T an integer scalar"};
  }
  const TensorDesc& x = node.inputs[first];
  for (int k = 0; k < per_tensor; ++k) {
    const TensorDesc& d = node.inputs[first + static_cast<size_t>(k)];
    if (d.dtype != DType::kF32 || d.shape != x.shape) {
      return Error{
          ErrorCode::kShape,
          node.Describe() + ": X, G and the states of one tensor must be f32 of one shape"};
    }
  }
  return Ok{};
}

OpRecord StepRecord() {
  OpRecord r;
  r.name = "alknet.OptimizerStep";
  r.family = "internal";
  r.shader = "training/optimizer";
  r.summary = "one tensor's optimizer update: R, T, X, G, states -> X_new, new states";
  r.min_inputs = 5;
  r.max_inputs = 6;
  r.attributes = {{"rule", std::nullopt, false, {}},
                  {"alpha", AttrValue(0.0), false, &FiniteFloat},
                  {"beta", AttrValue(0.0), false, &FiniteFloat},
                  {"epsilon", AttrValue(0.0), false, &FiniteFloat},
                  {"decay_factor", AttrValue(0.0), false, &FiniteFloat},
                  {"norm_coefficient", AttrValue(0.0), false, &FiniteFloat},
                  {"norm_coefficient_post", AttrValue(0.0), false, &FiniteFloat},
                  {"mode", AttrValue(std::string("standard")), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    const std::string& rule = std::get<std::string>(at.at("rule"));
    const int per = rule == "adam" ? 4 : 3;
    if (static_cast<int>(node.inputs.size()) != 2 + per) {
      return Error{ErrorCode::kShape, node.Describe() + ": rule " + rule + " takes " +
                                          std::to_string(2 + per) + " inputs"};
    }
    ALKNET_TRY(CheckStepInputs(node, 2, per));
    return std::vector<TensorDesc>(static_cast<size_t>(per - 1),
                                   TensorDesc{DType::kF32, node.inputs[2].shape});
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps&) -> Result<hbs::Value> {
    hbs::Value ctx = hbs::Value::object({{"n", node.inputs[2].elements()}});
    for (const auto& [k, v] : at) {
      if (v.index() == 1) ctx.as_object().set(k, FloatLiteral(std::get<double>(v)));
      if (v.index() == 2) ctx.as_object().set(k, std::get<std::string>(v));
    }
    return ctx;
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps&) {
    DispatchPlan p;
    p.invocations = node.inputs[2].elements();
    return p;
  };
  r.reference = [](const OpNode&, const Attributes& at, const std::vector<RefTensor>& in) {
    const std::string& rule = std::get<std::string>(at.at("rule"));
    const size_t outs = rule == "adam" ? 3 : 2;
    std::vector<RefTensor> out(outs, RefTensor{DType::kF32, in[2].shape, {}});
    for (size_t i = 0; i < in[2].data.size(); ++i) {
      const double s1 = in[4].data[i], s2 = in.size() > 5 ? in[5].data[i] : 0.0;
      const std::vector<double> v =
          Step(rule, at, in[0].data[0], in[1].data[0], in[2].data[i], in[3].data[i], s1, s2);
      for (size_t o = 0; o < outs; ++o) out[o].data.push_back(v[o]);
    }
    return out;
  };
  r.hints = {0.5, 2, 1e-5, 1e-5};
  auto scal = [](DType d, double v) { return RefTensor{d, {}, {v}}; };
  r.test_cases = {
      {{Shape{}, Shape{}, Shape{7}, Shape{7}, Shape{7}},
       {{"rule", std::string("adagrad")},
        {"decay_factor", 0.1},
        {"epsilon", 1e-5},
        {"norm_coefficient", 0.001}},
       {{0, scal(DType::kF32, 0.1)}, {1, scal(DType::kI32, 3)}},
       "adagrad"},
      {{Shape{}, Shape{}, Shape{2, 3}, Shape{2, 3}, Shape{2, 3}, Shape{2, 3}},
       {{"rule", std::string("adam")},
        {"alpha", 0.9},
        {"beta", 0.85},
        {"epsilon", 1e-7},
        {"norm_coefficient", 0.001},
        {"norm_coefficient_post", 0.01}},
       {{0, scal(DType::kF32, 0.1)}, {1, scal(DType::kI32, 2)}},
       "adam"},
      {{Shape{}, Shape{}, Shape{5}, Shape{5}, Shape{5}},
       {{"rule", std::string("momentum")},
        {"alpha", 0.95},
        {"beta", 0.1},
        {"mode", std::string("nesterov")}},
       {{0, scal(DType::kF32, 0.1)}, {1, scal(DType::kI32, 0)}},
       "nesterov, T = 0"},
  };
  return r;
}

OpRecord OptimizerRecord(const char* name, const Rule& rule) {
  OpRecord r;
  r.name = name;
  r.opset_min = 1;
  r.family = "training";
  r.summary = std::string(name) + " step over any number of tensors (ai.onnx.preview.training)";
  r.min_inputs = 2 + rule.per_tensor;
  r.max_inputs = 2 + rule.per_tensor * 64;
  r.attributes = AttributesOf(rule);
  const Rule ru = rule;
  auto tensors = [ru](const OpNode& node) {
    return (node.inputs.size() - 2) / static_cast<size_t>(ru.per_tensor);
  };
  r.infer = [ru, tensors](const OpNode& node,
                          const Attributes&) -> Result<std::vector<TensorDesc>> {
    if ((node.inputs.size() - 2) % static_cast<size_t>(ru.per_tensor) != 0) {
      return Error{ErrorCode::kShape, node.Describe() + ": takes R, T and " +
                                          std::to_string(ru.per_tensor) +
                                          " inputs per optimized tensor"};
    }
    const size_t n = tensors(node);
    std::vector<TensorDesc> outs(n * static_cast<size_t>(1 + ru.states));
    for (size_t j = 0; j < n; ++j) {
      OpNode one = node;
      one.inputs = {node.inputs[0], node.inputs[1]};
      for (int k = 0; k < ru.per_tensor; ++k) one.inputs.push_back(node.inputs[2 + k * n + j]);
      ALKNET_TRY(CheckStepInputs(one, 2, ru.per_tensor));
      for (int o = 0; o <= ru.states; ++o)
        outs[o * n + j] = TensorDesc{DType::kF32, node.inputs[2 + j].shape};
    }
    return outs;
  };
  // Inputs are grouped by kind (X1..Xn, G1..Gn, states...), outputs too (X_new..., states...).
  auto step_attrs = [ru](const Attributes& at) {
    Attributes a = at;
    a["rule"] = std::string(ru.name);
    return a;
  };
  r.decompose = [ru, tensors, step_attrs](const OpNode& node,
                                          const Attributes& at) -> Result<Graph> {
    const size_t n = tensors(node);
    Graph g(static_cast<int>(node.inputs.size()));
    std::vector<int> outs(n * static_cast<size_t>(1 + ru.states));
    for (size_t j = 0; j < n; ++j) {
      std::vector<int> in{0, 1};
      for (int k = 0; k < ru.per_tensor; ++k) in.push_back(static_cast<int>(2 + k * n + j));
      const int first = g.Add("alknet.OptimizerStep", in, step_attrs(at), 1, 1 + ru.states);
      for (int o = 0; o <= ru.states; ++o) outs[o * n + j] = first + o;
    }
    g.outputs = outs;
    return g;
  };
  r.reference = [ru, tensors, step_attrs](const OpNode& node, const Attributes& at,
                                          const std::vector<RefTensor>& in) {
    const size_t n = tensors(node);
    const Attributes a = step_attrs(at);
    std::vector<RefTensor> outs(n * static_cast<size_t>(1 + ru.states));
    for (size_t j = 0; j < n; ++j) {
      const RefTensor& x = in[2 + j];
      for (int o = 0; o <= ru.states; ++o) outs[o * n + j] = RefTensor{DType::kF32, x.shape, {}};
      for (size_t i = 0; i < x.data.size(); ++i) {
        const double g = in[2 + n + j].data[i];
        const double s1 = in[2 + 2 * n + j].data[i];
        const double s2 = ru.per_tensor > 3 ? in[2 + 3 * n + j].data[i] : 0.0;
        const std::vector<double> v =
            Step(ru.name, a, in[0].data[0], in[1].data[0], x.data[i], g, s1, s2);
        for (int o = 0; o <= ru.states; ++o) outs[o * n + j].data.push_back(v[o]);
      }
    }
    return outs;
  };
  r.hints = {0.5, 2, 1e-5, 1e-5};
  const RefTensor rate{DType::kF32, {}, {0.1}}, step{DType::kI32, {}, {2}};
  const std::string rn = rule.name;
  if (rn == "adagrad") {
    r.test_cases = {
        {{Shape{}, Shape{}, Shape{3}, Shape{2, 2}, Shape{3}, Shape{2, 2}, Shape{3}, Shape{2, 2}},
         {{"decay_factor", 0.1}, {"epsilon", 1e-5}, {"norm_coefficient", 0.001}},
         {{0, rate}, {1, step}},
         "two tensors"}};
  } else if (rn == "adam") {
    r.test_cases = {
        {{Shape{}, Shape{}, Shape{5}, Shape{5}, Shape{5}, Shape{5}},
         {{"alpha", 0.95}, {"beta", 0.1}, {"epsilon", 1e-7}, {"norm_coefficient", 0.001}},
         {{0, rate}, {1, step}},
         "one tensor"}};
  } else {
    r.test_cases = {{{Shape{}, Shape{}, Shape{4}, Shape{4}, Shape{4}},
                     {{"alpha", 0.95},
                      {"beta", 0.1},
                      {"mode", std::string("standard")},
                      {"norm_coefficient", 0.001}},
                     {{0, rate}, {1, step}},
                     "standard"}};
  }
  return r;
}

}  // namespace

void AddTrainingOps(OpTable& table) {
  table.Add(StepRecord());
  table.Add(OptimizerRecord("Adagrad", kAdagrad));
  table.Add(OptimizerRecord("Momentum", kMomentum));
  table.Add(OptimizerRecord("Adam", kAdam));
}

}  // namespace alknet::compute::ops
