// Planning: one compute::Graph per set of input shapes. Values are known on the host or on
// the device; nodes over known values fold (fold.cpp), the rest become graph nodes, one per
// ONNX node (the executor's graph passes fuse them). An If whose condition is known at plan
// time is inlined (its branch planned in place); any other control node ends a segment
// (control_flow.cpp runs it and the rest is planned for what it produced).
#include <algorithm>
#include <functional>
#include <set>

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
  std::optional<Error> unavailable;
  // A sequence (its tensors' slots) or an empty optional.
  ValueKind kind = ValueKind::kTensor;
  std::vector<Slot> elems;
};

struct LocalRef {
  enum Kind { kInput, kConstant, kNode } kind;
  int index;   // seed / plan constant / local node
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

Result<std::shared_ptr<detail::Plan>> Session::Impl::BuildPlan(const Program& prog, size_t start,
                                                               const std::vector<Value>& seeds) {
  const OpTable& table = OpTable::Default();
  auto plan = std::make_shared<Plan>();
  std::unordered_map<std::string, Slot> slots;
  std::vector<LocalRef> refs;
  std::vector<LocalNode> lnodes;
  std::vector<const Value*> flat;  // the seeds' tensors, sequences flattened
  FlattenValues(seeds, flat);
  std::vector<bool> input_used(flat.size(), false);
  std::vector<int> input_ref(flat.size(), -1);

  auto type_of = [&](const std::string& name, DType d) {
    auto it = value_types.find(name);
    return it != value_types.end() && it->second != ElemType::kUndefined ? it->second
                                                                         : FallbackType(d);
  };

  // Seed slots; the tensors numbered in FlattenValues' order.
  int next_flat = 0;
  std::function<Slot(const Value&)> seed_slot = [&](const Value& in) {
    Slot s;
    s.defined = true;
    s.type = in.type;
    s.kind = in.kind;
    if (in.kind == ValueKind::kSequence) {
      for (const Value& e : in.elems) s.elems.push_back(seed_slot(e));
      return s;
    }
    if (in.kind == ValueKind::kNone) return s;
    const int i = next_flat++;
    s.desc = TensorDesc{in.dtype, in.shape};
    refs.push_back({LocalRef::kInput, i, 0});
    s.ref = static_cast<int>(refs.size()) - 1;
    input_ref[static_cast<size_t>(i)] = s.ref;
    s.known = in.known;
    return s;
  };
  for (const Value& in : seeds) slots[in.name] = seed_slot(in);
  // An initializer's slot (of this graph, a graph around it, or an inlined branch).
  auto define_init = [&](const std::string& name, const auto& init) -> Status {
    Slot s;
    s.defined = true;
    ALKNET_ASSIGN_OR_RETURN(DType d,
                            DeviceTypeOf(init.host.type, f16, "initializer '" + name + "'"));
    s.desc = TensorDesc{d, init.host.shape};
    s.known = init.known;
    if (host_eval && !s.known) {
      ALKNET_ASSIGN_OR_RETURN(RefTensor r, ToRef(init.host, f16));
      s.known = std::make_shared<const RefTensor>(std::move(r));
    }
    s.type = init.host.type;
    s.init = &init;
    slots[name] = std::move(s);
    return Ok{};
  };
  // Initializers of this graph and of the graphs around it (inner names shadow outer ones).
  for (const Program* scope = &prog; scope != nullptr; scope = scope->parent) {
    for (auto& [name, init] : scope->inits) {
      if (slots.count(name)) continue;
      ALKNET_TRY(define_init(name, init));
    }
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
      const Initializer& init = *s.init;
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
  // Plans one node; true when it is a control node that must run on its own (the segment
  // stops before it).
  std::function<Result<bool>(const NodeInfo&)> process;
  // Sequence and optional ops (below).
  std::function<Result<bool>(const NodeInfo&)> process_sequence;
  // An If with a known condition: its branch planned in place. When the branch itself holds
  // a node that must run on its own, everything it planned is undone and the If stops the
  // segment instead.
  auto inline_if = [&](const NodeInfo& n, const Program& branch) -> Result<bool> {
    auto saved = slots;
    const size_t nrefs = refs.size(), nlnodes = lnodes.size(), nconst = plan->constants.size();
    const uint64_t folded = plan->folded, on_device = plan->on_device;
    const uint64_t inlined = plan->ifs_inlined;
    auto undo = [&] {
      slots = std::move(saved);
      refs.resize(nrefs);
      lnodes.resize(nlnodes);
      plan->constants.resize(nconst);
      plan->folded = folded;
      plan->on_device = on_device;
      plan->ifs_inlined = inlined;
    };
    for (auto& [name, init] : branch.inits) {
      ALKNET_TRY(define_init(name, init));
    }
    for (const NodeInfo& inner : branch.nodes) {
      ALKNET_ASSIGN_OR_RETURN(bool stop, process(inner));
      if (stop) {
        undo();
        return true;
      }
    }
    std::vector<Slot> outs;
    for (const std::string& name : branch.output_names) {
      auto it = slots.find(name);
      if (it == slots.end()) {
        return Error{ErrorCode::kInvalidArgument,
                     n.Where(model) + ": branch output '" + name + "' is not computed"};
      }
      outs.push_back(it->second);
    }
    // The branch's own names end with it; the If's outputs are what it computed.
    for (auto& [name, slot] : slots) {
      auto old = saved.find(name);
      if (old != saved.end() && old->second.ref < 0 && slot.ref >= 0 && !slot.unavailable &&
          old->second.init == slot.init && old->second.known == slot.known) {
        old->second.ref = slot.ref;  // an outer value first put on the device in the branch
      }
    }
    slots = std::move(saved);
    for (size_t o = 0; o < outs.size() && o < n.outputs.size(); ++o) {
      if (!n.outputs[o].empty()) slots[n.outputs[o]] = std::move(outs[o]);
    }
    ++plan->ifs_inlined;
    return false;
  };

  process = [&](const NodeInfo& n) -> Result<bool> {
    auto fail = [&](const Error& e) { return Error{e.code, n.Where(model) + ": " + e.message}; };
    if (IsControlOp(n.op)) {
      if (n.op != "If") return true;
      if (n.inputs.empty() || n.inputs[0].empty())
        return fail(Error{ErrorCode::kInvalidArgument, "If needs its condition input"});
      auto it = slots.find(n.inputs[0]);
      if (it == slots.end()) {
        return fail(Error{ErrorCode::kInvalidArgument,
                          "condition '" + n.inputs[0] + "' is not defined by any earlier node"});
      }
      if (it->second.unavailable) return *it->second.unavailable;
      if (!it->second.known) return true;  // decided by the data: run on its own
      const RefTensor& c = *it->second.known;
      if (c.data.size() != 1) {
        return fail(Error{ErrorCode::kShape, "the condition has " + std::to_string(c.data.size()) +
                                                 " elements; If needs exactly one"});
      }
      const auto& branch = n.graphs.at(c.data[0] != 0 ? "then_branch" : "else_branch");
      return inline_if(n, *branch);
    }
    if (IsSequenceOp(n.op)) return process_sequence(n);
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
      if (s.kind != ValueKind::kTensor && n.op != "Identity") {
        return fail(
            Error{ErrorCode::kUnsupported,
                  "input '" + name + "' is " +
                      (s.kind == ValueKind::kSequence ? "a sequence" : "an empty optional") + "; " +
                      n.op + " takes tensors"});
      }
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
      return false;
    }
    if (n.op == "Shape" || n.op == "Size") {
      if (on.inputs.empty() || on.inputs[0].absent)
        return fail(Error{ErrorCode::kShape, "needs one input"});
      auto r = ShapeValue(n, on.inputs[0]);
      if (!r.ok()) return fail(r.error());
      known_slot(0, std::move(r).value());
      ++plan->folded;
      return false;
    }

    // Identity forwards its input: the output names the same value, so that no copy is
    // dispatched (a chain of 200,000 of them once exhausted the driver's descriptor pools).
    if (n.op == "Identity" && in_slots.size() == 1 && in_slots[0] != nullptr &&
        n.outputs.size() == 1) {
      Slot s = *in_slots[0];
      s.type = type_of(n.outputs[0], s.desc.dtype);
      define(0, std::move(s));
      ++plan->folded;
      return false;
    }

    // Host ops: fold when every input is known, else the segment stops before the node.
    if (n.host_op != nullptr) {
      std::vector<const RefTensor*> known;
      for (const Slot* in : in_slots) {
        if (in != nullptr && !in->known) return true;
        known.push_back(in != nullptr ? in->known.get() : nullptr);
      }
      auto r = n.host_op->run(n, known);
      if (!r.ok()) return fail(r.error());
      for (size_t o = 0; o < r->size(); ++o) known_slot(o, std::move((*r)[o]));
      ++plan->folded;
      return false;
    }

    const OpRecord* rec = n.record;
    // An input the record reads on the host (Compress's condition, Reshape's shape, TopK's
    // k) computed on the device: the segment stops here, the value is read back and the plan
    // goes on from this node with it known (run.cpp; a device sync like a host op's).
    for (size_t i = 0; i < in_slots.size(); ++i) {
      if (rec != nullptr && in_slots[i] != nullptr && !in_slots[i]->known &&
          in_slots[i]->ref >= 0 && rec->is_host_input(i)) {
        return true;
      }
    }
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
      return false;
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
    const uint64_t limit =
        host_eval ? options.max_memory / 8 : std::min(options.fold_limit, options.max_memory / 8);
    auto folded = FoldOnHost(on, *rec, known, outs, limit);
    if (!folded.ok()) return fail(folded.error());
    if (*folded) {
      for (size_t o = 0; o < (*folded)->size(); ++o) known_slot(o, std::move((**folded)[o]));
      ++plan->folded;
      return false;
    }
    if (host_eval) {
      return fail(Error{ErrorCode::kUnsupported,
                        "this run is evaluated on the host (float64 values beyond float32's "
                        "range; docs/adr/0013-onnx-float64-host.md), and this node cannot be: " +
                            std::string(!rec->reference ? "its record has no float64 reference"
                                                        : "an output exceeds the memory budget")});
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
    return false;
  };

  process_sequence = [&](const NodeInfo& n) -> Result<bool> {
    // The planner's side of sequences: a sequence slot lists its tensors' slots (on the device
    // or known), so these ops dispatch nothing; positions and split sizes are read on the host.
    auto fail = [&](ErrorCode code, const std::string& e) {
      return Error{code, n.Where(model) + ": " + e};
    };
    auto input = [&](size_t i) -> Result<const Slot*> {
      if (i >= n.inputs.size() || n.inputs[i].empty()) return static_cast<const Slot*>(nullptr);
      auto it = slots.find(n.inputs[i]);
      if (it == slots.end()) {
        return fail(ErrorCode::kInvalidArgument,
                    "input '" + n.inputs[i] +
                        "' is not defined by any earlier node, graph input or initializer");
      }
      if (it->second.unavailable) return *it->second.unavailable;
      return &it->second;
    };
    auto kind_name = [](const Slot& s) {
      return s.kind == ValueKind::kSequence ? "a sequence"
             : s.kind == ValueKind::kNone   ? "an empty optional"
                                            : "a tensor";
    };
    auto sequence_in = [&](size_t i) -> Result<const Slot*> {
      ALKNET_ASSIGN_OR_RETURN(const Slot* s, input(i));
      if (s == nullptr)
        return fail(ErrorCode::kInvalidArgument, "needs input " + std::to_string(i));
      if (s->kind != ValueKind::kSequence) {
        return fail(ErrorCode::kInvalidArgument, "input " + std::to_string(i) + " ('" +
                                                     n.inputs[i] + "') is " + kind_name(*s) +
                                                     ", not a sequence");
      }
      return s;
    };
    auto tensor_in = [&](size_t i) -> Result<const Slot*> {
      ALKNET_ASSIGN_OR_RETURN(const Slot* s, input(i));
      if (s == nullptr)
        return fail(ErrorCode::kInvalidArgument, "needs input " + std::to_string(i));
      if (s->kind != ValueKind::kTensor) {
        return fail(ErrorCode::kInvalidArgument, "input " + std::to_string(i) + " ('" +
                                                     n.inputs[i] + "') is " + kind_name(*s) +
                                                     ", not a tensor");
      }
      return s;
    };
    // A position input: one integer, known at plan time.
    auto position = [&](size_t i) -> Result<std::optional<int64_t>> {
      ALKNET_ASSIGN_OR_RETURN(const Slot* s, input(i));
      if (s == nullptr) return std::optional<int64_t>();
      if (s->kind != ValueKind::kTensor || !s->known || s->known->data.size() != 1) {
        return fail(ErrorCode::kUnsupported, "input " + std::to_string(i) + " ('" + n.inputs[i] +
                                                 "') must be one integer known when the plan is "
                                                 "built");
      }
      return std::optional<int64_t>(static_cast<int64_t>(s->known->data[0]));
    };
    auto out = [&](size_t o, Slot s) {
      if (o < n.outputs.size() && !n.outputs[o].empty()) {
        s.defined = true;
        slots[n.outputs[o]] = std::move(s);
      }
    };
    auto scalar = [&](size_t o, DType d, ElemType t, double v) {
      Slot s;
      s.type = t;
      s.desc = TensorDesc{d, {}};
      s.known = std::make_shared<const RefTensor>(RefTensor{d, {}, {v}});
      out(o, std::move(s));
      ++plan->folded;
    };
    auto attr_int = [&](const char* name, int64_t fallback) {
      auto it = n.attrs.find(name);
      if (it == n.attrs.end()) return fallback;
      if (const int64_t* v = std::get_if<int64_t>(&it->second)) return *v;
      return fallback;
    };
    // A node the planner makes for this one (Split, Concat, Unsqueeze, Squeeze), planned like
    // any other; its messages name both.
    auto planned = [&](const char* op, int opset, compute::Attributes attrs,
                       std::vector<std::string> ins, std::vector<std::string> outs) -> Status {
      NodeInfo m;
      m.op = op;
      m.name = n.name;
      m.opset = opset;
      m.index = n.index;
      m.scope = n.scope;
      m.via = n.op;
      m.attrs = std::move(attrs);
      m.inputs = std::move(ins);
      m.outputs = std::move(outs);
      m.record = table.Find(op, opset);
      if (m.record == nullptr)
        return fail(ErrorCode::kUnknownOp, std::string("the op table has no ") + op);
      ALKNET_ASSIGN_OR_RETURN(bool stop, process(m));
      if (stop) return fail(ErrorCode::kUnsupported, "internal: a planned node stopped the plan");
      return Ok{};
    };
    const std::string tmp = "\x1f" + n.scope + std::to_string(n.index) + ":";
    auto known_ints = [&](const std::string& name, std::vector<double> v) {
      Slot s;
      s.type = ElemType::kInt64;
      s.desc = TensorDesc{DType::kI32, {v.size()}};
      s.known = std::make_shared<const RefTensor>(RefTensor{DType::kI32, {v.size()}, std::move(v)});
      s.defined = true;
      slots[name] = std::move(s);
    };
    auto check_length = [&](uint64_t len) -> Status {
      if (len > kMaxSequenceLength) {
        return fail(ErrorCode::kLimit, "the sequence would hold " + std::to_string(len) +
                                           " tensors, more than the limit of " +
                                           std::to_string(kMaxSequenceLength));
      }
      return Ok{};
    };

    if (n.op == "SequenceEmpty") {
      Slot s;
      s.kind = ValueKind::kSequence;
      s.type = static_cast<ElemType>(attr_int("dtype", static_cast<int64_t>(ElemType::kFloat)));
      out(0, std::move(s));
      ++plan->folded;
      return false;
    }
    if (n.op == "SequenceConstruct") {
      Slot s;
      s.kind = ValueKind::kSequence;
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        ALKNET_ASSIGN_OR_RETURN(const Slot* e, tensor_in(i));
        if (i > 0 && e->type != s.type) {
          return fail(ErrorCode::kInvalidArgument,
                      "input " + std::to_string(i) + " is " + ElemTypeName(e->type) + ", input 0 " +
                          ElemTypeName(s.type) + " (a sequence holds one type)");
        }
        s.type = e->type;
        s.elems.push_back(*e);
      }
      out(0, std::move(s));
      ++plan->folded;
      return false;
    }
    if (n.op == "SequenceInsert" || n.op == "SequenceErase" || n.op == "SequenceAt") {
      ALKNET_ASSIGN_OR_RETURN(const Slot* seq, sequence_in(0));
      const bool insert = n.op == "SequenceInsert";
      const size_t at = insert ? 2 : 1;
      ALKNET_ASSIGN_OR_RETURN(std::optional<int64_t> pos, position(at));
      const int64_t len = static_cast<int64_t>(seq->elems.size());
      if (!pos) {
        if (n.op == "SequenceAt")
          return fail(ErrorCode::kInvalidArgument, "needs input 1 (the position)");
        pos = insert ? len : -1;
      }
      int64_t p = *pos < 0 ? *pos + len : *pos;
      if (p < 0 || p > len || (!insert && p == len)) {
        return fail(ErrorCode::kInvalidArgument,
                    "position " + std::to_string(*pos) + " is out of range for a sequence of " +
                        std::to_string(len) + " tensors (" +
                        (insert ? "-" + std::to_string(len) + ".." + std::to_string(len)
                                : "-" + std::to_string(len) + ".." + std::to_string(len - 1)) +
                        ")");
      }
      if (n.op == "SequenceAt") {
        out(0, seq->elems[static_cast<size_t>(p)]);
        ++plan->folded;
        return false;
      }
      Slot s = *seq;
      if (insert) {
        ALKNET_ASSIGN_OR_RETURN(const Slot* t, tensor_in(1));
        if (!s.elems.empty() && t->type != s.type) {
          return fail(ErrorCode::kInvalidArgument, "inserting a " + ElemTypeName(t->type) +
                                                       " tensor into a sequence of " +
                                                       ElemTypeName(s.type));
        }
        ALKNET_TRY(check_length(s.elems.size() + 1));
        s.type = t->type;
        s.elems.insert(s.elems.begin() + p, *t);
      } else {
        s.elems.erase(s.elems.begin() + p);
      }
      out(0, std::move(s));
      ++plan->folded;
      return false;
    }
    if (n.op == "SequenceLength") {
      ALKNET_ASSIGN_OR_RETURN(const Slot* seq, sequence_in(0));
      scalar(0, DType::kI32, ElemType::kInt64, static_cast<double>(seq->elems.size()));
      return false;
    }
    if (n.op == "Optional") {
      ALKNET_ASSIGN_OR_RETURN(const Slot* v, input(0));
      Slot s;
      if (v != nullptr) {
        s = *v;
      } else {
        s.kind = ValueKind::kNone;
      }
      out(0, std::move(s));
      ++plan->folded;
      return false;
    }
    if (n.op == "OptionalHasElement") {
      ALKNET_ASSIGN_OR_RETURN(const Slot* v, input(0));
      const bool has = v != nullptr && v->kind != ValueKind::kNone;
      scalar(0, DType::kBool, ElemType::kBool, has ? 1.0 : 0.0);
      return false;
    }
    if (n.op == "OptionalGetElement") {
      ALKNET_ASSIGN_OR_RETURN(const Slot* v, input(0));
      if (v == nullptr || v->kind == ValueKind::kNone)
        return fail(ErrorCode::kInvalidArgument, "the optional input is empty");
      out(0, *v);
      ++plan->folded;
      return false;
    }
    if (n.op == "SplitToSequence") {
      ALKNET_ASSIGN_OR_RETURN(const Slot* x, tensor_in(0));
      const TensorDesc d = x->known ? TensorDesc{x->known->dtype, x->known->shape} : x->desc;
      const int64_t rank = static_cast<int64_t>(d.shape.size());
      int64_t axis = attr_int("axis", 0);
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank) {
        return fail(ErrorCode::kInvalidAttribute, "axis " + std::to_string(attr_int("axis", 0)) +
                                                      " is out of range for rank " +
                                                      std::to_string(rank));
      }
      const uint64_t dim = d.shape[static_cast<size_t>(axis)];
      ALKNET_ASSIGN_OR_RETURN(const Slot* split, input(1));
      std::vector<double> sizes;
      bool squeeze = false;
      if (split == nullptr) {
        ALKNET_TRY(check_length(dim));
        sizes.assign(dim, 1.0);
        squeeze = attr_int("keepdims", 1) == 0;
      } else {
        if (split->kind != ValueKind::kTensor || !split->known) {
          return fail(ErrorCode::kUnsupported,
                      "input 1 (split) must be known when the plan is built");
        }
        const RefTensor& sp = *split->known;
        if (sp.shape.empty()) {
          const double each = sp.data[0];
          if (!(each >= 1)) {
            return fail(ErrorCode::kInvalidArgument,
                        "split = " + std::to_string(each) + "; a scalar split must be positive");
          }
          const uint64_t step = each >= static_cast<double>(dim) ? std::max<uint64_t>(dim, 1)
                                                                 : static_cast<uint64_t>(each);
          ALKNET_TRY(check_length(dim / step + 1));
          for (uint64_t at = 0; at < dim; at += step) {
            sizes.push_back(static_cast<double>(std::min(step, dim - at)));
          }
        } else {
          ALKNET_TRY(check_length(sp.data.size()));
          double sum = 0;
          for (double v : sp.data) {
            if (v < 0) return fail(ErrorCode::kInvalidArgument, "split holds a negative size");
            sum += v;
          }
          if (sum != static_cast<double>(dim)) {
            return fail(ErrorCode::kInvalidArgument, "the split sizes add up to " +
                                                         std::to_string(static_cast<int64_t>(sum)) +
                                                         ", the axis has " + std::to_string(dim));
          }
          sizes = sp.data;
        }
      }
      Slot s;
      s.kind = ValueKind::kSequence;
      s.type = x->type;
      if (!sizes.empty()) {
        const std::string x_name = n.inputs[0];
        known_ints(tmp + "split", sizes);
        std::vector<std::string> pieces;
        for (size_t k = 0; k < sizes.size(); ++k) pieces.push_back(tmp + std::to_string(k));
        ALKNET_TRY(planned("Split", 13, {{"axis", axis}}, {x_name, tmp + "split"}, pieces));
        if (squeeze) {
          known_ints(tmp + "axes", {static_cast<double>(axis)});
          for (size_t k = 0; k < pieces.size(); ++k) {
            const std::string sq = tmp + "sq" + std::to_string(k);
            ALKNET_TRY(planned("Squeeze", 13, {}, {pieces[k], tmp + "axes"}, {sq}));
            pieces[k] = sq;
          }
        }
        for (const std::string& p : pieces) {
          ALKNET_ASSIGN_OR_RETURN(const Slot* e, [&]() -> Result<const Slot*> {
            auto it = slots.find(p);
            if (it->second.unavailable) return *it->second.unavailable;
            return &it->second;
          }());
          Slot el = *e;
          el.type = x->type;
          s.elems.push_back(std::move(el));
        }
      }
      out(0, std::move(s));
      return false;
    }
    if (n.op == "ConcatFromSequence") {
      ALKNET_ASSIGN_OR_RETURN(const Slot* seq, sequence_in(0));
      if (seq->elems.empty()) {
        return fail(ErrorCode::kInvalidArgument,
                    "the sequence is empty (ConcatFromSequence needs at least one tensor)");
      }
      const Slot first = seq->elems[0];
      const int64_t rank =
          static_cast<int64_t>((first.known ? first.known->shape : first.desc.shape).size());
      const bool new_axis = attr_int("new_axis", 0) != 0;
      int64_t axis = attr_int("axis", 0);
      const int64_t out_rank = rank + (new_axis ? 1 : 0);
      if (axis < 0) axis += out_rank;
      if (axis < 0 || axis >= out_rank) {
        return fail(ErrorCode::kInvalidAttribute, "axis " + std::to_string(attr_int("axis", 0)) +
                                                      " is out of range for rank " +
                                                      std::to_string(out_rank));
      }
      const std::vector<Slot> elems = seq->elems;
      const ElemType type = seq->type;
      std::vector<std::string> parts;
      for (size_t k = 0; k < elems.size(); ++k) {
        const std::string e = tmp + std::to_string(k);
        slots[e] = elems[k];
        parts.push_back(e);
      }
      if (new_axis) {
        known_ints(tmp + "axes", {static_cast<double>(axis)});
        for (size_t k = 0; k < parts.size(); ++k) {
          const std::string u = tmp + "u" + std::to_string(k);
          ALKNET_TRY(planned("Unsqueeze", 13, {}, {parts[k], tmp + "axes"}, {u}));
          parts[k] = u;
        }
      }
      ALKNET_TRY(planned("Concat", 13, {{"axis", axis}}, parts, {tmp + "concat"}));
      Slot s = slots[tmp + "concat"];
      if (s.unavailable) return *s.unavailable;
      s.type = type;
      out(0, std::move(s));
      return false;
    }
    if (n.op == "SequenceMap") {
      const Program& body = *n.graphs.at("body");
      ALKNET_ASSIGN_OR_RETURN(const Slot* first, sequence_in(0));
      const size_t len = first->elems.size();
      std::vector<Slot> ins;
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        ALKNET_ASSIGN_OR_RETURN(const Slot* s, input(i));
        if (s == nullptr || s->kind == ValueKind::kNone) {
          return fail(ErrorCode::kInvalidArgument, "input " + std::to_string(i) + " is empty");
        }
        if (s->kind == ValueKind::kSequence && s->elems.size() != len) {
          return fail(ErrorCode::kInvalidArgument, "input " + std::to_string(i) + " holds " +
                                                       std::to_string(s->elems.size()) +
                                                       " tensors, input 0 " + std::to_string(len));
        }
        ins.push_back(*s);
      }
      std::vector<Slot> results(body.output_names.size());
      for (size_t o = 0; o < results.size(); ++o) {
        results[o].kind = ValueKind::kSequence;
        auto t = value_types.find(body.output_names[o]);
        if (t != value_types.end()) results[o].type = t->second;
      }
      for (size_t e = 0; e < len; ++e) {
        auto saved = slots;
        for (size_t i = 0; i < ins.size() && i < body.input_names.size(); ++i) {
          Slot s = ins[i].kind == ValueKind::kSequence ? ins[i].elems[e] : ins[i];
          s.defined = true;
          slots[body.input_names[i]] = std::move(s);
        }
        for (auto& [name, init] : body.inits) ALKNET_TRY(define_init(name, init));
        for (const NodeInfo& inner : body.nodes) {
          ALKNET_ASSIGN_OR_RETURN(bool stop, process(inner));
          if (stop) {
            return fail(ErrorCode::kUnsupported, "the body holds a node decided by the data (" +
                                                     inner.op + " '" + inner.name +
                                                     "'); SequenceMap plans its body per element");
          }
        }
        for (size_t o = 0; o < body.output_names.size(); ++o) {
          auto it = slots.find(body.output_names[o]);
          if (it == slots.end()) {
            return fail(ErrorCode::kInvalidArgument,
                        "body output '" + body.output_names[o] + "' is not computed");
          }
          if (it->second.unavailable) return *it->second.unavailable;
          results[o].type = it->second.type;
          results[o].elems.push_back(it->second);
        }
        // Outer values first put on the device in the body keep their upload.
        for (auto& [name, slot] : slots) {
          auto old = saved.find(name);
          if (old != saved.end() && old->second.ref < 0 && slot.ref >= 0 && !slot.unavailable &&
              old->second.init == slot.init && old->second.known == slot.known) {
            old->second.ref = slot.ref;
          }
        }
        slots = std::move(saved);
      }
      for (size_t o = 0; o < results.size(); ++o) out(o, std::move(results[o]));
      return false;
    }
    return fail(ErrorCode::kUnknownOp, "internal: sequence op " + n.op + " has no plan");
  };

  for (size_t k = start; k < prog.nodes.size(); ++k) {
    ALKNET_ASSIGN_OR_RETURN(bool stop, process(prog.nodes[k]));
    if (stop) {
      plan->stop = static_cast<int>(k);
      break;
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

  // Outputs: the program's, or the values live after the node the segment stops before.
  std::vector<std::string> out_names;
  std::vector<ElemType> out_types;
  if (plan->stop < 0) {
    out_names = prog.output_names;
    for (size_t o = 0; o < out_names.size(); ++o) {
      out_types.push_back(&prog == &main && o < outputs.size() ? outputs[o].type
                                                               : ElemType::kUndefined);
    }
  } else {
    std::set<std::string> live(prog.output_names.begin(), prog.output_names.end());
    for (size_t k = static_cast<size_t>(plan->stop); k < prog.nodes.size(); ++k) {
      const NodeInfo& n = prog.nodes[k];
      live.insert(n.inputs.begin(), n.inputs.end());
      for (const auto& [attr, g] : n.graphs) live.insert(g->free.begin(), g->free.end());
    }
    for (const std::string& name : live) {
      auto it = slots.find(name);
      if (name.empty() || it == slots.end() || it->second.unavailable || it->second.init) continue;
      out_names.push_back(name);
      out_types.push_back(ElemType::kUndefined);
    }
  }
  std::vector<int> output_refs;
  std::function<Result<Plan::Output>(Slot&, const std::string&, ElemType)> make_output =
      [&](Slot& s, const std::string& name, ElemType type) -> Result<Plan::Output> {
    if (s.unavailable) return *s.unavailable;
    Plan::Output po;
    po.name = name;
    po.type = type != ElemType::kUndefined ? type : s.type;
    po.kind = s.kind;
    if (s.kind == ValueKind::kSequence) {
      for (Slot& e : s.elems) {
        ALKNET_ASSIGN_OR_RETURN(Plan::Output eo, make_output(e, name, type));
        po.elems.push_back(std::move(eo));
      }
      return po;
    }
    if (s.kind == ValueKind::kNone) return po;
    po.desc = s.known ? TensorDesc{s.known->dtype, s.known->shape} : s.desc;
    // Between segments a known value stays known: the plan after the node folds with it.
    if (s.known && (s.ref < 0 || plan->stop >= 0)) {
      po.known = s.known;
    } else {
      ALKNET_ASSIGN_OR_RETURN(int r, device_ref(s, name));
      if (refs[r].kind == LocalRef::kInput) input_used[refs[r].index] = true;
      po.graph_output = static_cast<int>(output_refs.size());
      output_refs.push_back(r);
    }
    return po;
  };
  for (size_t o = 0; o < out_names.size(); ++o) {
    const std::string& name = out_names[o];
    auto it = slots.find(name);
    if (it == slots.end()) {
      return Error{ErrorCode::kInvalidArgument,
                   model + ": " + prog.scope + "output '" + name + "' is not computed by any node"};
    }
    ALKNET_ASSIGN_OR_RETURN(Plan::Output po, make_output(it->second, name, out_types[o]));
    plan->outputs.push_back(std::move(po));
  }

  // Assemble the graph: used user inputs, then constants, then nodes.
  std::vector<int> graph_id(refs.size(), -1);
  int next = 0;
  for (size_t i = 0; i < flat.size(); ++i) {
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
