// Host ops: nodes whose output shapes depend on their input values, computed on the host
// (session_impl.h says how plans stop before them). Each takes float64 values in device dtypes
// (int64 carried as i32, docs/adr/0002-onnx-dtypes.md) and bounds its output by its inputs.
#include "session_impl.h"

namespace alknet::onnx {

using namespace detail;

namespace {

// Errors name the problem; the caller prefixes the node (NodeInfo::Where).
Error NodeError(const NodeInfo& n, ErrorCode code, const std::string& what) {
  (void)n;
  return Error{code, what};
}

const RefTensor* Input(const std::vector<const RefTensor*>& inputs, size_t i) {
  return i < inputs.size() ? inputs[i] : nullptr;
}

// NonZero (opset 9+): the indices of the non-zero elements, shape [rank, count], row-major order.
Result<std::vector<RefTensor>> NonZero(const NodeInfo& n,
                                       const std::vector<const RefTensor*>& inputs) {
  const RefTensor* x = Input(inputs, 0);
  if (x == nullptr) return NodeError(n, ErrorCode::kInvalidArgument, "needs input 0");
  const size_t rank = x->shape.size();
  std::vector<uint64_t> hits;
  for (uint64_t i = 0; i < x->data.size(); ++i) {
    if (x->data[i] != 0) hits.push_back(i);
  }
  RefTensor out;
  out.dtype = DType::kI32;
  out.shape = {rank, hits.size()};
  out.data.resize(rank * hits.size());
  for (size_t k = 0; k < hits.size(); ++k) {
    uint64_t rest = hits[k];
    for (size_t d = rank; d-- > 0;) {
      const uint64_t dim = x->shape[d];
      out.data[d * hits.size() + k] = static_cast<double>(dim == 0 ? 0 : rest % dim);
      rest = dim == 0 ? 0 : rest / dim;
    }
  }
  return std::vector<RefTensor>{std::move(out)};
}

// The table: ops computed on the host (opset_min: the first opset whose semantics we follow).
const HostOp kHostOps[] = {
    {"", "NonZero", 9, &NonZero},
};

}  // namespace

namespace detail {

const HostOp* FindHostOp(const std::string& domain, const std::string& op, int opset) {
  for (const HostOp& h : kHostOps) {
    if (domain == h.domain && op == h.op && opset >= h.opset_min) return &h;
  }
  return nullptr;
}

}  // namespace detail

Result<std::vector<Value>> Session::Impl::RunHostNode(const Program& p, const NodeInfo& n,
                                                      const std::vector<Value>& env) {
  std::vector<Value> read;  // the inputs, known on the host
  read.reserve(n.inputs.size());
  std::vector<const RefTensor*> args;
  for (const std::string& name : n.inputs) {
    if (name.empty()) {
      args.push_back(nullptr);
      continue;
    }
    ALKNET_ASSIGN_OR_RETURN(Value v, InputValue(p, n, env, name));
    ALKNET_ASSIGN_OR_RETURN(Value known, ToHostKnown(v));
    read.push_back(std::move(known));
    args.push_back(read.back().known.get());
  }
  auto ran = n.host_op->run(n, args);
  if (!ran.ok()) {
    return Error{ran.error().code, n.Where(model) + ": " + ran.error().message};
  }
  std::vector<Value> outs;
  for (size_t o = 0; o < ran->size(); ++o) {
    RefTensor& r = (*ran)[o];
    Value v;
    if (o < n.outputs.size()) v.name = n.outputs[o];
    auto t = value_types.find(v.name);
    v.type = t != value_types.end() ? t->second : ElemType::kUndefined;
    if (v.type == ElemType::kUndefined) {
      if (auto e = ElemTypeOf(r.dtype)) v.type = *e;
    }
    v.dtype = r.dtype;
    v.shape = r.shape;
    v.known = std::make_shared<const RefTensor>(std::move(r));
    outs.push_back(std::move(v));
  }
  return outs;
}

}  // namespace alknet::onnx
