// Executor: runs op nodes and small graphs on a webgpu::Context.
//
//   Executor ex(ctx);
//   auto a = ex.Upload(DType::kF32, {2, 3}, bytes);
//   Graph g(2);                                  // two graph inputs: values 0 and 1
//   int s = g.Add("Add", {0, 1});
//   g.outputs = {g.Add("Relu", {s})};
//   auto out = ex.Run(g, {*a, *b});              // one command buffer, checked submission
//   auto host = ex.Download((*out)[0]);
//
// The graph passes (passes.h: fusions) run on every graph first, whatever built it. Every node
// is checked (op table supports/infer) and its shader generated before anything is recorded; all
// dispatches go into one command buffer; intermediate buffers return to a pool after their last use
// and are reused by later nodes (and later runs). A run that raises any WebGPU error fails with it
// and returns no tensors.
//
// Replay (ADR 0026): Run(graph, inputs, &recorded) with a RecordedGraph the caller keeps for
// that graph records the first run as usual and keeps its trace; later runs whose inputs have
// the same layouts replay the trace without recording again.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "alknet/compute/error.h"
#include "alknet/compute/graph.h"
#include "alknet/compute/op.h"
#include "alknet/compute/shader_generator.h"
#include "alknet/compute/tensor.h"
#include "alknet/tensor/tensor_view.h"
#include "alknet/webgpu/context.h"

namespace alknet::compute {

struct ExecutorOptions {
  // Fill every freshly bound output with 0xFF bytes (NaN for floats, -1 for integers) before
  // the run, so a kernel that skips an element cannot pass a test by luck.
  bool poison_outputs = false;
  // Replaces the capabilities read from the device (tests use it to force small limits, e.g.
  // a grid that must spill into y). Values above the device's real limits are a caller error.
  std::optional<DeviceCaps> caps;
  // Run the graph passes (passes.h: MatMul + Add -> Gemm, Add + Relu, Conv + activation) on
  // every graph before recording it. Off: graphs run node for node as built (ONNX's
  // `fuse: false`, `alknet infer --no-fuse`).
  bool run_passes = true;
};

struct ExecutorStats {
  uint64_t buffers_created = 0;
  uint64_t buffers_reused = 0;
  uint64_t dispatches = 0;
  uint64_t submits = 0;
  uint64_t programs_generated = 0;  // templates rendered
  uint64_t programs_reused = 0;     // from the program cache
  uint64_t graph_rewrites = 0;      // made by the graph passes, summed over runs
  uint64_t param_blocks = 0;        // uniform parameter blocks created (ShaderProgram::params)
  uint64_t runs_captured = 0;       // runs recorded into a RecordedGraph's trace
  uint64_t runs_replayed = 0;       // runs replayed from one
  uint64_t bind_groups_reused = 0;  // bind groups a replay bound again rather than made
};

class Executor;

// One graph's recorded run, kept for replay (Executor::Run(graph, inputs, &recorded); ADR
// 0026). The first run records as usual while capturing each dispatch: its pipeline, its grid
// and every binding as a slot (graph input i; output buffer o, made fresh for every run; a
// buffer the trace owns: intermediates, uniform blocks, constants of decompositions). A later
// run whose inputs have the same dtypes, shapes, strides, offsets and storage sharing replays
// the dispatches into one command buffer: no op table, generator, program or pipeline lookup,
// and bind groups over owned buffers and unchanged inputs (weights) made once. Other inputs
// record anew and the trace is captured again. Owned buffers are at most the first run's
// peak; they are reused by every replay, which queue order makes safe for runs submitted back
// to back. A RecordedGraph belongs to one graph and one executor; the caller must not pass it
// with another graph.
class RecordedGraph {
 public:
  RecordedGraph();
  ~RecordedGraph();
  RecordedGraph(const RecordedGraph&) = delete;
  RecordedGraph& operator=(const RecordedGraph&) = delete;

  // A trace is held: the next run with matching inputs replays it.
  bool ready() const { return trace_ != nullptr; }
  uint64_t captures() const { return captures_; }
  uint64_t replays() const { return replays_; }
  // Bytes of the buffers the trace owns (intermediates, uniform blocks, constants).
  uint64_t owned_bytes() const;
  // Why the last captured run could not become a trace (empty: it did, or none ran).
  const std::string& refused() const { return refused_; }

 private:
  friend class Executor;
  struct Trace;
  std::unique_ptr<Trace> trace_;
  uint64_t captures_ = 0, replays_ = 0;
  std::string refused_;
};

// One top-level node of a profiled run (Executor::set_profile): its time from recording to
// the device finishing it, each node submitted and waited for on its own. The time includes
// one submit-and-wait round trip, which `sync_ms` of the run measures on an empty submit.
struct NodeProfile {
  std::string op;
  std::string name;
  std::string output;  // dtype and shape of output 0, e.g. "f32[1,64,56,56]"
  uint64_t dispatches = 0;
  double ms = 0;
};

struct RunProfile {
  std::vector<NodeProfile> nodes;
  double sync_ms = 0;  // an empty submit + wait, the floor under every node's time
};

// Host bytes of a tensor in metatensor layout (bool: one byte per element).
struct HostTensor {
  DType dtype = DType::kF32;
  Shape shape;
  std::vector<std::byte> data;
};

class Executor {
 public:
  explicit Executor(webgpu::Context& ctx, ExecutorOptions options = {});
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  webgpu::Context& context() { return ctx_; }
  const DeviceCaps& caps() const { return caps_; }
  const ShaderGenerator& generator() const;
  const ExecutorStats& stats() const { return stats_; }

  // `data` is in host layout (metatensor: bool one byte per element, f16 as IEEE half).
  Result<Tensor> Upload(DType dtype, const Shape& shape, std::span<const std::byte> data);
  Result<Tensor> Upload(const tensor::TensorView& view);
  // A float64 host value converted to its dtype (f32, f16, i32, u32, bool). `fresh`: a new
  // buffer rather than a pooled one.
  Result<Tensor> UploadConstant(const RefTensor& value, bool fresh = false);
  Result<HostTensor> Download(const Tensor& t);
  // Several tensors with one submit and one wait (webgpu::Context::ReadMany); a non-contiguous
  // one is made contiguous first (a dispatch of its own).
  Result<std::vector<HostTensor>> Download(std::span<const Tensor> tensors);
  // A tensor with unspecified contents.
  Result<Tensor> Empty(DType dtype, const Shape& shape);

  Result<std::vector<Tensor>> Run(const Graph& graph, const std::vector<Tensor>& inputs);
  // The same, replaying `recorded`'s trace when it matches the inputs, else recording and
  // capturing it (RecordedGraph). Profiled runs and poison_outputs record as usual.
  // nullptr: Run(graph, inputs).
  Result<std::vector<Tensor>> Run(const Graph& graph, const std::vector<Tensor>& inputs,
                                  RecordedGraph* recorded);
  // The same, and the outputs listed in `read` (indices into graph.outputs) read back into
  // `host` (one per entry) with the run's own submit: their copies are appended to the run's
  // command buffer, which is submitted and waited for once (a small model's run is one
  // submit and one wait instead of two of each). A non-contiguous output is read after it,
  // as Download does.
  Result<std::vector<Tensor>> Run(const Graph& graph, const std::vector<Tensor>& inputs,
                                  RecordedGraph* recorded, std::span<const size_t> read,
                                  std::vector<HostTensor>* host);
  // One node.
  Result<Tensor> Run(const std::string& op, const std::vector<Tensor>& inputs,
                     Attributes attributes = {}, int opset = 17);

  // Compile (or fetch from the pipeline cache) and record one program; for callers that build
  // their own programs (SHA-256). `bindings` follow program.bindings, leaving out the
  // parameter block (Role::kParams), which the executor binds from its own cache. The
  // context's pipeline cache (webgpu::Context::cached_kernel_count) counts compiled programs.
  Status Dispatch(webgpu::Recorder& rec, const ShaderProgram& program,
                  const std::vector<const webgpu::Buffer*>& bindings);
  // Submits with error scopes and checks uncaptured errors and device loss.
  Status SubmitChecked(webgpu::Recorder rec);
  // Whether work was submitted or written through this executor since its last wait for the
  // device (a read-back waits for everything submitted before it); WaitIdle waits and clears.
  bool has_unwaited_work() const { return unwaited_; }
  Status WaitIdle();
  // Milliseconds the last Run with reads (or Download) spent submitting its copies and waiting
  // for them: the device finishing the run.
  double last_read_ms() const { return last_read_ms_; }

  // While set, Run(graph) times every top-level node on its own (submit, wait) into `sink`
  // (cleared first): slower than a normal run, for finding where the time goes. nullptr: off.
  void set_profile(RunProfile* sink) { profile_ = sink; }

 private:
  struct Pass;
  struct Capture;
  // Outputs to read with the submit (Run with `read`), while a run records or replays.
  struct ReadBack {
    std::span<const size_t> outputs;
    std::vector<HostTensor>* host = nullptr;
  };
  Result<std::vector<Tensor>> RunRecording(const Graph& graph, const std::vector<Tensor>& inputs,
                                           Capture* capture, const ReadBack& read);
  // Submits `rec`; with reads, their copies go into it first and the submit is waited for.
  Status SubmitAndRead(webgpu::Recorder rec, const std::vector<Tensor>& outputs,
                       const ReadBack& read);
  // The trace from a captured run, or why none can be kept.
  Result<std::unique_ptr<RecordedGraph::Trace>> FinishCapture(Capture& capture,
                                                              const std::vector<Tensor>& inputs,
                                                              const std::vector<Tensor>& outputs);
  Result<std::vector<Tensor>> Replay(RecordedGraph::Trace& trace, const std::vector<Tensor>& inputs,
                                     const ReadBack& read);
  bool TraceMatches(const RecordedGraph::Trace& trace, const std::vector<Tensor>& inputs);
  static void Hold(Capture& capture, const std::shared_ptr<webgpu::Buffer>& buffer, bool constant);
  // Records `graph` on `inputs` (known values in `known`, parallel; may be empty) and returns
  // its outputs; composite nodes recurse.
  Result<std::vector<Tensor>> Record(Pass& pass, const Graph& graph,
                                     const std::vector<Tensor>& inputs,
                                     const std::vector<ConstValue>& known, int depth);
  Result<Tensor> Contiguous(Pass& pass, const Tensor& t, const std::string& label);
  Result<std::shared_ptr<webgpu::Buffer>> Acquire(uint64_t bytes);
  Result<std::shared_ptr<webgpu::Buffer>> ParamsBuffer(const std::vector<uint32_t>& words);
  void Release(std::shared_ptr<webgpu::Buffer> buffer);

  webgpu::Context& ctx_;
  ExecutorOptions options_;
  DeviceCaps caps_;
  std::unique_ptr<ShaderGenerator> generator_;
  // Generated programs by node (ProgramKey: op, attributes, operand layouts, known values by
  // identity, which `pins` keeps alive): re-running a plan renders no template. Cleared when
  // it grows past a bound.
  struct CachedProgram {
    std::shared_ptr<const ShaderProgram> program;
    std::vector<ConstValue> pins;
  };
  std::unordered_map<std::string, CachedProgram> programs_;
  std::vector<std::shared_ptr<webgpu::Buffer>> pool_;
  // By contents; shared with the traces that bind them.
  std::unordered_map<std::string, std::shared_ptr<webgpu::Buffer>> params_buffers_;
  ExecutorStats stats_;
  RunProfile* profile_ = nullptr;
  Capture* capture_ = nullptr;  // the run being captured into a trace, while it records
  bool unwaited_ = false;
  double last_read_ms_ = 0;
};

// Device capabilities from a context's limits and features.
DeviceCaps CapsOf(const webgpu::Context& ctx);
Error FromWebGpu(const webgpu::Error& e);

}  // namespace alknet::compute
