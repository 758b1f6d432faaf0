// Signal processing (opset 17): the window functions (HannWindow, HammingWindow,
// BlackmanWindow) and MelWeightMatrix as host-built constants, DFT and STFT (shaders/signal/, naive
// O(L^2) transforms).
#include <algorithm>
#include <cmath>
#include <numbers>

#include "ops/elementwise.h"
#include "ops/families.h"
#include "ops/movement.h"

namespace alknet::compute::ops {

namespace {

// dft_length, frame_step, frame_length: ONNX int32 or int64, i32 on the device.
const DTypeSet kIntegers = {DType::kI32, DType::kU32};

// ---- HannWindow, HammingWindow, BlackmanWindow ------------------------------------------------

enum class Window { kHann, kHamming, kBlackman };

OpRecord WindowRecord(const char* name, Window kind) {
  OpRecord r;
  r.name = name;
  r.opset_min = 17;
  r.family = "signal";
  r.summary = "window function of the given size (a host-built constant)";
  r.host_inputs = {0};
  r.attributes = {{"output_datatype", AttrValue(int64_t{1}), false, {}},
                  {"periodic", AttrValue(int64_t{1}), false, {}}};
  auto size_of = [](const OpNode& node) -> Result<uint64_t> {
    const RefTensor* v = node.value(0);
    if (v->data.size() != 1 || v->data[0] < 0 || v->data[0] > double{1 << 28}) {
      return Error{ErrorCode::kShape, node.Describe() + ": size must be a scalar in [0, 2^28]"};
    }
    return static_cast<uint64_t>(v->data[0]);
  };
  r.infer = [size_of](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(uint64_t n, size_of(node));
    ALKNET_ASSIGN_OR_RETURN(DType d,
                            DeviceTypeOfOnnx(std::get<int64_t>(at.at("output_datatype")),
                                             node.Describe() + ": attribute 'output_datatype'"));
    return std::vector<TensorDesc>{TensorDesc{d, {n}}};
  };
  // ONNX (opset 17): N = size for periodic windows, size - 1 for symmetric ones;
  // Hamming uses alpha = 25/46.
  auto build = [kind, size_of](const OpNode& node, const Attributes& at) {
    const uint64_t n = *size_of(node);
    const double denom = std::get<int64_t>(at.at("periodic")) != 0 ? static_cast<double>(n)
                                                                   : static_cast<double>(n) - 1;
    RefTensor t{*DeviceTypeOfOnnx(std::get<int64_t>(at.at("output_datatype")), ""),
                {n},
                std::vector<double>(n)};
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

// ---- MelWeightMatrix (opset 17) ----------------------------------------------------------------
// A host-built constant [dft_length / 2 + 1, num_mel_bins] of triangular filters: num_mel_bins +
// 2 points equally spaced on the mel scale (2595 log10(1 + f / 700)) between the edges, each
// mapped to the spectrogram bin floor((dft_length + 1) f / sample_rate); filter i rises from
// point i to i + 1 and falls to i + 2 (ONNX's definition; its step is the mel range divided by
// num_mel_bins + 2).

struct MelArgs {
  int64_t bins = 0, dft = 0, rate = 0;
  double lo = 0, hi = 0;
};

Result<MelArgs> MelArgsOf(const OpNode& node) {
  auto scalar = [&](size_t i, const char* what) -> Result<double> {
    const RefTensor* v = node.value(i);
    if (v->data.size() != 1 || !std::isfinite(v->data[0])) {
      return Error{ErrorCode::kShape, node.Describe() + ": " + what + " must be a finite scalar"};
    }
    return v->data[0];
  };
  MelArgs a;
  ALKNET_ASSIGN_OR_RETURN(double bins, scalar(0, "num_mel_bins"));
  ALKNET_ASSIGN_OR_RETURN(double dft, scalar(1, "dft_length"));
  ALKNET_ASSIGN_OR_RETURN(double rate, scalar(2, "sample_rate"));
  ALKNET_ASSIGN_OR_RETURN(a.lo, scalar(3, "lower_edge_hertz"));
  ALKNET_ASSIGN_OR_RETURN(a.hi, scalar(4, "upper_edge_hertz"));
  if (bins < 1 || bins > 65536 || dft < 1 || dft > double{1 << 24} || rate < 1 || a.lo < 0 ||
      a.hi < a.lo || (dft / 2 + 1) * bins > double{1 << 28}) {
    return Error{ErrorCode::kInvalidArgument,
                 node.Describe() +
                     ": needs 1 <= num_mel_bins <= 65536, 1 <= dft_length <= 2^24, "
                     "sample_rate >= 1, 0 <= lower_edge_hertz <= upper_edge_hertz"};
  }
  a.bins = static_cast<int64_t>(bins);
  a.dft = static_cast<int64_t>(dft);
  a.rate = static_cast<int64_t>(rate);
  return a;
}

OpRecord MelWeightMatrixRecord() {
  OpRecord r;
  r.name = "MelWeightMatrix";
  r.opset_min = 17;
  r.family = "signal";
  r.summary = "triangular mel filters [dft_length / 2 + 1, num_mel_bins] (a host-built constant)";
  r.min_inputs = r.max_inputs = 5;
  r.host_inputs = {0, 1, 2, 3, 4};
  r.attributes = {{"output_datatype", AttrValue(int64_t{1}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(MelArgs a, MelArgsOf(node));
    ALKNET_ASSIGN_OR_RETURN(DType d,
                            DeviceTypeOfOnnx(std::get<int64_t>(at.at("output_datatype")),
                                             node.Describe() + ": attribute 'output_datatype'"));
    return std::vector<TensorDesc>{
        TensorDesc{d, {static_cast<uint64_t>(a.dft / 2 + 1), static_cast<uint64_t>(a.bins)}}};
  };
  auto build = [](const OpNode& node, const Attributes& at) {
    const MelArgs a = *MelArgsOf(node);
    const int64_t rows = a.dft / 2 + 1;
    RefTensor t{*DeviceTypeOfOnnx(std::get<int64_t>(at.at("output_datatype")), ""),
                {static_cast<uint64_t>(rows), static_cast<uint64_t>(a.bins)},
                std::vector<double>(static_cast<size_t>(rows * a.bins), 0.0)};
    auto mel = [](double f) { return 2595.0 * std::log10(1.0 + f / 700.0); };
    const double lo = mel(a.lo), step = (mel(a.hi) - lo) / static_cast<double>(a.bins + 2);
    std::vector<int64_t> point(static_cast<size_t>(a.bins + 2));
    for (int64_t k = 0; k < a.bins + 2; ++k) {
      const double hz = 700.0 * (std::pow(10.0, (static_cast<double>(k) * step + lo) / 2595.0) - 1);
      const double b =
          std::floor(static_cast<double>(a.dft + 1) * hz / static_cast<double>(a.rate));
      point[static_cast<size_t>(k)] = static_cast<int64_t>(std::clamp(b, 0.0, double(rows - 1)));
    }
    auto at_rc = [&](int64_t row, int64_t col) -> double& {
      return t.data[static_cast<size_t>(row * a.bins + col)];
    };
    for (int64_t i = 0; i < a.bins; ++i) {
      const int64_t left = point[i], centre = point[i + 1], right = point[i + 2];
      if (centre == left) {
        at_rc(centre, i) = 1;
      } else {
        for (int64_t j = left; j <= centre; ++j)
          at_rc(j, i) = static_cast<double>(j - left) / static_cast<double>(centre - left);
      }
      for (int64_t j = centre; j < right; ++j)
        at_rc(j, i) = static_cast<double>(right - j) / static_cast<double>(right - centre);
    }
    if (t.dtype == DType::kI32 || t.dtype == DType::kU32) {
      for (double& v : t.data) v = std::trunc(v);
    }
    return t;
  };
  r.decompose = [build](const OpNode& node, const Attributes& at) -> Result<Graph> {
    return ConstantGraph(5, build(node, at));
  };
  r.reference = [build](const OpNode& node, const Attributes& at, const std::vector<RefTensor>&) {
    return std::vector<RefTensor>{build(node, at)};
  };
  r.hints = {0, 1, 1e-6, 1e-6};
  auto i32 = [](double v) { return RefTensor{DType::kI32, {}, {v}}; };
  auto f32 = [](double v) { return RefTensor{DType::kF32, {}, {v}}; };
  r.test_cases = {
      {{Shape{}, Shape{}, Shape{}, Shape{}, Shape{}},
       {},
       {{0, i32(8)}, {1, i32(16)}, {2, i32(8192)}, {3, f32(0)}, {4, f32(4096)}},
       "ONNX's example"},
      {{Shape{}, Shape{}, Shape{}, Shape{}, Shape{}},
       {},
       {{0, i32(40)}, {1, i32(512)}, {2, i32(16000)}, {3, f32(20)}, {4, f32(7600)}},
       "40 bins, 16 kHz"},
  };
  return r;
}

// ---- DFT (opset 17)
// ------------------------------------------------------------------------------- Naive O(L^2)
// transform along one signal axis: input [batch, ..., L_in, ..., 1 or 2] (real or complex), output
// [..., L_out, ..., 2]. dft_length (a host input) pads or truncates the signal; onesided keeps the
// first L/2 + 1 frequencies of a real input; inverse scales by 1/L.

struct DftPlan {
  uint64_t outer = 1, in_len = 0, length = 0, out_len = 0, inner = 1;
  bool complex_in = false;
  Shape out;
};

Result<DftPlan> PlanDft(const OpNode& node, const Attributes& at) {
  const Shape& s = node.inputs[0].shape;
  const auto rank = static_cast<int64_t>(s.size());
  if (rank < 3 || (s.back() != 1 && s.back() != 2)) {
    return Error{
        ErrorCode::kShape,
        node.Describe() + ": input must be [batch, signal..., 1 or 2], got " + ShapeToString(s)};
  }
  int64_t axis = std::get<int64_t>(at.at("axis"));
  if (axis < 0) axis += rank;
  if (axis < 1 || axis > rank - 2) {
    return Error{ErrorCode::kInvalidAttribute, node.Describe() +
                                                   ": axis must name a signal dimension (1.." +
                                                   std::to_string(rank - 2) + ")"};
  }
  DftPlan p;
  p.complex_in = s.back() == 2;
  p.in_len = s[axis];
  p.length = p.in_len;
  if (node.has_input(1)) {
    const RefTensor* l = node.value(1);
    if (l->data.size() != 1 || l->data[0] < 1)
      return Error{ErrorCode::kShape, node.Describe() + ": dft_length must be a positive scalar"};
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
  r.family = "signal";
  r.shader = "signal/dft";
  r.contract.dtypes = {{DType::kF32}, kIntegers};
  r.summary =
      "discrete Fourier transform along one signal axis (naive O(L^2)), real or complex input";
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
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps&) -> Result<hbs::Value> {
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
            const double a = (inverse ? 2 : -2) * std::numbers::pi *
                             static_cast<double>((k * t) % p.length) /
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
      {{Shape{1, 4, 7, 2}},
       {{"axis", int64_t{2}}, {"inverse", int64_t{1}}},
       {},
       "complex inverse, axis 2"},
      {{Shape{3, 12, 1}, Shape{}},
       {{"onesided", int64_t{1}}},
       {{1, RefTensor{DType::kI32, {}, {16}}}},
       "onesided, padded to 16"},
  };
  return r;
}

// ---- STFT (opset 17)
// ------------------------------------------------------------------------------- Frames of
// frame_length samples every frame_step (both host inputs), optionally windowed, each transformed
// like DFT: output [batch, frames, bins, 2], bins = L/2 + 1 when onesided.

struct StftPlan {
  uint64_t batch = 0, signal = 0, step = 0, length = 0, frames = 0, bins = 0;
  bool complex_in = false;
};

Result<StftPlan> PlanStft(const OpNode& node, const Attributes& at) {
  const Shape& s = node.inputs[0].shape;
  if (s.size() != 3 || (s[2] != 1 && s[2] != 2)) {
    return Error{
        ErrorCode::kShape,
        node.Describe() + ": signal must be [batch, length, 1 or 2], got " + ShapeToString(s)};
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
    if (l->data.size() != 1 || l->data[0] < 1)
      return Error{ErrorCode::kShape, node.Describe() + ": frame_length must be a positive scalar"};
    p.length = static_cast<uint64_t>(l->data[0]);
  }
  if (node.has_input(2)) {
    const TensorDesc& w = node.inputs[2];
    if (w.dtype != DType::kF32 || w.shape.size() != 1 ||
        (p.length != 0 && w.shape[0] != p.length)) {
      return Error{ErrorCode::kShape,
                   node.Describe() + ": window must be f32[frame_length], got " + DescToString(w)};
    }
    p.length = w.shape[0];
  }
  if (p.length == 0 || p.length > p.signal) {
    return Error{
        ErrorCode::kShape,
        node.Describe() + ": needs frame_length (or a window) of at most the signal length"};
  }
  const bool onesided = std::get<int64_t>(at.at("onesided")) != 0;
  if (onesided && p.complex_in)
    return Error{ErrorCode::kUnsupported, node.Describe() + ": onesided needs a real signal"};
  p.frames = (p.signal - p.length) / p.step + 1;
  p.bins = onesided ? p.length / 2 + 1 : p.length;
  return p;
}

OpRecord StftRecord() {
  OpRecord r;
  r.name = "STFT";
  r.opset_min = 17;
  r.family = "signal";
  r.shader = "signal/stft";
  r.contract.dtypes = {{DType::kF32}, kIntegers, {DType::kF32}, kIntegers};
  r.summary =
      "short-time Fourier transform: windowed frames, each a naive DFT (frame_step, frame_length "
      "known at plan time)";
  r.min_inputs = 2;
  r.max_inputs = 4;
  r.host_inputs = {1, 3};
  r.attributes = {{"onesided", AttrValue(int64_t{1}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(StftPlan p, PlanStft(node, at));
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, {p.batch, p.frames, p.bins, 2}}};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps&) -> Result<hbs::Value> {
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
            const double xr = in[0].data[at_in] * w,
                         xi = p.complex_in ? in[0].data[at_in + 1] * w : 0.0;
            const double a = -2 * std::numbers::pi * static_cast<double>((k * t) % p.length) /
                             static_cast<double>(p.length);
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
      {{Shape{2, 40, 1}, Shape{}, std::nullopt, Shape{}},
       {},
       {{1, scalar(6)}, {3, scalar(10)}},
       "real, frame_length"},
      {{Shape{1, 33, 2}, Shape{}, Shape{8}},
       {{"onesided", int64_t{0}}},
       {{1, scalar(5)}},
       "complex, window"},
  };
  return r;
}

}  // namespace

void AddSignalOps(OpTable& table) {
  table.Add(WindowRecord("HannWindow", Window::kHann));
  table.Add(MelWeightMatrixRecord());
  table.Add(WindowRecord("HammingWindow", Window::kHamming));
  table.Add(WindowRecord("BlackmanWindow", Window::kBlackman));
  table.Add(DftRecord());
  table.Add(StftRecord());
}

}  // namespace alknet::compute::ops
