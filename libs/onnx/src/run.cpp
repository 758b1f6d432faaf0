// Running a plan: inputs checked against the model, the plan found in the LRU cache (or
// built), inputs uploaded, one Executor::Run, outputs downloaded in the declared ONNX types.
#include <algorithm>
#include <functional>

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
  if (strings) return detail::RunStringGraph(*strings, inputs, outputs, given, model);
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
    if (in.kind != ValueKind::kTensor || v.sequence || v.optional) {
      // Sequences and optionals: checked element by element when the seeds are made.
      ordered[i] = &in;
      continue;
    }
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

  // float64 values that float32 cannot hold (ADR 0013): the whole run is evaluated on the host.
  std::string on_host;
  if (!wide_initializer.empty()) {
    on_host = "float64 initializer '" + wide_initializer + "' holds values beyond float32's range";
  }
  for (size_t i = 0; i < inputs.size() && on_host.empty(); ++i) {
    const HostInput& in = *ordered[i];
    if (in.type != ElemType::kDouble || in.device.valid()) continue;
    Tensor t{in.name, in.type, in.shape, {}};
    t.data.assign(in.data.begin(), in.data.end());
    if (auto at = FirstBeyondF32(t)) {
      on_host = "float64 input '" + in.name + "' element " + std::to_string(*at) +
                " is beyond float32's range";
    }
  }

  // The seeds of the main graph: the inputs, those read on the host known (the plan key holds
  // every shape plus their values).
  std::vector<Value> seeds;
  // A seed from an input; sequences and optionals are checked here against the declaration.
  std::function<Result<Value>(const HostInput&, const ValueInfo&, bool, bool, const std::string&)>
      make_seed = [&](const HostInput& in, const ValueInfo& decl, bool host, bool element,
                      const std::string& what) -> Result<Value> {
    Value v;
    v.name = decl.name;
    v.kind = in.kind;
    v.type = in.type;
    if (in.kind == ValueKind::kNone) {
      if (!decl.optional || element) {
        return Error{ErrorCode::kInvalidArgument,
                     model + ": " + what + " is an empty optional; the model declares " +
                         (decl.sequence && !element ? "a sequence" : "a tensor")};
      }
      return v;
    }
    if (in.kind == ValueKind::kSequence) {
      if (!decl.sequence || element) {
        return Error{ErrorCode::kInvalidArgument,
                     model + ": " + what + " is a sequence; the model declares a tensor"};
      }
      if (in.items.size() > kMaxSequenceLength) {
        return Error{ErrorCode::kLimit,
                     model + ": " + what + " holds " + std::to_string(in.items.size()) +
                         " tensors, more than the limit of " + std::to_string(kMaxSequenceLength)};
      }
      v.type = decl.type;
      for (size_t k = 0; k < in.items.size(); ++k) {
        ALKNET_ASSIGN_OR_RETURN(Value e, make_seed(in.items[k], decl, host, true,
                                                   what + " element " + std::to_string(k)));
        v.elems.push_back(std::move(e));
      }
      return v;
    }
    if (decl.sequence && !element) {
      return Error{ErrorCode::kInvalidArgument,
                   model + ": " + what + " is a tensor; the model declares a sequence"};
    }
    if ((decl.sequence || decl.optional) && !in.device.valid()) {
      if (in.type != decl.type) {
        return Error{ErrorCode::kInvalidArgument,
                     model + ": " + what + " is " + ElemTypeName(in.type) +
                         ", the model declares " + ElemTypeName(decl.type)};
      }
      const std::optional<uint64_t> n = compute::CheckedElements(in.shape);
      if (!n || !compute::CheckedBytes(in.shape, 8) || in.data.size() != *n * ElemSize(in.type)) {
        return Error{ErrorCode::kInvalidArgument,
                     model + ": " + what + " has " + std::to_string(in.data.size()) +
                         " bytes, which its shape " + compute::ShapeToString(in.shape) +
                         " and type do not need"};
      }
    }
    ALKNET_ASSIGN_OR_RETURN(v.dtype, DeviceTypeOf(in.type, f16, what));
    v.shape = in.shape;
    if (in.device.valid()) {
      v.device = in.device;
    } else {
      v.host = &in;
    }
    if (host) {
      if (in.device.valid()) {
        ALKNET_ASSIGN_OR_RETURN(v, ToHostKnown(v));
      } else {
        Tensor t{in.name, in.type, in.shape,
                 std::vector<std::byte>(in.data.begin(), in.data.end())};
        ALKNET_ASSIGN_OR_RETURN(RefTensor r, ToRef(t, f16));
        v.known = std::make_shared<const RefTensor>(std::move(r));
      }
    }
    return v;
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    // Read on the host: inputs the plan reads values of, and every input of a run evaluated on
    // the host in float64.
    ALKNET_ASSIGN_OR_RETURN(
        Value v, make_seed(*ordered[i], inputs[i], host_read[i] || !on_host.empty(), false,
                           "input '" + inputs[i].name + "'"));
    seeds.push_back(std::move(v));
  }
  RunResult result;
  const auto tr = std::chrono::steady_clock::now();
  if (ro.profile) exec->set_profile(&result.profile);
  host_eval = !on_host.empty();
  // Copies read back during this run are dropped with it (they hold their buffers).
  read_back.clear();
  struct ClearReadBack {
    std::vector<std::pair<compute::Tensor, compute::HostTensor>>& r;
    ~ClearReadBack() { r.clear(); }
  } clear_read_back{read_back};
  // The outputs are read back with the last segment's submit when they will be downloaded.
  const std::vector<bool> read_all(outputs.size(), ro.download);
  auto ran = RunProgram(main, cache, std::move(seeds), &result, ro, &read_all);
  host_eval = false;
  exec->set_profile(nullptr);
  if (!ran.ok()) return std::move(ran).error();
  std::vector<Value> outs = std::move(ran).value();
  // A read-back waits for everything submitted before it: wait only for work submitted since.
  if (ro.time_device && exec->has_unwaited_work()) {
    const auto td = std::chrono::steady_clock::now();
    ALKNET_TRY(exec->WaitIdle());
    result.wait_ms += MsSince(td);
  }
  result.run_ms = MsSince(tr);
  const auto tdl = std::chrono::steady_clock::now();
  // A value to the host in `type` (sequences element by element).
  std::function<Result<Tensor>(const Value&, ElemType)> to_host =
      [&](const Value& v, ElemType type) -> Result<Tensor> {
    if (v.kind != ValueKind::kTensor) {
      Tensor t;
      t.name = v.name;
      t.kind = v.kind;
      t.type = type != ElemType::kUndefined ? type : v.type;
      for (const Value& e : v.elems) {
        ALKNET_ASSIGN_OR_RETURN(Tensor et, to_host(e, type));
        et.name = v.name;
        t.items.push_back(std::move(et));
      }
      return t;
    }
    const ElemType to = type != ElemType::kUndefined ? type : v.type;
    if (!v.device.valid() && v.known) return FromRef(v.name, *v.known, to);
    ALKNET_ASSIGN_OR_RETURN(compute::Tensor dt, ToDevice(v));
    ALKNET_ASSIGN_OR_RETURN(compute::HostTensor h, ReadBack(dt));
    return FromDevice(v.name, h.dtype, h.shape, h.data, to);
  };
  if (ro.download) {
    // Outputs not read with the last submit (they came from an earlier segment, or are views):
    // one read-back for all of them.
    std::vector<compute::Tensor> pending;
    for (const Value& v : outs) {
      if (v.kind == ValueKind::kTensor && v.device.valid()) pending.push_back(v.device);
    }
    ALKNET_TRY(ReadBackAll(pending));
  }
  for (size_t o = 0; o < outs.size(); ++o) {
    const Value& v = outs[o];
    const ElemType type =
        o < outputs.size() && outputs[o].type != ElemType::kUndefined ? outputs[o].type : v.type;
    if (v.kind != ValueKind::kTensor || (!v.device.valid() && v.known)) {
      if (ro.download) {
        ALKNET_ASSIGN_OR_RETURN(Tensor t, to_host(v, type));
        result.outputs.push_back(std::move(t));
      }
      if (ro.keep_device_outputs) result.device_outputs.emplace_back();
      continue;
    }
    ALKNET_ASSIGN_OR_RETURN(compute::Tensor dt, ToDevice(v));
    if (ro.download) {
      ALKNET_ASSIGN_OR_RETURN(compute::HostTensor h, ReadBack(dt));
      ALKNET_ASSIGN_OR_RETURN(Tensor t, FromDevice(v.name, h.dtype, h.shape, h.data, type));
      result.outputs.push_back(std::move(t));
    }
    if (ro.keep_device_outputs) result.device_outputs.push_back(dt);
  }
  result.download_ms = MsSince(tdl);
  if (!on_host.empty()) {
    ++stats.host_evaluated_runs;
    result.on_host = std::move(on_host);
  }
  result.device_ms = result.run_ms - result.upload_ms;
  result.run_ms += result.download_ms;
  (void)t0;
  return result;
}

Result<std::shared_ptr<Plan>> Session::Impl::PlanFor(PlanCache& plans, const Program& p,
                                                     size_t start, const std::vector<Value>& seeds,
                                                     RunResult* result) {
  if (host_eval) {
    // Everything is known and folds: the plan is specific to these values, not worth caching.
    const auto tp = std::chrono::steady_clock::now();
    ALKNET_ASSIGN_OR_RETURN(std::shared_ptr<Plan> plan, BuildPlan(p, start, seeds));
    ++stats.plans_built;
    plan->graph.passes_applied = true;
    stats.nodes_folded = plan->folded;
    stats.nodes_on_device = 0;
    if (result != nullptr) result->plan_ms += MsSince(tp);
    return plan;
  }
  const std::string key = SeedKey(seeds);
  for (auto it = plans.begin(); it != plans.end(); ++it) {
    if (it->first == key) {
      plans.splice(plans.begin(), plans, it);
      ++stats.plan_cache_hits;
      if (result != nullptr) result->plan_cached = true;
      return plans.front().second;
    }
  }
  const auto tp = std::chrono::steady_clock::now();
  ALKNET_ASSIGN_OR_RETURN(std::shared_ptr<Plan> plan, BuildPlan(p, start, seeds));
  ++stats.plans_built;
  // The executor's passes (the fusions) run once per plan, here, not on every run: a plan's
  // graph and shapes never change. The graph is then marked so the executor skips them.
  if (options.fuse && plan->graph.nodes.size() > 1) {
    std::vector<compute::TensorDesc> descs;
    std::vector<const Value*> flat;
    FlattenValues(seeds, flat);
    for (int i : plan->user_inputs) {
      const Value& v = *flat[static_cast<size_t>(i)];
      descs.push_back(v.device.valid() ? v.device.desc()
                                       : compute::TensorDesc{.dtype = v.dtype, .shape = v.shape});
    }
    for (const auto& c : plan->constants) descs.push_back(c.desc());
    plan->fusions = compute::RunPasses(plan->graph, descs).rewrites;
  }
  plan->graph.passes_applied = true;
  stats.nodes_folded = plan->folded;
  stats.nodes_on_device = plan->on_device - plan->fusions;
  stats.fusions = plan->fusions;
  stats.ifs_inlined = plan->ifs_inlined;
  stats.loops_unrolled += plan->loops_unrolled;
  stats.sequence_maps_batched += plan->maps_batched;
  if (result != nullptr) result->plan_ms += MsSince(tp);
  plans.emplace_front(key, plan);
  while (plans.size() > std::max<size_t>(1, options.plan_cache_size)) plans.pop_back();
  return plan;
}

namespace {

// Which outputs of a segment to read back with its submit: at the end of the program, those
// its caller will read; before a node that reads values on the host (an If's condition, a
// Loop's trip count and condition, a host op's inputs, a record's host inputs), those values
// and, since the sync happens anyway, every other small tensor (an If branch that passes a
// value through, or an output, then needs no read of its own).
std::vector<bool> SegmentReads(const Program& p, const Plan& plan,
                               const std::vector<bool>* read_outputs) {
  std::vector<bool> read(plan.outputs.size(), false);
  if (plan.stop < 0) {
    for (size_t i = 0; read_outputs != nullptr && i < read.size() && i < read_outputs->size(); ++i)
      read[i] = (*read_outputs)[i];
    return read;
  }
  const NodeInfo& n = p.nodes[static_cast<size_t>(plan.stop)];
  std::vector<std::string> names;
  if (n.record != nullptr) {
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (n.record->is_host_input(i)) names.push_back(n.inputs[i]);
    }
  } else if (n.host_op != nullptr) {
    names = n.inputs;
  } else if (n.op == "If" || n.op == "Loop") {
    for (size_t i = 0; i < n.inputs.size() && i < (n.op == "If" ? 1u : 2u); ++i)
      names.push_back(n.inputs[i]);
  } else {
    return read;  // Scan and the others read their inputs in their own way
  }
  constexpr uint64_t kSmall = 4096, kSmallTotal = 64 * 1024;
  uint64_t small_total = 0;
  for (size_t i = 0; i < plan.outputs.size(); ++i) {
    const Plan::Output& o = plan.outputs[i];
    if (o.kind != ValueKind::kTensor || o.graph_output < 0) continue;
    if (std::find(names.begin(), names.end(), o.name) != names.end()) {
      read[i] = true;
      continue;
    }
    const std::optional<uint64_t> n_elems = compute::CheckedElements(o.desc.shape);
    const uint64_t bytes = n_elems ? *n_elems * 4 : kSmall + 1;
    if (bytes <= kSmall && small_total + bytes <= kSmallTotal) {
      read[i] = true;
      small_total += bytes;
    }
  }
  return read;
}

// The same view of the same buffer.
bool SameTensor(const compute::Tensor& a, const compute::Tensor& b) {
  return a.storage() == b.storage() && a.dtype() == b.dtype() && a.shape() == b.shape() &&
         a.offset() == b.offset() && a.desc().EffectiveStrides() == b.desc().EffectiveStrides();
}

// read_back holds at most this many copies (the oldest go first): a long Loop must not keep
// every iteration's buffers.
constexpr size_t kMaxReadBack = 32;

}  // namespace

void Session::Impl::KeepReadBack(const compute::Tensor& t, compute::HostTensor h) {
  if (read_back.size() >= kMaxReadBack) read_back.erase(read_back.begin());
  read_back.emplace_back(t, std::move(h));
}

Result<compute::HostTensor> Session::Impl::ReadBack(const compute::Tensor& t) {
  for (const auto& [held, host] : read_back) {
    if (SameTensor(held, t)) return host;
  }
  ALKNET_ASSIGN_OR_RETURN(compute::HostTensor h, exec->Download(t));
  ++stats.device_reads;
  KeepReadBack(t, h);
  return h;
}

Status Session::Impl::ReadBackAll(const std::vector<compute::Tensor>& ts) {
  std::vector<compute::Tensor> missing;
  for (const compute::Tensor& t : ts) {
    auto same = [&](const compute::Tensor& u) { return SameTensor(u, t); };
    if (std::any_of(read_back.begin(), read_back.end(),
                    [&](const auto& e) { return same(e.first); }) ||
        std::any_of(missing.begin(), missing.end(), same))
      continue;
    missing.push_back(t);
  }
  if (missing.empty()) return Ok{};
  ALKNET_ASSIGN_OR_RETURN(std::vector<compute::HostTensor> hs, exec->Download(missing));
  ++stats.device_reads;
  for (size_t i = 0; i < missing.size(); ++i) KeepReadBack(missing[i], std::move(hs[i]));
  return Ok{};
}

void Session::Impl::ForgetReadBack(const Value& v) {
  if (!v.device.valid()) return;
  std::erase_if(read_back, [&](const auto& e) { return e.first.storage() == v.device.storage(); });
}

Result<std::vector<Value>> Session::Impl::RunProgram(const Program& p, PlanCache& plans,
                                                     std::vector<Value> seeds, RunResult* result,
                                                     const RunOptions& ro,
                                                     const std::vector<bool>* read_outputs) {
  ALKNET_ASSIGN_OR_RETURN(std::shared_ptr<Plan> plan, PlanFor(plans, p, 0, seeds, result));
  while (true) {
    ALKNET_ASSIGN_OR_RETURN(
        std::vector<Value> outs,
        RunSegment(*plan, seeds, result, ro, SegmentReads(p, *plan, read_outputs)));
    if (plan->stop < 0) return outs;
    const NodeInfo& n = p.nodes[static_cast<size_t>(plan->stop)];
    std::vector<Value> made;
    if (n.record != nullptr) {
      // A record's host input computed on the device: read it back, plan again from the node.
      const auto th = std::chrono::steady_clock::now();
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        if (!n.record->is_host_input(i) || n.inputs[i].empty()) continue;
        for (Value& v : outs) {
          if (v.name != n.inputs[i] || v.known) continue;
          ALKNET_ASSIGN_OR_RETURN(v, ToHostKnown(v));
        }
      }
      ++stats.host_input_reads;
      if (result != nullptr) result->host_nodes.push_back({n.op, n.name, MsSince(th)});
      seeds = std::move(outs);
      std::shared_ptr<Plan> at = plan;
      const bool cached = result != nullptr && result->plan_cached;
      ALKNET_ASSIGN_OR_RETURN(plan,
                              PlanFor(at->next, p, static_cast<size_t>(at->stop), seeds, result));
      if (result != nullptr) result->plan_cached = cached;
      if (plan->stop == at->stop) {
        return Error{ErrorCode::kInvalidArgument,
                     n.Where(model) +
                         ": internal: its host inputs are still unknown after the "
                         "read-back"};
      }
      continue;
    }
    if (n.host_op != nullptr) {
      ++stats.host_ops_run;
      const auto th = std::chrono::steady_clock::now();
      ALKNET_ASSIGN_OR_RETURN(made, RunHostNode(p, n, outs));
      if (result != nullptr) result->host_nodes.push_back({n.op, n.name, MsSince(th)});
    } else {
      ++stats.control_nodes_run;
      ALKNET_ASSIGN_OR_RETURN(made, RunControl(p, n, outs, ro));
    }
    seeds = std::move(outs);
    for (size_t o = 0; o < made.size() && o < n.outputs.size(); ++o) {
      if (n.outputs[o].empty()) continue;
      made[o].name = n.outputs[o];
      seeds.push_back(std::move(made[o]));
    }
    // The plan after the node, cached per path (its time counts in plan_ms; whether the run's
    // plan came from the cache is the first segment's).
    std::shared_ptr<Plan> at = plan;
    const bool cached = result != nullptr && result->plan_cached;
    ALKNET_ASSIGN_OR_RETURN(plan,
                            PlanFor(at->next, p, static_cast<size_t>(at->stop) + 1, seeds, result));
    if (result != nullptr) result->plan_cached = cached;
  }
}

Result<compute::Tensor> Session::Impl::ToDevice(const Value& v) {
  if (v.kind != ValueKind::kTensor) {
    return Error{ErrorCode::kUnsupported,
                 model + ": value '" + v.name + "' is " +
                     (v.kind == ValueKind::kSequence ? "a sequence" : "an empty optional") +
                     " where a tensor is needed"};
  }
  if (v.device.valid()) return v.device;
  if (v.host != nullptr) {
    const HostInput& in = *v.host;
    // Same bytes on the host and the device (float as f32, int32, uint32, float16): uploaded
    // straight from the caller's memory; everything else is converted (and range-checked).
    const DType d = v.dtype;
    const bool same = (in.type == ElemType::kFloat && d == DType::kF32) ||
                      (in.type == ElemType::kInt32 && d == DType::kI32) ||
                      (in.type == ElemType::kUint32 && d == DType::kU32) ||
                      (in.type == ElemType::kFloat16 && d == DType::kF16);
    uint64_t elements = 1;
    for (uint64_t dim : in.shape) elements *= dim;
    if (same && in.data.size() == elements * ElemSize(in.type)) {
      return exec->Upload(d, in.shape, in.data);
    }
    Tensor t{in.name, in.type, in.shape, std::vector<std::byte>(in.data.begin(), in.data.end())};
    ALKNET_ASSIGN_OR_RETURN(std::vector<std::byte> bytes, ToDeviceBytes(t, f16));
    return exec->Upload(d, in.shape, bytes);
  }
  if (v.known) {
    ALKNET_ASSIGN_OR_RETURN(std::vector<std::byte> bytes,
                            RefToDeviceBytes(*v.known, model + ": value '" + v.name + "'"));
    return exec->Upload(v.known->dtype, v.known->shape, bytes);
  }
  return Error{ErrorCode::kInvalidArgument,
               model + ": internal: value '" + v.name + "' has no contents"};
}

Result<std::vector<Value>> Session::Impl::RunSegment(const Plan& plan,
                                                     const std::vector<Value>& seeds,
                                                     RunResult* result, const RunOptions& ro,
                                                     const std::vector<bool>& read) {
  (void)ro;
  const auto tu = std::chrono::steady_clock::now();
  std::vector<compute::Tensor> device_in;
  std::vector<const Value*> flat;
  FlattenValues(seeds, flat);
  for (int i : plan.user_inputs) {
    ALKNET_ASSIGN_OR_RETURN(compute::Tensor t, ToDevice(*flat[static_cast<size_t>(i)]));
    device_in.push_back(std::move(t));
  }
  if (result != nullptr) result->upload_ms += MsSince(tu);
  for (const auto& c : plan.constants) device_in.push_back(c);
  // The graph outputs to read back with the submit (each once).
  std::vector<size_t> read_ids;
  for (size_t i = 0; i < plan.outputs.size() && i < read.size(); ++i) {
    const int g = plan.outputs[i].graph_output;
    if (!read[i] || g < 0) continue;
    if (std::find(read_ids.begin(), read_ids.end(), static_cast<size_t>(g)) == read_ids.end())
      read_ids.push_back(static_cast<size_t>(g));
  }
  std::vector<compute::Tensor> device_out;
  if (!plan.graph.outputs.empty() && plan.graph.nodes.empty()) {
    for (int id : plan.graph.outputs) device_out.push_back(device_in[static_cast<size_t>(id)]);
    std::vector<compute::Tensor> wanted;
    for (size_t g : read_ids) wanted.push_back(device_out[g]);
    ALKNET_TRY(ReadBackAll(wanted));
  } else if (!plan.graph.outputs.empty()) {
    compute::RecordedGraph* recorded = nullptr;
    if (replay && !host_eval) {  // host-evaluated plans are built for one run
      if (!plan.recorded) plan.recorded = std::make_unique<compute::RecordedGraph>();
      recorded = plan.recorded.get();
    }
    const uint64_t replays_before = recorded != nullptr ? recorded->replays() : 0;
    std::vector<compute::HostTensor> host;
    auto ran = exec->Run(plan.graph, device_in, recorded, read_ids, &host);
    if (!ran.ok()) return Error{ran.error().code, model + ": " + ran.error().message};
    device_out = std::move(ran).value();
    for (size_t k = 0; k < read_ids.size(); ++k)
      KeepReadBack(device_out[read_ids[k]], std::move(host[k]));
    if (!read_ids.empty()) {
      ++stats.device_reads;
      if (result != nullptr) result->wait_ms += exec->last_read_ms();
    }
    if (recorded != nullptr && recorded->replays() != replays_before) {
      ++stats.segments_replayed;
    } else {
      ++stats.segments_recorded;
    }
  }
  std::function<Value(const Plan::Output&)> value_of = [&](const Plan::Output& o) {
    Value v;
    v.name = o.name;
    v.type = o.type;
    v.kind = o.kind;
    if (o.kind == ValueKind::kSequence) {
      for (const Plan::Output& e : o.elems) v.elems.push_back(value_of(e));
    } else if (o.kind == ValueKind::kNone) {
    } else if (o.graph_output < 0) {
      v.known = o.known;
      v.dtype = o.known->dtype;
      v.shape = o.known->shape;
    } else {
      v.device = device_out[static_cast<size_t>(o.graph_output)];
      v.dtype = v.device.dtype();
      v.shape = v.device.shape();
    }
    return v;
  };
  std::vector<Value> outs;
  for (const auto& o : plan.outputs) outs.push_back(value_of(o));
  return outs;
}

}  // namespace alknet::onnx
