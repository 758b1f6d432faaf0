// Control flow: If, Loop and Scan. Their GRAPH attributes load as subgraphs (Programs that
// read names of the graphs around them); an If whose condition is known at plan time is
// inlined by the planner (plan.cpp); everything else ends a plan segment and runs here, each
// branch or body as a sub-plan with its own plan cache (planned once per shapes, so a Loop
// body is neither re-planned nor recompiled per iteration).
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>

#include "proto.h"
#include "session_impl.h"

namespace alknet::onnx {

using namespace detail;

namespace {

bool IsSmallInt(const ValueInfo& v) {
  switch (v.type) {
    case ElemType::kInt64:
    case ElemType::kInt32:
    case ElemType::kInt16:
    case ElemType::kInt8:
    case ElemType::kUint8:
    case ElemType::kUint16:
    case ElemType::kUint32:
    case ElemType::kUint64:
    case ElemType::kBool: break;
    default: return false;
  }
  if (!v.has_shape) return false;
  int64_t n = 1;
  for (int64_t d : v.shape) {
    if (d < 0) return false;
    n *= d;
    if (n > 64) return false;
  }
  return true;
}

// Backwards through `p`: the names whose values are needed on the host, given `needed` (names
// of `p` needed by what follows). With `conditions`, If conditions are what is needed instead
// of records' host inputs, and Loop and Scan bodies are not entered.
void Need(const Program& p, std::set<std::string>& needed, bool conditions) {
  for (auto it = p.nodes.rbegin(); it != p.nodes.rend(); ++it) {
    const NodeInfo& n = *it;
    bool out_needed = false;
    for (const auto& o : n.outputs) out_needed = out_needed || needed.count(o) != 0;
    if (IsControlOp(n.op)) {
      if (n.op != "If" && conditions) continue;
      if (n.op == "If" && !n.inputs.empty() && (conditions || out_needed)) {
        needed.insert(n.inputs[0]);
      }
      for (const auto& [attr, g] : n.graphs) {
        std::set<std::string> inner;
        if (n.op == "If") {
          for (size_t o = 0; o < n.outputs.size() && o < g->output_names.size(); ++o) {
            if (needed.count(n.outputs[o])) inner.insert(g->output_names[o]);
          }
        }
        Need(*g, inner, conditions);
        for (const auto& name : inner) {
          if (g->free.count(name)) needed.insert(name);
        }
      }
      continue;
    }
    if (!conditions && n.record != nullptr) {
      for (uint32_t h : n.record->host_inputs) {
        if (h < n.inputs.size() && !n.inputs[h].empty()) needed.insert(n.inputs[h]);
      }
    }
    if (!conditions && IsSequenceOp(n.op)) {
      for (size_t i = 0; i < n.inputs.size(); ++i) {
        if (IsSequenceHostInput(n.op, i) && !n.inputs[i].empty()) needed.insert(n.inputs[i]);
      }
      // SequenceMap plans its body per element: what the body reads on the host, its inputs
      // (the elements) and the names it captures are read on the host too.
      for (const auto& [attr, g] : n.graphs) {
        std::set<std::string> inner;
        Need(*g, inner, conditions);
        for (size_t i = 0; i < g->input_names.size() && i < n.inputs.size(); ++i) {
          if (inner.count(g->input_names[i])) needed.insert(n.inputs[i]);
        }
        for (const auto& name : inner) {
          if (g->free.count(name)) needed.insert(name);
        }
      }
    }
    if (n.op == "Shape" || n.op == "Size") continue;
    if (out_needed) {
      for (const auto& i : n.inputs) {
        if (!i.empty()) needed.insert(i);
      }
    }
  }
}

const Value* Find(const std::vector<Value>& env, const std::string& name) {
  for (const Value& v : env) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

// Host bytes (device dtype, host layout) of the tensors of one scan output, stacked along
// `axis` (`reverse`: the last iteration first).
struct HostPiece {
  DType dtype;
  std::vector<uint64_t> shape;
  std::vector<std::byte> data;
};

Result<HostPiece> Stack(const std::vector<HostPiece>& parts, int64_t axis, bool reverse,
                        const std::string& what) {
  HostPiece out{parts[0].dtype, parts[0].shape, {}};
  const int64_t rank = static_cast<int64_t>(out.shape.size());
  if (axis < 0) axis += rank + 1;
  if (axis < 0 || axis > rank) {
    return Error{ErrorCode::kInvalidAttribute, what + ": axis " + std::to_string(axis) +
                                                   " is out of range for rank " +
                                                   std::to_string(rank + 1)};
  }
  for (const HostPiece& p : parts) {
    if (p.shape != out.shape || p.dtype != out.dtype) {
      return Error{ErrorCode::kShape, what + " changes shape between iterations (" +
                                          compute::ShapeToString(out.shape) + " then " +
                                          compute::ShapeToString(p.shape) + ")"};
    }
  }
  uint64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= out.shape[static_cast<size_t>(d)];
  const uint64_t inner = outer == 0 ? 0 : parts[0].data.size() / std::max<uint64_t>(outer, 1);
  const uint64_t count = parts.size();
  out.data.resize(parts[0].data.size() * count);
  for (uint64_t t = 0; t < count; ++t) {
    const uint64_t pos = reverse ? count - 1 - t : t;
    for (uint64_t o = 0; o < outer; ++o) {
      std::memcpy(out.data.data() + (o * count + pos) * inner, parts[t].data.data() + o * inner,
                  inner);
    }
  }
  out.shape.insert(out.shape.begin() + axis, count);
  return out;
}

// Index `pos` of `axis`, the axis removed.
HostPiece SliceAt(const HostPiece& h, size_t axis, uint64_t pos) {
  uint64_t outer = 1;
  for (size_t d = 0; d < axis; ++d) outer *= h.shape[d];
  const uint64_t len = h.shape[axis];
  const uint64_t inner = outer * len == 0 ? 0 : h.data.size() / (outer * len);
  HostPiece slice{h.dtype, h.shape, std::vector<std::byte>(outer * inner)};
  slice.shape.erase(slice.shape.begin() + static_cast<int64_t>(axis));
  for (uint64_t o = 0; o < outer; ++o) {
    std::memcpy(slice.data.data() + o * inner, h.data.data() + (o * len + pos) * inner, inner);
  }
  return slice;
}

}  // namespace

namespace detail {

void ComputeFree(Program& p) {
  std::set<std::string> defined(p.input_names.begin(), p.input_names.end());
  for (const auto& [name, init] : p.inits) defined.insert(name);
  for (const NodeInfo& n : p.nodes) defined.insert(n.outputs.begin(), n.outputs.end());
  p.free.clear();
  auto read = [&](const std::string& name) {
    if (!name.empty() && !defined.count(name)) p.free.insert(name);
  };
  for (const NodeInfo& n : p.nodes) {
    for (const auto& i : n.inputs) read(i);
    for (const auto& [attr, g] : n.graphs) {
      for (const auto& name : g->free) read(name);
    }
  }
  for (const auto& o : p.output_names) read(o);
}

void ComputeHostRead(Program& p, const std::vector<ValueInfo>* declared) {
  std::set<std::string> needed, decides;
  Need(p, needed, false);
  if (declared != nullptr) Need(p, decides, true);
  p.host_read.clear();
  for (size_t i = 0; i < p.input_names.size(); ++i) {
    const std::string& name = p.input_names[i];
    bool read = needed.count(name) != 0;
    if (!read && declared != nullptr && i < declared->size() && decides.count(name)) {
      read = IsSmallInt((*declared)[i]);
    }
    p.host_read.push_back(read);
  }
}

std::string SeedKey(const std::vector<Value>& seeds) {
  std::string key;
  for (const Value& v : seeds) {
    key += v.name;
    if (v.kind == ValueKind::kNone) {
      key += ":none;";
      continue;
    }
    if (v.kind == ValueKind::kSequence) {
      key += ":[" + SeedKey(v.elems) + "];";
      continue;
    }
    key += ':';
    key += std::to_string(static_cast<int>(v.dtype));
    key += compute::ShapeToString(v.shape);
    if (v.known) {
      key += '=';
      key.append(reinterpret_cast<const char*>(v.known->data.data()),
                 v.known->data.size() * sizeof(double));
    }
    key += ';';
  }
  return key;
}

Status CheckControlNode(const NodeInfo& n, const std::string& model) {
  auto fail = [&](const std::string& what) {
    return Error{ErrorCode::kInvalidArgument, n.Where(model) + ": " + what};
  };
  auto graph = [&](const char* name) -> const Program* {
    auto it = n.graphs.find(name);
    return it == n.graphs.end() ? nullptr : it->second.get();
  };
  if (n.op == "If") {
    const Program* then_b = graph("then_branch");
    const Program* else_b = graph("else_branch");
    if (then_b == nullptr || else_b == nullptr)
      return fail("If needs both then_branch and else_branch graph attributes");
    if (n.inputs.size() != 1 || n.inputs[0].empty())
      return fail("If takes exactly one input (the condition)");
    if (then_b->output_names.size() != n.outputs.size() ||
        else_b->output_names.size() != n.outputs.size()) {
      return fail("the branches have " + std::to_string(then_b->output_names.size()) + " and " +
                  std::to_string(else_b->output_names.size()) + " outputs, the node lists " +
                  std::to_string(n.outputs.size()));
    }
    return Ok{};
  }
  const Program* body = graph("body");
  if (body == nullptr) return fail(n.op + " needs a body graph attribute");
  if (n.op == "Loop") {
    const size_t carried = n.inputs.size() >= 2 ? n.inputs.size() - 2 : 0;
    if (body->input_names.size() != carried + 2) {
      return fail("the body has " + std::to_string(body->input_names.size()) + " inputs; with " +
                  std::to_string(carried) +
                  " loop-carried values it needs iteration number, condition and those");
    }
    if (body->output_names.size() < carried + 1 ||
        n.outputs.size() != body->output_names.size() - 1) {
      return fail("the body has " + std::to_string(body->output_names.size()) +
                  " outputs; the node lists " + std::to_string(n.outputs.size()) + " outputs and " +
                  std::to_string(carried) + " loop-carried values");
    }
    return Ok{};
  }
  // Scan (opset 8: sequence_lens first, possibly empty).
  const size_t first = n.opset < 9 ? 1 : 0;
  const int64_t m = AttrOr<int64_t>(n.attrs, "num_scan_inputs", -1);
  if (m < 1 || static_cast<size_t>(m) + first > n.inputs.size())
    return fail("num_scan_inputs must be between 1 and the number of inputs");
  const size_t state = n.inputs.size() - first - static_cast<size_t>(m);
  if (body->input_names.size() != n.inputs.size() - first)
    return fail("the body has " + std::to_string(body->input_names.size()) + " inputs, the node " +
                std::to_string(n.inputs.size() - first) + " state and scan inputs");
  if (body->output_names.size() != n.outputs.size() || n.outputs.size() < state)
    return fail("the body has " + std::to_string(body->output_names.size()) +
                " outputs, the node " + std::to_string(n.outputs.size()));
  return Ok{};
}

}  // namespace detail

Result<std::shared_ptr<Program>> Session::Impl::LoadSubgraph(const ::onnx::GraphProto& g,
                                                             const Program& parent,
                                                             const std::string& scope) {
  auto p = std::make_shared<Program>();
  p->parent = &parent;
  p->scope = scope;
  const std::string where = model + ": " + scope;
  if (g.sparse_initializer_size() > 0)
    return Error{ErrorCode::kUnsupported, where + "sparse initializers are not supported"};
  for (const auto& tp : g.initializer()) {
    const std::string what = where + "initializer '" + tp.name() + "'";
    ALKNET_ASSIGN_OR_RETURN(Tensor t, detail::DecodeTensor(tp, base_dir, what, options.check_read));
    ALKNET_TRY(DeviceTypeOf(t.type, f16, what));
    Initializer init;
    if (t.elements() <= options.fold_limit) {
      ALKNET_ASSIGN_OR_RETURN(RefTensor r, ToRef(t, f16));
      init.known = std::make_shared<const RefTensor>(std::move(r));
    }
    value_types[tp.name()] = t.type;
    init.host = std::move(t);
    p->inits[tp.name()] = std::move(init);
  }
  auto tensor_type = [&](const ::onnx::ValueInfoProto& v, const char* kind) -> Result<ElemType> {
    const ::onnx::TypeProto* t = &v.type();
    if (t->has_optional_type()) t = &t->optional_type().elem_type();
    if (t->has_sequence_type()) t = &t->sequence_type().elem_type();
    if (!t->has_tensor_type() && t->value_case() != ::onnx::TypeProto::VALUE_NOT_SET) {
      return Error{ErrorCode::kUnsupported,
                   where + kind + " '" + v.name() +
                       "' is not a tensor, a sequence of tensors or an optional of those"};
    }
    return static_cast<ElemType>(t->tensor_type().elem_type());
  };
  for (const auto& v : g.input()) {
    ALKNET_ASSIGN_OR_RETURN(ElemType t, tensor_type(v, "input"));
    p->input_names.push_back(v.name());
    p->input_types.push_back(t);
    if (t != ElemType::kUndefined) value_types[v.name()] = t;
  }
  for (const auto& v : g.output()) {
    ALKNET_ASSIGN_OR_RETURN(ElemType t, tensor_type(v, "output"));
    p->output_names.push_back(v.name());
    if (t != ElemType::kUndefined) value_types[v.name()] = t;
  }
  for (const auto& v : g.value_info()) {
    if (v.type().has_tensor_type() && !value_types.count(v.name())) {
      value_types[v.name()] = static_cast<ElemType>(v.type().tensor_type().elem_type());
    }
  }
  for (int k = 0; k < g.node_size(); ++k) {
    ALKNET_ASSIGN_OR_RETURN(NodeInfo n, LoadNode(g.node(k), k, *p));
    p->nodes.push_back(std::move(n));
  }
  ComputeFree(*p);
  ComputeHostRead(*p, nullptr);
  return p;
}

Result<Value> Session::Impl::InputValue(const Program& p, const NodeInfo& n,
                                        const std::vector<Value>& env, const std::string& name) {
  if (const Value* v = Find(env, name)) return *v;
  // Initializers are not carried between segments: they are read where they are defined.
  for (const Program* scope = &p; scope != nullptr; scope = scope->parent) {
    auto it = scope->inits.find(name);
    if (it == scope->inits.end()) continue;
    const Initializer& init = it->second;
    Value v;
    v.name = name;
    v.type = init.host.type;
    v.shape = init.host.shape;
    ALKNET_ASSIGN_OR_RETURN(v.dtype, DeviceTypeOf(init.host.type, f16, n.Where(model)));
    if (init.known) {
      v.known = init.known;
    } else {
      if (!init.device.valid()) {
        ALKNET_ASSIGN_OR_RETURN(std::vector<std::byte> bytes, ToDeviceBytes(init.host, f16));
        ALKNET_ASSIGN_OR_RETURN(init.device, exec->Upload(v.dtype, v.shape, bytes));
        ++stats.initializers_uploaded;
      }
      v.device = init.device;
    }
    return v;
  }
  return Error{ErrorCode::kInvalidArgument,
               n.Where(model) + ": input '" + name +
                   "' is not defined by any earlier node, graph input or initializer"};
}

Result<Value> Session::Impl::ToHostKnown(const Value& v) {
  if (v.known) return v;
  Value out = v;
  if (v.host != nullptr) {
    Tensor t{v.name, v.host->type, v.host->shape,
             std::vector<std::byte>(v.host->data.begin(), v.host->data.end())};
    ALKNET_ASSIGN_OR_RETURN(RefTensor r, ToRef(t, f16));
    out.known = std::make_shared<const RefTensor>(std::move(r));
    return out;
  }
  ALKNET_ASSIGN_OR_RETURN(compute::HostTensor h, ReadBack(v.device));
  const ElemType type = v.type != ElemType::kUndefined ? v.type : ElemType::kFloat;
  ALKNET_ASSIGN_OR_RETURN(Tensor t, FromDevice(v.name, h.dtype, h.shape, h.data, type));
  ALKNET_ASSIGN_OR_RETURN(RefTensor r, ToRef(t, f16));
  out.known = std::make_shared<const RefTensor>(std::move(r));
  return out;
}

Result<std::vector<Value>> Session::Impl::RunControl(const Program& p, const NodeInfo& n,
                                                     const std::vector<Value>& env,
                                                     const RunOptions& ro) {
  auto fail = [&](ErrorCode code, const std::string& what) {
    return Error{code, n.Where(model) + ": " + what};
  };
  auto lookup = [&](const std::string& name) -> Result<Value> {
    return InputValue(p, n, env, name);
  };
  // A subgraph's seeds: its inputs, then the names it reads from around it.
  auto captured = [&](const Program& g, std::vector<Value>& seeds) {
    for (const std::string& name : g.free) {
      if (const Value* v = Find(env, name)) seeds.push_back(*v);
    }
  };
  // A value the subgraph does not read on the host goes in on the device, so that a changing
  // value (a counter) does not change the plan key.
  std::function<Status(Value&)> to_device = [&](Value& v) -> Status {
    if (v.kind == ValueKind::kSequence) {
      for (Value& e : v.elems) ALKNET_TRY(to_device(e));
      return Ok{};
    }
    if (v.kind == ValueKind::kTensor && v.known) {
      ALKNET_ASSIGN_OR_RETURN(v.device, ToDevice(v));
      v.known = nullptr;
      v.host = nullptr;
    }
    return Ok{};
  };
  auto as_input = [&](Value v, const Program& g, size_t i) -> Result<Value> {
    if (!(i < g.host_read.size() && g.host_read[i])) ALKNET_TRY(to_device(v));
    v.name = g.input_names[i];
    return v;
  };
  auto download = [&](const Value& v) -> Result<HostPiece> {
    if (v.known && !v.device.valid()) {
      ALKNET_ASSIGN_OR_RETURN(std::vector<std::byte> bytes,
                              RefToDeviceBytes(*v.known, n.Where(model)));
      return HostPiece{v.known->dtype, v.known->shape, std::move(bytes)};
    }
    ALKNET_ASSIGN_OR_RETURN(compute::Tensor t, ToDevice(v));
    ALKNET_ASSIGN_OR_RETURN(compute::HostTensor h, ReadBack(t));
    return HostPiece{h.dtype, h.shape, std::move(h.data)};
  };
  auto upload = [&](HostPiece piece, ElemType type) -> Result<Value> {
    Value v;
    v.type = type;
    v.dtype = piece.dtype;
    v.shape = piece.shape;
    ALKNET_ASSIGN_OR_RETURN(v.device, exec->Upload(piece.dtype, piece.shape, piece.data));
    return v;
  };
  auto type_of = [&](const std::string& name) {
    auto it = value_types.find(name);
    return it == value_types.end() ? ElemType::kUndefined : it->second;
  };

  if (n.op == "If") {
    ALKNET_ASSIGN_OR_RETURN(Value cv, lookup(n.inputs[0]));
    ALKNET_ASSIGN_OR_RETURN(Value c, ToHostKnown(cv));
    if (c.known->data.size() != 1) {
      return fail(ErrorCode::kShape, "the condition has " + std::to_string(c.known->data.size()) +
                                         " elements; If needs exactly one");
    }
    const Program& branch = *n.graphs.at(c.known->data[0] != 0 ? "then_branch" : "else_branch");
    std::vector<Value> seeds;
    captured(branch, seeds);
    ++stats.subgraph_runs;
    return RunProgram(branch, branch.cache, std::move(seeds), nullptr, ro);
  }

  const Program& body = *n.graphs.at("body");
  if (n.op == "Loop") {
    std::optional<int64_t> trips;
    bool keep_going = true;
    if (!n.inputs.empty() && !n.inputs[0].empty()) {
      ALKNET_ASSIGN_OR_RETURN(Value mv, lookup(n.inputs[0]));
      ALKNET_ASSIGN_OR_RETURN(Value m, ToHostKnown(mv));
      if (m.known->data.size() != 1)
        return fail(ErrorCode::kShape, "the trip count M must have one element");
      trips = static_cast<int64_t>(std::max(0.0, m.known->data[0]));
    }
    if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
      ALKNET_ASSIGN_OR_RETURN(Value cv, lookup(n.inputs[1]));
      ALKNET_ASSIGN_OR_RETURN(Value c, ToHostKnown(cv));
      if (c.known->data.size() != 1)
        return fail(ErrorCode::kShape, "the condition must have one element");
      keep_going = c.known->data[0] != 0;
    }
    const size_t carried_n = n.inputs.size() >= 2 ? n.inputs.size() - 2 : 0;
    const size_t scans_n = body.output_names.size() - 1 - carried_n;
    std::vector<Value> carried;
    for (size_t j = 0; j < carried_n; ++j) {
      ALKNET_ASSIGN_OR_RETURN(Value v, lookup(n.inputs[2 + j]));
      carried.push_back(std::move(v));
    }
    std::vector<std::vector<HostPiece>> scans(scans_n);
    // The body's inputs for iteration i: its number, the condition (true, or the loop would
    // have ended), the loop-carried values and what it reads from around it.
    auto iteration_seeds = [&](int64_t i) -> Result<std::vector<Value>> {
      std::vector<Value> seeds;
      Value iter;
      iter.type = ElemType::kInt64;
      iter.dtype = DType::kI32;
      iter.known =
          std::make_shared<const RefTensor>(RefTensor{DType::kI32, {}, {static_cast<double>(i)}});
      ALKNET_ASSIGN_OR_RETURN(Value iv, as_input(std::move(iter), body, 0));
      seeds.push_back(std::move(iv));
      Value cond;
      cond.name = body.input_names[1];
      cond.type = ElemType::kBool;
      cond.dtype = DType::kBool;
      cond.known = std::make_shared<const RefTensor>(RefTensor{DType::kBool, {}, {1.0}});
      seeds.push_back(std::move(cond));
      for (size_t j = 0; j < carried_n; ++j) {
        ALKNET_ASSIGN_OR_RETURN(Value cv, as_input(carried[j], body, 2 + j));
        seeds.push_back(std::move(cv));
      }
      captured(body, seeds);
      return seeds;
    };
    // The body's condition and scan outputs are read with its last submit.
    std::vector<bool> body_reads(body.output_names.size(), true);
    for (size_t j = 0; j < carried_n && 1 + j < body_reads.size(); ++j) body_reads[1 + j] = false;
    int64_t i = 0;
    for (; keep_going && (!trips || i < *trips); ++i) {
      if (static_cast<uint64_t>(i) >= options.max_loop_iterations) {
        return fail(ErrorCode::kLimit, "more than " + std::to_string(options.max_loop_iterations) +
                                           " iterations (SessionOptions::max_loop_iterations)");
      }
      ALKNET_ASSIGN_OR_RETURN(std::vector<Value> seeds, iteration_seeds(i));
      ++stats.subgraph_runs;
      ALKNET_ASSIGN_OR_RETURN(
          std::vector<Value> outs,
          RunProgram(body, body.cache, std::move(seeds), nullptr, ro, &body_reads));
      ALKNET_ASSIGN_OR_RETURN(Value c, ToHostKnown(outs[0]));
      ForgetReadBack(outs[0]);
      if (c.known->data.size() != 1)
        return fail(ErrorCode::kShape, "the body's condition output must have one element");
      keep_going = c.known->data[0] != 0;
      for (size_t j = 0; j < carried_n; ++j) carried[j] = std::move(outs[1 + j]);
      for (size_t k = 0; k < scans_n; ++k) {
        ALKNET_ASSIGN_OR_RETURN(HostPiece piece, download(outs[1 + carried_n + k]));
        ForgetReadBack(outs[1 + carried_n + k]);
        scans[k].push_back(std::move(piece));
      }
    }
    // No iteration ran: empty scan outputs, [0] plus the element shape the body's plan for the
    // initial values gives (just [0] when the body's outputs depend on control flow or it
    // cannot be planned).
    std::shared_ptr<Plan> zero_plan;
    if (i == 0 && scans_n > 0) {
      auto seeds = iteration_seeds(0);
      auto planned = seeds.ok() ? PlanFor(body.cache, body, 0, *seeds, nullptr)
                                : Result<std::shared_ptr<Plan>>(seeds.error());
      if (planned.ok() && (*planned)->stop < 0) zero_plan = *planned;
    }
    std::vector<Value> results = std::move(carried);
    for (size_t k = 0; k < scans_n; ++k) {
      const std::string& name = body.output_names[1 + carried_n + k];
      if (scans[k].empty()) {
        Value v;
        v.type = type_of(name);
        ALKNET_ASSIGN_OR_RETURN(
            v.dtype, DeviceTypeOf(v.type != ElemType::kUndefined ? v.type : ElemType::kFloat, f16,
                                  n.Where(model)));
        v.shape = {0};
        if (zero_plan) {
          const TensorDesc& d = zero_plan->outputs[1 + carried_n + k].desc;
          v.dtype = d.dtype;
          v.shape.insert(v.shape.end(), d.shape.begin(), d.shape.end());
        }
        ALKNET_ASSIGN_OR_RETURN(v.device, exec->Empty(v.dtype, v.shape));
        results.push_back(std::move(v));
        continue;
      }
      ALKNET_ASSIGN_OR_RETURN(HostPiece stacked,
                              Stack(scans[k], 0, false, "scan output '" + name + "'"));
      ALKNET_ASSIGN_OR_RETURN(Value v, upload(std::move(stacked), type_of(name)));
      results.push_back(std::move(v));
    }
    return results;
  }

  // Scan: state values, then scan inputs sliced along their axes. Opset 8 adds a batch axis
  // in front of every input and output (and sequence_lens first): one scan per batch row.
  const bool batched = n.opset < 9;
  const size_t first = batched ? 1 : 0;
  const size_t m = static_cast<size_t>(AttrOr<int64_t>(n.attrs, "num_scan_inputs", 1));
  const size_t state_n = n.inputs.size() - first - m;
  const size_t scans_n = n.outputs.size() - state_n;
  const auto in_axes = AttrOr<std::vector<int64_t>>(n.attrs, "scan_input_axes", {});
  const auto in_dirs =
      AttrOr<std::vector<int64_t>>(n.attrs, batched ? "directions" : "scan_input_directions", {});
  const auto out_axes = AttrOr<std::vector<int64_t>>(n.attrs, "scan_output_axes", {});
  const auto out_dirs = AttrOr<std::vector<int64_t>>(n.attrs, "scan_output_directions", {});
  // The body's scan outputs are read with its last submit.
  std::vector<bool> body_reads(body.output_names.size(), true);
  for (size_t j = 0; j < state_n && j < body_reads.size(); ++j) body_reads[j] = false;
  auto scan = [&](std::vector<Value> state,
                  std::vector<HostPiece> inputs_host) -> Result<std::vector<Value>> {
    std::vector<int64_t> axes;
    int64_t length = -1;
    for (size_t j = 0; j < m; ++j) {
      const HostPiece& h = inputs_host[j];
      const int64_t rank = static_cast<int64_t>(h.shape.size());
      int64_t axis = j < in_axes.size() ? in_axes[j] : 0;
      if (axis < 0) axis += rank;
      if (axis < 0 || axis >= rank) {
        return fail(ErrorCode::kInvalidAttribute, "scan input " + std::to_string(j) + " has rank " +
                                                      std::to_string(rank) +
                                                      ", its axis is out of range");
      }
      const int64_t len = static_cast<int64_t>(h.shape[static_cast<size_t>(axis)]);
      if (length >= 0 && len != length) {
        return fail(ErrorCode::kShape, "scan inputs have different lengths (" +
                                           std::to_string(length) + " and " + std::to_string(len) +
                                           ")");
      }
      length = len;
      axes.push_back(axis);
    }
    std::vector<std::vector<HostPiece>> scans(scans_n);
    for (int64_t t = 0; t < length; ++t) {
      std::vector<Value> seeds;
      for (size_t j = 0; j < state_n; ++j) {
        ALKNET_ASSIGN_OR_RETURN(Value sv, as_input(state[j], body, j));
        seeds.push_back(std::move(sv));
      }
      for (size_t j = 0; j < m; ++j) {
        const bool reverse = j < in_dirs.size() && in_dirs[j] != 0;
        const uint64_t pos = static_cast<uint64_t>(reverse ? length - 1 - t : t);
        HostPiece slice = SliceAt(inputs_host[j], static_cast<size_t>(axes[j]), pos);
        const ElemType type = state_n + j < body.input_types.size() ? body.input_types[state_n + j]
                                                                    : ElemType::kFloat;
        ALKNET_ASSIGN_OR_RETURN(Value sv, upload(std::move(slice), type));
        sv.name = body.input_names[state_n + j];
        if (state_n + j < body.host_read.size() && body.host_read[state_n + j]) {
          ALKNET_ASSIGN_OR_RETURN(sv, ToHostKnown(sv));
        }
        seeds.push_back(std::move(sv));
      }
      captured(body, seeds);
      ++stats.subgraph_runs;
      ALKNET_ASSIGN_OR_RETURN(
          std::vector<Value> outs,
          RunProgram(body, body.cache, std::move(seeds), nullptr, ro, &body_reads));
      for (size_t j = 0; j < state_n; ++j) state[j] = std::move(outs[j]);
      for (size_t k = 0; k < scans_n; ++k) {
        ALKNET_ASSIGN_OR_RETURN(HostPiece piece, download(outs[state_n + k]));
        ForgetReadBack(outs[state_n + k]);
        scans[k].push_back(std::move(piece));
      }
    }
    std::vector<Value> results = std::move(state);
    for (size_t k = 0; k < scans_n; ++k) {
      const std::string& name = body.output_names[state_n + k];
      if (scans[k].empty()) {
        return fail(ErrorCode::kUnsupported,
                    "Scan over zero-length inputs (the scan outputs' element shape is unknown)");
      }
      const int64_t axis = k < out_axes.size() ? out_axes[k] : 0;
      const bool reverse = k < out_dirs.size() && out_dirs[k] != 0;
      ALKNET_ASSIGN_OR_RETURN(HostPiece stacked,
                              Stack(scans[k], axis, reverse, "scan output '" + name + "'"));
      ALKNET_ASSIGN_OR_RETURN(Value v, upload(std::move(stacked), type_of(name)));
      results.push_back(std::move(v));
    }
    return results;
  };

  std::vector<Value> state;
  std::vector<HostPiece> inputs_host;
  for (size_t j = 0; j < state_n; ++j) {
    ALKNET_ASSIGN_OR_RETURN(Value v, lookup(n.inputs[first + j]));
    state.push_back(std::move(v));
  }
  for (size_t j = 0; j < m; ++j) {
    ALKNET_ASSIGN_OR_RETURN(Value v, lookup(n.inputs[first + state_n + j]));
    ALKNET_ASSIGN_OR_RETURN(HostPiece h, download(v));
    inputs_host.push_back(std::move(h));
  }
  if (!batched) return scan(std::move(state), std::move(inputs_host));

  // Opset 8: the batch axis (0 of every input) split off; every row must scan its full length.
  std::vector<HostPiece> states_host;
  for (const Value& v : state) {
    ALKNET_ASSIGN_OR_RETURN(HostPiece h, download(v));
    states_host.push_back(std::move(h));
  }
  uint64_t batch = 0;
  bool have_batch = false;
  for (const auto* group : {&states_host, &inputs_host}) {
    for (const HostPiece& h : *group) {
      if (h.shape.size() < (group == &inputs_host ? 2u : 1u)) {
        return fail(ErrorCode::kShape,
                    "opset-8 Scan inputs need a batch axis (and a sequence "
                    "axis for scan inputs)");
      }
      if (have_batch && h.shape[0] != batch)
        return fail(ErrorCode::kShape, "inputs disagree on the batch size");
      batch = h.shape[0];
      have_batch = true;
    }
  }
  if (!n.inputs[0].empty()) {
    ALKNET_ASSIGN_OR_RETURN(Value lv, lookup(n.inputs[0]));
    ALKNET_ASSIGN_OR_RETURN(Value lens, ToHostKnown(lv));
    const uint64_t full = inputs_host.empty() ? 0 : inputs_host[0].shape[1];
    for (double l : lens.known->data) {
      if (l != static_cast<double>(full)) {
        return fail(ErrorCode::kUnsupported,
                    "sequence_lens shorter than the scan inputs' sequence axis is not supported");
      }
    }
  }
  std::vector<std::vector<HostPiece>> rows(n.outputs.size());
  for (uint64_t b = 0; b < batch; ++b) {
    std::vector<Value> row_state;
    for (size_t j = 0; j < state_n; ++j) {
      const ElemType type = j < body.input_types.size() ? body.input_types[j] : ElemType::kFloat;
      ALKNET_ASSIGN_OR_RETURN(Value v, upload(SliceAt(states_host[j], 0, b), type));
      row_state.push_back(std::move(v));
    }
    std::vector<HostPiece> row_inputs;
    for (const HostPiece& h : inputs_host) row_inputs.push_back(SliceAt(h, 0, b));
    ALKNET_ASSIGN_OR_RETURN(std::vector<Value> outs,
                            scan(std::move(row_state), std::move(row_inputs)));
    for (size_t o = 0; o < outs.size(); ++o) {
      ALKNET_ASSIGN_OR_RETURN(HostPiece piece, download(outs[o]));
      rows[o].push_back(std::move(piece));
    }
  }
  std::vector<Value> results;
  for (size_t o = 0; o < n.outputs.size(); ++o) {
    if (rows[o].empty()) return fail(ErrorCode::kUnsupported, "Scan over an empty batch");
    const std::string name = o < body.output_names.size() ? body.output_names[o] : "";
    ALKNET_ASSIGN_OR_RETURN(HostPiece stacked,
                            Stack(rows[o], 0, false, "Scan output '" + name + "'"));
    ALKNET_ASSIGN_OR_RETURN(Value v, upload(std::move(stacked), type_of(name)));
    results.push_back(std::move(v));
  }
  return results;
}

}  // namespace alknet::onnx
