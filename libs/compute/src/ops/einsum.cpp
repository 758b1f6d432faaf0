// Einsum (opset 12+). Two-operand products without diagonals (batch matmul, attention
// scores, transposed products, inner and outer products) run as one MatMul between
// permuted views and reshapes. Any other equation of the ONNX grammar (explicit or implicit
// output, "...", repeated subscripts = diagonals, sums, 3+ operands) runs on one generic
// kernel, alknet.Einsum (shaders/einsum/einsum.wgsl.hbs):
// one invocation per output element sums the product of the operands over every subscript
// that is not in the output. Operands are read through their strides (a transposed view
// costs nothing); a subscript repeated within an operand steps the sum of its strides.
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "ops/elementwise.h"
#include "ops/families.h"

namespace alknet::compute::ops {

namespace {

constexpr int kEllipsisBase = 256;
constexpr const char* kGeneric = "alknet.Einsum";
constexpr const char* kPermute =
    "alknet.Permute";  // labels of "..." dimensions: 256 + k (k = 0 outermost)

struct Einsum {
  std::vector<int> out;            // output labels, outermost first
  std::vector<int> summed;         // labels summed over, outermost first
  std::map<int, uint64_t> extent;  // per label
  std::vector<std::map<int, int64_t>>
      strides;                           // per operand: label -> stride (0: broadcast/absent)
  std::vector<std::vector<int>> labels;  // per operand, one per dimension
  Shape out_shape;
};

Result<std::vector<int>> ParseTerm(const OpNode& node, const std::string& term, size_t rank,
                                   size_t* ell_rank, bool is_output) {
  std::vector<int> labels;
  const size_t dots = term.find("...");
  size_t letters = 0;
  for (char c : term) letters += std::isalpha(static_cast<unsigned char>(c)) ? 1 : 0;
  if (dots != std::string::npos && term.find("...", dots + 3) != std::string::npos) {
    return Error{ErrorCode::kInvalidAttribute,
                 node.Describe() + ": \"" + term + "\" has more than one \"...\""};
  }
  const size_t expect = letters + (dots == std::string::npos ? 0 : 3);
  if (expect != term.size()) {
    return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": \"" + term +
                                                   "\" holds a character that is neither a "
                                                   "letter nor part of \"...\""};
  }
  size_t ell = 0;
  if (!is_output) {
    if (dots == std::string::npos ? letters != rank : letters > rank) {
      return Error{ErrorCode::kShape, node.Describe() + ": subscripts \"" + term +
                                          "\" do not fit an operand of rank " +
                                          std::to_string(rank)};
    }
    ell = dots == std::string::npos ? 0 : rank - letters;
    *ell_rank = std::max(*ell_rank, ell);
  } else {
    ell = *ell_rank;
  }
  for (size_t p = 0; p < term.size();) {
    if (term.compare(p, 3, "...") == 0) {
      for (size_t k = 0; k < ell; ++k)
        labels.push_back(kEllipsisBase + static_cast<int>(*ell_rank - ell + k));
      p += 3;
    } else {
      labels.push_back(static_cast<unsigned char>(term[p]));
      ++p;
    }
  }
  return labels;
}

Result<Einsum> Parse(const OpNode& node, const Attributes& at) {
  std::string eq;
  for (char c : std::get<std::string>(at.at("equation"))) {
    if (c != ' ') eq += c;
  }
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t p = 0;;) {
    const size_t comma = lhs.find(',', p);
    terms.push_back(lhs.substr(p, comma - p));
    if (comma == std::string::npos) break;
    p = comma + 1;
  }
  if (terms.size() != node.inputs.size()) {
    return Error{ErrorCode::kShape, node.Describe() + ": equation \"" + eq + "\" names " +
                                        std::to_string(terms.size()) + " operands, the node has " +
                                        std::to_string(node.inputs.size())};
  }
  Einsum e;
  size_t ell_rank = 0;
  std::vector<std::vector<int>> in_labels;
  for (size_t j = 0; j < terms.size(); ++j) {
    ALKNET_ASSIGN_OR_RETURN(
        auto l, ParseTerm(node, terms[j], node.inputs[j].shape.size(), &ell_rank, false));
    in_labels.push_back(std::move(l));
  }
  // Extents: letters must agree; "..." dimensions broadcast (size 1 stretches).
  for (size_t j = 0; j < terms.size(); ++j) {
    const Shape& s = node.inputs[j].shape;
    for (size_t d = 0; d < s.size(); ++d) {
      const int l = in_labels[j][d];
      auto [it, fresh] = e.extent.emplace(l, s[d]);
      if (fresh || it->second == s[d]) continue;
      if (l >= kEllipsisBase && (it->second == 1 || s[d] == 1)) {
        it->second = std::max(it->second, s[d]);
        continue;
      }
      return Error{
          ErrorCode::kShape,
          node.Describe() + ": subscript '" +
              (l >= kEllipsisBase ? std::string("...") : std::string(1, static_cast<char>(l))) +
              "' has extents " + std::to_string(it->second) + " and " + std::to_string(s[d])};
    }
  }
  if (arrow != std::string::npos) {
    ALKNET_ASSIGN_OR_RETURN(e.out, ParseTerm(node, eq.substr(arrow + 2), 0, &ell_rank, true));
    std::set<int> seen;
    for (int l : e.out) {
      if (!seen.insert(l).second || !e.extent.count(l)) {
        return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": output subscript '" +
                                                       std::string(1, static_cast<char>(l)) +
                                                       "' is repeated or appears in no input"};
      }
    }
  } else {
    // Implicit output: "..." first, then the letters used exactly once, in alphabetical order.
    std::map<int, int> uses;
    for (const auto& ls : in_labels) {
      for (int l : ls) ++uses[l];
    }
    for (size_t k = 0; k < ell_rank; ++k) e.out.push_back(kEllipsisBase + static_cast<int>(k));
    for (auto [l, n] : uses) {
      if (l < kEllipsisBase && n == 1) e.out.push_back(l);
    }
  }
  e.labels = in_labels;
  for (auto [l, x] : e.extent) {
    if (std::find(e.out.begin(), e.out.end(), l) == e.out.end()) e.summed.push_back(l);
  }
  for (int l : e.out) e.out_shape.push_back(e.extent[l]);
  for (size_t j = 0; j < terms.size(); ++j) {
    std::map<int, int64_t> st;
    const std::vector<int64_t> strides = node.inputs[j].EffectiveStrides();
    for (size_t d = 0; d < in_labels[j].size(); ++d) {
      const int l = in_labels[j][d];
      if (node.inputs[j].shape[d] == 1) continue;  // broadcast (or extent 1): never steps
      st[l] += strides[d];
    }
    e.strides.push_back(std::move(st));
  }
  return e;
}

uint64_t Product(const Einsum& e, const std::vector<int>& labels) {
  uint64_t n = 1;
  for (int l : labels) n *= e.extent.at(l);
  return n;
}

std::string StrideExpr(int64_t s) {
  return s >= 0 ? std::to_string(s) + "u" : "bitcast<u32>(" + std::to_string(s) + "i)";
}

// Index terms innermost first: each splits off one label's coordinate and steps every
// operand that depends on it.
hbs::Value Terms(const Einsum& e, const std::vector<int>& labels) {
  hbs::Array terms;
  for (size_t t = labels.size(); t-- > 0;) {
    const int l = labels[t];
    if (e.extent.at(l) == 1) continue;
    hbs::Array steps;
    for (size_t j = 0; j < e.strides.size(); ++j) {
      auto it = e.strides[j].find(l);
      if (it != e.strides[j].end() && it->second != 0) {
        steps.push_back(hbs::Value::object(
            {{"operand", static_cast<uint64_t>(j)}, {"stride", StrideExpr(it->second)}}));
      }
    }
    terms.push_back(
        hbs::Value::object({{"extent", e.extent.at(l)}, {"steps", hbs::Value(std::move(steps))}}));
  }
  return hbs::Value(std::move(terms));
}

OpRecord GenericRecord() {
  OpRecord r;
  r.name = kGeneric;
  r.family = "internal";
  r.shader = "einsum/einsum";
  r.summary =
      "Einstein summation over any equation by one generic kernel (one invocation per output "
      "element)";
  r.min_inputs = 1;
  r.max_inputs = 7;  // the output takes the eighth storage binding
  r.accepts_views = true;
  r.attributes = {{"equation", std::nullopt, false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    const DType dt = node.inputs[0].dtype;
    for (const TensorDesc& d : node.inputs) {
      if (d.dtype != dt || (dt != DType::kF32 && dt != DType::kF16 && dt != DType::kI32)) {
        return Error{ErrorCode::kUnsupported,
                     node.Describe() + ": Einsum takes operands of one dtype among f32, f16, i32"};
      }
    }
    ALKNET_ASSIGN_OR_RETURN(Einsum e, Parse(node, at));
    return std::vector<TensorDesc>{TensorDesc{dt, e.out_shape}};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps&) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(Einsum e, Parse(node, at));
    hbs::Array offsets;
    for (const TensorDesc& d : node.inputs) offsets.push_back(hbs::Value(d.offset));
    return hbs::Value::object(
        {{"outputs", Product(e, e.out)},
         {"sum_count", Product(e, e.summed)},
         {"operands", static_cast<uint64_t>(node.inputs.size())},
         {"offsets", hbs::Value(std::move(offsets))},
         {"out_terms", Terms(e, e.out)},
         {"sum_terms", Terms(e, e.summed)},
         {"acc_ty", std::string(node.inputs[0].dtype == DType::kI32 ? "i32" : "f32")}});
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps&) {
    Einsum e = *Parse(node, at);
    DispatchPlan p;
    p.invocations = Product(e, e.out);
    return p;
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    Einsum e = *Parse(node, at);
    RefTensor out{in[0].dtype, e.out_shape, {}};
    const uint64_t n_out = Product(e, e.out), n_sum = Product(e, e.summed);
    std::map<int, uint64_t> coord;
    auto split = [&](uint64_t i, const std::vector<int>& labels) {
      for (size_t t = labels.size(); t-- > 0;) {
        coord[labels[t]] = i % e.extent.at(labels[t]);
        i /= e.extent.at(labels[t]);
      }
    };
    for (uint64_t o = 0; o < n_out; ++o) {
      split(o, e.out);
      double acc = 0;
      for (uint64_t s = 0; s < n_sum; ++s) {
        split(s, e.summed);
        double prod = 1;
        for (size_t j = 0; j < in.size(); ++j) {
          int64_t off = 0;
          for (auto [l, st] : e.strides[j]) off += static_cast<int64_t>(coord[l]) * st;
          prod *= in[j].data[static_cast<size_t>(off)];
        }
        acc += prod;
      }
      out.data.push_back(acc);
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.hints = {-1, 1, 1e-5, 1e-5};
  r.test_dtypes = {DType::kF32, DType::kI32};
  auto eq = [](const char* s) { return Attributes{{"equation", AttrValue(std::string(s))}}; };
  r.test_cases = {{{Shape{3, 5, 7}, Shape{3, 7, 4}}, eq("bij, bjk -> bik"), {}, "batch matmul"},
                  {{Shape{2, 5}, Shape{3}, Shape{5, 4}}, eq("ab,c,bd->cad"), {}, "three operands"}};
  return r;
}

// alknet.Permute: a view with the dimensions reordered (output dimension i = input perm[i]).
Result<Shape> PermutedShape(const OpNode& node, const std::vector<int64_t>& perm) {
  const Shape& s = node.inputs[0].shape;
  std::vector<bool> seen(s.size(), false);
  if (perm.size() != s.size()) {
    return Error{ErrorCode::kShape, node.Describe() + ": perm has " + std::to_string(perm.size()) +
                                        " entries for rank " + std::to_string(s.size())};
  }
  Shape out;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(s.size()) || seen[p]) {
      return Error{ErrorCode::kShape, node.Describe() + ": perm is not a permutation of 0.." +
                                          std::to_string(s.size() - 1)};
    }
    seen[p] = true;
    out.push_back(s[p]);
  }
  return out;
}

OpRecord PermuteRecord() {
  OpRecord r;
  r.name = kPermute;
  r.family = "internal";
  r.summary = "the input with its dimensions reordered (a strided view; no copy)";
  r.accepts_views = true;
  r.attributes = {{"perm", AttrValue(std::vector<int64_t>{}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(Shape s,
                            PermutedShape(node, std::get<std::vector<int64_t>>(at.at("perm"))));
    return std::vector<TensorDesc>{TensorDesc{node.inputs[0].dtype, s}};
  };
  r.view = [](const OpNode& node, const Attributes& at) -> Result<TensorDesc> {
    const auto& perm = std::get<std::vector<int64_t>>(at.at("perm"));
    ALKNET_ASSIGN_OR_RETURN(Shape s, PermutedShape(node, perm));
    const std::vector<int64_t> in = node.inputs[0].EffectiveStrides();
    TensorDesc d{node.inputs[0].dtype, s};
    for (int64_t p : perm) d.strides.push_back(in[p]);
    d.offset = node.inputs[0].offset;
    return d;
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const auto& perm = std::get<std::vector<int64_t>>(at.at("perm"));
    RefTensor out{in[0].dtype, *PermutedShape(node, perm), {}};
    const Shape in_strides = ContiguousStridesOf(in[0].shape);
    const Shape out_strides = ContiguousStridesOf(out.shape);
    for (uint64_t i = 0; i < in[0].data.size(); ++i) {
      uint64_t src = 0;
      for (size_t d = 0; d < perm.size(); ++d)
        src += ((i / out_strides[d]) % out.shape[d]) * in_strides[perm[d]];
      out.data.push_back(in[0].data[src]);
    }
    return std::vector<RefTensor>{std::move(out)};
  };
  r.test_cases = {
      {{Shape{2, 3, 4}}, {{"perm", AttrValue(std::vector<int64_t>{2, 0, 1})}}, {}, "rotate"}};
  return r;
}

// Two operands whose every subscript is a batch (both operands and the output), a row (A
// and the output), a column (B and the output) or a contraction (A and B only), without
// diagonals or broadcasting, are one batched MatMul between permutations and reshapes:
// the tiled matrix kernel instead of one invocation per output walking K.
std::optional<Graph> AsMatMul(const OpNode& node, const Einsum& e) {
  if (node.inputs.size() != 2 || node.inputs[0].dtype != DType::kF32 ||
      node.inputs[1].dtype != DType::kF32) {
    return std::nullopt;
  }
  const auto& la = e.labels[0];
  const auto& lb = e.labels[1];
  auto has = [](const std::vector<int>& v, int l) {
    return std::find(v.begin(), v.end(), l) != v.end();
  };
  for (const auto* ls : {&la, &lb}) {
    for (size_t i = 0; i < ls->size(); ++i) {
      if (std::count(ls->begin(), ls->end(), (*ls)[i]) != 1) return std::nullopt;  // a diagonal
    }
  }
  std::vector<int> batch, m, n, k;
  for (int l : e.out) {
    if (has(la, l) && has(lb, l))
      batch.push_back(l);
    else if (has(la, l))
      m.push_back(l);
    else
      n.push_back(l);
  }
  for (int l : la) {
    if (has(lb, l) && !has(e.out, l))
      k.push_back(l);
    else if (!has(lb, l) && !has(e.out, l))
      return std::nullopt;  // summed in A alone
  }
  for (int l : lb) {
    if (!has(la, l) && !has(e.out, l)) return std::nullopt;
  }
  // Shared subscripts must have equal extents (no broadcasting of "..." here).
  for (size_t j = 0; j < 2; ++j) {
    for (size_t d = 0; d < e.labels[j].size(); ++d) {
      if (node.inputs[j].shape[d] != e.extent.at(e.labels[j][d])) return std::nullopt;
    }
  }
  auto extent = [&](const std::vector<int>& ls) {
    int64_t x = 1;
    for (int l : ls) x *= static_cast<int64_t>(e.extent.at(l));
    return x;
  };
  auto cat = [](std::vector<int> a, const std::vector<int>& b, const std::vector<int>& c) {
    a.insert(a.end(), b.begin(), b.end());
    a.insert(a.end(), c.begin(), c.end());
    return a;
  };
  Graph g(2);
  auto permute = [&](int v, const std::vector<int>& from, const std::vector<int>& to) {
    std::vector<int64_t> perm;
    bool identity = true;
    for (size_t i = 0; i < to.size(); ++i) {
      perm.push_back(std::find(from.begin(), from.end(), to[i]) - from.begin());
      identity = identity && perm.back() == static_cast<int64_t>(i);
    }
    return identity ? v : g.Add(kPermute, {v}, {{"perm", AttrValue(perm)}});
  };
  auto reshape = [&](int v, std::vector<double> dims) {
    const int out = g.Add("Reshape", {v, Graph::kAbsent});
    g.nodes.back().input_values = {nullptr, std::make_shared<const RefTensor>(RefTensor{
                                                DType::kI32, {dims.size()}, std::move(dims)})};
    return out;
  };
  const double nb = static_cast<double>(extent(batch)), nm = static_cast<double>(extent(m)),
               nn = static_cast<double>(extent(n)), nk = static_cast<double>(extent(k));
  const int a = reshape(permute(0, la, cat(batch, m, k)), {nb, nm, nk});
  const int b = reshape(permute(1, lb, cat(batch, k, n)), {nb, nk, nn});
  const int c = g.Add("MatMul", {a, b});
  std::vector<double> dims;
  for (int l : cat(batch, m, n)) dims.push_back(static_cast<double>(e.extent.at(l)));
  g.outputs = {permute(reshape(c, dims), cat(batch, m, n), e.out)};
  return g;
}

OpRecord EinsumRecord() {
  OpRecord r = GenericRecord();
  r.name = "Einsum";
  r.opset_min = 12;
  r.family = "einsum";
  r.shader.clear();
  r.context = nullptr;
  r.dispatch = nullptr;
  r.summary =
      "Einstein summation: batched-matmul shapes run as MatMul, any other equation (diagonals, "
      "\"...\" broadcasting, implicit output, 3+ operands) by a generic kernel";
  r.decompose = [](const OpNode& node, const Attributes& at) -> Result<Graph> {
    ALKNET_ASSIGN_OR_RETURN(Einsum e, Parse(node, at));
    if (auto g = AsMatMul(node, e)) return *g;
    Graph g(static_cast<int>(node.inputs.size()));
    std::vector<int> ins;
    for (int i = 0; i < g.num_inputs; ++i) ins.push_back(i);
    g.outputs = {g.Add(kGeneric, ins, at)};
    return g;
  };
  auto eq = [](const char* s) { return Attributes{{"equation", AttrValue(std::string(s))}}; };
  r.test_cases = {{{Shape{2, 3, 5, 7}, Shape{2, 3, 6, 7}},
                   eq("bhid,bhjd->bhij"),
                   {},
                   "attention scores (MatMul)"},
                  {{Shape{5, 3}, Shape{4, 5}}, eq("ij,ki->jk"), {}, "permuted product (MatMul)"},
                  {{Shape{3, 5, 5}}, eq("...ii->...i"), {}, "batch diagonal (generic)"}};
  r.test_dtypes = {DType::kF32};
  return r;
}

}  // namespace

void AddEinsumOps(OpTable& table) {
  table.Add(GenericRecord());
  table.Add(PermuteRecord());
  table.Add(EinsumRecord());
}

}  // namespace alknet::compute::ops
