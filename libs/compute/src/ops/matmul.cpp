// MatMul (numpy semantics: batched, broadcast batch dimensions, 1-D operands promoted) and
// Gemm (transA/transB, alpha, beta, C broadcast to [M, N]). Both render
// shaders/linalg/matmul.wgsl.hbs.
#include <algorithm>

#include "ops/elementwise.h"
#include "ops/families.h"

namespace alknet::compute::ops {

namespace {

struct MatMulDims {
  uint64_t M = 0, N = 0, K = 0, batch = 1;
  Shape batch_shape;  // broadcast batch dimensions of the output
  Shape a_batch, b_batch;
};

Result<MatMulDims> MatMulShapes(const OpNode& node, Shape* out_shape) {
  const Shape& a = node.inputs[0].shape;
  const Shape& b = node.inputs[1].shape;
  if (a.empty() || b.empty()) {
    return Error{ErrorCode::kShape, node.Describe() + ": MatMul operands must have rank >= 1"};
  }
  Shape a2 = a.size() == 1 ? Shape{1, a[0]} : a;
  Shape b2 = b.size() == 1 ? Shape{b[0], 1} : b;
  MatMulDims d;
  d.M = a2[a2.size() - 2];
  d.K = a2.back();
  d.N = b2.back();
  if (b2[b2.size() - 2] != d.K) {
    return Error{ErrorCode::kShape, node.Describe() + ": inner dimensions differ: A has K = " +
                                        std::to_string(d.K) + ", B has " + std::to_string(b2[b2.size() - 2])};
  }
  d.a_batch.assign(a2.begin(), a2.end() - 2);
  d.b_batch.assign(b2.begin(), b2.end() - 2);
  ALKNET_ASSIGN_OR_RETURN(d.batch_shape, BroadcastShapes({d.a_batch, d.b_batch}));
  for (uint64_t x : d.batch_shape) d.batch *= x;
  if (out_shape) {
    *out_shape = d.batch_shape;
    if (a.size() > 1) out_shape->push_back(d.M);
    if (b.size() > 1) out_shape->push_back(d.N);
  }
  return d;
}

// Index terms mapping a flat batch index to an operand's matrix offset (elements).
hbs::Value BatchOperand(int index, const Shape& out_batch, const Shape& operand_batch, uint64_t matrix) {
  hbs::Array terms;
  const size_t lead = out_batch.size() - operand_batch.size();
  uint64_t stride = matrix;
  std::vector<std::pair<uint64_t, uint64_t>> dims;  // (extent, stride), outermost first
  std::vector<uint64_t> strides(out_batch.size(), 0);
  for (size_t k = operand_batch.size(); k-- > 0;) {
    strides[lead + k] = operand_batch[k] == 1 ? 0 : stride;
    stride *= operand_batch[k];
  }
  std::vector<size_t> kept;
  for (size_t k = 0; k < out_batch.size(); ++k) {
    if (out_batch[k] != 1) kept.push_back(k);
  }
  for (size_t t = kept.size(); t-- > 0;) {
    const size_t k = kept[t];
    terms.push_back(hbs::Value::object({{"extent", out_batch[k]},
                                        {"stride", strides[k]},
                                        {"zero", strides[k] == 0},
                                        {"last", t == 0}}));
  }
  return hbs::Value::object({{"index", index}, {"direct", false}, {"offset", 0}, {"terms", hbs::Value(std::move(terms))}});
}

std::vector<double> MatMulRef(const std::vector<double>& a, const std::vector<double>& b, uint64_t M,
                              uint64_t N, uint64_t K, uint64_t a_off, uint64_t b_off, bool ta, bool tb) {
  std::vector<double> out(M * N, 0.0);
  for (uint64_t m = 0; m < M; ++m) {
    for (uint64_t n = 0; n < N; ++n) {
      double s = 0;
      for (uint64_t k = 0; k < K; ++k) {
        const double av = ta ? a[a_off + k * M + m] : a[a_off + m * K + k];
        const double bv = tb ? b[b_off + n * K + k] : b[b_off + k * N + n];
        s += av * bv;
      }
      out[m * N + n] = s;
    }
  }
  return out;
}

Result<std::vector<TensorDesc>> RequireF32Contiguous(const OpNode& node) {
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i].dtype != DType::kF32) {
      return Error{ErrorCode::kUnsupported, node.Describe() + ": input " + std::to_string(i) + " is " +
                                                DTypeName(node.inputs[i].dtype) + "; " + node.op_type +
                                                " is implemented for f32 only"};
    }
    if (!node.inputs[i].contiguous()) {
      return Error{ErrorCode::kUnsupported, node.Describe() + ": input " + std::to_string(i) +
                                                " is a strided view; " + node.op_type +
                                                " reads contiguous operands (the executor copies views first)"};
    }
  }
  return std::vector<TensorDesc>{};
}

DispatchPlan GridPlan(uint64_t M, uint64_t N, uint64_t batch) {
  DispatchPlan p;
  p.kind = DispatchPlan::Kind::kGrid;
  p.groups = {(N + 63) / 64, (M + 63) / 64, batch};
  p.workgroup_size = {16, 16, 1};
  return p;
}

}  // namespace

void AddLinalgOps(OpTable& table) {
  OpRecord mm;
  mm.name = "MatMul";
  mm.opset_min = 1;
  mm.family = "linalg";
  mm.shader = "linalg/matmul";
  mm.summary = "matrix product, numpy semantics (batched, broadcast batch dimensions)";
  mm.min_inputs = mm.max_inputs = 2;
  mm.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(RequireF32Contiguous(node));
    Shape out;
    ALKNET_TRY(MatMulShapes(node, &out));
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, out}};
  };
  mm.context = [](const OpNode& node, const Attributes&, const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(MatMulDims d, MatMulShapes(node, nullptr));
    hbs::Array batch_ops{BatchOperand(0, d.batch_shape, d.a_batch, d.M * d.K),
                         BatchOperand(1, d.batch_shape, d.b_batch, d.K * d.N)};
    return hbs::Value::object({{"M", d.M}, {"N", d.N}, {"K", d.K},
                               {"a_vec4", d.K % 4 == 0}, {"b_vec4", d.N % 4 == 0}, {"out_vec4", d.N % 4 == 0},
                               {"trans_a", false}, {"trans_b", false}, {"scaled", false}, {"has_c", false},
                               {"shared_tiles", caps.shared_memory_tiles},
                               {"batch_operands", hbs::Value(std::move(batch_ops))}});
  };
  mm.dispatch = [](const OpNode& node, const Attributes&, const DeviceCaps&) {
    auto d = MatMulShapes(node, nullptr);
    return GridPlan(d->M, d->N, d->batch);
  };
  mm.reference = [](const OpNode& node, const Attributes&, const std::vector<RefTensor>& in) {
    MatMulDims d = *MatMulShapes(node, nullptr);
    RefTensor out{DType::kF32, node.outputs[0].shape, {}};
    // Walk the output batch index, mapping it into each operand with broadcasting.
    std::vector<uint64_t> coord(d.batch_shape.size(), 0);
    for (uint64_t bi = 0; bi < d.batch; ++bi) {
      auto offset_of = [&](const Shape& ob, uint64_t matrix) {
        uint64_t off = 0, stride = matrix;
        const size_t lead = d.batch_shape.size() - ob.size();
        for (size_t k = ob.size(); k-- > 0;) {
          if (ob[k] != 1) off += coord[lead + k] * stride;
          stride *= ob[k];
        }
        return off;
      };
      auto r = MatMulRef(in[0].data, in[1].data, d.M, d.N, d.K, offset_of(d.a_batch, d.M * d.K),
                         offset_of(d.b_batch, d.K * d.N), false, false);
      out.data.insert(out.data.end(), r.begin(), r.end());
      for (size_t k = coord.size(); k-- > 0;) {
        if (++coord[k] < d.batch_shape[k]) break;
        coord[k] = 0;
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  mm.hints = {-1, 1, 1e-4, 1e-4};
  table.Add(std::move(mm));

  // Gemm: Y = alpha * A' B' + beta * C, A' = transA ? A^T : A (2-D only).
  OpRecord gemm;
  gemm.name = "Gemm";
  gemm.opset_min = 11;  // C optional from opset 11
  gemm.family = "linalg";
  gemm.shader = "linalg/matmul";
  gemm.summary = "alpha * op(A) op(B) + beta * C, C broadcast to [M, N]";
  gemm.min_inputs = 2;
  gemm.max_inputs = 3;
  auto flag = [](const AttrValue& v) {
    const int64_t f = std::get<int64_t>(v);
    return f == 0 || f == 1 ? std::string() : std::string("must be 0 or 1");
  };
  gemm.attributes = {{"alpha", AttrValue(1.0), false, &FiniteFloat},
                     {"beta", AttrValue(1.0), false, &FiniteFloat},
                     {"transA", AttrValue(int64_t{0}), false, flag},
                     {"transB", AttrValue(int64_t{0}), false, flag}};
  struct GemmDims {
    uint64_t M, N, K;
    int64_t c_rs = 0, c_cs = 0;
  };
  auto gemm_dims = [](const OpNode& node, const Attributes& at) -> Result<GemmDims> {
    const Shape& a = node.inputs[0].shape;
    const Shape& b = node.inputs[1].shape;
    if (a.size() != 2 || b.size() != 2) {
      return Error{ErrorCode::kShape, node.Describe() + ": Gemm needs 2-D A and B"};
    }
    const bool ta = std::get<int64_t>(at.at("transA")) == 1, tb = std::get<int64_t>(at.at("transB")) == 1;
    GemmDims d{ta ? a[1] : a[0], tb ? b[0] : b[1], ta ? a[0] : a[1]};
    const uint64_t kb = tb ? b[1] : b[0];
    if (kb != d.K) {
      return Error{ErrorCode::kShape, node.Describe() + ": inner dimensions differ: op(A) has K = " +
                                          std::to_string(d.K) + ", op(B) has " + std::to_string(kb)};
    }
    if (node.inputs.size() == 3) {
      const Shape& c = node.inputs[2].shape;
      auto r = BroadcastShapes({c, Shape{d.M, d.N}});
      if (!r.ok() || *r != Shape{d.M, d.N} || c.size() > 2) {
        return Error{ErrorCode::kShape, node.Describe() + ": C " + ShapeToString(c) +
                                            " does not broadcast to [M, N] = " + ShapeToString({d.M, d.N})};
      }
      Shape cs = ContiguousStridesOf(c);
      if (c.size() == 2) {
        d.c_rs = c[0] == 1 ? 0 : static_cast<int64_t>(cs[0]);
        d.c_cs = c[1] == 1 ? 0 : 1;
      } else if (c.size() == 1) {
        d.c_cs = c[0] == 1 ? 0 : 1;
      }
    }
    return d;
  };
  gemm.infer = [gemm_dims](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_TRY(RequireF32Contiguous(node));
    ALKNET_ASSIGN_OR_RETURN(GemmDims d, gemm_dims(node, at));
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, {d.M, d.N}}};
  };
  gemm.context = [gemm_dims](const OpNode& node, const Attributes& at, const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(GemmDims d, gemm_dims(node, at));
    const bool ta = std::get<int64_t>(at.at("transA")) == 1, tb = std::get<int64_t>(at.at("transB")) == 1;
    const double alpha = std::get<double>(at.at("alpha")), beta = std::get<double>(at.at("beta"));
    hbs::Array batch_ops{BatchOperand(0, {}, {}, 0), BatchOperand(1, {}, {}, 0)};
    return hbs::Value::object({{"M", d.M}, {"N", d.N}, {"K", d.K},
                               {"a_vec4", !ta && d.K % 4 == 0}, {"b_vec4", !tb && d.N % 4 == 0},
                               {"out_vec4", d.N % 4 == 0}, {"trans_a", ta}, {"trans_b", tb},
                               {"scaled", alpha != 1.0}, {"alpha", FloatLiteral(alpha)},
                               {"has_c", node.inputs.size() == 3}, {"beta", FloatLiteral(beta)},
                               {"c_offset", 0}, {"c_row_stride", d.c_rs}, {"c_col_stride", d.c_cs},
                               {"shared_tiles", caps.shared_memory_tiles},
                               {"batch_operands", hbs::Value(std::move(batch_ops))}});
  };
  gemm.dispatch = [gemm_dims](const OpNode& node, const Attributes& at, const DeviceCaps&) {
    GemmDims d = *gemm_dims(node, at);
    return GridPlan(d.M, d.N, 1);
  };
  gemm.reference = [gemm_dims](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    GemmDims d = *gemm_dims(node, at);
    const bool ta = std::get<int64_t>(at.at("transA")) == 1, tb = std::get<int64_t>(at.at("transB")) == 1;
    const double alpha = ToF32(std::get<double>(at.at("alpha"))), beta = ToF32(std::get<double>(at.at("beta")));
    RefTensor out{DType::kF32, {d.M, d.N}, MatMulRef(in[0].data, in[1].data, d.M, d.N, d.K, 0, 0, ta, tb)};
    for (uint64_t m = 0; m < d.M; ++m) {
      for (uint64_t n = 0; n < d.N; ++n) {
        double& v = out.data[m * d.N + n];
        v *= alpha;
        if (in.size() == 3) v += beta * in[2].data[m * d.c_rs + n * d.c_cs];
      }
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  gemm.hints = {-1, 1, 1e-4, 1e-4};
  table.Add(std::move(gemm));
}

}  // namespace alknet::compute::ops
