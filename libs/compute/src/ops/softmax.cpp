// Softmax and LogSoftmax on any axis (shaders/softmax/softmax.wgsl.hbs). Before opset 13 the
// op flattens the input to 2-D at `axis` (default 1) and normalises each row of the flattened
// tail; from 13 it normalises along the one axis (default -1).
#include <cmath>

#include "ops/elementwise.h"
#include "ops/families.h"

namespace alknet::compute::ops {

namespace {

struct Lines {
  uint64_t outer = 1, axis_len = 1, inner = 1;
};

Result<Lines> SplitAt(const OpNode& node, const Attributes& at) {
  const Shape& s = node.inputs[0].shape;
  const int64_t rank = static_cast<int64_t>(s.size());
  int64_t axis = std::get<int64_t>(at.at("axis"));
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1)) {
    return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": axis " + std::to_string(axis) +
                                                   " is out of range for rank " +
                                                   std::to_string(rank)};
  }
  if (axis < 0) axis += rank;
  Lines l;
  for (int64_t d = 0; d < rank; ++d) {
    if (d < axis)
      l.outer *= s[d];
    else if (d == axis || node.opset < 13)
      l.axis_len *= s[d];
    else
      l.inner *= s[d];
  }
  return l;
}

OpRecord SoftmaxRecord(const char* name, bool log, int opset_min, int opset_max,
                       int64_t default_axis) {
  OpRecord r;
  r.name = name;
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "softmax";
  r.shader = "softmax/softmax";
  r.contract = {.dtypes = {{DType::kF32}}, .contiguous = true};
  r.summary = log ? "log of the normalised exponential along an axis"
                  : "normalised exponential along an axis";
  r.attributes = {{"axis", AttrValue(default_axis), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    const TensorDesc& x = node.inputs[0];
    ALKNET_TRY(SplitAt(node, at));
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, x.shape}};
  };
  r.context = [log](const OpNode& node, const Attributes& at,
                    const DeviceCaps&) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(Lines l, SplitAt(node, at));
    return hbs::Value::object(
        {{"outer", l.outer}, {"axis_len", l.axis_len}, {"inner", l.inner}, {"log", log}});
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps&) {
    Lines l = *SplitAt(node, at);
    DispatchPlan p;
    p.invocations = l.outer * l.inner;
    return p;
  };
  r.reference = [log](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    Lines l = *SplitAt(node, at);
    RefTensor out{DType::kF32, in[0].shape, std::vector<double>(in[0].data.size())};
    for (uint64_t o = 0; o < l.outer; ++o) {
      for (uint64_t i = 0; i < l.inner; ++i) {
        const uint64_t base = o * l.axis_len * l.inner + i;
        double hi = -INFINITY, sum = 0;
        for (uint64_t j = 0; j < l.axis_len; ++j) hi = std::max(hi, in[0].data[base + j * l.inner]);
        for (uint64_t j = 0; j < l.axis_len; ++j)
          sum += std::exp(in[0].data[base + j * l.inner] - hi);
        for (uint64_t j = 0; j < l.axis_len; ++j) {
          const double x = in[0].data[base + j * l.inner] - hi;
          out.data[base + j * l.inner] = log ? x - std::log(sum) : std::exp(x) / sum;
        }
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-6, 6, 2e-6, 1e-5};
  return r;
}

}  // namespace

void AddSoftmaxOps(OpTable& table) {
  table.Add(SoftmaxRecord("Softmax", false, 1, 12, 1));
  table.Add(SoftmaxRecord("Softmax", false, 13, 99, -1));
  table.Add(SoftmaxRecord("LogSoftmax", true, 1, 12, 1));
  table.Add(SoftmaxRecord("LogSoftmax", true, 13, 99, -1));
}

}  // namespace alknet::compute::ops
