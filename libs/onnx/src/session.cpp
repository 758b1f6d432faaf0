// Session: load (parse, shape inference, checks against the op table), plan (per input
// shapes: fold on the host, build a compute::Graph, LRU cache), run (one Executor::Run).
#include "alknet/onnx/session.h"

#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <list>
#include <map>
#include <set>
#include <unordered_map>

#include "alknet/compute/executor.h"
#include "alknet/compute/op_table.h"
#include "alknet/webgpu/context.h"
#include "proto.h"

namespace alknet::onnx {

namespace fs = std::filesystem;
using compute::ConstValue;
using compute::DType;
using compute::Graph;
using compute::OpNode;
using compute::OpRecord;
using compute::OpTable;
using compute::RefTensor;
using compute::TensorDesc;

namespace {

double MsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Ops the importer computes itself: they depend only on shapes or attributes, so no kernel
// and no record is involved.
bool IsImporterOp(const std::string& op) { return op == "Constant" || op == "Shape" || op == "Size"; }

// Ops whose `to` / `dtype` attribute names a TensorProto.DataType: rewritten to the device
// type the record will produce (INT64 -> INT32, DOUBLE -> FLOAT, ...).
bool HasDtypeAttribute(const std::string& op, const std::string& attr) {
  static const std::set<std::string> ops = {"Cast", "EyeLike", "RandomNormal", "RandomUniform", "RandomNormalLike",
                                            "RandomUniformLike", "Multinomial", "Bernoulli"};
  return (attr == "to" || attr == "dtype") && ops.count(op) != 0;
}

int OnnxNumberOf(DType d) {
  switch (d) {
    case DType::kF32: return 1;
    case DType::kF16: return 10;
    case DType::kI32: return 6;
    case DType::kU32: return 12;
    case DType::kBool: return 9;
    default: return 0;
  }
}

ElemType FallbackType(DType d) {
  auto t = ElemTypeOf(d);
  return t ? *t : ElemType::kUndefined;
}

bool HasAttribute(const OpRecord* r, const std::string& name) {
  if (r == nullptr) return false;
  for (const auto& a : r->attributes) {
    if (a.name == name) return true;
  }
  return false;
}

struct NodeInfo {
  std::string op, name, domain;
  int opset = 0;
  int index = 0;
  compute::Attributes attrs;
  std::vector<std::string> inputs, outputs;
  const OpRecord* record = nullptr;

  std::string Where(const std::string& model) const {
    std::string s = model + ": node " + std::to_string(index);
    if (!name.empty()) s += " '" + name + "'";
    s += " (" + op + ", opset " + std::to_string(opset) + (domain.empty() ? "" : ", domain " + domain) + ")";
    return s;
  }
};

struct Initializer {
  Tensor host;
  ConstValue known;         // when small enough to fold with
  compute::Tensor device;   // uploaded on first use by a device node
};

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

struct Plan {
  Graph graph;
  std::vector<int> user_inputs;  // graph input j (j < size) is session input user_inputs[j]
  std::vector<compute::Tensor> constants;  // graph inputs after the user inputs
  struct Output {
    int graph_output = -1;  // index into graph.outputs, or -1 when known
    ConstValue known;
    ElemType type = ElemType::kUndefined;
    std::string name;
  };
  std::vector<Output> outputs;
  uint64_t folded = 0, on_device = 0;  // device nodes as planned, before the executor's passes
  bool fusions_counted = false;  // set by its first run (the executor's passes fuse)
  uint64_t fusions = 0;
};

Result<ValueInfo> InfoOf(const ::onnx::ValueInfoProto& v, const std::string& model) {
  ValueInfo info;
  info.name = v.name();
  if (!v.type().has_tensor_type()) {
    return Error{ErrorCode::kUnsupported, model + ": value '" + v.name() +
                                              "' is not a tensor (sequences, maps and optionals are not supported)"};
  }
  const auto& tt = v.type().tensor_type();
  info.type = static_cast<ElemType>(tt.elem_type());
  if (tt.has_shape()) {
    info.has_shape = true;
    for (const auto& d : tt.shape().dim()) {
      info.shape.push_back(d.has_dim_value() ? d.dim_value() : -1);
      info.dim_names.push_back(d.has_dim_param() ? d.dim_param() : "");
    }
  }
  return info;
}

}  // namespace

struct Session::Impl {
  SessionOptions options;
  std::unique_ptr<webgpu::Context> owned_context;
  webgpu::Context* ctx = nullptr;
  std::unique_ptr<compute::Executor> exec;
  bool f16 = false;
  std::string model;  // file name for messages
  fs::path base_dir;
  std::map<std::string, int> opsets;
  std::vector<ValueInfo> inputs, outputs;
  std::vector<NodeInfo> nodes;
  std::unordered_map<std::string, Initializer> inits;
  std::unordered_map<std::string, ElemType> value_types;
  std::vector<bool> host_read;  // per input: its values are read at plan time
  std::list<std::pair<std::string, std::shared_ptr<Plan>>> cache;
  SessionStats stats;

  Status Load(std::span<const std::byte> bytes);
  Result<std::shared_ptr<Plan>> BuildPlan(std::span<const HostInput* const> ordered);
  Result<RunResult> Run(std::span<const HostInput> inputs, const RunOptions& options);
};

Status Session::Impl::Load(std::span<const std::byte> bytes) {
  ALKNET_ASSIGN_OR_RETURN(auto proto, detail::ParseModel(bytes, model));
  ::onnx::ModelProto& m = *proto;
  for (const auto& o : m.opset_import()) {
    opsets[o.domain() == "ai.onnx" ? "" : o.domain()] = static_cast<int>(o.version());
  }
  if (!opsets.count("")) {
    // IR version 2 models may omit the import; ONNX then means opset 1.
    if (m.opset_import_size() == 0) {
      opsets[""] = 1;
    }
  }
  // Declared types for every intermediate value (the records' infer stays authoritative for
  // shapes; ONNX's inference gives the ONNX element types outputs convert back to).
  try {
    ::onnx::shape_inference::InferShapes(m);
  } catch (const std::exception&) {
    // Models ONNX cannot infer still run: our own propagation is what plans rely on.
  }
  const ::onnx::GraphProto& g = m.graph();
  if (g.sparse_initializer_size() > 0) {
    return Error{ErrorCode::kUnsupported, model + ": sparse initializers are not supported"};
  }

  // The device first: FLOAT16 support and attribute conversion depend on it.
  if (options.context == nullptr) {
    auto created = webgpu::Context::Create();
    if (!created.ok()) return compute::FromWebGpu(created.error());
    owned_context = std::move(created).value();
    ctx = owned_context.get();
  } else {
    ctx = options.context;
  }
  // The executor's graph passes are the fusions (MatMul + Add -> Gemm, ...).
  exec = std::make_unique<compute::Executor>(*ctx, compute::ExecutorOptions{.run_passes = options.fuse});
  f16 = exec->caps().shader_f16;

  for (const auto& tp : g.initializer()) {
    const std::string what = model + ": initializer '" + tp.name() + "'";
    ALKNET_ASSIGN_OR_RETURN(Tensor t, detail::DecodeTensor(tp, base_dir, what, options.check_read));
    ALKNET_TRY(DeviceTypeOf(t.type, f16, what));
    Initializer init;
    if (t.elements() <= options.fold_limit) {
      ALKNET_ASSIGN_OR_RETURN(RefTensor r, ToRef(t, f16));
      init.known = std::make_shared<const RefTensor>(std::move(r));
    }
    value_types[tp.name()] = t.type;
    init.host = std::move(t);
    inits[tp.name()] = std::move(init);
  }
  for (const auto& v : g.input()) {
    if (inits.count(v.name())) continue;  // IR < 4: an initializer listed as an input has a default
    ALKNET_ASSIGN_OR_RETURN(ValueInfo info, InfoOf(v, model));
    ALKNET_TRY(DeviceTypeOf(info.type, f16, model + ": input '" + info.name + "'"));
    value_types[info.name] = info.type;
    inputs.push_back(std::move(info));
  }
  for (const auto& v : g.output()) {
    ALKNET_ASSIGN_OR_RETURN(ValueInfo info, InfoOf(v, model));
    ALKNET_TRY(DeviceTypeOf(info.type, f16, model + ": output '" + info.name + "'"));
    value_types[info.name] = info.type;
    outputs.push_back(std::move(info));
  }
  for (const auto& v : g.value_info()) {
    if (v.type().has_tensor_type() && !value_types.count(v.name())) {
      value_types[v.name()] = static_cast<ElemType>(v.type().tensor_type().elem_type());
    }
  }

  const OpTable& table = OpTable::Default();
  for (int k = 0; k < g.node_size(); ++k) {
    const ::onnx::NodeProto& np = g.node(k);
    NodeInfo n;
    n.op = np.op_type();
    n.name = np.name();
    n.domain = np.domain() == "ai.onnx" ? "" : np.domain();
    n.index = k;
    n.inputs.assign(np.input().begin(), np.input().end());
    // Trailing empty names are the same as leaving the optional inputs out (IR spec); records
    // then see the shorter input list.
    while (!n.inputs.empty() && n.inputs.back().empty()) n.inputs.pop_back();
    n.outputs.assign(np.output().begin(), np.output().end());
    auto opset = opsets.find(n.domain);
    if (n.domain != "") {
      return Error{ErrorCode::kUnsupported, n.Where(model) + ": domain '" + n.domain +
                                                "' is not supported (alknet implements the default ai.onnx domain)"};
    }
    n.opset = opset == opsets.end() ? 0 : opset->second;
    if (n.opset == 0) {
      return Error{ErrorCode::kInvalidArgument, n.Where(model) + ": the model imports no opset for the ai.onnx domain"};
    }
    for (const auto& a : np.attribute()) {
      const std::string what = n.Where(model) + ": attribute '" + a.name() + "'";
      ALKNET_ASSIGN_OR_RETURN(compute::AttrValue v, detail::ConvertAttribute(a, base_dir, f16, what, options.check_read));
      if (HasDtypeAttribute(n.op, a.name()) && v.index() == 0) {
        const auto onnx_type = static_cast<ElemType>(std::get<int64_t>(v));
        ALKNET_ASSIGN_OR_RETURN(DType d, DeviceTypeOf(onnx_type, f16, what));
        v = static_cast<int64_t>(OnnxNumberOf(d));
      }
      n.attrs[a.name()] = std::move(v);
    }
    if (!IsImporterOp(n.op)) {
      n.record = table.Find(n.op, n.opset);
      if (n.record == nullptr) {
        const OpRecord* any = table.Find(n.op);
        if (any != nullptr) {
          return Error{ErrorCode::kUnknownOp, n.Where(model) + ": the op table supports " + n.op + " for opsets " +
                                                  std::to_string(any->opset_min) + ".." +
                                                  std::to_string(any->opset_max) + " only"};
        }
        return Error{ErrorCode::kUnknownOp, n.Where(model) + ": unsupported op " + n.op +
                                                " (no record in the op table; docs/ops.md lists the supported ops)"};
      }
      // Records that split into "as many outputs as the node lists" (Split before opset 18)
      // learn the count from `num_outputs`: OpNode carries no output list through the executor.
      if (HasAttribute(n.record, "num_outputs") && !n.attrs.count("num_outputs") && !n.attrs.count("split") &&
          (n.inputs.size() < 2 || n.inputs[1].empty())) {
        n.attrs["num_outputs"] = static_cast<int64_t>(n.outputs.size());
      }
      OpNode probe{n.op, n.name, n.opset, n.attrs, {}, {}, {}};
      auto resolved = table.ResolveAttributes(*n.record, probe);
      if (!resolved.ok()) {
        return Error{resolved.error().code, n.Where(model) + ": " + resolved.error().message};
      }
    } else if (n.op == "Constant") {
      for (const char* unsupported : {"sparse_value", "value_string", "value_strings"}) {
        if (n.attrs.count(unsupported)) {
          return Error{ErrorCode::kUnsupported, n.Where(model) + ": Constant with " + unsupported + " is not supported"};
        }
      }
    }
    nodes.push_back(std::move(n));
  }

  // Inputs whose values must be known at plan time: those reaching a host input (Reshape's
  // shape, ...) through nodes that can be folded. Shape and Size only need the shape.
  std::set<std::string> needed;
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    if (it->record != nullptr) {
      for (uint32_t h : it->record->host_inputs) {
        if (h < it->inputs.size() && !it->inputs[h].empty()) needed.insert(it->inputs[h]);
      }
    }
    if (it->op == "Shape" || it->op == "Size") continue;
    bool out_needed = false;
    for (const auto& o : it->outputs) out_needed = out_needed || needed.count(o) != 0;
    if (out_needed) {
      for (const auto& i : it->inputs) {
        if (!i.empty()) needed.insert(i);
      }
    }
  }
  for (const auto& in : inputs) host_read.push_back(needed.count(in.name) != 0);
  return Ok{};
}

Result<std::shared_ptr<Plan>> Session::Impl::BuildPlan(std::span<const HostInput* const> ordered) {
  const OpTable& table = OpTable::Default();
  auto plan = std::make_shared<Plan>();
  std::unordered_map<std::string, Slot> slots;
  std::vector<LocalRef> refs;
  std::vector<LocalNode> lnodes;
  std::vector<bool> input_used(inputs.size(), false);
  std::vector<int> input_ref(inputs.size(), -1);

  auto type_of = [&](const std::string& name, DType d) {
    auto it = value_types.find(name);
    return it != value_types.end() && it->second != ElemType::kUndefined ? it->second : FallbackType(d);
  };

  for (size_t i = 0; i < inputs.size(); ++i) {
    const HostInput& in = *ordered[i];
    Slot s;
    s.defined = true;
    ALKNET_ASSIGN_OR_RETURN(DType d, DeviceTypeOf(inputs[i].type, f16, "input '" + inputs[i].name + "'"));
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
    ALKNET_ASSIGN_OR_RETURN(DType d, DeviceTypeOf(init.host.type, f16, "initializer '" + name + "'"));
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
      ALKNET_ASSIGN_OR_RETURN(std::vector<std::byte> bytes, RefToDeviceBytes(*s.known, model + ": value '" + name + "'"));
      ALKNET_ASSIGN_OR_RETURN(compute::Tensor t, exec->Upload(s.known->dtype, s.known->shape, bytes));
      s.ref = add_constant(std::move(t));
      return s.ref;
    }
    return Error{ErrorCode::kInvalidArgument, model + ": value '" + name + "' is neither on the device nor known"};
  };

  auto emit = [&](LocalNode ln, const std::vector<std::string>& out_names, const std::vector<TensorDesc>& outs) {
    lnodes.push_back(std::move(ln));
    const int node_index = static_cast<int>(lnodes.size()) - 1;
    for (size_t o = 0; o < outs.size(); ++o) {
      refs.push_back({LocalRef::kNode, node_index, static_cast<int>(o)});
      Slot s;
      s.defined = true;
      s.ref = static_cast<int>(refs.size()) - 1;
      s.desc = TensorDesc{outs[o].dtype, outs[o].shape};
      s.type = o < out_names.size() ? type_of(out_names[o], outs[o].dtype) : FallbackType(outs[o].dtype);
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
    bool all_known = true;
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
        return Error{ErrorCode::kInvalidArgument, n.Where(model) + ": input '" + name +
                                                      "' is not defined by any earlier node, graph input or initializer"};
      }
      Slot& s = it->second;
      if (s.unavailable) return *s.unavailable;
      on.inputs.push_back(s.known ? TensorDesc{s.known->dtype, s.known->shape} : s.desc);
      on.input_values.push_back(s.known);
      in_slots.push_back(&s);
      all_known = all_known && s.known != nullptr;
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
      ConstValue v;
      if (auto a = n.attrs.find("value"); a != n.attrs.end() && a->second.index() == 5) {
        v = std::get<ConstValue>(a->second);
      } else if (auto f = n.attrs.find("value_float"); f != n.attrs.end()) {
        v = std::make_shared<const RefTensor>(RefTensor{DType::kF32, {}, {std::get<double>(f->second)}});
      } else if (auto fs_ = n.attrs.find("value_floats"); fs_ != n.attrs.end()) {
        const auto& l = std::get<std::vector<double>>(fs_->second);
        v = std::make_shared<const RefTensor>(RefTensor{DType::kF32, {l.size()}, l});
      } else if (auto i = n.attrs.find("value_int"); i != n.attrs.end()) {
        v = std::make_shared<const RefTensor>(
            RefTensor{DType::kI32, {}, {static_cast<double>(std::get<int64_t>(i->second))}});
      } else if (auto is = n.attrs.find("value_ints"); is != n.attrs.end()) {
        const auto& l = std::get<std::vector<int64_t>>(is->second);
        v = std::make_shared<const RefTensor>(RefTensor{DType::kI32, {l.size()}, std::vector<double>(l.begin(), l.end())});
      } else {
        return fail(Error{ErrorCode::kInvalidAttribute, "Constant without a value attribute"});
      }
      known_slot(0, *v);
      ++plan->folded;
      continue;
    }
    if (n.op == "Shape" || n.op == "Size") {
      if (on.inputs.empty() || on.inputs[0].absent) return fail(Error{ErrorCode::kShape, "needs one input"});
      const compute::Shape& shape = on.inputs[0].shape;
      RefTensor r{DType::kI32, {}, {}};
      if (n.op == "Size") {
        r.data = {static_cast<double>(on.inputs[0].elements())};
      } else {
        // Opset 15: start/end slice the shape, negative counting from the back, clamped.
        const int64_t rank = static_cast<int64_t>(shape.size());
        auto clamp = [rank](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
        int64_t start = 0, end = rank;
        if (auto a = n.attrs.find("start"); a != n.attrs.end()) start = clamp(std::get<int64_t>(a->second));
        if (auto a = n.attrs.find("end"); a != n.attrs.end()) end = clamp(std::get<int64_t>(a->second));
        for (int64_t k = start; k < end; ++k) r.data.push_back(static_cast<double>(shape[k]));
        r.shape = {r.data.size()};
      }
      known_slot(0, std::move(r));
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
      return fail(Error{ErrorCode::kUnsupported, "the node lists " + std::to_string(n.outputs.size()) +
                                                     " outputs, the op table's record produces " +
                                                     std::to_string(outs.size())});
    }

    // Fold: every input known and the results small.
    if (all_known && rec->reference) {
      bool small = true;
      for (const auto& d : outs) small = small && d.elements() <= options.fold_limit;
      if (small) {
        std::vector<RefTensor> ins;
        for (size_t i = 0; i < in_slots.size(); ++i) ins.push_back(in_slots[i] ? *in_slots[i]->known : RefTensor{});
        auto r = compute::ReferenceRun(on, ins);
        if (!r.ok()) return fail(r.error());
        for (size_t o = 0; o < r->size(); ++o) known_slot(o, std::move((*r)[o]));
        ++plan->folded;
        continue;
      }
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

  // Outputs.
  std::vector<int> output_refs;
  for (const ValueInfo& out : outputs) {
    auto it = slots.find(out.name);
    if (it == slots.end()) {
      return Error{ErrorCode::kInvalidArgument, model + ": output '" + out.name + "' is not computed by any node"};
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
        return Error{ErrorCode::kInvalidArgument, model + ": internal: node " + ln.name + " reads a value planned later"};
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

Result<RunResult> Session::Impl::Run(std::span<const HostInput> given, const RunOptions& ro) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<const HostInput*> ordered(inputs.size(), nullptr);
  std::vector<std::unique_ptr<std::pair<Tensor, HostInput>>> downloaded;  // device inputs read on the host
  for (const HostInput& in : given) {
    auto it = std::find_if(inputs.begin(), inputs.end(), [&](const ValueInfo& v) { return v.name == in.name; });
    if (it == inputs.end()) {
      std::string names;
      for (const auto& v : inputs) names += (names.empty() ? "" : ", ") + v.name;
      return Error{ErrorCode::kInvalidArgument, model + ": the model has no input '" + in.name + "' (inputs: " + names + ")"};
    }
    const size_t i = static_cast<size_t>(it - inputs.begin());
    if (ordered[i] != nullptr) return Error{ErrorCode::kInvalidArgument, model + ": input '" + in.name + "' given twice"};
    const ValueInfo& v = *it;
    if (in.type != v.type) {
      return Error{ErrorCode::kInvalidArgument, model + ": input '" + in.name + "' is " + ElemTypeName(in.type) +
                                                    ", the model declares " + ElemTypeName(v.type)};
    }
    if (v.has_shape) {
      bool ok = v.shape.size() == in.shape.size();
      for (size_t d = 0; ok && d < v.shape.size(); ++d) ok = v.shape[d] < 0 || static_cast<uint64_t>(v.shape[d]) == in.shape[d];
      if (!ok) {
        std::string declared = "[";
        for (size_t d = 0; d < v.shape.size(); ++d) {
          declared += (d ? "," : "") + (v.shape[d] < 0 ? (v.dim_names[d].empty() ? "?" : v.dim_names[d]) : std::to_string(v.shape[d]));
        }
        return Error{ErrorCode::kShape, model + ": input '" + in.name + "' has shape " + compute::ShapeToString(in.shape) +
                                            ", the model declares " + declared + "]"};
      }
    }
    uint64_t n = 1;
    for (uint64_t d : in.shape) n *= d;
    if (in.device.valid()) {
      ALKNET_ASSIGN_OR_RETURN(DType d, DeviceTypeOf(in.type, f16, "input '" + in.name + "'"));
      if (in.device.dtype() != d || in.device.shape() != in.shape) {
        return Error{ErrorCode::kInvalidArgument,
                     model + ": input '" + in.name + "' is a device tensor " + compute::DTypeName(in.device.dtype()) +
                         compute::ShapeToString(in.device.shape()) + "; the model needs " + compute::DTypeName(d) +
                         compute::ShapeToString(in.shape)};
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
      return Error{ErrorCode::kInvalidArgument, model + ": input '" + in.name + "' has " + std::to_string(in.data.size()) +
                                                    " bytes, its shape and type need " + std::to_string(n * ElemSize(in.type))};
    }
    ordered[i] = &in;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (ordered[i] == nullptr) return Error{ErrorCode::kInvalidArgument, model + ": input '" + inputs[i].name + "' is missing"};
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
    stats.nodes_folded = plan->folded;
    stats.nodes_on_device = plan->on_device;
    stats.fusions = 0;
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
    const uint64_t rewrites = exec->stats().graph_rewrites;
    auto ran = exec->Run(plan->graph, device_in);
    exec->set_profile(nullptr);
    if (!ran.ok()) return Error{ran.error().code, model + ": " + ran.error().message};
    if (!plan->fusions_counted) {
      // The passes fuse the same nodes on every run of a plan (same graph, same shapes).
      plan->fusions_counted = true;
      plan->fusions = exec->stats().graph_rewrites - rewrites;
      stats.fusions = plan->fusions;
      stats.nodes_on_device = plan->on_device - plan->fusions;
    }
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

Result<HostInput> InputFromView(const tensor::TensorView& view, std::string name) {
  auto t = ElemTypeOf(view.dtype());
  if (!t) {
    return Error{ErrorCode::kUnsupported, "tensor '" + std::string(view.name()) + "' has dtype " +
                                              compute::DTypeName(view.dtype()) + ", which has no ONNX equivalent alknet runs"};
  }
  HostInput in;
  in.name = name.empty() ? std::string(view.name()) : std::move(name);
  in.type = *t;
  in.shape.assign(view.shape().begin(), view.shape().end());
  in.data = view.data;
  return in;
}

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;
Session::~Session() = default;

Result<Session> Session::Load(const fs::path& path, const SessionOptions& options) {
  if (options.check_read) ALKNET_TRY(options.check_read(path));
  ALKNET_ASSIGN_OR_RETURN(std::vector<std::byte> bytes, detail::ReadFileBytes(path, options.max_model_bytes));
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->model = path.string();
  impl->base_dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  ALKNET_TRY(impl->Load(bytes));
  return Session(std::move(impl));
}

Result<Session> Session::LoadFromBytes(std::span<const std::byte> bytes, const fs::path& base_dir,
                                       const SessionOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->model = "<memory>";
  impl->base_dir = base_dir;
  ALKNET_TRY(impl->Load(bytes));
  return Session(std::move(impl));
}

const std::vector<ValueInfo>& Session::inputs() const { return impl_->inputs; }
const std::vector<ValueInfo>& Session::outputs() const { return impl_->outputs; }
int Session::opset(const std::string& domain) const {
  auto it = impl_->opsets.find(domain == "ai.onnx" ? "" : domain);
  return it == impl_->opsets.end() ? 0 : it->second;
}
std::vector<std::string> Session::op_types() const {
  std::vector<std::string> ops;
  for (const auto& n : impl_->nodes) ops.push_back(n.op);
  return ops;
}
Result<RunResult> Session::Run(std::span<const HostInput> inputs, const RunOptions& options) {
  return impl_->Run(inputs, options);
}
const SessionStats& Session::stats() const { return impl_->stats; }
webgpu::Context& Session::context() { return *impl_->ctx; }

Result<std::vector<std::string>> ReadOpTypes(const fs::path& path) {
  ALKNET_ASSIGN_OR_RETURN(std::vector<std::byte> bytes, detail::ReadFileBytes(path, uint64_t{2} << 30));
  ALKNET_ASSIGN_OR_RETURN(auto m, detail::ParseModel(bytes, path.string()));
  std::vector<std::string> ops;
  for (const auto& n : m->graph().node()) ops.push_back(n.op_type());
  return ops;
}

Result<Tensor> ReadTensorFile(const fs::path& path) {
  ALKNET_ASSIGN_OR_RETURN(std::vector<std::byte> bytes, detail::ReadFileBytes(path, uint64_t{2} << 30));
  ::onnx::TensorProto tp;
  if (!tp.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Error{ErrorCode::kInvalidArgument, path.string() + ": not a TensorProto (protobuf parsing failed)"};
  }
  return detail::DecodeTensor(tp, path.parent_path(), path.string());
}

}  // namespace alknet::onnx
