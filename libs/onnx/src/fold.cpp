// Host folding: what a plan computes on the CPU instead of the device. Constant, Shape and
// Size (the importer's own ops: attributes and shapes only), and any node whose inputs are
// all known and whose outputs are small, with its record's float64 reference.
#include <algorithm>

#include "session_impl.h"

namespace alknet::onnx::detail {

namespace {

// An attribute of the kind T, or an error naming it (a hostile model may give any kind).
template <typename T>
Result<const T*> AttributeOf(const compute::Attributes& attrs, const char* name) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return static_cast<const T*>(nullptr);
  if (const T* v = std::get_if<T>(&it->second)) return v;
  return Error{ErrorCode::kInvalidAttribute, std::string("attribute '") + name +
                                                 "' has the wrong kind (" +
                                                 compute::AttrToString(it->second) + ")"};
}

ConstValue Make(RefTensor r) { return std::make_shared<const RefTensor>(std::move(r)); }

}  // namespace

Result<ConstValue> ConstantValue(const NodeInfo& n) {
  ALKNET_ASSIGN_OR_RETURN(const ConstValue* value, AttributeOf<ConstValue>(n.attrs, "value"));
  if (value != nullptr) return *value;
  ALKNET_ASSIGN_OR_RETURN(const double* f, AttributeOf<double>(n.attrs, "value_float"));
  if (f != nullptr) return Make(RefTensor{DType::kF32, {}, {*f}});
  ALKNET_ASSIGN_OR_RETURN(const std::vector<double>* fs,
                          AttributeOf<std::vector<double>>(n.attrs, "value_floats"));
  if (fs != nullptr) return Make(RefTensor{DType::kF32, {fs->size()}, *fs});
  ALKNET_ASSIGN_OR_RETURN(const int64_t* i, AttributeOf<int64_t>(n.attrs, "value_int"));
  if (i != nullptr) return Make(RefTensor{DType::kI32, {}, {static_cast<double>(*i)}});
  ALKNET_ASSIGN_OR_RETURN(const std::vector<int64_t>* is,
                          AttributeOf<std::vector<int64_t>>(n.attrs, "value_ints"));
  if (is != nullptr)
    return Make(RefTensor{DType::kI32, {is->size()}, std::vector<double>(is->begin(), is->end())});
  return Error{ErrorCode::kInvalidAttribute, "Constant without a value attribute"};
}

Result<RefTensor> ShapeValue(const NodeInfo& n, const TensorDesc& input) {
  RefTensor r{DType::kI32, {}, {}};
  if (n.op == "Size") {
    r.data = {static_cast<double>(input.elements())};
    return r;
  }
  // Opset 15: start/end slice the shape, negative counting from the back, clamped.
  const int64_t rank = static_cast<int64_t>(input.shape.size());
  auto clamp = [rank](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  ALKNET_ASSIGN_OR_RETURN(const int64_t* start_attr, AttributeOf<int64_t>(n.attrs, "start"));
  ALKNET_ASSIGN_OR_RETURN(const int64_t* end_attr, AttributeOf<int64_t>(n.attrs, "end"));
  const int64_t start = start_attr != nullptr ? clamp(*start_attr) : 0;
  const int64_t end = end_attr != nullptr ? clamp(*end_attr) : rank;
  for (int64_t k = start; k < end; ++k) r.data.push_back(static_cast<double>(input.shape[k]));
  r.shape = {r.data.size()};
  return r;
}

Result<std::optional<std::vector<RefTensor>>> FoldOnHost(const OpNode& node, const OpRecord& record,
                                                         const std::vector<const RefTensor*>& known,
                                                         const std::vector<TensorDesc>& outs,
                                                         uint64_t fold_limit) {
  if (!record.reference) return std::optional<std::vector<RefTensor>>();
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const bool absent = node.inputs[i].absent;
    if (!absent && (i >= known.size() || known[i] == nullptr))
      return std::optional<std::vector<RefTensor>>();
  }
  for (const TensorDesc& d : outs) {
    if (d.elements() > fold_limit) return std::optional<std::vector<RefTensor>>();
  }
  std::vector<RefTensor> ins;
  for (size_t i = 0; i < node.inputs.size(); ++i)
    ins.push_back(i < known.size() && known[i] ? *known[i] : RefTensor{});
  ALKNET_ASSIGN_OR_RETURN(std::vector<RefTensor> r, compute::ReferenceRun(node, ins));
  return std::optional<std::vector<RefTensor>>(std::move(r));
}

}  // namespace alknet::onnx::detail
