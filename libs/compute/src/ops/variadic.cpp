// Sum and Mean of any number of broadcasting inputs, as compositions: a chain of Adds, and
// for Mean a final multiply by 1/n (a constant the executor uploads).
#include "ops/elementwise.h"
#include "ops/families.h"

namespace alknet::compute::ops {

namespace {

OpRecord VariadicRecord(const char* name, bool mean) {
  OpRecord r;
  r.name = name;
  r.opset_min = 8;
  r.family = "variadic";
  r.summary = mean ? "elementwise mean of all inputs (broadcasting)"
                   : "elementwise sum of all inputs (broadcasting)";
  r.min_inputs = 1;
  r.max_inputs = 64;
  r.infer = [mean](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    return InferElementwise(node, mean ? kFloat : kNumeric, OutType::kSame);
  };
  r.decompose = [mean](const OpNode& node, const Attributes&) -> Result<Graph> {
    const int n = static_cast<int>(node.inputs.size());
    Graph g(n);
    int acc = 0;
    if (n == 1) acc = g.Add("Identity", {0});
    for (int i = 1; i < n; ++i) acc = g.Add("Add", {acc, i});
    if (mean) {
      const int k = g.Add("Mul", {acc, Graph::kAbsent});
      g.nodes.back().input_values = {nullptr, std::make_shared<const RefTensor>(
                                                  RefTensor{node.inputs[0].dtype, {}, {1.0 / n}})};
      acc = k;
    }
    g.outputs = {acc};
    return g;
  };
  r.reference = [mean](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    auto out =
        ElementwiseReference(node, at, in, [mean](std::span<const double> v, const Attributes&) {
          double s = 0;
          for (double x : v) s += x;
          return mean ? s / static_cast<double>(v.size()) : s;
        });
    return out;
  };
  r.hints.abs_tol = 1e-5;
  r.hints.rel_tol = 1e-5;
  r.test_cases = {
      {{Shape{3, 5}}, {}, {}, "one input"},
      {{Shape{3, 1, 7}, Shape{5, 1}, Shape{7}}, {}, {}, "three broadcasting"},
      {{Shape{1031}, Shape{1031}}, {}, {}, "two"},
  };
  return r;
}

}  // namespace

void AddVariadicOps(OpTable& table) {
  table.Add(VariadicRecord("Sum", false));
  table.Add(VariadicRecord("Mean", true));
}

}  // namespace alknet::compute::ops
