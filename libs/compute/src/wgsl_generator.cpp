// WgslGenerator: op table record + embedded Handlebars template -> WGSL program.
#include "alknet/compute/wgsl_generator.h"

#include "alknet/hbs/hbs.h"

namespace alknet::compute::shaders {
struct EmbeddedFile {
  std::string_view name;
  std::string_view contents;
};
extern const EmbeddedFile kEmbeddedFiles[];
extern const std::size_t kEmbeddedFileCount;
}  // namespace alknet::compute::shaders

namespace alknet::compute {

namespace {
constexpr std::string_view kSuffix = ".wgsl.hbs";
}

const char* WgslStorageType(DType d) {
  switch (d) {
    case DType::kF32: return "f32";
    case DType::kF16: return "f16";
    case DType::kI32: return "i32";
    case DType::kU32: return "u32";
    case DType::kBool: return "u32";  // WGSL has no 8-bit or bool storage type
    default: return nullptr;
  }
}

struct WgslGenerator::Impl {
  hbs::Registry registry{hbs::Mode::kStrict};
  std::vector<std::string> ids;
  // Templates that failed to parse, with the parser's message (template:line:col).
  std::vector<std::pair<std::string, std::string>> broken;
};

WgslGenerator::WgslGenerator(const OpTable& table)
    : table_(table), impl_(std::make_unique<Impl>()) {
  // Every file under shaders/ is a template and a partial, named by its path without
  // ".wgsl.hbs" ("common/index"). Parse errors here are bugs in our own templates; they
  // surface as kTemplate errors from Render/Generate, naming template:line:col.
  for (std::size_t i = 0; i < shaders::kEmbeddedFileCount; ++i) {
    std::string_view name = shaders::kEmbeddedFiles[i].name;
    if (name.size() <= kSuffix.size() || name.substr(name.size() - kSuffix.size()) != kSuffix)
      continue;
    std::string id(name.substr(0, name.size() - kSuffix.size()));
    try {
      impl_->registry.register_template_string(id, shaders::kEmbeddedFiles[i].contents,
                                               "shaders/" + std::string(name));
      impl_->ids.push_back(id);
    } catch (const hbs::Error& e) {
      // Keep going: every other op still works; this one fails when used, with this message.
      impl_->broken.emplace_back(id, e.what());
    }
  }
}

WgslGenerator::~WgslGenerator() = default;

std::vector<std::string> WgslGenerator::TemplateIds() const { return impl_->ids; }

std::vector<std::string> WgslGenerator::TemplateErrors() const {
  std::vector<std::string> out;
  for (const auto& b : impl_->broken) out.push_back(b.second);
  return out;
}

Result<std::string> WgslGenerator::Render(const std::string& shader,
                                          const hbs::Value& context) const {
  for (const auto& [id, message] : impl_->broken) {
    if (id == shader) return Error{ErrorCode::kTemplate, message};
  }
  if (!impl_->registry.has_template(shader)) {
    return Error{ErrorCode::kTemplate,
                 "no template shaders/" + shader + std::string(kSuffix) +
                     " is embedded (is the file under libs/compute/shaders/?)"};
  }
  try {
    return impl_->registry.render(shader, context);
  } catch (const hbs::Error& e) {
    return Error{ErrorCode::kTemplate, e.what()};
  }
}

namespace {

// `binding` is the operand's slot in group 0 (host and absent inputs take none; `bound` is
// false for them).
hbs::Value Operand(const TensorDesc& d, size_t index, long long binding) {
  const char* ty = WgslStorageType(d.dtype);
  return hbs::Value::object({{"index", static_cast<long long>(index)},
                             {"binding", binding},
                             {"bound", binding >= 0},
                             {"absent", d.absent},
                             {"dtype", std::string(DTypeName(d.dtype))},
                             {"ty", std::string(ty != nullptr ? ty : "")},
                             {"elements", d.elements()}});
}

Result<std::array<uint32_t, 3>> Grid(const OpNode& node, const DispatchPlan& plan,
                                     const DeviceCaps& caps, std::array<uint32_t, 3>* wg) {
  const uint64_t max = caps.max_workgroups_per_dimension;
  if (plan.kind == DispatchPlan::Kind::kLinear) {
    *wg = {caps.linear_workgroup_size, 1, 1};
    const uint64_t groups = std::max<uint64_t>(1, (plan.invocations + wg->at(0) - 1) / wg->at(0));
    if (groups <= max) return std::array<uint32_t, 3>{static_cast<uint32_t>(groups), 1, 1};
    const uint64_t y = (groups + max - 1) / max;
    if (y > max) {
      return Error{ErrorCode::kLimit,
                   node.Describe() + ": " + std::to_string(plan.invocations) +
                       " invocations need more than maxComputeWorkgroupsPerDimension^2 (" +
                       std::to_string(max) + "^2) workgroups"};
    }
    return std::array<uint32_t, 3>{static_cast<uint32_t>(max), static_cast<uint32_t>(y), 1};
  }
  *wg = plan.workgroup_size;
  const uint64_t inv = uint64_t{wg->at(0)} * wg->at(1) * wg->at(2);
  if (inv > caps.max_invocations_per_workgroup) {
    return Error{ErrorCode::kLimit, node.Describe() + ": workgroup of " + std::to_string(inv) +
                                        " invocations exceeds maxComputeInvocationsPerWorkgroup " +
                                        std::to_string(caps.max_invocations_per_workgroup)};
  }
  std::array<uint32_t, 3> g{};
  for (int k = 0; k < 3; ++k) {
    if (plan.groups[k] > max) {
      return Error{ErrorCode::kLimit,
                   node.Describe() + ": needs " + std::to_string(plan.groups[k]) +
                       " workgroups in dimension " + "xyz"[k] +
                       "; the device limit maxComputeWorkgroupsPerDimension is " +
                       std::to_string(max)};
    }
    g[k] = static_cast<uint32_t>(std::max<uint64_t>(1, plan.groups[k]));
  }
  return g;
}

}  // namespace

Result<ShaderProgram> WgslGenerator::Generate(const OpNode& in_node, const DeviceCaps& caps) const {
  ALKNET_ASSIGN_OR_RETURN(std::vector<TensorDesc> outputs, table_.Infer(in_node));
  const OpRecord* record = table_.Find(in_node.op_type, in_node.opset);
  if (record->view || record->decompose || record->shader.empty()) {
    return Error{ErrorCode::kUnsupported,
                 in_node.Describe() + ": " + in_node.op_type +
                     " is a view or a composite op and has no shader of its own; "
                     "run it through the Executor"};
  }
  OpNode node = in_node;
  node.outputs = outputs;
  ALKNET_ASSIGN_OR_RETURN(Attributes attrs, table_.ResolveAttributes(*record, node));

  bool f16 = false;
  hbs::Array ins, outs;
  std::vector<TensorDesc> all;
  long long slot = 0;
  std::vector<uint32_t> bound_inputs;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const bool bound = !node.inputs[i].absent && !record->is_host_input(i);
    ins.push_back(Operand(node.inputs[i], i, bound ? slot : -1));
    if (bound) {
      ++slot;
      bound_inputs.push_back(static_cast<uint32_t>(i));
      all.push_back(node.inputs[i]);
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) outs.push_back(Operand(outputs[i], i, slot++));
  all.insert(all.end(), outputs.begin(), outputs.end());
  for (const TensorDesc& d : all) {
    if (WgslStorageType(d.dtype) == nullptr) {
      return Error{ErrorCode::kUnsupported,
                   node.Describe() + ": dtype " + DTypeName(d.dtype) +
                       " has no WGSL storage type (use f32, f16, i32, u32 or bool)"};
    }
    if (d.dtype == DType::kF16) f16 = true;
    const uint64_t bytes = d.elements() * DeviceElementSize(d.dtype);
    if (bytes > caps.max_storage_binding_bytes) {
      return Error{ErrorCode::kLimit, node.Describe() + ": operand " + DescToString(d) + " spans " +
                                          std::to_string(bytes) +
                                          " bytes; the device limit "
                                          "maxStorageBufferBindingSize is " +
                                          std::to_string(caps.max_storage_binding_bytes)};
    }
  }
  if (f16 && !caps.shader_f16) {
    return Error{
        ErrorCode::kUnsupported,
        node.Describe() + ": f16 needs the WebGPU feature shader-f16, which this device lacks"};
  }

  ShaderProgram p;
  p.language = "wgsl";
  p.template_name = record->shader;
  p.label = node.op_type + (node.name.empty() ? "" : ":" + node.name);
  p.outputs = outputs;
  const DispatchPlan plan = record->dispatch(node, attrs, caps);
  ALKNET_ASSIGN_OR_RETURN(p.grid, Grid(node, plan, caps, &p.workgroup_size));

  ALKNET_ASSIGN_OR_RETURN(hbs::Value op, record->context(node, attrs, caps));
  if (record->params) {
    ALKNET_ASSIGN_OR_RETURN(p.params, record->params(node, attrs, caps));
  }
  hbs::Value ctx = hbs::Value::object({{"template", record->shader},
                                       {"params_binding", slot},
                                       {"f16", f16},
                                       {"workgroup_size", p.workgroup_size[0]},
                                       {"inputs", hbs::Value(std::move(ins))},
                                       {"outputs", hbs::Value(std::move(outs))},
                                       {"op", std::move(op)}});
  ALKNET_ASSIGN_OR_RETURN(p.source, Render(record->shader, ctx));
  for (uint32_t i : bound_inputs)
    p.bindings.push_back({ProgramBinding::Role::kInput, i, Access::kRead});
  for (size_t i = 0; i < outputs.size(); ++i) {
    p.bindings.push_back(
        {ProgramBinding::Role::kOutput, static_cast<uint32_t>(i), Access::kReadWrite});
  }
  if (!p.params.empty()) p.bindings.push_back({ProgramBinding::Role::kParams, 0, Access::kRead});
  return p;
}

}  // namespace alknet::compute
