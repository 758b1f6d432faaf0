// LayerNorm written out -> LayerNormalization: the pattern exporters emit below opset 17,
//   mean = ReduceMean(x, [last]); c = x - mean; var = ReduceMean(c * c, [last]);
//   y = c / Sqrt(var + eps) * gamma + beta
// (eight nodes, or nine counting the Mul), becomes one LayerNormalization (axis -1, epsilon
// eps) over x, gamma and beta: one kernel instead of nine small ones (a batch-1 MLP spent
// most of its time in their dispatches, docs/benchmarks.md "Keyword MLP"). Every
// intermediate must be read only inside the pattern, eps must be a known one-element value,
// and the op table must infer the Add's output exactly for the fused node.
#include "alknet/compute/op_table.h"
#include "passes/fusion.h"

namespace alknet::compute::passes {
namespace {

// How many node inputs and graph outputs read value `v`.
int ReadCount(const Graph& graph, int v) {
  int n = 0;
  for (const Graph::Node& node : graph.nodes) {
    for (int in : node.inputs) n += in == v;
  }
  for (int o : graph.outputs) n += o == v;
  return n;
}

// True when node `k` is a ReduceMean over the last axis only, keeping it.
bool MeanOverLastAxis(const Graph& graph, const GraphFacts& facts, int k) {
  if (k < 0) return false;
  const Graph::Node& n = graph.nodes[k];
  if (n.op != "ReduceMean" || n.inputs.size() != 1 || n.output_count != 1) return false;
  const TensorDesc* in = facts.desc(n.inputs[0]);
  auto axes = n.attributes.find("axes");
  if (in == nullptr || in->shape.empty() || axes == n.attributes.end()) return false;
  const auto* a = std::get_if<std::vector<int64_t>>(&axes->second);
  const int64_t last = static_cast<int64_t>(in->shape.size()) - 1;
  if (a == nullptr || a->size() != 1 || ((*a)[0] != -1 && (*a)[0] != last)) return false;
  auto keep = n.attributes.find("keepdims");
  return keep == n.attributes.end() || std::get<int64_t>(keep->second) == 1;
}

// The known one-element value of input `i` of node `k`, or nullopt.
std::optional<double> KnownScalar(const Graph::Node& n, size_t i) {
  if (i >= n.input_values.size() || !n.input_values[i] || n.input_values[i]->data.size() != 1)
    return std::nullopt;
  return n.input_values[i]->data[0];
}

}  // namespace

int FuseLayerNorm(Graph& graph, const GraphFacts& facts) {
  if (OpTable::Default().Find("LayerNormalization", 17) == nullptr) return 0;
  const Readers readers(graph);
  std::vector<bool> merged(graph.nodes.size(), false);
  int rewrites = 0;
  auto node_is = [&](int k, const char* op) {
    return k >= 0 && !merged[k] && graph.nodes[k].op == op && graph.nodes[k].output_count == 1 &&
           graph.nodes[k].inputs.size() == 2;
  };
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    const int div = static_cast<int>(k);
    if (!node_is(div, "Div")) continue;
    const Graph::Node& d = graph.nodes[div];
    // c = x - mean, mean = ReduceMean(x) read by the Sub alone.
    const int sub = readers.Producer(d.inputs[0]);
    if (!node_is(sub, "Sub")) continue;
    const int x = graph.nodes[sub].inputs[0];
    const int mean = readers.Producer(graph.nodes[sub].inputs[1]);
    if (!MeanOverLastAxis(graph, facts, mean) || graph.nodes[mean].inputs[0] != x ||
        readers.SoleReader(mean) != sub) {
      continue;
    }
    // std = Sqrt(var + eps), var = ReduceMean(c * c); each read once, inside.
    const int c = graph.nodes[sub].first_output;
    const int sqrt = readers.Producer(d.inputs[1]);
    if (sqrt < 0 || graph.nodes[sqrt].op != "Sqrt" || readers.SoleReader(sqrt) != div) continue;
    const int add_eps = readers.Producer(graph.nodes[sqrt].inputs[0]);
    if (!node_is(add_eps, "Add") || readers.SoleReader(add_eps) != sqrt) continue;
    const Graph::Node& ae = graph.nodes[add_eps];
    int var = -1;
    std::optional<double> eps;
    for (size_t j = 0; j < 2 && var < 0; ++j) {
      const int p = readers.Producer(ae.inputs[j]);
      if (MeanOverLastAxis(graph, facts, p) && readers.SoleReader(p) == add_eps &&
          (eps = KnownScalar(ae, 1 - j))) {
        var = p;
      }
    }
    if (var < 0) continue;
    const int sq = readers.Producer(graph.nodes[var].inputs[0]);
    if (!node_is(sq, "Mul") || graph.nodes[sq].inputs[0] != c || graph.nodes[sq].inputs[1] != c ||
        readers.SoleReader(sq) != var || ReadCount(graph, c) != 3) {
      continue;
    }
    // y * gamma + beta, each the sole reader of the one before.
    const int mul = readers.SoleReader(div);
    if (!node_is(mul, "Mul")) continue;
    const Graph::Node& m = graph.nodes[mul];
    const int y = d.first_output;
    const int gamma = m.inputs[0] == y ? m.inputs[1] : m.inputs[0];
    if ((m.inputs[0] == y) == (m.inputs[1] == y)) continue;
    const int add = readers.SoleReader(mul);
    if (!node_is(add, "Add")) continue;
    const Graph::Node& a = graph.nodes[add];
    const int scaled = m.first_output;
    if ((a.inputs[0] == scaled) == (a.inputs[1] == scaled)) continue;
    const size_t beta_at = a.inputs[0] == scaled ? 1 : 0;
    const int beta = a.inputs[beta_at];
    const TensorDesc* out = facts.desc(a.first_output);
    const TensorDesc* xd = facts.desc(x);
    const TensorDesc* gd = facts.desc(gamma);
    const TensorDesc* bd = facts.desc(beta);
    if (out == nullptr || xd == nullptr || gd == nullptr || bd == nullptr) continue;
    const size_t gamma_at = m.inputs[0] == y ? 1 : 0;
    const ConstValue gv = gamma_at < m.input_values.size() ? m.input_values[gamma_at] : nullptr;
    const ConstValue bv = beta_at < a.input_values.size() ? a.input_values[beta_at] : nullptr;
    OpNode ln{"LayerNormalization",
              a.name,
              17,
              {{"axis", int64_t{-1}}, {"epsilon", *eps}},
              {*xd, *gd, *bd},
              {},
              {nullptr, gv, bv}};
    // LayerNormalization broadcasts Scale and B over the normalised axis only: the fused
    // node must give the Add's output exactly (a gamma of another shape leaves it alone).
    if (!InfersTo(ln, *out) || gd->shape != Shape{xd->shape.back()} ||
        bd->shape != Shape{xd->shape.back()}) {
      continue;
    }
    Graph::Node fused;
    fused.op = "LayerNormalization";
    fused.opset = 17;
    fused.name = a.name;
    fused.attributes = ln.attributes;
    fused.inputs = {x, gamma, beta};
    if (gv || bv) fused.input_values = {nullptr, gv, bv};
    fused.first_output = a.first_output;
    fused.output_count = 1;
    graph.nodes[add] = std::move(fused);
    for (int n : {mean, sub, sq, var, add_eps, sqrt, div, mul}) merged[n] = true;
    ++rewrites;
  }
  RemoveMerged(graph, merged);
  return rewrites;
}

}  // namespace alknet::compute::passes
