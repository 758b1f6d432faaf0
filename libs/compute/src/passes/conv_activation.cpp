// Conv + activation -> Conv with the activation in its epilogue: a Conv whose one reader is
// Relu, LeakyRelu, Clip (bounds known on the host), Sigmoid or HardSwish gets the record's
// internal attribute `alknet.activation` (libs/compute/src/ops/conv.cpp parses it), where the
// Conv record declares that attribute and the node does not set it already.
#include <algorithm>
#include <cstdio>

#include "alknet/compute/op_table.h"
#include "passes/fusion.h"

namespace alknet::compute::passes {
namespace {

constexpr double kFloatMax = 3.4028234663852886e38;

bool IsFusableActivation(const std::string& op) {
  return op == "Relu" || op == "LeakyRelu" || op == "Sigmoid" || op == "HardSwish" || op == "Clip";
}

// Exactly, so that the epilogue applies the node's own bound.
std::string Literal(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

double NumberAttribute(const Attributes& attrs, const char* name, double fallback) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return fallback;
  if (const auto* d = std::get_if<double>(&it->second)) return *d;
  if (const auto* i = std::get_if<int64_t>(&it->second)) return static_cast<double>(*i);
  return fallback;
}

// The `alknet.activation` value that applies activation node `n`, or "" when it cannot be
// applied in the epilogue (Clip bounds unknown before the run, attributes we do not expect).
std::string ActivationOf(const Graph::Node& n) {
  if (n.op == "Relu" || n.op == "Sigmoid" || n.op == "HardSwish")
    return n.attributes.empty() ? n.op : "";
  if (n.op == "LeakyRelu")
    return "LeakyRelu:" + Literal(NumberAttribute(n.attributes, "alpha", 0.01));
  if (n.op != "Clip") return "";
  double lo = -kFloatMax, hi = kFloatMax;
  if (n.opset < 11) {
    lo = NumberAttribute(n.attributes, "min", lo);
    hi = NumberAttribute(n.attributes, "max", hi);
  } else {
    for (size_t i = 1; i < 3 && i < n.inputs.size(); ++i) {
      const ConstValue value = i < n.input_values.size() ? n.input_values[i] : nullptr;
      if (n.inputs[i] == Graph::kAbsent && !value) continue;  // no bound on this side
      if (!value || value->data.size() != 1) return "";
      (i == 1 ? lo : hi) = value->data[0];
    }
  }
  return "Clip:" + Literal(std::clamp(lo, -kFloatMax, kFloatMax)) + ":" +
         Literal(std::clamp(hi, -kFloatMax, kFloatMax));
}

bool DeclaresActivation(const OpRecord* record) {
  if (record == nullptr) return false;
  return std::any_of(record->attributes.begin(), record->attributes.end(),
                     [](const AttributeSpec& a) { return a.name == "alknet.activation"; });
}

}  // namespace

int FuseConvActivation(Graph& graph, const GraphFacts& facts) {
  const OpTable& table = OpTable::Default();
  const Readers readers(graph);
  std::vector<bool> merged(graph.nodes.size(), false);
  int rewrites = 0;
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    const Graph::Node& act = graph.nodes[k];
    if (!IsFusableActivation(act.op) || act.inputs.empty()) continue;
    const TensorDesc* out = facts.desc(act.first_output);
    const int p = readers.Producer(act.inputs[0]);
    if (out == nullptr || p < 0 || readers.SoleReader(p) != static_cast<int>(k)) continue;
    const Graph::Node& conv = graph.nodes[p];
    if (conv.op != "Conv" || conv.attributes.count("alknet.activation") != 0 ||
        !DeclaresActivation(table.Find(conv.op, conv.opset))) {
      continue;
    }
    const std::string activation = ActivationOf(act);
    if (activation.empty()) continue;
    std::optional<OpNode> fused_node = DescribeNode(graph, facts, p);
    if (!fused_node) continue;
    fused_node->attributes["alknet.activation"] = activation;
    if (!InfersTo(*fused_node, *out)) continue;

    // The Conv, named as before, at the activation's place and output.
    Graph::Node fused = conv;
    fused.attributes["alknet.activation"] = activation;
    fused.first_output = act.first_output;
    graph.nodes[k] = std::move(fused);
    merged[p] = true;
    ++rewrites;
  }
  RemoveMerged(graph, merged);
  return rewrites;
}

}  // namespace alknet::compute::passes
