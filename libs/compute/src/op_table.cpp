#include "alknet/compute/op_table.h"

#include <algorithm>

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
    ops::AddMovementOps(t);
    ops::AddGatherOps(t);
    ops::AddResizeOps(t);
    ops::AddShapeOps(t);
    ops::AddVariadicOps(t);
    ops::AddConvOps(t);
    ops::AddPoolOps(t);
    ops::AddNormOps(t);
    ops::AddReduceOps(t);
    ops::AddArgTopKOps(t);
    ops::AddEinsumOps(t);
    ops::AddRecurrentOps(t);
    ops::AddLossOps(t);
    ops::AddSignalOps(t);
    ops::AddQuantizeOps(t);
    ops::AddIntegerOps(t);
    ops::AddRandomOps(t);
    ops::AddTrainingOps(t);
    ops::AddLegacyOps(t);
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
    case 4: return "floats";
    default: return "tensor";
  }
}
std::string DTypeList(const DTypeSet& set) {
  std::string s;
  for (DType d : set) s += (s.empty() ? "" : ", ") + std::string(DTypeName(d));
  return s;
}

// The record's InputContract, for every present input.
Status CheckContract(const OpRecord& record, const OpNode& node) {
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const TensorDesc& in = node.inputs[i];
    if (in.absent) continue;
    const DTypeSet* ok = record.contract.accepted(i);
    if (ok != nullptr && std::find(ok->begin(), ok->end(), in.dtype) == ok->end()) {
      return Error{ErrorCode::kUnsupported, node.Describe() + ": input " + std::to_string(i) +
                                                " has dtype " + DTypeName(in.dtype) + "; " +
                                                record.name + " accepts " + DTypeList(*ok)};
    }
    if (record.contract.contiguous && !record.is_host_input(i) && !in.contiguous()) {
      return Error{ErrorCode::kUnsupported,
                   node.Describe() + ": input " + std::to_string(i) + " is a strided view; " +
                       record.name +
                       " reads contiguous operands (the executor copies views first)"};
    }
  }
  return Ok{};
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
      for (const AttributeSpec& s : record.attributes)
        known += (known.empty() ? "" : ", ") + s.name;
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
      return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": attribute '" + name +
                                                     "' must be " + KindName(*spec->default_value) +
                                                     ", got " + KindName(v) + " " +
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
  for (uint32_t h : record->host_inputs) {
    if (node.has_input(h) && node.value(h) == nullptr) {
      return Error{ErrorCode::kUnsupported,
                   node.Describe() + ": input " + std::to_string(h) +
                       " must be known when the graph is planned (a constant, an initializer or "
                       "computed from shapes); here it is computed on the device"};
    }
  }
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i].absent && i < record->min_inputs) {
      return Error{ErrorCode::kShape,
                   node.Describe() + ": input " + std::to_string(i) + " is required"};
    }
  }
  ALKNET_TRY(CheckContract(*record, node));
  ALKNET_ASSIGN_OR_RETURN(Attributes attrs, ResolveAttributes(*record, node));
  ALKNET_ASSIGN_OR_RETURN(std::vector<TensorDesc> outs, record->infer(node, attrs));
  // Every size computed from a model is checked here once, so that no later product of
  // these extents (buffer sizes, strides, index math) can wrap around.
  for (size_t o = 0; o < outs.size(); ++o) {
    ALKNET_TRY(CheckShapeSize(outs[o].shape, DeviceElementSize(outs[o].dtype),
                              node.Describe() + ": output " + std::to_string(o)));
  }
  return outs;
}

void RequestOutputs(OpNode& node, const OpRecord* record, int count) {
  node.outputs.resize(static_cast<size_t>(count));
  if (record == nullptr || node.attributes.count("alknet.outputs") != 0) return;
  for (const AttributeSpec& a : record->attributes) {
    if (a.name == "alknet.outputs") node.attributes["alknet.outputs"] = static_cast<int64_t>(count);
  }
}

Result<std::vector<RefTensor>> ReferenceRun(const OpNode& node,
                                            const std::vector<RefTensor>& inputs) {
  const OpTable& t = OpTable::Default();
  const OpRecord* record = t.Find(node.op_type, node.opset);
  if (record == nullptr) return Error{ErrorCode::kUnknownOp, node.Describe() + ": unknown op"};
  OpNode n = node;
  n.inputs.clear();
  n.input_values.resize(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    TensorDesc d{inputs[i].dtype, inputs[i].shape};
    d.absent = i < node.inputs.size() && node.inputs[i].absent;
    n.inputs.push_back(d);
    if (!d.absent && n.input_values[i] == nullptr && record->is_host_input(i)) {
      n.input_values[i] = std::make_shared<const RefTensor>(inputs[i]);
    }
  }
  ALKNET_ASSIGN_OR_RETURN(std::vector<TensorDesc> outs, t.Infer(n));
  ALKNET_ASSIGN_OR_RETURN(Attributes attrs, t.ResolveAttributes(*record, n));
  n.outputs = outs;
  return record->reference(n, attrs, inputs);
}

}  // namespace alknet::compute
