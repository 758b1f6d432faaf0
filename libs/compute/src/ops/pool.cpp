// Pools (ONNX Operators.md): MaxPool (with its optional Indices output), AveragePool,
// GlobalMaxPool, GlobalAveragePool; 1-D to 3-D, all rendered by shaders/pool/pool.wgsl.hbs;
// MaxUnpool (shaders/pool/maxunpool.wgsl.hbs).
// Indices are i32 (the ONNX session maps INT64 to i32, range-checked).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "ops/families.h"
#include "ops/movement.h"
#include "ops/shape_params.h"
#include "ops/spatial.h"

namespace alknet::compute::ops {

namespace {

enum class PoolKind { kMax, kAverage };

bool Flag(const Attributes& at, const char* name) {
  auto it = at.find(name);
  return it != at.end() && std::get<int64_t>(it->second) != 0;
}

// The window of a pool node; a global pool's window is the whole input.
Result<Window> PoolWindow(const OpNode& node, const Attributes& at, bool global) {
  const Shape& x = node.inputs[0].shape;
  if (x.size() < 3 || x.size() > 5) {
    return Error{ErrorCode::kUnsupported, node.Describe() + ": input " + ShapeToString(x) +
                                              " must be [N, C, D1..Dk] with 1 to 3 spatial axes"};
  }
  if (global) {
    Window w;
    w.rank = x.size() - 2;
    w.in.assign(x.begin() + 2, x.end());
    w.kernel = w.in;
    w.out.assign(w.rank, 1);
    w.stride.assign(w.rank, 1);
    w.dilation.assign(w.rank, 1);
    w.pad_begin.assign(w.rank, 0);
    w.pad_end.assign(w.rank, 0);
    return w;
  }
  const auto& ks = Ints(at, "kernel_shape");
  if (ks.size() != x.size() - 2) {
    return Error{ErrorCode::kInvalidAttribute,
                 node.Describe() + ": kernel_shape must have one value per spatial axis (" +
                     std::to_string(x.size() - 2) + ")"};
  }
  std::vector<uint64_t> kernel;
  for (int64_t k : ks) {
    if (k < 1)
      return Error{ErrorCode::kInvalidAttribute,
                   node.Describe() + ": kernel_shape values must be >= 1"};
    kernel.push_back(static_cast<uint64_t>(k));
  }
  return ForwardWindow(node, at, x, kernel, Flag(at, "ceil_mode"));
}

// Whether a MaxPool node asks for its optional Indices output (alknet.outputs = 2).
bool WantIndices(const Attributes& at, bool record_has_indices) {
  auto it = at.find("alknet.outputs");
  return record_has_indices && it != at.end() && std::get<int64_t>(it->second) == 2;
}

Shape PoolOutShape(const Shape& x, const Window& w) {
  Shape s{x[0], x[1]};
  s.insert(s.end(), w.out.begin(), w.out.end());
  return s;
}

// The numbers of a pool's window, in the order of PoolParams (shaders/pool/pool.wgsl.hbs):
// rendered as constants on GPUs, words of the parameter block on CPU adapters.
std::vector<std::pair<std::string, int64_t>> PoolValues(const OpNode& node, const Window& w) {
  const Shape& x = node.inputs[0].shape;
  std::vector<std::pair<std::string, int64_t>> v;
  v.emplace_back("P", static_cast<int64_t>(w.out_size()));
  v.emplace_back("total", static_cast<int64_t>(x[0] * x[1] * w.out_size()));
  const int lead = 3 - static_cast<int>(w.rank);
  const char* axis = "DHW";
  for (int a = 0; a < 3; ++a) {
    const std::string s(1, axis[a]);
    v.emplace_back("I" + s, static_cast<int64_t>(w.In3(a)));
    v.emplace_back("O" + s, static_cast<int64_t>(w.Out3(a)));
    v.emplace_back("K" + s, static_cast<int64_t>(w.Kernel3(a)));
    v.emplace_back("S" + s, w.Stride3(a));
    v.emplace_back("DL" + s, w.Dilation3(a));
    v.emplace_back("P" + s, w.Pad3(a));
    v.emplace_back("P" + s + "E", a < lead ? int64_t{0} : w.pad_end[a - lead]);
  }
  return v;
}

// PoolValues as 32-bit words (24: the uniform struct's size rounded to 16 bytes). The kernel
// computes windows in i32 and output indices in u32.
Result<std::vector<uint32_t>> PoolWords(const OpNode& node, const Window& w) {
  std::vector<uint32_t> words;
  for (const auto& [name, v] : PoolValues(node, w)) {
    const int64_t max = name == "total" ? int64_t{0xFFFFFFFF} : int64_t{0x7FFFFFFF};
    if (v < -int64_t{0x7FFFFFFF} || v > max) {
      return Error{ErrorCode::kLimit, node.Describe() + ": " + name + " = " + std::to_string(v) +
                                          " exceeds the pool kernel's 32-bit arithmetic"};
    }
    words.push_back(static_cast<uint32_t>(v));
  }
  words.resize(24, 0);
  return words;
}

OpRecord PoolRecord(std::string name, PoolKind kind, bool global, int opset_min, int opset_max,
                    bool indices) {
  OpRecord r;
  r.name = std::move(name);
  r.opset_min = opset_min;
  r.opset_max = opset_max;
  r.family = "pool";
  r.shader = "pool/pool";
  const bool max = kind == PoolKind::kMax;
  // MaxPool also takes uint8 and int8 (opset 12; u32 and i32 on the device) and keeps the
  // type: a maximum needs no arithmetic.
  const bool int_types = max && !global;
  r.contract = {.dtypes = {int_types ? DTypeSet{DType::kF32, DType::kU32, DType::kI32}
                                     : DTypeSet{DType::kF32}},
                .contiguous = true};
  if (int_types) r.test_dtypes = {DType::kF32, DType::kU32, DType::kI32};
  r.summary =
      std::string(max ? "maximum" : "average") +
      (global ? " over all spatial positions" : " over sliding windows") +
      (indices ? " (optional Indices output: flat i32, requested with alknet.outputs = 2)" : "");
  if (!global) {
    r.attributes = WindowAttributes(/*dilations=*/true);
    r.attributes.push_back({"ceil_mode", AttrValue(int64_t{0}), false, {}});
    if (max) {
      // Whether the node asks for Indices (opset 8+): the ONNX session sets this to the node's
      // output count (ONNX models never carry it); the executor needs the exact count.
      r.attributes.push_back(
          {"alknet.outputs", AttrValue(int64_t{1}), false, [indices](const AttrValue& v) {
             const int64_t n = std::get<int64_t>(v);
             if (n == 1 || (n == 2 && indices)) return std::string();
             return std::string(indices ? "must be 1 or 2" : "must be 1 (Indices need opset 8)");
           }});
    }
    if (max) {
      r.attributes.push_back(
          {"storage_order", AttrValue(int64_t{0}), false, [](const AttrValue& v) {
             const int64_t f = std::get<int64_t>(v);
             return f == 0 || f == 1 ? std::string() : std::string("must be 0 or 1");
           }});
    } else {
      r.attributes.push_back({"count_include_pad", AttrValue(int64_t{0}), false, {}});
    }
  }
  r.infer = [global, indices](const OpNode& node,
                              const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(Window w, PoolWindow(node, at, global));
    const Shape out = PoolOutShape(node.inputs[0].shape, w);
    std::vector<TensorDesc> o{TensorDesc{node.inputs[0].dtype, out}};
    if (WantIndices(at, indices)) {
      if (node.inputs[0].elements() > (uint64_t{1} << 31)) {
        return Error{ErrorCode::kUnsupported,
                     node.Describe() + ": Indices are i32; the input has more than 2^31 elements"};
      }
      o.push_back(TensorDesc{DType::kI32, out});
    }
    return o;
  };
  r.context = [max, global, indices](const OpNode& node, const Attributes& at,
                                     const DeviceCaps& caps) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(Window w, PoolWindow(node, at, global));
    hbs::Object o;
    if (ShapesInParams(caps)) {
      // Sizes beyond the kernel's 32-bit arithmetic are refused here, before any compile.
      if (auto words = PoolWords(node, w); !words.ok()) return std::move(words).error();
      o.set("param_block", true);
    } else {
      o.set("param_block", false);
      for (const auto& [name, v] : PoolValues(node, w)) o.set(name, v);
    }
    o.set("max", max);
    const DType dt = node.inputs[0].dtype;
    o.set("t", std::string(dt == DType::kU32 ? "u32" : dt == DType::kI32 ? "i32" : "f32"));
    o.set("indices", WantIndices(at, indices));
    o.set("column_major", Flag(at, "storage_order"));
    o.set("count_pad", !max && Flag(at, "count_include_pad"));
    return hbs::Value(std::move(o));
  };
  r.params = [global](const OpNode& node, const Attributes& at,
                      const DeviceCaps& caps) -> Result<std::vector<uint32_t>> {
    if (!ShapesInParams(caps)) return std::vector<uint32_t>{};
    ALKNET_ASSIGN_OR_RETURN(Window w, PoolWindow(node, at, global));
    return PoolWords(node, w);
  };
  r.dispatch = [global](const OpNode& node, const Attributes& at, const DeviceCaps&) {
    Window w = *PoolWindow(node, at, global);
    DispatchPlan p;
    p.invocations = node.inputs[0].shape[0] * node.inputs[0].shape[1] * w.out_size();
    return p;
  };
  r.reference = [max, global, indices](const OpNode& node, const Attributes& at,
                                       const std::vector<RefTensor>& in) {
    Window w = *PoolWindow(node, at, global);
    const Shape& xs = in[0].shape;
    const Shape out_shape = PoolOutShape(xs, w);
    const uint64_t lines = xs[0] * xs[1], isp = w.in_size(), osp = w.out_size();
    RefTensor y{in[0].dtype, out_shape, std::vector<double>(lines * osp)};
    RefTensor ind{DType::kI32, out_shape, std::vector<double>(lines * osp)};
    const bool count_pad = !max && Flag(at, "count_include_pad");
    const bool column_major = Flag(at, "storage_order");
    std::vector<int64_t> pe(3, 0);
    for (size_t a = 0; a < w.rank; ++a) pe[3 - w.rank + a] = w.pad_end[a];
    for (uint64_t l = 0; l < lines; ++l) {
      for (uint64_t o = 0; o < osp; ++o) {
        const int64_t oc[3] = {int64_t(o / (w.Out3(1) * w.Out3(2))),
                               int64_t((o / w.Out3(2)) % w.Out3(1)), int64_t(o % w.Out3(2))};
        double best = -INFINITY, sum = 0;
        int64_t best_at = -1, count = 0;
        for (uint64_t k = 0; k < w.kernel_size(); ++k) {
          const int64_t kc[3] = {int64_t(k / (w.Kernel3(1) * w.Kernel3(2))),
                                 int64_t((k / w.Kernel3(2)) % w.Kernel3(1)),
                                 int64_t(k % w.Kernel3(2))};
          int64_t c[3];
          bool inside = true, padded = true;
          for (int a = 0; a < 3; ++a) {
            c[a] = oc[a] * w.Stride3(a) - w.Pad3(a) + kc[a] * w.Dilation3(a);
            inside = inside && c[a] >= 0 && c[a] < int64_t(w.In3(a));
            padded = padded && c[a] >= -w.Pad3(a) && c[a] < int64_t(w.In3(a)) + pe[a];
          }
          if (count_pad && padded) ++count;
          if (!inside) continue;
          const int64_t at_row = (c[0] * int64_t(w.In3(1)) + c[1]) * int64_t(w.In3(2)) + c[2];
          const double v = in[0].data[l * isp + at_row];
          if (max) {
            if (best_at < 0 || v > best) {
              best = v;
              best_at = column_major ? (c[2] * int64_t(w.In3(1)) + c[1]) * int64_t(w.In3(0)) + c[0]
                                     : at_row;
            }
          } else {
            sum += v;
            if (!count_pad) ++count;
          }
        }
        y.data[l * osp + o] =
            max ? (best_at < 0 ? 0.0 : best) : sum / double(std::max<int64_t>(count, 1));
        ind.data[l * osp + o] = double(l * isp + std::max<int64_t>(best_at, 0));
      }
    }
    std::vector<RefTensor> out{std::move(y)};
    if (WantIndices(at, indices)) out.push_back(std::move(ind));
    return out;
  };
  r.hints = {-3, 3, 1e-6, 1e-5};
  auto ints = [](std::vector<int64_t> v) { return AttrValue(std::move(v)); };
  auto i64 = [](int64_t v) { return AttrValue(v); };
  if (global) {
    r.test_cases = {{{Shape{2, 3, 5, 7}}, {}, {}, "2-D"},
                    {{Shape{1, 4, 9}}, {}, {}, "1-D"},
                    {{Shape{1, 2, 3, 4, 5}}, {}, {}, "3-D"}};
  } else if (max) {
    r.test_cases = {
        {{Shape{2, 3, 9, 8}},
         {{"kernel_shape", ints({3, 3})}, {"strides", ints({2, 2})}, {"pads", ints({1, 1, 1, 1})}},
         {},
         "2-D, ResNet stem"},
        {{Shape{1, 2, 7, 6}},
         {{"kernel_shape", ints({2, 3})},
          {"dilations", ints({2, 1})},
          {"ceil_mode", i64(1)},
          {"strides", ints({2, 2})},
          {"storage_order", i64(1)},
          {"alknet.outputs", i64(indices ? 2 : 1)}},
         {},
         "dilations, ceil_mode, Indices with storage_order 1"},
        {{Shape{1, 3, 10}},
         {{"kernel_shape", ints({4})},
          {"auto_pad", AttrValue(std::string("SAME_LOWER"))},
          {"strides", ints({3})}},
         {},
         "1-D, SAME_LOWER"},
        {{Shape{1, 2, 4, 5, 6}},
         {{"kernel_shape", ints({2, 2, 3})}, {"strides", ints({2, 1, 2})}},
         {},
         "3-D"},
    };
    if (indices) {
      r.test_cases.push_back({{Shape{2, 3, 9, 8}},
                              {{"kernel_shape", ints({3, 3})},
                               {"strides", ints({2, 2})},
                               {"pads", ints({1, 1, 1, 1})},
                               {"alknet.outputs", i64(2)}},
                              {},
                              "2-D with Indices"});
    }
  } else {
    r.test_cases = {
        {{Shape{2, 3, 9, 8}},
         {{"kernel_shape", ints({3, 3})},
          {"strides", ints({2, 2})},
          {"pads", ints({1, 2, 1, 0})},
          {"count_include_pad", i64(1)}},
         {},
         "2-D, count_include_pad"},
        {{Shape{1, 2, 7, 6}},
         {{"kernel_shape", ints({3, 2})},
          {"ceil_mode", i64(1)},
          {"strides", ints({2, 2})},
          {"pads", ints({1, 1, 1, 1})}},
         {},
         "ceil_mode, pads excluded"},
        {{Shape{1, 3, 10}},
         {{"kernel_shape", ints({4})},
          {"auto_pad", AttrValue(std::string("SAME_UPPER"))},
          {"strides", ints({3})}},
         {},
         "1-D, SAME_UPPER"},
        {{Shape{1, 2, 4, 5, 6}},
         {{"kernel_shape", ints({2, 2, 3})}, {"auto_pad", AttrValue(std::string("VALID"))}},
         {},
         "3-D, VALID"},
    };
  }
  return r;
}

// ---- MaxUnpool ----------------------------------------------------------------------------
//
// The inverse of MaxPool with Indices: a zero tensor of the unpooled shape with each X value
// written at its index (flat over the whole output, as MaxPool's Indices are). The kernel runs
// one invocation per output element and searches the X values of its own (n, c) plane for
// its index, so indices must point into their own plane (MaxPool's always do); the cost is
// plane_out * plane_in per plane. An output_shape larger than the unpooled shape keeps the
// indices' coordinates in the unpooled shape and pads each axis at its end (ONNX's expected
// outputs; test_maxunpool_export_with_output_shape).

struct UnpoolShapes {
  Shape unpooled;  // MaxPool's input shape, in which the indices are flat
  Shape out;       // output_shape where given, else `unpooled`
};

Result<UnpoolShapes> UnpoolShape(const OpNode& node, const Attributes& at) {
  const Shape& x = node.inputs[0].shape;
  if (x.size() < 3 || x.size() > 5) {
    return Error{ErrorCode::kShape, node.Describe() + ": X " + ShapeToString(x) +
                                        " must be [N, C, D1..Dk] with 1 to 3 spatial axes"};
  }
  if (node.inputs[1].shape != x) {
    return Error{ErrorCode::kShape, node.Describe() + ": I " + ShapeToString(node.inputs[1].shape) +
                                        " must have X's shape " + ShapeToString(x)};
  }
  const size_t k = x.size() - 2;
  const auto& ks = Ints(at, "kernel_shape");
  const auto& st = Ints(at, "strides");
  const auto& pads = Ints(at, "pads");
  if (ks.size() != k || (!st.empty() && st.size() != k) ||
      (!pads.empty() && pads.size() != 2 * k)) {
    return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": kernel_shape needs " +
                                                   std::to_string(k) + " values, strides " +
                                                   std::to_string(k) + " and pads " +
                                                   std::to_string(2 * k)};
  }
  Shape out{x[0], x[1]};
  for (size_t a = 0; a < k; ++a) {
    const int64_t s = st.empty() ? 1 : st[a];
    const int64_t pb = pads.empty() ? 0 : pads[a], pe = pads.empty() ? 0 : pads[a + k];
    if (ks[a] < 1 || s < 1 || pb < 0 || pe < 0) {
      return Error{ErrorCode::kInvalidAttribute,
                   node.Describe() + ": kernel_shape and strides must be >= 1, pads >= 0"};
    }
    const int64_t d = (static_cast<int64_t>(x[2 + a]) - 1) * s - pb - pe + ks[a];
    if (d < 0 || d > (int64_t{1} << 40)) {
      return Error{ErrorCode::kShape, node.Describe() + ": the unpooled extent of axis " +
                                          std::to_string(2 + a) + " is " + std::to_string(d)};
    }
    out.push_back(static_cast<uint64_t>(d));
  }
  if (node.has_input(2)) {
    const RefTensor* os = node.value(2);
    if (os->data.size() != x.size()) {
      return Error{ErrorCode::kShape, node.Describe() + ": output_shape must have " +
                                          std::to_string(x.size()) + " values"};
    }
    Shape given;
    for (double v : os->data) {
      if (!(v >= 0 && v <= double(int64_t{1} << 40))) {
        return Error{ErrorCode::kShape, node.Describe() + ": output_shape value " +
                                            std::to_string(v) + " is out of range"};
      }
      given.push_back(static_cast<uint64_t>(v));
    }
    if (given[0] != x[0] || given[1] != x[1]) {
      return Error{ErrorCode::kShape, node.Describe() + ": output_shape " + ShapeToString(given) +
                                          " must keep X's N and C " + ShapeToString(x)};
    }
    for (size_t a = 2; a < given.size(); ++a) {
      if (given[a] < out[a]) {
        return Error{ErrorCode::kUnsupported,
                     node.Describe() + ": output_shape " + ShapeToString(given) +
                         " is smaller than the unpooled shape " + ShapeToString(out) + " on axis " +
                         std::to_string(a) +
                         "; only equal or larger output shapes are implemented"};
      }
    }
    return UnpoolShapes{out, given};
  }
  return UnpoolShapes{out, out};
}

OpRecord MaxUnpoolRecord() {
  OpRecord r;
  r.name = "MaxUnpool";
  r.opset_min = 9;
  r.family = "pool";
  r.shader = "pool/maxunpool";
  r.summary = "zeros of the unpooled shape (or output_shape) with X written at MaxPool's Indices I";
  r.min_inputs = 2;
  r.max_inputs = 3;
  r.host_inputs = {2};
  r.contract = {.dtypes = {{DType::kF32}, {DType::kI32}, {DType::kI32}}, .contiguous = true};
  r.attributes = {{"kernel_shape", std::nullopt, false, {}},
                  {"pads", AttrValue(std::vector<int64_t>{}), false, {}},
                  {"strides", AttrValue(std::vector<int64_t>{}), false, {}}};
  r.infer = [](const OpNode& node, const Attributes& at) -> Result<std::vector<TensorDesc>> {
    ALKNET_ASSIGN_OR_RETURN(UnpoolShapes sh, UnpoolShape(node, at));
    ALKNET_TRY(
        CheckIndexable(node, std::max(Window::Product(sh.out), Window::Product(sh.unpooled))));
    return std::vector<TensorDesc>{TensorDesc{DType::kF32, sh.out}};
  };
  r.context = [](const OpNode& node, const Attributes& at,
                 const DeviceCaps&) -> Result<hbs::Value> {
    ALKNET_ASSIGN_OR_RETURN(UnpoolShapes sh, UnpoolShape(node, at));
    const Shape& out = sh.out;
    const Shape& x = node.inputs[0].shape;
    const uint64_t lines = x[0] * x[1];
    hbs::Object o;
    // Padded: the output's spatial axes (innermost first) with the unpooled extents.
    o.set("padded", sh.out != sh.unpooled);
    hbs::Array axes;
    for (size_t a = out.size(); a-- > 2;) {
      axes.push_back(hbs::Value::object({{"o", out[a]}, {"u", sh.unpooled[a]}}));
    }
    o.set("axes", hbs::Value(std::move(axes)));
    o.set("plane_unpooled", lines == 0 ? uint64_t{0} : Window::Product(sh.unpooled) / lines);
    o.set("total", Window::Product(out));
    // At least 1: WGSL refuses a division by a constant 0 (nothing runs when total is 0).
    o.set("plane_out", std::max<uint64_t>(1, lines == 0 ? 0 : Window::Product(out) / lines));
    o.set("plane_in", lines == 0 ? uint64_t{0} : node.inputs[0].elements() / lines);
    return hbs::Value(std::move(o));
  };
  r.dispatch = [](const OpNode& node, const Attributes& at, const DeviceCaps&) {
    return LinearOver(Window::Product(UnpoolShape(node, at).value().out));
  };
  r.reference = [](const OpNode& node, const Attributes& at, const std::vector<RefTensor>& in) {
    const UnpoolShapes sh = UnpoolShape(node, at).value();
    const Shape& out_shape = sh.out;
    RefTensor y{DType::kF32, out_shape, std::vector<double>(Window::Product(out_shape), 0.0)};
    const uint64_t unpooled = Window::Product(sh.unpooled);
    for (size_t i = 0; i < in[1].data.size(); ++i) {
      const double idx = in[1].data[i];
      if (!(idx >= 0 && idx < double(unpooled))) continue;
      // The index's coordinates in the unpooled shape, the same ones in the output.
      uint64_t rest = static_cast<uint64_t>(idx), flat = 0, mult = 1;
      for (size_t a = out_shape.size(); a-- > 0;) {
        flat += (rest % sh.unpooled[a]) * mult;
        rest /= sh.unpooled[a];
        mult *= out_shape[a];
      }
      y.data[flat] = in[0].data[i];
    }
    return std::vector<RefTensor>{std::move(y)};
  };
  r.hints = {-3, 3, 0, 0};
  // Indices as MaxPool makes them: one position of each window, in its own plane.
  auto indices = [](Shape x, std::vector<int64_t> k, std::vector<int64_t> s, Shape out) {
    RefTensor t{DType::kI32, x, {}};
    const uint64_t lines = x[0] * x[1];
    uint64_t plane_in = 1, plane_out = 1;
    for (size_t a = 2; a < x.size(); ++a) {
      plane_in *= x[a];
      plane_out *= out[a];
    }
    uint64_t seed = 99;
    for (uint64_t l = 0; l < lines; ++l) {
      for (uint64_t q = 0; q < plane_in; ++q) {
        uint64_t rest = q, flat = 0, mult = 1;
        std::vector<uint64_t> pos(x.size() - 2);
        for (size_t a = x.size(); a-- > 2;) {
          seed = seed * 6364136223846793005ull + 1442695040888963407ull;
          const uint64_t c = rest % x[a];
          rest /= x[a];
          pos[a - 2] =
              c * static_cast<uint64_t>(s[a - 2]) + (seed >> 33) % static_cast<uint64_t>(k[a - 2]);
        }
        for (size_t a = x.size(); a-- > 2;) {
          flat += pos[a - 2] * mult;
          mult *= out[a];
        }
        t.data.push_back(double(l * plane_out + flat));
      }
    }
    return t;
  };
  auto ints = [](std::vector<int64_t> v) { return AttrValue(std::move(v)); };
  r.test_cases = {
      {{Shape{2, 3, 3, 4}, Shape{2, 3, 3, 4}, std::nullopt},
       {{"kernel_shape", ints({2, 2})}, {"strides", ints({2, 2})}},
       {{1, indices({2, 3, 3, 4}, {2, 2}, {2, 2}, {2, 3, 6, 8})}},
       "2-D, kernel 2 stride 2"},
      {{Shape{1, 2, 5}, Shape{1, 2, 5}, Shape{3}},
       {{"kernel_shape", ints({3})}, {"strides", ints({2})}},
       {{1, indices({1, 2, 5}, {3}, {2}, {1, 2, 11})},
        {2, RefTensor{DType::kI32, {3}, {1, 2, 11}}}},
       "1-D, overlapping windows, output_shape given"},
      {{Shape{2, 2, 2, 3}, Shape{2, 2, 2, 3}, Shape{4}},
       {{"kernel_shape", ints({2, 2})}, {"strides", ints({2, 2})}},
       {{1, indices({2, 2, 2, 3}, {2, 2}, {2, 2}, {2, 2, 4, 6})},
        {2, RefTensor{DType::kI32, {4}, {2, 2, 5, 8}}}},
       "2-D, output_shape larger than the unpooled shape"},
  };
  return r;
}

}  // namespace

void AddPoolOps(OpTable& table) {
  // Indices (and storage_order) from opset 8; ceil_mode and dilations from 10; the window
  // rules are the same across versions, and attributes a version lacks keep their defaults.
  table.Add(PoolRecord("MaxPool", PoolKind::kMax, false, 1, 7, false));
  table.Add(PoolRecord("MaxPool", PoolKind::kMax, false, 8, 99, true));
  table.Add(PoolRecord("AveragePool", PoolKind::kAverage, false, 1, 99, false));
  table.Add(PoolRecord("GlobalMaxPool", PoolKind::kMax, true, 1, 99, false));
  table.Add(PoolRecord("GlobalAveragePool", PoolKind::kAverage, true, 1, 99, false));
  table.Add(MaxUnpoolRecord());
}

}  // namespace alknet::compute::ops
