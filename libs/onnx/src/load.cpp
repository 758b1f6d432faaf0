// Loading a model: the protobuf (proto.cpp: size caps, external data confined to the model's
// folder), ONNX shape inference for the declared types, attributes converted, every node
// checked against the op table, and which inputs a plan reads on the host.
#include <onnx/onnx-data_pb.h>

#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <string_view>

#include "proto.h"
#include "session_impl.h"
#include "validate.h"

namespace alknet::onnx {

namespace fs = std::filesystem;
using namespace detail;

namespace {

// Ops whose `to` / `dtype` attribute names a TensorProto.DataType: rewritten to the device
// type the record will produce (INT64 -> INT32, DOUBLE -> FLOAT, ...).
bool HasDtypeAttribute(const std::string& op, const std::string& attr) {
  static const std::set<std::string> ops = {
      "Cast",          "EyeLike",          "RandomNormal",
      "RandomUniform", "RandomNormalLike", "RandomUniformLike",
      "Multinomial",   "Bernoulli"};
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

bool HasAttribute(const OpRecord* r, const std::string& name) {
  if (r == nullptr) return false;
  for (const auto& a : r->attributes) {
    if (a.name == name) return true;
  }
  return false;
}

Result<ValueInfo> InfoOf(const ::onnx::ValueInfoProto& v, const std::string& model) {
  ValueInfo info;
  info.name = v.name();
  const ::onnx::TypeProto* t = &v.type();
  if (t->has_optional_type()) {
    info.optional = true;
    t = &t->optional_type().elem_type();
  }
  if (t->has_sequence_type()) {
    info.sequence = true;
    t = &t->sequence_type().elem_type();
  }
  if (!t->has_tensor_type()) {
    return Error{ErrorCode::kUnsupported,
                 model + ": value '" + v.name() +
                     "' is not a tensor, a sequence of tensors or an optional of those (maps, "
                     "sparse tensors and nested sequences are not supported)"};
  }
  const auto& tt = t->tensor_type();
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

// The static shape of every value the model declares (inputs, outputs, value_info after ONNX
// shape inference) whose dimensions are all known.
std::map<std::string, std::vector<int64_t>> StaticShapes(const ::onnx::GraphProto& g) {
  std::map<std::string, std::vector<int64_t>> shapes;
  auto add = [&](const ::onnx::ValueInfoProto& v) {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
    std::vector<int64_t> dims;
    for (const auto& d : v.type().tensor_type().shape().dim()) {
      if (!d.has_dim_value()) return;
      dims.push_back(d.dim_value());
    }
    shapes[v.name()] = std::move(dims);
  };
  for (const auto& v : g.input()) add(v);
  for (const auto& v : g.output()) add(v);
  for (const auto& v : g.value_info()) add(v);
  for (const auto& t : g.initializer()) shapes[t.name()].assign(t.dims().begin(), t.dims().end());
  return shapes;
}

// Gradient (ai.onnx.preview.training, opset 1) of node `k`: dy/dx for each x of `xs`, the
// gradient of sum(y), written as ai.onnx nodes over the forward values (reverse mode through
// the nodes before it that lie between the xs and y). Element-wise Add, Sub, Mul, Div, Neg
// and Identity without broadcasting on the differentiated inputs; anything else is refused.
Result<std::vector<::onnx::NodeProto>> ExpandGradient(const ::onnx::GraphProto& g, int k,
                                                      const std::string& model) {
  const ::onnx::NodeProto& gn = g.node(k);
  const std::string where = model + ": node " + std::to_string(k) +
                            (gn.name().empty() ? "" : " '" + gn.name() + "'") + " (Gradient)";
  std::vector<std::string> xs;
  std::string y;
  for (const auto& a : gn.attribute()) {
    if (a.name() == "xs") {
      xs.assign(a.strings().begin(), a.strings().end());
    } else if (a.name() == "y") {
      y = a.s();
    } else if (a.name() == "zs") {
      if (a.strings_size() > 0)
        return Error{ErrorCode::kUnsupported, where + ": attribute 'zs' is not supported"};
    } else {
      return Error{ErrorCode::kInvalidAttribute, where + ": unknown attribute '" + a.name() + "'"};
    }
  }
  if (xs.empty() || y.empty())
    return Error{ErrorCode::kInvalidAttribute, where + ": needs attributes 'xs' and 'y'"};
  if (gn.input_size() != static_cast<int>(xs.size()) ||
      gn.output_size() != static_cast<int>(xs.size())) {
    return Error{ErrorCode::kInvalidArgument,
                 where + ": needs one input and one output per name in 'xs' (" +
                     std::to_string(xs.size()) + "), has " + std::to_string(gn.input_size()) +
                     " and " + std::to_string(gn.output_size())};
  }
  for (size_t i = 0; i < xs.size(); ++i) {
    if (gn.input(static_cast<int>(i)) != xs[i])
      return Error{ErrorCode::kInvalidArgument, where + ": input " + std::to_string(i) +
                                                    " must be xs[" + std::to_string(i) + "] '" +
                                                    xs[i] + "'"};
  }
  // The nodes between the xs and y: reached from an x, and reaching y.
  std::set<std::string> reach(xs.begin(), xs.end());
  std::vector<bool> on_path(k, false);
  for (int j = 0; j < k; ++j) {
    for (const auto& in : g.node(j).input()) {
      if (reach.count(in)) on_path[j] = true;
    }
    if (on_path[j])
      for (const auto& o : g.node(j).output()) reach.insert(o);
  }
  std::set<std::string> needed = {y};
  for (int j = k - 1; j >= 0; --j) {
    bool feeds = false;
    for (const auto& o : g.node(j).output()) feeds = feeds || needed.count(o);
    on_path[j] = on_path[j] && feeds;
    if (on_path[j])
      for (const auto& in : g.node(j).input()) needed.insert(in);
  }
  const auto shapes = StaticShapes(g);
  ElemType y_type = ElemType::kUndefined;
  for (const auto& v : g.value_info())
    if (v.name() == y) y_type = static_cast<ElemType>(v.type().tensor_type().elem_type());
  for (const auto& v : g.output())
    if (v.name() == y) y_type = static_cast<ElemType>(v.type().tensor_type().elem_type());
  if (y_type != ElemType::kFloat && y_type != ElemType::kDouble) {
    return Error{ErrorCode::kUnsupported,
                 where + ": y '" + y + "' must be float or double, it is " + ElemTypeName(y_type)};
  }

  std::vector<::onnx::NodeProto> out;
  int counter = 0;
  const std::string prefix = "\x1fgrad" + std::to_string(k) + "/";
  auto fresh = [&] { return prefix + std::to_string(counter++); };
  auto emit = [&](const std::string& op, std::vector<std::string> ins) {
    ::onnx::NodeProto np;
    np.set_op_type(op);
    np.set_name(gn.name());
    for (const auto& i : ins) np.add_input(i);
    const std::string o = fresh();
    np.add_output(o);
    out.push_back(std::move(np));
    return o;
  };
  auto filled = [&](const std::string& like, float value) {
    const std::string shape = emit("Shape", {like});
    ::onnx::NodeProto np;
    np.set_op_type("ConstantOfShape");
    np.set_name(gn.name());
    np.add_input(shape);
    const std::string o = fresh();
    np.add_output(o);
    auto* a = np.add_attribute();
    a->set_name("value");
    a->set_type(::onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(static_cast<int>(y_type));
    a->mutable_t()->add_dims(1);
    if (y_type == ElemType::kDouble) {
      a->mutable_t()->add_double_data(value);
    } else {
      a->mutable_t()->add_float_data(value);
    }
    out.push_back(std::move(np));
    return o;
  };
  std::map<std::string, std::string> grads;
  if (needed.count(y) && reach.count(y)) grads[y] = filled(y, 1.0f);
  auto accumulate = [&](const std::string& name, const std::string& contrib) {
    auto it = grads.find(name);
    if (it == grads.end()) {
      grads[name] = contrib;
    } else {
      it->second = emit("Add", {it->second, contrib});
    }
  };
  for (int j = k - 1; j >= 0; --j) {
    if (!on_path[j]) continue;
    const ::onnx::NodeProto& fn = g.node(j);
    const std::string fwhere = where + ": through node " + std::to_string(j) +
                               (fn.name().empty() ? "" : " '" + fn.name() + "'") + " (" +
                               fn.op_type() + ")";
    const std::string& op = fn.op_type();
    const bool binary = op == "Add" || op == "Sub" || op == "Mul" || op == "Div";
    const bool unary = op == "Neg" || op == "Identity";
    if ((!binary && !unary) || !(fn.domain().empty() || fn.domain() == "ai.onnx")) {
      return Error{ErrorCode::kUnsupported,
                   fwhere + ": alknet differentiates only Add, Sub, Mul, Div, Neg and Identity"};
    }
    if (fn.output_size() != 1 || fn.input_size() != (binary ? 2 : 1)) {
      return Error{ErrorCode::kInvalidArgument, fwhere + ": unexpected input or output count"};
    }
    auto git = grads.find(fn.output(0));
    if (git == grads.end()) continue;
    const std::string gout = git->second;
    auto out_shape = shapes.find(fn.output(0));
    for (int i = 0; i < fn.input_size(); ++i) {
      const std::string& in = fn.input(i);
      if (!reach.count(in)) continue;
      auto in_shape = shapes.find(in);
      if (out_shape == shapes.end() || in_shape == shapes.end() ||
          in_shape->second != out_shape->second) {
        return Error{ErrorCode::kUnsupported,
                     fwhere + ": input '" + in +
                         "' must have the output's static shape (broadcasting and shapes "
                         "unknown at load are not differentiated)"};
      }
      std::string contrib;
      if (op == "Add" || op == "Identity" || (op == "Sub" && i == 0)) {
        contrib = gout;
      } else if (op == "Neg" || op == "Sub") {
        contrib = emit("Neg", {gout});
      } else if (op == "Mul") {
        contrib = emit("Mul", {gout, fn.input(1 - i)});
      } else if (i == 0) {  // Div: d(a/b)/da = 1/b
        contrib = emit("Div", {gout, fn.input(1)});
      } else {  // d(a/b)/db = -a/b^2
        const std::string num = emit("Mul", {gout, fn.input(0)});
        const std::string den = emit("Mul", {fn.input(1), fn.input(1)});
        contrib = emit("Neg", {emit("Div", {num, den})});
      }
      accumulate(in, contrib);
    }
  }
  for (size_t i = 0; i < xs.size(); ++i) {
    auto it = grads.find(xs[i]);
    const std::string gx = it != grads.end() ? it->second : filled(xs[i], 0.0f);
    ::onnx::NodeProto np;
    np.set_op_type("Identity");
    np.set_name(gn.name());
    np.add_input(gx);
    np.add_output(gn.output(static_cast<int>(i)));
    out.push_back(std::move(np));
  }
  return out;
}

}  // namespace

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
  // shapes; ONNX's inference gives the ONNX element types outputs convert back to), after
  // checking what ONNX's inference functions assume and the stored tensors' total size
  // against the memory budget (validate.cpp).
  ALKNET_TRY(detail::ValidateModel(m, model, options.max_memory));
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
  exec = std::make_unique<compute::Executor>(*ctx,
                                             compute::ExecutorOptions{.run_passes = options.fuse});
  f16 = exec->caps().shader_f16;
  if (options.replay) {
    replay = *options.replay;
  } else if (const char* v = std::getenv("ALKNET_REPLAY"); v != nullptr) {
    replay = std::string_view(v) != "0";
  }

  if (detail::HoldsStrings(g)) {
    for (const auto& v : g.input()) {
      bool is_init = false;
      for (const auto& tp : g.initializer()) is_init = is_init || tp.name() == v.name();
      if (is_init) continue;
      ALKNET_ASSIGN_OR_RETURN(ValueInfo info, InfoOf(v, model));
      inputs.push_back(std::move(info));
    }
    for (const auto& v : g.output()) {
      ALKNET_ASSIGN_OR_RETURN(ValueInfo info, InfoOf(v, model));
      outputs.push_back(std::move(info));
    }
    for (const ValueInfo& v : inputs) {
      if (v.sequence || v.optional) {
        return Error{
            ErrorCode::kUnsupported,
            model + ": input '" + v.name +
                "': a graph holding strings takes tensors only (no sequences or optionals)"};
      }
    }
    ALKNET_ASSIGN_OR_RETURN(strings,
                            detail::LoadStringGraph(g, model, base_dir, options.check_read));
    for (int k = 0; k < g.node_size(); ++k) {  // for op_types()
      NodeInfo n;
      n.op = g.node(k).op_type();
      n.name = g.node(k).name();
      n.index = k;
      nodes.push_back(std::move(n));
    }
    return Ok{};
  }
  for (const auto& tp : g.initializer()) {
    const std::string what = model + ": initializer '" + tp.name() + "'";
    ALKNET_ASSIGN_OR_RETURN(Tensor t, detail::DecodeTensor(tp, base_dir, what, options.check_read));
    ALKNET_TRY(DeviceTypeOf(t.type, f16, what));
    Initializer init;
    if (t.elements() <= options.fold_limit) {
      ALKNET_ASSIGN_OR_RETURN(RefTensor r, ToRef(t, f16));
      init.known = std::make_shared<const RefTensor>(std::move(r));
    }
    if (t.type == ElemType::kDouble && wide_initializer.empty() && FirstBeyondF32(t)) {
      wide_initializer = tp.name();
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

  for (int k = 0; k < g.node_size(); ++k) {
    if (g.node(k).op_type() == "Gradient" && g.node(k).domain() == "ai.onnx.preview.training") {
      ALKNET_ASSIGN_OR_RETURN(std::vector<::onnx::NodeProto> expanded, ExpandGradient(g, k, model));
      for (const ::onnx::NodeProto& np : expanded) {
        ALKNET_ASSIGN_OR_RETURN(NodeInfo n, LoadNode(np, k, main));
        n.via = "Gradient";
        nodes.push_back(std::move(n));
      }
      continue;
    }
    ALKNET_ASSIGN_OR_RETURN(NodeInfo n, LoadNode(g.node(k), k, main));
    nodes.push_back(std::move(n));
  }
  // bfloat16 lives on the device as float32 and is truncated only where it leaves the graph
  // (types.cpp): a Cast to bfloat16 whose result other nodes read would skip that rounding.
  std::set<std::string> bf16_casts;
  for (const NodeInfo& n : nodes) {
    if (n.op == "Cast" && n.opset > 0) {
      const auto& np = g.node(n.index);
      for (const auto& a : np.attribute()) {
        if (a.name() == "to" && a.i() == static_cast<int64_t>(ElemType::kBFloat16)) {
          for (const std::string& o : n.outputs) bf16_casts.insert(o);
        }
      }
    }
  }
  for (const NodeInfo& n : nodes) {
    for (const std::string& in : n.inputs) {
      if (bf16_casts.count(in)) {
        return Error{ErrorCode::kUnsupported,
                     n.Where(model) + ": reads '" + in +
                         "', a Cast to bfloat16; alknet holds bfloat16 as float32 and rounds "
                         "only at the graph's outputs, so a bfloat16 intermediate is not "
                         "supported (docs/onnx.md)"};
      }
    }
  }
  for (const ValueInfo& in : inputs) {
    main.input_names.push_back(in.name);
    main.input_types.push_back(in.type);
  }
  for (const ValueInfo& out : outputs) main.output_names.push_back(out.name);
  ComputeFree(main);
  ComputeHostRead(main, &inputs);
  return Ok{};
}

Result<NodeInfo> Session::Impl::LoadNode(const ::onnx::NodeProto& np, int k,
                                         const Program& parent) {
  const OpTable& table = OpTable::Default();
  {
    NodeInfo n;
    n.scope = parent.scope;
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
    // The optimizers of ai.onnx.preview.training (opset 1) are records of the table under
    // their own names (no ai.onnx op shares them).
    const bool training = n.domain == "ai.onnx.preview.training" &&
                          (n.op == "Adagrad" || n.op == "Momentum" || n.op == "Adam");
    if (n.domain != "" && !training) {
      return Error{ErrorCode::kUnsupported,
                   n.Where(model) + ": domain '" + n.domain +
                       "' is not supported (alknet implements the default ai.onnx domain and "
                       "Adagrad, Momentum, Adam, Gradient of ai.onnx.preview.training)"};
    }
    n.opset = opset == opsets.end() ? 0 : opset->second;
    if (n.opset == 0) {
      return Error{ErrorCode::kInvalidArgument,
                   n.Where(model) + ": the model imports no opset for the " +
                       (n.domain.empty() ? std::string("ai.onnx") : n.domain) + " domain"};
    }
    for (const auto& a : np.attribute()) {
      const std::string what = n.Where(model) + ": attribute '" + a.name() + "'";
      if (a.type() == ::onnx::AttributeProto::GRAPH &&
          (IsControlOp(n.op) || n.op == "SequenceMap")) {
        const std::string scope = n.scope + "node " + std::to_string(k) +
                                  (n.name.empty() ? "" : " '" + n.name + "'") + " (" + n.op + ") " +
                                  a.name() + ": ";
        ALKNET_ASSIGN_OR_RETURN(n.graphs[a.name()], LoadSubgraph(a.g(), parent, scope));
        continue;
      }
      // Optional's `type` says what an empty optional would hold: values carry their kind.
      if (a.type() == ::onnx::AttributeProto::TYPE_PROTO && n.op == "Optional") continue;
      ALKNET_ASSIGN_OR_RETURN(compute::AttrValue v,
                              detail::ConvertAttribute(a, base_dir, f16, what, options.check_read));
      if (HasDtypeAttribute(n.op, a.name()) && v.index() == 0) {
        const auto onnx_type = static_cast<ElemType>(std::get<int64_t>(v));
        if (onnx_type == ElemType::kBFloat16 && !n.scope.empty()) {
          return Error{ErrorCode::kUnsupported,
                       what +
                           ": bfloat16 inside a subgraph is not supported (alknet holds "
                           "bfloat16 as float32 and rounds only at the main graph's outputs)"};
        }
        ALKNET_ASSIGN_OR_RETURN(DType d, DeviceTypeOf(onnx_type, f16, what));
        v = static_cast<int64_t>(OnnxNumberOf(d));
      }
      n.attrs[a.name()] = std::move(v);
    }
    // A random op (or Dropout) without a seed gets one now: ONNX leaves it to the runtime; runs of
    // this session then repeat the same numbers, another session draws others (ops/random.cpp).
    if ((n.op == "RandomUniform" || n.op == "RandomNormal" || n.op == "RandomUniformLike" ||
         n.op == "RandomNormalLike" || n.op == "Bernoulli") &&
        !n.attrs.count("seed")) {
      static std::random_device device;
      n.attrs["seed"] = static_cast<double>(device() & 0xffffff);
    }
    // Dropout has a seed from opset 12 on (before, its record refuses the attribute).
    if (n.op == "Dropout" && n.opset >= 12 && !n.attrs.count("seed")) {  // used in training mode
      static std::random_device device;
      n.attrs["seed"] = static_cast<int64_t>(device() & 0xffffff);
    }
    n.host_op = FindHostOp(n.domain, n.op, n.opset);
    if (IsControlOp(n.op)) {
      ALKNET_TRY(CheckControlNode(n, model));
    } else if (n.host_op != nullptr) {
      // Computed on the host (host_ops.cpp): no record.
    } else if (IsSequenceOp(n.op)) {
      // Planned by the importer (plan.cpp): no record.
      if (n.op == "SequenceMap") {
        auto body = n.graphs.find("body");
        if (body == n.graphs.end())
          return Error{ErrorCode::kInvalidArgument, n.Where(model) + ": needs a body graph"};
        if (body->second->input_names.size() != n.inputs.size() ||
            body->second->output_names.size() != n.outputs.size() || n.inputs.empty()) {
          return Error{ErrorCode::kInvalidArgument,
                       n.Where(model) + ": the body has " +
                           std::to_string(body->second->input_names.size()) + " inputs and " +
                           std::to_string(body->second->output_names.size()) +
                           " outputs, the node " + std::to_string(n.inputs.size()) + " and " +
                           std::to_string(n.outputs.size())};
        }
      }
    } else if (!IsImporterOp(n.op)) {
      n.record = table.Find(n.op, n.opset);
      if (n.record == nullptr) {
        const OpRecord* any = table.Find(n.op);
        if (any != nullptr) {
          return Error{ErrorCode::kUnknownOp, n.Where(model) + ": the op table supports " + n.op +
                                                  " for opsets " + std::to_string(any->opset_min) +
                                                  ".." + std::to_string(any->opset_max) + " only"};
        }
        return Error{ErrorCode::kUnknownOp,
                     n.Where(model) + ": unsupported op " + n.op +
                         " (no record in the op table; docs/ops.md lists the supported ops)"};
      }
      // Records that split into "as many outputs as the node lists" (Split before opset 18)
      // learn the count from `num_outputs`: OpNode carries no output list through the executor.
      if (HasAttribute(n.record, "num_outputs") && !n.attrs.count("num_outputs") &&
          !n.attrs.count("split") && (n.inputs.size() < 2 || n.inputs[1].empty())) {
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
          return Error{ErrorCode::kUnsupported,
                       n.Where(model) + ": Constant with " + unsupported + " is not supported"};
        }
      }
    }
    return n;
  }
}

Result<Session> Session::Load(const fs::path& path, const SessionOptions& options) {
  if (options.check_read) ALKNET_TRY(options.check_read(path));
  ALKNET_ASSIGN_OR_RETURN(std::vector<std::byte> bytes,
                          detail::ReadFileBytes(path, options.max_model_bytes));
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

Result<std::vector<std::string>> ReadOpTypes(const fs::path& path) {
  ALKNET_ASSIGN_OR_RETURN(std::vector<std::byte> bytes,
                          detail::ReadFileBytes(path, uint64_t{2} << 30));
  ALKNET_ASSIGN_OR_RETURN(auto m, detail::ParseModel(bytes, path.string()));
  std::vector<std::string> ops;
  for (const auto& n : m->graph().node()) ops.push_back(n.op_type());
  return ops;
}

namespace {

Result<Tensor> DecodeSequence(const ::onnx::SequenceProto& sp, const fs::path& dir,
                              const std::string& what) {
  if (sp.elem_type() != ::onnx::SequenceProto::TENSOR &&
      !(sp.elem_type() == ::onnx::SequenceProto::UNDEFINED && sp.tensor_values_size() == 0)) {
    return Error{ErrorCode::kUnsupported, what + ": a sequence of " +
                                              ::onnx::SequenceProto_DataType_Name(sp.elem_type()) +
                                              " (only sequences of tensors are supported)"};
  }
  Tensor seq;
  seq.name = sp.name();
  seq.kind = ValueKind::kSequence;
  seq.type = ElemType::kUndefined;
  for (int i = 0; i < sp.tensor_values_size(); ++i) {
    ALKNET_ASSIGN_OR_RETURN(
        Tensor t,
        detail::DecodeTensor(sp.tensor_values(i), dir, what + ": element " + std::to_string(i)));
    if (i > 0 && t.type != seq.type) {
      return Error{ErrorCode::kInvalidArgument, what + ": element " + std::to_string(i) + " is " +
                                                    ElemTypeName(t.type) + ", element 0 " +
                                                    ElemTypeName(seq.type)};
    }
    seq.type = t.type;
    seq.items.push_back(std::move(t));
  }
  return seq;
}

}  // namespace

Result<Tensor> ReadValueFile(const fs::path& path, ValueKind kind) {
  if (kind == ValueKind::kTensor) return ReadTensorFile(path);
  ALKNET_ASSIGN_OR_RETURN(std::vector<std::byte> bytes,
                          detail::ReadFileBytes(path, uint64_t{2} << 30));
  const std::string what = path.string();
  if (kind == ValueKind::kSequence) {
    ::onnx::SequenceProto sp;
    if (!sp.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
      return Error{ErrorCode::kInvalidArgument, what + ": not a SequenceProto"};
    return DecodeSequence(sp, path.parent_path(), what);
  }
  ::onnx::OptionalProto op;
  if (!op.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    return Error{ErrorCode::kInvalidArgument, what + ": not an OptionalProto"};
  if (op.has_tensor_value()) {
    ALKNET_ASSIGN_OR_RETURN(Tensor t,
                            detail::DecodeTensor(op.tensor_value(), path.parent_path(), what));
    if (t.name.empty()) t.name = op.name();
    return t;
  }
  if (op.has_sequence_value()) {
    ALKNET_ASSIGN_OR_RETURN(Tensor t,
                            DecodeSequence(op.sequence_value(), path.parent_path(), what));
    if (t.name.empty()) t.name = op.name();
    return t;
  }
  if (op.has_sparse_tensor_value() || op.has_map_value() || op.has_optional_value()) {
    return Error{ErrorCode::kUnsupported,
                 what + ": an optional holding a sparse tensor, a map or an optional"};
  }
  Tensor none;
  none.name = op.name();
  none.kind = ValueKind::kNone;
  none.type = ElemType::kUndefined;
  return none;
}

Result<Tensor> ReadTensorFile(const fs::path& path) {
  ALKNET_ASSIGN_OR_RETURN(std::vector<std::byte> bytes,
                          detail::ReadFileBytes(path, uint64_t{2} << 30));
  ::onnx::TensorProto tp;
  if (!tp.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Error{ErrorCode::kInvalidArgument,
                 path.string() + ": not a TensorProto (protobuf parsing failed)"};
  }
  return detail::DecodeTensor(tp, path.parent_path(), path.string());
}

}  // namespace alknet::onnx
