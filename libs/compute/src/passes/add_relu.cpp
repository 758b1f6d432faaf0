// Add + Relu -> alknet.AddRelu: a float Add whose one reader is a Relu becomes one
// alknet.AddRelu node (ResNet's residual joins): one pass over the sum instead of two.
#include "passes/fusion.h"

namespace alknet::compute::passes {

int FuseAddRelu(Graph& graph, const GraphFacts& facts) {
  const Readers readers(graph);
  std::vector<bool> merged(graph.nodes.size(), false);
  int rewrites = 0;
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    const Graph::Node& relu = graph.nodes[k];
    if (relu.op != "Relu" || relu.inputs.size() != 1) continue;
    const TensorDesc* out = facts.desc(relu.first_output);
    const int p = readers.Producer(relu.inputs[0]);
    if (out == nullptr || p < 0 || readers.SoleReader(p) != static_cast<int>(k)) continue;
    const Graph::Node& add = graph.nodes[p];
    const TensorDesc* sum = facts.desc(add.first_output);
    if (add.op != "Add" || add.inputs.size() != 2 || sum == nullptr ||
        (sum->dtype != DType::kF32 && sum->dtype != DType::kF16)) {
      continue;
    }
    std::optional<OpNode> fused_node = DescribeNode(graph, facts, p);
    if (!fused_node) continue;
    fused_node->op_type = "alknet.AddRelu";
    fused_node->opset = 1;
    if (!InfersTo(*fused_node, *out)) continue;

    // The Add's inputs, name and attributes, at the Relu's place and output.
    Graph::Node fused = add;
    fused.op = "alknet.AddRelu";
    fused.opset = 1;
    fused.first_output = relu.first_output;
    graph.nodes[k] = std::move(fused);
    merged[p] = true;
    ++rewrites;
  }
  RemoveMerged(graph, merged);
  return rewrites;
}

}  // namespace alknet::compute::passes
