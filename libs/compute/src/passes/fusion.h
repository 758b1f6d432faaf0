// What the fusion passes share: who reads each value (the one-reader rule every fusion
// follows), a graph node as the op table sees it, the check that a fused node computes its
// reader's output, and dropping the nodes merged away.
#pragma once

#include <optional>
#include <vector>

#include "alknet/compute/graph.h"
#include "alknet/compute/op.h"
#include "alknet/compute/passes.h"

namespace alknet::compute::passes {

// The readers of every value of one graph, counted once per node input (a node reading a
// value twice is two readers) and once per graph output listing it.
class Readers {
 public:
  explicit Readers(const Graph& graph);

  // The index of the one node that reads `node`'s output, or -1: the node may be merged into
  // that reader only. -1 when the node has more than one output, when its output is a graph
  // output, or when it is read by no node or by more than one node input.
  int SoleReader(int node) const;
  // The index of the node that produces `value`, or -1 (a graph input, an absent input).
  int Producer(int value) const;

 private:
  const Graph& graph_;
  std::vector<int> count_;     // per value
  std::vector<int> reader_;    // per value: the last node reading it
  std::vector<int> producer_;  // per value
};

// Node `node` as the executor will hand it to the op table (before RequestOutputs): input
// dtypes and shapes from `facts`, known values from Node::input_values, absent inputs marked.
// nullopt when an input's dtype and shape are unknown.
std::optional<OpNode> DescribeNode(const Graph& graph, const GraphFacts& facts, int node);

// True when the op table infers exactly one output for `node`, of `want`'s dtype and shape.
bool InfersTo(const OpNode& node, const TensorDesc& want);

// Drops the nodes marked in `merged`; value ids stay as they are.
void RemoveMerged(Graph& graph, const std::vector<bool>& merged);

// The passes of DefaultPasses(), one file each.
int FuseMatMulAdd(Graph& graph, const GraphFacts& facts);       // matmul_add.cpp
int FuseLayerNorm(Graph& graph, const GraphFacts& facts);       // layer_norm.cpp
int FuseAddRelu(Graph& graph, const GraphFacts& facts);         // add_relu.cpp
int FuseConvActivation(Graph& graph, const GraphFacts& facts);  // conv_activation.cpp
int FuseMatMulScale(Graph& graph, const GraphFacts& facts);     // gemm_epilogue.cpp
int FuseGemmActivation(Graph& graph, const GraphFacts& facts);  // gemm_epilogue.cpp
int FuseGelu(Graph& graph, const GraphFacts& facts);            // gelu.cpp

}  // namespace alknet::compute::passes
