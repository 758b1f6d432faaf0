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

// A node the planner makes for `n` (Split, Concat, Unsqueeze, Squeeze, Reshape, ...): it
// keeps n's name, place and scope, and `via` names n in its messages. `record` is null when the
// op table has no such op.
NodeInfo DerivedNode(const NodeInfo& n, const char* op, int opset, compute::Attributes attrs,
                     std::vector<std::string> ins, std::vector<std::string> outs) {
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
  m.record = OpTable::Default().Find(op, opset);
  return m;
}

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
  // A sequence whose tensors all have one shape, also held stacked on a new axis 0 ([length,
  // element shape]): a SequenceMap plans its body once over it, a ConcatFromSequence along
  // axis 0 reshapes it. The elements are then droppable Split outputs, dispatched only if
  // something reads them. Dropped when the sequence changes (Insert, Erase).
  std::shared_ptr<const Slot> stacked;
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
  // Dropped from the graph when nothing reads its outputs (a sequence's elements split off
  // a stacked tensor, when only the stacked tensor is used).
  bool droppable = false;
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

  bool emit_droppable = false;  // set while planning a sequence's element nodes
  auto emit = [&](LocalNode ln, const std::vector<std::string>& out_names,
                  const std::vector<TensorDesc>& outs) {
    ln.droppable = emit_droppable;
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
  // What planning a subgraph in place may undo: the slots and everything planned after.
  struct Checkpoint {
    std::unordered_map<std::string, Slot> slots;
    size_t refs, lnodes, constants;
    uint64_t folded, on_device, ifs_inlined, loops_unrolled, maps_batched;
  };
  auto checkpoint = [&] {
    return Checkpoint{slots,
                      refs.size(),
                      lnodes.size(),
                      plan->constants.size(),
                      plan->folded,
                      plan->on_device,
                      plan->ifs_inlined,
                      plan->loops_unrolled,
                      plan->maps_batched};
  };
  auto restore = [&](Checkpoint& c) {
    slots = std::move(c.slots);
    refs.resize(c.refs);
    lnodes.resize(c.lnodes);
    plan->constants.resize(c.constants);
    plan->folded = c.folded;
    plan->on_device = c.on_device;
    plan->ifs_inlined = c.ifs_inlined;
    plan->loops_unrolled = c.loops_unrolled;
    plan->maps_batched = c.maps_batched;
  };
  // After a subgraph planned in place: its own names end with it (the outer slots come back)
  // but outer values it first put on the device keep their upload.
  auto leave_scope = [&](std::unordered_map<std::string, Slot> outer) {
    for (auto& [name, slot] : slots) {
      auto old = outer.find(name);
      if (old != outer.end() && old->second.ref < 0 && slot.ref >= 0 && !slot.unavailable &&
          old->second.init == slot.init && old->second.known == slot.known) {
        old->second.ref = slot.ref;
      }
    }
    slots = std::move(outer);
  };
  // A known int64 list (the axes or sizes input of a node the planner makes).
  auto define_ints = [&](const std::string& name, std::vector<double> v) {
    Slot s;
    s.type = ElemType::kInt64;
    s.desc = TensorDesc{DType::kI32, {v.size()}};
    s.known = std::make_shared<const RefTensor>(RefTensor{DType::kI32, {v.size()}, std::move(v)});
    s.defined = true;
    slots[name] = std::move(s);
  };
  // A node the planner makes for `n` (Split, Concat, Unsqueeze, Squeeze, Reshape), planned
  // like any other; its messages name both.
  auto plan_node = [&](const NodeInfo& n, const char* op, int opset, compute::Attributes attrs,
                       std::vector<std::string> ins, std::vector<std::string> outs) -> Status {
    NodeInfo m = DerivedNode(n, op, opset, std::move(attrs), std::move(ins), std::move(outs));
    if (m.record == nullptr) {
      return Error{ErrorCode::kUnknownOp,
                   n.Where(model) + ": " + std::string("the op table has no ") + op};
    }
    ALKNET_ASSIGN_OR_RETURN(bool stop, process(m));
    if (stop) {
      return Error{ErrorCode::kUnsupported,
                   n.Where(model) + ": internal: a planned node stopped the plan"};
    }
    return Ok{};
  };
  // The slot of `name` after plan_node made it (its error when it could not be planned).
  auto made_slot = [&](const std::string& name) -> Result<Slot> {
    auto it = slots.find(name);
    if (it == slots.end()) {
      return Error{ErrorCode::kInvalidArgument, model + ": internal: '" + name + "' not planned"};
    }
    if (it->second.unavailable) return *it->second.unavailable;
    return it->second;
  };
  // An If with a known condition: its branch planned in place. When the branch itself holds
  // a node that must run on its own, everything it planned is undone and the If stops the
  // segment instead.
  auto inline_if = [&](const NodeInfo& n, const Program& branch) -> Result<bool> {
    Checkpoint saved = checkpoint();
    auto undo = [&] { restore(saved); };
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
    leave_scope(std::move(saved.slots));
    for (size_t o = 0; o < outs.size() && o < n.outputs.size(); ++o) {
      if (!n.outputs[o].empty()) slots[n.outputs[o]] = std::move(outs[o]);
    }
    ++plan->ifs_inlined;
    return false;
  };
  // A Loop whose trip count and condition are known here, unrolled: each iteration's body
  // planned in place with its iteration number known, the loop-carried values passed on as
  // slots (on the device, no read-back), the scan outputs stacked by one Concat at the end.
  // Only while every iteration's condition output is known (a constant `true`, or computed
  // from known values); a condition decided by the data, a body node that must run on its
  // own, or more than max_unrolled_loop_nodes body nodes in all undo everything and the Loop
  // stops the segment (control_flow.cpp runs it iteration by iteration).
  // Body nodes planned by unrolling in this plan, nested Loops included (never undone): past
  // the budget no Loop unrolls, so nested loops cannot multiply the planning work.
  uint64_t unrolled_work = 0;
  auto inline_loop = [&](const NodeInfo& n) -> Result<bool> {
    if (options.max_unrolled_loop_nodes == 0) return true;
    const Program& body = *n.graphs.at("body");
    // A one-element known input, or nullopt (absent or not known).
    auto known_scalar = [&](size_t i) -> std::optional<double> {
      if (i >= n.inputs.size() || n.inputs[i].empty()) return std::nullopt;
      auto it = slots.find(n.inputs[i]);
      if (it == slots.end() || it->second.unavailable || it->second.kind != ValueKind::kTensor ||
          !it->second.known || it->second.known->data.size() != 1) {
        return std::nullopt;
      }
      return it->second.known->data[0];
    };
    const std::optional<double> m = known_scalar(0);
    if (!m) return true;  // no trip count, or one computed on the device
    const bool has_cond = n.inputs.size() > 1 && !n.inputs[1].empty();
    const std::optional<double> c0 = has_cond ? known_scalar(1) : std::optional<double>(1.0);
    if (!c0 || *c0 == 0 || !(*m >= 1)) return true;  // zero iterations: run on its own
    const uint64_t per = std::max<uint64_t>(body.nodes.size(), 1);
    const uint64_t budget = options.max_unrolled_loop_nodes;
    if (*m > static_cast<double>(options.max_loop_iterations) ||
        *m > static_cast<double>(budget / per)) {
      return true;  // run on its own (where max_loop_iterations also applies)
    }
    const int64_t trips = static_cast<int64_t>(*m);
    const size_t carried_n = n.inputs.size() >= 2 ? n.inputs.size() - 2 : 0;
    if (body.input_names.size() != 2 + carried_n || body.output_names.size() < 1 + carried_n) {
      return true;  // CheckControlNode's message comes from the run
    }
    const size_t scans_n = body.output_names.size() - 1 - carried_n;
    std::vector<Slot> carried;
    for (size_t j = 0; j < carried_n; ++j) {
      auto it = slots.find(n.inputs[2 + j]);
      if (n.inputs[2 + j].empty() || it == slots.end() || it->second.unavailable) return true;
      carried.push_back(it->second);
    }
    Checkpoint saved = checkpoint();
    std::vector<std::vector<Slot>> scans(scans_n);
    for (int64_t i = 0; i < trips; ++i) {
      auto bind = [&](const std::string& name, Slot s) {
        s.defined = true;
        if (!name.empty()) slots[name] = std::move(s);
      };
      Slot iter;
      iter.type = ElemType::kInt64;
      iter.desc = TensorDesc{DType::kI32, {}};
      iter.known =
          std::make_shared<const RefTensor>(RefTensor{DType::kI32, {}, {static_cast<double>(i)}});
      bind(body.input_names[0], std::move(iter));
      Slot cond;
      cond.type = ElemType::kBool;
      cond.desc = TensorDesc{DType::kBool, {}};
      cond.known = std::make_shared<const RefTensor>(RefTensor{DType::kBool, {}, {1.0}});
      bind(body.input_names[1], std::move(cond));
      for (size_t j = 0; j < carried_n; ++j) bind(body.input_names[2 + j], carried[j]);
      for (auto& [name, init] : body.inits) ALKNET_TRY(define_init(name, init));
      for (const NodeInfo& inner : body.nodes) {
        if (++unrolled_work > budget) {
          restore(saved);
          return true;
        }
        ALKNET_ASSIGN_OR_RETURN(bool stop, process(inner));
        if (stop) {
          restore(saved);
          return true;
        }
      }
      std::vector<Slot> outs;
      for (const std::string& name : body.output_names) {
        auto it = slots.find(name);
        if (it == slots.end() || it->second.unavailable) {
          restore(saved);
          return true;  // the run names what is missing
        }
        outs.push_back(it->second);
      }
      const Slot& c = outs[0];
      if (c.kind != ValueKind::kTensor || !c.known || c.known->data.size() != 1 ||
          plan->on_device - saved.on_device > budget) {
        restore(saved);
        return true;  // decided by the data, or too big to unroll
      }
      for (size_t j = 0; j < carried_n; ++j) carried[j] = std::move(outs[1 + j]);
      for (size_t k = 0; k < scans_n; ++k) scans[k].push_back(std::move(outs[1 + carried_n + k]));
      if (c.known->data[0] == 0) break;
    }
    // The scan outputs: each iteration's value with a new axis 0, concatenated.
    const std::string tmp = "\x1f" + n.scope + std::to_string(n.index) + ":";
    std::vector<Slot> stacked;
    for (size_t k = 0; k < scans_n; ++k) {
      define_ints(tmp + "axes", {0.0});
      std::vector<std::string> parts;
      for (size_t t = 0; t < scans[k].size(); ++t) {
        const std::string e = tmp + "s" + std::to_string(t);
        const std::string u = tmp + "u" + std::to_string(t);
        slots[e] = scans[k][t];
        ALKNET_TRY(plan_node(n, "Unsqueeze", 13, {}, {e, tmp + "axes"}, {u}));
        parts.push_back(u);
      }
      ALKNET_TRY(plan_node(n, "Concat", 13, {{"axis", int64_t{0}}}, parts, {tmp + "concat"}));
      ALKNET_ASSIGN_OR_RETURN(Slot s, made_slot(tmp + "concat"));
      s.type = scans[k][0].type;
      stacked.push_back(std::move(s));
    }
    leave_scope(std::move(saved.slots));
    for (size_t o = 0; o < n.outputs.size(); ++o) {
      if (n.outputs[o].empty()) continue;
      if (o >= carried_n + stacked.size()) break;
      Slot s = o < carried_n ? carried[o] : stacked[o - carried_n];
      s.defined = true;
      slots[n.outputs[o]] = std::move(s);
    }
    ++plan->loops_unrolled;
    return false;
  };

  // SequenceMap over sequences whose tensors share one shape, planned once over them
  // stacked on a new axis 0 instead of once per element: the body's nodes are rewritten for
  // the extra leading axis where that computes exactly what each element would (pointwise
  // ops, broadcasts whose other operands do not depend on the element, MatMul, Gemm through
  // a reshape to rows, Softmax and Transpose with their axes moved). Anything else (Shape,
  // reductions, a subgraph reading an element, a node that must run on its own) undoes the
  // attempt: false, and the body is planned per element.
  auto batch_map = [&](const NodeInfo& n, const Program& body, const std::vector<Slot>& ins,
                       size_t len, std::vector<Slot>& results) -> Result<bool> {
    if (len < 2) return false;
    auto shape_of = [](const Slot& e) -> const std::vector<uint64_t>& {
      return e.known ? e.known->shape : e.desc.shape;
    };
    auto dtype_of = [](const Slot& e) { return e.known ? e.known->dtype : e.desc.dtype; };
    for (const Slot& in : ins) {
      if (in.kind != ValueKind::kSequence) continue;
      for (const Slot& e : in.elems) {
        if (e.kind != ValueKind::kTensor || e.unavailable || shape_of(e) != shape_of(in.elems[0]) ||
            dtype_of(e) != dtype_of(in.elems[0])) {
          return false;
        }
      }
    }
    Checkpoint saved = checkpoint();
    auto give_up = [&] {
      restore(saved);
      return false;
    };
    const std::string tmp = "\x1f" + n.scope + std::to_string(n.index) + ":b";
    std::map<std::string, size_t> batched;  // body values held stacked: their element rank
    for (size_t i = 0; i < ins.size() && i < body.input_names.size(); ++i) {
      const Slot& in = ins[i];
      Slot s;
      if (in.kind != ValueKind::kSequence) {
        s = in;
      } else if (in.stacked) {
        s = *in.stacked;
      } else {
        // Stacked here: each element with a new axis 0, concatenated (one copy).
        define_ints(tmp + "axes", {0.0});
        std::vector<std::string> parts;
        for (size_t e = 0; e < len; ++e) {
          const std::string el = tmp + std::to_string(i) + "e" + std::to_string(e);
          slots[el] = in.elems[e];
          if (!plan_node(n, "Unsqueeze", 13, {}, {el, tmp + "axes"}, {el + "u"}).ok())
            return give_up();
          parts.push_back(el + "u");
        }
        const std::string st = tmp + std::to_string(i) + "stack";
        if (!plan_node(n, "Concat", 13, {{"axis", int64_t{0}}}, parts, {st}).ok()) return give_up();
        auto made = made_slot(st);
        if (!made.ok()) return give_up();
        s = std::move(made).value();
      }
      if (in.kind == ValueKind::kSequence) {
        s.type = in.type;
        batched[body.input_names[i]] = shape_of(in.elems[0]).size();
      }
      s.defined = true;
      s.stacked = nullptr;
      slots[body.input_names[i]] = std::move(s);
    }
    for (auto& [name, init] : body.inits) ALKNET_TRY(define_init(name, init));
    static const std::set<std::string> kPointwise = {"Abs",
                                                     "Acos",
                                                     "Acosh",
                                                     "Asin",
                                                     "Asinh",
                                                     "Atan",
                                                     "Atanh",
                                                     "Cast",
                                                     "Ceil",
                                                     "Celu",
                                                     "Clip",
                                                     "Cos",
                                                     "Cosh",
                                                     "Elu",
                                                     "Erf",
                                                     "Exp",
                                                     "Floor",
                                                     "Gelu",
                                                     "HardSigmoid",
                                                     "HardSwish",
                                                     "Identity",
                                                     "IsInf",
                                                     "IsNaN",
                                                     "LeakyRelu",
                                                     "Log",
                                                     "Mish",
                                                     "Neg",
                                                     "Not",
                                                     "Reciprocal",
                                                     "Relu",
                                                     "Round",
                                                     "Selu",
                                                     "Shrink",
                                                     "Sigmoid",
                                                     "Sign",
                                                     "Sin",
                                                     "Sinh",
                                                     "Softplus",
                                                     "Softsign",
                                                     "Sqrt",
                                                     "Tan",
                                                     "Tanh",
                                                     "ThresholdedRelu"};
    static const std::set<std::string> kBroadcast = {"Add",       "And",         "BitwiseAnd",
                                                     "BitwiseOr", "BitwiseXor",  "Div",
                                                     "Equal",     "Greater",     "GreaterOrEqual",
                                                     "Less",      "LessOrEqual", "Max",
                                                     "Mean",      "Min",         "Mod",
                                                     "Mul",       "Or",          "Pow",
                                                     "PRelu",     "Sub",         "Sum",
                                                     "Where",     "Xor"};
    auto slot_rank = [&](const std::string& name) -> std::optional<size_t> {
      auto it = slots.find(name);
      if (it == slots.end() || it->second.unavailable || it->second.kind != ValueKind::kTensor)
        return std::nullopt;
      return shape_of(it->second).size();
    };
    for (const NodeInfo& inner : body.nodes) {
      bool reads_batched = false;
      std::vector<int> ranks;  // per input: the element rank when batched, -1 otherwise
      for (const std::string& in : inner.inputs) {
        auto it = batched.find(in);
        ranks.push_back(it == batched.end() ? -1 : static_cast<int>(it->second));
        reads_batched = reads_batched || it != batched.end();
      }
      for (const auto& [attr, g] : inner.graphs) {
        for (const std::string& f : g->free) {
          if (batched.count(f)) return give_up();  // a subgraph reading an element
        }
      }
      if (!reads_batched) {
        // Independent of the element: planned once, the same for every element.
        auto r = process(inner);
        if (!r.ok() || *r) return give_up();
        continue;
      }
      // The other operands' ranks (those not read per element).
      auto invariant_rank = [&](size_t i) -> std::optional<size_t> {
        if (inner.inputs[i].empty()) return size_t{0};
        return slot_rank(inner.inputs[i]);
      };
      NodeInfo m = inner;
      const std::string& op = inner.op;
      bool ok = true;
      if (kPointwise.count(op)) {
        ok = ranks[0] >= 0;
        for (size_t i = 1; i < ranks.size(); ++i) ok = ok && ranks[i] < 0;
      } else if (kBroadcast.count(op)) {
        // Every element-read operand has the same rank R, the others at most R: numpy's
        // right-aligned broadcast then leaves the new axis 0 alone.
        int r = -1;
        for (int v : ranks) {
          if (v < 0) continue;
          if (r >= 0 && v != r) ok = false;
          r = v;
        }
        for (size_t i = 0; i < ranks.size() && ok; ++i) {
          if (ranks[i] >= 0) continue;
          auto inv = invariant_rank(i);
          ok = inv && static_cast<int>(*inv) <= r;
        }
      } else if (op == "MatMul" && ranks.size() == 2) {
        const int ra = ranks[0], rb = ranks[1];
        auto inv_a = invariant_rank(0), inv_b = invariant_rank(1);
        if (ra >= 0 && rb >= 0) {
          ok = ra == rb && ra >= 2;
        } else if (ra >= 0) {
          ok = inv_b && static_cast<int>(*inv_b) <= std::max(ra, 2);
        } else {
          ok = rb >= 2 && inv_a && static_cast<int>(*inv_a) <= rb;
        }
      } else if (op == "Gemm" && ranks.size() >= 2 && ranks[0] == 2 && ranks[1] < 0 &&
                 (ranks.size() < 3 || ranks[2] < 0) &&
                 AttrOr<int64_t>(inner.attrs, "transA", 0) == 0) {
        // C must not vary by row: a scalar, a vector or one row.
        bool c_ok = true;
        if (ranks.size() >= 3 && !inner.inputs[2].empty()) {
          auto it = slots.find(inner.inputs[2]);
          c_ok = it != slots.end() && !it->second.unavailable;
          if (c_ok) {
            const auto& cs = shape_of(it->second);
            c_ok = cs.size() <= 1 || (cs.size() == 2 && cs[0] == 1);
          }
        }
        auto a = slots.find(inner.inputs[0]);
        if (!c_ok || a == slots.end() || inner.outputs.empty()) return give_up();
        const std::vector<uint64_t> as = shape_of(a->second);  // [len, M, K]
        define_ints(tmp + "rows_shape",
                    {static_cast<double>(as[0] * as[1]), static_cast<double>(as[2])});
        const std::string rows = tmp + inner.outputs[0] + ":rows";
        if (!plan_node(inner, "Reshape", 14, {{"allowzero", int64_t{1}}},
                       {inner.inputs[0], tmp + "rows_shape"}, {rows})
                 .ok()) {
          return give_up();
        }
        m.inputs[0] = rows;
        m.outputs = {rows + ":gemm"};
        auto r = process(m);
        if (!r.ok() || *r) return give_up();
        auto y = slots.find(rows + ":gemm");
        if (y == slots.end() || y->second.unavailable) return give_up();
        const std::vector<uint64_t> ys = shape_of(y->second);  // [len * M, P]
        define_ints(tmp + "back_shape", {static_cast<double>(as[0]), static_cast<double>(as[1]),
                                         static_cast<double>(ys[1])});
        if (!plan_node(inner, "Reshape", 14, {{"allowzero", int64_t{1}}},
                       {rows + ":gemm", tmp + "back_shape"}, {inner.outputs[0]})
                 .ok()) {
          return give_up();
        }
        batched[inner.outputs[0]] = 2;
        continue;
      } else if ((op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") && inner.opset >= 13 &&
                 ranks[0] >= 0) {
        const int64_t axis = AttrOr<int64_t>(inner.attrs, "axis", -1);
        if (axis >= 0) m.attrs["axis"] = axis + 1;
      } else if (op == "Transpose" && ranks[0] >= 0) {
        std::vector<int64_t> perm = AttrOr<std::vector<int64_t>>(inner.attrs, "perm", {});
        if (perm.empty()) {
          for (int64_t a = ranks[0] - 1; a >= 0; --a) perm.push_back(a);
        }
        if (perm.size() != static_cast<size_t>(ranks[0])) return give_up();
        std::vector<int64_t> moved{0};
        for (int64_t a : perm) {
          if (a < 0 || a >= ranks[0]) return give_up();
          moved.push_back(a + 1);
        }
        m.attrs["perm"] = moved;
      } else {
        ok = false;
      }
      if (!ok) return give_up();
      auto r = process(m);
      if (!r.ok() || *r) return give_up();
      for (const std::string& o : inner.outputs) {
        if (o.empty()) continue;
        auto it = slots.find(o);
        if (it == slots.end() || it->second.unavailable || it->second.kind != ValueKind::kTensor)
          return give_up();
        const auto& sh = shape_of(it->second);
        if (sh.empty() || sh[0] != len) return give_up();
        batched[o] = sh.size() - 1;
      }
    }
    // The body's outputs: stacked values, their elements split off (droppable); values that
    // do not depend on the element repeated.
    std::vector<Slot> outs;
    for (size_t o = 0; o < body.output_names.size(); ++o) {
      const std::string& name = body.output_names[o];
      auto it = slots.find(name);
      if (it == slots.end() || it->second.unavailable || it->second.kind != ValueKind::kTensor)
        return give_up();
      Slot r = results[o];
      r.type = it->second.type;
      if (!batched.count(name)) {
        r.elems.assign(len, it->second);
        outs.push_back(std::move(r));
        continue;
      }
      const Slot st = it->second;
      const std::string pre = tmp + "o" + std::to_string(o) + ":";
      define_ints(pre + "ones", std::vector<double>(len, 1.0));
      define_ints(pre + "axes", {0.0});
      std::vector<std::string> pieces, elems;
      for (size_t e = 0; e < len; ++e) {
        pieces.push_back(pre + std::to_string(e));
        elems.push_back(pre + "sq" + std::to_string(e));
      }
      emit_droppable = true;
      Status made = plan_node(n, "Split", 13, {{"axis", int64_t{0}}}, {name, pre + "ones"}, pieces);
      for (size_t e = 0; e < len && made.ok(); ++e) {
        made = plan_node(n, "Squeeze", 13, {}, {pieces[e], pre + "axes"}, {elems[e]});
      }
      emit_droppable = false;
      if (!made.ok()) return give_up();
      for (const std::string& e : elems) {
        auto el = made_slot(e);
        if (!el.ok()) return give_up();
        Slot es = std::move(el).value();
        es.type = r.type;
        r.elems.push_back(std::move(es));
      }
      Slot stacked = st;
      stacked.type = r.type;
      r.stacked = std::make_shared<const Slot>(std::move(stacked));
      outs.push_back(std::move(r));
    }
    leave_scope(std::move(saved.slots));
    results = std::move(outs);
    return true;
  };

  process = [&](const NodeInfo& n) -> Result<bool> {
    auto fail = [&](const Error& e) { return Error{e.code, n.Where(model) + ": " + e.message}; };
    if (IsControlOp(n.op)) {
      if (n.op == "Loop") return inline_loop(n);
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
      NodeInfo m = DerivedNode(n, op, opset, std::move(attrs), std::move(ins), std::move(outs));
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
      s.stacked = nullptr;
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
        // The pieces are dispatched only if something reads them (not when a SequenceMap or
        // ConcatFromSequence uses the stacked form below).
        emit_droppable = true;
        Status split_ok = planned("Split", 13, {{"axis", axis}}, {x_name, tmp + "split"}, pieces);
        if (split_ok.ok() && squeeze) {
          known_ints(tmp + "axes", {static_cast<double>(axis)});
          for (size_t k = 0; k < pieces.size() && split_ok.ok(); ++k) {
            const std::string sq = tmp + "sq" + std::to_string(k);
            split_ok = planned("Squeeze", 13, {}, {pieces[k], tmp + "axes"}, {sq});
            pieces[k] = sq;
          }
        }
        emit_droppable = false;
        ALKNET_TRY(split_ok);
        // Equal pieces along axis 0 stacked on a new axis 0: x itself (pieces of one row
        // without the axis) or x reshaped to [count, size, ...].
        const bool equal =
            std::all_of(sizes.begin(), sizes.end(), [&](double v) { return v == sizes[0]; });
        const bool nonempty =
            std::none_of(d.shape.begin(), d.shape.end(), [](uint64_t v) { return v == 0; });
        if (axis == 0 && equal && nonempty && sizes[0] >= 1) {
          if (squeeze) {
            s.stacked = std::make_shared<const Slot>(*x);
          } else {
            std::vector<double> shape{static_cast<double>(sizes.size()), sizes[0]};
            for (size_t a = 1; a < d.shape.size(); ++a)
              shape.push_back(static_cast<double>(d.shape[a]));
            known_ints(tmp + "stack_shape", std::move(shape));
            emit_droppable = true;
            Status ok = planned("Reshape", 14, {}, {x_name, tmp + "stack_shape"}, {tmp + "stack"});
            emit_droppable = false;
            ALKNET_TRY(ok);
            ALKNET_ASSIGN_OR_RETURN(Slot st, made_slot(tmp + "stack"));
            st.type = x->type;
            s.stacked = std::make_shared<const Slot>(std::move(st));
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
      // Along axis 0 of a sequence held stacked: the stacked tensor itself (a new axis) or
      // its first two axes merged, with no copy of the elements.
      if (seq->stacked && axis == 0 && (new_axis || rank >= 1)) {
        Slot st = *seq->stacked;
        if (!new_axis) {
          const std::vector<uint64_t>& sh = st.known ? st.known->shape : st.desc.shape;
          std::vector<double> shape{static_cast<double>(sh[0] * sh[1])};
          for (size_t a = 2; a < sh.size(); ++a) shape.push_back(static_cast<double>(sh[a]));
          const std::string stack_name = tmp + "stacked";
          slots[stack_name] = st;
          known_ints(tmp + "merged_shape", std::move(shape));
          ALKNET_TRY(planned("Reshape", 14, {{"allowzero", int64_t{1}}},
                             {stack_name, tmp + "merged_shape"}, {tmp + "concat"}));
          ALKNET_ASSIGN_OR_RETURN(st, made_slot(tmp + "concat"));
        }
        st.type = type;
        st.stacked = nullptr;
        out(0, std::move(st));
        return false;
      }
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
      ALKNET_ASSIGN_OR_RETURN(bool batched, batch_map(n, body, ins, len, results));
      if (batched) {
        for (size_t o = 0; o < results.size(); ++o) out(o, std::move(results[o]));
        ++plan->maps_batched;
        return false;
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

  // Droppable nodes nothing reads (a sequence's elements when only its stacked form is used)
  // are left out.
  std::vector<bool> live(lnodes.size(), false);
  {
    std::vector<int> todo;
    auto mark = [&](int r) {
      if (r < 0 || refs[r].kind != LocalRef::kNode || live[refs[r].index]) return;
      live[refs[r].index] = true;
      todo.push_back(refs[r].index);
    };
    for (size_t k = 0; k < lnodes.size(); ++k) {
      if (!lnodes[k].droppable) {
        live[k] = true;
        todo.push_back(static_cast<int>(k));
      }
    }
    for (int r : output_refs) mark(r);
    while (!todo.empty()) {
      const int k = todo.back();
      todo.pop_back();
      for (int r : lnodes[k].refs) mark(r);
    }
    std::fill(input_used.begin(), input_used.end(), false);
    for (size_t k = 0; k < lnodes.size(); ++k) {
      if (!live[k]) {
        --plan->on_device;
        continue;
      }
      for (int r : lnodes[k].refs) {
        if (r >= 0 && refs[r].kind == LocalRef::kInput) input_used[refs[r].index] = true;
      }
    }
    for (int r : output_refs) {
      if (refs[r].kind == LocalRef::kInput) input_used[refs[r].index] = true;
    }
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
    if (!live[k]) continue;
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
