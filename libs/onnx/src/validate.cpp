// What libonnx's shape inference assumes, checked before it runs (validate.h). The inference
// functions of ONNX 1.12 index dimensions with values read from the model: GatherND with a
// negative last index dimension, LayerNormalization with an axis outside the rank, the
// opset-1/3 RNN family on inputs that are not 3-D, Scan without num_scan_inputs all read
// out of bounds (issue 18; libs/onnx/fuzz/crashers holds the models). Each function is
// wrapped by a guard that refuses those inputs with an InferenceError, which libonnx reports
// with the node's name; the loader turns it into an error naming the node.
#include "validate.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>
#include <onnx/shape_inference/implementation.h>

#include <climits>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace alknet::onnx::detail {

namespace {

using ::onnx::AttributeProto;
using ::onnx::InferenceContext;
using ::onnx::NodeProto;
using ::onnx::OpSchema;

// Marks the guard's messages among libonnx's own, and the temporary node names that tell
// which node a message is about.
constexpr const char* kGuardMarker = "[alknet guard] ";
constexpr const char* kNodeTag = "alknet.node.";

using Opsets = std::map<std::string, int>;

std::string NodeWhere(const std::string& prefix, int index, const NodeProto& n, int opset) {
  std::string s = prefix + "node " + std::to_string(index);
  if (!n.name().empty()) s += " '" + n.name() + "'";
  s += " (" + n.op_type() + ", opset " + std::to_string(opset);
  if (!n.domain().empty() && n.domain() != "ai.onnx") s += ", domain " + n.domain();
  return s + ")";
}

std::string DomainOf(const NodeProto& n) { return n.domain() == "ai.onnx" ? "" : n.domain(); }

// The schema's counts and required attributes (the part of OpSchema::Verify inference relies
// on; Verify itself also refuses untyped attributes, which IR < 3 writers produce).
Status CheckGraph(const ::onnx::GraphProto& g, const Opsets& opsets, const std::string& prefix) {
  for (int k = 0; k < g.node_size(); ++k) {
    const NodeProto& n = g.node(k);
    auto it = opsets.find(DomainOf(n));
    const int opset = it == opsets.end() ? 0 : it->second;
    const std::string where = NodeWhere(prefix, k, n, opset);
    for (const AttributeProto& a : n.attribute()) {
      if (a.type() == AttributeProto::GRAPH || a.has_g()) {
        ALKNET_TRY(CheckGraph(a.g(), opsets, where + " " + a.name() + ": "));
      }
      for (const auto& sub : a.graphs()) {
        ALKNET_TRY(CheckGraph(sub, opsets, where + " " + a.name() + ": "));
      }
    }
    const OpSchema* schema =
        opset == 0 ? nullptr : ::onnx::OpSchemaRegistry::Schema(n.op_type(), opset, DomainOf(n));
    if (schema == nullptr) continue;  // unknown ops are refused by the loader with its reasons
    auto count = [&](const char* what, int have, int lo, int hi) -> Status {
      if (have >= lo && have <= hi) return Ok{};
      return Error{ErrorCode::kInvalidArgument,
                   where + ": " + std::to_string(have) + " " + what + ", the ONNX schema allows " +
                       std::to_string(lo) +
                       (hi == INT_MAX ? " or more" : ".." + std::to_string(hi))};
    };
    ALKNET_TRY(count("inputs", n.input_size(), schema->min_input(), schema->max_input()));
    ALKNET_TRY(count("outputs", n.output_size(), schema->min_output(), schema->max_output()));
    for (const auto& [name, spec] : schema->attributes()) {
      const AttributeProto* found = nullptr;
      for (const AttributeProto& a : n.attribute()) {
        if (a.name() == name) found = &a;
      }
      if (found == nullptr) {
        if (spec.required) {
          return Error{ErrorCode::kInvalidAttribute,
                       where + ": the required attribute '" + name + "' is missing"};
        }
        continue;
      }
      if (found->type() != AttributeProto::UNDEFINED && found->type() != spec.type) {
        return Error{ErrorCode::kInvalidAttribute,
                     where + ": attribute '" + name + "' is a " +
                         AttributeProto::AttributeType_Name(found->type()) + ", the schema wants " +
                         AttributeProto::AttributeType_Name(spec.type)};
      }
    }
  }
  return Ok{};
}

// The bytes each stored tensor will take on the host, summed against the budget before any
// is decoded (a sparse file can declare 2^34 elements of external data).
class TensorBudget {
 public:
  explicit TensorBudget(uint64_t max_memory) : max_(max_memory) {}

  Status Add(const ::onnx::TensorProto& t, const std::string& what) {
    compute::Shape shape;
    for (int64_t d : t.dims()) {
      if (d < 0) return Ok{};  // the decoder refuses it with its own message
      shape.push_back(static_cast<uint64_t>(d));
    }
    const uint64_t size = ElemSize(static_cast<ElemType>(t.data_type()));
    const std::optional<uint64_t> bytes = compute::CheckedBytes(shape, size);
    if (bytes && *bytes <= max_ - used_) {
      used_ += *bytes;
      return Ok{};
    }
    return Error{ErrorCode::kLimit,
                 what + " (" + ElemTypeName(static_cast<ElemType>(t.data_type())) +
                     compute::ShapeToString(shape) + ", " +
                     (bytes ? std::to_string(*bytes) + " bytes" : "more than 2^63 bytes") +
                     ") takes the model's stored tensors past the memory budget of " +
                     std::to_string(max_) +
                     " bytes (SessionOptions::max_memory; alknet infer --max-memory)"};
  }

 private:
  uint64_t max_;
  uint64_t used_ = 0;
};

Status AddGraphTensors(const ::onnx::GraphProto& g, const std::string& prefix,
                       TensorBudget& budget) {
  for (const auto& t : g.initializer()) {
    ALKNET_TRY(budget.Add(t, prefix + "initializer '" + t.name() + "'"));
  }
  for (int k = 0; k < g.node_size(); ++k) {
    const NodeProto& n = g.node(k);
    for (const AttributeProto& a : n.attribute()) {
      const std::string what = prefix + "node " + std::to_string(k) + " (" + n.op_type() +
                               ") attribute '" + a.name() + "'";
      if (a.has_t()) ALKNET_TRY(budget.Add(a.t(), what));
      for (const auto& t : a.tensors()) ALKNET_TRY(budget.Add(t, what));
      if (a.has_g()) ALKNET_TRY(AddGraphTensors(a.g(), what + ": ", budget));
      for (const auto& sub : a.graphs()) ALKNET_TRY(AddGraphTensors(sub, what + ": ", budget));
    }
  }
  return Ok{};
}

Status CheckStoredTensors(const ::onnx::GraphProto& g, const std::string& prefix,
                          uint64_t max_memory) {
  TensorBudget budget(max_memory);
  return AddGraphTensors(g, prefix, budget);
}

[[noreturn]] void Refuse(const std::string& why) {
  throw ::onnx::InferenceError(std::string(kGuardMarker) + why);
}

std::optional<int64_t> IntAttr(const InferenceContext& ctx, const char* name) {
  const AttributeProto* a = ctx.getAttribute(name);
  if (a == nullptr || !a->has_i()) return std::nullopt;
  return a->i();
}

// The shape of input i when known: dense or sparse tensors (ONNX's helpers read both).
const ::onnx::TensorShapeProto* ShapeOf(const InferenceContext& ctx, size_t i) {
  if (i >= ctx.getNumInputs()) return nullptr;
  const ::onnx::TypeProto* t = ctx.getInputType(i);
  if (t == nullptr) return nullptr;
  if (t->has_tensor_type() && t->tensor_type().has_shape()) return &t->tensor_type().shape();
  if (t->has_sparse_tensor_type() && t->sparse_tensor_type().has_shape())
    return &t->sparse_tensor_type().shape();
  return nullptr;
}

std::optional<int64_t> RankOf(const InferenceContext& ctx, size_t i) {
  const ::onnx::TensorShapeProto* s = ShapeOf(ctx, i);
  if (s == nullptr) return std::nullopt;
  return s->dim_size();
}

// Preconditions of the inference function of `op` (schema version `since`).
void CheckPreconditions(const std::string& op, int since, const InferenceContext& ctx) {
  // Most inference functions read tensor_type() whatever the input's kind (ONNX's hasShape
  // also accepts sparse tensors and sequences of tensors), so a sparse tensor or a sequence
  // given to a dense op reads a rank of 0. Only the ops made for other kinds may see them.
  const bool any_kind = op.rfind("Sequence", 0) == 0 || op.rfind("Optional", 0) == 0 ||
                        op == "SplitToSequence" || op == "ConcatFromSequence" || op == "Identity" ||
                        op == "If" || op == "Loop" || op == "Scan";
  for (size_t i = 0; i < ctx.getNumInputs() && !any_kind; ++i) {
    const ::onnx::TypeProto* t = ctx.getInputType(i);
    if (t != nullptr && t->value_case() != ::onnx::TypeProto::kTensorType &&
        t->value_case() != ::onnx::TypeProto::VALUE_NOT_SET) {
      Refuse("input " + std::to_string(i) + " is not a dense tensor");
    }
  }
  for (size_t i = 0; i < ctx.getNumInputs(); ++i) {
    const ::onnx::TensorShapeProto* shape = ShapeOf(ctx, i);
    if (shape == nullptr) continue;
    for (const auto& d : shape->dim()) {
      if (d.has_dim_value() && d.dim_value() < 0) {
        Refuse("input " + std::to_string(i) + " has the negative dimension " +
               std::to_string(d.dim_value()));
      }
    }
  }
  // Axis-like attributes are narrowed to int by several functions before their range check.
  for (const char* name : {"axis", "batch_dims", "num_scan_inputs"}) {
    if (auto v = IntAttr(ctx, name); v && (*v > INT_MAX || *v < -INT_MAX)) {
      Refuse(std::string("attribute '") + name + "' = " + std::to_string(*v) + " is out of range");
    }
  }
  for (const char* name : {"axes", "perm", "scan_input_axes", "scan_output_axes"}) {
    const AttributeProto* a = ctx.getAttribute(name);
    if (a == nullptr) continue;
    for (int64_t v : a->ints()) {
      if (v > INT_MAX || v < -INT_MAX) {
        Refuse(std::string("attribute '") + name + "' holds " + std::to_string(v) +
               ", out of range");
      }
    }
  }
  // Window attributes: the Conv/pool inference functions divide by strides and dilations and
  // size outputs from kernel_shape (a stride of 0 was a SIGFPE inside libonnx).
  for (const char* name : {"strides", "dilations", "kernel_shape"}) {
    const AttributeProto* a = ctx.getAttribute(name);
    if (a == nullptr) continue;
    for (int64_t v : a->ints()) {
      if (v < 1 || v > INT_MAX) {
        Refuse(std::string("attribute '") + name + "' holds " + std::to_string(v) +
               "; each must be at least 1");
      }
    }
  }
  if (op == "LayerNormalization") {
    const int64_t axis = IntAttr(ctx, "axis").value_or(-1);
    if (auto r = RankOf(ctx, 0); r && (axis < -*r || axis >= *r)) {
      Refuse("axis " + std::to_string(axis) + " is out of range for an input of rank " +
             std::to_string(*r));
    }
  } else if (op == "GatherND") {
    if (IntAttr(ctx, "batch_dims").value_or(0) < 0) Refuse("batch_dims is negative");
  } else if (op == "RNN" || op == "GRU" || op == "LSTM") {
    for (size_t i = 0; i < 3; ++i) {
      if (auto r = RankOf(ctx, i); r && *r != 3) {
        Refuse("input " + std::to_string(i) + " has rank " + std::to_string(*r) +
               "; X, W and R must be 3-D");
      }
    }
    const int64_t layout = IntAttr(ctx, "layout").value_or(0);
    if (layout != 0 && layout != 1) Refuse("layout must be 0 or 1");
  } else if (op == "Scan") {
    auto n = IntAttr(ctx, "num_scan_inputs");
    if (!n) Refuse("num_scan_inputs is missing");
    // Opset 8 has sequence_lens as its first input.
    const int64_t fixed = since < 9 ? 1 : 0;
    const int64_t inputs = static_cast<int64_t>(ctx.getNumInputs());
    if (*n < 1 || *n > inputs - fixed) {
      Refuse("num_scan_inputs = " + std::to_string(*n) + " but the node has " +
             std::to_string(inputs) + " inputs");
    }
    if (inputs - fixed - *n > static_cast<int64_t>(ctx.getNumOutputs())) {
      Refuse("fewer outputs than loop-state variables");
    }
    const AttributeProto* body = ctx.getAttribute("body");
    if (body == nullptr || !body->has_g()) Refuse("the body graph is missing");
  }
}

// The default registry's schemas, each inference function behind CheckPreconditions.
class GuardedRegistry final : public ::onnx::ISchemaRegistry {
 public:
  const OpSchema* GetSchema(const std::string& key, const int max_version,
                            const std::string& domain) const override {
    const OpSchema* s = ::onnx::OpSchemaRegistry::Schema(key, max_version, domain);
    if (s == nullptr || !s->has_type_and_shape_inference_function()) return s;
    std::unique_ptr<OpSchema>& guarded = guarded_[s];
    if (!guarded) {
      guarded = std::make_unique<OpSchema>(*s);
      guarded->TypeAndShapeInferenceFunction([inner = s->GetTypeAndShapeInferenceFunction(),
                                              op = key,
                                              since = s->since_version()](InferenceContext& ctx) {
        CheckPreconditions(op, since, ctx);
        inner(ctx);
      });
    }
    return guarded.get();
  }

 private:
  mutable std::map<const OpSchema*, std::unique_ptr<OpSchema>> guarded_;
};

// The guard's message in libonnx's report, and the index of the top-level node it names
// ("(op_type:Scan, node name: alknet.node.3): [ShapeInferenceError] alknet: ...").
std::optional<std::pair<int, std::string>> GuardMessage(const std::string& report) {
  const size_t at = report.find(kGuardMarker);
  if (at == std::string::npos) return std::nullopt;
  std::string why = report.substr(at + std::string(kGuardMarker).size());
  why = why.substr(0, why.find('\n'));
  const size_t tag = report.rfind(kNodeTag, at);
  int index = -1;
  if (tag != std::string::npos) {
    index = 0;
    for (size_t p = tag + std::string(kNodeTag).size(); p < report.size(); ++p) {
      if (report[p] < '0' || report[p] > '9' || index > INT_MAX / 10 - 1) break;
      index = index * 10 + (report[p] - '0');
    }
  }
  return std::make_pair(index, why);
}

}  // namespace

Status ValidateModel(::onnx::ModelProto& m, const std::string& model, uint64_t max_memory) {
  ALKNET_TRY(CheckStoredTensors(m.graph(), model + ": ", max_memory));
  Opsets opsets;
  for (const auto& o : m.opset_import()) {
    opsets[o.domain() == "ai.onnx" ? "" : o.domain()] = static_cast<int>(o.version());
  }
  if (m.opset_import_size() == 0) opsets[""] = 1;  // IR version 2: ONNX then means opset 1
  ALKNET_TRY(CheckGraph(m.graph(), opsets, model + ": "));

  ::onnx::GraphProto& g = *m.mutable_graph();
  std::vector<std::string> names(static_cast<size_t>(g.node_size()));
  for (int k = 0; k < g.node_size(); ++k) {
    names[k] = g.node(k).name();
    g.mutable_node(k)->set_name(kNodeTag + std::to_string(k));
  }
  std::optional<std::pair<int, std::string>> refused;
  try {
    const GuardedRegistry registry;
    // error_mode 1: node errors are reported (after every node ran) instead of dropped, so
    // that the guard's refusals come back with the node they are about.
    ::onnx::shape_inference::InferShapes(m, &registry, ::onnx::ShapeInferenceOptions(false, 1));
  } catch (const std::exception& e) {
    // Any other failure: models ONNX cannot infer still run, alknet's own propagation is what
    // plans rely on.
    refused = GuardMessage(e.what());
  }
  for (int k = 0; k < g.node_size(); ++k) g.mutable_node(k)->set_name(names[k]);
  if (!refused) return Ok{};
  const auto& [index, why] = *refused;
  std::string where = model;
  if (index >= 0 && index < g.node_size()) {
    const NodeProto& n = g.node(index);
    auto it = opsets.find(DomainOf(n));
    where = NodeWhere(model + ": ", index, n, it == opsets.end() ? 0 : it->second);
  }
  return Error{ErrorCode::kInvalidArgument,
               where + ": malformed node (ONNX shape inference would read out of bounds): " + why};
}

}  // namespace alknet::onnx::detail
