// Running a plan: inputs checked against the model, the plan found in the LRU cache (or
// built), inputs uploaded, one Executor::Run, outputs downloaded in the declared ONNX types.
#include <algorithm>

#include "alknet/compute/passes.h"
#include "session_impl.h"

namespace alknet::onnx {

using namespace detail;

namespace {

double MsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Result<RunResult> Session::Impl::Run(std::span<const HostInput> given, const RunOptions& ro) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<const HostInput*> ordered(inputs.size(), nullptr);
  std::vector<std::unique_ptr<std::pair<Tensor, HostInput>>>
      downloaded;  // device inputs read on the host
  for (const HostInput& in : given) {
    auto it = std::find_if(inputs.begin(), inputs.end(),
                           [&](const ValueInfo& v) { return v.name == in.name; });
    if (it == inputs.end()) {
      std::string names;
      for (const auto& v : inputs) names += (names.empty() ? "" : ", ") + v.name;
      return Error{ErrorCode::kInvalidArgument,
                   model + ": the model has no input '" + in.name + "' (inputs: " + names + ")"};
    }
    const size_t i = static_cast<size_t>(it - inputs.begin());
    if (ordered[i] != nullptr)
      return Error{ErrorCode::kInvalidArgument, model + ": input '" + in.name + "' given twice"};
    const ValueInfo& v = *it;
    if (in.type != v.type) {
      return Error{ErrorCode::kInvalidArgument, model + ": input '" + in.name + "' is " +
                                                    ElemTypeName(in.type) +
                                                    ", the model declares " + ElemTypeName(v.type)};
    }
    if (v.has_shape) {
      bool ok = v.shape.size() == in.shape.size();
      for (size_t d = 0; ok && d < v.shape.size(); ++d)
        ok = v.shape[d] < 0 || static_cast<uint64_t>(v.shape[d]) == in.shape[d];
      if (!ok) {
        std::string declared = "[";
        for (size_t d = 0; d < v.shape.size(); ++d) {
          declared +=
              (d ? "," : "") + (v.shape[d] < 0 ? (v.dim_names[d].empty() ? "?" : v.dim_names[d])
                                               : std::to_string(v.shape[d]));
        }
        return Error{ErrorCode::kShape, model + ": input '" + in.name + "' has shape " +
                                            compute::ShapeToString(in.shape) +
                                            ", the model declares " + declared + "]"};
      }
    }
    const std::optional<uint64_t> checked = compute::CheckedElements(in.shape);
    if (!checked || !compute::CheckedBytes(in.shape, 8)) {
      return Error{ErrorCode::kLimit, model + ": input '" + in.name + "' has shape " +
                                          compute::ShapeToString(in.shape) +
                                          ", more elements than an int64 size can count"};
    }
    const uint64_t n = *checked;
    if (in.device.valid()) {
      ALKNET_ASSIGN_OR_RETURN(DType d, DeviceTypeOf(in.type, f16, "input '" + in.name + "'"));
      if (in.device.dtype() != d || in.device.shape() != in.shape) {
        return Error{ErrorCode::kInvalidArgument,
                     model + ": input '" + in.name + "' is a device tensor " +
                         compute::DTypeName(in.device.dtype()) +
                         compute::ShapeToString(in.device.shape()) + "; the model needs " +
                         compute::DTypeName(d) + compute::ShapeToString(in.shape)};
      }
      if (host_read[i]) {
        // The plan reads this input's values on the host: bring them over once.
        ALKNET_ASSIGN_OR_RETURN(compute::HostTensor h, exec->Download(in.device));
        ALKNET_ASSIGN_OR_RETURN(Tensor t, FromDevice(in.name, h.dtype, h.shape, h.data, in.type));
        downloaded.push_back(std::make_unique<std::pair<Tensor, HostInput>>());
        auto& slot = *downloaded.back();
        slot.first = std::move(t);
        slot.second = HostInput{in.name, in.type, in.shape, slot.first.data, {}};
        ordered[i] = &slot.second;
        continue;
      }
      ordered[i] = &in;
      continue;
    }
    if (in.data.size() != n * ElemSize(in.type)) {
      return Error{ErrorCode::kInvalidArgument,
                   model + ": input '" + in.name + "' has " + std::to_string(in.data.size()) +
                       " bytes, its shape and type need " + std::to_string(n * ElemSize(in.type))};
    }
    ordered[i] = &in;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (ordered[i] == nullptr)
      return Error{ErrorCode::kInvalidArgument,
                   model + ": input '" + inputs[i].name + "' is missing"};
  }

  // The plan key: every shape, plus the values of inputs read on the host.
  std::string key;
  for (size_t i = 0; i < inputs.size(); ++i) {
    key += compute::ShapeToString(ordered[i]->shape);
    if (host_read[i]) {
      key += '=';
      key.append(reinterpret_cast<const char*>(ordered[i]->data.data()), ordered[i]->data.size());
    }
    key += ';';
  }
  RunResult result;
  std::shared_ptr<Plan> plan;
  for (auto it = cache.begin(); it != cache.end(); ++it) {
    if (it->first == key) {
      cache.splice(cache.begin(), cache, it);
      plan = it->second;
      break;
    }
  }
  if (plan) {
    ++stats.plan_cache_hits;
    result.plan_cached = true;
  } else {
    const auto tp = std::chrono::steady_clock::now();
    ALKNET_ASSIGN_OR_RETURN(plan, BuildPlan(ordered));
    result.plan_ms = MsSince(tp);
    ++stats.plans_built;
    // The executor's passes (the fusions) run once per plan, here, not on every run: a plan's
    // graph and shapes never change. The graph is then marked so the executor skips them.
    if (options.fuse && plan->graph.nodes.size() > 1) {
      std::vector<compute::TensorDesc> descs;
      for (int i : plan->user_inputs) {
        const HostInput& in = *ordered[i];
        if (in.device.valid()) {
          descs.push_back(in.device.desc());
          continue;
        }
        ALKNET_ASSIGN_OR_RETURN(DType d, DeviceTypeOf(in.type, f16, "input '" + in.name + "'"));
        descs.push_back(compute::TensorDesc{.dtype = d, .shape = in.shape});
      }
      for (const auto& c : plan->constants) descs.push_back(c.desc());
      plan->fusions = compute::RunPasses(plan->graph, descs).rewrites;
    }
    plan->graph.passes_applied = true;
    stats.nodes_folded = plan->folded;
    stats.nodes_on_device = plan->on_device - plan->fusions;
    stats.fusions = plan->fusions;
    cache.emplace_front(key, plan);
    while (cache.size() > std::max<size_t>(1, options.plan_cache_size)) cache.pop_back();
  }
  const auto tr = std::chrono::steady_clock::now();

  std::vector<compute::Tensor> device_in;
  for (int i : plan->user_inputs) {
    const HostInput& in = *ordered[i];
    if (in.device.valid()) {
      device_in.push_back(in.device);
      continue;
    }
    ALKNET_ASSIGN_OR_RETURN(DType d, DeviceTypeOf(in.type, f16, "input '" + in.name + "'"));
    // Same bytes on the host and the device (float as f32, int32, uint32, float16): uploaded
    // straight from the caller's memory; everything else is converted (and range-checked).
    const bool same = (in.type == ElemType::kFloat && d == DType::kF32) ||
                      (in.type == ElemType::kInt32 && d == DType::kI32) ||
                      (in.type == ElemType::kUint32 && d == DType::kU32) ||
                      (in.type == ElemType::kFloat16 && d == DType::kF16);
    uint64_t elements = 1;
    for (uint64_t dim : in.shape) elements *= dim;
    if (same && in.data.size() == elements * ElemSize(in.type)) {
      ALKNET_ASSIGN_OR_RETURN(compute::Tensor dt, exec->Upload(d, in.shape, in.data));
      device_in.push_back(std::move(dt));
      continue;
    }
    Tensor t{in.name, in.type, in.shape, std::vector<std::byte>(in.data.begin(), in.data.end())};
    ALKNET_ASSIGN_OR_RETURN(std::vector<std::byte> bytes, ToDeviceBytes(t, f16));
    ALKNET_ASSIGN_OR_RETURN(compute::Tensor dt, exec->Upload(d, in.shape, bytes));
    device_in.push_back(std::move(dt));
  }
  result.upload_ms = MsSince(tr);
  for (const auto& c : plan->constants) device_in.push_back(c);
  std::vector<compute::Tensor> device_out;
  if (!plan->graph.outputs.empty()) {
    if (ro.profile) exec->set_profile(&result.profile);
    auto ran = exec->Run(plan->graph, device_in);
    exec->set_profile(nullptr);
    if (!ran.ok()) return Error{ran.error().code, model + ": " + ran.error().message};
    device_out = std::move(ran).value();
    if (ro.time_device) {
      const auto td = std::chrono::steady_clock::now();
      if (auto idle = ctx->WaitIdle(); !idle.ok()) return compute::FromWebGpu(idle.error());
      result.wait_ms = MsSince(td);
    }
  }
  result.device_ms = MsSince(tr) - result.upload_ms;
  const auto tdl = std::chrono::steady_clock::now();
  for (const auto& o : plan->outputs) {
    if (o.graph_output < 0) {
      if (ro.download) {
        ALKNET_ASSIGN_OR_RETURN(Tensor t, FromRef(o.name, *o.known, o.type));
        result.outputs.push_back(std::move(t));
      }
      if (ro.keep_device_outputs) result.device_outputs.emplace_back();
      continue;
    }
    const compute::Tensor& dt = device_out[o.graph_output];
    if (ro.download) {
      ALKNET_ASSIGN_OR_RETURN(compute::HostTensor h, exec->Download(dt));
      ALKNET_ASSIGN_OR_RETURN(Tensor t, FromDevice(o.name, h.dtype, h.shape, h.data, o.type));
      result.outputs.push_back(std::move(t));
    }
    if (ro.keep_device_outputs) result.device_outputs.push_back(dt);
  }
  result.download_ms = MsSince(tdl);
  result.run_ms = MsSince(tr);
  (void)t0;
  return result;
}

}  // namespace alknet::onnx
