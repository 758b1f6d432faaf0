// Early-opset semantics (ONNX opsets 1..10) as compositions over today's records, so that old
// models (the PyTorch exporters of 2017-2018 wrote opset 6) run without a second set of
// kernels. Each legacy record rewrites its inputs' shapes (a Reshape view) and attributes,
// then runs the current record of the same op:
//
//   Add/Sub/Mul/Div/Pow 1..6   `broadcast` = 1: B's dimensions line up with A's starting at
//                              `axis` (default: the trailing ones); B is reshaped so that
//                              numpy broadcasting (opset 7) means the same. `broadcast` = 0:
//                              the shapes must be equal.
//   Gemm 1..10                 the same as Gemm-11 (C required before 11; `broadcast` before 7).
//   PRelu 1..6                 a 1-D slope of X.shape[1] elements is per channel (axis 1),
//                              as PyTorch meant it; 7..8 are Gemm-like: numpy as in PRelu-9.
//   Max/Min/Sum/Mean 1..7      equal shapes before opset 8's broadcasting: the same result.
//
// `consumed_inputs` (opsets 1..5, an in-place hint for the runtime) is accepted and ignored.
#include <algorithm>
#include <optional>

#include "alknet/compute/graph.h"
#include "ops/families.h"

namespace alknet::compute::ops {

namespace {

// How a legacy node becomes a current one: per input a new shape (nullopt: unchanged) and the
// attributes the current record takes.
struct Rewrite {
  std::vector<std::optional<Shape>> shapes;
  Attributes attributes;
};
using Planner = std::function<Result<Rewrite>(const OpNode& node, const Attributes& attrs)>;

// The current form of `node`, with the rewrite applied.
OpNode Modern(const OpNode& node, const Rewrite& rw, int target_opset) {
  OpNode m = node;
  m.opset = target_opset;
  m.attributes = rw.attributes;
  m.outputs.clear();
  for (size_t i = 0; i < rw.shapes.size() && i < m.inputs.size(); ++i) {
    if (rw.shapes[i]) {
      m.inputs[i].shape = *rw.shapes[i];
      m.inputs[i].strides.clear();
      m.inputs[i].offset = 0;
    }
  }
  return m;
}

OpRecord LegacyRecord(const std::string& name, int opset_min, int opset_max, int target_opset,
                      uint32_t min_inputs, uint32_t max_inputs,
                      std::vector<AttributeSpec> attributes, std::string summary, Planner plan) {
  OpRecord r;
  r.name = name;
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "legacy";
  r.summary = std::move(summary);
  r.min_inputs = min_inputs;
  r.max_inputs = max_inputs;
  r.attributes = std::move(attributes);
  r.accepts_views = true;  // the current record decides (the Reshape copies a strided input)
  r.infer = [plan, target_opset](const OpNode& node,
                                 const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(Rewrite rw, plan(node, at));
    return OpTable::Default().Infer(Modern(node, rw, target_opset));
  };
  r.decompose = [plan, target_opset, name](const OpNode& node,
                                           const Attributes& at) -> Result<Graph> {
    ALKNET_ASSIGN_OR_RETURN(Rewrite rw, plan(node, at));
    const int n = static_cast<int>(node.inputs.size());
    Graph g(n);
    std::vector<int> inputs;
    for (int i = 0; i < n; ++i) {
      if (!node.has_input(static_cast<size_t>(i))) {
        inputs.push_back(Graph::kAbsent);
      } else if (static_cast<size_t>(i) < rw.shapes.size() && rw.shapes[i]) {
        const Shape& s = *rw.shapes[i];
        inputs.push_back(g.Add("Reshape", {i, Graph::kAbsent}, {{"allowzero", int64_t{1}}}, 14));
        g.nodes.back().input_values = {
            nullptr, std::make_shared<const RefTensor>(RefTensor{
                         DType::kI32, {s.size()}, std::vector<double>(s.begin(), s.end())})};
      } else {
        inputs.push_back(i);
      }
    }
    g.outputs = {g.Add(name, inputs, rw.attributes, target_opset)};
    return g;
  };
  r.reference = [plan, target_opset](const OpNode& node, const Attributes& at,
                                     const std::vector<RefTensor>& in) {
    auto rw = plan(node, at);
    if (!rw.ok()) return std::vector<RefTensor>{};
    OpNode m = Modern(node, *rw, target_opset);
    const OpTable& table = OpTable::Default();
    const OpRecord* rec = table.Find(m.op_type, target_opset);
    auto attrs = table.ResolveAttributes(*rec, m);
    auto outs = table.Infer(m);
    if (!attrs.ok() || !outs.ok()) return std::vector<RefTensor>{};
    m.outputs = *outs;
    std::vector<RefTensor> reshaped = in;
    for (size_t i = 0; i < rw->shapes.size() && i < reshaped.size(); ++i) {
      if (rw->shapes[i]) reshaped[i].shape = *rw->shapes[i];
    }
    return rec->reference(m, *attrs, reshaped);
  };
  return r;
}

std::string ZeroOrOne(const AttrValue& v) {
  const int64_t b = std::get<int64_t>(v);
  return b == 0 || b == 1 ? "" : "must be 0 or 1";
}

AttributeSpec ConsumedInputs() { return {"consumed_inputs", std::nullopt, true, nullptr}; }

// Add, Sub, Mul, Div, Pow before opset 7: `broadcast` and `axis`.
Result<Rewrite> PlanBroadcast(const OpNode& node, const Attributes& at) {
  const Shape& a = node.inputs[0].shape;
  const Shape& b = node.inputs[1].shape;
  Rewrite rw;
  rw.shapes.resize(2);
  if (std::get<int64_t>(at.at("broadcast")) == 0) {
    if (a != b) {
      return Error{ErrorCode::kShape,
                   node.Describe() + ": with broadcast = 0 (opset " + std::to_string(node.opset) +
                       ") both inputs must have the same shape; set broadcast = 1 to broadcast B"};
    }
    return rw;
  }
  if (b.size() > a.size()) {
    return Error{ErrorCode::kShape, node.Describe() + ": B has more dimensions than A; opset " +
                                        std::to_string(node.opset) + " broadcasts B onto A only"};
  }
  const int64_t ra = static_cast<int64_t>(a.size()), rb = static_cast<int64_t>(b.size());
  int64_t axis = ra - rb;
  if (auto it = at.find("axis"); it != at.end()) {
    axis = std::get<int64_t>(it->second);
    if (axis < 0) axis += ra;
  }
  if (axis < 0 || axis + rb > ra) {
    return Error{ErrorCode::kShape, node.Describe() + ": axis " + std::to_string(axis) +
                                        " does not fit B (rank " + std::to_string(rb) +
                                        ") into A (rank " + std::to_string(ra) + ")"};
  }
  for (int64_t i = 0; i < rb; ++i) {
    const uint64_t da = a[static_cast<size_t>(axis + i)], db = b[static_cast<size_t>(i)];
    if (db != da && db != 1) {
      return Error{ErrorCode::kShape,
                   node.Describe() + ": B's dimension " + std::to_string(i) + " (" +
                       std::to_string(db) + ") does not match A's dimension " +
                       std::to_string(axis + i) + " (" + std::to_string(da) + ")"};
    }
  }
  // B's dimensions, then ones up to A's rank: numpy broadcasting aligns the rest from the right.
  Shape target = b;
  target.resize(static_cast<size_t>(ra - axis), 1);
  if (target != b) rw.shapes[1] = target;
  return rw;
}

// Attributes forwarded unchanged (the ones the current record takes).
Attributes Forward(const Attributes& at, std::initializer_list<const char*> keep) {
  Attributes out;
  for (const char* k : keep) {
    if (auto it = at.find(k); it != at.end()) out.emplace(k, it->second);
  }
  return out;
}

void AddBroadcastRecords(OpTable& table) {
  for (const char* name : {"Add", "Sub", "Mul", "Div", "Pow"}) {
    OpRecord r = LegacyRecord(
        name, 1, 6, 7, 2, 2,
        {{"broadcast", AttrValue(int64_t{0}), false, ZeroOrOne},
         {"axis", std::nullopt, true, nullptr},
         ConsumedInputs()},
        std::string(name) + " of opsets 1..6: B broadcast onto A from `axis` when broadcast = 1",
        PlanBroadcast);
    r.test_cases = {
        {{Shape{2, 3, 4, 5}, Shape{2, 3, 4, 5}}, {}, {}, "same shapes"},
        {{Shape{2, 3, 4, 5}, Shape{5}}, {{"broadcast", int64_t{1}}}, {}, "trailing"},
        {{Shape{2, 3, 4, 5}, Shape{3, 4}},
         {{"broadcast", int64_t{1}}, {"axis", int64_t{1}}},
         {},
         "axis 1"},
        {{Shape{2, 3, 4, 5}, Shape{2}},
         {{"broadcast", int64_t{1}}, {"axis", int64_t{0}}},
         {},
         "axis 0"},
        {{Shape{3, 4}, Shape{}}, {{"broadcast", int64_t{1}}}, {}, "scalar"},
    };
    if (std::string(name) == "Pow") {
      r.hints = {0.5, 2.0, 1e-5, 2e-5};  // positive bases: no NaN from fractional powers
    } else if (std::string(name) == "Div") {
      r.hints = {-4.0, 4.0, 1e-6, 1e-6, /*nonzero=*/true};
    }
    table.Add(std::move(r));
  }
}

void AddGemmRecord(OpTable& table) {
  OpRecord r =
      LegacyRecord("Gemm", 1, 10, 11, 3, 3,
                   {{"alpha", AttrValue(1.0), false, nullptr},
                    {"beta", AttrValue(1.0), false, nullptr},
                    {"transA", AttrValue(int64_t{0}), false, ZeroOrOne},
                    {"transB", AttrValue(int64_t{0}), false, ZeroOrOne},
                    {"broadcast", AttrValue(int64_t{0}), false, ZeroOrOne}},
                   "Gemm of opsets 1..10 (C required; `broadcast` before opset 7): as Gemm-11",
                   [](const OpNode&, const Attributes& at) -> Result<Rewrite> {
                     Rewrite rw;
                     rw.shapes.resize(3);
                     rw.attributes = Forward(at, {"alpha", "beta", "transA", "transB"});
                     return rw;
                   });
  r.test_cases = {
      {{Shape{4, 10}, Shape{8, 10}, Shape{8}},
       {{"transB", int64_t{1}}, {"broadcast", int64_t{1}}},
       {},
       "linear"},
      {{Shape{3, 5}, Shape{5, 7}, Shape{3, 7}}, {{"alpha", 0.5}, {"beta", 2.0}}, {}, "full C"},
  };
  table.Add(std::move(r));
}

void AddPReluRecords(OpTable& table) {
  OpRecord r6 =
      LegacyRecord("PRelu", 1, 6, 9, 2, 2, {ConsumedInputs()},
                   "PRelu of opsets 1..6: a 1-D slope of X.shape[1] values applies per channel",
                   [](const OpNode& node, const Attributes&) -> Result<Rewrite> {
                     const Shape& x = node.inputs[0].shape;
                     const Shape& slope = node.inputs[1].shape;
                     Rewrite rw;
                     rw.shapes.resize(2);
                     if (slope.size() == 1 && x.size() >= 2 && slope[0] == x[1] && slope[0] != 1) {
                       Shape target(x.size() - 1, 1);
                       target[0] = slope[0];
                       rw.shapes[1] = target;
                     }
                     return rw;
                   });
  r6.test_cases = {
      {{Shape{2, 3, 4}, Shape{3}}, {}, {}, "per channel 1d"},
      {{Shape{2, 3, 4, 5}, Shape{3}}, {}, {}, "per channel 2d"},
      {{Shape{2, 3, 4}, Shape{1}}, {}, {}, "shared"},
  };
  table.Add(std::move(r6));
  OpRecord r7 = LegacyRecord("PRelu", 7, 8, 9, 2, 2, {}, "PRelu of opsets 7..8: as PRelu-9",
                             [](const OpNode&, const Attributes&) -> Result<Rewrite> {
                               return Rewrite{{}, {}};
                             });
  r7.test_cases = {{{Shape{2, 3, 4}, Shape{4}}, {}, {}, "trailing"}};
  table.Add(std::move(r7));
}

void AddVariadicRecords(OpTable& table) {
  for (const char* name : {"Max", "Min", "Sum", "Mean"}) {
    OpRecord r = LegacyRecord(
        name, 1, 7, 8, 1, 32, {ConsumedInputs()},
        std::string(name) + " of opsets 1..7 (inputs of one shape): as " + name + "-8",
        [](const OpNode& node, const Attributes&) -> Result<Rewrite> {
          for (size_t i = 1; i < node.inputs.size(); ++i) {
            if (node.inputs[i].shape != node.inputs[0].shape) {
              return Error{
                  ErrorCode::kShape,
                  node.Describe() + ": before opset 8 every input must have the same shape"};
            }
          }
          return Rewrite{};
        });
    r.test_cases = {
        {{Shape{3, 5}}, {}, {}, "one input"},
        {{Shape{3, 5}, Shape{3, 5}, Shape{3, 5}}, {}, {}, "three"},
    };
    table.Add(std::move(r));
  }
}

}  // namespace

void AddLegacyOps(OpTable& table) {
  AddBroadcastRecords(table);
  AddGemmRecord(table);
  AddPReluRecords(table);
  AddVariadicRecords(table);
}

}  // namespace alknet::compute::ops
