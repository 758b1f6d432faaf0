// Graph passes: rewrites of a compute::Graph that keep what it computes. The Executor runs
// them on every graph it is given (ExecutorOptions::run_passes), whatever built it: an ONNX
// plan, C++, JavaScript. Each pass is one file under src/passes/ and is tested on its own.
//
//   Graph g(3);                                 // x, w, b
//   int mm = g.Add("MatMul", {0, 1});
//   g.outputs = {g.Add("Add", {mm, 2})};
//   PassReport r = RunPasses(g, {x.desc(), w.desc(), b.desc()});
//   // g: one Gemm node (named as the Add), r.rewrites == 1
//
// A pass sees the graph with what the executor knows before recording it (GraphFacts): the
// dtype and shape of every value, from the inputs through the records' `infer`. Fusions follow
// one rule: a node is merged into its reader only when that reader is its one reader (no
// other node input and no graph output reads the value), and only when the fused record's
// `infer` gives the reader's output exactly. Rewrites keep every remaining value's id, dtype
// and shape; values whose producer was merged away are left unread.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "alknet/compute/graph.h"
#include "alknet/compute/op.h"

namespace alknet::compute {

// What is known of a graph's values before it runs.
struct GraphFacts {
  // Per value id: dtype and shape (as a contiguous layout), or nullopt where it is unknown
  // (a node the op table refuses: the executor reports why when it records that node).
  std::vector<std::optional<TensorDesc>> descs;

  const TensorDesc* desc(int value) const {
    return value >= 0 && static_cast<size_t>(value) < descs.size() && descs[value] ? &*descs[value]
                                                                                   : nullptr;
  }
};

// The facts of `graph` run on inputs of these dtypes and shapes (strides are ignored).
GraphFacts AnalyzeGraph(const Graph& graph, std::span<const TensorDesc> inputs);

struct GraphPass {
  std::string_view name;
  // Rewrites `graph` in place and returns how many rewrites it made. `facts` stay true for
  // every value the rewritten graph still reads.
  int (*run)(Graph& graph, const GraphFacts& facts);
};

// The fusions, in the order they run: MatMul + Add -> Gemm, then Add + Relu ->
// alknet.AddRelu, then Conv + activation -> Conv with `alknet.activation`. The order matters
// where they compete for a node: an Add that became a Gemm is no longer an AddRelu candidate.
std::span<const GraphPass> DefaultPasses();

struct PassReport {
  int rewrites = 0;
  std::vector<std::pair<std::string_view, int>> per_pass;  // pass name, rewrites
};

// Runs `passes` over `graph` in order.
PassReport RunPasses(Graph& graph, std::span<const TensorDesc> inputs,
                     std::span<const GraphPass> passes = DefaultPasses());

}  // namespace alknet::compute
