// The pass framework: facts about a graph's values, the one-reader rule, running the passes.
#include "alknet/compute/passes.h"

#include <algorithm>
#include <array>

#include "alknet/compute/op_table.h"
#include "passes/fusion.h"

namespace alknet::compute {

GraphFacts AnalyzeGraph(const Graph& graph, std::span<const TensorDesc> inputs) {
  GraphFacts facts;
  facts.descs.resize(static_cast<size_t>(std::max(graph.num_values, 0)));
  for (size_t i = 0;
       i < inputs.size() && i < facts.descs.size() && static_cast<int>(i) < graph.num_inputs; ++i) {
    facts.descs[i] = TensorDesc{inputs[i].dtype, inputs[i].shape};
  }
  const OpTable& table = OpTable::Default();
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    const Graph::Node& n = graph.nodes[k];
    std::optional<OpNode> node = passes::DescribeNode(graph, facts, static_cast<int>(k));
    if (!node) continue;
    RequestOutputs(*node, table.Find(n.op, n.opset), n.output_count);
    auto outs = table.Infer(*node);
    if (!outs.ok()) continue;
    for (size_t o = 0; o < outs->size() && static_cast<int>(o) < n.output_count; ++o) {
      const int64_t v = int64_t{n.first_output} + static_cast<int64_t>(o);
      if (v < 0 || v >= graph.num_values) break;
      facts.descs[v] = TensorDesc{(*outs)[o].dtype, (*outs)[o].shape};
    }
  }
  return facts;
}

std::span<const GraphPass> DefaultPasses() {
  // layer-norm before add-relu: the pattern ends in an Add that a Relu may read. The Gemm
  // epilogues after matmul-add-to-gemm, so that MatMul + Add + Relu becomes one Gemm.
  static constexpr std::array<GraphPass, 7> kPasses = {{
      {"matmul-add-to-gemm", &passes::FuseMatMulAdd},
      {"matmul-scale", &passes::FuseMatMulScale},
      {"layer-norm", &passes::FuseLayerNorm},
      {"gelu", &passes::FuseGelu},
      {"add-relu", &passes::FuseAddRelu},
      {"conv-activation", &passes::FuseConvActivation},
      {"gemm-activation", &passes::FuseGemmActivation},
  }};
  return kPasses;
}

PassReport RunPasses(Graph& graph, std::span<const TensorDesc> inputs,
                     std::span<const GraphPass> passes) {
  PassReport report;
  if (passes.empty() || graph.nodes.size() < 2) return report;  // nothing to merge
  // Computed once: a pass keeps the dtype and shape of every value still read.
  const GraphFacts facts = AnalyzeGraph(graph, inputs);
  for (const GraphPass& pass : passes) {
    const int n = pass.run(graph, facts);
    report.per_pass.emplace_back(pass.name, n);
    report.rewrites += n;
  }
  return report;
}

namespace passes {

Readers::Readers(const Graph& graph)
    : graph_(graph),
      count_(static_cast<size_t>(std::max(graph.num_values, 0)), 0),
      reader_(count_.size(), -1),
      producer_(count_.size(), -1) {
  const auto in_range = [&](int64_t v) {
    return v >= 0 && v < static_cast<int64_t>(count_.size());
  };
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    const Graph::Node& n = graph.nodes[k];
    for (int v : n.inputs) {
      if (!in_range(v)) continue;
      ++count_[v];
      reader_[v] = static_cast<int>(k);
    }
    for (int o = 0; o < n.output_count; ++o) {
      const int64_t v = int64_t{n.first_output} + o;
      if (in_range(v)) producer_[v] = static_cast<int>(k);
    }
  }
  // A graph output has a reader outside the graph: nothing may merge it away.
  for (int v : graph.outputs) {
    if (in_range(v)) count_[v] += 2;
  }
}

int Readers::SoleReader(int node) const {
  if (node < 0 || static_cast<size_t>(node) >= graph_.nodes.size()) return -1;
  const Graph::Node& n = graph_.nodes[node];
  const int v = n.first_output;
  if (n.output_count != 1 || v < 0 || static_cast<size_t>(v) >= count_.size() || count_[v] != 1)
    return -1;
  return reader_[v];
}

int Readers::Producer(int value) const {
  return value >= 0 && static_cast<size_t>(value) < producer_.size() ? producer_[value] : -1;
}

std::optional<OpNode> DescribeNode(const Graph& graph, const GraphFacts& facts, int node) {
  const Graph::Node& n = graph.nodes[node];
  OpNode on{n.op, n.name, n.opset, n.attributes, {}, {}};
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const int v = n.inputs[i];
    ConstValue value = i < n.input_values.size() ? n.input_values[i] : nullptr;
    TensorDesc d;
    if (v != Graph::kAbsent) {
      // Only values defined before the node (the executor refuses anything else).
      const TensorDesc* known = v < n.first_output ? facts.desc(v) : nullptr;
      if (known == nullptr) return std::nullopt;
      d = *known;
    } else if (value) {
      d = TensorDesc{value->dtype, value->shape};
    } else {
      d.absent = true;
    }
    on.inputs.push_back(std::move(d));
    on.input_values.push_back(std::move(value));
  }
  return on;
}

bool InfersTo(const OpNode& node, const TensorDesc& want) {
  auto outs = OpTable::Default().Infer(node);
  return outs.ok() && outs->size() == 1 && (*outs)[0].dtype == want.dtype &&
         (*outs)[0].shape == want.shape;
}

void RemoveMerged(Graph& graph, const std::vector<bool>& merged) {
  size_t kept = 0;
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    if (k < merged.size() && merged[k]) continue;
    if (kept != k) graph.nodes[kept] = std::move(graph.nodes[k]);
    ++kept;
  }
  graph.nodes.resize(kept);
}

}  // namespace passes
}  // namespace alknet::compute
