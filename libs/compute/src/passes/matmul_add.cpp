// MatMul + Add -> Gemm: a 2-D MatMul whose one reader is an Add becomes a single Gemm
// (alpha = beta = 1) with the Add's other operand as C, where the Gemm record takes the
// operands as they are (C broadcastable to [M, N]) and gives the Add's output exactly: one
// kernel, and no [M, N] intermediate written and read back.
#include "alknet/compute/op_table.h"
#include "passes/fusion.h"

namespace alknet::compute::passes {
namespace {

// `node` when it is a 2-D MatMul that the Add `add` may absorb (its one reader), else nullopt.
std::optional<OpNode> AbsorbableMatMul(const Graph& graph, const GraphFacts& facts,
                                       const Readers& readers, int node, int add) {
  if (node < 0 || graph.nodes[node].op != "MatMul" || graph.nodes[node].inputs.size() != 2 ||
      readers.SoleReader(node) != add) {
    return std::nullopt;
  }
  std::optional<OpNode> mm = DescribeNode(graph, facts, node);
  if (!mm || mm->inputs[0].shape.size() != 2 || mm->inputs[1].shape.size() != 2)
    return std::nullopt;
  return mm;
}

}  // namespace

int FuseMatMulAdd(Graph& graph, const GraphFacts& facts) {
  if (OpTable::Default().Find("Gemm", 13) == nullptr) return 0;
  const Readers readers(graph);
  std::vector<bool> merged(graph.nodes.size(), false);
  int rewrites = 0;
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    const Graph::Node& add = graph.nodes[k];
    const TensorDesc* sum = facts.desc(add.first_output);
    if (add.op != "Add" || add.inputs.size() != 2 || add.output_count != 1 || sum == nullptr)
      continue;
    const int self = static_cast<int>(k);
    for (int j = 0; j < 2; ++j) {
      const int mm_index = readers.Producer(add.inputs[j]);
      std::optional<OpNode> mm = AbsorbableMatMul(graph, facts, readers, mm_index, self);
      if (!mm) continue;
      // Both operands absorbable MatMuls: which one would become the Gemm is arbitrary, so
      // neither does (the Add may still join a Relu).
      if (AbsorbableMatMul(graph, facts, readers, readers.Producer(add.inputs[1 - j]), self)) break;
      std::optional<OpNode> add_node = DescribeNode(graph, facts, self);
      if (!add_node || add_node->inputs[1 - j].absent) break;
      OpNode gemm{"Gemm",
                  add.name,
                  13,
                  {},
                  {mm->inputs[0], mm->inputs[1], add_node->inputs[1 - j]},
                  {},
                  {mm->input_values[0], mm->input_values[1], add_node->input_values[1 - j]}};
      if (!InfersTo(gemm, *sum)) break;

      const Graph::Node& matmul = graph.nodes[mm_index];
      Graph::Node fused;
      fused.op = "Gemm";
      fused.opset = 13;
      fused.name = add.name;
      fused.inputs = {matmul.inputs[0], matmul.inputs[1], add.inputs[1 - j]};
      if (!matmul.input_values.empty() || !add.input_values.empty())
        fused.input_values = gemm.input_values;
      fused.first_output = add.first_output;
      fused.output_count = 1;
      graph.nodes[k] = std::move(fused);
      merged[mm_index] = true;
      ++rewrites;
      break;
    }
  }
  RemoveMerged(graph, merged);
  return rewrites;
}

}  // namespace alknet::compute::passes
