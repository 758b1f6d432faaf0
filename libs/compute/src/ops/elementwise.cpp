#include "ops/elementwise.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ops/shape_params.h"

namespace alknet::compute::ops {

Result<std::vector<TensorDesc>> InferElementwise(const OpNode& node, const DTypeSet& allowed,
                                                 OutType out, bool same_dtype) {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const TensorDesc& in = node.inputs[i];
    if (in.absent)
      continue;  // an optional input left out (Clip's min): neither typed nor broadcast
    if (std::find(allowed.begin(), allowed.end(), in.dtype) == allowed.end()) {
      std::string ok;
      for (DType d : allowed) ok += (ok.empty() ? "" : ", ") + std::string(DTypeName(d));
      return Error{ErrorCode::kUnsupported, node.Describe() + ": input " + std::to_string(i) +
                                                " has dtype " + DTypeName(in.dtype) + "; " +
                                                node.op_type + " supports " + ok};
    }
    if (same_dtype && in.dtype != node.inputs[0].dtype) {
      return Error{ErrorCode::kUnsupported,
                   node.Describe() + ": inputs must share one dtype (ONNX type constraint T)"};
    }
    shapes.push_back(in.shape);
  }
  ALKNET_ASSIGN_OR_RETURN(Shape shape, BroadcastShapes(shapes));
  TensorDesc o;
  o.dtype = out == OutType::kBool ? DType::kBool : node.inputs[0].dtype;
  o.shape = shape;
  return std::vector<TensorDesc>{o};
}

namespace {

// Operand strides aligned to the output's rank; broadcast dimensions get stride 0.
std::vector<int64_t> AlignedStrides(const TensorDesc& in, const Shape& out) {
  std::vector<int64_t> s(out.size(), 0);
  const std::vector<int64_t> st = in.EffectiveStrides();
  const size_t lead = out.size() - in.shape.size();
  for (size_t k = 0; k < in.shape.size(); ++k) {
    s[lead + k] = in.shape[k] == 1 ? 0 : st[k];
  }
  return s;
}

bool UseVec4(const OpNode& node, uint64_t n) {
  if (n % 4 != 0 || n == 0) return false;
  for (const TensorDesc& in : node.inputs) {
    if (in.absent) continue;
    if (!in.contiguous() || in.shape != node.outputs[0].shape) return false;
  }
  return true;
}

}  // namespace

namespace {

// The index math of one elementwise node: output extents after dropping extent-1 dimensions
// and coalescing, each operand's strides over them, and which operands need no index math.
struct ElementwiseLayout {
  uint64_t n = 0;  // invocation units: elements, or vec4s
  bool vec4 = false;
  std::vector<uint64_t> extents;              // outermost first
  std::vector<std::vector<int64_t>> strides;  // per operand, parallel to extents
  std::vector<bool> direct;                   // per operand
};

Result<ElementwiseLayout> LayoutOf(const OpNode& node) {
  const Shape& out = node.outputs.at(0).shape;
  const uint64_t n = node.outputs[0].elements();
  if (n >= (uint64_t{1} << 32)) {
    return Error{ErrorCode::kLimit, node.Describe() + ": " + std::to_string(n) +
                                        " elements exceed 32-bit shader indexing"};
  }
  ElementwiseLayout l;
  // Dimensions of extent 1 carry nothing; the others, with each operand's stride.
  l.strides.resize(node.inputs.size());
  std::vector<std::vector<int64_t>> aligned;
  for (const TensorDesc& in : node.inputs) aligned.push_back(AlignedStrides(in, out));
  const Shape out_strides = ContiguousStridesOf(out);
  // An operand laid out exactly like the output (offset 0, row-major over the same shape) is
  // read at the output index itself, without any index math.
  std::vector<bool> same_layout(node.inputs.size(), true);
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 1) continue;
    l.extents.push_back(out[d]);
    for (size_t j = 0; j < node.inputs.size(); ++j) {
      l.strides[j].push_back(aligned[j][d]);
      if (aligned[j][d] != static_cast<int64_t>(out_strides[d])) same_layout[j] = false;
    }
  }
  // Coalesce: an outer dimension folds into the next inner one when every operand steps
  // through both as one run (stride_outer == stride_inner * extent_inner). Fewer dimensions,
  // fewer divisions per element.
  for (size_t d = l.extents.size(); d-- > 1;) {
    bool fold = true;
    for (size_t j = 0; j < l.strides.size(); ++j) {
      if (l.strides[j][d - 1] != l.strides[j][d] * static_cast<int64_t>(l.extents[d])) fold = false;
    }
    if (!fold) continue;
    l.extents[d - 1] *= l.extents[d];
    l.extents.erase(l.extents.begin() + static_cast<long>(d));
    for (auto& st : l.strides) {
      st[d - 1] = st[d];
      st.erase(st.begin() + static_cast<long>(d));
    }
  }
  l.vec4 = UseVec4(node, n);
  l.n = l.vec4 ? n / 4 : n;
  for (size_t j = 0; j < node.inputs.size(); ++j) {
    l.direct.push_back((node.inputs[j].offset == 0 && same_layout[j]) || l.vec4);
  }
  return l;
}

// Word k of the parameter block as a WGSL expression (shaders/common/elementwise: `prm.w`
// is an array of vec4<u32>, the layout uniform buffers require).
std::string ParamWord(size_t k) { return "prm.w[" + std::to_string(k / 4) + "]." + "xyzw"[k % 4]; }

// Builds the template data and, in parameter-block mode, the block's words in the order the
// data refers to them. Literal mode renders every number into the source (`7u`).
struct ElementwiseBuild {
  hbs::Value ctx;
  std::vector<uint32_t> words;
};

Result<ElementwiseBuild> BuildElementwise(const OpNode& node, const Attributes& attrs,
                                          const DeviceCaps& caps, bool from_params) {
  ALKNET_ASSIGN_OR_RETURN(ElementwiseLayout l, LayoutOf(node));
  ElementwiseBuild b;
  // A u32 value: a word of the block, or a literal.
  auto value = [&](uint64_t v) {
    if (!from_params) return std::to_string(v) + "u";
    b.words.push_back(static_cast<uint32_t>(v));
    return ParamWord(b.words.size() - 1);
  };
  const std::string limit = value(l.n);
  hbs::Array operands;
  for (size_t j = 0; j < node.inputs.size(); ++j) {
    const bool direct = l.direct[j];
    hbs::Array terms;
    std::string offset;
    if (!direct && !node.inputs[j].absent) {
      offset = value(node.inputs[j].offset);
      for (size_t d = l.extents.size(); d-- > 0;) {  // innermost first
        const int64_t stride = l.strides[j][d];
        // Strides are non-negative element counts below 2^32 (the output has fewer elements).
        terms.push_back(
            hbs::Value::object({{"extent", d == 0 ? std::string() : value(l.extents[d])},
                                {"stride", stride == 0   ? std::string()
                                           : from_params ? value(static_cast<uint32_t>(stride))
                                                         : std::to_string(stride) + "u"},
                                {"zero", stride == 0},
                                {"last", d == 0}}));
      }
    }
    operands.push_back(hbs::Value::object({{"index", static_cast<long long>(j)},
                                           {"absent", node.inputs[j].absent},
                                           {"direct", direct},
                                           {"offset", offset},
                                           {"terms", hbs::Value(std::move(terms))}}));
  }
  b.ctx = hbs::Value::object({{"n", l.n},
                              {"limit", limit},
                              {"vec", l.vec4 ? 4 : 1},
                              {"per_invocation", std::max<uint32_t>(1, caps.items_per_invocation)},
                              {"operands", hbs::Value(std::move(operands))}});
  // Attributes become template data: floats as ready-made literals (or words of the block,
  // bitcast), ints and strings as is (they select code).
  for (const auto& [name, v] : attrs) {
    if (v.index() == 0) b.ctx.as_object().set(name, static_cast<long long>(std::get<int64_t>(v)));
    if (v.index() == 1) {
      const double f = std::get<double>(v);
      if (from_params) {
        const float f32 = static_cast<float>(f);
        uint32_t bits = 0;
        std::memcpy(&bits, &f32, sizeof bits);
        b.words.push_back(bits);
        b.ctx.as_object().set(name, "bitcast<f32>(" + ParamWord(b.words.size() - 1) + ")");
      } else {
        b.ctx.as_object().set(name, FloatLiteral(f));
      }
    }
    if (v.index() == 2) b.ctx.as_object().set(name, std::get<std::string>(v));
  }
  if (from_params) {
    b.ctx.as_object().set("param_block", true);
    b.ctx.as_object().set("param_vec4s", static_cast<uint64_t>((b.words.size() + 3) / 4));
    b.words.resize((b.words.size() + 3) / 4 * 4, 0);
  } else {
    b.ctx.as_object().set("param_block", false);
  }
  return b;
}

}  // namespace

Result<hbs::Value> ElementwiseContext(const OpNode& node, const Attributes& attrs,
                                      const DeviceCaps& caps) {
  ALKNET_ASSIGN_OR_RETURN(ElementwiseBuild b, BuildElementwise(node, attrs, caps, false));
  return std::move(b.ctx);
}

DispatchPlan ElementwiseDispatch(const OpNode& node, const DeviceCaps& caps) {
  const uint64_t n = node.outputs.at(0).elements();
  const uint64_t units = UseVec4(node, n) ? n / 4 : n;
  const uint64_t per = std::max<uint32_t>(1, caps.items_per_invocation);
  DispatchPlan p;
  p.kind = DispatchPlan::Kind::kLinear;
  p.invocations = (units + per - 1) / per;
  return p;
}

std::vector<RefTensor> ElementwiseReference(const OpNode& node, const Attributes& attrs,
                                            const std::vector<RefTensor>& inputs,
                                            const ScalarRef& f) {
  const TensorDesc& od = node.outputs.at(0);
  RefTensor out{od.dtype, od.shape, std::vector<double>(od.elements())};
  const size_t rank = od.shape.size();
  std::vector<std::vector<int64_t>> strides;
  for (const RefTensor& in : inputs)
    strides.push_back(AlignedStrides(TensorDesc{in.dtype, in.shape}, od.shape));
  std::vector<uint64_t> coord(rank, 0);
  std::vector<double> vals(inputs.size());
  for (uint64_t i = 0; i < out.data.size(); ++i) {
    for (size_t j = 0; j < inputs.size(); ++j) {
      if (j < node.inputs.size() && node.inputs[j].absent) {
        vals[j] = std::nan("");  // records with optional inputs read node.has_input(j)
        continue;
      }
      int64_t off = 0;
      for (size_t d = 0; d < rank; ++d) off += static_cast<int64_t>(coord[d]) * strides[j][d];
      vals[j] = inputs[j].data[static_cast<size_t>(off)];
    }
    double v = f(vals, attrs);
    // Integer outputs behave like the GPU's 32-bit integers: truncated, then wrapped.
    if (od.dtype == DType::kI32 || od.dtype == DType::kU32) {
      v = std::fmod(std::trunc(v), 4294967296.0);
      if (v < 0) v += 4294967296.0;
      if (od.dtype == DType::kI32 && v >= 2147483648.0) v -= 4294967296.0;
    }
    out.data[i] = v;
    for (size_t d = rank; d-- > 0;) {
      if (++coord[d] < od.shape[d]) break;
      coord[d] = 0;
    }
  }
  return {std::move(out)};
}

OpRecord ElementwiseRecord(std::string name, std::string shader, std::string summary,
                           DTypeSet allowed, OutType out, ScalarRef ref, uint32_t min_inputs,
                           uint32_t max_inputs) {
  OpRecord r;
  r.name = std::move(name);
  r.shader = std::move(shader);
  r.summary = std::move(summary);
  r.family = r.shader.substr(0, r.shader.find('/'));
  r.accepts_views = true;
  r.min_inputs = min_inputs;
  r.max_inputs = max_inputs;
  r.infer = [allowed, out](const OpNode& node, const Attributes&) {
    return InferElementwise(node, allowed, out);
  };
  // CPU adapters: sizes, strides and float attributes in the parameter block (ShapesInParams).
  r.context = [](const OpNode& node, const Attributes& attrs,
                 const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(ElementwiseBuild b,
                            BuildElementwise(node, attrs, caps, ShapesInParams(caps)));
    return std::move(b.ctx);
  };
  r.params = [](const OpNode& node, const Attributes& attrs,
                const DeviceCaps& caps) -> Result<std::vector<uint32_t>> {
    if (!ShapesInParams(caps)) return std::vector<uint32_t>{};
    ALKNET_ASSIGN_OR_RETURN(ElementwiseBuild b, BuildElementwise(node, attrs, caps, true));
    return std::move(b.words);
  };
  r.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps& caps) {
    return ElementwiseDispatch(node, caps);
  };
  r.reference = [ref](const OpNode& node, const Attributes& attrs,
                      const std::vector<RefTensor>& in) {
    return ElementwiseReference(node, attrs, in, ref);
  };
  r.test_dtypes = allowed;
  return r;
}

std::string FloatLiteral(double v) {
  // The shortest decimal that reads back as the same f32 and does not overflow f32 on the
  // shader side (WGSL parses it as an abstract float, so 3.40282347e+38 would be rejected).
  const float f = static_cast<float>(v);
  char buf[40];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, static_cast<double>(f));
    const double back = std::strtod(buf, nullptr);
    if (static_cast<float>(back) == f && std::fabs(back) <= FLT_MAX) break;
  }
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

std::string FiniteFloat(const AttrValue& v) {
  if (v.index() == 1 && !std::isfinite(std::get<double>(v))) return "must be finite";
  return {};
}

double ToF32(double v) { return static_cast<double>(static_cast<float>(v)); }

}  // namespace alknet::compute::ops
