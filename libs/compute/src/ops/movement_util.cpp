#include <cmath>

#include "ops/movement.h"

namespace alknet::compute::ops {

Result<int64_t> NormalizeAxis(const OpNode& node, int64_t axis, size_t rank,
                              const std::string& what, bool extra) {
  const int64_t r = static_cast<int64_t>(rank) + (extra ? 1 : 0);
  if (axis < -r || axis >= r) {
    return Error{ErrorCode::kInvalidAttribute,
                 node.Describe() + ": " + what + " " + std::to_string(axis) + " is out of range [" +
                     std::to_string(-r) + ", " + std::to_string(r - 1) + "]"};
  }
  return axis < 0 ? axis + r : axis;
}

Result<std::vector<int64_t>> HostInts(const OpNode& node, size_t input, const std::string& what) {
  const RefTensor* t = node.value(input);
  if (t == nullptr) {
    return Error{ErrorCode::kUnsupported, node.Describe() + ": " + what + " (input " +
                                              std::to_string(input) +
                                              ") must be known when the graph is planned"};
  }
  if (t->shape.size() > 1) {
    return Error{ErrorCode::kShape, node.Describe() + ": " + what +
                                        " must be a scalar or 1-D, got shape " +
                                        ShapeToString(t->shape)};
  }
  std::vector<int64_t> out;
  for (double v : t->data) {
    if (std::isnan(v) || v != std::floor(v)) {
      return Error{ErrorCode::kInvalidArgument,
                   node.Describe() + ": " + what + " holds a non-integer value"};
    }
    // INT64_MAX / INT64_MIN ("to the end") arrive rounded to +-2^63 in a double.
    out.push_back(v >= 9.2e18 ? INT64_MAX : v <= -9.2e18 ? INT64_MIN : static_cast<int64_t>(v));
  }
  return out;
}

std::vector<double> HostValues(const OpNode& node, size_t input) {
  const RefTensor* t = node.value(input);
  return t != nullptr ? t->data : std::vector<double>{};
}

ConstValue MakeConst(DType dtype, Shape shape, std::vector<double> data) {
  return std::make_shared<const RefTensor>(RefTensor{dtype, std::move(shape), std::move(data)});
}

ConstValue IntList(const std::vector<int64_t>& v) {
  return MakeConst(DType::kI32, {v.size()}, std::vector<double>(v.begin(), v.end()));
}

RefTensor StridedRead(const RefTensor& in, const Shape& shape, int64_t offset,
                      const std::vector<int64_t>& strides) {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  RefTensor out{in.dtype, shape, std::vector<double>(n)};
  std::vector<uint64_t> coord(shape.size(), 0);
  for (uint64_t i = 0; i < n; ++i) {
    int64_t off = offset;
    for (size_t d = 0; d < shape.size(); ++d) off += static_cast<int64_t>(coord[d]) * strides[d];
    out.data[i] = in.data.at(static_cast<size_t>(off));
    for (size_t d = shape.size(); d-- > 0;) {
      if (++coord[d] < shape[d]) break;
      coord[d] = 0;
    }
  }
  return out;
}

hbs::Value LinearContext(uint64_t n, uint32_t vec, const DeviceCaps& caps) {
  return hbs::Value::object({{"n", n},
                             {"vec", vec},
                             {"per_invocation", std::max<uint32_t>(1, caps.items_per_invocation)}});
}

DispatchPlan LinearDispatch(uint64_t n, const DeviceCaps& caps) {
  const uint64_t per = std::max<uint32_t>(1, caps.items_per_invocation);
  DispatchPlan p;
  p.kind = DispatchPlan::Kind::kLinear;
  p.invocations = (n + per - 1) / per;
  return p;
}

hbs::Array CoordTerms(const Shape& shape, const std::vector<int64_t>& strides) {
  hbs::Array terms;
  std::vector<size_t> dims;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] != 1) dims.push_back(d);
  }
  for (size_t k = dims.size(); k-- > 0;) {
    const size_t d = dims[k];
    terms.push_back(hbs::Value::object({{"extent", std::max<uint64_t>(1, shape[d])},
                                        {"stride", static_cast<long long>(strides[d])},
                                        {"dim", static_cast<long long>(d)},
                                        {"last", k == 0}}));
  }
  return terms;
}

double WrapInt(double v, DType dtype) {
  if (dtype != DType::kI32 && dtype != DType::kU32) return v;
  v = std::fmod(std::trunc(v), 4294967296.0);
  if (v < 0) v += 4294967296.0;
  if (dtype == DType::kI32 && v >= 2147483648.0) v -= 4294967296.0;
  return v;
}

Graph ConstantGraph(int num_inputs, RefTensor value) {
  Graph g(num_inputs);
  const int v = g.Add("Identity", {Graph::kAbsent});
  g.nodes.back().input_values = {std::make_shared<const RefTensor>(std::move(value))};
  g.outputs = {v};
  return g;
}

Status CheckIndexable(const OpNode& node, uint64_t elements) {
  if (elements < (uint64_t{1} << 31)) return Ok{};
  return Error{ErrorCode::kLimit, node.Describe() + ": " + std::to_string(elements) +
                                      " elements exceed 31-bit shader indexing"};
}

}  // namespace alknet::compute::ops
