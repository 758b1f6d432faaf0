// Gelu written out -> Gelu (opset 20): the exact form exporters emit before opset 20,
//   y = x * 0.5 * (1 + Erf(x / sqrt(2)))      (x * (1 / sqrt(2)) as well, and the three
//                                             factors x, 0.5, 1 + Erf(..) multiplied in any
//                                             order and grouping)
// five elementwise nodes over the FFN's widest tensor, becomes one Gelu node over x. Every
// intermediate must be read only inside the pattern, the constants known one-element values
// within 1e-6 of 0.5, 1 and sqrt(2) (or 1 / sqrt(2)), and the op table must infer the final
// Mul's output exactly for the fused node.
#include <cmath>

#include "alknet/compute/op_table.h"
#include "passes/fusion.h"

namespace alknet::compute::passes {
namespace {

// The known one-element value of input `i` of node `n`, or nullopt.
std::optional<double> KnownScalar(const Graph::Node& n, size_t i) {
  if (i >= n.input_values.size() || !n.input_values[i] || n.input_values[i]->data.size() != 1)
    return std::nullopt;
  return n.input_values[i]->data[0];
}

bool Near(std::optional<double> v, double want) { return v && std::fabs(*v - want) <= 1e-6; }

// One factor of the product: a value, and where it is read (node, input) for its known value.
struct Factor {
  int value;
  int node;
  size_t input;
};

}  // namespace

int FuseGelu(Graph& graph, const GraphFacts& facts) {
  if (OpTable::Default().Find("Gelu", 20) == nullptr) return 0;
  const Readers readers(graph);
  std::vector<bool> merged(graph.nodes.size(), false);
  int rewrites = 0;
  auto is = [&](int k, const char* op) {
    return k >= 0 && !merged[k] && graph.nodes[k].op == op && graph.nodes[k].output_count == 1 &&
           graph.nodes[k].inputs.size() == 2;
  };
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    const int fin = static_cast<int>(k);
    if (!is(fin, "Mul")) continue;
    // The three factors: the final Mul's two inputs, one of them a Mul read by it alone.
    std::vector<Factor> factors;
    int inner = -1;
    for (size_t j = 0; j < 2; ++j) {
      const int p = readers.Producer(graph.nodes[fin].inputs[j]);
      if (inner < 0 && is(p, "Mul") && readers.SoleReader(p) == fin) {
        inner = p;
        for (size_t i = 0; i < 2; ++i) factors.push_back({graph.nodes[p].inputs[i], p, i});
      } else {
        factors.push_back({graph.nodes[fin].inputs[j], fin, j});
      }
    }
    if (inner < 0 || factors.size() != 3) continue;
    // Which factor is 0.5, which 1 + Erf(..), and x.
    int half = -1, one_plus = -1;
    for (int f = 0; f < 3; ++f) {
      if (half < 0 && Near(KnownScalar(graph.nodes[factors[f].node], factors[f].input), 0.5)) {
        half = f;
      } else if (one_plus < 0 && is(readers.Producer(factors[f].value), "Add") &&
                 readers.SoleReader(readers.Producer(factors[f].value)) == factors[f].node) {
        one_plus = f;
      }
    }
    if (half < 0 || one_plus < 0) continue;
    const int x = factors[3 - half - one_plus].value;
    // 1 + Erf(t), t = x / sqrt(2) or x * (1 / sqrt(2)), each read once, inside.
    const int add = readers.Producer(factors[one_plus].value);
    const Graph::Node& a = graph.nodes[add];
    int erf = -1;
    for (size_t j = 0; j < 2 && erf < 0; ++j) {
      const int p = readers.Producer(a.inputs[j]);
      if (p >= 0 && !merged[p] && graph.nodes[p].op == "Erf" && graph.nodes[p].inputs.size() == 1 &&
          readers.SoleReader(p) == add && Near(KnownScalar(a, 1 - j), 1.0)) {
        erf = p;
      }
    }
    if (erf < 0) continue;
    const int scale = readers.Producer(graph.nodes[erf].inputs[0]);
    if (readers.SoleReader(scale) != erf) continue;
    const bool by_div = is(scale, "Div"), by_mul = is(scale, "Mul");
    if (!by_div && !by_mul) continue;
    const Graph::Node& sc = graph.nodes[scale];
    bool scaled_x = false;
    for (size_t j = 0; j < 2 && !scaled_x; ++j) {
      if (by_div && j == 1) break;  // x / c only
      scaled_x = sc.inputs[j] == x &&
                 Near(KnownScalar(sc, 1 - j), by_div ? std::sqrt(2.0) : 1 / std::sqrt(2.0));
    }
    if (!scaled_x) continue;
    const TensorDesc* xd = facts.desc(x);
    const TensorDesc* out = facts.desc(graph.nodes[fin].first_output);
    if (xd == nullptr || out == nullptr || xd->dtype != DType::kF32) continue;
    OpNode gelu{"Gelu", graph.nodes[fin].name, 20, {}, {*xd}, {}, {nullptr}};
    if (!InfersTo(gelu, *out)) continue;  // a constant of higher rank broadcast x up

    Graph::Node fused;
    fused.op = "Gelu";
    fused.opset = 20;
    fused.name = graph.nodes[fin].name;
    fused.inputs = {x};
    fused.first_output = graph.nodes[fin].first_output;
    fused.output_count = 1;
    graph.nodes[fin] = std::move(fused);
    for (int n : {inner, add, erf, scale}) merged[n] = true;
    ++rewrites;
  }
  RemoveMerged(graph, merged);
  return rewrites;
}

}  // namespace alknet::compute::passes
