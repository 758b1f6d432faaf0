// Ops that fit no larger family: Trilu, IsInf, IsNaN, CastLike, EyeLike, the window functions,
// GatherND, ScatterND, ReverseSequence, Compress, Det (shaders/misc/).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "ops/elementwise.h"
#include "ops/families.h"

namespace alknet::compute::ops {

namespace {

using In = std::span<const double>;

DispatchPlan LinearOver(uint64_t n) {
  DispatchPlan p;
  p.invocations = n;
  return p;
}

Error LimitError(const OpNode& node, uint64_t n) {
  return Error{ErrorCode::kLimit, node.Describe() + ": " + std::to_string(n) + " elements exceed 32-bit shader indexing"};
}

// Divisors in kernel index math: a zero extent means no invocation runs, but WGSL rejects a
// constant division by zero, so the template gets 1.
uint64_t NonZero(uint64_t v) { return v == 0 ? 1 : v; }

int64_t HostInt(const RefTensor* t, int64_t fallback) {
  return t == nullptr || t->data.empty() ? fallback : static_cast<int64_t>(t->data[0]);
}

// ---- Trilu ----------------------------------------------------------------------------------

OpRecord TriluRecord() {
  OpRecord r;
  r.name = "Trilu";
  r.opset_min = 14;
  r.family = "misc";
  r.shader = "misc/trilu";
  r.summary = "upper (upper=1) or lower triangle of the last two dimensions; k shifts the diagonal";
  r.min_inputs = 1;
  r.max_inputs = 2;
  r.host_inputs = {1};
  r.attributes = {{"upper", AttrValue(int64_t{1}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    const TensorDesc& x = node.inputs[0];
    if (x.shape.size() < 2) {
      return Error{ErrorCode::kShape, node.Describe() + ": input must have rank >= 2, got " + ShapeToString(x.shape)};
    }
    if (node.has_input(1) && node.value(1)->data.size() != 1) {
      return Error{ErrorCode::kShape, node.Describe() + ": k must be a scalar"};
    }
    if (x.elements() >= (uint64_t{1} << 31)) return LimitError(node, x.elements());
    return std::vector<TensorDesc>{TensorDesc{x.dtype, x.shape}};
  };
  r.context = [](const OpNode& node, const Attributes& at, const DeviceCaps&) -> Result<hbs::Value> {
    const Shape& s = node.inputs[0].shape;
    // k beyond the matrix acts like the matrix's edge; clamping keeps it within i32.
    const int64_t k = std::clamp<int64_t>(HostInt(node.value(1), 0), -(int64_t{1} << 31) + 1, (int64_t{1} << 31) - 1);
    return hbs::Value::object({{"n", node.inputs[0].elements()},
                               {"rows", NonZero(s[s.size() - 2])},
                               {"cols", NonZero(s[s.size() - 1])},
                               {"k", static_cast<long long>(k)},
                               {"upper", std::get<int64_t>(at.at("upper")) != 0}});
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps&) {
    return LinearOver(node.inputs[0].elements());
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const Shape& s = in[0].shape;
    const uint64_t rows = s[s.size() - 2], cols = s[s.size() - 1];
    const int64_t k = HostInt(node.value(1), 0);
    const bool upper = std::get<int64_t>(at.at("upper")) != 0;
    RefTensor out = in[0];
    for (uint64_t i = 0; i < out.data.size(); ++i) {
      const int64_t col = static_cast<int64_t>(i % cols), row = static_cast<int64_t>((i / cols) % rows);
      const bool keep = upper ? col - row >= k : col - row <= k;
      if (!keep) out.data[i] = 0;
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-4, 4, 0, 0};
  r.test_dtypes = {DType::kF32, DType::kI32};
  auto k = [](double v) { return RefTensor{DType::kI32, {}, {v}}; };
  r.test_cases = {
      {{Shape{4, 5}}, {}, {}, "upper, k absent"},
      {{Shape{2, 3, 6}, Shape{}}, {{"upper", int64_t{0}}}, {{1, k(-1)}}, "lower k=-1, batched"},
      {{Shape{3, 5}, Shape{}}, {}, {{1, k(2)}}, "upper k=2"},
  };
  return r;
}

// ---- IsInf, IsNaN ---------------------------------------------------------------------------

void AddFloatClassOps(OpTable& table) {
  const DTypeSet f32 = {DType::kF32};
  OpRecord isinf = ElementwiseRecord(
      "IsInf", "misc/isinf", "true where the element is +inf (detect_positive) or -inf (detect_negative)", f32,
      OutType::kBool, [](In x, const Attributes& a) {
        const bool pos = std::get<int64_t>(a.at("detect_positive")) != 0;
        const bool neg = std::get<int64_t>(a.at("detect_negative")) != 0;
        return std::isinf(x[0]) && ((x[0] > 0 && pos) || (x[0] < 0 && neg)) ? 1.0 : 0.0;
      });
  isinf.opset_min = 10;
  isinf.attributes = {{"detect_positive", AttrValue(int64_t{1}), false, {}},
                      {"detect_negative", AttrValue(int64_t{1}), false, {}}};
  isinf.hints = {-4, 4, 0, 0};
  const RefTensor specials{DType::kF32, {7}, {1.5, INFINITY, -INFINITY, NAN, 0.0, -3e38, 3e38}};
  isinf.test_cases = {
      {{Shape{7}}, {}, {{0, specials}}, "both signs"},
      {{Shape{7}}, {{"detect_positive", int64_t{0}}}, {{0, specials}}, "negative only"},
      {{Shape{7}}, {{"detect_negative", int64_t{0}}}, {{0, specials}}, "positive only"},
  };
  table.Add(std::move(isinf));

  OpRecord isnan = ElementwiseRecord("IsNaN", "misc/isnan", "true where the element is NaN", f32, OutType::kBool,
                                     [](In x, const Attributes&) { return std::isnan(x[0]) ? 1.0 : 0.0; });
  isnan.opset_min = 9;
  isnan.hints = {-4, 4, 0, 0};
  isnan.test_cases = {{{Shape{7}}, {}, {{0, specials}}, "specials"}, {{Shape{3, 5}}, {}, {}, "finite"}};
  table.Add(std::move(isnan));
}

// ---- CastLike, EyeLike, windows: decompositions ----------------------------------------------

OpRecord CastLikeRecord() {
  OpRecord r;
  r.name = "CastLike";
  r.opset_min = 15;
  r.family = "misc";
  r.summary = "Cast to the dtype of the second input (only its dtype is read)";
  r.min_inputs = r.max_inputs = 2;
  r.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(InferElementwise(node, kAny, OutType::kSame, false));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[1].dtype, node.inputs[0].shape}};
  };
  r.decompose = [](const OpNode& node, const Attributes&) -> Result<Graph> {
    Graph g(2);
    g.outputs = {g.Add("Cast", {0}, {{"to", OnnxTypeOfDevice(node.inputs[1].dtype)}}, 13)};
    return g;
  };
  r.reference = [](const OpNode& node, const Attributes&, const std::vector<RefTensor>& in) {
    OpNode cast{"Cast", node.name, 13, {{"to", OnnxTypeOfDevice(node.inputs[1].dtype)}}, {node.inputs[0]}, {}};
    return ReferenceRun(cast, {in[0]}).value();
  };
  r.hints = {-4, 4, 0, 0};
  r.test_dtypes = {DType::kF32, DType::kI32};
  r.test_cases = {
      {{Shape{3, 4}, Shape{1}}, {}, {{1, RefTensor{DType::kI32, {1}, {0}}}}, "to i32"},
      {{Shape{3, 4}, Shape{1}}, {}, {{1, RefTensor{DType::kF32, {1}, {0}}}}, "to f32"},
      {{Shape{5}, Shape{1}}, {}, {{1, RefTensor{DType::kBool, {1}, {0}}}}, "to bool"},
  };
  return r;
}

// A node whose output is a constant computed on the host: Identity of an uploaded value.
Graph ConstantGraph(int num_inputs, RefTensor value) {
  Graph g(num_inputs);
  const int v = g.Add("Identity", {Graph::kAbsent});
  g.nodes.back().input_values = {std::make_shared<const RefTensor>(std::move(value))};
  g.outputs = {v};
  return g;
}

Result<DType> EyeLikeType(const OpNode& node, const Attributes& at) {
  if (!at.count("dtype")) return node.inputs[0].dtype;
  return DeviceTypeOfOnnx(std::get<int64_t>(at.at("dtype")), node.Describe() + ": attribute 'dtype'");
}

OpRecord EyeLikeRecord() {
  OpRecord r;
  r.name = "EyeLike";
  r.opset_min = 9;
  r.family = "misc";
  r.summary = "ones on the k-th diagonal of a 2-D tensor shaped like the input (a host-built constant)";
  r.attributes = {{"dtype", std::nullopt, true, {}}, {"k", AttrValue(int64_t{0}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    if (node.inputs[0].shape.size() != 2) {
      return Error{ErrorCode::kShape, node.Describe() + ": input must be 2-D, got " + ShapeToString(node.inputs[0].shape)};
    }
    ALKNET_ASSIGN_OR_RETURN(DType d, EyeLikeType(node, at));
    return std::vector<TensorDesc>{TensorDesc{d, node.inputs[0].shape}};
  };
  auto build = [](const OpNode& node, const Attributes& at) {
    const Shape& s = node.inputs[0].shape;
    const int64_t k = std::get<int64_t>(at.at("k"));
    RefTensor t{*EyeLikeType(node, at), s, std::vector<double>(s[0] * s[1], 0.0)};
    for (int64_t i = 0; i < static_cast<int64_t>(s[0]); ++i) {
      const int64_t j = i + k;
      if (j >= 0 && j < static_cast<int64_t>(s[1])) t.data[static_cast<size_t>(i) * s[1] + static_cast<size_t>(j)] = 1;
    }
    return t;
  };
  r.decompose = [build](const OpNode& node, const Attributes& at) -> Result<Graph> {
    return ConstantGraph(1, build(node, at));
  };
  r.reference = [build](const OpNode& node, const Attributes& at, const std::vector<RefTensor>&) {
    return std::vector<RefTensor>{build(node, at)};
  };
  r.hints = {-4, 4, 0, 0};
  r.test_dtypes = {DType::kI32};
  r.test_cases = {
      {{Shape{4, 5}}, {{"k", int64_t{1}}, {"dtype", int64_t{1}}}, {}, "k=1 to float"},
      {{Shape{3, 3}}, {}, {}, "same dtype"},
      {{Shape{3, 4}}, {{"k", int64_t{-2}}, {"dtype", int64_t{11}}}, {}, "k=-2 double (f32)"},
  };
  return r;
}

enum class Window { kHann, kHamming, kBlackman };

OpRecord WindowRecord(const char* name, Window kind) {
  OpRecord r;
  r.name = name;
  r.opset_min = 17;
  r.family = "misc";
  r.summary = "window function of the given size (a host-built constant)";
  r.host_inputs = {0};
  r.attributes = {{"output_datatype", AttrValue(int64_t{1}), false, {}}, {"periodic", AttrValue(int64_t{1}), false, {}}};
  auto size_of = [](const OpNode& node) -> Result<uint64_t> {
    const RefTensor* v = node.value(0);
    if (v->data.size() != 1 || v->data[0] < 0 || v->data[0] > double{1 << 28}) {
      return Error{ErrorCode::kShape, node.Describe() + ": size must be a scalar in [0, 2^28]"};
    }
    return static_cast<uint64_t>(v->data[0]);
  };
  r.infer = [size_of](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(uint64_t n, size_of(node));
    ALKNET_ASSIGN_OR_RETURN(DType d, DeviceTypeOfOnnx(std::get<int64_t>(at.at("output_datatype")),
                                                       node.Describe() + ": attribute 'output_datatype'"));
    return std::vector<TensorDesc>{TensorDesc{d, {n}}};
  };
  // ONNX (opset 17): N = size for periodic windows, size - 1 for symmetric ones;
  // Hamming uses alpha = 25/46.
  auto build = [kind, size_of](const OpNode& node, const Attributes& at) {
    const uint64_t n = *size_of(node);
    const double denom = std::get<int64_t>(at.at("periodic")) != 0 ? static_cast<double>(n) : static_cast<double>(n) - 1;
    RefTensor t{*DeviceTypeOfOnnx(std::get<int64_t>(at.at("output_datatype")), ""), {n}, std::vector<double>(n)};
    for (uint64_t i = 0; i < n; ++i) {
      const double x = 2 * std::numbers::pi * static_cast<double>(i) / denom;
      double v = 0;
      switch (kind) {
        case Window::kHann: v = 0.5 - 0.5 * std::cos(x); break;
        case Window::kHamming: v = 25.0 / 46.0 - 21.0 / 46.0 * std::cos(x); break;
        case Window::kBlackman: v = 0.42 - 0.5 * std::cos(x) + 0.08 * std::cos(2 * x); break;
      }
      if (n == 1) v = 1;  // a window of one sample (denominator 0 when symmetric)
      if (t.dtype == DType::kI32 || t.dtype == DType::kU32) v = std::trunc(v);
      t.data[i] = v;
    }
    return t;
  };
  r.decompose = [build](const OpNode& node, const Attributes& at) -> Result<Graph> {
    return ConstantGraph(1, build(node, at));
  };
  r.reference = [build](const OpNode& node, const Attributes& at, const std::vector<RefTensor>&) {
    return std::vector<RefTensor>{build(node, at)};
  };
  r.hints = {0, 1, 1e-6, 1e-6};
  auto size = [](double v) { return RefTensor{DType::kI32, {}, {v}}; };
  r.test_cases = {
      {{Shape{}}, {}, {{0, size(10)}}, "periodic"},
      {{Shape{}}, {{"periodic", int64_t{0}}}, {{0, size(7)}}, "symmetric"},
  };
  return r;
}

// ---- GatherND ---------------------------------------------------------------------------------

struct GatherNDDims {
  uint64_t batch = 1;        // product of the batch dimensions
  uint64_t rows = 1;         // index tuples per batch
  uint64_t q = 0;            // tuple length
  uint64_t slice = 1;        // elements copied per tuple
  std::vector<uint64_t> extents, strides;  // of the q indexed data dimensions (strides in elements)
  uint64_t batch_stride = 0;  // data elements per batch
  Shape out;
};

Result<GatherNDDims> GatherNDShape(const OpNode& node, const Attributes& at) {
  const Shape& ds = node.inputs[0].shape;
  const Shape& is = node.inputs[1].shape;
  if (node.inputs[1].dtype != DType::kI32) {
    return Error{ErrorCode::kUnsupported, node.Describe() + ": indices must be integers (i32 on the device)"};
  }
  const int64_t b = std::get<int64_t>(at.at("batch_dims"));
  if (is.empty() || ds.empty() || b < 0 || static_cast<size_t>(b) >= std::min(ds.size(), is.size())) {
    return Error{ErrorCode::kShape, node.Describe() + ": needs rank >= 1 operands and 0 <= batch_dims < min(ranks)"};
  }
  GatherNDDims g;
  g.q = is.back();
  if (static_cast<size_t>(b) + g.q > ds.size()) {
    return Error{ErrorCode::kShape, node.Describe() + ": index tuples of length " + std::to_string(g.q) +
                                        " exceed the data's rank " + std::to_string(ds.size()) + " after " +
                                        std::to_string(b) + " batch dimensions"};
  }
  for (int64_t k = 0; k < b; ++k) {
    if (ds[k] != is[k]) {
      return Error{ErrorCode::kShape, node.Describe() + ": batch dimension " + std::to_string(k) + " differs (" +
                                          std::to_string(ds[k]) + " vs " + std::to_string(is[k]) + ")"};
    }
    g.batch *= ds[k];
    g.out.push_back(ds[k]);
  }
  for (size_t k = static_cast<size_t>(b); k + 1 < is.size(); ++k) {
    g.rows *= is[k];
    g.out.push_back(is[k]);
  }
  const Shape dstr = ContiguousStridesOf(ds);
  for (size_t k = 0; k < g.q; ++k) {
    g.extents.push_back(ds[b + k]);
    g.strides.push_back(dstr[b + k]);
  }
  for (size_t k = static_cast<size_t>(b) + g.q; k < ds.size(); ++k) {
    g.slice *= ds[k];
    g.out.push_back(ds[k]);
  }
  g.batch_stride = b > 0 ? dstr[b - 1] : 0;
  return g;
}

hbs::Value TupleTerms(const std::vector<uint64_t>& extents, const std::vector<uint64_t>& strides) {
  hbs::Array terms;
  for (size_t k = 0; k < extents.size(); ++k) {
    terms.push_back(hbs::Value::object({{"k", static_cast<long long>(k)}, {"extent", extents[k]}, {"stride", strides[k]}}));
  }
  return hbs::Value(std::move(terms));
}

OpRecord GatherNDRecord() {
  OpRecord r;
  r.name = "GatherND";
  r.opset_min = 11;
  r.family = "misc";
  r.shader = "misc/gathernd";
  r.summary = "slices of data addressed by index tuples (the last indices dimension), batch_dims leading";
  r.min_inputs = r.max_inputs = 2;
  r.attributes = {{"batch_dims", AttrValue(int64_t{0}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(GatherNDDims g, GatherNDShape(node, at));
    if (node.inputs[0].elements() >= (uint64_t{1} << 31)) return LimitError(node, node.inputs[0].elements());
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, g.out}};
  };
  r.context = [](const OpNode& node, const Attributes& at, const DeviceCaps&) -> Result<hbs::Value> {
    const GatherNDDims g = *GatherNDShape(node, at);
    return hbs::Value::object({{"n", g.batch * g.rows * g.slice},
                               {"rows", NonZero(g.rows)},
                               {"q", g.q},
                               {"slice", NonZero(g.slice)},
                               {"batch_stride", g.batch_stride},
                               {"terms", TupleTerms(g.extents, g.strides)}});
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps&) {
    const GatherNDDims g = *GatherNDShape(node, at);
    return LinearOver(g.batch * g.rows * g.slice);
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const GatherNDDims g = *GatherNDShape(node, at);
    RefTensor out{in[0].dtype, g.out, {}};
    for (uint64_t bt = 0; bt < g.batch; ++bt) {
      for (uint64_t row = 0; row < g.rows; ++row) {
        int64_t base = static_cast<int64_t>(bt * g.batch_stride);
        bool bad = false;
        for (uint64_t k = 0; k < g.q; ++k) {
          int64_t idx = static_cast<int64_t>(in[1].data[(bt * g.rows + row) * g.q + k]);
          if (idx < 0) idx += static_cast<int64_t>(g.extents[k]);
          if (idx < 0 || idx >= static_cast<int64_t>(g.extents[k])) bad = true;
          base += idx * static_cast<int64_t>(g.strides[k]);
        }
        for (uint64_t e = 0; e < g.slice; ++e) {
          out.data.push_back(bad ? 0.0 : in[0].data[static_cast<size_t>(base) + e]);
        }
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-4, 4, 0, 0};
  r.test_dtypes = {DType::kF32, DType::kI32};
  auto idx = [](Shape s, std::vector<double> v) { return RefTensor{DType::kI32, std::move(s), std::move(v)}; };
  r.test_cases = {
      {{Shape{2, 2, 3}, Shape{2, 1, 2}}, {}, {{1, idx({2, 1, 2}, {0, 1, 1, -2})}}, "slices, negative index"},
      {{Shape{3, 4}, Shape{3, 2}}, {}, {{1, idx({3, 2}, {0, 0, 2, 3, 1, -1})}}, "elements"},
      {{Shape{2, 3, 4}, Shape{2, 2, 1}}, {{"batch_dims", int64_t{1}}}, {{1, idx({2, 2, 1}, {2, 0, 1, 1})}}, "batch_dims=1"},
  };
  return r;
}

// ---- ScatterND --------------------------------------------------------------------------------

struct ScatterNDDims {
  uint64_t rows = 1, q = 0, slice = 1;
  std::vector<uint64_t> extents, strides;
};

Result<ScatterNDDims> ScatterNDShape(const OpNode& node) {
  const Shape& ds = node.inputs[0].shape;
  const Shape& is = node.inputs[1].shape;
  const Shape& us = node.inputs[2].shape;
  if (node.inputs[1].dtype != DType::kI32) {
    return Error{ErrorCode::kUnsupported, node.Describe() + ": indices must be integers (i32 on the device)"};
  }
  if (node.inputs[2].dtype != node.inputs[0].dtype) {
    return Error{ErrorCode::kUnsupported, node.Describe() + ": updates must have data's dtype"};
  }
  if (is.empty() || is.back() > ds.size()) {
    return Error{ErrorCode::kShape, node.Describe() + ": indices must be [..., q] with q <= rank(data)"};
  }
  ScatterNDDims s;
  s.q = is.back();
  Shape want(is.begin(), is.end() - 1);
  for (size_t k = s.q; k < ds.size(); ++k) want.push_back(ds[k]);
  if (us != want) {
    return Error{ErrorCode::kShape, node.Describe() + ": updates must have shape " + ShapeToString(want) + ", got " +
                                        ShapeToString(us)};
  }
  for (size_t k = 0; k + 1 < is.size(); ++k) s.rows *= is[k];
  const Shape dstr = ContiguousStridesOf(ds);
  for (size_t k = 0; k < s.q; ++k) {
    s.extents.push_back(ds[k]);
    s.strides.push_back(dstr[k]);
  }
  for (size_t k = s.q; k < ds.size(); ++k) s.slice *= ds[k];
  return s;
}

OpRecord ScatterNDRecord(int opset_min, int opset_max, std::vector<std::string> reductions) {
  OpRecord r;
  r.name = "ScatterND";
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "misc";
  r.shader = "misc/scatternd";
  r.summary = "copy of data with slices addressed by index tuples replaced (or combined: reduction)";
  r.min_inputs = r.max_inputs = 3;
  if (reductions.size() > 1) {
    r.attributes = {{"reduction", AttrValue(std::string("none")), false, [reductions](const AttrValue& v) {
                       for (const std::string& s : reductions) {
                         if (s == std::get<std::string>(v)) return std::string();
                       }
                       std::string ok;
                       for (const std::string& s : reductions) ok += (ok.empty() ? "" : ", ") + s;
                       return "must be one of " + ok + " at this opset";
                     }}};
  }
  r.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(ScatterNDShape(node));
    if (node.inputs[0].elements() >= (uint64_t{1} << 31)) return LimitError(node, node.inputs[0].elements());
    if (node.inputs[0].dtype == DType::kBool) {
      return Error{ErrorCode::kUnsupported, node.Describe() + ": ScatterND on bool is not implemented"};
    }
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, node.inputs[0].shape}};
  };
  // One invocation per output element walks every update row in order and applies those
  // that address it: deterministic (the last write wins, reductions combine in index order)
  // and race-free, at O(elements x rows). Fine for the cache updates ScatterND mostly serves.
  r.context = [](const OpNode& node, const Attributes& at, const DeviceCaps&) -> Result<hbs::Value> {
    const ScatterNDDims s = *ScatterNDShape(node);
    const std::string red = at.count("reduction") ? std::get<std::string>(at.at("reduction")) : "none";
    return hbs::Value::object({{"n", node.inputs[0].elements()},
                               {"rows", s.rows},
                               {"q", s.q},
                               {"slice", NonZero(s.slice)},
                               {"reduction", red},
                               {"terms", TupleTerms(s.extents, s.strides)}});
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps&) {
    return LinearOver(node.inputs[0].elements());
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const ScatterNDDims s = *ScatterNDShape(node);
    const std::string red = at.count("reduction") ? std::get<std::string>(at.at("reduction")) : "none";
    RefTensor out = in[0];
    for (uint64_t row = 0; row < s.rows; ++row) {
      int64_t base = 0;
      for (uint64_t k = 0; k < s.q; ++k) {
        int64_t idx = static_cast<int64_t>(in[1].data[row * s.q + k]);
        if (idx < 0) idx += static_cast<int64_t>(s.extents[k]);
        base += idx * static_cast<int64_t>(s.strides[k]);
      }
      for (uint64_t e = 0; e < s.slice; ++e) {
        double& o = out.data[static_cast<size_t>(base) + e];
        const double u = in[2].data[row * s.slice + e];
        if (red == "add") o += u;
        else if (red == "mul") o *= u;
        else if (red == "max") o = std::max(o, u);
        else if (red == "min") o = std::min(o, u);
        else o = u;
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-3, 3, 1e-6, 1e-6};
  auto idx = [](Shape sh, std::vector<double> v) { return RefTensor{DType::kI32, std::move(sh), std::move(v)}; };
  r.test_cases = {
      {{Shape{4, 3, 2}, Shape{2, 1}, Shape{2, 3, 2}}, {}, {{1, idx({2, 1}, {0, 2})}}, "slices"},
      {{Shape{3, 4}, Shape{3, 2}, Shape{3}}, {}, {{1, idx({3, 2}, {0, 1, 2, -1, 1, 0})}}, "elements"},
  };
  if (reductions.size() > 1) {
    r.test_cases.push_back({{Shape{4, 3}, Shape{3, 1}, Shape{3, 3}},
                            {{"reduction", std::string("add")}},
                            {{1, idx({3, 1}, {1, 3, 1})}},
                            "add, repeated index"});
    r.test_cases.push_back({{Shape{4, 3}, Shape{2, 1}, Shape{2, 3}},
                            {{"reduction", std::string("mul")}},
                            {{1, idx({2, 1}, {2, 2})}},
                            "mul, repeated index"});
  }
  r.test_dtypes = {DType::kF32, DType::kI32};
  return r;
}

// ---- ReverseSequence ---------------------------------------------------------------------------

OpRecord ReverseSequenceRecord() {
  OpRecord r;
  r.name = "ReverseSequence";
  r.opset_min = 10;
  r.family = "misc";
  r.shader = "misc/reversesequence";
  r.summary = "reverses the first sequence_lens[b] steps along time_axis of each batch entry";
  r.min_inputs = r.max_inputs = 2;
  r.attributes = {{"batch_axis", AttrValue(int64_t{1}), false, {}}, {"time_axis", AttrValue(int64_t{0}), false, {}}};
  auto check = [](const OpNode& node, const Attributes& at) -> Status {
    const Shape& s = node.inputs[0].shape;
    const int64_t b = std::get<int64_t>(at.at("batch_axis")), t = std::get<int64_t>(at.at("time_axis"));
    if (s.size() < 2 || (b != 0 && b != 1) || (t != 0 && t != 1) || b == t) {
      return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": needs rank >= 2 and {batch_axis, time_axis} = {0, 1}"};
    }
    if (node.inputs[1].dtype != DType::kI32 || node.inputs[1].shape != Shape{s[b]}) {
      return Error{ErrorCode::kShape, node.Describe() + ": sequence_lens must be i32[" + std::to_string(s[b]) + "]"};
    }
    return Ok{};
  };
  r.infer = [check](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(check(node, at));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, node.inputs[0].shape}};
  };
  struct Layout {
    uint64_t batch_extent, batch_stride, time_extent, time_stride;
  };
  auto layout = [](const OpNode& node, const Attributes& at) {
    const Shape& s = node.inputs[0].shape;
    const Shape st = ContiguousStridesOf(s);
    const auto b = static_cast<size_t>(std::get<int64_t>(at.at("batch_axis")));
    const auto t = static_cast<size_t>(std::get<int64_t>(at.at("time_axis")));
    return Layout{s[b], st[b], s[t], st[t]};
  };
  r.context = [layout](const OpNode& node, const Attributes& at, const DeviceCaps&) -> Result<hbs::Value> {
    const Layout l = layout(node, at);
    return hbs::Value::object({{"n", node.inputs[0].elements()},
                               {"batch_extent", NonZero(l.batch_extent)},
                               {"batch_stride", NonZero(l.batch_stride)},
                               {"time_extent", NonZero(l.time_extent)},
                               {"time_stride", NonZero(l.time_stride)}});
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps&) {
    return LinearOver(node.inputs[0].elements());
  };
  r.reference = [layout](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const Layout l = layout(node, at);
    RefTensor out = in[0];
    for (uint64_t i = 0; i < out.data.size(); ++i) {
      const uint64_t b = (i / l.batch_stride) % l.batch_extent, t = (i / l.time_stride) % l.time_extent;
      const int64_t len = std::clamp<int64_t>(static_cast<int64_t>(in[1].data[b]), 0, static_cast<int64_t>(l.time_extent));
      const uint64_t src_t = static_cast<int64_t>(t) < len ? static_cast<uint64_t>(len - 1) - t : t;
      out.data[i] = in[0].data[i + src_t * l.time_stride - t * l.time_stride];
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-4, 4, 0, 0};
  auto lens = [](std::vector<double> v) { return RefTensor{DType::kI32, {v.size()}, std::move(v)}; };
  r.test_cases = {
      {{Shape{4, 3, 2}, Shape{3}}, {}, {{1, lens({4, 1, 3})}}, "time 0, batch 1"},
      {{Shape{3, 5}, Shape{3}}, {{"batch_axis", int64_t{0}}, {"time_axis", int64_t{1}}}, {{1, lens({5, 2, 0})}}, "batch 0"},
  };
  return r;
}

// ---- Compress -----------------------------------------------------------------------------------

struct CompressPlan {
  std::vector<uint64_t> selected;  // kept positions along the axis (or of the flattened input)
  uint64_t outer = 1, axis_len = 1, inner = 1;
  Shape out;
};

Result<CompressPlan> PlanCompress(const OpNode& node, const Attributes& at) {
  const RefTensor* cond = node.value(1);
  if (cond->shape.size() != 1) {
    return Error{ErrorCode::kShape, node.Describe() + ": condition must be 1-D, got " + ShapeToString(cond->shape)};
  }
  const Shape& s = node.inputs[0].shape;
  CompressPlan p;
  if (!at.count("axis")) {
    p.axis_len = node.inputs[0].elements();
  } else {
    int64_t axis = std::get<int64_t>(at.at("axis"));
    const auto rank = static_cast<int64_t>(s.size());
    if (axis < -rank || axis >= rank) {
      return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": axis " + std::to_string(axis) +
                                                     " is out of range for rank " + std::to_string(rank)};
    }
    if (axis < 0) axis += rank;
    for (int64_t d = 0; d < rank; ++d) {
      if (d < axis) p.outer *= s[d];
      else if (d == axis) p.axis_len = s[d];
      else p.inner *= s[d];
    }
  }
  // Entries past the axis select nothing; a shorter condition leaves the rest out (ONNX).
  for (uint64_t k = 0; k < std::min<uint64_t>(p.axis_len, cond->data.size()); ++k) {
    if (cond->data[k] != 0) p.selected.push_back(k);
  }
  if (!at.count("axis")) {
    p.out = {p.selected.size()};
  } else {
    p.out = s;
    int64_t axis = std::get<int64_t>(at.at("axis"));
    if (axis < 0) axis += static_cast<int64_t>(s.size());
    p.out[axis] = p.selected.size();
  }
  return p;
}

OpRecord CompressRecord() {
  OpRecord r;
  r.name = "Compress";
  r.opset_min = 9;
  r.family = "misc";
  r.shader = "misc/compress";
  r.summary = "slices along an axis (or elements of the flattened input) where condition is true; "
              "condition must be known at plan time";
  r.min_inputs = r.max_inputs = 2;
  r.host_inputs = {1};
  r.attributes = {{"axis", std::nullopt, true, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(CompressPlan p, PlanCompress(node, at));
    if (p.selected.size() > 65536) {
      return Error{ErrorCode::kLimit, node.Describe() + ": " + std::to_string(p.selected.size()) +
                                          " selected positions; the kernel inlines at most 65536"};
    }
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, p.out}};
  };
  r.context = [](const OpNode& node, const Attributes& at, const DeviceCaps&) -> Result<hbs::Value> {
    const CompressPlan p = *PlanCompress(node, at);
    hbs::Array sel;
    for (uint64_t k : p.selected) sel.push_back(hbs::Value(k));
    if (sel.empty()) sel.push_back(hbs::Value(uint64_t{0}));
    uint64_t n = p.outer * p.selected.size() * p.inner;
    return hbs::Value::object({{"n", n},
                               {"kept", static_cast<uint64_t>(p.selected.size())},
                               {"axis_len", p.axis_len},
                               {"inner", NonZero(p.inner)},
                               {"selected", hbs::Value(std::move(sel))}});
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps&) {
    const CompressPlan p = *PlanCompress(node, at);
    return LinearOver(p.outer * p.selected.size() * p.inner);
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const CompressPlan p = *PlanCompress(node, at);
    RefTensor out{in[0].dtype, p.out, {}};
    for (uint64_t o = 0; o < p.outer; ++o) {
      for (uint64_t k : p.selected) {
        for (uint64_t i = 0; i < p.inner; ++i) out.data.push_back(in[0].data[(o * p.axis_len + k) * p.inner + i]);
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-4, 4, 0, 0};
  auto cond = [](std::vector<double> v) { return RefTensor{DType::kBool, {v.size()}, std::move(v)}; };
  r.test_cases = {
      {{Shape{3, 2}, Shape{3}}, {{"axis", int64_t{0}}}, {{1, cond({0, 1, 1})}}, "axis 0"},
      {{Shape{3, 4, 2}, Shape{3}}, {{"axis", int64_t{-2}}}, {{1, cond({1, 0, 1})}}, "axis -2, short condition"},
      {{Shape{3, 2}, Shape{5}}, {}, {{1, cond({0, 1, 0, 0, 1})}}, "flattened"},
  };
  return r;
}

// ---- Det ------------------------------------------------------------------------------------------

OpRecord DetRecord() {
  OpRecord r;
  r.name = "Det";
  r.opset_min = 11;
  r.family = "misc";
  r.shader = "misc/det";
  r.summary = "determinant of each square matrix in the last two dimensions (M <= 16)";
  r.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    const Shape& s = node.inputs[0].shape;
    if (node.inputs[0].dtype != DType::kF32) {
      return Error{ErrorCode::kUnsupported, node.Describe() + ": Det is implemented for f32"};
    }
    if (s.size() < 2 || s[s.size() - 1] != s[s.size() - 2] || s.back() == 0) {
      return Error{ErrorCode::kShape, node.Describe() + ": input must be [..., M, M], got " + ShapeToString(s)};
    }
    if (s.back() > 16) {
      return Error{ErrorCode::kUnsupported, node.Describe() + ": matrices larger than 16x16 are not implemented "
                                                              "(the kernel keeps one matrix in private memory)"};
    }
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, Shape(s.begin(), s.end() - 2)}};
  };
  r.context = [](const OpNode& node, const Attributes&, const DeviceCaps&) -> Result<hbs::Value> {
    const Shape& s = node.inputs[0].shape;
    return hbs::Value::object({{"m", s.back()}, {"batch", node.inputs[0].elements() / (s.back() * s.back())}});
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps&) {
    const Shape& s = node.inputs[0].shape;
    return LinearOver(node.inputs[0].elements() / std::max<uint64_t>(1, s.back() * s.back()));
  };
  r.reference = [](const OpNode&, const Attributes&, const std::vector<RefTensor>& in) {
    const Shape& s = in[0].shape;
    const uint64_t m = s.back();
    RefTensor out{DType::kF32, Shape(s.begin(), s.end() - 2), {}};
    const uint64_t batch = m == 0 ? 0 : in[0].data.size() / (m * m);
    for (uint64_t b = 0; b < batch; ++b) {
      std::vector<double> a(in[0].data.begin() + static_cast<long>(b * m * m),
                            in[0].data.begin() + static_cast<long>((b + 1) * m * m));
      double det = 1;
      for (uint64_t c = 0; c < m; ++c) {
        uint64_t p = c;
        for (uint64_t r2 = c + 1; r2 < m; ++r2) {
          if (std::fabs(a[r2 * m + c]) > std::fabs(a[p * m + c])) p = r2;
        }
        if (a[p * m + c] == 0) { det = 0; break; }
        if (p != c) {
          for (uint64_t k = 0; k < m; ++k) std::swap(a[p * m + k], a[c * m + k]);
          det = -det;
        }
        det *= a[c * m + c];
        for (uint64_t r2 = c + 1; r2 < m; ++r2) {
          const double f = a[r2 * m + c] / a[c * m + c];
          for (uint64_t k = c; k < m; ++k) a[r2 * m + k] -= f * a[c * m + k];
        }
      }
      out.data.push_back(det);
    }
    if (batch == 0 && out.shape.empty()) out.data = {1.0};
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-2, 2, 1e-5, 1e-4};
  r.test_cases = {
      {{Shape{2, 2}}, {}, {}, "2x2"},
      {{Shape{3, 4, 4}}, {}, {}, "batched 4x4"},
      {{Shape{5, 5}}, {}, {}, "5x5"},
  };
  return r;
}


// ---- GridSample (opset 16, 4-D) -----------------------------------------------------------------
// PyTorch's grid_sampler_2d, which the ONNX tests were generated from: grid (x, y) in [-1, 1]
// maps to input columns and rows (align_corners: -1 and 1 are the corner pixels' centres,
// else their outer edges); padding applies to the sample coordinate (bilinear, nearest) or to
// each of the 4x4 taps (bicubic, A = -0.75); zeros padding reads 0 outside.

struct GridSampleMode {
  int mode = 0;     // 0 bilinear, 1 nearest, 2 bicubic
  int padding = 0;  // 0 zeros, 1 border, 2 reflection
  bool align = false;
};

GridSampleMode GridMode(const Attributes& at) {
  GridSampleMode m;
  const std::string& mode = std::get<std::string>(at.at("mode"));
  const std::string& pad = std::get<std::string>(at.at("padding_mode"));
  m.mode = mode == "nearest" ? 1 : mode == "bicubic" ? 2 : 0;
  m.padding = pad == "border" ? 1 : pad == "reflection" ? 2 : 0;
  m.align = std::get<int64_t>(at.at("align_corners")) != 0;
  return m;
}

double Unnormalize(double g, double size, bool align) {
  return align ? (g + 1) / 2 * (size - 1) : ((g + 1) * size - 1) / 2;
}

double Reflect(double x, double twice_low, double twice_high) {
  if (twice_low == twice_high) return 0;
  const double lo = twice_low / 2, span = (twice_high - twice_low) / 2;
  x = std::fabs(x - lo);
  const double extra = std::fmod(x, span);
  const auto flips = static_cast<int64_t>(std::floor(x / span));
  return flips % 2 == 0 ? extra + lo : span - extra + lo;
}

double PadCoordinate(double x, double size, const GridSampleMode& m) {
  if (m.padding == 1) return std::clamp(x, 0.0, size - 1);
  if (m.padding == 2) {
    x = m.align ? Reflect(x, 0, 2 * (size - 1)) : Reflect(x, -1, 2 * size - 1);
    return std::clamp(x, 0.0, size - 1);
  }
  return x;
}

double CubicWeight(double x) {  // x = distance of the tap, A = -0.75
  const double a = -0.75;
  x = std::fabs(x);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}

OpRecord GridSampleRecord() {
  OpRecord r;
  r.name = "GridSample";
  r.opset_min = 16;
  r.family = "misc";
  r.shader = "misc/gridsample";
  r.summary = "samples X [N, C, H, W] at the grid's normalised (x, y) points: bilinear, nearest or bicubic";
  r.min_inputs = r.max_inputs = 2;
  auto one_of = [](std::vector<std::string> ok) {
    return [ok](const AttrValue& v) {
      for (const std::string& s : ok) {
        if (s == std::get<std::string>(v)) return std::string();
      }
      std::string list;
      for (const std::string& s : ok) list += (list.empty() ? "\"" : ", \"") + s + "\"";
      return "must be one of " + list;
    };
  };
  r.attributes = {{"align_corners", AttrValue(int64_t{0}), false, {}},
                  {"mode", AttrValue(std::string("bilinear")), false, one_of({"bilinear", "nearest", "bicubic"})},
                  {"padding_mode", AttrValue(std::string("zeros")), false, one_of({"zeros", "border", "reflection"})}};
  r.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    const TensorDesc& x = node.inputs[0];
    const TensorDesc& g = node.inputs[1];
    if (x.dtype != DType::kF32 || g.dtype != DType::kF32) {
      return Error{ErrorCode::kUnsupported, node.Describe() + ": GridSample is implemented for f32"};
    }
    if (x.shape.size() != 4 || g.shape.size() != 4 || g.shape[3] != 2 || g.shape[0] != x.shape[0]) {
      return Error{ErrorCode::kShape, node.Describe() + ": needs X [N, C, H, W] and grid [N, H_out, W_out, 2] (4-D only)"};
    }
    const Shape out{x.shape[0], x.shape[1], g.shape[1], g.shape[2]};
    TensorDesc o{DType::kF32, out};
    if (o.elements() >= (uint64_t{1} << 31) || x.elements() >= (uint64_t{1} << 31)) return LimitError(node, o.elements());
    return std::vector<TensorDesc>{o};
  };
  r.context = [](const OpNode& node, const Attributes& at, const DeviceCaps&) -> Result<hbs::Value> {
    const Shape& x = node.inputs[0].shape;
    const Shape& g = node.inputs[1].shape;
    const GridSampleMode m = GridMode(at);
    return hbs::Value::object({{"n", x[0] * x[1] * g[1] * g[2]},
                               {"c", NonZero(x[1])},
                               {"h", x[2]},
                               {"w", x[3]},
                               {"ho", NonZero(g[1])},
                               {"wo", NonZero(g[2])},
                               {"mode", static_cast<long long>(m.mode)},
                               {"padding", static_cast<long long>(m.padding)},
                               {"align", m.align}});
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps&) {
    const Shape& x = node.inputs[0].shape;
    const Shape& g = node.inputs[1].shape;
    return LinearOver(x[0] * x[1] * g[1] * g[2]);
  };
  r.reference = [](const OpNode&, const Attributes& at, const std::vector<RefTensor>& in) {
    const Shape& xs = in[0].shape;
    const Shape& gs = in[1].shape;
    const GridSampleMode m = GridMode(at);
    const uint64_t C = xs[1], H = xs[2], W = xs[3], HO = gs[1], WO = gs[2];
    RefTensor out{DType::kF32, {xs[0], C, HO, WO}, {}};
    for (uint64_t n = 0; n < xs[0]; ++n) {
      for (uint64_t c = 0; c < C; ++c) {
        const double* plane = in[0].data.data() + (n * C + c) * H * W;
        auto at_px = [&](int64_t yy, int64_t xx) {
          if (yy < 0 || xx < 0 || yy >= static_cast<int64_t>(H) || xx >= static_cast<int64_t>(W)) return 0.0;
          return plane[static_cast<uint64_t>(yy) * W + static_cast<uint64_t>(xx)];
        };
        for (uint64_t h = 0; h < HO; ++h) {
          for (uint64_t w = 0; w < WO; ++w) {
            const double* gp = in[1].data.data() + ((n * HO + h) * WO + w) * 2;
            double ix = Unnormalize(gp[0], static_cast<double>(W), m.align);
            double iy = Unnormalize(gp[1], static_cast<double>(H), m.align);
            double v = 0;
            if (m.mode == 2) {
              const double fx = std::floor(ix), fy = std::floor(iy);
              for (int i = 0; i < 4; ++i) {
                for (int j = 0; j < 4; ++j) {
                  const double ty = fy - 1 + i, tx = fx - 1 + j;
                  const double py = PadCoordinate(ty, static_cast<double>(H), m);
                  const double px = PadCoordinate(tx, static_cast<double>(W), m);
                  v += CubicWeight(iy - ty) * CubicWeight(ix - tx) *
                       at_px(static_cast<int64_t>(std::trunc(py)), static_cast<int64_t>(std::trunc(px)));
                }
              }
            } else {
              ix = PadCoordinate(ix, static_cast<double>(W), m);
              iy = PadCoordinate(iy, static_cast<double>(H), m);
              if (m.mode == 1) {
                v = at_px(static_cast<int64_t>(std::nearbyint(iy)), static_cast<int64_t>(std::nearbyint(ix)));
              } else {
                const double x0 = std::floor(ix), y0 = std::floor(iy);
                const double dx = ix - x0, dy = iy - y0;
                const auto X0 = static_cast<int64_t>(x0), Y0 = static_cast<int64_t>(y0);
                v = at_px(Y0, X0) * (1 - dx) * (1 - dy) + at_px(Y0, X0 + 1) * dx * (1 - dy) +
                    at_px(Y0 + 1, X0) * (1 - dx) * dy + at_px(Y0 + 1, X0 + 1) * dx * dy;
              }
            }
            out.data.push_back(v);
          }
        }
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  // Grid points from random data in [-1.2, 1.2] (a little outside, to exercise the padding).
  r.hints = {-1.2, 1.2, 2e-5, 1e-4};
  r.test_cases = {
      {{Shape{1, 2, 4, 5}, Shape{1, 3, 6, 2}}, {}, {}, "bilinear zeros"},
      {{Shape{2, 1, 3, 4}, Shape{2, 2, 5, 2}},
       {{"mode", std::string("bicubic")}, {"padding_mode", std::string("reflection")}},
       {},
       "bicubic reflection"},
      {{Shape{1, 1, 5, 3}, Shape{1, 4, 4, 2}},
       {{"mode", std::string("bilinear")}, {"padding_mode", std::string("border")}, {"align_corners", int64_t{1}}},
       {},
       "bilinear border align_corners"},
      {{Shape{1, 2, 4, 4}, Shape{1, 3, 3, 2}},
       {{"mode", std::string("nearest")}, {"padding_mode", std::string("reflection")}, {"align_corners", int64_t{1}}},
       {},
       "nearest reflection align_corners"},
  };
  return r;
}


// ---- DFT (opset 17) -------------------------------------------------------------------------------
// Naive O(L^2) transform along one signal axis: input [batch, ..., L_in, ..., 1 or 2] (real
// or complex), output [..., L_out, ..., 2]. dft_length (a host input) pads or truncates the
// signal; onesided keeps the first L/2 + 1 frequencies of a real input; inverse scales by 1/L.

struct DftPlan {
  uint64_t outer = 1, in_len = 0, length = 0, out_len = 0, inner = 1;
  bool complex_in = false;
  Shape out;
};

Result<DftPlan> PlanDft(const OpNode& node, const Attributes& at) {
  const Shape& s = node.inputs[0].shape;
  const auto rank = static_cast<int64_t>(s.size());
  if (node.inputs[0].dtype != DType::kF32) return Error{ErrorCode::kUnsupported, node.Describe() + ": DFT is implemented for f32"};
  if (rank < 3 || (s.back() != 1 && s.back() != 2)) {
    return Error{ErrorCode::kShape, node.Describe() + ": input must be [batch, signal..., 1 or 2], got " + ShapeToString(s)};
  }
  int64_t axis = std::get<int64_t>(at.at("axis"));
  if (axis < 0) axis += rank;
  if (axis < 1 || axis > rank - 2) {
    return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": axis must name a signal dimension (1.." +
                                                   std::to_string(rank - 2) + ")"};
  }
  DftPlan p;
  p.complex_in = s.back() == 2;
  p.in_len = s[axis];
  p.length = p.in_len;
  if (node.has_input(1)) {
    const RefTensor* l = node.value(1);
    if (l->data.size() != 1 || l->data[0] < 1) return Error{ErrorCode::kShape, node.Describe() + ": dft_length must be a positive scalar"};
    p.length = static_cast<uint64_t>(l->data[0]);
  }
  const bool onesided = std::get<int64_t>(at.at("onesided")) != 0;
  if (onesided && p.complex_in) {
    return Error{ErrorCode::kUnsupported, node.Describe() + ": onesided needs a real input"};
  }
  p.out_len = onesided ? p.length / 2 + 1 : p.length;
  for (int64_t d = 0; d < rank - 1; ++d) {
    if (d < axis) p.outer *= s[d];
    if (d > axis) p.inner *= s[d];
  }
  p.out = s;
  p.out[axis] = p.out_len;
  p.out.back() = 2;
  return p;
}

OpRecord DftRecord() {
  OpRecord r;
  r.name = "DFT";
  r.opset_min = 17;
  r.family = "misc";
  r.shader = "misc/dft";
  r.summary = "discrete Fourier transform along one signal axis (naive O(L^2)), real or complex input";
  r.min_inputs = 1;
  r.max_inputs = 2;
  r.host_inputs = {1};
  r.attributes = {{"axis", AttrValue(int64_t{1}), false, {}},
                  {"inverse", AttrValue(int64_t{0}), false, {}},
                  {"onesided", AttrValue(int64_t{0}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(DftPlan p, PlanDft(node, at));
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, p.out}};
  };
  r.context = [](const OpNode& node, const Attributes& at, const DeviceCaps&) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(DftPlan p, PlanDft(node, at));
    return hbs::Value::object({{"n", p.outer * p.out_len * p.inner},
                               {"in_len", p.in_len},
                               {"length", p.length},
                               {"out_len", NonZero(p.out_len)},
                               {"inner", NonZero(p.inner)},
                               {"complex", p.complex_in},
                               {"inverse", std::get<int64_t>(at.at("inverse")) != 0},
                               {"scale", FloatLiteral(1.0 / static_cast<double>(p.length))}});
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps&) {
    const DftPlan p = *PlanDft(node, at);
    return LinearOver(p.outer * p.out_len * p.inner);
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const DftPlan p = *PlanDft(node, at);
    const bool inverse = std::get<int64_t>(at.at("inverse")) != 0;
    const uint64_t ch = p.complex_in ? 2 : 1;
    RefTensor out{DType::kF32, p.out, std::vector<double>(p.outer * p.out_len * p.inner * 2)};
    for (uint64_t o = 0; o < p.outer; ++o) {
      for (uint64_t k = 0; k < p.out_len; ++k) {
        for (uint64_t i = 0; i < p.inner; ++i) {
          double re = 0, im = 0;
          for (uint64_t t = 0; t < std::min(p.in_len, p.length); ++t) {
            const uint64_t at_in = ((o * p.in_len + t) * p.inner + i) * ch;
            const double xr = in[0].data[at_in], xi = p.complex_in ? in[0].data[at_in + 1] : 0.0;
            const double a = (inverse ? 2 : -2) * std::numbers::pi * static_cast<double>((k * t) % p.length) /
                             static_cast<double>(p.length);
            re += xr * std::cos(a) - xi * std::sin(a);
            im += xr * std::sin(a) + xi * std::cos(a);
          }
          if (inverse) {
            re /= static_cast<double>(p.length);
            im /= static_cast<double>(p.length);
          }
          const uint64_t at_out = ((o * p.out_len + k) * p.inner + i) * 2;
          out.data[at_out] = re;
          out.data[at_out + 1] = im;
        }
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-2, 2, 2e-5, 1e-4};
  r.test_cases = {
      {{Shape{2, 10, 3, 1}}, {}, {}, "real, axis 1"},
      {{Shape{1, 4, 7, 2}}, {{"axis", int64_t{2}}, {"inverse", int64_t{1}}}, {}, "complex inverse, axis 2"},
      {{Shape{3, 12, 1}, Shape{}}, {{"onesided", int64_t{1}}}, {{1, RefTensor{DType::kI32, {}, {16}}}}, "onesided, padded to 16"},
  };
  return r;
}


// ---- STFT (opset 17) -------------------------------------------------------------------------------
// Frames of frame_length samples every frame_step (both host inputs), optionally windowed,
// each transformed like DFT: output [batch, frames, bins, 2], bins = L/2 + 1 when onesided.

struct StftPlan {
  uint64_t batch = 0, signal = 0, step = 0, length = 0, frames = 0, bins = 0;
  bool complex_in = false;
};

Result<StftPlan> PlanStft(const OpNode& node, const Attributes& at) {
  const Shape& s = node.inputs[0].shape;
  if (node.inputs[0].dtype != DType::kF32) return Error{ErrorCode::kUnsupported, node.Describe() + ": STFT is implemented for f32"};
  if (s.size() != 3 || (s[2] != 1 && s[2] != 2)) {
    return Error{ErrorCode::kShape, node.Describe() + ": signal must be [batch, length, 1 or 2], got " + ShapeToString(s)};
  }
  StftPlan p;
  p.batch = s[0];
  p.signal = s[1];
  p.complex_in = s[2] == 2;
  const RefTensor* step = node.value(1);
  if (step == nullptr || step->data.size() != 1 || step->data[0] < 1) {
    return Error{ErrorCode::kShape, node.Describe() + ": frame_step must be a positive scalar"};
  }
  p.step = static_cast<uint64_t>(step->data[0]);
  if (node.has_input(3)) {
    const RefTensor* l = node.value(3);
    if (l->data.size() != 1 || l->data[0] < 1) return Error{ErrorCode::kShape, node.Describe() + ": frame_length must be a positive scalar"};
    p.length = static_cast<uint64_t>(l->data[0]);
  }
  if (node.has_input(2)) {
    const TensorDesc& w = node.inputs[2];
    if (w.dtype != DType::kF32 || w.shape.size() != 1 || (p.length != 0 && w.shape[0] != p.length)) {
      return Error{ErrorCode::kShape, node.Describe() + ": window must be f32[frame_length], got " + DescToString(w)};
    }
    p.length = w.shape[0];
  }
  if (p.length == 0 || p.length > p.signal) {
    return Error{ErrorCode::kShape, node.Describe() + ": needs frame_length (or a window) of at most the signal length"};
  }
  const bool onesided = std::get<int64_t>(at.at("onesided")) != 0;
  if (onesided && p.complex_in) return Error{ErrorCode::kUnsupported, node.Describe() + ": onesided needs a real signal"};
  p.frames = (p.signal - p.length) / p.step + 1;
  p.bins = onesided ? p.length / 2 + 1 : p.length;
  return p;
}

OpRecord StftRecord() {
  OpRecord r;
  r.name = "STFT";
  r.opset_min = 17;
  r.family = "misc";
  r.shader = "misc/stft";
  r.summary = "short-time Fourier transform: windowed frames, each a naive DFT (frame_step, frame_length known at plan time)";
  r.min_inputs = 2;
  r.max_inputs = 4;
  r.host_inputs = {1, 3};
  r.attributes = {{"onesided", AttrValue(int64_t{1}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(StftPlan p, PlanStft(node, at));
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, {p.batch, p.frames, p.bins, 2}}};
  };
  r.context = [](const OpNode& node, const Attributes& at, const DeviceCaps&) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(StftPlan p, PlanStft(node, at));
    return hbs::Value::object({{"n", p.batch * p.frames * p.bins},
                               {"signal", p.signal},
                               {"step", p.step},
                               {"length", p.length},
                               {"frames", NonZero(p.frames)},
                               {"bins", NonZero(p.bins)},
                               {"complex", p.complex_in},
                               {"windowed", node.has_input(2)}});
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps&) {
    const StftPlan p = *PlanStft(node, at);
    return LinearOver(p.batch * p.frames * p.bins);
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const StftPlan p = *PlanStft(node, at);
    const uint64_t ch = p.complex_in ? 2 : 1;
    RefTensor out{DType::kF32, {p.batch, p.frames, p.bins, 2}, {}};
    for (uint64_t b = 0; b < p.batch; ++b) {
      for (uint64_t f = 0; f < p.frames; ++f) {
        for (uint64_t k = 0; k < p.bins; ++k) {
          double re = 0, im = 0;
          for (uint64_t t = 0; t < p.length; ++t) {
            const uint64_t at_in = (b * p.signal + f * p.step + t) * ch;
            const double w = node.has_input(2) ? in[2].data[t] : 1.0;
            const double xr = in[0].data[at_in] * w, xi = p.complex_in ? in[0].data[at_in + 1] * w : 0.0;
            const double a = -2 * std::numbers::pi * static_cast<double>((k * t) % p.length) / static_cast<double>(p.length);
            re += xr * std::cos(a) - xi * std::sin(a);
            im += xr * std::sin(a) + xi * std::cos(a);
          }
          out.data.push_back(re);
          out.data.push_back(im);
        }
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-2, 2, 3e-5, 1e-4};
  auto scalar = [](double v) { return RefTensor{DType::kI32, {}, {v}}; };
  r.test_cases = {
      {{Shape{2, 40, 1}, Shape{}, std::nullopt, Shape{}}, {}, {{1, scalar(6)}, {3, scalar(10)}}, "real, frame_length"},
      {{Shape{1, 33, 2}, Shape{}, Shape{8}}, {{"onesided", int64_t{0}}}, {{1, scalar(5)}}, "complex, window"},
  };
  return r;
}

}  // namespace

void AddMiscOps(OpTable& table) {
  table.Add(TriluRecord());
  AddFloatClassOps(table);
  table.Add(CastLikeRecord());
  table.Add(EyeLikeRecord());
  table.Add(WindowRecord("HannWindow", Window::kHann));
  table.Add(WindowRecord("HammingWindow", Window::kHamming));
  table.Add(WindowRecord("BlackmanWindow", Window::kBlackman));
  table.Add(GatherNDRecord());
  table.Add(ScatterNDRecord(11, 15, {"none"}));
  table.Add(ScatterNDRecord(16, 17, {"none", "add", "mul"}));
  table.Add(ScatterNDRecord(18, 99, {"none", "add", "mul", "max", "min"}));
  table.Add(ReverseSequenceRecord());
  table.Add(CompressRecord());
  table.Add(DetRecord());
  table.Add(GridSampleRecord());
  table.Add(DftRecord());
  table.Add(StftRecord());
}

}  // namespace alknet::compute::ops
