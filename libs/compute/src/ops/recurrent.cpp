// RNN, GRU and LSTM (opset 7+ semantics; `layout` from 14): the whole recurrence is one
// dispatch of shaders/recurrent/recurrent.wgsl.hbs. One workgroup per (direction, batch row)
// walks the sequence; at each step its invocations compute the gates of their hidden units
// (X_t W^T + H_{t-1} R^T + biases, activations, clip, peepholes) and the new state, which
// lives in workgroup memory between steps (double-buffered: one barrier per step, two for
// GRU without linear_before_reset). The kernel reads W and R transposed ([dirs, input,
// gates * hidden], [dirs, hidden, gates * hidden]): built on the host when the node is
// recorded where they are known (initializers), else by a Transpose on the device.
// sequence_lens stops a row early (Y is 0 past its length; Y_h and Y_c hold its last
// state); the reverse direction walks each row's valid range backwards.
//
// Outputs: RNN and GRU give (Y, Y_h), LSTM (Y, Y_h, Y_c).
#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>

#include "ops/elementwise.h"
#include "ops/families.h"

namespace alknet::compute::ops {

namespace {

enum class Cell { kRnn, kGru, kLstm };

struct CellInfo {
  const char* name;
  uint32_t gates;        // rows of W per direction, in units of hidden_size
  uint32_t activations;  // per direction
  std::vector<std::string> defaults;
};

CellInfo Info(Cell c) {
  switch (c) {
    case Cell::kRnn: return {"RNN", 1, 1, {"Tanh"}};
    case Cell::kGru: return {"GRU", 3, 2, {"Sigmoid", "Tanh"}};
    default: return {"LSTM", 4, 3, {"Sigmoid", "Tanh", "Tanh"}};
  }
}

struct Activation {
  std::string kind;
  double alpha = 0, beta = 0;
};

// Default alpha/beta of the activations that take them (the ONNX ops' defaults).
bool UsesAlpha(const std::string& k) {
  return k == "Affine" || k == "LeakyRelu" || k == "ThresholdedRelu" || k == "ScaledTanh" ||
         k == "HardSigmoid" || k == "Elu";
}
bool UsesBeta(const std::string& k) {
  return k == "Affine" || k == "ScaledTanh" || k == "HardSigmoid";
}
double DefaultAlpha(const std::string& k) {
  if (k == "LeakyRelu") return 0.01;
  if (k == "HardSigmoid") return 0.2;
  return 1.0;
}
double DefaultBeta(const std::string& k) {
  if (k == "HardSigmoid") return 0.5;
  if (k == "Affine") return 0.0;
  return 1.0;
}

const std::vector<std::string> kKnownActivations = {
    "Relu",       "Tanh",        "Sigmoid", "Affine",   "LeakyRelu", "ThresholdedRelu",
    "ScaledTanh", "HardSigmoid", "Elu",     "Softsign", "Softplus"};

double ApplyActivation(const Activation& a, double x) {
  const std::string& k = a.kind;
  if (k == "Relu") return std::max(0.0, x);
  if (k == "Tanh") return std::tanh(x);
  if (k == "Sigmoid") return 1.0 / (1.0 + std::exp(-x));
  if (k == "Affine") return a.alpha * x + a.beta;
  if (k == "LeakyRelu") return x >= 0 ? x : a.alpha * x;
  if (k == "ThresholdedRelu") return x > a.alpha ? x : 0.0;
  if (k == "ScaledTanh") return a.alpha * std::tanh(a.beta * x);
  if (k == "HardSigmoid") return std::clamp(a.alpha * x + a.beta, 0.0, 1.0);
  if (k == "Elu") return x >= 0 ? x : a.alpha * (std::exp(x) - 1.0);
  if (k == "Softsign") return x / (1.0 + std::fabs(x));
  // Softplus, in a form whose exp cannot overflow (as the shader's).
  return std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x)));
}

struct Dims {
  uint64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1;
  bool layout1 = false;
  bool reverse_only = false;
  std::vector<Activation> acts;  // dirs * activations
  double clip = 0;               // 0: none
};

Result<Dims> Resolve(const OpNode& node, const Attributes& at, Cell cell) {
  const CellInfo info = Info(cell);
  Dims d;
  const auto& dir = std::get<std::string>(at.at("direction"));
  if (dir == "bidirectional")
    d.dirs = 2;
  else if (dir == "reverse")
    d.reverse_only = true;
  else if (dir != "forward") {
    return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": direction \"" + dir +
                                                   "\" is not forward, reverse or bidirectional"};
  }
  auto it = at.find("layout");
  d.layout1 = it != at.end() && std::get<int64_t>(it->second) == 1;
  const Shape& x = node.inputs[0].shape;
  const Shape& w = node.inputs[1].shape;
  const Shape& r = node.inputs[2].shape;
  if (x.size() != 3 || w.size() != 3 || r.size() != 3) {
    return Error{ErrorCode::kShape, node.Describe() + ": X, W and R must be 3-D"};
  }
  d.seq = d.layout1 ? x[1] : x[0];
  d.batch = d.layout1 ? x[0] : x[1];
  d.input = x[2];
  d.hidden = r[2];
  if (auto h = at.find("hidden_size");
      h != at.end() && static_cast<uint64_t>(std::get<int64_t>(h->second)) != d.hidden) {
    return Error{ErrorCode::kShape, node.Describe() + ": hidden_size " +
                                        std::to_string(std::get<int64_t>(h->second)) +
                                        " disagrees with R " + ShapeToString(r)};
  }
  const uint64_t gh = info.gates * d.hidden;
  if (w != Shape{d.dirs, gh, d.input} || r != Shape{d.dirs, gh, d.hidden}) {
    return Error{ErrorCode::kShape,
                 node.Describe() + ": W must be " + ShapeToString({d.dirs, gh, d.input}) +
                     " and R " + ShapeToString({d.dirs, gh, d.hidden}) + " for X " +
                     ShapeToString(x) + ", hidden size " + std::to_string(d.hidden) + " and " +
                     std::to_string(d.dirs) + " direction(s)"};
  }
  const Shape state =
      d.layout1 ? Shape{d.batch, d.dirs, d.hidden} : Shape{d.dirs, d.batch, d.hidden};
  auto check = [&](size_t i, const Shape& want, const char* what) -> Status {
    if (!node.has_input(i) || node.inputs[i].shape == want) return Ok{};
    return Error{ErrorCode::kShape, node.Describe() + ": " + what + " must be " +
                                        ShapeToString(want) + ", got " +
                                        ShapeToString(node.inputs[i].shape)};
  };
  ALKNET_TRY(check(3, {d.dirs, 2 * gh}, "B"));
  ALKNET_TRY(check(4, {d.batch}, "sequence_lens"));
  ALKNET_TRY(check(5, state, "initial_h"));
  if (cell == Cell::kLstm) {
    ALKNET_TRY(check(6, state, "initial_c"));
    ALKNET_TRY(check(7, {d.dirs, 3 * d.hidden}, "P"));
  }
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (!node.has_input(i)) continue;
    const DType want = i == 4 ? DType::kI32 : DType::kF32;
    if (node.inputs[i].dtype != want) {
      return Error{ErrorCode::kUnsupported, node.Describe() + ": input " + std::to_string(i) +
                                                " must be " + DTypeName(want) + ", got " +
                                                DTypeName(node.inputs[i].dtype)};
    }
  }
  // Activations: listed per direction, or the defaults; alpha/beta are consumed in order by
  // the activations that take them (as onnxruntime reads the attribute).
  std::vector<std::string> names;
  if (auto a = at.find("activations"); a != at.end()) {
    // AttrValue has no list of strings: the names come comma-separated ("Sigmoid,Tanh,Tanh").
    std::string cur;
    for (char ch : std::get<std::string>(a->second) + ",") {
      if (ch == ',') {
        if (!cur.empty()) names.push_back(cur);
        cur.clear();
      } else if (ch != ' ') {
        cur += ch;
      }
    }
  }
  const size_t need = info.activations * d.dirs;
  if (names.empty()) {
    for (uint64_t k = 0; k < d.dirs; ++k)
      names.insert(names.end(), info.defaults.begin(), info.defaults.end());
  } else if (names.size() != need) {
    return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": activations lists " +
                                                   std::to_string(names.size()) + " functions; " +
                                                   info.name + " with " + std::to_string(d.dirs) +
                                                   " direction(s) takes " + std::to_string(need)};
  }
  std::vector<double> alphas, betas;
  if (auto a = at.find("activation_alpha"); a != at.end())
    alphas = std::get<std::vector<double>>(a->second);
  if (auto b = at.find("activation_beta"); b != at.end())
    betas = std::get<std::vector<double>>(b->second);
  size_t ai = 0, bi = 0;
  for (const std::string& n : names) {
    if (std::find(kKnownActivations.begin(), kKnownActivations.end(), n) ==
        kKnownActivations.end()) {
      return Error{ErrorCode::kUnsupported, node.Describe() + ": activation \"" + n +
                                                "\" is not one ONNX defines for " + info.name};
    }
    Activation act{n, DefaultAlpha(n), DefaultBeta(n)};
    if (UsesAlpha(n) && ai < alphas.size()) act.alpha = alphas[ai++];
    if (UsesBeta(n) && bi < betas.size()) act.beta = betas[bi++];
    d.acts.push_back(act);
  }
  if (auto c = at.find("clip"); c != at.end()) {
    d.clip = std::get<double>(c->second);
    if (!(d.clip > 0)) {
      return Error{ErrorCode::kInvalidAttribute,
                   node.Describe() + ": clip must be positive, got " + std::to_string(d.clip)};
    }
  }
  return d;
}

// Workgroup memory per hidden unit: state, next state, and the reset-gated state (GRU) or
// cell state (LSTM).
uint32_t WorkgroupSize(const Dims& d) {
  uint32_t wg = 32;
  while (wg < d.hidden && wg < 256) wg *= 2;
  return wg;
}

std::vector<TensorDesc> Outputs(const Dims& d, Cell cell) {
  const Shape y =
      d.layout1 ? Shape{d.batch, d.seq, d.dirs, d.hidden} : Shape{d.seq, d.dirs, d.batch, d.hidden};
  const Shape s = d.layout1 ? Shape{d.batch, d.dirs, d.hidden} : Shape{d.dirs, d.batch, d.hidden};
  std::vector<TensorDesc> out{TensorDesc{DType::kF32, y}, TensorDesc{DType::kF32, s}};
  if (cell == Cell::kLstm) out.push_back(TensorDesc{DType::kF32, s});
  return out;
}

// ---- float64 reference ----------------------------------------------------------------------

std::vector<RefTensor> Reference(const OpNode& node, const Attributes& at,
                                 const std::vector<RefTensor>& in, Cell cell) {
  const Dims d = *Resolve(node, at, cell);
  const CellInfo info = Info(cell);
  const uint64_t H = d.hidden, I = d.input, B = d.batch, S = d.seq, D = d.dirs, G = info.gates;
  std::vector<TensorDesc> descs = Outputs(d, cell);
  std::vector<RefTensor> out;
  for (const TensorDesc& t : descs)
    out.push_back(RefTensor{DType::kF32, t.shape, std::vector<double>(t.elements(), 0.0)});
  auto has = [&](size_t i) { return node.has_input(i) && i < in.size(); };
  const bool lbr = cell == Cell::kGru && std::get<int64_t>(at.at("linear_before_reset")) != 0;
  const bool input_forget = cell == Cell::kLstm && std::get<int64_t>(at.at("input_forget")) != 0;
  auto xi = [&](uint64_t t, uint64_t b, uint64_t i) {
    return d.layout1 ? (b * S + t) * I + i : (t * B + b) * I + i;
  };
  auto yi = [&](uint64_t t, uint64_t dir, uint64_t b, uint64_t h) {
    return d.layout1 ? ((b * S + t) * D + dir) * H + h : ((t * D + dir) * B + b) * H + h;
  };
  auto si = [&](uint64_t dir, uint64_t b, uint64_t h) {
    return d.layout1 ? (b * D + dir) * H + h : (dir * B + b) * H + h;
  };
  auto clip = [&](double v) { return d.clip > 0 ? std::clamp(v, -d.clip, d.clip) : v; };
  for (uint64_t dir = 0; dir < D; ++dir) {
    const bool reverse = d.reverse_only || dir == 1;
    const Activation* act = &d.acts[dir * info.activations];
    for (uint64_t b = 0; b < B; ++b) {
      const uint64_t len = has(4) ? static_cast<uint64_t>(in[4].data[b]) : S;
      std::vector<double> h(H, 0.0), c(H, 0.0);
      if (has(5))
        for (uint64_t k = 0; k < H; ++k) h[k] = in[5].data[si(dir, b, k)];
      if (cell == Cell::kLstm && has(6))
        for (uint64_t k = 0; k < H; ++k) c[k] = in[6].data[si(dir, b, k)];
      for (uint64_t n = 0; n < std::min(len, S); ++n) {
        const uint64_t t = reverse ? len - 1 - n : n;
        // gate g of unit k: X_t W_g^T + Wb_g (+ H R_g^T + Rb_g unless GRU's h gate, done below)
        auto xw = [&](uint64_t g, uint64_t k) {
          double s = has(3) ? in[3].data[dir * 2 * G * H + g * H + k] : 0.0;
          for (uint64_t i = 0; i < I; ++i)
            s += in[0].data[xi(t, b, i)] * in[1].data[(dir * G * H + g * H + k) * I + i];
          return s;
        };
        auto hr = [&](uint64_t g, uint64_t k, const std::vector<double>& state) {
          double s = has(3) ? in[3].data[dir * 2 * G * H + (G + g) * H + k] : 0.0;
          for (uint64_t j = 0; j < H; ++j)
            s += state[j] * in[2].data[(dir * G * H + g * H + k) * H + j];
          return s;
        };
        std::vector<double> nh(H), nc(H);
        if (cell == Cell::kRnn) {
          for (uint64_t k = 0; k < H; ++k)
            nh[k] = ApplyActivation(act[0], clip(xw(0, k) + hr(0, k, h)));
        } else if (cell == Cell::kGru) {
          std::vector<double> z(H), rh(H), r(H);
          for (uint64_t k = 0; k < H; ++k) {
            z[k] = ApplyActivation(act[0], clip(xw(0, k) + hr(0, k, h)));
            r[k] = ApplyActivation(act[0], clip(xw(1, k) + hr(1, k, h)));
            rh[k] = r[k] * h[k];
          }
          for (uint64_t k = 0; k < H; ++k) {
            const double pre = lbr ? xw(2, k) + r[k] * hr(2, k, h) : xw(2, k) + hr(2, k, rh);
            const double hh = ApplyActivation(act[1], clip(pre));
            nh[k] = (1 - z[k]) * hh + z[k] * h[k];
          }
        } else {
          auto p = [&](uint64_t g, uint64_t k) {
            return has(7) ? in[7].data[dir * 3 * H + g * H + k] : 0.0;
          };
          for (uint64_t k = 0; k < H; ++k) {
            const double ig =
                ApplyActivation(act[0], clip(xw(0, k) + hr(0, k, h) + p(0, k) * c[k]));
            const double fg =
                input_forget
                    ? 1 - ig
                    : ApplyActivation(act[0], clip(xw(2, k) + hr(2, k, h) + p(2, k) * c[k]));
            const double cg = ApplyActivation(act[1], clip(xw(3, k) + hr(3, k, h)));
            nc[k] = fg * c[k] + ig * cg;
            const double og =
                ApplyActivation(act[0], clip(xw(1, k) + hr(1, k, h) + p(1, k) * nc[k]));
            nh[k] = og * ApplyActivation(act[2], nc[k]);
          }
          c = nc;
        }
        h = nh;
        for (uint64_t k = 0; k < H; ++k) out[0].data[yi(t, dir, b, k)] = h[k];
      }
      for (uint64_t k = 0; k < H; ++k) {
        out[1].data[si(dir, b, k)] = h[k];
        if (cell == Cell::kLstm) out[2].data[si(dir, b, k)] = c[k];
      }
    }
  }
  return out;
}

// ---- the record -----------------------------------------------------------------------------

// The template's flag of each ONNX activation name (kKnownActivations).
const std::vector<std::pair<std::string, const char*>> kActivationFlags = {
    {"Relu", "relu"},
    {"Tanh", "tanh"},
    {"Sigmoid", "sigmoid"},
    {"Affine", "affine"},
    {"LeakyRelu", "leaky"},
    {"ThresholdedRelu", "thresholded"},
    {"ScaledTanh", "scaled_tanh"},
    {"HardSigmoid", "hard_sigmoid"},
    {"Elu", "elu"},
    {"Softsign", "softsign"},
    {"Softplus", "softplus"}};

hbs::Value ActivationContext(const Activation& a, uint64_t slot) {
  hbs::Object o{{"slot", slot},
                {"kind", a.kind},
                {"alpha", FloatLiteral(a.alpha)},
                {"beta", FloatLiteral(a.beta)}};
  for (const auto& [name, flag] : kActivationFlags) o.set(flag, a.kind == name);
  return hbs::Value(std::move(o));
}

// Which activation functions the kernel defines: each used one once (common/activation/*).
hbs::Value UsedActivations(const std::vector<Activation>& acts) {
  hbs::Object o;
  for (const auto& [name, flag] : kActivationFlags) {
    bool used = false;
    for (const Activation& a : acts) used = used || a.kind == name;
    o.set(flag, used);
  }
  return hbs::Value(std::move(o));
}

constexpr const char* kPack = "alknet.RnnPack";
constexpr const char* kSeq = "alknet.RnnSequence";

// The optional small inputs B, initial_h, initial_c, P travel packed in one buffer (in that
// order, absent ones left out), so the sequence kernel binds at most X, W, R, the pack,
// sequence_lens and three outputs: 8 storage buffers, the WebGPU default limit.
constexpr size_t kPacked[] = {3, 5, 6, 7};

// [D, A, B] -> [D, B, A]: W or R per direction to the layout the kernel reads, and back.
RefTensor SwapLastTwo(const RefTensor& t) {
  const uint64_t D = t.shape[0], A = t.shape[1], B = t.shape[2];
  RefTensor out{t.dtype, {D, B, A}, std::vector<double>(t.data.size())};
  for (uint64_t d = 0; d < D; ++d)
    for (uint64_t a = 0; a < A; ++a)
      for (uint64_t b = 0; b < B; ++b) out.data[(d * B + b) * A + a] = t.data[(d * A + a) * B + b];
  return out;
}

// SwapLastTwo of a known W or R, the same object for the same source while the source
// lives: the executor keys programs on known values by identity, so a fresh copy per
// recording would generate the kernel again each time. Entries whose source is gone are
// dropped on each call; at most kKeptTransposes are kept (the oldest goes first).
ConstValue KnownTransposed(const ConstValue& src) {
  constexpr size_t kKeptTransposes = 64;
  struct Entry {
    std::weak_ptr<const RefTensor> src;
    ConstValue out;
  };
  static std::mutex mu;
  static std::vector<Entry> kept;
  std::lock_guard<std::mutex> lock(mu);
  std::erase_if(kept, [](const Entry& e) { return e.src.expired(); });
  for (const Entry& e : kept) {
    if (e.src.lock() == src) return e.out;
  }
  if (kept.size() >= kKeptTransposes) kept.erase(kept.begin());
  kept.push_back({src, std::make_shared<const RefTensor>(SwapLastTwo(*src))});
  return kept.back().out;
}

Cell CellOf(const Attributes& at) {
  const auto& c = std::get<std::string>(at.at("cell"));
  return c == "RNN" ? Cell::kRnn : c == "GRU" ? Cell::kGru : Cell::kLstm;
}

bool Flag(const Attributes& at, const char* name) { return std::get<int64_t>(at.at(name)) != 0; }

// The public op's view of an alknet.RnnSequence node: inputs X, W, R, B, sequence_lens,
// initial_h, initial_c, P, with the packed ones described (absent unless flagged) and W, R
// in ONNX's layout (the node's inputs 1 and 2 are W^T and R^T per direction).
Result<OpNode> Unpacked(const OpNode& node, const Attributes& at) {
  const Cell cell = CellOf(at);
  const uint64_t G = Info(cell).gates;
  const Shape& x = node.inputs[0].shape;
  const Shape& wt = node.inputs[1].shape;
  const Shape& rt = node.inputs[2].shape;
  if (x.size() != 3 || wt.size() != 3 || rt.size() != 3) {
    return Error{ErrorCode::kShape, node.Describe() + ": X, W^T and R^T must be 3-D"};
  }
  const bool layout1 = std::get<int64_t>(at.at("layout")) == 1;
  const uint64_t D = wt[0], H = rt[1], B = layout1 ? x[0] : x[1];
  const Shape state = layout1 ? Shape{B, D, H} : Shape{D, B, H};
  const Shape shapes[] = {{D, 2 * G * H}, state, state, {D, 3 * H}};
  const char* flags[] = {"has_b", "has_h0", "has_c0", "has_p"};
  OpNode v = node;
  v.inputs.assign(8, TensorDesc{});
  v.inputs[0] = node.inputs[0];
  v.inputs[1] = TensorDesc{node.inputs[1].dtype, {wt[0], wt[2], wt[1]}};
  v.inputs[2] = TensorDesc{node.inputs[2].dtype, {rt[0], rt[2], rt[1]}};
  uint64_t packed = 0;
  for (size_t k = 0; k < 4; ++k) {
    v.inputs[kPacked[k]] = TensorDesc{DType::kF32, shapes[k]};
    v.inputs[kPacked[k]].absent = !Flag(at, flags[k]);
    if (Flag(at, flags[k])) packed += v.inputs[kPacked[k]].elements();
  }
  v.inputs[4].absent = true;
  if (node.has_input(4)) v.inputs[4] = node.inputs[4];
  const uint64_t got = node.has_input(3) ? node.inputs[3].elements() : 0;
  if (got != packed) {
    return Error{ErrorCode::kShape, node.Describe() + ": the packed operand holds " +
                                        std::to_string(got) + " elements; the flags need " +
                                        std::to_string(packed)};
  }
  if (cell != Cell::kLstm) v.inputs.resize(6);
  return v;
}

Result<std::vector<TensorDesc>> InferCell(const OpNode& node, const Attributes& at, Cell cell) {
  ALKNET_ASSIGN_OR_RETURN(Dims d, Resolve(node, at, cell));
  const uint64_t floats = (cell == Cell::kRnn ? 2 : 3) * d.hidden;
  if (floats * 4 > 16384) {
    return Error{ErrorCode::kLimit,
                 node.Describe() + ": hidden size " + std::to_string(d.hidden) +
                     " needs more workgroup memory than the 16 KiB WebGPU guarantees "
                     "(supported up to " +
                     std::to_string(16384 / 4 / (floats / d.hidden)) + ")"};
  }
  return Outputs(d, cell);
}

std::vector<AttributeSpec> CellAttributes(Cell cell, bool layout_attr, bool internal) {
  auto kind = [](size_t index, const char* what) {
    return [index, what](const AttrValue& v) {
      return v.index() == index ? std::string() : std::string("must be ") + what;
    };
  };
  std::vector<AttributeSpec> a = {
      {"activation_alpha", std::nullopt, true, kind(4, "a list of floats")},
      {"activation_beta", std::nullopt, true, kind(4, "a list of floats")},
      {"activations", std::nullopt, true, kind(2, "a string of comma-separated names")},
      {"clip", std::nullopt, true, kind(1, "a float")},
      {"direction", AttrValue(std::string("forward")), false, {}},
      {"hidden_size", std::nullopt, true, kind(0, "an int")}};
  if (layout_attr || internal) a.push_back({"layout", AttrValue(int64_t{0}), false, {}});
  if (cell == Cell::kGru || internal)
    a.push_back({"linear_before_reset", AttrValue(int64_t{0}), false, {}});
  if (cell == Cell::kLstm || internal)
    a.push_back({"input_forget", AttrValue(int64_t{0}), false, {}});
  if (internal) {
    a.push_back({"cell", AttrValue(std::string("LSTM")), false, [](const AttrValue& v) {
                   const auto& c = std::get<std::string>(v);
                   return c == "RNN" || c == "GRU" || c == "LSTM"
                              ? std::string()
                              : std::string("must be RNN, GRU or LSTM");
                 }});
    for (const char* f : {"has_b", "has_h0", "has_c0", "has_p"})
      a.push_back({f, AttrValue(int64_t{0}), false, {}});
  }
  return a;
}

// alknet.RnnPack: its inputs' elements one after another (f32).
OpRecord PackRecord() {
  OpRecord r;
  r.name = kPack;
  r.family = "internal";
  r.shader = "recurrent/pack";
  r.summary = "the elements of up to four f32 tensors, one after another";
  r.min_inputs = 1;
  r.max_inputs = 4;
  auto total = [](const OpNode& node) {
    uint64_t n = 0;
    for (const TensorDesc& d : node.inputs) n += d.elements();
    return n;
  };
  r.infer = [total](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    for (const TensorDesc& d : node.inputs) {
      if (d.dtype != DType::kF32 || d.absent) {
        return Error{ErrorCode::kUnsupported, node.Describe() + ": packs present f32 tensors only"};
      }
    }
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, {total(node)}}};
  };
  r.context = [total](const OpNode& node, const Attributes&,
                      const DeviceCaps&) -> Result<hbs::Value> {
    hbs::Array parts;
    uint64_t end = 0;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const uint64_t begin = end;
      end += node.inputs[i].elements();
      parts.push_back(hbs::Value::object(
          {{"index", static_cast<uint64_t>(i)}, {"begin", begin}, {"end", end}}));
    }
    return hbs::Value::object({{"total", total(node)}, {"parts", hbs::Value(std::move(parts))}});
  };
  r.dispatch = [total](const OpNode& node, const Attributes&, const DeviceCaps&) {
    DispatchPlan p;
    p.invocations = total(node);
    return p;
  };
  r.reference = [](const OpNode&, const Attributes&, const std::vector<RefTensor>& in) {
    RefTensor out{DType::kF32, {0}, {}};
    for (const RefTensor& t : in) out.data.insert(out.data.end(), t.data.begin(), t.data.end());
    out.shape = {out.data.size()};
    return std::vector<RefTensor>{std::move(out)};
  };
  r.test_cases = {{{Shape{2, 3}, Shape{4}, Shape{1, 5}}, {}, {}, "three parts"}};
  return r;
}

// alknet.RnnSequence: X, W, R, pack (optional), sequence_lens (optional) -> Y, Y_h[, Y_c].
OpRecord SequenceRecord() {
  OpRecord r;
  r.name = kSeq;
  r.family = "internal";
  r.shader = "recurrent/recurrent";
  r.summary =
      "a whole RNN/GRU/LSTM sequence in one dispatch; W, R transposed (W^T, R^T per direction); "
      "B, initial_h, initial_c, P packed in input 3";
  r.min_inputs = 3;
  r.max_inputs = 5;
  r.attributes = CellAttributes(Cell::kLstm, true, true);
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(OpNode v, Unpacked(node, at));
    return InferCell(v, at, CellOf(at));
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps&) -> Result<hbs::Value> {
    const Cell cell = CellOf(at);
    const CellInfo info = Info(cell);
    ALKNET_ASSIGN_OR_RETURN(OpNode v, Unpacked(node, at));
    ALKNET_ASSIGN_OR_RETURN(Dims d, Resolve(v, at, cell));
    int64_t slot = 3;
    const int64_t pack = node.has_input(3) ? slot++ : -1;
    const int64_t lens = node.has_input(4) ? slot++ : -1;
    uint64_t off[8] = {};
    uint64_t at_ = 0;
    for (size_t i : kPacked) {
      off[i] = at_;
      if (v.has_input(i)) at_ += v.inputs[i].elements();
    }
    hbs::Array acts;
    for (size_t k = 0; k < d.acts.size(); ++k) acts.push_back(ActivationContext(d.acts[k], k));
    const bool lbr = cell == Cell::kGru && Flag(at, "linear_before_reset");
    const uint64_t wg = WorkgroupSize(d);
    return hbs::Value::object({{"seq", d.seq},
                               {"gh", info.gates * d.hidden},
                               {"upl", (d.hidden + wg - 1) / wg},
                               {"state_len", 2 * d.hidden},
                               {"g2", info.gates >= 2},
                               {"g3", info.gates >= 3},
                               {"g4", info.gates >= 4},
                               {"hr_g3", info.gates >= 3 && (cell != Cell::kGru || lbr)},
                               {"gru_aux", cell == Cell::kGru && !lbr},
                               {"batch", d.batch},
                               {"input", d.input},
                               {"hidden", d.hidden},
                               {"dirs", d.dirs},
                               {"gates", static_cast<uint64_t>(info.gates)},
                               {"acts_per_dir", static_cast<uint64_t>(info.activations)},
                               {"layout1", d.layout1},
                               {"reverse_only", d.reverse_only},
                               {"rnn", cell == Cell::kRnn},
                               {"gru", cell == Cell::kGru},
                               {"lstm", cell == Cell::kLstm},
                               {"linear_before_reset", lbr},
                               {"input_forget", cell == Cell::kLstm && Flag(at, "input_forget")},
                               {"has_clip", d.clip > 0},
                               {"clip", FloatLiteral(d.clip)},
                               {"pack", pack},
                               {"has_pack", pack >= 0},
                               {"seq_lens", lens},
                               {"has_seq_lens", lens >= 0},
                               {"has_b", v.has_input(3)},
                               {"has_h0", v.has_input(5)},
                               {"has_c0", cell == Cell::kLstm && v.has_input(6)},
                               {"has_p", cell == Cell::kLstm && v.has_input(7)},
                               {"off_b", off[3]},
                               {"off_h0", off[5]},
                               {"off_c0", off[6]},
                               {"off_p", off[7]},
                               {"activations", hbs::Value(std::move(acts))},
                               {"uses", UsedActivations(d.acts)}});
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps&) {
    OpNode v = *Unpacked(node, at);
    Dims d = *Resolve(v, at, CellOf(at));
    DispatchPlan p;
    p.kind = DispatchPlan::Kind::kGrid;
    p.groups = {d.dirs * d.batch, 1, 1};
    p.workgroup_size = {WorkgroupSize(d), 1, 1};
    return p;
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    OpNode v = *Unpacked(node, at);
    std::vector<RefTensor> full(v.inputs.size());
    for (size_t i : {0, 4}) {
      if (i < in.size() && v.has_input(i)) full[i] = in[i];
    }
    full[1] = SwapLastTwo(in[1]);
    full[2] = SwapLastTwo(in[2]);
    uint64_t at_ = 0;
    for (size_t i : kPacked) {
      if (i >= v.inputs.size() || !v.has_input(i)) continue;
      const uint64_t n = v.inputs[i].elements();
      full[i] =
          RefTensor{DType::kF32, v.inputs[i].shape,
                    std::vector<double>(in[3].data.begin() + at_, in[3].data.begin() + at_ + n)};
      at_ += n;
    }
    return Reference(v, at, full, CellOf(at));
  };
  r.hints = {-1, 1, 2e-5, 1e-4};
  // LSTM, input 3, hidden 4, with B ([1, 32]) and P ([1, 12]) packed.
  r.test_cases = {{{Shape{3, 2, 3}, Shape{1, 3, 16}, Shape{1, 4, 16}, Shape{44}},
                   {{"has_b", AttrValue(int64_t{1})}, {"has_p", AttrValue(int64_t{1})}},
                   {},
                   "LSTM, B and P packed"}};
  return r;
}

OpRecord RecurrentRecord(Cell cell, int opset_min, int opset_max, bool layout_attr) {
  const CellInfo info = Info(cell);
  OpRecord r;
  r.name = info.name;
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "recurrent";
  r.summary = cell == Cell::kRnn   ? "Elman RNN over a sequence (one fused dispatch)"
              : cell == Cell::kGru ? "GRU over a sequence (one fused dispatch)"
                                   : "LSTM over a sequence, with peepholes (one fused dispatch)";
  r.min_inputs = 3;
  r.max_inputs = cell == Cell::kLstm ? 8 : 6;
  r.attributes = CellAttributes(cell, layout_attr, false);
  r.infer = [cell](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    return InferCell(node, at, cell);
  };
  r.decompose = [cell, info](const OpNode& node, const Attributes& at) -> Result<Graph> {
    Graph g(static_cast<int>(node.inputs.size()));
    Attributes a = at;
    a["cell"] = std::string(info.name);
    std::vector<int> parts;
    const char* flags[] = {"has_b", "has_h0", "has_c0", "has_p"};
    for (size_t k = 0; k < 4; ++k) {
      const bool present = node.has_input(kPacked[k]);
      a[flags[k]] = int64_t{present ? 1 : 0};
      if (present) parts.push_back(static_cast<int>(kPacked[k]));
    }
    const int pack = parts.empty() ? Graph::kAbsent : g.Add(kPack, parts);
    const int lens = node.has_input(4) ? 4 : Graph::kAbsent;
    const int outs = cell == Cell::kLstm ? 3 : 2;
    // W^T and R^T: transposed on the host when known (initializers; once per source
    // tensor, KnownTransposed), else by a Transpose on the device.
    std::vector<ConstValue> known(5);
    int wr[2];
    for (int i : {1, 2}) {
      if (static_cast<size_t>(i) < node.input_values.size() && node.input_values[i]) {
        known[i] = KnownTransposed(node.input_values[i]);
        wr[i - 1] = Graph::kAbsent;
      } else {
        wr[i - 1] = g.Add("Transpose", {i}, {{"perm", std::vector<int64_t>{0, 2, 1}}});
      }
    }
    const int first = g.Add(kSeq, {0, wr[0], wr[1], pack, lens}, a, 17, outs);
    g.nodes.back().input_values = std::move(known);
    for (int o = 0; o < outs; ++o) g.outputs.push_back(first + o);
    return g;
  };
  r.reference = [cell](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    return Reference(node, at, in, cell);
  };
  r.hints = {-1, 1, 2e-5, 1e-4};
  auto lens = [](std::vector<double> v) {
    return RefTensor{DType::kI32, {v.size()}, std::move(v)};
  };
  using A = Attributes;
  using F = std::vector<double>;
  const uint64_t G = info.gates;
  const std::optional<Shape> none;
  // X [4, 3, 5], hidden 6 (layout 0).
  const Shape w1{1, G * 6, 5}, r1{1, G * 6, 6}, w2{2, G * 6, 5}, r2{2, G * 6, 6};
  r.test_cases.push_back({{Shape{4, 3, 5}, w1, r1}, A{}, {}, "defaults"});
  // The opset 14 record runs the other cases (the kernel is the same; each case compiles).
  if (!layout_attr) return r;
  if (cell == Cell::kRnn) {
    r.test_cases.push_back({{Shape{4, 3, 5}, w2, r2, Shape{2, 12}, Shape{3}, Shape{2, 3, 6}},
                            A{{"direction", AttrValue(std::string("bidirectional"))},
                              {"activations", AttrValue(std::string("LeakyRelu, ScaledTanh"))},
                              {"activation_alpha", AttrValue(F{0.3, 0.8})},
                              {"activation_beta", AttrValue(F{1.5})}},
                            {{4, lens({4, 2, 3})}},
                            "bidirectional, seq lens, activations"});
    // Pre-activations up to ~160: e^x is inf in f32 from 88.7 on, so softplus must not form it
    // (log(1 + e^x) gives inf where the float64 reference gives x). Batch row 1 is the
    // negative side, where softplus underflows towards 0.
    const RefTensor x{
        DType::kF32, {2, 2, 3}, {40, 50, 60, -40, -50, -60, 30, 45, 20, -30, -10, -20}};
    const RefTensor w{DType::kF32, {1, 4, 3}, {1, 1, 1, 0.5, 1, 0.25, 1, 0.5, 0.5, 0.75, 0.75, 1}};
    const RefTensor rr{DType::kF32,
                       {1, 4, 4},
                       {0.01, -0.02, 0.015, 0.005, 0.02, 0.01, -0.01, 0.0, -0.005, 0.01, 0.02, 0.01,
                        0.0, 0.015, -0.01, 0.02}};
    r.test_cases.push_back({{x.shape, w.shape, rr.shape},
                            A{{"activations", AttrValue(std::string("Softplus"))}},
                            {{0, x}, {1, w}, {2, rr}},
                            "softplus where e^x overflows f32"});
  } else if (cell == Cell::kGru) {
    r.test_cases.push_back({{Shape{4, 3, 5}, w2, r2, Shape{2, G * 12}, Shape{3}, Shape{2, 3, 6}},
                            A{{"direction", AttrValue(std::string("bidirectional"))},
                              {"linear_before_reset", AttrValue(int64_t{1})},
                              {"clip", AttrValue(0.7)}},
                            {{4, lens({4, 1, 3})}},
                            "bidirectional, linear_before_reset, clip, seq lens"});
  } else {
    r.test_cases.push_back(
        {{Shape{4, 3, 5}, w2, r2, Shape{2, G * 12}, Shape{3}, Shape{2, 3, 6}, Shape{2, 3, 6},
          Shape{2, 18}},
         A{{"direction", AttrValue(std::string("bidirectional"))}, {"clip", AttrValue(0.9)}},
         {{4, lens({4, 2, 3})}},
         "bidirectional, peepholes, seq lens, initial state, clip"});
  }
  if (layout_attr) {
    A a{{"layout", AttrValue(int64_t{1})}, {"direction", AttrValue(std::string("reverse"))}};
    if (cell == Cell::kLstm) a["input_forget"] = AttrValue(int64_t{1});
    r.test_cases.push_back(
        {{Shape{3, 4, 5}, w1, r1, none, none, Shape{3, 1, 6}}, a, {}, "layout 1, reverse"});
  }
  return r;
}

}  // namespace

void AddRecurrentOps(OpTable& table) {
  table.Add(PackRecord());
  table.Add(SequenceRecord());
  for (Cell c : {Cell::kRnn, Cell::kGru, Cell::kLstm}) {
    table.Add(RecurrentRecord(c, 7, 13, false));
    table.Add(RecurrentRecord(c, 14, 99, true));
  }
}

}  // namespace alknet::compute::ops
