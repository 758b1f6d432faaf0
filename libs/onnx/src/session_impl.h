// Session::Impl and what its parts share: the model as loaded (load.cpp), plans (plan.cpp,
// with host folding in fold.cpp) and runs (run.cpp). Private to alknet-onnx.
#pragma once

#include <chrono>
#include <filesystem>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "alknet/compute/executor.h"
#include "alknet/compute/graph.h"
#include "alknet/compute/op_table.h"
#include "alknet/onnx/session.h"
#include "alknet/webgpu/context.h"

namespace alknet::onnx {
namespace detail {

using compute::ConstValue;
using compute::DType;
using compute::Graph;
using compute::OpNode;
using compute::OpRecord;
using compute::OpTable;
using compute::RefTensor;
using compute::TensorDesc;

// Ops the importer computes itself: they depend only on shapes or attributes, so no kernel
// and no record is involved.
inline bool IsImporterOp(const std::string& op) {
  return op == "Constant" || op == "Shape" || op == "Size";
}

// One ONNX node as loaded: attributes converted, its record found.
struct NodeInfo {
  std::string op, name, domain;
  int opset = 0;
  int index = 0;
  compute::Attributes attrs;
  std::vector<std::string> inputs, outputs;
  const OpRecord* record = nullptr;

  std::string Where(const std::string& model) const {
    std::string s = model + ": node " + std::to_string(index);
    if (!name.empty()) s += " '" + name + "'";
    s += " (" + op + ", opset " + std::to_string(opset) +
         (domain.empty() ? "" : ", domain " + domain) + ")";
    return s;
  }
};

struct Initializer {
  Tensor host;
  ConstValue known;        // when small enough to fold with
  compute::Tensor device;  // uploaded on first use by a device node
};

// A plan: the graph for one set of input shapes (and host-read input values).
struct Plan {
  Graph graph;
  std::vector<int> user_inputs;  // graph input j (j < size) is session input user_inputs[j]
  std::vector<compute::Tensor> constants;  // graph inputs after the user inputs
  struct Output {
    int graph_output = -1;  // index into graph.outputs, or -1 when known
    ConstValue known;
    ElemType type = ElemType::kUndefined;
    std::string name;
  };
  std::vector<Output> outputs;
  uint64_t folded = 0, on_device = 0;  // device nodes as planned, before the executor's passes
  uint64_t fusions = 0;
};

// Host folding (fold.cpp). The value of a Constant node.
Result<ConstValue> ConstantValue(const NodeInfo& n);
// Shape or Size of an input of this dtype and shape (opset 15's start/end for Shape).
Result<RefTensor> ShapeValue(const NodeInfo& n, const TensorDesc& input);
// `node`'s outputs computed on the host with its record's float64 reference when every input
// is known (`known`, parallel to node.inputs; nullptr for an absent input) and every output
// (`outs`, as inferred) has at most `fold_limit` elements; nullopt when it stays on the device.
Result<std::optional<std::vector<RefTensor>>> FoldOnHost(const OpNode& node, const OpRecord& record,
                                                         const std::vector<const RefTensor*>& known,
                                                         const std::vector<TensorDesc>& outs,
                                                         uint64_t fold_limit);

}  // namespace detail

struct Session::Impl {
  SessionOptions options;
  std::unique_ptr<webgpu::Context> owned_context;
  webgpu::Context* ctx = nullptr;
  std::unique_ptr<compute::Executor> exec;
  bool f16 = false;
  std::string model;  // file name for messages
  std::filesystem::path base_dir;
  std::map<std::string, int> opsets;
  std::vector<ValueInfo> inputs, outputs;
  std::vector<detail::NodeInfo> nodes;
  std::unordered_map<std::string, detail::Initializer> inits;
  std::unordered_map<std::string, ElemType> value_types;
  std::vector<bool> host_read;  // per input: its values are read at plan time
  std::list<std::pair<std::string, std::shared_ptr<detail::Plan>>> cache;
  SessionStats stats;

  Status Load(std::span<const std::byte> bytes);
  Result<std::shared_ptr<detail::Plan>> BuildPlan(std::span<const HostInput* const> ordered);
  Result<RunResult> Run(std::span<const HostInput> inputs, const RunOptions& options);
};

}  // namespace alknet::onnx
