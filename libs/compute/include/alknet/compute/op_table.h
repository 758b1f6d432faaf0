// The op table: one declarative record per ONNX op. Records hold no shader text: they say
// which template renders the op, what its attributes are, which shapes and dtypes it
// supports (and why not), how big the dispatch is, and how to compute it in float64 on the
// CPU (the reference the tests check every op against). docs/adding-an-op.md is the recipe.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "alknet/compute/error.h"
#include "alknet/compute/graph.h"
#include "alknet/compute/op.h"
#include "alknet/compute/shader_generator.h"
#include "alknet/hbs/value.h"

namespace alknet::compute {

struct AttributeSpec {
  std::string name;
  // Used when the node does not set the attribute; nullopt: the attribute is required
  // (unless `optional`).
  std::optional<AttrValue> default_value;
  bool optional = false;
  // Empty string: valid; otherwise the reason, e.g. "must be 0 or 1".
  std::function<std::string(const AttrValue&)> validate;
};

// One case the generic op test (tests/ops_test.cpp) runs against the float64 reference:
// input shapes (random data within the record's hints) and attributes. Inputs listed in
// `values` get those exact values instead (host inputs such as Reshape's shape must); an
// input whose shape is nullopt is absent.
struct OpTestCase {
  std::vector<std::optional<Shape>> shapes;
  Attributes attrs;
  std::map<size_t, RefTensor> values;
  std::string label;  // short description for failure messages
};

// How many invocations a kernel needs. kLinear: `invocations` threads in workgroups of the
// device's linear size, spread over x and y within maxComputeWorkgroupsPerDimension (the
// shader reads num_workgroups). kGrid: explicit workgroup counts and workgroup size.
struct DispatchPlan {
  enum class Kind { kLinear, kGrid } kind = Kind::kLinear;
  uint64_t invocations = 0;
  std::array<uint64_t, 3> groups{1, 1, 1};
  std::array<uint32_t, 3> workgroup_size{1, 1, 1};
};

// Data the tests use to exercise an op: the input range where the op is well conditioned
// and the tolerance its result is held to (|gpu - ref| <= abs + rel * |ref|).
struct TestHints {
  double lo = -3.0, hi = 3.0;
  double abs_tol = 1e-5, rel_tol = 1e-5;
  bool nonzero = false;         // divisors: keep |x| >= 0.5
  bool integer_valued = false;  // float inputs drawn from integers (Pow exponents, Mod)
};

using DTypeSet = std::vector<DType>;

// What a record's kernel requires of its inputs, declared as data. OpTable::Infer checks it
// once, before the record's `infer` runs, so every record refuses a wrong operand with the
// same message: the op, the input index, the dtype given and the dtypes accepted.
struct InputContract {
  // dtypes[i]: the dtypes input i accepts; inputs past the list take the last entry. Empty:
  // no constraint here (`infer` decides, e.g. elementwise type rules).
  std::vector<DTypeSet> dtypes;
  // The kernel reads its device inputs row-major from offset 0. The executor copies strided
  // views first for a record without accepts_views; a view that reaches Infer anyway is
  // refused rather than read wrongly. Host inputs are never bound, so they are exempt.
  bool contiguous = false;

  // The dtypes input i accepts (empty: any).
  const DTypeSet* accepted(size_t i) const {
    if (dtypes.empty()) return nullptr;
    return &dtypes[std::min(i, dtypes.size() - 1)];
  }
};

struct OpRecord {
  std::string name;
  int opset_min = 1;
  int opset_max = 99;
  std::string family;  // "unary", "binary", "linalg", ... (docs and layout)
  std::string shader;  // template id: shaders/<shader>.<language>.hbs
  uint32_t min_inputs = 1, max_inputs = 1;
  std::vector<AttributeSpec> attributes;
  std::string summary;
  // True when the shader reads operands through their strides (views need no copy); false:
  // the executor makes strided inputs contiguous first.
  bool accepts_views = false;
  // The dtypes (and contiguity) the kernel accepts, checked before `infer` runs.
  InputContract contract;

  // Checks shapes (and dtype rules the contract cannot state) and infers the outputs; an error
  // (kUnsupported, kShape) says why. `attrs` are the node's attributes with defaults filled in and
  // validated.
  std::function<Result<std::vector<TensorDesc>>(const OpNode& node, const Attributes& attrs)> infer;
  // Op-specific template data (numbers, flags, lists; no shader text).
  std::function<Result<hbs::Value>(const OpNode& node, const Attributes& attrs,
                                   const DeviceCaps& caps)>
      context;
  std::function<DispatchPlan(const OpNode& node, const Attributes& attrs, const DeviceCaps& caps)>
      dispatch;
  // Run-time parameters (ShaderProgram::params): 32-bit words of a uniform block the template
  // declares at binding `params_binding` (after the outputs). Sizes passed here instead of
  // rendered into the source let one pipeline serve every shape of a kind (MatMul, Conv on CPU
  // adapters: docs/adr/0005, 0006). An empty vector: this node has no block.
  std::function<Result<std::vector<uint32_t>>(const OpNode& node, const Attributes& attrs,
                                              const DeviceCaps& caps)>
      params;
  std::function<std::vector<RefTensor>(const OpNode& node, const Attributes& attrs,
                                       const std::vector<RefTensor>& inputs)>
      reference;
  TestHints hints;
  // dtypes the tests exercise (infer decides what is accepted).
  std::vector<DType> test_dtypes{DType::kF32};
  // Cases for tests/ops_test.cpp; empty: the generic elementwise cases by arity.
  std::vector<OpTestCase> test_cases;

  // Inputs read on the host at plan time, never bound to a shader (Reshape's shape, Slice's
  // starts/ends/axes/steps, Pad's pads, ...). Their values arrive in OpNode::input_values; a
  // node whose host input is unknown is refused at plan time with the reason.
  std::vector<uint32_t> host_inputs;

  // View ops: output 0 is input 0's storage with the returned layout (shape, strides, offset
  // in elements), and no shader runs. With accepts_views false the executor first makes
  // input 0 contiguous. `infer` must agree with the returned dtype and shape.
  std::function<Result<TensorDesc>(const OpNode& node, const Attributes& attrs)> view;

  // Composite ops: a graph over the node's inputs (value i = input i; absent inputs are
  // Graph::kAbsent there too) whose outputs are the node's outputs, inlined by the executor.
  // Its nodes may use internal records (family "internal", names starting with "alknet.").
  // Multi-pass kernels (two-pass reductions, recurrences over time) are written this way.
  std::function<Result<Graph>(const OpNode& node, const Attributes& attrs)> decompose;

  // Device-specific plans for records that have a shader: a graph that runs instead of it on
  // a device with these capabilities, or nullopt for the record's own kernel. Conv splits K
  // across workgroups this way when its output grid is too small to fill a GPU. The graph
  // must compute what `reference` says (the op tests run both device variants).
  std::function<std::optional<Graph>(const OpNode& node, const Attributes& attrs,
                                     const DeviceCaps& caps)>
      specialize;

  bool is_host_input(size_t i) const {
    for (uint32_t h : host_inputs) {
      if (h == i) return true;
    }
    return false;
  }
};

class OpTable {
 public:
  // The built-in table (all families), built once.
  static const OpTable& Default();

  void Add(OpRecord record);
  // nullptr when unknown; `opset` outside the record's range also yields nullptr.
  const OpRecord* Find(std::string_view name, int opset) const;
  const OpRecord* Find(std::string_view name) const;
  const std::vector<OpRecord>& records() const { return records_; }

  // Resolves attributes: defaults filled in, kinds and values validated, unknown names refused.
  Result<Attributes> ResolveAttributes(const OpRecord& record, const OpNode& node) const;
  // Looks up, resolves and infers: the op's outputs, or the reason it is unsupported.
  Result<std::vector<TensorDesc>> Infer(const OpNode& node) const;

 private:
  std::vector<OpRecord> records_;
};

// Tells a node how many outputs its graph wants: `outputs` gets that many placeholders (infer
// replaces them), and a record with the internal attribute alknet.outputs (optional outputs
// such as MaxPool's Indices) gets it set unless the node sets it.
void RequestOutputs(OpNode& node, const OpRecord* record, int count);

// Runs an op's float64 reference on the CPU (for tests and the registry's self-checks).
Result<std::vector<RefTensor>> ReferenceRun(const OpNode& node,
                                            const std::vector<RefTensor>& inputs);

}  // namespace alknet::compute
