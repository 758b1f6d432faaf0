// Session: an ONNX model loaded for alknet-compute.
//
//   auto s = alknet::onnx::Session::Load("model.onnx");
//   if (!s.ok()) { fprintf(stderr, "%s\n", s.error().ToString().c_str()); return 1; }
//   alknet::onnx::HostInput x{"x", ElemType::kFloat, {1, 3}, bytes};
//   auto out = s->Run({x});                 // one Executor::Run: one command buffer
//   // (*out)[0].name, .type, .shape, .data (bytes in the model's declared ONNX type)
//
// Loading parses the protobuf (external data checked to stay inside the model's folder),
// runs ONNX shape inference, converts attributes and checks every node against the op table.
// The first Run with a given set of input shapes plans the graph: shapes are propagated
// through the records' `infer`, everything computable on the host (constants, shape
// arithmetic, nodes over known values) is folded with the records' float64 `reference`, and
// the rest becomes one alknet::compute::Graph. Plans are cached per input shapes (and
// per value of inputs read on the host), LRU. docs/onnx.md describes the pipeline and
// docs/adr/0002-onnx-dtypes.md the dtype policy (INT64 -> i32 range-checked, DOUBLE -> f32).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "alknet/compute/error.h"
#include "alknet/compute/executor.h"
#include "alknet/compute/tensor.h"
#include "alknet/onnx/types.h"
#include "alknet/tensor/tensor_view.h"

namespace alknet::webgpu {
class Context;
}

namespace alknet::onnx {

struct SessionOptions {
  // The device to run on; nullptr: the session creates its own (ContextOptions defaults:
  // ALKNET_ADAPTER, else the first adapter). Sharing one context across sessions shares its
  // pipeline cache (the conformance runner does this).
  webgpu::Context* context = nullptr;
  // Plans kept per distinct input shapes / host-read input values.
  size_t plan_cache_size = 8;
  // Nodes whose inputs are all known are folded on the CPU when every output has at most
  // this many elements; bigger results stay on the device.
  uint64_t fold_limit = 1u << 20;
  // Run the executor's graph passes on the plans: MatMul + Add -> Gemm, Add + Relu ->
  // alknet.AddRelu, Conv + activation (compute/passes.h). Off: one device node per ONNX node.
  bool fuse = true;
  // The memory a model may make alknet allocate for one tensor or for all its stored tensors:
  // initializers and TENSOR attributes (external data included) are summed before any is
  // read, and every value a plan computes (on the host or on the device) must fit. Over it:
  // an error naming the tensor or node, never an allocation failure. alknet infer's
  // --max-memory sets it.
  uint64_t max_memory = uint64_t{4} << 30;
  // Refuse models bigger than this (the protobuf itself; external data is read separately).
  uint64_t max_model_bytes = uint64_t{2} << 30;
  // Asked before any file is read: the model (Load) and each external-data file (its
  // canonical path, already confined to the model's folder). An error refuses the load with
  // its message (the JS runtime passes its --allow-read check). Empty: everything allowed.
  std::function<Status(const std::filesystem::path&)> check_read;
  // A Loop running more iterations than this is an error (a trip count or condition from a
  // hostile model must not hang the process).
  uint64_t max_loop_iterations = 1'000'000;
  // A Loop whose trip count and condition are known at plan time (a constant trip count, a
  // condition that stays a known `true`) is unrolled into the plan when its iterations
  // together plan at most this many body nodes: one command buffer for every iteration, no
  // read-back between them. Bigger loops, and loops decided by the data, run iteration by
  // iteration (control_flow.cpp). 0: never unroll.
  uint64_t max_unrolled_loop_nodes = 4096;
  // Replay a cached plan's recorded dispatches instead of recording it again (ADR 0026;
  // compute::RecordedGraph), for the main graph's plans and those of Loop / Scan / If bodies.
  // nullopt: on unless ALKNET_REPLAY=0.
  std::optional<bool> replay;
};

struct ValueInfo {
  std::string name;
  ElemType type = ElemType::kUndefined;
  // -1 where the model leaves a dimension open; dim_names holds its symbolic name, if any.
  std::vector<int64_t> shape;
  std::vector<std::string> dim_names;
  bool has_shape = false;  // false: the model declares no shape (any rank)
  // sequence(tensor): `type` and `shape` are the elements'. optional(...): the value may be
  // absent (an empty optional). optional(sequence(tensor)) sets both.
  bool sequence = false;
  bool optional = false;
};

// An input in host memory; `data` is borrowed for the duration of Run.
struct HostInput {
  std::string name;
  ElemType type = ElemType::kFloat;
  std::vector<uint64_t> shape;
  std::span<const std::byte> data;  // little-endian, natural element size (bool: 1 byte)
  // Or the values already on the session's device, in the device dtype of `type` (i32 for
  // INT64, ...) and of `shape`; `data` is then ignored. Used as they are, without a copy,
  // unless the plan reads this input on the host (a shape input), which downloads it.
  compute::Tensor device;
  // A sequence input (`items`, each a tensor; `type` is theirs) or an empty optional.
  ValueKind kind = ValueKind::kTensor;
  std::vector<HostInput> items;
  // A STRING input's elements instead of `data` (row-major), borrowed like `data`.
  std::span<const std::string> strings;
};
// A host tensor (or sequence, or empty optional) as an input, borrowing its bytes.
HostInput InputFromTensor(const Tensor& t, std::string name = {});
// A metatensor view as an input (its name is the input name unless `name` is given).
Result<HostInput> InputFromView(const tensor::TensorView& view, std::string name = {});

struct RunOptions {
  // Also return the outputs as device tensors (device dtypes: i32 for INT64, ...). Outputs
  // that were folded on the host have an invalid Tensor there.
  bool keep_device_outputs = false;
  // Skip the download (benchmarks that only time the device work keep device outputs).
  bool download = true;
  // Time every node of the plan on its own (RunResult::profile); the run is slower.
  bool profile = false;
  // Wait for the device after the graph is submitted, so that device_ms covers its work
  // even when nothing is downloaded (download = false).
  bool time_device = true;
};

struct RunResult {
  std::vector<Tensor> outputs;  // host, in the model's declared types, model output order
  std::vector<compute::Tensor> device_outputs;
  double plan_ms = 0;  // 0 when the plan came from the cache
  double run_ms = 0;   // upload + record + submit + download
  // run_ms in parts: inputs to the device; recording, submitting and (with
  // RunOptions::time_device) waiting for the graph; outputs back to the host.
  double upload_ms = 0, device_ms = 0, download_ms = 0;
  double wait_ms = 0;  // the part of device_ms spent waiting after the submit
  bool plan_cached = false;
  // With RunOptions::profile: the device nodes in plan order (ONNX node names; a fused Gemm
  // or alknet.AddRelu carries the Add's name, a fused Conv the Conv's). Folded nodes ran at plan
  // time and are not listed.
  compute::RunProfile profile;
  // Non-empty when the whole graph was evaluated on the host with the op records' float64
  // references instead of on the device: why (a float64 input or initializer holds values
  // beyond float32's range; docs/adr/0013-onnx-float64-host.md).
  std::string on_host;
  // Nodes run between plan segments, each a device sync (host ops reading their inputs back,
  // control nodes reading a condition or trip count), in run order.
  struct HostNode {
    std::string op, name;
    double ms = 0;  // reading back, computing on the host, the outputs made known
  };
  std::vector<HostNode> host_nodes;
};

struct SessionStats {
  uint64_t plans_built = 0;
  uint64_t plan_cache_hits = 0;
  uint64_t nodes_folded = 0;     // in the last plan built
  uint64_t nodes_on_device = 0;  // after fusion
  uint64_t fusions = 0;          // counted when the plan first runs
  uint64_t initializers_uploaded = 0;
  // Control flow (docs/onnx.md): If nodes inlined in the last plan built (their condition
  // was known at plan time), and control nodes run on their own (a data-dependent If, Loop,
  // Scan: each a sub-plan), counted over all runs, with their body or branch runs.
  uint64_t ifs_inlined = 0;
  uint64_t control_nodes_run = 0;
  // Host ops run between plan segments (NonZero, Unique, ... on values only known at run time):
  // each one a device sync reading its inputs back.
  uint64_t host_ops_run = 0;
  // Inputs a record reads on the host (Compress's condition, Reshape's shape, ...) that were
  // computed on the device: each a segment end and a device sync reading them back.
  uint64_t host_input_reads = 0;
  uint64_t subgraph_runs = 0;
  // Loops unrolled into a plan (SessionOptions::max_unrolled_loop_nodes), and SequenceMaps
  // planned as one body over their stacked elements instead of once per element: summed
  // over the plans built (a cached plan adds nothing).
  uint64_t loops_unrolled = 0;
  uint64_t sequence_maps_batched = 0;
  // Runs evaluated entirely on the host in float64 (RunResult::on_host says why).
  uint64_t host_evaluated_runs = 0;
  // Device segments replayed from a plan's recorded trace, and those recorded (and captured
  // for the next run) instead, counted over all runs (bodies of control nodes included).
  uint64_t segments_replayed = 0;
  uint64_t segments_recorded = 0;
  // Read-backs, each one wait for the device, counted over all runs: values read with their
  // segment's submit (an If's condition and the small values beside it, a Loop body's
  // condition and scan outputs, the outputs of the last segment) count once per segment, a
  // value already read in the same run not again.
  uint64_t device_reads = 0;
};

// The op types of a model's nodes, in order, without checking anything else (reports group
// refused models by op too).
Result<std::vector<std::string>> ReadOpTypes(const std::filesystem::path& path);

class Session {
 public:
  static Result<Session> Load(const std::filesystem::path& path,
                              const SessionOptions& options = {});
  // A model in memory; external data is resolved against `base_dir` (empty: refused).
  static Result<Session> LoadFromBytes(std::span<const std::byte> bytes,
                                       const std::filesystem::path& base_dir,
                                       const SessionOptions& options = {});

  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;
  ~Session();

  // Graph inputs without an initializer, and the graph outputs, in model order.
  const std::vector<ValueInfo>& inputs() const;
  const std::vector<ValueInfo>& outputs() const;
  // The opset the model imports for `domain` ("" = ai.onnx), or 0.
  int opset(const std::string& domain = "") const;
  // Op types of the nodes, in order (the conformance runner groups results by op).
  std::vector<std::string> op_types() const;
  // Whether a node of the main graph draws random numbers (RandomUniform/Normal(Like),
  // Bernoulli, a Dropout given training_mode): its outputs cannot match another generator's.
  bool draws_random() const;

  Result<RunResult> Run(std::span<const HostInput> inputs, const RunOptions& options = {});
  Result<RunResult> Run(const std::vector<HostInput>& inputs, const RunOptions& options = {}) {
    return Run(std::span<const HostInput>(inputs), options);
  }

  const SessionStats& stats() const;
  webgpu::Context& context();

  struct Impl;

 private:
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace alknet::onnx
