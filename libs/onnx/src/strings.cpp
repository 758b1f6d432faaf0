// String graphs (docs/adr/0015-onnx-strings-on-the-host.md): a model holding STRING values runs
// on the host, node by node, over host tensors in their ONNX types. WGSL has no strings, and the
// ops that take or make them (Cast/CastLike to and from STRING, StringNormalizer) are text
// processing with no device counterpart. Other ops in such a graph are refused by name.
#include <onnx/onnx-data_pb.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>

#include "proto.h"
#include "session_impl.h"

namespace alknet::onnx::detail {

namespace {

bool IsStringOp(const std::string& op) {
  return op == "Cast" || op == "CastLike" || op == "StringNormalizer" || op == "Identity";
}

template <typename T>
T LoadAt(const Tensor& t, uint64_t i) {
  T v;
  std::memcpy(&v, t.data.data() + i * sizeof(T), sizeof(T));
  return v;
}
template <typename T>
void StoreAt(Tensor& t, uint64_t i, T v) {
  std::memcpy(t.data.data() + i * sizeof(T), &v, sizeof(T));
}

// numpy's str of a float32 / float64 (the ONNX test data's): the shortest digits that read
// back as the same value, positional for 1e-4 <= |v| < 1e16 with at least one digit after the
// point ("3.0", "0.0001"), else scientific ("1e-05", "1.5e+20"); ONNX's NaN, INF, -INF.
template <typename F>
std::string FormatFloat(F v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "INF" : "-INF";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  const std::string sci(buf, r.ptr);  // [-]d[.ddd]e(+|-)XX
  const size_t e = sci.find('e');
  const int exp = std::atoi(sci.c_str() + e + 1);
  if (exp < -4 || exp >= 16) return sci;
  const bool neg = sci[0] == '-';
  std::string digits;
  for (size_t i = neg ? 1 : 0; i < e; ++i)
    if (sci[i] != '.') digits += sci[i];
  std::string whole, frac;
  if (exp >= 0) {
    const size_t w = static_cast<size_t>(exp) + 1;
    if (digits.size() < w) digits.append(w - digits.size(), '0');
    whole = digits.substr(0, w);
    frac = digits.substr(w);
  } else {
    whole = "0";
    frac = std::string(static_cast<size_t>(-exp - 1), '0') + digits;
  }
  if (frac.empty()) frac = "0";
  return (neg ? "-" : "") + whole + "." + frac;
}

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// A float from text: decimal or scientific notation, or NaN / INF / +INF / -INF (any case,
// "infinity" too), nothing else around it. `F` is the target type, parsed directly (no
// double rounding through float64).
template <typename F>
std::optional<F> ParseFloat(std::string_view s) {
  bool neg = false;
  std::string_view body = s;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  if (EqualsNoCase(body, "nan")) return std::numeric_limits<F>::quiet_NaN();
  if (EqualsNoCase(body, "inf") || EqualsNoCase(body, "infinity")) {
    return neg ? -std::numeric_limits<F>::infinity() : std::numeric_limits<F>::infinity();
  }
  if (body.empty() || body[0] == '+' || body[0] == '-') return std::nullopt;
  F v{};
  auto r = std::from_chars(body.data(), body.data() + body.size(), v);
  if (r.ec == std::errc::result_out_of_range) {
    // Beyond the type's range: infinity or zero, as strtod would give.
    const double d = std::strtod(std::string(body).c_str(), nullptr);
    v = static_cast<F>(d);
  } else if (r.ec != std::errc() || r.ptr != body.data() + body.size()) {
    return std::nullopt;
  }
  return neg ? -v : v;
}

std::optional<int64_t> ParseInt(std::string_view s) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  int64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// Cast of `x` to `to` where x or `to` is STRING.
Result<Tensor> CastStrings(const Tensor& x, ElemType to, const std::string& where) {
  Tensor out;
  out.type = to;
  out.shape = x.shape;
  const uint64_t n = x.elements();
  if (x.type == to) return x;
  if (to == ElemType::kString) {
    out.strings.resize(n);
    for (uint64_t i = 0; i < n; ++i) {
      std::string& s = out.strings[i];
      switch (x.type) {
        case ElemType::kFloat: s = FormatFloat(LoadAt<float>(x, i)); break;
        case ElemType::kDouble: s = FormatFloat(LoadAt<double>(x, i)); break;
        case ElemType::kInt8: s = std::to_string(LoadAt<int8_t>(x, i)); break;
        case ElemType::kUint8: s = std::to_string(LoadAt<uint8_t>(x, i)); break;
        case ElemType::kInt16: s = std::to_string(LoadAt<int16_t>(x, i)); break;
        case ElemType::kUint16: s = std::to_string(LoadAt<uint16_t>(x, i)); break;
        case ElemType::kInt32: s = std::to_string(LoadAt<int32_t>(x, i)); break;
        case ElemType::kUint32: s = std::to_string(LoadAt<uint32_t>(x, i)); break;
        case ElemType::kInt64: s = std::to_string(LoadAt<int64_t>(x, i)); break;
        case ElemType::kUint64: s = std::to_string(LoadAt<uint64_t>(x, i)); break;
        default:
          return Error{ErrorCode::kUnsupported,
                       where + ": Cast from " + ElemTypeName(x.type) +
                           " to string is not supported (float, double and the integer types "
                           "are; ONNX leaves the text of the others open)"};
      }
    }
    return out;
  }
  if (x.type != ElemType::kString) {
    return Error{ErrorCode::kUnsupported, where + ": Cast from " + ElemTypeName(x.type) + " to " +
                                              ElemTypeName(to) +
                                              " in a graph holding strings (such graphs run on "
                                              "the host, which casts only to and from string)"};
  }
  auto bad = [&](uint64_t i) {
    return Error{ErrorCode::kInvalidArgument, where + ": element " + std::to_string(i) + " '" +
                                                  x.strings[i].substr(0, 64) + "' is not a " +
                                                  ElemTypeName(to)};
  };
  const size_t es = ElemSize(to);
  if (es == 0 || to == ElemType::kBool) {
    return Error{ErrorCode::kUnsupported,
                 where + ": Cast from string to " + ElemTypeName(to) + " is not supported"};
  }
  out.data.resize(n * es);
  std::vector<double> wide;  // float16 / bfloat16: rounded by FromRef
  for (uint64_t i = 0; i < n; ++i) {
    const std::string& s = x.strings[i];
    switch (to) {
      case ElemType::kFloat: {
        auto v = ParseFloat<float>(s);
        if (!v) return bad(i);
        StoreAt(out, i, *v);
        break;
      }
      case ElemType::kDouble:
      case ElemType::kFloat16:
      case ElemType::kBFloat16: {
        auto v = ParseFloat<double>(s);
        if (!v) return bad(i);
        if (to == ElemType::kDouble) {
          StoreAt(out, i, *v);
        } else {
          wide.push_back(*v);
        }
        break;
      }
      default: {
        auto v = ParseInt(s);
        if (!v) return bad(i);
        auto fits = [&](int64_t lo, int64_t hi) { return *v >= lo && *v <= hi; };
        bool ok = true;
        switch (to) {
          case ElemType::kInt8:
            ok = fits(INT8_MIN, INT8_MAX);
            StoreAt(out, i, int8_t(*v));
            break;
          case ElemType::kUint8:
            ok = fits(0, UINT8_MAX);
            StoreAt(out, i, uint8_t(*v));
            break;
          case ElemType::kInt16:
            ok = fits(INT16_MIN, INT16_MAX);
            StoreAt(out, i, int16_t(*v));
            break;
          case ElemType::kUint16:
            ok = fits(0, UINT16_MAX);
            StoreAt(out, i, uint16_t(*v));
            break;
          case ElemType::kInt32:
            ok = fits(INT32_MIN, INT32_MAX);
            StoreAt(out, i, int32_t(*v));
            break;
          case ElemType::kUint32:
            ok = fits(0, UINT32_MAX);
            StoreAt(out, i, uint32_t(*v));
            break;
          case ElemType::kInt64: StoreAt(out, i, *v); break;
          case ElemType::kUint64:
            ok = *v >= 0;
            StoreAt(out, i, uint64_t(*v));
            break;
          default: ok = false;
        }
        if (!ok) {
          return Error{ErrorCode::kInvalidArgument, where + ": element " + std::to_string(i) +
                                                        " '" + s.substr(0, 64) + "' is outside " +
                                                        ElemTypeName(to) + "'s range"};
        }
      }
    }
  }
  if (!wide.empty()) {
    compute::RefTensor r;
    r.shape = x.shape;
    r.data = std::move(wide);
    return FromRef("", r, to);
  }
  return out;
}

// ASCII case mapping; other bytes (UTF-8 sequences included) stay as they are.
std::string ChangeCase(std::string s, int action) {
  for (char& c : s) {
    if (action == 1 && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (action == 2 && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return s;
}

}  // namespace

struct StringGraph {
  struct Node {
    std::string op, name, where;
    std::vector<std::string> inputs, outputs;
    ElemType to = ElemType::kUndefined;  // Cast
    int case_action = 0;                 // StringNormalizer: 0 NONE, 1 LOWER, 2 UPPER
    bool case_sensitive = false;
    std::vector<std::string> stopwords;
  };
  std::vector<Node> nodes;
  std::map<std::string, Tensor> inits;
};

bool HoldsStrings(const ::onnx::GraphProto& g) {
  auto is_string = [](const ::onnx::ValueInfoProto& v) {
    return v.type().has_tensor_type() &&
           v.type().tensor_type().elem_type() == ::onnx::TensorProto::STRING;
  };
  for (const auto& v : g.input())
    if (is_string(v)) return true;
  for (const auto& v : g.output())
    if (is_string(v)) return true;
  for (const auto& v : g.value_info())
    if (is_string(v)) return true;
  for (const auto& t : g.initializer())
    if (t.data_type() == ::onnx::TensorProto::STRING) return true;
  for (const auto& n : g.node()) {
    if (n.op_type() == "StringNormalizer") return true;
    if (n.op_type() == "Cast") {
      for (const auto& a : n.attribute())
        if (a.name() == "to" && a.i() == ::onnx::TensorProto::STRING) return true;
    }
  }
  return false;
}

Result<std::shared_ptr<StringGraph>> LoadStringGraph(const ::onnx::GraphProto& g,
                                                     const std::string& model,
                                                     const std::filesystem::path& base_dir,
                                                     const ReadCheck& check) {
  auto sg = std::make_shared<StringGraph>();
  for (const auto& tp : g.initializer()) {
    const std::string what = model + ": initializer '" + tp.name() + "'";
    ALKNET_ASSIGN_OR_RETURN(Tensor t, DecodeTensor(tp, base_dir, what, check));
    sg->inits[tp.name()] = std::move(t);
  }
  for (int k = 0; k < g.node_size(); ++k) {
    const auto& np = g.node(k);
    StringGraph::Node n;
    n.op = np.op_type();
    n.name = np.name();
    n.where = model + ": node " + std::to_string(k) + (n.name.empty() ? "" : " '" + n.name + "'") +
              " (" + n.op + ")";
    n.inputs.assign(np.input().begin(), np.input().end());
    n.outputs.assign(np.output().begin(), np.output().end());
    if (!np.domain().empty() && np.domain() != "ai.onnx") {
      return Error{ErrorCode::kUnsupported, n.where + ": domain '" + np.domain() +
                                                "' in a graph holding strings is not supported"};
    }
    if (!IsStringOp(n.op)) {
      return Error{ErrorCode::kUnsupported,
                   n.where +
                       ": the model holds string values, so it runs on the host "
                       "(docs/adr/0015-onnx-strings-on-the-host.md), which supports only Cast, "
                       "CastLike, StringNormalizer and Identity"};
    }
    const size_t want_in = n.op == "CastLike" ? 2 : 1;
    if (n.inputs.size() != want_in || n.outputs.size() != 1) {
      return Error{ErrorCode::kInvalidArgument, n.where + ": needs " + std::to_string(want_in) +
                                                    " input(s) and 1 output, has " +
                                                    std::to_string(n.inputs.size()) + " and " +
                                                    std::to_string(n.outputs.size())};
    }
    for (const auto& a : np.attribute()) {
      const std::string& an = a.name();
      if (n.op == "Cast" && an == "to") {
        n.to = static_cast<ElemType>(a.i());
      } else if (n.op == "StringNormalizer" && an == "case_change_action") {
        if (a.s() == "LOWER") {
          n.case_action = 1;
        } else if (a.s() == "UPPER") {
          n.case_action = 2;
        } else if (a.s() != "NONE") {
          return Error{ErrorCode::kInvalidAttribute,
                       n.where + ": case_change_action must be LOWER, UPPER or NONE, not '" +
                           a.s().substr(0, 64) + "'"};
        }
      } else if (n.op == "StringNormalizer" && an == "is_case_sensitive") {
        n.case_sensitive = a.i() != 0;
      } else if (n.op == "StringNormalizer" && an == "stopwords") {
        n.stopwords.assign(a.strings().begin(), a.strings().end());
      } else if (n.op == "StringNormalizer" && an == "locale") {
        // Case mapping is ASCII whatever the locale (the ONNX tests use en_US).
      } else if (an == "saturate") {
        // Cast's saturate concerns float8 only.
      } else {
        return Error{ErrorCode::kInvalidAttribute, n.where + ": unknown attribute '" + an + "'"};
      }
    }
    if (n.op == "Cast" && n.to == ElemType::kUndefined) {
      return Error{ErrorCode::kInvalidAttribute, n.where + ": needs attribute 'to'"};
    }
    sg->nodes.push_back(std::move(n));
  }
  return sg;
}

Result<RunResult> RunStringGraph(const StringGraph& sg, const std::vector<ValueInfo>& inputs,
                                 const std::vector<ValueInfo>& outputs,
                                 std::span<const HostInput> given, const std::string& model) {
  const auto t0 = std::chrono::steady_clock::now();
  std::map<std::string, Tensor> env = sg.inits;
  for (const ValueInfo& info : inputs) {
    const HostInput* in = nullptr;
    for (const HostInput& h : given)
      if (h.name == info.name) in = &h;
    if (in == nullptr) {
      return Error{ErrorCode::kInvalidArgument, model + ": input '" + info.name + "' is missing"};
    }
    if (in->kind != ValueKind::kTensor || in->device.valid()) {
      return Error{
          ErrorCode::kUnsupported,
          model + ": input '" + info.name + "': a graph holding strings takes host tensors only"};
    }
    if (in->type != info.type) {
      return Error{ErrorCode::kInvalidArgument, model + ": input '" + info.name + "' is " +
                                                    ElemTypeName(in->type) + ", the model wants " +
                                                    ElemTypeName(info.type)};
    }
    Tensor t;
    t.name = in->name;
    t.type = in->type;
    t.shape = in->shape;
    auto n = compute::CheckedBytes(in->shape, 1);
    if (!n)
      return Error{ErrorCode::kInvalidArgument, model + ": input '" + info.name + "' is too big"};
    if (in->type == ElemType::kString) {
      if (in->strings.size() != *n) {
        return Error{ErrorCode::kInvalidArgument,
                     model + ": input '" + info.name + "' holds " +
                         std::to_string(in->strings.size()) + " strings, its shape " +
                         compute::ShapeToString(in->shape) + " needs " + std::to_string(*n)};
      }
      t.strings.assign(in->strings.begin(), in->strings.end());
    } else {
      if (ElemSize(in->type) == 0 || in->data.size() != *n * ElemSize(in->type)) {
        return Error{ErrorCode::kInvalidArgument, model + ": input '" + info.name + "' holds " +
                                                      std::to_string(in->data.size()) +
                                                      " bytes, its shape and type need " +
                                                      std::to_string(*n * ElemSize(in->type))};
      }
      t.data.assign(in->data.begin(), in->data.end());
    }
    env[info.name] = std::move(t);
  }
  for (const StringGraph::Node& n : sg.nodes) {
    std::vector<const Tensor*> ins;
    for (const std::string& name : n.inputs) {
      auto it = env.find(name);
      if (it == env.end()) {
        return Error{ErrorCode::kInvalidArgument,
                     n.where + ": input '" + name + "' is not defined"};
      }
      ins.push_back(&it->second);
    }
    Tensor out;
    if (n.op == "Identity") {
      out = *ins[0];
    } else if (n.op == "Cast" || n.op == "CastLike") {
      const ElemType to = n.op == "Cast" ? n.to : ins[1]->type;
      ALKNET_ASSIGN_OR_RETURN(out, CastStrings(*ins[0], to, n.where));
    } else {  // StringNormalizer
      const Tensor& x = *ins[0];
      if (x.type != ElemType::kString) {
        return Error{ErrorCode::kInvalidArgument,
                     n.where + ": input must be string, it is " + ElemTypeName(x.type)};
      }
      const bool two = x.shape.size() == 2;
      if (!(x.shape.size() == 1 || (two && x.shape[0] == 1))) {
        return Error{ErrorCode::kShape, n.where + ": input must be [C] or [1, C], got " +
                                            compute::ShapeToString(x.shape)};
      }
      std::set<std::string> stop;
      for (const std::string& w : n.stopwords) stop.insert(n.case_sensitive ? w : ChangeCase(w, 1));
      out.type = ElemType::kString;
      for (const std::string& s : x.strings) {
        if (stop.count(n.case_sensitive ? s : ChangeCase(s, 1))) continue;
        out.strings.push_back(ChangeCase(s, n.case_action));
      }
      // Everything removed: one empty string (ONNX: output shape [1], or [1, 1]).
      if (out.strings.empty()) out.strings.push_back("");
      out.shape = two ? std::vector<uint64_t>{1, out.strings.size()}
                      : std::vector<uint64_t>{out.strings.size()};
    }
    out.name = n.outputs[0];
    env[n.outputs[0]] = std::move(out);
  }
  RunResult result;
  for (const ValueInfo& info : outputs) {
    auto it = env.find(info.name);
    if (it == env.end()) {
      return Error{ErrorCode::kInvalidArgument,
                   model + ": output '" + info.name + "' is not computed"};
    }
    Tensor t = it->second;
    t.name = info.name;
    result.outputs.push_back(std::move(t));
  }
  result.on_host = "the model holds string values (docs/adr/0015-onnx-strings-on-the-host.md)";
  result.run_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace alknet::onnx::detail
