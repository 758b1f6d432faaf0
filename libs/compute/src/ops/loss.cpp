// Losses: NegativeLogLikelihoodLoss (shaders/loss/nll.wgsl.hbs) and SoftmaxCrossEntropyLoss,
// a composition of LogSoftmax along the class axis and NegativeLogLikelihoodLoss.
//
// Input is [N, C, d1, ..., dk], target [N, d1, ..., dk] (i32 on the device: the ONNX session
// narrows int64 labels), weight [C] optional. A target equal to ignore_index contributes
// neither loss nor weight. "mean" divides by the summed weights of the counted targets (ONNX
// opset 12/13 semantics), so without weights it is the mean over the counted targets.
#include <cmath>
#include <limits>

#include "ops/elementwise.h"
#include "ops/families.h"

namespace alknet::compute::ops {

namespace {

std::string ValidateReduction(const AttrValue& v) {
  const std::string& s = std::get<std::string>(v);
  return s == "none" || s == "sum" || s == "mean"
             ? std::string()
             : std::string("must be \"none\", \"sum\" or \"mean\"");
}

std::vector<AttributeSpec> LossAttributes() {
  return {{"reduction", AttrValue(std::string("mean")), false, &ValidateReduction},
          {"ignore_index", std::nullopt, true, [](const AttrValue& v) {
             return v.index() == 0 ? std::string() : std::string("must be an int");
           }}};
}

// [N, C, D] with D the product of the trailing dimensions.
struct LossDims {
  uint64_t n = 0, c = 0, d = 1;
};

Result<LossDims> CheckLossInputs(const OpNode& node) {
  const TensorDesc& x = node.inputs[0];
  const TensorDesc& t = node.inputs[1];
  if (x.dtype != DType::kF32) {
    return Error{ErrorCode::kUnsupported,
                 node.Describe() + ": " + node.op_type + " is implemented for f32 input only"};
  }
  if (t.dtype != DType::kI32) {
    return Error{ErrorCode::kUnsupported, node.Describe() +
                                              ": target must be integer class indices (i32 on the "
                                              "device), got " +
                                              DTypeName(t.dtype)};
  }
  if (x.shape.size() < 2) {
    return Error{ErrorCode::kShape, node.Describe() + ": input must be [N, C, d1, ...], got " +
                                        ShapeToString(x.shape)};
  }
  Shape want{x.shape[0]};
  for (size_t k = 2; k < x.shape.size(); ++k) want.push_back(x.shape[k]);
  if (t.shape != want) {
    return Error{ErrorCode::kShape,
                 node.Describe() + ": target must have shape " + ShapeToString(want) +
                     " (input without its class axis), got " + ShapeToString(t.shape)};
  }
  if (node.has_input(2)) {
    const TensorDesc& w = node.inputs[2];
    if (w.dtype != DType::kF32 || w.shape != Shape{x.shape[1]}) {
      return Error{ErrorCode::kShape, node.Describe() + ": weight must be f32[" +
                                          std::to_string(x.shape[1]) + "] (one per class), got " +
                                          DescToString(w)};
    }
  }
  LossDims dims{x.shape[0], x.shape[1], 1};
  for (size_t k = 2; k < x.shape.size(); ++k) dims.d *= x.shape[k];
  return dims;
}

TensorDesc LossOutput(const OpNode& node, const Attributes& at) {
  if (std::get<std::string>(at.at("reduction")) == "none")
    return TensorDesc{DType::kF32, node.inputs[1].shape};
  return TensorDesc{DType::kF32, {}};
}

// The float64 reference shared by both losses: `logp` is the log-probability tensor.
RefTensor NllReference(const OpNode& node, const Attributes& at, const std::vector<double>& logp,
                       const RefTensor& target, const RefTensor* weight) {
  const LossDims dims = *CheckLossInputs(node);
  const std::string& reduction = std::get<std::string>(at.at("reduction"));
  const bool has_ignore = at.count("ignore_index") != 0;
  const int64_t ignore = has_ignore ? std::get<int64_t>(at.at("ignore_index")) : 0;
  RefTensor out{DType::kF32, LossOutput(node, at).shape, {}};
  std::vector<double> each(dims.n * dims.d);
  double sum = 0, wsum = 0;
  for (uint64_t i = 0; i < dims.n; ++i) {
    for (uint64_t j = 0; j < dims.d; ++j) {
      const int64_t t = static_cast<int64_t>(target.data[i * dims.d + j]);
      double loss = 0, w = 0;
      if (!(has_ignore && t == ignore)) {
        if (t < 0 || t >= static_cast<int64_t>(dims.c)) {
          loss = std::numeric_limits<double>::quiet_NaN();  // out of range: undefined in ONNX
          w = 1;
        } else {
          w = weight != nullptr ? weight->data[static_cast<size_t>(t)] : 1.0;
          loss = -logp[(i * dims.c + static_cast<uint64_t>(t)) * dims.d + j] * w;
        }
      }
      each[i * dims.d + j] = loss;
      sum += loss;
      wsum += w;
    }
  }
  if (reduction == "none")
    out.data = std::move(each);
  else
    out.data = {reduction == "sum" ? sum : sum / wsum};
  return out;
}

OpRecord NllRecord() {
  OpRecord r;
  r.name = "NegativeLogLikelihoodLoss";
  r.opset_min = 12;
  r.family = "loss";
  r.shader = "loss/nll";
  r.summary = "negative log-likelihood of class targets, with class weights and ignore_index";
  r.min_inputs = 2;
  r.max_inputs = 3;
  r.attributes = LossAttributes();
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(CheckLossInputs(node));
    return std::vector<TensorDesc>{LossOutput(node, at)};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps&) -> Result<hbs::Value> {
    const LossDims dims = *CheckLossInputs(node);
    const std::string& reduction = std::get<std::string>(at.at("reduction"));
    hbs::Value ctx = hbs::Value::object({{"n", dims.n},
                                         {"c", dims.c},
                                         {"d", dims.d},
                                         {"count", dims.n * dims.d},
                                         {"weighted", node.has_input(2)},
                                         {"reduce", reduction != "none"},
                                         {"mean", reduction == "mean"},
                                         {"has_ignore", at.count("ignore_index") != 0}});
    if (at.count("ignore_index")) {
      const int64_t ii = std::get<int64_t>(at.at("ignore_index"));
      if (ii < std::numeric_limits<int32_t>::min() || ii > std::numeric_limits<int32_t>::max()) {
        // No i32 target can equal it: nothing is ignored.
        ctx.as_object().set("has_ignore", false);
      } else {
        ctx.as_object().set("ignore_index", static_cast<long long>(ii));
      }
    }
    return ctx;
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps&) {
    const LossDims dims = *CheckLossInputs(node);
    DispatchPlan p;
    if (std::get<std::string>(at.at("reduction")) == "none") {
      p.invocations = dims.n * dims.d;
    } else {
      // One workgroup sums everything: losses are small tensors next to the model producing
      // their input, and one group needs no second pass.
      p.kind = DispatchPlan::Kind::kGrid;
      p.groups = {1, 1, 1};
      p.workgroup_size = {64, 1, 1};
    }
    return p;
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const RefTensor* w = node.has_input(2) ? &in[2] : nullptr;
    return std::vector<RefTensor>{NllReference(node, at, in[0].data, in[1], w)};
  };
  r.hints = {-3, 3, 1e-5, 1e-5};
  auto labels = [](Shape s, std::vector<double> v) {
    return RefTensor{DType::kI32, std::move(s), std::move(v)};
  };
  const RefTensor weight{DType::kF32, {5}, {0.5, 1.0, 2.0, 0.25, 1.5}};
  r.test_cases = {
      {{Shape{3, 5}, Shape{3}},
       {{"reduction", std::string("none")}},
       {{1, labels({3}, {2, 0, 4})}},
       "NC none"},
      {{Shape{3, 5, 2}, Shape{3, 2}, Shape{5}},
       {{"ignore_index", int64_t{1}}},
       {{1, labels({3, 2}, {1, 0, 4, 1, 3, 2})}, {2, weight}},
       "NCd weighted mean, ignore_index"},
      {{Shape{2, 5, 3, 2}, Shape{2, 3, 2}, std::nullopt},
       {{"reduction", std::string("sum")}, {"ignore_index", int64_t{-1}}},
       {{1, labels({2, 3, 2}, {0, 1, 2, 3, 4, -1, 4, 3, -1, 1, 0, 2})}},
       "NCd1d2 sum, negative ignore_index"},
  };
  return r;
}

OpRecord SoftmaxCrossEntropyRecord() {
  OpRecord r;
  r.name = "SoftmaxCrossEntropyLoss";
  r.opset_min = 12;
  r.family = "loss";
  r.summary = "cross entropy of softmax(scores) against class targets; second output log_prob";
  r.min_inputs = 2;
  r.max_inputs = 3;
  r.attributes = LossAttributes();
  // Both outputs always: the loss and the log-probabilities it was computed from (ONNX's
  // optional second output costs nothing extra, it is the LogSoftmax the loss reads).
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(CheckLossInputs(node));
    return std::vector<TensorDesc>{LossOutput(node, at),
                                   TensorDesc{DType::kF32, node.inputs[0].shape}};
  };
  r.decompose = [](const OpNode& node, const Attributes& at) -> Result<Graph> {
    Graph g(static_cast<int>(node.inputs.size()));
    const int logp = g.Add("LogSoftmax", {0}, {{"axis", int64_t{1}}}, 13);
    std::vector<int> nll_in{logp, 1};
    if (node.has_input(2)) nll_in.push_back(2);
    Attributes nll_at{{"reduction", at.at("reduction")}};
    if (at.count("ignore_index")) nll_at["ignore_index"] = at.at("ignore_index");
    const int loss = g.Add("NegativeLogLikelihoodLoss", nll_in, nll_at, 13);
    g.outputs = {loss, logp};
    return g;
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const LossDims dims = *CheckLossInputs(node);
    RefTensor logp{DType::kF32, in[0].shape, std::vector<double>(in[0].data.size())};
    for (uint64_t i = 0; i < dims.n; ++i) {
      for (uint64_t j = 0; j < dims.d; ++j) {
        auto at_c = [&](uint64_t c) { return (i * dims.c + c) * dims.d + j; };
        double hi = -INFINITY, sum = 0;
        for (uint64_t c = 0; c < dims.c; ++c) hi = std::max(hi, in[0].data[at_c(c)]);
        for (uint64_t c = 0; c < dims.c; ++c) sum += std::exp(in[0].data[at_c(c)] - hi);
        for (uint64_t c = 0; c < dims.c; ++c)
          logp.data[at_c(c)] = in[0].data[at_c(c)] - hi - std::log(sum);
      }
    }
    const RefTensor* w = node.has_input(2) ? &in[2] : nullptr;
    RefTensor loss = NllReference(node, at, logp.data, in[1], w);
    return std::vector<RefTensor>{std::move(loss), std::move(logp)};
  };
  r.hints = {-4, 4, 2e-6, 1e-5};
  auto labels = [](Shape s, std::vector<double> v) {
    return RefTensor{DType::kI32, std::move(s), std::move(v)};
  };
  const RefTensor weight{DType::kF32, {5}, {0.5, 1.0, 2.0, 0.25, 1.5}};
  r.test_cases = {
      {{Shape{3, 5}, Shape{3}}, {}, {{1, labels({3}, {2, 0, 4})}}, "NC mean"},
      {{Shape{3, 5, 2}, Shape{3, 2}, Shape{5}},
       {{"reduction", std::string("none")}, {"ignore_index", int64_t{2}}},
       {{1, labels({3, 2}, {1, 2, 4, 0, 3, 2})}, {2, weight}},
       "NCd weighted none, ignore_index"},
      {{Shape{2, 5, 2, 3}, Shape{2, 2, 3}, Shape{5}},
       {{"reduction", std::string("sum")}},
       {{1, labels({2, 2, 3}, {0, 1, 2, 3, 4, 0, 4, 3, 2, 1, 0, 2})}, {2, weight}},
       "NCd1d2 weighted sum"},
  };
  return r;
}

}  // namespace

void AddLossOps(OpTable& table) {
  table.Add(NllRecord());
  table.Add(SoftmaxCrossEntropyRecord());
}

}  // namespace alknet::compute::ops
