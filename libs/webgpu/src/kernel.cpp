// Shader compilation with diagnostics, and the compute pipeline cache.
#include <string>

#include "alknet/webgpu/context.h"

namespace alknet::webgpu {

namespace {

struct CompilationResult {
  WGPUCompilationInfoRequestStatus status = WGPUCompilationInfoRequestStatus_CallbackCancelled;
  std::string errors;
  size_t error_count = 0;
  std::string_view source;
  std::string_view label;
};

std::string_view LineOf(std::string_view source, uint64_t line_num) {
  size_t start = 0;
  for (uint64_t l = 1; l < line_num; ++l) {
    const size_t nl = source.find('\n', start);
    if (nl == std::string_view::npos) return {};
    start = nl + 1;
  }
  const size_t end = source.find('\n', start);
  return source.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
}

void OnCompilationInfo(WGPUCompilationInfoRequestStatus status, const WGPUCompilationInfo* info,
                       void* u1, void*) {
  auto* r = static_cast<CompilationResult*>(u1);
  r->status = status;
  if (info == nullptr) return;
  for (size_t i = 0; i < info->messageCount; ++i) {
    const WGPUCompilationMessage& m = info->messages[i];
    if (m.type != WGPUCompilationMessageType_Error) continue;
    ++r->error_count;
    // label:line:col: error: message, then the line and a caret, like a compiler.
    r->errors += std::string(r->label) + ":" + std::to_string(m.lineNum) + ":" +
                 std::to_string(m.linePos) + ": error: " + std::string(FromSv(m.message)) + "\n";
    if (m.lineNum > 0) {
      const std::string_view line = LineOf(r->source, m.lineNum);
      r->errors += "    " + std::string(line) + "\n    ";
      r->errors += std::string(m.linePos > 0 ? m.linePos - 1 : 0, ' ') + "^\n";
    }
  }
}

// FNV-1a, 64-bit: a cheap, stable hash for cache keys (collisions are checked).
uint64_t Fnv1a(uint64_t h, std::string_view s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string LayoutSignature(const std::vector<BindingType>& bindings) {
  if (bindings.empty()) return "auto";
  std::string sig;
  for (BindingType b : bindings) {
    sig += b == BindingType::kStorage ? 's' : b == BindingType::kReadOnlyStorage ? 'r' : 'u';
  }
  return sig;
}

WGPUBufferBindingType ToWgpu(BindingType b) {
  switch (b) {
    case BindingType::kStorage: return WGPUBufferBindingType_Storage;
    case BindingType::kReadOnlyStorage: return WGPUBufferBindingType_ReadOnlyStorage;
    case BindingType::kUniform: return WGPUBufferBindingType_Uniform;
  }
  return WGPUBufferBindingType_Storage;
}

}  // namespace

Result<ShaderModule> Context::CompileWgsl(std::string_view source, std::string_view label) {
  ALKNET_TRY(CheckLost());
  WGPUShaderSourceWGSL wgsl{};
  wgsl.chain.sType = WGPUSType_ShaderSourceWGSL;
  wgsl.code = Sv(source);
  WGPUShaderModuleDescriptor desc{};
  desc.nextInChain = &wgsl.chain;
  desc.label = Sv(label);
  PushErrorScopes();
  ShaderModule module = ShaderModule::Adopt(P().DeviceCreateShaderModule(device_.get(), &desc));

  CompilationResult result;
  result.source = source;
  result.label = label;
  WGPUCompilationInfoCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_WaitAnyOnly;
  cb.callback = &OnCompilationInfo;
  cb.userdata1 = &result;
  Status waited =
      Wait(P().ShaderModuleGetCompilationInfo(module.get(), cb), std::chrono::minutes(5));
  Status scopes = PopErrorScopes("compiling shader '" + std::string(label) + "'");
  if (!waited.ok()) return std::move(waited).error();
  if (result.error_count > 0) {
    return Error{ErrorCode::kShaderCompilation,
                 std::to_string(result.error_count) + " WGSL error(s):\n" + result.errors};
  }
  if (!scopes.ok()) return std::move(scopes).error();
  return module;
}

Result<const Kernel*> Context::GetKernel(const KernelSpec& spec) {
  const std::string layout = LayoutSignature(spec.bindings);
  const uint64_t key =
      Fnv1a(Fnv1a(Fnv1a(0xcbf29ce484222325ULL, spec.wgsl), spec.entry_point), layout);
  auto& bucket = kernels_[key];
  for (const CachedKernel& c : bucket) {
    if (c.source == spec.wgsl && c.entry_point == spec.entry_point && c.layout == layout) {
      return c.kernel.get();
    }
  }

  ALKNET_ASSIGN_OR_RETURN(ShaderModule module, CompileWgsl(spec.wgsl, spec.label));
  auto kernel = std::make_unique<Kernel>();
  kernel->label = spec.label;

  PushErrorScopes();
  PipelineLayout pipeline_layout;
  if (!spec.bindings.empty()) {
    std::vector<WGPUBindGroupLayoutEntry> entries(spec.bindings.size());
    for (size_t i = 0; i < spec.bindings.size(); ++i) {
      entries[i].binding = static_cast<uint32_t>(i);
      entries[i].visibility = WGPUShaderStage_Compute;
      entries[i].buffer.type = ToWgpu(spec.bindings[i]);
    }
    WGPUBindGroupLayoutDescriptor bgl{};
    bgl.label = Sv(spec.label);
    bgl.entryCount = entries.size();
    bgl.entries = entries.data();
    kernel->layout = BindGroupLayout::Adopt(P().DeviceCreateBindGroupLayout(device_.get(), &bgl));
    WGPUBindGroupLayout raw_bgl = kernel->layout.get();
    WGPUPipelineLayoutDescriptor pl{};
    pl.label = Sv(spec.label);
    pl.bindGroupLayoutCount = 1;
    pl.bindGroupLayouts = &raw_bgl;
    pipeline_layout = PipelineLayout::Adopt(P().DeviceCreatePipelineLayout(device_.get(), &pl));
  }
  WGPUComputePipelineDescriptor desc{};
  desc.label = Sv(spec.label);
  desc.layout = pipeline_layout.get();  // null: "auto", derived from the shader
  desc.compute.module = module.get();
  desc.compute.entryPoint = Sv(spec.entry_point);
  kernel->pipeline = ComputePipeline::Adopt(P().DeviceCreateComputePipeline(device_.get(), &desc));
  if (spec.bindings.empty()) {
    kernel->layout =
        BindGroupLayout::Adopt(P().ComputePipelineGetBindGroupLayout(kernel->pipeline.get(), 0));
  }
  ALKNET_TRY(PopErrorScopes("creating compute pipeline '" + spec.label + "' (entry point '" +
                            spec.entry_point + "')"));

  const Kernel* result = kernel.get();
  bucket.push_back(CachedKernel{spec.wgsl, spec.entry_point, layout, std::move(kernel)});
  ++kernel_count_;
  return result;
}

}  // namespace alknet::webgpu
