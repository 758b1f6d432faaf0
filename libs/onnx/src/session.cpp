// Session: load (load.cpp: parse, shape inference, checks against the op table), plan
// (plan.cpp, per input shapes: fold on the host (fold.cpp), build a compute::Graph, LRU cache),
// run (run.cpp: one Executor::Run). This file is the public surface over Session::Impl.
#include "alknet/onnx/session.h"

#include "session_impl.h"

namespace alknet::onnx {

Result<HostInput> InputFromView(const tensor::TensorView& view, std::string name) {
  auto t = ElemTypeOf(view.dtype());
  if (!t) {
    return Error{ErrorCode::kUnsupported, "tensor '" + std::string(view.name()) + "' has dtype " +
                                              compute::DTypeName(view.dtype()) +
                                              ", which has no ONNX equivalent alknet runs"};
  }
  HostInput in;
  in.name = name.empty() ? std::string(view.name()) : std::move(name);
  in.type = *t;
  in.shape.assign(view.shape().begin(), view.shape().end());
  in.data = view.data;
  return in;
}

HostInput InputFromTensor(const Tensor& t, std::string name) {
  HostInput in;
  in.name = name.empty() ? t.name : std::move(name);
  in.type = t.type;
  in.shape = t.shape;
  in.data = t.data;
  in.strings = t.strings;
  in.kind = t.kind;
  for (const Tensor& e : t.items) in.items.push_back(InputFromTensor(e, e.name));
  return in;
}

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;
Session::~Session() = default;

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
bool Session::draws_random() const {
  for (const auto& n : impl_->nodes) {
    if (n.op == "RandomUniform" || n.op == "RandomNormal" || n.op == "RandomUniformLike" ||
        n.op == "RandomNormalLike" || n.op == "Bernoulli" ||
        (n.op == "Dropout" && n.inputs.size() >= 3 && !n.inputs[2].empty())) {
      return true;
    }
  }
  return false;
}
Result<RunResult> Session::Run(std::span<const HostInput> inputs, const RunOptions& options) {
  return impl_->Run(inputs, options);
}
const SessionStats& Session::stats() const { return impl_->stats; }
webgpu::Context& Session::context() { return *impl_->ctx; }

}  // namespace alknet::onnx
