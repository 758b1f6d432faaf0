// Epilogues folded into Gemm: what a MatMul or Gemm's one reader does to every element moves
// into the kernel's store (shaders/linalg/matmul_params, `epilogue`), one dispatch instead of
// two. A batch-1 model on a CPU adapter spends most of its time in such small dispatches
// (about 30 us each on lavapipe, docs/benchmarks.md "Fused epilogues").
//   matmul-scale:    Mul(MatMul(A, B), s) or Mul(Gemm(...), s), s a known scalar
//                    -> Gemm with alpha (and beta) times s (the attention scores' scale);
//   gemm-activation: Relu, Tanh or Sigmoid of a MatMul or Gemm -> Gemm with the internal
//                    attribute `alknet.activation` (ops/linalg.cpp); a Relu of a
//                    LayerNormalization (Y only) likewise (ops/norm.cpp).
// The MatMul must be 2-D (Gemm's operands), the Gemm must have no activation yet, and the op
// table must infer the reader's output exactly for the fused node.
#include <cmath>

#include "alknet/compute/op_table.h"
#include "passes/fusion.h"

namespace alknet::compute::passes {
namespace {

bool IsFloat32(const TensorDesc* d) { return d != nullptr && d->dtype == DType::kF32; }

// The activation of a Gemm or LayerNormalization node (`alknet.activation`, "" when unset).
std::string GemmActivation(const Graph::Node& n) {
  auto it = n.attributes.find("alknet.activation");
  if (it == n.attributes.end()) return {};
  const auto* s = std::get_if<std::string>(&it->second);
  return s ? *s : std::string("?");
}

// Node `k` rewritten as a Gemm (a 2-D MatMul becomes Gemm(A, B) with alpha 1), when it is a
// float MatMul with 2-D operands or a Gemm without an activation; nullopt otherwise.
std::optional<Graph::Node> AsGemm(const Graph& graph, const GraphFacts& facts, int k) {
  if (k < 0) return std::nullopt;
  const Graph::Node& n = graph.nodes[k];
  if (n.output_count != 1 || !IsFloat32(facts.desc(n.first_output))) return std::nullopt;
  if (n.op == "Gemm") {
    if (!GemmActivation(n).empty()) return std::nullopt;
    return n;
  }
  if (n.op != "MatMul" || n.inputs.size() != 2) return std::nullopt;
  const TensorDesc* a = n.inputs[0] < n.first_output ? facts.desc(n.inputs[0]) : nullptr;
  const TensorDesc* b = n.inputs[1] < n.first_output ? facts.desc(n.inputs[1]) : nullptr;
  if (a == nullptr || b == nullptr || a->shape.size() != 2 || b->shape.size() != 2)
    return std::nullopt;
  Graph::Node gemm = n;
  gemm.op = "Gemm";
  gemm.opset = 13;
  gemm.attributes.clear();
  return gemm;
}

// Node `k` when it is a LayerNormalization giving Y alone and no activation yet (its record
// takes "Relu" as `alknet.activation`, ops/norm.cpp); nullopt otherwise.
std::optional<Graph::Node> AsLayerNorm(const Graph& graph, const GraphFacts& facts, int k) {
  const Graph::Node& n = graph.nodes[k];
  if (n.op != "LayerNormalization" || n.output_count != 1 || !GemmActivation(n).empty() ||
      !IsFloat32(facts.desc(n.first_output))) {
    return std::nullopt;
  }
  auto outs = n.attributes.find("alknet.outputs");
  if (outs != n.attributes.end() && outs->second != AttrValue(int64_t{1})) return std::nullopt;
  return n;
}

double NumberOr(const Attributes& at, const char* name, double fallback) {
  auto it = at.find(name);
  if (it == at.end()) return fallback;
  if (const auto* d = std::get_if<double>(&it->second)) return *d;
  return fallback;
}

// True when `fused` (inputs and known values as its graph node says) infers `want`.
bool FusedInfersTo(const Graph& graph, const GraphFacts& facts, Graph::Node fused,
                   const TensorDesc& want) {
  // DescribeNode reads a graph's node: a one-node graph holding the fused one.
  Graph probe(graph.num_inputs);
  probe.num_values = graph.num_values;
  probe.nodes.push_back(std::move(fused));
  std::optional<OpNode> node = DescribeNode(probe, facts, 0);
  return node && InfersTo(*node, want);
}

}  // namespace

int FuseMatMulScale(Graph& graph, const GraphFacts& facts) {
  if (OpTable::Default().Find("Gemm", 13) == nullptr) return 0;
  const Readers readers(graph);
  std::vector<bool> merged(graph.nodes.size(), false);
  int rewrites = 0;
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    const Graph::Node& mul = graph.nodes[k];
    const TensorDesc* out = facts.desc(mul.first_output);
    if (mul.op != "Mul" || mul.inputs.size() != 2 || mul.output_count != 1 || !IsFloat32(out))
      continue;
    for (size_t j = 0; j < 2; ++j) {
      const size_t s_at = 1 - j;
      if (s_at >= mul.input_values.size() || !mul.input_values[s_at] ||
          mul.input_values[s_at]->data.size() != 1) {
        continue;
      }
      const double s = mul.input_values[s_at]->data[0];
      const int p = readers.Producer(mul.inputs[j]);
      if (!std::isfinite(s) || p < 0 || merged[p] || readers.SoleReader(p) != static_cast<int>(k))
        continue;
      std::optional<Graph::Node> gemm = AsGemm(graph, facts, p);
      if (!gemm) continue;
      const bool has_c = gemm->inputs.size() == 3 && gemm->inputs[2] != Graph::kAbsent;
      gemm->attributes["alpha"] = NumberOr(gemm->attributes, "alpha", 1.0) * s;
      if (has_c) gemm->attributes["beta"] = NumberOr(gemm->attributes, "beta", 1.0) * s;
      gemm->name = mul.name;
      gemm->first_output = mul.first_output;
      // A scalar of higher rank would broadcast the product up: then the shapes differ.
      if (!FusedInfersTo(graph, facts, *gemm, *out)) continue;
      graph.nodes[k] = std::move(*gemm);
      merged[p] = true;
      ++rewrites;
      break;
    }
  }
  RemoveMerged(graph, merged);
  return rewrites;
}

int FuseGemmActivation(Graph& graph, const GraphFacts& facts) {
  if (OpTable::Default().Find("Gemm", 13) == nullptr) return 0;
  const Readers readers(graph);
  std::vector<bool> merged(graph.nodes.size(), false);
  int rewrites = 0;
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    const Graph::Node& act = graph.nodes[k];
    if ((act.op != "Relu" && act.op != "Tanh" && act.op != "Sigmoid") || act.inputs.size() != 1 ||
        !act.attributes.empty()) {
      continue;
    }
    const TensorDesc* out = facts.desc(act.first_output);
    const int p = readers.Producer(act.inputs[0]);
    if (!IsFloat32(out) || p < 0 || merged[p] || readers.SoleReader(p) != static_cast<int>(k))
      continue;
    std::optional<Graph::Node> gemm = AsGemm(graph, facts, p);
    if (!gemm && act.op == "Relu") gemm = AsLayerNorm(graph, facts, p);
    if (!gemm) continue;
    gemm->attributes["alknet.activation"] = act.op;
    gemm->first_output = act.first_output;
    if (!FusedInfersTo(graph, facts, *gemm, *out)) continue;
    // The Gemm, named as before, at the activation's place and output.
    graph.nodes[k] = std::move(*gemm);
    merged[p] = true;
    ++rewrites;
  }
  RemoveMerged(graph, merged);
  return rewrites;
}

}  // namespace alknet::compute::passes
