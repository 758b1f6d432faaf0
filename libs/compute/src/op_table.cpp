#include "alknet/compute/op_table.h"

#include "ops/families.h"

namespace alknet::compute {

const OpTable& OpTable::Default() {
  static const OpTable table = [] {
    OpTable t;
    ops::AddUnaryOps(t);
    ops::AddActivationOps(t);
    ops::AddBinaryOps(t);
    ops::AddSelectOps(t);
    ops::AddLinalgOps(t);
    ops::AddSoftmaxOps(t);
    return t;
  }();
  return table;
}

void OpTable::Add(OpRecord record) { records_.push_back(std::move(record)); }

const OpRecord* OpTable::Find(std::string_view name, int opset) const {
  for (const OpRecord& r : records_) {
    if (r.name == name && opset >= r.opset_min && opset <= r.opset_max) return &r;
  }
  return nullptr;
}

const OpRecord* OpTable::Find(std::string_view name) const {
  for (const OpRecord& r : records_) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

namespace {
const char* KindName(const AttrValue& v) {
  switch (v.index()) {
    case 0: return "int";
    case 1: return "float";
    case 2: return "string";
    case 3: return "ints";
    default: return "floats";
  }
}
}  // namespace

Result<Attributes> OpTable::ResolveAttributes(const OpRecord& record, const OpNode& node) const {
  Attributes out;
  for (const auto& [name, value] : node.attributes) {
    const AttributeSpec* spec = nullptr;
    for (const AttributeSpec& s : record.attributes) {
      if (s.name == name) spec = &s;
    }
    if (spec == nullptr) {
      std::string known;
      for (const AttributeSpec& s : record.attributes) known += (known.empty() ? "" : ", ") + s.name;
      return Error{ErrorCode::kInvalidAttribute,
                   node.Describe() + ": unknown attribute '" + name + "' (" + record.name +
                       " takes " + (known.empty() ? std::string("none") : known) + ")"};
    }
    AttrValue v = value;
    // An INT given where a FLOAT is expected is fine (JSON and ONNX writers blur them).
    if (spec->default_value && spec->default_value->index() == 1 && v.index() == 0) {
      v = static_cast<double>(std::get<int64_t>(v));
    }
    if (spec->default_value && spec->default_value->index() != v.index()) {
      return Error{ErrorCode::kInvalidAttribute,
                   node.Describe() + ": attribute '" + name + "' must be " +
                       KindName(*spec->default_value) + ", got " + KindName(v) + " " +
                       AttrToString(v)};
    }
    if (spec->validate) {
      std::string why = spec->validate(v);
      if (!why.empty()) {
        return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": attribute '" + name +
                                                       "' = " + AttrToString(v) + " " + why};
      }
    }
    out[name] = std::move(v);
  }
  for (const AttributeSpec& s : record.attributes) {
    if (out.count(s.name)) continue;
    if (s.default_value) {
      out[s.name] = *s.default_value;
    } else if (!s.optional) {
      return Error{ErrorCode::kInvalidAttribute,
                   node.Describe() + ": required attribute '" + s.name + "' is missing"};
    }
  }
  return out;
}

Result<std::vector<TensorDesc>> OpTable::Infer(const OpNode& node) const {
  const OpRecord* record = Find(node.op_type, node.opset);
  if (record == nullptr) {
    const OpRecord* any = Find(node.op_type);
    if (any != nullptr) {
      return Error{ErrorCode::kUnknownOp,
                   node.Describe() + ": opset " + std::to_string(node.opset) +
                       " is outside the supported range " + std::to_string(any->opset_min) + ".." +
                       std::to_string(any->opset_max)};
    }
    return Error{ErrorCode::kUnknownOp,
                 node.Describe() + ": no such op in the table (see docs/ops.md for the list)"};
  }
  if (node.inputs.size() < record->min_inputs || node.inputs.size() > record->max_inputs) {
    return Error{ErrorCode::kShape, node.Describe() + ": takes " +
                                        std::to_string(record->min_inputs) + ".." +
                                        std::to_string(record->max_inputs) + " inputs, got " +
                                        std::to_string(node.inputs.size())};
  }
  COMPUTE_ASSIGN_OR_RETURN(Attributes attrs, ResolveAttributes(*record, node));
  return record->infer(node, attrs);
}

Result<std::vector<RefTensor>> ReferenceRun(const OpNode& node, const std::vector<RefTensor>& inputs) {
  const OpTable& t = OpTable::Default();
  const OpRecord* record = t.Find(node.op_type, node.opset);
  if (record == nullptr) return Error{ErrorCode::kUnknownOp, node.Describe() + ": unknown op"};
  OpNode n = node;
  n.inputs.clear();
  for (const RefTensor& r : inputs) n.inputs.push_back(TensorDesc{r.dtype, r.shape});
  COMPUTE_ASSIGN_OR_RETURN(Attributes attrs, t.ResolveAttributes(*record, n));
  COMPUTE_ASSIGN_OR_RETURN(std::vector<TensorDesc> outs, record->infer(n, attrs));
  n.outputs = outs;
  return record->reference(n, attrs, inputs);
}

}  // namespace alknet::compute
