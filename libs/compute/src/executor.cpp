#include "alknet/compute/executor.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "alknet/compute/op_table.h"
#include "alknet/compute/wgsl_generator.h"

namespace alknet::compute {

namespace wg = alknet::webgpu;

Error FromWebGpu(const wg::Error& e) {
  // The layer's limit checks name the limit; keep them recognisable as limits.
  const bool limit = e.code == wg::ErrorCode::kInvalidArgument && e.message.find("limit") != std::string::npos;
  return Error{limit ? ErrorCode::kLimit : ErrorCode::kDevice, e.ToString()};
}

DeviceCaps CapsOf(const wg::Context& ctx) {
  const WGPULimits& l = ctx.limits();
  DeviceCaps c;
  c.max_workgroups_per_dimension = l.maxComputeWorkgroupsPerDimension;
  c.max_invocations_per_workgroup = l.maxComputeInvocationsPerWorkgroup;
  c.max_workgroup_size_x = l.maxComputeWorkgroupSizeX;
  c.max_workgroup_size_y = l.maxComputeWorkgroupSizeY;
  c.max_workgroup_size_z = l.maxComputeWorkgroupSizeZ;
  c.max_workgroup_storage_bytes = l.maxComputeWorkgroupStorageSize;
  c.max_storage_binding_bytes = l.maxStorageBufferBindingSize;
  c.subgroup_size = ctx.adapter().subgroup_max_size;
  c.shader_f16 = ctx.HasFeature(WGPUFeatureName_ShaderF16);
  c.linear_workgroup_size = std::min<uint32_t>(256, l.maxComputeInvocationsPerWorkgroup);
  const bool cpu = ctx.adapter().type == WGPUAdapterType_CPU;
  c.items_per_invocation = cpu ? 8 : 1;
  c.shared_memory_tiles = !cpu;
  return c;
}

int Graph::Add(std::string op, std::vector<int> inputs, Attributes attributes, int opset, int output_count) {
  Node n;
  n.op = std::move(op);
  n.inputs = std::move(inputs);
  n.attributes = std::move(attributes);
  n.opset = opset;
  n.first_output = num_values;
  n.output_count = output_count;
  num_values += output_count;
  nodes.push_back(std::move(n));
  return nodes.back().first_output;
}

Executor::Executor(wg::Context& ctx, ExecutorOptions options)
    : ctx_(ctx), options_(options), caps_(options.caps ? *options.caps : CapsOf(ctx)), generator_(std::make_unique<WgslGenerator>()) {}

Executor::~Executor() = default;

const ShaderGenerator& Executor::generator() const { return *generator_; }

namespace {

uint64_t DeviceBytes(DType d, uint64_t elements) { return elements * DeviceElementSize(d); }

// Storage is rounded to 16 bytes so any binding may be read as vec4.
uint64_t Rounded(uint64_t bytes) { return std::max<uint64_t>(16, (bytes + 15) & ~uint64_t{15}); }

constexpr const char* kFillWgsl = R"(// alknet-compute: poison fill
@group(0) @binding(0) var<storage, read_write> words: array<u32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let i = gid.x + gid.y * groups.x * 256u;
  if (i < arrayLength(&words)) { words[i] = 0xffffffffu; }
}
)";

}  // namespace

Result<std::shared_ptr<wg::Buffer>> Executor::Acquire(uint64_t bytes) {
  const uint64_t need = Rounded(bytes);
  auto best = pool_.end();
  for (auto it = pool_.begin(); it != pool_.end(); ++it) {
    const uint64_t size = (*it)->size;
    if (size >= need && size <= 2 * need && (best == pool_.end() || size < (*best)->size)) best = it;
  }
  if (best != pool_.end()) {
    auto b = std::move(*best);
    pool_.erase(best);
    ++stats_.buffers_reused;
    return b;
  }
  auto created = ctx_.CreateBuffer(need, wg::kStorageUsage, "alknet-compute tensor");
  if (!created.ok()) return FromWebGpu(created.error());
  ++stats_.buffers_created;
  return std::make_shared<wg::Buffer>(std::move(created).value());
}

void Executor::Release(std::shared_ptr<wg::Buffer> buffer) {
  // Bounded, so a long-lived executor does not hoard memory after one large run.
  if (pool_.size() >= 64) pool_.erase(pool_.begin());
  pool_.push_back(std::move(buffer));
}

Result<Tensor> Executor::Empty(DType dtype, const Shape& shape) {
  if (WgslStorageType(dtype) == nullptr) {
    return Error{ErrorCode::kUnsupported, std::string("dtype ") + DTypeName(dtype) +
                                              " cannot live on the device (use f32, f16, i32, u32 or bool)"};
  }
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  COMPUTE_ASSIGN_OR_RETURN(auto storage, Acquire(DeviceBytes(dtype, n)));
  return Tensor(std::move(storage), dtype, shape);
}

Result<Tensor> Executor::Upload(DType dtype, const Shape& shape, std::span<const std::byte> data) {
  COMPUTE_ASSIGN_OR_RETURN(Tensor t, Empty(dtype, shape));
  const uint64_t host_bytes = t.elements() * (dtype == DType::kBool ? 1 : DeviceElementSize(dtype));
  if (data.size() != host_bytes) {
    return Error{ErrorCode::kInvalidArgument, "upload of " + DescToString(t.desc()) + " needs " +
                                                  std::to_string(host_bytes) + " bytes, got " +
                                                  std::to_string(data.size())};
  }
  wg::Status st = wg::Ok{};
  if (dtype == DType::kBool) {
    std::vector<uint32_t> words(t.elements());
    for (size_t i = 0; i < words.size(); ++i) words[i] = data[i] != std::byte{0} ? 1u : 0u;
    st = ctx_.Write(t.buffer(), 0, std::as_bytes(std::span<const uint32_t>(words)));
  } else {
    st = ctx_.Write(t.buffer(), 0, data);
  }
  if (!st.ok()) return FromWebGpu(st.error());
  return t;
}

Result<Tensor> Executor::Upload(const tensor::TensorView& view) {
  if (WgslStorageType(view.dtype()) == nullptr) {
    return Error{ErrorCode::kUnsupported, "tensor '" + std::string(view.name()) + "' has dtype " +
                                              DTypeName(view.dtype()) +
                                              ", which alknet-compute cannot hold on the device "
                                              "(f32, f16, i32, u32, bool); convert it first"};
  }
  return Upload(view.dtype(), Shape(view.shape().begin(), view.shape().end()), view.data);
}

Result<HostTensor> Executor::Download(const Tensor& in) {
  if (!in.valid()) return Error{ErrorCode::kInvalidArgument, "download of an empty Tensor"};
  Tensor t = in;
  if (!t.contiguous()) {
    COMPUTE_ASSIGN_OR_RETURN(t, Run("Identity", {in}));
  }
  const uint64_t bytes = DeviceBytes(t.dtype(), t.elements());
  std::vector<std::byte> raw((bytes + 3) & ~uint64_t{3});
  if (!raw.empty()) {
    wg::Status st = ctx_.Read(t.buffer(), 0, raw);
    if (!st.ok()) return FromWebGpu(st.error());
  }
  raw.resize(bytes);
  HostTensor h{t.dtype(), t.shape(), {}};
  if (t.dtype() == DType::kBool) {
    h.data.resize(t.elements());
    for (size_t i = 0; i < h.data.size(); ++i) {
      uint32_t w;
      std::memcpy(&w, raw.data() + 4 * i, 4);
      h.data[i] = std::byte{w != 0 ? uint8_t{1} : uint8_t{0}};
    }
  } else {
    h.data = std::move(raw);
  }
  return h;
}

Status Executor::Dispatch(wg::Recorder& rec, const ShaderProgram& program,
                          const std::vector<const wg::Buffer*>& bindings) {
  wg::KernelSpec spec;
  spec.wgsl = program.source;
  spec.entry_point = program.entry_point;
  spec.label = program.label;
  for (const ProgramBinding& b : program.bindings) {
    spec.bindings.push_back(b.access == Access::kRead ? wg::BindingType::kReadOnlyStorage
                                                      : wg::BindingType::kStorage);
  }
  auto kernel = ctx_.GetKernel(spec);
  if (!kernel.ok()) return FromWebGpu(kernel.error());
  std::vector<wg::BufferBinding> bb;
  for (const wg::Buffer* b : bindings) bb.push_back(wg::BufferBinding{b, 0, WGPU_WHOLE_SIZE});
  wg::Status st = rec.Dispatch(**kernel, bb, wg::Grid{program.grid[0], program.grid[1], program.grid[2]});
  if (!st.ok()) return FromWebGpu(st.error());
  ++stats_.dispatches;
  return Ok{};
}

Status Executor::SubmitChecked(wg::Recorder rec) {
  ++stats_.submits;
  wg::Status st = ctx_.Submit(std::move(rec));
  if (!st.ok()) return FromWebGpu(st.error());
  auto uncaptured = ctx_.TakeUncapturedErrors();
  if (!uncaptured.empty()) return FromWebGpu(uncaptured.front());
  if (ctx_.lost()) return Error{ErrorCode::kDevice, "device lost: " + ctx_.lost_message()};
  return Ok{};
}

Result<std::vector<Tensor>> Executor::Run(const Graph& graph, const std::vector<Tensor>& inputs) {
  if (static_cast<int>(inputs.size()) != graph.num_inputs) {
    return Error{ErrorCode::kInvalidArgument, "graph takes " + std::to_string(graph.num_inputs) +
                                                  " inputs, got " + std::to_string(inputs.size())};
  }
  std::vector<Tensor> values(graph.num_values);
  std::vector<int> last_use(graph.num_values, -1);
  for (int i = 0; i < graph.num_inputs; ++i) {
    if (!inputs[i].valid()) return Error{ErrorCode::kInvalidArgument, "graph input " + std::to_string(i) + " is empty"};
    values[i] = inputs[i];
  }
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    for (int v : graph.nodes[k].inputs) {
      if (v < 0 || v >= graph.nodes[k].first_output) {
        return Error{ErrorCode::kInvalidArgument, "node " + std::to_string(k) + " (" + graph.nodes[k].op +
                                                      ") reads value " + std::to_string(v) +
                                                      ", which is not defined before it"};
      }
      last_use[v] = static_cast<int>(k);
    }
  }
  for (int v : graph.outputs) {
    if (v < 0 || v >= graph.num_values) return Error{ErrorCode::kInvalidArgument, "graph output " + std::to_string(v) + " is undefined"};
    last_use[v] = INT_MAX;
  }

  const OpTable& table = OpTable::Default();
  wg::Recorder rec = ctx_.BeginCommands("alknet-compute run");
  auto release = [&](Tensor& t) {
    std::shared_ptr<wg::Buffer> s = t.storage();
    t = Tensor();
    if (s && s.use_count() == 1) Release(std::move(s));
  };
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    const Graph::Node& n = graph.nodes[k];
    const OpRecord* record = table.Find(n.op, n.opset);
    std::vector<Tensor> ins;
    std::vector<Tensor> temps;
    for (int v : n.inputs) {
      Tensor t = values[v];
      if (!t.contiguous() && record != nullptr && !record->accepts_views) {
        // Materialise the view: an Identity copy recorded just before the node.
        OpNode copy{"Identity", n.name + "/contiguous", 17, {}, {t.desc()}, {}};
        COMPUTE_ASSIGN_OR_RETURN(ShaderProgram cp, generator_->Generate(copy, caps_));
        COMPUTE_ASSIGN_OR_RETURN(Tensor c, Empty(t.dtype(), t.shape()));
        COMPUTE_TRY(Dispatch(rec, cp, {&t.buffer(), &c.buffer()}));
        temps.push_back(c);
        t = c;
      }
      ins.push_back(t);
    }
    OpNode node{n.op, n.name, n.opset, n.attributes, {}, {}};
    for (const Tensor& t : ins) node.inputs.push_back(t.desc());
    COMPUTE_ASSIGN_OR_RETURN(ShaderProgram program, generator_->Generate(node, caps_));
    if (static_cast<int>(program.outputs.size()) != n.output_count) {
      return Error{ErrorCode::kInvalidArgument, node.Describe() + ": has " + std::to_string(program.outputs.size()) +
                                                    " outputs, the graph expects " + std::to_string(n.output_count)};
    }
    std::vector<const wg::Buffer*> bindings;
    for (const Tensor& t : ins) bindings.push_back(&t.buffer());
    for (size_t o = 0; o < program.outputs.size(); ++o) {
      COMPUTE_ASSIGN_OR_RETURN(Tensor out, Empty(program.outputs[o].dtype, program.outputs[o].shape));
      if (options_.poison_outputs) {
        ShaderProgram fill;
        fill.source = kFillWgsl;
        fill.label = "poison";
        fill.bindings = {{ProgramBinding::Role::kOutput, 0, Access::kReadWrite}};
        auto grid = ctx_.GridFor(out.buffer().size / 4, 256);
        if (!grid.ok()) return FromWebGpu(grid.error());
        fill.grid = {grid->x, grid->y, grid->z};
        COMPUTE_TRY(Dispatch(rec, fill, {&out.buffer()}));
      }
      values[n.first_output + static_cast<int>(o)] = out;
      bindings.push_back(&values[n.first_output + static_cast<int>(o)].buffer());
    }
    COMPUTE_TRY(Dispatch(rec, program, bindings));
    ins.clear();
    for (Tensor& t : temps) release(t);
    for (int v : n.inputs) {
      if (last_use[v] == static_cast<int>(k) && v >= graph.num_inputs) release(values[v]);
    }
  }
  COMPUTE_TRY(SubmitChecked(std::move(rec)));
  std::vector<Tensor> outs;
  for (int v : graph.outputs) outs.push_back(values[v]);
  return outs;
}

Result<Tensor> Executor::Run(const std::string& op, const std::vector<Tensor>& inputs, Attributes attributes,
                             int opset) {
  Graph g(static_cast<int>(inputs.size()));
  std::vector<int> ids;
  for (int i = 0; i < g.num_inputs; ++i) ids.push_back(i);
  g.outputs = {g.Add(op, ids, std::move(attributes), opset)};
  COMPUTE_ASSIGN_OR_RETURN(std::vector<Tensor> outs, Run(g, inputs));
  return outs[0];
}

}  // namespace alknet::compute
