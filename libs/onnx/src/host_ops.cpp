// Host ops: nodes whose output shapes depend on their input values, computed on the host
// (session_impl.h says how plans stop before them). Each takes float64 values in device dtypes
// (int64 carried as i32, docs/adr/0002-onnx-dtypes.md) and bounds its output by its inputs.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>

#include "session_impl.h"

namespace alknet::onnx {

using namespace detail;

namespace {

// Errors name the problem; the caller prefixes the node (NodeInfo::Where).
Error NodeError(const NodeInfo& n, ErrorCode code, const std::string& what) {
  (void)n;
  return Error{code, what};
}

const RefTensor* Input(const std::vector<const RefTensor*>& inputs, size_t i) {
  return i < inputs.size() ? inputs[i] : nullptr;
}

// NonZero (opset 9+): the indices of the non-zero elements, shape [rank, count], row-major order.
Result<std::vector<RefTensor>> NonZero(const NodeInfo& n,
                                       const std::vector<const RefTensor*>& inputs) {
  const RefTensor* x = Input(inputs, 0);
  if (x == nullptr) return NodeError(n, ErrorCode::kInvalidArgument, "needs input 0");
  const size_t rank = x->shape.size();
  std::vector<uint64_t> hits;
  for (uint64_t i = 0; i < x->data.size(); ++i) {
    if (x->data[i] != 0) hits.push_back(i);
  }
  RefTensor out;
  out.dtype = DType::kI32;
  out.shape = {rank, hits.size()};
  out.data.resize(rank * hits.size());
  for (size_t k = 0; k < hits.size(); ++k) {
    uint64_t rest = hits[k];
    for (size_t d = rank; d-- > 0;) {
      const uint64_t dim = x->shape[d];
      out.data[d * hits.size() + k] = static_cast<double>(dim == 0 ? 0 : rest % dim);
      rest = dim == 0 ? 0 : rest / dim;
    }
  }
  return std::vector<RefTensor>{std::move(out)};
}

// The value of an optional scalar input, or `fallback` when it is absent or empty.
Result<double> ScalarOr(const NodeInfo& n, const RefTensor* t, const char* what, double fallback) {
  if (t == nullptr || t->data.empty()) return fallback;
  if (t->data.size() != 1) {
    return NodeError(
        n, ErrorCode::kShape,
        std::string(what) + " must hold one value, it holds " + std::to_string(t->data.size()));
  }
  return t->data[0];
}

// NonMaxSuppression (opset 10+): per batch and class, the boxes above score_threshold in
// descending score order (ties: the lower box index first), each kept when its
// intersection-over-union with every box kept before it is at most iou_threshold, at most
// max_output_boxes_per_class of them. Output [selected, 3]: (batch, class, box).
Result<std::vector<RefTensor>> NonMaxSuppression(const NodeInfo& n,
                                                 const std::vector<const RefTensor*>& inputs) {
  const RefTensor* boxes = Input(inputs, 0);
  const RefTensor* scores = Input(inputs, 1);
  if (boxes == nullptr || scores == nullptr)
    return NodeError(n, ErrorCode::kInvalidArgument, "needs boxes (input 0) and scores (input 1)");
  if (boxes->shape.size() != 3 || boxes->shape[2] != 4) {
    return NodeError(
        n, ErrorCode::kShape,
        "boxes must be [batches, boxes, 4], got " + compute::ShapeToString(boxes->shape));
  }
  const uint64_t batches = boxes->shape[0], count = boxes->shape[1];
  if (scores->shape.size() != 3 || scores->shape[0] != batches || scores->shape[2] != count) {
    return NodeError(n, ErrorCode::kShape,
                     "scores must be [" + std::to_string(batches) + ", classes, " +
                         std::to_string(count) + "] for boxes " +
                         compute::ShapeToString(boxes->shape) + ", got " +
                         compute::ShapeToString(scores->shape));
  }
  const uint64_t classes = scores->shape[1];
  ALKNET_ASSIGN_OR_RETURN(double max_out,
                          ScalarOr(n, Input(inputs, 2), "max_output_boxes_per_class", 0));
  ALKNET_ASSIGN_OR_RETURN(double iou_max, ScalarOr(n, Input(inputs, 3), "iou_threshold", 0));
  const RefTensor* st = Input(inputs, 4);
  const bool has_threshold = st != nullptr && !st->data.empty();
  ALKNET_ASSIGN_OR_RETURN(double score_min, ScalarOr(n, st, "score_threshold", 0));
  int64_t center = 0;
  if (auto it = n.attrs.find("center_point_box"); it != n.attrs.end()) {
    const int64_t* v = std::get_if<int64_t>(&it->second);
    if (v == nullptr || (*v != 0 && *v != 1)) {
      return NodeError(n, ErrorCode::kInvalidAttribute, "center_point_box must be 0 or 1");
    }
    center = *v;
  }
  for (const auto& [name, value] : n.attrs) {
    if (name != "center_point_box") {
      return NodeError(n, ErrorCode::kInvalidAttribute, "unknown attribute '" + name + "'");
    }
  }
  if (!(iou_max >= -1e300) || !(score_min >= -1e300 || !has_threshold)) {
    return NodeError(n, ErrorCode::kInvalidArgument, "the thresholds must be numbers");
  }
  const uint64_t per_class =
      !(max_out > 0) ? 0 : static_cast<uint64_t>(std::min<double>(max_out, double(count)));

  struct Box {
    double y1, x1, y2, x2, area;
  };
  auto box_at = [&](uint64_t b, uint64_t i) {
    const double* p = boxes->data.data() + (b * count + i) * 4;
    Box r{};
    if (center == 1) {  // [x_center, y_center, width, height]
      r.x1 = p[0] - p[2] / 2;
      r.x2 = p[0] + p[2] / 2;
      r.y1 = p[1] - p[3] / 2;
      r.y2 = p[1] + p[3] / 2;
    } else {  // [y1, x1, y2, x2], either diagonal
      r.y1 = std::min(p[0], p[2]);
      r.y2 = std::max(p[0], p[2]);
      r.x1 = std::min(p[1], p[3]);
      r.x2 = std::max(p[1], p[3]);
    }
    r.area = (r.y2 - r.y1) * (r.x2 - r.x1);
    return r;
  };
  auto iou = [](const Box& a, const Box& b) {
    const double h = std::min(a.y2, b.y2) - std::max(a.y1, b.y1);
    const double w = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
    if (!(h > 0 && w > 0) || !(a.area > 0) || !(b.area > 0)) return 0.0;
    const double inter = h * w;
    return inter / (a.area + b.area - inter);
  };

  std::vector<double> rows;
  std::vector<uint64_t> order;
  std::vector<Box> kept;
  for (uint64_t b = 0; b < batches && per_class > 0; ++b) {
    for (uint64_t c = 0; c < classes; ++c) {
      const double* s = scores->data.data() + (b * classes + c) * count;
      order.clear();
      for (uint64_t i = 0; i < count; ++i) {
        if (!has_threshold || s[i] > score_min) order.push_back(i);
      }
      std::stable_sort(order.begin(), order.end(),
                       [s](uint64_t x, uint64_t y) { return s[x] > s[y]; });
      kept.clear();
      for (uint64_t i : order) {
        if (kept.size() >= per_class) break;
        const Box candidate = box_at(b, i);
        bool keep = true;
        for (const Box& k : kept) {
          if (iou(k, candidate) > iou_max) {
            keep = false;
            break;
          }
        }
        if (!keep) continue;
        kept.push_back(candidate);
        rows.insert(rows.end(), {double(b), double(c), double(i)});
      }
    }
  }
  RefTensor out;
  out.dtype = DType::kI32;
  out.shape = {rows.size() / 3, 3};
  out.data = std::move(rows);
  return std::vector<RefTensor>{std::move(out)};
}

// Unique (opset 11+): the distinct elements of X (no axis: X flattened) or distinct slices
// along `axis`, sorted ascending (lexicographically for slices) or in order of first
// occurrence (sorted = 0); outputs Y, indices (first occurrence), inverse_indices, counts.
Result<std::vector<RefTensor>> Unique(const NodeInfo& n,
                                      const std::vector<const RefTensor*>& inputs) {
  const RefTensor* x = Input(inputs, 0);
  if (x == nullptr) return NodeError(n, ErrorCode::kInvalidArgument, "needs input 0");
  int64_t sorted = 1;
  std::optional<int64_t> axis;
  for (const auto& [name, value] : n.attrs) {
    const int64_t* v = std::get_if<int64_t>(&value);
    if (v == nullptr || (name != "sorted" && name != "axis")) {
      return NodeError(n, ErrorCode::kInvalidAttribute,
                       "unknown or mistyped attribute '" + name + "' (Unique takes axis, sorted)");
    }
    if (name == "sorted") sorted = *v;
    if (name == "axis") axis = *v;
  }
  for (double v : x->data) {
    if (std::isnan(v)) {
      return NodeError(n, ErrorCode::kUnsupported, "X holds NaN, which Unique cannot order");
    }
  }
  const auto rank = static_cast<int64_t>(x->shape.size());
  // The slices: outer x count x inner, compared along the middle index.
  uint64_t outer = 1, count = x->data.size(), inner = 1;
  int64_t a = 0;
  if (axis) {
    a = *axis < 0 ? *axis + rank : *axis;
    if (a < 0 || a >= rank) {
      return NodeError(
          n, ErrorCode::kInvalidAttribute,
          "axis " + std::to_string(*axis) + " is out of range for rank " + std::to_string(rank));
    }
    count = x->shape[a];
    for (int64_t d = 0; d < a; ++d) outer *= x->shape[d];
    for (int64_t d = a + 1; d < rank; ++d) inner *= x->shape[d];
  }
  auto slice = [&](uint64_t k) {
    std::vector<double> v;
    v.reserve(outer * inner);
    for (uint64_t o = 0; o < outer; ++o) {
      for (uint64_t i = 0; i < inner; ++i) v.push_back(x->data[(o * count + k) * inner + i]);
    }
    return v;
  };
  std::vector<std::vector<double>> slices(count);
  for (uint64_t k = 0; k < count; ++k) slices[k] = slice(k);
  // Distinct slices in first-occurrence order, then sorted when asked.
  std::map<std::vector<double>, uint64_t> seen;  // slice -> position in `first`
  std::vector<uint64_t> first;                   // index in X of each distinct slice
  std::vector<uint64_t> inverse(count);
  for (uint64_t k = 0; k < count; ++k) {
    auto [it, added] = seen.try_emplace(slices[k], first.size());
    if (added) first.push_back(k);
    inverse[k] = it->second;
  }
  std::vector<uint64_t> order(first.size());  // output position -> distinct id
  for (uint64_t u = 0; u < order.size(); ++u) order[u] = u;
  if (sorted != 0) {
    std::sort(order.begin(), order.end(),
              [&](uint64_t p, uint64_t q) { return slices[first[p]] < slices[first[q]]; });
  }
  std::vector<uint64_t> rank_of(order.size());
  for (uint64_t u = 0; u < order.size(); ++u) rank_of[order[u]] = u;
  const uint64_t uniq = order.size();
  RefTensor y{x->dtype, x->shape, {}};
  if (axis) {
    y.shape[a] = uniq;
  } else {
    y.shape = {uniq};
  }
  y.data.resize(outer * uniq * inner);
  RefTensor idx{DType::kI32, {uniq}, std::vector<double>(uniq)};
  RefTensor cnt{DType::kI32, {uniq}, std::vector<double>(uniq, 0)};
  RefTensor inv{DType::kI32, {count}, std::vector<double>(count)};
  for (uint64_t u = 0; u < uniq; ++u) {
    const std::vector<double>& v = slices[first[order[u]]];
    for (uint64_t o = 0; o < outer; ++o) {
      for (uint64_t i = 0; i < inner; ++i) y.data[(o * uniq + u) * inner + i] = v[o * inner + i];
    }
    idx.data[u] = static_cast<double>(first[order[u]]);
  }
  for (uint64_t k = 0; k < count; ++k) {
    inv.data[k] = static_cast<double>(rank_of[inverse[k]]);
    cnt.data[rank_of[inverse[k]]] += 1;
  }
  return std::vector<RefTensor>{std::move(y), std::move(idx), std::move(inv), std::move(cnt)};
}

// TfIdfVectorizer (opset 9): counts the n-grams of `pool_int64s` in each row of X (1-D [C] or
// 2-D [N, C], integers; strings are refused by the loader), an n-gram of length n being the
// elements at start, start + (s + 1), ..., start + (n - 1)(s + 1) for each skip s in
// 0..max_skip_count (unigrams counted once). ngram_counts[i] is where the (i + 1)-grams begin in
// the pool; ngram_indexes maps the k-th pool n-gram to its output column. Y is float
// [E] or [N, E], E = max(ngram_indexes) + 1: TF the counts, IDF weights[k] (1 without
// weights) where the count is non-zero, TFIDF count * weights[k].
Result<std::vector<RefTensor>> TfIdfVectorizer(const NodeInfo& n,
                                               const std::vector<const RefTensor*>& inputs) {
  const RefTensor* x = Input(inputs, 0);
  if (x == nullptr) return NodeError(n, ErrorCode::kInvalidArgument, "needs input 0");
  if (x->shape.size() != 1 && x->shape.size() != 2) {
    return NodeError(n, ErrorCode::kShape,
                     "X must be [C] or [N, C], got " + compute::ShapeToString(x->shape));
  }
  std::string mode;
  int64_t min_n = -1, max_n = -1, max_skip = -1;
  std::vector<int64_t> counts, indexes, pool;
  std::optional<std::vector<double>> weights;
  for (const auto& [name, value] : n.attrs) {
    const int64_t* i = std::get_if<int64_t>(&value);
    const std::vector<int64_t>* ints = std::get_if<std::vector<int64_t>>(&value);
    bool ok = false;
    if (name == "mode" && std::holds_alternative<std::string>(value)) {
      mode = std::get<std::string>(value);
      ok = true;
    } else if (name == "min_gram_length" && i != nullptr) {
      min_n = *i;
      ok = true;
    } else if (name == "max_gram_length" && i != nullptr) {
      max_n = *i;
      ok = true;
    } else if (name == "max_skip_count" && i != nullptr) {
      max_skip = *i;
      ok = true;
    } else if (name == "ngram_counts" && ints != nullptr) {
      counts = *ints;
      ok = true;
    } else if (name == "ngram_indexes" && ints != nullptr) {
      indexes = *ints;
      ok = true;
    } else if (name == "pool_int64s" && ints != nullptr) {
      pool = *ints;
      ok = true;
    } else if (name == "weights") {
      if (const auto* f = std::get_if<std::vector<double>>(&value)) {
        weights = *f;
        ok = true;
      } else if (ints != nullptr && ints->empty()) {
        weights = std::vector<double>{};
        ok = true;
      }
    } else if (name == "pool_strings") {
      return NodeError(n, ErrorCode::kUnsupported,
                       "pool_strings (string n-grams) is not supported; use pool_int64s");
    }
    if (!ok) {
      return NodeError(n, ErrorCode::kInvalidAttribute,
                       "unknown or mistyped attribute '" + name +
                           "' (TfIdfVectorizer takes mode, min_gram_length, max_gram_length, "
                           "max_skip_count, ngram_counts, ngram_indexes, pool_int64s, weights)");
    }
  }
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF") {
    return NodeError(n, ErrorCode::kInvalidAttribute,
                     "mode must be TF, IDF or TFIDF, got '" + mode + "'");
  }
  constexpr int64_t kMaxGram = 64;
  if (min_n < 1 || max_n < min_n || max_n > kMaxGram) {
    return NodeError(n, ErrorCode::kInvalidAttribute,
                     "need 1 <= min_gram_length <= max_gram_length <= " + std::to_string(kMaxGram) +
                         ", got " + std::to_string(min_n) + " and " + std::to_string(max_n));
  }
  if (max_skip < 0 || max_skip > (int64_t{1} << 20)) {
    return NodeError(n, ErrorCode::kInvalidAttribute,
                     "max_skip_count must be in [0, 2^20], got " + std::to_string(max_skip));
  }
  // The pool's n-grams, grouped by length: group g (length g + 1) spans
  // pool[counts[g], counts[g + 1]).
  const auto pool_size = static_cast<int64_t>(pool.size());
  std::map<std::vector<int64_t>, int64_t> column;  // n-gram -> output column
  std::vector<bool> has_length(static_cast<size_t>(max_n) + 1, false);
  int64_t ngram_no = 0, width = 0;
  for (size_t g = 0; g < counts.size(); ++g) {
    const int64_t begin = counts[g];
    const int64_t end = g + 1 < counts.size() ? counts[g + 1] : pool_size;
    const auto len = static_cast<int64_t>(g) + 1;
    if (begin < 0 || end < begin || end > pool_size || (end - begin) % len != 0) {
      return NodeError(n, ErrorCode::kInvalidAttribute,
                       "ngram_counts[" + std::to_string(g) + "] = " + std::to_string(begin) +
                           " does not start a whole number of " + std::to_string(len) +
                           "-grams within pool_int64s (" + std::to_string(pool_size) + " values)");
    }
    for (int64_t at = begin; at < end; at += len, ++ngram_no) {
      if (ngram_no >= static_cast<int64_t>(indexes.size())) {
        return NodeError(n, ErrorCode::kInvalidAttribute,
                         "ngram_indexes has " + std::to_string(indexes.size()) +
                             " entries, fewer than the pool's n-grams");
      }
      const int64_t col = indexes[ngram_no];
      constexpr int64_t kMaxWidth = int64_t{1} << 24;
      if (col < 0 || col >= kMaxWidth) {
        return NodeError(n, ErrorCode::kInvalidAttribute,
                         "ngram_indexes[" + std::to_string(ngram_no) +
                             "] = " + std::to_string(col) + " is out of range [0, 2^24)");
      }
      width = std::max(width, col + 1);
      if (len <= max_n) {
        has_length[len] = true;
        column.emplace(std::vector<int64_t>(pool.begin() + at, pool.begin() + at + len), col);
      }
    }
  }
  if (ngram_no != static_cast<int64_t>(indexes.size())) {
    return NodeError(n, ErrorCode::kInvalidAttribute,
                     "ngram_indexes has " + std::to_string(indexes.size()) +
                         " entries, the pool holds " + std::to_string(ngram_no) + " n-grams");
  }
  // The weight of each output column (the weight of the n-gram mapped to it).
  std::vector<double> col_weight(static_cast<size_t>(width), 1.0);
  if (weights && !weights->empty()) {
    if (weights->size() != indexes.size()) {
      return NodeError(n, ErrorCode::kInvalidAttribute,
                       "weights has " + std::to_string(weights->size()) +
                           " entries, ngram_indexes " + std::to_string(indexes.size()));
    }
    for (size_t k = 0; k < indexes.size(); ++k) col_weight[indexes[k]] = (*weights)[k];
  }
  const bool batched = x->shape.size() == 2;
  const uint64_t rows = batched ? x->shape[0] : 1;
  const uint64_t cols = batched ? x->shape[1] : x->shape[0];
  constexpr uint64_t kMaxOut = uint64_t{1} << 26;
  if (rows != 0 && static_cast<uint64_t>(width) > kMaxOut / rows) {
    return NodeError(n, ErrorCode::kShape,
                     "Y would hold " + std::to_string(rows) + " x " + std::to_string(width) +
                         " values, more than 2^26");
  }
  RefTensor y;
  y.dtype = DType::kF32;
  y.shape = batched ? compute::Shape{rows, static_cast<uint64_t>(width)}
                    : compute::Shape{static_cast<uint64_t>(width)};
  y.data.assign(rows * static_cast<uint64_t>(width), 0.0);
  std::vector<int64_t> gram;
  constexpr uint64_t kMaxLookups = uint64_t{1} << 26;  // bounds the time a hostile X can take
  uint64_t lookups = 0;
  for (uint64_t r = 0; r < rows; ++r) {
    const double* row = x->data.data() + r * cols;
    double* out = y.data.data() + r * static_cast<uint64_t>(width);
    for (int64_t len = min_n; len <= max_n; ++len) {
      if (!has_length[len]) continue;
      const int64_t skips = len == 1 ? 0 : max_skip;
      for (int64_t s = 0; s <= skips; ++s) {
        const uint64_t step = static_cast<uint64_t>(s) + 1;
        const uint64_t span = (static_cast<uint64_t>(len) - 1) * step;  // last - first
        if (span >= cols) break;  // longer skips fit no n-gram either
        lookups += cols - span;
        if (lookups > kMaxLookups) {
          return NodeError(n, ErrorCode::kInvalidArgument,
                           "X " + compute::ShapeToString(x->shape) +
                               " with these gram lengths and skips needs more than 2^26 n-gram "
                               "lookups");
        }
        for (uint64_t start = 0; start + span < cols; ++start) {
          gram.clear();
          for (int64_t k = 0; k < len; ++k) {
            gram.push_back(static_cast<int64_t>(row[start + static_cast<uint64_t>(k) * step]));
          }
          if (auto it = column.find(gram); it != column.end()) out[it->second] += 1;
        }
      }
    }
    for (int64_t c = 0; c < width; ++c) {
      if (mode == "IDF") {
        out[c] = out[c] > 0 ? col_weight[c] : 0;
      } else if (mode == "TFIDF") {
        out[c] *= col_weight[c];
      }
    }
  }
  return std::vector<RefTensor>{std::move(y)};
}

// The table: ops computed on the host (opset_min: the first opset whose semantics we follow).
const HostOp kHostOps[] = {
    {"", "NonZero", 9, &NonZero},
    {"", "NonMaxSuppression", 10, &NonMaxSuppression},
    {"", "Unique", 11, &Unique},
    {"", "TfIdfVectorizer", 9, &TfIdfVectorizer},
};

}  // namespace

namespace detail {

const HostOp* FindHostOp(const std::string& domain, const std::string& op, int opset) {
  for (const HostOp& h : kHostOps) {
    if (domain == h.domain && op == h.op && opset >= h.opset_min) return &h;
  }
  return nullptr;
}

}  // namespace detail

Result<std::vector<Value>> Session::Impl::RunHostNode(const Program& p, const NodeInfo& n,
                                                      const std::vector<Value>& env) {
  std::vector<Value> read;  // the inputs, known on the host
  read.reserve(n.inputs.size());
  std::vector<const RefTensor*> args;
  for (const std::string& name : n.inputs) {
    if (name.empty()) {
      args.push_back(nullptr);
      continue;
    }
    ALKNET_ASSIGN_OR_RETURN(Value v, InputValue(p, n, env, name));
    ALKNET_ASSIGN_OR_RETURN(Value known, ToHostKnown(v));
    read.push_back(std::move(known));
    args.push_back(read.back().known.get());
  }
  auto ran = n.host_op->run(n, args);
  if (!ran.ok()) {
    return Error{ran.error().code, n.Where(model) + ": " + ran.error().message};
  }
  std::vector<Value> outs;
  for (size_t o = 0; o < ran->size(); ++o) {
    RefTensor& r = (*ran)[o];
    Value v;
    if (o < n.outputs.size()) v.name = n.outputs[o];
    auto t = value_types.find(v.name);
    v.type = t != value_types.end() ? t->second : ElemType::kUndefined;
    if (v.type == ElemType::kUndefined) {
      if (auto e = ElemTypeOf(r.dtype)) v.type = *e;
    }
    v.dtype = r.dtype;
    v.shape = r.shape;
    v.known = std::make_shared<const RefTensor>(std::move(r));
    outs.push_back(std::move(v));
  }
  return outs;
}

}  // namespace alknet::onnx
