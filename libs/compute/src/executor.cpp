#include "alknet/compute/executor.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <variant>

#include "alknet/compute/op_table.h"
#include "alknet/compute/passes.h"
#include "alknet/compute/wgsl_generator.h"

namespace alknet::compute {

namespace wg = alknet::webgpu;

Error FromWebGpu(const wg::Error& e) {
  // The layer's limit checks name the limit; keep them recognisable as limits.
  const bool limit =
      e.code == wg::ErrorCode::kInvalidArgument && e.message.find("limit") != std::string::npos;
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
  if (const char* v = std::getenv("ALKNET_MATMUL_VARIANT"); v != nullptr && *v != '\0') {
    c.matmul_variant = v;
  }
  if (const char* v = std::getenv("ALKNET_CONV_VARIANT"); v != nullptr && *v != '\0') {
    c.conv_variant = v;
  }
  const char* tilings = std::getenv("ALKNET_GPU_TILINGS");
  c.unmeasured_gpu_tilings = tilings != nullptr && std::string_view(tilings) == "new";
  return c;
}

int Graph::Add(std::string op, std::vector<int> inputs, Attributes attributes, int opset,
               int output_count) {
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
    : ctx_(ctx),
      options_(options),
      caps_(options.caps ? *options.caps : CapsOf(ctx)),
      generator_(std::make_unique<WgslGenerator>()) {}

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

struct Executor::Pass {
  wg::Recorder rec;
};

// What a run being captured made and dispatched (ADR 0026): every buffer taken from the pool
// or created for it, held so no address is reused while it runs (`constant`: uploaded at record
// time, never returned to the pool during the capture since a replay does not upload it again),
// the uniform blocks bound, and each dispatch with its bindings as buffers.
struct Executor::Capture {
  struct Held {
    std::shared_ptr<wg::Buffer> buffer;
    bool constant = false;
  };
  std::unordered_map<const wg::Buffer*, Held> held;
  std::unordered_map<const wg::Buffer*, std::shared_ptr<wg::Buffer>> params;
  struct Step {
    const wg::Kernel* kernel = nullptr;
    wg::Grid grid;
    std::vector<const wg::Buffer*> bindings;
  };
  std::vector<Step> steps;
};

void Executor::Hold(Capture& capture, const std::shared_ptr<wg::Buffer>& buffer, bool constant) {
  auto [it, inserted] = capture.held.emplace(buffer.get(), Capture::Held{buffer, constant});
  if (!inserted && constant) it->second.constant = true;
}

// A trace: the slots each dispatch binds, the owned buffers, the input layouts it was made for.
struct RecordedGraph::Trace {
  const Executor* owner = nullptr;
  struct Input {
    TensorDesc desc;
    int storage_of = 0;  // the first input sharing this input's storage (itself if none)
  };
  std::vector<Input> inputs;
  struct Slot {
    enum class Kind : uint8_t { kInput, kOutput, kOwned } kind = Kind::kOwned;
    uint32_t index = 0;
  };
  std::vector<std::shared_ptr<wg::Buffer>> owned;
  std::vector<uint64_t> output_sizes;  // buffers made fresh for every run
  struct Step {
    const wg::Kernel* kernel = nullptr;
    wg::Grid grid;
    std::vector<Slot> bindings;
    bool binds_output = false;
    // The bind group made by a replay, reused while the inputs it binds are the same buffers;
    // once they differ the step makes its group per run (user inputs, loop-carried values).
    wg::BindGroup group;
    std::vector<WGPUBuffer> group_inputs;  // handles of its input slots, in binding order
    bool per_run = false;
  };
  std::vector<Step> steps;
  struct Output {
    Slot slot;
    TensorDesc desc;
  };
  std::vector<Output> outputs;
};

RecordedGraph::RecordedGraph() = default;
RecordedGraph::~RecordedGraph() = default;

uint64_t RecordedGraph::owned_bytes() const {
  uint64_t n = 0;
  if (trace_) {
    for (const auto& b : trace_->owned) n += b->size;
  }
  return n;
}

Result<std::shared_ptr<wg::Buffer>> Executor::Acquire(uint64_t bytes) {
  const uint64_t need = Rounded(bytes);
  auto best = pool_.end();
  for (auto it = pool_.begin(); it != pool_.end(); ++it) {
    const uint64_t size = (*it)->size;
    if (size >= need && size <= 2 * need && (best == pool_.end() || size < (*best)->size))
      best = it;
  }
  std::shared_ptr<wg::Buffer> b;
  if (best != pool_.end()) {
    b = std::move(*best);
    pool_.erase(best);
    ++stats_.buffers_reused;
  } else {
    auto created = ctx_.CreateBuffer(need, wg::kStorageUsage, "alknet-compute tensor");
    if (!created.ok()) return FromWebGpu(created.error());
    ++stats_.buffers_created;
    b = std::make_shared<wg::Buffer>(std::move(created).value());
  }
  if (capture_ != nullptr) Hold(*capture_, b, /*constant=*/false);
  return b;
}

void Executor::Release(std::shared_ptr<wg::Buffer> buffer) {
  // Bounded, so a long-lived executor does not hoard memory after one large run.
  if (pool_.size() >= 64) pool_.erase(pool_.begin());
  pool_.push_back(std::move(buffer));
}

Result<Tensor> Executor::Empty(DType dtype, const Shape& shape) {
  if (WgslStorageType(dtype) == nullptr) {
    return Error{ErrorCode::kUnsupported,
                 std::string("dtype ") + DTypeName(dtype) +
                     " cannot live on the device (use f32, f16, i32, u32 or bool)"};
  }
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  ALKNET_ASSIGN_OR_RETURN(auto storage, Acquire(DeviceBytes(dtype, n)));
  return Tensor(std::move(storage), dtype, shape);
}

Result<Tensor> Executor::Upload(DType dtype, const Shape& shape, std::span<const std::byte> data) {
  ALKNET_ASSIGN_OR_RETURN(Tensor t, Empty(dtype, shape));
  const uint64_t host_bytes = t.elements() * (dtype == DType::kBool ? 1 : DeviceElementSize(dtype));
  if (data.size() != host_bytes) {
    return Error{ErrorCode::kInvalidArgument, "upload of " + DescToString(t.desc()) + " needs " +
                                                  std::to_string(host_bytes) + " bytes, got " +
                                                  std::to_string(data.size())};
  }
  unwaited_ = true;
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

namespace {
// IEEE binary32 to binary16, round to nearest even; NaN stays NaN, overflow becomes infinity.
uint16_t HalfOf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u)
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504
  if (abs < 0x38800000u) {  // subnormal or zero in half
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - (abs >> 23) + 14;  // 24 - (exp - 112)
    uint32_t h = mant >> shift;
    const uint32_t rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = ((abs >> 13) - (112u << 10));
  const uint32_t rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

std::vector<std::byte> EncodeHost(const RefTensor& r) {
  std::vector<std::byte> out;
  const size_t size = r.dtype == DType::kBool ? 1 : DeviceElementSize(r.dtype);
  out.resize(r.data.size() * size);
  std::byte* p = out.data();
  for (double v : r.data) {
    switch (r.dtype) {
      case DType::kF32: {
        float f = static_cast<float>(v);
        std::memcpy(p, &f, 4);
        break;
      }
      case DType::kF16: {
        uint16_t h = HalfOf(static_cast<float>(v));
        std::memcpy(p, &h, 2);
        break;
      }
      case DType::kI32: {
        int32_t i = static_cast<int32_t>(v);
        std::memcpy(p, &i, 4);
        break;
      }
      case DType::kU32: {
        uint32_t u = static_cast<uint32_t>(v);
        std::memcpy(p, &u, 4);
        break;
      }
      case DType::kBool: *p = std::byte{v != 0 ? uint8_t{1} : uint8_t{0}}; break;
      default: break;
    }
    p += size;
  }
  return out;
}
}  // namespace

Result<Tensor> Executor::UploadConstant(const RefTensor& value, bool fresh) {
  if (WgslStorageType(value.dtype) == nullptr) {
    return Error{ErrorCode::kUnsupported,
                 std::string("constant of dtype ") + DTypeName(value.dtype) +
                     " cannot live on the device (use f32, f16, i32, u32 or bool)"};
  }
  uint64_t n = 1;
  for (uint64_t d : value.shape) n *= d;
  if (n != value.data.size()) {
    return Error{ErrorCode::kInvalidArgument, "constant " + std::string(DTypeName(value.dtype)) +
                                                  ShapeToString(value.shape) + " holds " +
                                                  std::to_string(value.data.size()) + " values"};
  }
  if (!fresh) return Upload(value.dtype, value.shape, EncodeHost(value));
  auto created = ctx_.CreateBuffer(Rounded(DeviceBytes(value.dtype, n)), wg::kStorageUsage,
                                   "alknet-compute constant");
  if (!created.ok()) return FromWebGpu(created.error());
  ++stats_.buffers_created;
  Tensor t(std::make_shared<wg::Buffer>(std::move(created).value()), value.dtype, value.shape);
  if (capture_ != nullptr) Hold(*capture_, t.storage(), /*constant=*/true);
  std::vector<std::byte> host = EncodeHost(value);
  unwaited_ = true;
  wg::Status st = wg::Ok{};
  if (value.dtype == DType::kBool) {
    std::vector<uint32_t> words(n);
    for (size_t i = 0; i < n; ++i) words[i] = host[i] != std::byte{0} ? 1u : 0u;
    st = ctx_.Write(t.buffer(), 0, std::as_bytes(std::span<const uint32_t>(words)));
  } else if (!host.empty()) {
    st = ctx_.Write(t.buffer(), 0, host);
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

namespace {
// The device bytes of contiguous `t` (whole words) to its host layout.
void ToHostLayout(HostTensor& h, std::vector<std::byte> raw, uint64_t bytes) {
  raw.resize(bytes);
  if (h.dtype == DType::kBool) {
    uint64_t n = 1;
    for (uint64_t d : h.shape) n *= d;
    h.data.resize(n);
    for (size_t i = 0; i < h.data.size(); ++i) {
      uint32_t w;
      std::memcpy(&w, raw.data() + 4 * i, 4);
      h.data[i] = std::byte{w != 0 ? uint8_t{1} : uint8_t{0}};
    }
  } else {
    h.data = std::move(raw);
  }
}
}  // namespace

Result<HostTensor> Executor::Download(const Tensor& in) {
  ALKNET_ASSIGN_OR_RETURN(std::vector<HostTensor> h, Download(std::span<const Tensor>(&in, 1)));
  return std::move(h[0]);
}

Result<std::vector<HostTensor>> Executor::Download(std::span<const Tensor> tensors) {
  std::vector<Tensor> ts;
  ts.reserve(tensors.size());
  for (const Tensor& in : tensors) {
    if (!in.valid()) return Error{ErrorCode::kInvalidArgument, "download of an empty Tensor"};
    if (in.contiguous()) {
      ts.push_back(in);
    } else {
      ALKNET_ASSIGN_OR_RETURN(Tensor t, Run("Identity", {in}));
      ts.push_back(std::move(t));
    }
  }
  std::vector<std::vector<std::byte>> raw(ts.size());
  std::vector<wg::Context::ReadRequest> reads;
  bool copies = false;
  for (size_t i = 0; i < ts.size(); ++i) {
    const uint64_t bytes = DeviceBytes(ts[i].dtype(), ts[i].elements());
    raw[i].resize((bytes + 3) & ~uint64_t{3});
    reads.push_back({&ts[i].buffer(), 0, raw[i]});
    copies = copies || bytes > 0;
  }
  const auto t0 = std::chrono::steady_clock::now();
  wg::Status st = ctx_.ReadMany(reads);
  if (!st.ok()) return FromWebGpu(st.error());
  last_read_ms_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  // A read waits for its copies, which run after everything submitted before them.
  if (copies) unwaited_ = false;
  std::vector<HostTensor> out(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) {
    out[i] = HostTensor{ts[i].dtype(), ts[i].shape(), {}};
    ToHostLayout(out[i], std::move(raw[i]), DeviceBytes(ts[i].dtype(), ts[i].elements()));
  }
  return out;
}

Status Executor::WaitIdle() {
  if (auto idle = ctx_.WaitIdle(); !idle.ok()) return FromWebGpu(idle.error());
  unwaited_ = false;
  return Ok{};
}

Status Executor::SubmitAndRead(wg::Recorder rec, const std::vector<Tensor>& outputs,
                               const ReadBack& read) {
  if (read.outputs.empty()) return SubmitChecked(std::move(rec));
  unwaited_ = true;
  read.host->assign(read.outputs.size(), HostTensor{});
  std::vector<std::vector<std::byte>> raw(read.outputs.size());
  std::vector<wg::Context::ReadRequest> reads;
  std::vector<size_t> later;  // non-contiguous outputs: read after the submit
  bool copies = false;
  for (size_t k = 0; k < read.outputs.size(); ++k) {
    const Tensor& t = outputs[read.outputs[k]];
    if (!t.contiguous()) {
      later.push_back(k);
      continue;
    }
    raw[k].resize((DeviceBytes(t.dtype(), t.elements()) + 3) & ~uint64_t{3});
    reads.push_back({&t.buffer(), 0, raw[k]});
    copies = copies || !raw[k].empty();
  }
  ++stats_.submits;
  const auto t0 = std::chrono::steady_clock::now();
  wg::Status st = ctx_.ReadMany(reads, std::move(rec));
  last_read_ms_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!st.ok()) return FromWebGpu(st.error());
  auto uncaptured = ctx_.TakeUncapturedErrors();
  if (!uncaptured.empty()) return FromWebGpu(uncaptured.front());
  if (ctx_.lost()) return Error{ErrorCode::kDevice, "device lost: " + ctx_.lost_message()};
  if (copies) unwaited_ = false;
  for (size_t k = 0; k < read.outputs.size(); ++k) {
    const Tensor& t = outputs[read.outputs[k]];
    HostTensor& h = (*read.host)[k];
    if (!t.contiguous()) continue;
    h = HostTensor{t.dtype(), t.shape(), {}};
    ToHostLayout(h, std::move(raw[k]), DeviceBytes(t.dtype(), t.elements()));
  }
  for (size_t k : later) {
    const double ms = last_read_ms_;
    ALKNET_ASSIGN_OR_RETURN((*read.host)[k], Download(outputs[read.outputs[k]]));
    last_read_ms_ += ms;
  }
  return Ok{};
}

// Uniform blocks by contents: a buffer is written once and never changed, so dispatches
// recorded earlier in the same command buffer keep seeing their own values, and a plan run
// again binds the same buffers.
Result<std::shared_ptr<wg::Buffer>> Executor::ParamsBuffer(const std::vector<uint32_t>& words) {
  std::string key(reinterpret_cast<const char*>(words.data()), words.size() * 4);
  if (auto it = params_buffers_.find(key); it != params_buffers_.end()) return it->second;
  // Bounded; a bind group keeps its buffers alive, so dropping ours is safe mid-recording.
  if (params_buffers_.size() >= 4096) params_buffers_.clear();
  std::vector<uint32_t> padded = words;
  padded.resize(std::max<size_t>(4, (words.size() + 3) & ~size_t{3}), 0);
  auto created =
      ctx_.CreateBuffer(padded.size() * 4, WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst,
                        "alknet-compute params");
  if (!created.ok()) return FromWebGpu(created.error());
  unwaited_ = true;
  wg::Status st = ctx_.Write(*created, 0, std::as_bytes(std::span<const uint32_t>(padded)));
  if (!st.ok()) return FromWebGpu(st.error());
  auto buffer = std::make_shared<wg::Buffer>(std::move(created).value());
  params_buffers_.emplace(std::move(key), buffer);
  ++stats_.param_blocks;
  return buffer;
}

Status Executor::Dispatch(wg::Recorder& rec, const ShaderProgram& program,
                          const std::vector<const wg::Buffer*>& bindings) {
  wg::KernelSpec spec;
  spec.wgsl = program.source;
  spec.entry_point = program.entry_point;
  spec.label = program.label;
  std::vector<wg::BufferBinding> bb;
  size_t next = 0;
  for (const ProgramBinding& b : program.bindings) {
    if (b.role == ProgramBinding::Role::kParams) {
      spec.bindings.push_back(wg::BindingType::kUniform);
      if (program.params.empty()) {
        return Error{ErrorCode::kInvalidArgument,
                     program.label + ": binds a parameter block but has none"};
      }
      ALKNET_ASSIGN_OR_RETURN(std::shared_ptr<wg::Buffer> params, ParamsBuffer(program.params));
      bb.push_back(wg::BufferBinding{params.get(), 0, WGPU_WHOLE_SIZE});
      if (capture_ != nullptr) capture_->params.emplace(params.get(), params);
      continue;
    }
    spec.bindings.push_back(b.access == Access::kRead ? wg::BindingType::kReadOnlyStorage
                                                      : wg::BindingType::kStorage);
    if (next >= bindings.size()) {
      return Error{
          ErrorCode::kInvalidArgument,
          program.label + ": " + std::to_string(bindings.size()) + " buffers for more bindings"};
    }
    bb.push_back(wg::BufferBinding{bindings[next++], 0, WGPU_WHOLE_SIZE});
  }
  if (next != bindings.size()) {
    return Error{ErrorCode::kInvalidArgument,
                 program.label + ": " + std::to_string(bindings.size()) + " buffers for " +
                     std::to_string(next) + " storage bindings"};
  }
  // ALKNET_PIPELINE_LOG=1: one stderr line per compiled pipeline (label, wall ms), the
  // compile side of a first-run profile (bench/onnx/det_first_run sums them by kind).
  static const bool log_compiles = [] {
    const char* v = std::getenv("ALKNET_PIPELINE_LOG");
    return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
  }();
  const size_t compiled_before = log_compiles ? ctx_.cached_kernel_count() : 0;
  const auto compile_start = std::chrono::steady_clock::now();
  auto kernel = ctx_.GetKernel(spec);
  if (log_compiles && ctx_.cached_kernel_count() != compiled_before) {
    // The source's FNV-1a hash tells which pipelines two processes share (alknet warmup's
    // set against a model's).
    uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char ch : spec.wgsl) h = (h ^ ch) * 0x100000001b3ULL;
    std::fprintf(
        stderr, "alknet pipeline: %s wgsl:%016llx %.1f ms\n", spec.label.c_str(),
        static_cast<unsigned long long>(h),
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - compile_start)
            .count());
  }
  if (!kernel.ok()) return FromWebGpu(kernel.error());
  const wg::Grid grid{program.grid[0], program.grid[1], program.grid[2]};
  wg::Status st = rec.Dispatch(**kernel, bb, grid);
  if (!st.ok()) return FromWebGpu(st.error());
  ++stats_.dispatches;
  if (capture_ != nullptr) {
    Capture::Step step{*kernel, grid, {}};
    for (const wg::BufferBinding& b : bb) step.bindings.push_back(b.buffer);
    capture_->steps.push_back(std::move(step));
  }
  return Ok{};
}

Status Executor::SubmitChecked(wg::Recorder rec) {
  ++stats_.submits;
  unwaited_ = true;
  wg::Status st = ctx_.Submit(std::move(rec));
  if (!st.ok()) return FromWebGpu(st.error());
  auto uncaptured = ctx_.TakeUncapturedErrors();
  if (!uncaptured.empty()) return FromWebGpu(uncaptured.front());
  if (ctx_.lost()) return Error{ErrorCode::kDevice, "device lost: " + ctx_.lost_message()};
  return Ok{};
}

namespace {
constexpr int kMaxDecompositionDepth = 8;
constexpr size_t kMaxCachedPrograms = 4096;

template <typename T>
void AppendRaw(std::string& k, const T& v) {
  k.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// Known values by identity: the cache entry keeps them alive (ProgramKey's `pins`), so no
// other value can take the same address while the entry exists. Hashing the contents instead
// would read every weight of a model on every run.
void AppendValue(std::string& k, const ConstValue& v, std::vector<ConstValue>* pins) {
  const void* p = v.get();
  AppendRaw(k, p);
  if (v) pins->push_back(v);
}

// Everything the generator reads from a node, exactly (numbers as raw bytes, known values by
// identity): two nodes with the same key get the same program. The caps are the executor's
// own, fixed for its life.
std::string ProgramKey(const OpNode& node, std::vector<ConstValue>* pins) {
  std::string k;
  k.reserve(256);
  k += node.op_type;
  k += '\0';
  k += node.name;
  k += '\0';
  AppendRaw(k, node.opset);
  for (const auto& [name, value] : node.attributes) {
    k += name;
    k += '=';
    AppendRaw(k, value.index());
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, int64_t> || std::is_same_v<V, double>) {
            AppendRaw(k, v);
          } else if constexpr (std::is_same_v<V, std::string>) {
            AppendRaw(k, v.size());
            k += v;
          } else if constexpr (std::is_same_v<V, ConstValue>) {
            AppendValue(k, v, pins);
          } else {
            AppendRaw(k, v.size());
            for (const auto& e : v) AppendRaw(k, e);
          }
        },
        value);
  }
  for (const TensorDesc& d : node.inputs) {
    k += d.absent ? 'a' : 'i';
    AppendRaw(k, d.dtype);
    AppendRaw(k, d.offset);
    AppendRaw(k, d.shape.size());
    for (uint64_t s : d.shape) AppendRaw(k, s);
    for (int64_t s : d.EffectiveStrides()) AppendRaw(k, s);
  }
  for (const ConstValue& v : node.input_values) AppendValue(k, v, pins);
  return k;
}

Result<std::vector<int>> LastUses(const Graph& graph) {
  std::vector<int> last_use(graph.num_values, -1);
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    const Graph::Node& n = graph.nodes[k];
    if (!n.input_values.empty() && n.input_values.size() != n.inputs.size()) {
      return Error{ErrorCode::kInvalidArgument,
                   "node " + std::to_string(k) + " (" + n.op + ") has " +
                       std::to_string(n.input_values.size()) + " input values for " +
                       std::to_string(n.inputs.size()) + " inputs"};
    }
    for (int v : n.inputs) {
      if (v == Graph::kAbsent) continue;
      if (v < 0 || v >= n.first_output) {
        return Error{ErrorCode::kInvalidArgument, "node " + std::to_string(k) + " (" + n.op +
                                                      ") reads value " + std::to_string(v) +
                                                      ", which is not defined before it"};
      }
      last_use[v] = static_cast<int>(k);
    }
  }
  for (int v : graph.outputs) {
    if (v < 0 || v >= graph.num_values) {
      return Error{ErrorCode::kInvalidArgument,
                   "graph output " + std::to_string(v) + " is undefined"};
    }
    last_use[v] = INT_MAX;
  }
  return last_use;
}
}  // namespace

Result<Tensor> Executor::Contiguous(Pass& pass, const Tensor& t, const std::string& label) {
  OpNode copy{"Identity", label + "/contiguous", 17, {}, {t.desc()}, {}};
  ALKNET_ASSIGN_OR_RETURN(ShaderProgram cp, generator_->Generate(copy, caps_));
  ALKNET_ASSIGN_OR_RETURN(Tensor c, Empty(t.dtype(), t.shape()));
  ALKNET_TRY(Dispatch(pass.rec, cp, {&t.buffer(), &c.buffer()}));
  return c;
}

Result<std::vector<Tensor>> Executor::Record(Pass& pass, const Graph& graph,
                                             const std::vector<Tensor>& inputs,
                                             const std::vector<ConstValue>& known_inputs,
                                             int depth) {
  if (static_cast<int>(inputs.size()) != graph.num_inputs) {
    return Error{ErrorCode::kInvalidArgument, "graph takes " + std::to_string(graph.num_inputs) +
                                                  " inputs, got " + std::to_string(inputs.size())};
  }
  ALKNET_ASSIGN_OR_RETURN(std::vector<int> last_use, LastUses(graph));
  std::vector<Tensor> values(graph.num_values);
  std::vector<ConstValue> known(graph.num_values);
  for (int i = 0; i < graph.num_inputs; ++i) {
    values[i] = inputs[i];
    if (static_cast<size_t>(i) < known_inputs.size()) known[i] = known_inputs[i];
  }

  const OpTable& table = OpTable::Default();
  auto release = [&](Tensor& t) {
    std::shared_ptr<wg::Buffer> s = t.storage();
    t = Tensor();
    if (!s) return;
    long holders = 1;  // `s`; a capture holds every buffer of its run as well
    if (capture_ != nullptr) {
      if (auto it = capture_->held.find(s.get()); it != capture_->held.end()) {
        if (it->second.constant) return;
        holders = 2;
      }
    }
    if (s.use_count() == holders) Release(std::move(s));
  };
  const bool profiling = profile_ != nullptr && depth == 0;
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    const Graph::Node& n = graph.nodes[k];
    const OpRecord* record = table.Find(n.op, n.opset);
    OpNode node{n.op, n.name, n.opset, n.attributes, {}, {}};
    const auto node_start = std::chrono::steady_clock::now();
    const uint64_t node_dispatches = stats_.dispatches;
    std::vector<Tensor> ins(n.inputs.size());
    std::vector<Tensor> temps;  // contiguous copies made for this node
    node.input_values.resize(n.inputs.size());
    // How many outputs the graph wants (Split without sizes, Dropout's mask, MaxPool's Indices).
    RequestOutputs(node, record, n.output_count);
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const int v = n.inputs[i];
      ConstValue value = i < n.input_values.size() && n.input_values[i] ? n.input_values[i]
                         : v >= 0                                       ? known[v]
                                                                        : nullptr;
      node.input_values[i] = value;
      if (v >= 0 && !values[v].valid()) {
        return Error{ErrorCode::kInvalidArgument, "node " + std::to_string(k) + " (" + n.op +
                                                      ") reads value " + std::to_string(v) +
                                                      ", which holds no tensor"};
      }
      TensorDesc d;
      if (v >= 0) {
        d = values[v].desc();
        ins[i] = values[v];
      } else if (value) {
        d = TensorDesc{value->dtype, value->shape};
        if (record != nullptr && !record->is_host_input(i)) {
          // A known value the kernel reads (a decomposition's constant): a fresh buffer, since
          // a pooled one may still be read by a dispatch recorded earlier in this pass.
          ALKNET_ASSIGN_OR_RETURN(Tensor c, UploadConstant(*value, /*fresh=*/true));
          temps.push_back(c);
          ins[i] = c;
        }
      } else {
        d.absent = true;
      }
      const bool host = record != nullptr && record->is_host_input(i);
      if (v >= 0 && !host && !d.absent && !ins[i].contiguous() && record != nullptr &&
          !record->accepts_views) {
        ALKNET_ASSIGN_OR_RETURN(Tensor c, Contiguous(pass, ins[i], n.name));
        temps.push_back(c);
        ins[i] = c;
        d = c.desc();
      }
      node.inputs.push_back(d);
    }
    // A record may produce optional trailing outputs the graph does not use (ONNX lets a node
    // list fewer outputs): they are computed and dropped.
    auto store = [&](size_t o, Tensor t) {
      if (static_cast<int>(o) < n.output_count)
        values[n.first_output + static_cast<int>(o)] = std::move(t);
    };
    auto check_count = [&](size_t got) -> Status {
      if (static_cast<int>(got) >= n.output_count) return Ok{};
      return Error{ErrorCode::kInvalidArgument, node.Describe() + ": has " + std::to_string(got) +
                                                    " outputs, the graph expects " +
                                                    std::to_string(n.output_count)};
    };

    if (record != nullptr && (record->view || record->decompose)) {
      ALKNET_ASSIGN_OR_RETURN(std::vector<TensorDesc> outs, table.Infer(node));
      ALKNET_ASSIGN_OR_RETURN(Attributes attrs, table.ResolveAttributes(*record, node));
      node.outputs = outs;
      ALKNET_TRY(check_count(outs.size()));
      if (record->view) {
        if (!ins[0].valid()) {
          return Error{ErrorCode::kInvalidArgument,
                       node.Describe() + ": input 0 of a view op must be on the device"};
        }
        ALKNET_ASSIGN_OR_RETURN(TensorDesc layout, record->view(node, attrs));
        store(0, Tensor(ins[0].storage(), layout));
      } else {
        if (depth >= kMaxDecompositionDepth) {
          return Error{ErrorCode::kInvalidArgument, node.Describe() +
                                                        ": decompositions nest deeper than " +
                                                        std::to_string(kMaxDecompositionDepth)};
        }
        ALKNET_ASSIGN_OR_RETURN(Graph sub, record->decompose(node, attrs));
        ALKNET_ASSIGN_OR_RETURN(std::vector<Tensor> outs_t,
                                Record(pass, sub, ins, node.input_values, depth + 1));
        ALKNET_TRY(check_count(outs_t.size()));
        for (size_t o = 0; o < outs_t.size(); ++o) store(o, outs_t[o]);
      }
    } else {
      // Outputs with no elements need no kernel (and index math over a zero extent would not
      // compile): empty tensors of the inferred shapes.
      ALKNET_ASSIGN_OR_RETURN(std::vector<TensorDesc> inferred, table.Infer(node));
      bool all_empty = !inferred.empty();
      for (const TensorDesc& d : inferred) all_empty = all_empty && d.elements() == 0;
      std::optional<Graph> special;
      if (!all_empty && record != nullptr && record->specialize) {
        ALKNET_ASSIGN_OR_RETURN(Attributes attrs, table.ResolveAttributes(*record, node));
        node.outputs = inferred;
        special = record->specialize(node, attrs, caps_);
      }
      if (all_empty) {
        ALKNET_TRY(check_count(inferred.size()));
        for (size_t o = 0; o < inferred.size(); ++o) {
          ALKNET_ASSIGN_OR_RETURN(Tensor e, Empty(inferred[o].dtype, inferred[o].shape));
          store(o, e);
        }
      } else if (special) {
        if (depth >= kMaxDecompositionDepth) {
          return Error{ErrorCode::kInvalidArgument, node.Describe() +
                                                        ": decompositions nest deeper than " +
                                                        std::to_string(kMaxDecompositionDepth)};
        }
        ALKNET_ASSIGN_OR_RETURN(std::vector<Tensor> outs_t,
                                Record(pass, *special, ins, node.input_values, depth + 1));
        ALKNET_TRY(check_count(outs_t.size()));
        for (size_t o = 0; o < outs_t.size(); ++o) store(o, outs_t[o]);
      } else {
        std::vector<ConstValue> pins;
        const std::string key = ProgramKey(node, &pins);
        std::shared_ptr<const ShaderProgram> cached;
        if (auto it = programs_.find(key); it != programs_.end()) {
          cached = it->second.program;
          ++stats_.programs_reused;
        } else {
          ALKNET_ASSIGN_OR_RETURN(ShaderProgram generated, generator_->Generate(node, caps_));
          ++stats_.programs_generated;
          if (programs_.size() >= kMaxCachedPrograms) programs_.clear();
          cached = std::make_shared<const ShaderProgram>(std::move(generated));
          programs_.emplace(key, CachedProgram{cached, std::move(pins)});
        }
        const ShaderProgram& program = *cached;
        ALKNET_TRY(check_count(program.outputs.size()));
        std::vector<Tensor> outs;
        for (size_t o = 0; o < program.outputs.size(); ++o) {
          ALKNET_ASSIGN_OR_RETURN(Tensor out,
                                  Empty(program.outputs[o].dtype, program.outputs[o].shape));
          if (options_.poison_outputs) {
            ShaderProgram fill;
            fill.source = kFillWgsl;
            fill.label = "poison";
            fill.bindings = {{ProgramBinding::Role::kOutput, 0, Access::kReadWrite}};
            auto grid = ctx_.GridFor(out.buffer().size / 4, 256);
            if (!grid.ok()) return FromWebGpu(grid.error());
            fill.grid = {grid->x, grid->y, grid->z};
            ALKNET_TRY(Dispatch(pass.rec, fill, {&out.buffer()}));
          }
          outs.push_back(out);
        }
        std::vector<const wg::Buffer*> bindings;
        for (const ProgramBinding& b : program.bindings) {
          if (b.role == ProgramBinding::Role::kInput) {
            if (b.index >= ins.size() || !ins[b.index].valid()) {
              return Error{ErrorCode::kInvalidArgument, node.Describe() + ": input " +
                                                            std::to_string(b.index) +
                                                            " is bound but not on the device"};
            }
            bindings.push_back(&ins[b.index].buffer());
          } else if (b.role == ProgramBinding::Role::kOutput) {
            bindings.push_back(&outs.at(b.index).buffer());
          } else if (b.role == ProgramBinding::Role::kParams) {
            continue;  // Dispatch binds the program's uniform block
          } else {
            return Error{ErrorCode::kInvalidArgument,
                         node.Describe() + ": scratch bindings are not supported"};
          }
        }
        ALKNET_TRY(Dispatch(pass.rec, program, bindings));
        for (size_t o = 0; o < outs.size(); ++o) store(o, outs[o]);
      }
    }
    if (profiling) {
      ALKNET_TRY(SubmitChecked(std::move(pass.rec)));
      if (auto idle = ctx_.WaitIdle(); !idle.ok()) return FromWebGpu(idle.error());
      NodeProfile np;
      np.op = n.op;
      np.name = n.name;
      const int first = n.first_output;
      if (first < static_cast<int>(values.size()) && values[first].valid()) {
        np.output =
            std::string(DTypeName(values[first].dtype())) + ShapeToString(values[first].shape());
      }
      np.dispatches = stats_.dispatches - node_dispatches;
      np.ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - node_start)
              .count();
      profile_->nodes.push_back(std::move(np));
      pass.rec = ctx_.BeginCommands("alknet-compute run");
    }
    ins.clear();
    for (Tensor& t : temps) release(t);
    for (int v : n.inputs) {
      if (v >= graph.num_inputs && last_use[v] == static_cast<int>(k)) release(values[v]);
    }
  }
  std::vector<Tensor> outs;
  for (int v : graph.outputs) outs.push_back(values[v]);
  return outs;
}

Result<std::vector<Tensor>> Executor::Run(const Graph& graph, const std::vector<Tensor>& inputs) {
  return Run(graph, inputs, nullptr);
}

Result<std::vector<Tensor>> Executor::Run(const Graph& graph, const std::vector<Tensor>& inputs,
                                          RecordedGraph* recorded) {
  return Run(graph, inputs, recorded, {}, nullptr);
}

Result<std::vector<Tensor>> Executor::Run(const Graph& graph, const std::vector<Tensor>& inputs,
                                          RecordedGraph* recorded, std::span<const size_t> read,
                                          std::vector<HostTensor>* host) {
  for (size_t o : read) {
    if (o >= graph.outputs.size() || host == nullptr) {
      return Error{ErrorCode::kInvalidArgument,
                   "read of graph output " + std::to_string(o) + " of " +
                       std::to_string(graph.outputs.size()) +
                       (host == nullptr ? " without a host vector" : "")};
    }
  }
  const ReadBack rb{read, host};
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].valid())
      return Error{ErrorCode::kInvalidArgument, "graph input " + std::to_string(i) + " is empty"};
  }
  // Profiled runs submit node by node and poisoned runs fill their outputs first: both record.
  if (recorded == nullptr || profile_ != nullptr || options_.poison_outputs) {
    return RunRecording(graph, inputs, nullptr, rb);
  }
  if (recorded->trace_ && recorded->trace_->owner == this &&
      TraceMatches(*recorded->trace_, inputs)) {
    ALKNET_ASSIGN_OR_RETURN(std::vector<Tensor> outs, Replay(*recorded->trace_, inputs, rb));
    ++recorded->replays_;
    ++stats_.runs_replayed;
    return outs;
  }
  // Record and capture anew; the old trace (and its buffers) goes.
  recorded->trace_.reset();
  Capture capture;
  ALKNET_ASSIGN_OR_RETURN(std::vector<Tensor> outs, RunRecording(graph, inputs, &capture, rb));
  ++recorded->captures_;
  ++stats_.runs_captured;
  auto trace = FinishCapture(capture, inputs, outs);
  if (trace.ok()) {
    recorded->trace_ = std::move(trace).value();
    recorded->refused_.clear();
  } else {
    recorded->refused_ = trace.error().message;
  }
  return outs;
}

bool Executor::TraceMatches(const RecordedGraph::Trace& trace, const std::vector<Tensor>& inputs) {
  if (inputs.size() != trace.inputs.size()) return false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorDesc& a = inputs[i].desc();
    const TensorDesc& b = trace.inputs[i].desc;
    if (a.dtype != b.dtype || a.offset != b.offset || a.shape != b.shape ||
        a.strides != b.strides || a.absent != b.absent) {
      return false;
    }
    // The same storage sharing: a slot names the first input of a shared buffer.
    const int first = trace.inputs[i].storage_of;
    if (first != static_cast<int>(i)) {
      if (inputs[static_cast<size_t>(first)].storage() != inputs[i].storage()) return false;
    }
  }
  // No input may share storage where the trace had distinct buffers.
  if (inputs.size() <= 16) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (trace.inputs[i].storage_of != static_cast<int>(i)) continue;
      for (size_t j = 0; j < i; ++j) {
        if (inputs[j].storage() == inputs[i].storage()) return false;
      }
    }
  } else {
    std::unordered_map<const wg::Buffer*, size_t> first;
    first.reserve(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto [it, inserted] = first.emplace(inputs[i].storage().get(), i);
      if (inserted != (trace.inputs[i].storage_of == static_cast<int>(i))) return false;
    }
  }
  return true;
}

Result<std::unique_ptr<RecordedGraph::Trace>> Executor::FinishCapture(
    Capture& capture, const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs) {
  using Slot = RecordedGraph::Trace::Slot;
  auto trace = std::make_unique<RecordedGraph::Trace>();
  trace->owner = this;
  std::unordered_map<const wg::Buffer*, int> input_of;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto [it, inserted] = input_of.emplace(inputs[i].storage().get(), static_cast<int>(i));
    trace->inputs.push_back({inputs[i].desc(), it->second});
  }
  // Buffers made for the run: those the outputs live in are made fresh for every replay (the
  // caller keeps them), the rest the trace owns.
  std::unordered_map<const wg::Buffer*, Slot> slots;
  for (const Tensor& t : outputs) {
    const wg::Buffer* b = t.storage().get();
    if (slots.count(b) != 0 || input_of.count(b) != 0) continue;
    auto it = capture.held.find(b);
    if (it == capture.held.end()) {
      return Error{ErrorCode::kUnsupported,
                   "a graph output lives in a buffer the run neither made nor received"};
    }
    if (it->second.constant) {
      return Error{ErrorCode::kUnsupported,
                   "a graph output is a constant uploaded while recording (not replayed)"};
    }
    slots[b] = Slot{Slot::Kind::kOutput, static_cast<uint32_t>(trace->output_sizes.size())};
    trace->output_sizes.push_back(b->size);
  }
  auto owned = [&](const std::shared_ptr<wg::Buffer>& buffer) {
    auto [it, inserted] = slots.emplace(
        buffer.get(), Slot{Slot::Kind::kOwned, static_cast<uint32_t>(trace->owned.size())});
    if (inserted) trace->owned.push_back(buffer);
    return it->second;
  };
  for (const Capture::Step& cs : capture.steps) {
    RecordedGraph::Trace::Step step;
    step.kernel = cs.kernel;
    step.grid = cs.grid;
    for (const wg::Buffer* b : cs.bindings) {
      Slot slot;
      if (auto s = slots.find(b); s != slots.end()) {
        slot = s->second;
      } else if (auto in = input_of.find(b); in != input_of.end()) {
        slot = Slot{Slot::Kind::kInput, static_cast<uint32_t>(in->second)};
      } else if (auto h = capture.held.find(b); h != capture.held.end()) {
        slot = owned(h->second.buffer);
      } else if (auto p = capture.params.find(b); p != capture.params.end()) {
        slot = owned(p->second);
      } else {
        return Error{ErrorCode::kUnsupported,
                     "a dispatch binds a buffer the run neither made nor received"};
      }
      step.binds_output = step.binds_output || slot.kind == Slot::Kind::kOutput;
      step.bindings.push_back(slot);
    }
    trace->steps.push_back(std::move(step));
  }
  for (const Tensor& t : outputs) {
    const wg::Buffer* b = t.storage().get();
    Slot slot;
    if (auto s = slots.find(b); s != slots.end() && s->second.kind == Slot::Kind::kOutput) {
      slot = s->second;
    } else {
      slot = Slot{Slot::Kind::kInput, static_cast<uint32_t>(input_of.at(b))};
    }
    trace->outputs.push_back({slot, t.desc()});
  }
  // Owned buffers leave the pool: no later run may take them.
  std::erase_if(pool_, [&](const std::shared_ptr<wg::Buffer>& b) {
    auto s = slots.find(b.get());
    return s != slots.end() && s->second.kind == Slot::Kind::kOwned;
  });
  // Buffers the run made but no dispatch binds (an unused output's storage, say) are dropped.
  return trace;
}

Result<std::vector<Tensor>> Executor::Replay(RecordedGraph::Trace& trace,
                                             const std::vector<Tensor>& inputs,
                                             const ReadBack& read) {
  using Slot = RecordedGraph::Trace::Slot;
  std::vector<std::shared_ptr<wg::Buffer>> fresh(trace.output_sizes.size());
  for (size_t o = 0; o < fresh.size(); ++o) {
    ALKNET_ASSIGN_OR_RETURN(fresh[o], Acquire(trace.output_sizes[o]));
  }
  auto buffer_of = [&](Slot s) -> const wg::Buffer* {
    switch (s.kind) {
      case Slot::Kind::kInput: return &inputs[s.index].buffer();
      case Slot::Kind::kOutput: return fresh[s.index].get();
      case Slot::Kind::kOwned: return trace.owned[s.index].get();
    }
    return nullptr;
  };
  wg::Recorder rec = ctx_.BeginCommands("alknet-compute replay");
  std::vector<wg::BufferBinding> bb;
  for (RecordedGraph::Trace::Step& step : trace.steps) {
    if (step.group && !step.per_run) {
      bool same = true;
      size_t k = 0;
      for (const Slot& s : step.bindings) {
        if (s.kind != Slot::Kind::kInput) continue;
        same = same && inputs[s.index].buffer().handle.get() == step.group_inputs[k];
        ++k;
      }
      if (same) {
        rec.Dispatch(*step.kernel, step.group, step.grid);
        ++stats_.bind_groups_reused;
        continue;
      }
      // Its inputs changed: from now on this step's group is made per run.
      step.group = wg::BindGroup();
      step.group_inputs.clear();
      step.per_run = true;
    }
    bb.clear();
    for (const Slot& s : step.bindings)
      bb.push_back(wg::BufferBinding{buffer_of(s), 0, WGPU_WHOLE_SIZE});
    auto group = ctx_.CreateBindGroup(*step.kernel, bb);
    if (!group.ok()) return FromWebGpu(group.error());
    if (!step.binds_output && !step.per_run) {
      step.group = *group;
      for (const Slot& s : step.bindings) {
        if (s.kind == Slot::Kind::kInput)
          step.group_inputs.push_back(inputs[s.index].buffer().handle.get());
      }
    }
    rec.Dispatch(*step.kernel, std::move(group).value(), step.grid);
  }
  stats_.dispatches += trace.steps.size();
  std::vector<Tensor> outs;
  outs.reserve(trace.outputs.size());
  for (const auto& o : trace.outputs) {
    std::shared_ptr<wg::Buffer> storage =
        o.slot.kind == Slot::Kind::kOutput ? fresh[o.slot.index] : inputs[o.slot.index].storage();
    outs.emplace_back(std::move(storage), o.desc);
  }
  ALKNET_TRY(SubmitAndRead(std::move(rec), outs, read));
  return outs;
}

Result<std::vector<Tensor>> Executor::RunRecording(const Graph& graph,
                                                   const std::vector<Tensor>& inputs,
                                                   Capture* capture, const ReadBack& read) {
  if (profile_ != nullptr) {
    // The floor under every node's time: an empty submit and the wait for it.
    *profile_ = RunProfile{};
    if (auto idle = ctx_.WaitIdle(); !idle.ok()) return FromWebGpu(idle.error());
    const auto t0 = std::chrono::steady_clock::now();
    ALKNET_TRY(SubmitChecked(ctx_.BeginCommands("alknet-compute profile floor")));
    if (auto idle = ctx_.WaitIdle(); !idle.ok()) return FromWebGpu(idle.error());
    profile_->sync_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  // Only the top-level graph: decompositions and device plans are the records' own.
  std::optional<Graph> rewritten;
  if (options_.run_passes && !graph.passes_applied && graph.nodes.size() > 1) {
    std::vector<TensorDesc> descs;
    for (const Tensor& t : inputs) descs.push_back(t.desc());
    rewritten = graph;
    stats_.graph_rewrites += static_cast<uint64_t>(RunPasses(*rewritten, descs).rewrites);
  }
  Pass pass{ctx_.BeginCommands("alknet-compute run")};
  capture_ = capture;
  auto recorded = Record(pass, rewritten ? *rewritten : graph, inputs, {}, 0);
  capture_ = nullptr;
  if (!recorded.ok()) return std::move(recorded).error();
  std::vector<Tensor> outs = std::move(recorded).value();
  ALKNET_TRY(SubmitAndRead(std::move(pass.rec), outs, read));
  return outs;
}

Result<Tensor> Executor::Run(const std::string& op, const std::vector<Tensor>& inputs,
                             Attributes attributes, int opset) {
  Graph g(static_cast<int>(inputs.size()));
  std::vector<int> ids;
  for (int i = 0; i < g.num_inputs; ++i) ids.push_back(i);
  g.outputs = {g.Add(op, ids, std::move(attributes), opset)};
  ALKNET_ASSIGN_OR_RETURN(std::vector<Tensor> outs, Run(g, inputs));
  return outs[0];
}

}  // namespace alknet::compute
