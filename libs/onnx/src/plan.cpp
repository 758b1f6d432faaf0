// Planning: one compute::Graph per set of input shapes. Values are known on the host or on
// the device; nodes over known values fold (fold.cpp), the rest become graph nodes, one per
// ONNX node (the executor's graph passes fuse them).
#include <algorithm>

#include "session_impl.h"

namespace alknet::onnx {

using namespace detail;

namespace {

ElemType FallbackType(DType d) {
  auto t = ElemTypeOf(d);
  return t ? *t : ElemType::kUndefined;
}

// A value while planning: on the device (a local ref), known on the host, or both.
struct Slot {
  bool defined = false;
  int ref = -1;
  TensorDesc desc;
  ConstValue known;
  ElemType type = ElemType::kUndefined;
  const Initializer* init = nullptr;
  std::string init_name;
  std::optional<Error> unavailable;
};

struct LocalRef {
  enum Kind { kInput, kConstant, kNode } kind;
  int index;   // session input / plan constant / local node
  int output;  // for kNode
};

struct LocalNode {
  std::string op, name;
  int opset;
  compute::Attributes attrs;
  std::vector<int> refs;  // -1: absent or host-only
  std::vector<ConstValue> values;
  int output_count;
};

}  // namespace

Result<std::shared_ptr<detail::Plan>> Session::Impl::BuildPlan(
    std::span<const HostInput* const> ordered) {
  const OpTable& table = OpTable::Default();
  auto plan = std::make_shared<Plan>();
  std::unordered_map<std::string, Slot> slots;
  std::vector<LocalRef> refs;
  std::vector<LocalNode> lnodes;
  std::vector<bool> input_used(inputs.size(), false);
  std::vector<int> input_ref(inputs.size(), -1);

  auto type_of = [&](const std::string& name, DType d) {
    auto it = value_types.find(name);
    return it != value_types.end() && it->second != ElemType::kUndefined ? it->second
                                                                         : FallbackType(d);
  };

  for (size_t i = 0; i < inputs.size(); ++i) {
    const HostInput& in = *ordered[i];
    Slot s;
    s.defined = true;
    ALKNET_ASSIGN_OR_RETURN(DType d,
                            DeviceTypeOf(inputs[i].type, f16, "input '" + inputs[i].name + "'"));
    s.desc = TensorDesc{d, in.shape};
    s.type = inputs[i].type;
    refs.push_back({LocalRef::kInput, static_cast<int>(i), 0});
    s.ref = static_cast<int>(refs.size()) - 1;
    input_ref[i] = s.ref;
    if (host_read[i]) {
      Tensor t{in.name, in.type, in.shape, std::vector<std::byte>(in.data.begin(), in.data.end())};
      ALKNET_ASSIGN_OR_RETURN(RefTensor r, ToRef(t, f16));
      s.known = std::make_shared<const RefTensor>(std::move(r));
    }
    slots[inputs[i].name] = std::move(s);
  }
  for (auto& [name, init] : inits) {
    if (slots.count(name)) continue;
    Slot s;
    s.defined = true;
    ALKNET_ASSIGN_OR_RETURN(DType d,
                            DeviceTypeOf(init.host.type, f16, "initializer '" + name + "'"));
    s.desc = TensorDesc{d, init.host.shape};
    s.known = init.known;
    s.type = init.host.type;
    s.init = &init;
    s.init_name = name;
    slots[name] = std::move(s);
  }

  auto add_constant = [&](compute::Tensor t) {
    plan->constants.push_back(std::move(t));
    refs.push_back({LocalRef::kConstant, static_cast<int>(plan->constants.size()) - 1, 0});
    return static_cast<int>(refs.size()) - 1;
  };
  // The value on the device: initializers are uploaded once per session, folded values
  // once per plan.
  auto device_ref = [&](Slot& s, const std::string& name) -> Result<int> {
    if (s.ref >= 0) return s.ref;
    if (s.init != nullptr) {
      Initializer& init = inits[s.init_name];
      if (!init.device.valid()) {
        ALKNET_ASSIGN_OR_RETURN(std::vector<std::byte> bytes, ToDeviceBytes(init.host, f16));
        ALKNET_ASSIGN_OR_RETURN(init.device, exec->Upload(s.desc.dtype, s.desc.shape, bytes));
        ++stats.initializers_uploaded;
      }
      s.ref = add_constant(init.device);
      return s.ref;
    }
    if (s.known) {
      ALKNET_ASSIGN_OR_RETURN(std::vector<std::byte> bytes,
                              RefToDeviceBytes(*s.known, model + ": value '" + name + "'"));
      ALKNET_ASSIGN_OR_RETURN(compute::Tensor t,
                              exec->Upload(s.known->dtype, s.known->shape, bytes));
      s.ref = add_constant(std::move(t));
      return s.ref;
    }
    return Error{ErrorCode::kInvalidArgument,
                 model + ": value '" + name + "' is neither on the device nor known"};
  };

  auto emit = [&](LocalNode ln, const std::vector<std::string>& out_names,
                  const std::vector<TensorDesc>& outs) {
    lnodes.push_back(std::move(ln));
    const int node_index = static_cast<int>(lnodes.size()) - 1;
    for (size_t o = 0; o < outs.size(); ++o) {
      refs.push_back({LocalRef::kNode, node_index, static_cast<int>(o)});
      Slot s;
      s.defined = true;
      s.ref = static_cast<int>(refs.size()) - 1;
      s.desc = TensorDesc{outs[o].dtype, outs[o].shape};
      s.type =
          o < out_names.size() ? type_of(out_names[o], outs[o].dtype) : FallbackType(outs[o].dtype);
      if (o < out_names.size() && !out_names[o].empty()) slots[out_names[o]] = std::move(s);
    }
    ++plan->on_device;
  };
  for (const NodeInfo& n : nodes) {
    auto fail = [&](const Error& e) { return Error{e.code, n.Where(model) + ": " + e.message}; };
    // Inputs.
    OpNode on{n.op, n.name, n.opset, n.attrs, {}, {}, {}};
    compute::RequestOutputs(on, n.record, static_cast<int>(n.outputs.size()));
    std::vector<Slot*> in_slots;
    for (const std::string& name : n.inputs) {
      if (name.empty()) {
        TensorDesc d;
        d.absent = true;
        on.inputs.push_back(d);
        on.input_values.push_back(nullptr);
        in_slots.push_back(nullptr);
        continue;
      }
      auto it = slots.find(name);
      if (it == slots.end()) {
        return Error{ErrorCode::kInvalidArgument,
                     n.Where(model) + ": input '" + name +
                         "' is not defined by any earlier node, graph input or initializer"};
      }
      Slot& s = it->second;
      if (s.unavailable) return *s.unavailable;
      on.inputs.push_back(s.known ? TensorDesc{s.known->dtype, s.known->shape} : s.desc);
      on.input_values.push_back(s.known);
      in_slots.push_back(&s);
    }
    auto define = [&](size_t o, Slot s) {
      if (o < n.outputs.size() && !n.outputs[o].empty()) {
        s.defined = true;
        slots[n.outputs[o]] = std::move(s);
      }
    };
    auto known_slot = [&](size_t o, RefTensor r) {
      Slot s;
      s.type = o < n.outputs.size() ? type_of(n.outputs[o], r.dtype) : FallbackType(r.dtype);
      s.desc = TensorDesc{r.dtype, r.shape};
      s.known = std::make_shared<const RefTensor>(std::move(r));
      define(o, std::move(s));
    };

    // Importer ops.
    if (n.op == "Constant") {
      auto v = ConstantValue(n);
      if (!v.ok()) return fail(v.error());
      known_slot(0, **v);
      ++plan->folded;
      continue;
    }
    if (n.op == "Shape" || n.op == "Size") {
      if (on.inputs.empty() || on.inputs[0].absent)
        return fail(Error{ErrorCode::kShape, "needs one input"});
      auto r = ShapeValue(n, on.inputs[0]);
      if (!r.ok()) return fail(r.error());
      known_slot(0, std::move(r).value());
      ++plan->folded;
      continue;
    }

    // Identity forwards its input: the output names the same value, so that no copy is
    // dispatched (a chain of 200,000 of them once exhausted the driver's descriptor pools).
    if (n.op == "Identity" && in_slots.size() == 1 && in_slots[0] != nullptr &&
        n.outputs.size() == 1) {
      Slot s = *in_slots[0];
      s.type = type_of(n.outputs[0], s.desc.dtype);
      define(0, std::move(s));
      ++plan->folded;
      continue;
    }

    const OpRecord* rec = n.record;
    auto inferred = table.Infer(on);
    if (!inferred.ok()) {
      // Nothing can consume this node: mark its outputs, so that the error surfaces only if
      // a value is needed (a dangling unsupported branch does not sink the model).
      Error e = fail(inferred.error());
      bool any = false;
      for (size_t o = 0; o < n.outputs.size(); ++o) {
        if (n.outputs[o].empty()) continue;
        Slot s;
        s.unavailable = e;
        slots[n.outputs[o]] = std::move(s);
        any = true;
      }
      if (!any) return e;
      continue;
    }
    std::vector<TensorDesc> outs = std::move(inferred).value();
    if (n.outputs.size() > outs.size()) {
      return fail(Error{ErrorCode::kUnsupported, "the node lists " +
                                                     std::to_string(n.outputs.size()) +
                                                     " outputs, the op table's record produces " +
                                                     std::to_string(outs.size())});
    }

    // The memory budget: each value at its device size (Range's values are computed on the
    // host in float64 whichever path it takes); the host copy of a folded value is float64.
    for (size_t o = 0; o < outs.size(); ++o) {
      const uint64_t per = n.op == "Range" ? 8 : compute::DeviceElementSize(outs[o].dtype);
      const auto bytes = compute::CheckedBytes(outs[o].shape, per);
      if (!bytes || *bytes > options.max_memory) {
        return fail(Error{
            ErrorCode::kLimit,
            "output " + std::to_string(o) + " (" + compute::DescToString(outs[o]) + ") needs " +
                (bytes ? std::to_string(*bytes) : std::string("over 2^63")) +
                " bytes, more than the memory budget of " + std::to_string(options.max_memory) +
                " (SessionOptions::max_memory; alknet infer --max-memory)"});
      }
    }

    // Fold: every input known and the results small.
    std::vector<const RefTensor*> known;
    for (const Slot* in : in_slots) known.push_back(in != nullptr ? in->known.get() : nullptr);
    auto folded =
        FoldOnHost(on, *rec, known, outs, std::min(options.fold_limit, options.max_memory / 8));
    if (!folded.ok()) return fail(folded.error());
    if (*folded) {
      for (size_t o = 0; o < (*folded)->size(); ++o) known_slot(o, std::move((**folded)[o]));
      ++plan->folded;
      continue;
    }

    // A device node (the executor's passes fuse it with its neighbours).
    {
      LocalNode ln{n.op, n.name, n.opset, n.attrs, {}, {}, static_cast<int>(outs.size())};
      for (size_t i = 0; i < in_slots.size(); ++i) {
        Slot* s = in_slots[i];
        ln.values.push_back(s ? s->known : nullptr);
        if (s == nullptr || (rec->is_host_input(i) && s->known)) {
          ln.refs.push_back(-1);
          continue;
        }
        ALKNET_ASSIGN_OR_RETURN(int r, device_ref(*s, n.inputs[i]));
        if (refs[r].kind == LocalRef::kInput) input_used[refs[r].index] = true;
        ln.refs.push_back(r);
      }
      emit(std::move(ln), n.outputs, outs);
    }
  }

  // One command buffer records every device node with its own bind group; past some tens of
  // thousands the driver's descriptor-pool allocation fails inside Dawn (lavapipe crashed
  // at 70,000 single-dispatch nodes, ran 35,000), so bigger plans are refused.
  constexpr uint64_t kMaxDeviceNodes = 32768;
  if (plan->on_device > kMaxDeviceNodes) {
    return Error{ErrorCode::kLimit, model + ": the plan has " + std::to_string(plan->on_device) +
                                        " device nodes, more than the " +
                                        std::to_string(kMaxDeviceNodes) +
                                        " one command buffer may hold"};
  }

  // Outputs.
  std::vector<int> output_refs;
  for (const ValueInfo& out : outputs) {
    auto it = slots.find(out.name);
    if (it == slots.end()) {
      return Error{ErrorCode::kInvalidArgument,
                   model + ": output '" + out.name + "' is not computed by any node"};
    }
    Slot& s = it->second;
    if (s.unavailable) return *s.unavailable;
    Plan::Output po;
    po.name = out.name;
    po.type = out.type != ElemType::kUndefined ? out.type : s.type;
    if (s.known && s.ref < 0) {
      po.known = s.known;
    } else {
      ALKNET_ASSIGN_OR_RETURN(int r, device_ref(s, out.name));
      if (refs[r].kind == LocalRef::kInput) input_used[refs[r].index] = true;
      po.graph_output = static_cast<int>(output_refs.size());
      output_refs.push_back(r);
    }
    plan->outputs.push_back(std::move(po));
  }

  // Assemble the graph: used user inputs, then constants, then nodes.
  std::vector<int> graph_id(refs.size(), -1);
  int next = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!input_used[i]) continue;
    graph_id[input_ref[i]] = next++;
    plan->user_inputs.push_back(static_cast<int>(i));
  }
  const int first_constant = next;
  for (size_t r = 0; r < refs.size(); ++r) {
    if (refs[r].kind == LocalRef::kConstant) graph_id[r] = first_constant + refs[r].index;
  }
  plan->graph = Graph(first_constant + static_cast<int>(plan->constants.size()));
  // Node outputs get their ids as the nodes are added (nodes only read earlier values).
  std::vector<std::vector<int>> node_refs(lnodes.size());
  for (size_t r = 0; r < refs.size(); ++r) {
    if (refs[r].kind == LocalRef::kNode) node_refs[refs[r].index].push_back(static_cast<int>(r));
  }
  for (size_t k = 0; k < lnodes.size(); ++k) {
    LocalNode& ln = lnodes[k];
    std::vector<int> ins;
    for (int r : ln.refs) {
      if (r >= 0 && graph_id[r] < 0) {
        return Error{ErrorCode::kInvalidArgument,
                     model + ": internal: node " + ln.name + " reads a value planned later"};
      }
      ins.push_back(r < 0 ? Graph::kAbsent : graph_id[r]);
    }
    const int first = plan->graph.Add(ln.op, std::move(ins), ln.attrs, ln.opset, ln.output_count);
    plan->graph.nodes.back().name = ln.name;
    plan->graph.nodes.back().input_values = ln.values;
    for (int r : node_refs[k]) graph_id[r] = first + refs[r].output;
  }
  for (int r : output_refs) plan->graph.outputs.push_back(graph_id[r]);
  return plan;
}

}  // namespace alknet::onnx
