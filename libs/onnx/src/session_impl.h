// Session::Impl and what its parts share: the model as loaded (load.cpp), plans (plan.cpp,
// with host folding in fold.cpp) and runs (run.cpp). Private to alknet-onnx.
#pragma once

#include <chrono>
#include <filesystem>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "alknet/compute/executor.h"
#include "alknet/compute/graph.h"
#include "alknet/compute/op_table.h"
#include "alknet/onnx/session.h"
#include "alknet/webgpu/context.h"

namespace onnx {
class GraphProto;
class NodeProto;
}  // namespace onnx

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

// An attribute of type T, or `fallback` when it is absent or of another type.
template <typename T>
T AttrOr(const compute::Attributes& attrs, const char* name, T fallback) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return fallback;
  if (const T* v = std::get_if<T>(&it->second)) return *v;
  return fallback;
}

// Ops the importer computes itself: they depend only on shapes or attributes, so no kernel
// and no record is involved.
inline bool IsImporterOp(const std::string& op) {
  return op == "Constant" || op == "Shape" || op == "Size";
}
// Control flow (control_flow.cpp): nodes with subgraphs, planned and run by the importer.
inline bool IsControlOp(const std::string& op) {
  return op == "If" || op == "Loop" || op == "Scan";
}
// Sequences and optionals (sequence.cpp): bookkeeping the planner does on the host (which
// device tensors a sequence holds); SplitToSequence and ConcatFromSequence plan Split and
// Concat nodes, SequenceMap plans its body once per element.
inline bool IsSequenceOp(const std::string& op) {
  return op == "SequenceConstruct" || op == "SequenceInsert" || op == "SequenceErase" ||
         op == "SequenceAt" || op == "SequenceLength" || op == "SequenceEmpty" ||
         op == "SplitToSequence" || op == "ConcatFromSequence" || op == "SequenceMap" ||
         op == "Optional" || op == "OptionalHasElement" || op == "OptionalGetElement";
}
// The inputs of a sequence op the planner reads on the host (positions, split sizes).
inline bool IsSequenceHostInput(const std::string& op, size_t i) {
  return (op == "SequenceInsert" && i == 2) || (op == "SequenceErase" && i == 1) ||
         (op == "SequenceAt" && i == 1) || (op == "SplitToSequence" && i == 1);
}
// Most tensors one sequence may hold (SplitToSequence of a long axis, a growing Loop).
inline constexpr uint64_t kMaxSequenceLength = 65536;

struct Program;
struct NodeInfo;

// Host ops (host_ops.cpp): nodes whose output shapes depend on their input values (NonZero,
// Unique, NonMaxSuppression, ...), computed on the host. When every input is known at plan time
// they fold like any record; otherwise the plan stops before the node (a segment ends), its
// inputs are read back (a device sync, counted in SessionStats::host_ops_run) and its outputs
// become known values that the next segment folds with or uploads.
struct HostOp {
  const char* domain;  // "" for ai.onnx
  const char* op;
  int opset_min;
  // The outputs (device dtypes, float64 values) from the inputs (nullptr: absent); `where`
  // names the node for messages.
  Result<std::vector<RefTensor>> (*run)(const NodeInfo& n,
                                        const std::vector<const RefTensor*>& inputs);
};
// The host op for this node, or nullptr.
const HostOp* FindHostOp(const std::string& domain, const std::string& op, int opset);

// One ONNX node as loaded: attributes converted, its record found.
struct NodeInfo {
  std::string op, name, domain;
  int opset = 0;
  int index = 0;
  compute::Attributes attrs;
  std::vector<std::string> inputs, outputs;
  const OpRecord* record = nullptr;
  // GRAPH attributes (If's then_branch/else_branch, Loop's and Scan's body).
  std::map<std::string, std::shared_ptr<Program>> graphs;
  const HostOp* host_op = nullptr;  // set when the node runs on the host (host_ops.cpp)
  std::string scope;  // "" in the main graph; "node 3 'If_1' (If) then_branch: " in a subgraph
  std::string via;    // a node the planner made for another (Concat for ConcatFromSequence)

  std::string Where(const std::string& model) const {
    std::string s = model + ": " + scope + "node " + std::to_string(index);
    if (!name.empty()) s += " '" + name + "'";
    s += " (" + op + (via.empty() ? "" : " for " + via) + ", opset " + std::to_string(opset) +
         (domain.empty() ? "" : ", domain " + domain) + ")";
    return s;
  }
};

struct Initializer {
  Tensor host;
  ConstValue known;                // when small enough to fold with
  mutable compute::Tensor device;  // uploaded on first use by a device node
};

// A value between plan segments and at a program's inputs: on the device, known on the host,
// or (a session input) host bytes not uploaded yet.
struct Value {
  std::string name;
  ElemType type = ElemType::kUndefined;
  compute::DType dtype = compute::DType::kF32;  // device dtype
  std::vector<uint64_t> shape;
  compute::Tensor device;
  ConstValue known;
  const HostInput* host = nullptr;
  // A sequence (`elems`, each a tensor value) or an empty optional instead of a tensor.
  ValueKind kind = ValueKind::kTensor;
  std::vector<Value> elems;
};
// The tensors of `values`, depth first (a sequence's elements in order): the order of a plan's
// user inputs.
inline void FlattenValues(const std::vector<Value>& values, std::vector<const Value*>& out) {
  for (const Value& v : values) {
    if (v.kind == ValueKind::kSequence) {
      FlattenValues(v.elems, out);
    } else if (v.kind == ValueKind::kTensor) {
      out.push_back(&v);
    }
  }
}

struct Plan;
using PlanCache = std::list<std::pair<std::string, std::shared_ptr<Plan>>>;

// A graph as loaded: the model's main graph or a subgraph (an If branch, a Loop or Scan
// body). A subgraph reads names of the enclosing graphs (`free`) besides its inputs.
struct Program {
  const Program* parent = nullptr;
  std::string scope;  // prefix for messages, "" for the main graph
  std::vector<std::string> input_names;
  std::vector<ElemType> input_types;
  std::vector<std::string> output_names;
  std::vector<NodeInfo> nodes;
  std::unordered_map<std::string, Initializer> inits;
  std::set<std::string> free;   // names read from enclosing scopes
  std::vector<bool> host_read;  // per input: its values are read at plan time
  mutable PlanCache cache;      // plans of subgraphs (the main graph's: Impl::cache)
};

// A plan: the graph for one set of input shapes (and host-read input values). A program
// with control flow that cannot be decided at plan time is planned in segments: a segment
// stops before such a node (`stop`), its outputs are the values live after it, and the
// segment after the node is planned for the shapes the node produced (`next`).
struct Plan {
  Graph graph;
  // Graph input j (j < size) is flattened seed user_inputs[j] (FlattenValues).
  std::vector<int> user_inputs;
  std::vector<compute::Tensor> constants;  // graph inputs after the user inputs
  struct Output {
    int graph_output = -1;  // index into graph.outputs, or -1 when known
    ConstValue known;
    ElemType type = ElemType::kUndefined;
    std::string name;
    TensorDesc desc;
    ValueKind kind = ValueKind::kTensor;
    std::vector<Output> elems;  // a sequence's
  };
  std::vector<Output> outputs;
  int stop = -1;  // index of the control node this segment stops before; -1: the end
  PlanCache next;
  uint64_t folded = 0, on_device = 0;  // device nodes as planned, before the executor's passes
  uint64_t fusions = 0;
  uint64_t ifs_inlined = 0;
  uint64_t loops_unrolled = 0, maps_batched = 0;
  // The executor's recorded trace of `graph` (ADR 0026): later runs of this plan replay it.
  mutable std::unique_ptr<compute::RecordedGraph> recorded;
};

// Checks a control node's attributes and input/output counts against its subgraphs.
Status CheckControlNode(const NodeInfo& n, const std::string& model);
// The plan-cache key of a set of seeds: shapes, and the values of known ones.
std::string SeedKey(const std::vector<Value>& seeds);
// Free names of `p` (read, not defined inside, recursively through its subgraphs).
void ComputeFree(Program& p);
// Which inputs of `p` a plan reads on the host: those reaching a record's host input (inside
// subgraphs too); with `declared` (the main graph's inputs), also integer and bool inputs of
// at most 64 elements (declared shape) that reach an If condition (a sample rate deciding a
// branch): plans are then keyed by their values and the If is inlined.
void ComputeHostRead(Program& p, const std::vector<ValueInfo>* declared);

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

// String graphs (strings.cpp, docs/adr/0015-onnx-strings-on-the-host.md): a model holding
// STRING values runs on the host over host tensors; only Cast, CastLike, StringNormalizer and
// Identity are supported there.
struct StringGraph;
// Whether `g` has a STRING input, output, intermediate, initializer or a node making strings.
bool HoldsStrings(const ::onnx::GraphProto& g);
Result<std::shared_ptr<StringGraph>> LoadStringGraph(
    const ::onnx::GraphProto& g, const std::string& model, const std::filesystem::path& base_dir,
    const std::function<Status(const std::filesystem::path&)>& check);
Result<RunResult> RunStringGraph(const StringGraph& sg, const std::vector<ValueInfo>& inputs,
                                 const std::vector<ValueInfo>& outputs,
                                 std::span<const HostInput> given, const std::string& model);

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
  detail::Program main;
  std::vector<detail::NodeInfo>& nodes = main.nodes;
  std::unordered_map<std::string, detail::Initializer>& inits = main.inits;
  std::unordered_map<std::string, ElemType> value_types;
  std::vector<bool>& host_read = main.host_read;  // per input: its values are read at plan time
  detail::PlanCache cache;
  SessionStats stats;
  // Set for the duration of a run whose float64 values do not fit float32: every value is
  // known on the host and every node folds with its record's float64 reference; a node that
  // cannot is refused (docs/adr/0013-onnx-float64-host.md).
  bool host_eval = false;
  // Cached plans replay their recorded dispatches (SessionOptions::replay, ALKNET_REPLAY).
  bool replay = true;
  // The first float64 initializer of the main graph with a value beyond float32's range
  // (empty: none): such a model always runs on the host.
  std::string wide_initializer;
  // Set when the model holds strings: it runs on the host (strings.cpp), not planned.
  std::shared_ptr<detail::StringGraph> strings;

  Status Load(std::span<const std::byte> bytes);
  // One node of `g` (graph attributes loaded as subgraphs of `parent`).
  Result<detail::NodeInfo> LoadNode(const ::onnx::NodeProto& np, int index,
                                    const detail::Program& parent);
  Result<std::shared_ptr<detail::Program>> LoadSubgraph(const ::onnx::GraphProto& g,
                                                        const detail::Program& parent,
                                                        const std::string& scope);
  // Plans `p` from node `start` on, given the values defined there (`seeds`).
  Result<std::shared_ptr<detail::Plan>> BuildPlan(const detail::Program& p, size_t start,
                                                  const std::vector<detail::Value>& seeds);
  // The plan for `seeds` from `cache` (or built, passes run, cached).
  Result<std::shared_ptr<detail::Plan>> PlanFor(detail::PlanCache& cache, const detail::Program& p,
                                                size_t start,
                                                const std::vector<detail::Value>& seeds,
                                                RunResult* result);
  // Runs `p` on `seeds`: its outputs, in order. `read_outputs` (per output of `p`; nullptr:
  // none) names the outputs the caller will read on the host: they are read back with the
  // last segment's submit (ReadBack then finds them).
  Result<std::vector<detail::Value>> RunProgram(const detail::Program& p, detail::PlanCache& cache,
                                                std::vector<detail::Value> seeds, RunResult* result,
                                                const RunOptions& ro,
                                                const std::vector<bool>* read_outputs = nullptr);
  // One plan segment's graph: its outputs as values; the outputs flagged in `read` (parallel to
  // plan.outputs) are read back with the segment's submit into `read_back`.
  Result<std::vector<detail::Value>> RunSegment(const detail::Plan& plan,
                                                const std::vector<detail::Value>& seeds,
                                                RunResult* result, const RunOptions& ro,
                                                const std::vector<bool>& read);
  // Device tensors read back during the current run (Run clears it when it ends), each with
  // its tensor, which keeps the buffer from being reused while the copy is held: a value read
  // with its segment's submit, or read once, is not read again (an If's condition and the
  // small values read with it, the outputs). Buffers are not written once made, so a copy
  // stays true while its buffer is held.
  std::vector<std::pair<compute::Tensor, compute::HostTensor>> read_back;
  // `t` on the host: from read_back, else downloaded (and kept there).
  Result<compute::HostTensor> ReadBack(const compute::Tensor& t);
  // Downloads those of `ts` not in read_back with one submit and one wait, into read_back.
  Status ReadBackAll(const std::vector<compute::Tensor>& ts);
  void KeepReadBack(const compute::Tensor& t, compute::HostTensor h);
  // Drops the copies of `v`'s buffer (a Loop iteration's values, once read).
  void ForgetReadBack(const detail::Value& v);
  // A control node the plan could not inline (control_flow.cpp): its outputs.
  Result<std::vector<detail::Value>> RunControl(const detail::Program& p, const detail::NodeInfo& n,
                                                const std::vector<detail::Value>& env,
                                                const RunOptions& ro);
  // A host op the plan stopped before (host_ops.cpp): its inputs read back, its outputs known.
  Result<std::vector<detail::Value>> RunHostNode(const detail::Program& p,
                                                 const detail::NodeInfo& n,
                                                 const std::vector<detail::Value>& env);
  // Input `name` of node `n` of `p`: from `env` (the values live after a segment), else an
  // initializer of `p` or of a graph around it.
  Result<detail::Value> InputValue(const detail::Program& p, const detail::NodeInfo& n,
                                   const std::vector<detail::Value>& env, const std::string& name);
  Result<compute::Tensor> ToDevice(const detail::Value& v);
  Result<detail::Value> ToHostKnown(const detail::Value& v);
  Result<RunResult> Run(std::span<const HostInput> inputs, const RunOptions& options);
};

}  // namespace alknet::onnx
