// Window geometry shared by Conv, ConvTranspose and the pools: kernel, strides, dilations,
// pads (explicit or from auto_pad) and the output extent of each spatial axis, as ONNX
// defines them (onnx/docs/Operators.md, Conv and MaxPool: "auto_pad", "pads", "ceil_mode").
// Kernels see every op as 3-D: a 1-D or 2-D op gets leading axes of extent 1.
#pragma once

#include <string>
#include <type_traits>
#include <vector>

#include "alknet/compute/op_table.h"
#include "ops/elementwise.h"

namespace alknet::compute::ops {

struct Window {
  size_t rank = 0;  // spatial axes of the op (1..3)
  std::vector<uint64_t> in, kernel, out;
  std::vector<int64_t> stride, dilation, pad_begin, pad_end;

  uint64_t in_size() const { return Product(in); }
  uint64_t out_size() const { return Product(out); }
  uint64_t kernel_size() const { return Product(kernel); }
  static uint64_t Product(const std::vector<uint64_t>& v) {
    uint64_t p = 1;
    for (uint64_t x : v) p *= x;
    return p;
  }
  // Axis `a` of the 3-D view (0 = depth, 1 = height, 2 = width).
  uint64_t In3(int a) const { return At3(in, a, 1); }
  uint64_t Out3(int a) const { return At3(out, a, 1); }
  uint64_t Kernel3(int a) const { return At3(kernel, a, 1); }
  int64_t Stride3(int a) const { return At3(stride, a, 1); }
  int64_t Dilation3(int a) const { return At3(dilation, a, 1); }
  int64_t Pad3(int a) const { return At3(pad_begin, a, 0); }

 private:
  template <typename T>
  T At3(const std::vector<T>& v, int a, std::type_identity_t<T> fill) const {
    const int lead = 3 - static_cast<int>(rank);
    return a < lead ? fill : v[a - lead];
  }
};

// The attributes every windowed op takes. `ints` defaults are empty (= ONNX's default).
inline std::vector<AttributeSpec> WindowAttributes(bool dilations = true) {
  auto auto_pad = [](const AttrValue& v) {
    const std::string& s = std::get<std::string>(v);
    return s == "NOTSET" || s == "SAME_UPPER" || s == "SAME_LOWER" || s == "VALID"
               ? std::string()
               : std::string("must be NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  };
  std::vector<AttributeSpec> a = {
      {"auto_pad", AttrValue(std::string("NOTSET")), false, auto_pad},
      {"kernel_shape", AttrValue(std::vector<int64_t>{}), false, {}},
      {"pads", AttrValue(std::vector<int64_t>{}), false, {}},
      {"strides", AttrValue(std::vector<int64_t>{}), false, {}},
  };
  if (dilations) a.push_back({"dilations", AttrValue(std::vector<int64_t>{}), false, {}});
  return a;
}

inline const std::vector<int64_t>& Ints(const Attributes& at, const char* name) {
  static const std::vector<int64_t> kEmpty;
  auto it = at.find(name);
  return it == at.end() ? kEmpty : std::get<std::vector<int64_t>>(it->second);
}

// Geometry of a forward window op (Conv, pools) over input `x` ([N, C, spatial...]).
// `kernel`: the window extent per spatial axis (from W or the kernel_shape attribute).
inline Result<Window> ForwardWindow(const OpNode& node, const Attributes& at, const Shape& x,
                                    const std::vector<uint64_t>& kernel, bool ceil_mode) {
  Window w;
  if (x.size() < 3 || x.size() > 5) {
    return Error{ErrorCode::kUnsupported, node.Describe() + ": input " + ShapeToString(x) +
                                              " must be [N, C, D1..Dk] with 1 to 3 spatial axes"};
  }
  w.rank = x.size() - 2;
  const size_t k = w.rank;
  if (kernel.size() != k) {
    return Error{ErrorCode::kShape, node.Describe() + ": kernel has " +
                                        std::to_string(kernel.size()) + " axes, the input " +
                                        std::to_string(k) + " spatial axes"};
  }
  w.in.assign(x.begin() + 2, x.end());
  w.kernel = kernel;
  auto list = [&](const char* name, int64_t fill, size_t n, std::vector<int64_t>* out) -> Status {
    const auto& v = Ints(at, name);
    if (v.empty()) {
      out->assign(n, fill);
      return Ok{};
    }
    if (v.size() != n) {
      return Error{ErrorCode::kInvalidAttribute, node.Describe() + ": attribute '" + name +
                                                     "' has " + std::to_string(v.size()) +
                                                     " values; expected " + std::to_string(n)};
    }
    *out = v;
    return Ok{};
  };
  ALKNET_TRY(list("strides", 1, k, &w.stride));
  if (at.count("dilations")) {
    ALKNET_TRY(list("dilations", 1, k, &w.dilation));
  } else {
    w.dilation.assign(k, 1);
  }
  std::vector<int64_t> pads;
  ALKNET_TRY(list("pads", 0, 2 * k, &pads));
  for (size_t i = 0; i < k; ++i) {
    if (w.stride[i] < 1 || w.dilation[i] < 1 || kernel[i] < 1 || pads[i] < 0 || pads[i + k] < 0) {
      return Error{ErrorCode::kInvalidAttribute,
                   node.Describe() +
                       ": kernel, strides and dilations must be >= 1 and pads >= 0 (axis " +
                       std::to_string(i) + ")"};
    }
  }
  const std::string& auto_pad = std::get<std::string>(at.at("auto_pad"));
  w.pad_begin.assign(k, 0);
  w.pad_end.assign(k, 0);
  w.out.assign(k, 0);
  for (size_t i = 0; i < k; ++i) {
    const int64_t in = static_cast<int64_t>(w.in[i]);
    const int64_t span = (static_cast<int64_t>(kernel[i]) - 1) * w.dilation[i] + 1;
    const int64_t s = w.stride[i];
    int64_t out = 0;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out = (in + s - 1) / s;
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + span - in);
      const int64_t small = total / 2, big = total - small;
      w.pad_begin[i] = auto_pad == "SAME_UPPER" ? small : big;
      w.pad_end[i] = auto_pad == "SAME_UPPER" ? big : small;
    } else {
      if (auto_pad == "NOTSET") {
        w.pad_begin[i] = pads[i];
        w.pad_end[i] = pads[i + k];
      }
      const int64_t room = in + w.pad_begin[i] + w.pad_end[i] - span;
      if (room < 0) {
        return Error{ErrorCode::kShape, node.Describe() + ": the window (extent " +
                                            std::to_string(span) +
                                            ") is larger than the padded input (" +
                                            std::to_string(in + w.pad_begin[i] + w.pad_end[i]) +
                                            ") on spatial axis " + std::to_string(i)};
      }
      out = (ceil_mode ? (room + s - 1) / s : room / s) + 1;
      // A window that would start in the end padding is dropped (ceil_mode, as PyTorch and
      // the ONNX reference do).
      if (ceil_mode && (out - 1) * s >= in + w.pad_begin[i]) --out;
    }
    w.out[i] = static_cast<uint64_t>(out);
  }
  return w;
}

// Template data for the 3-D view: ID IH IW, OD OH OW, KD KH KW, SD.., DD.., PD...
inline void AddWindowContext(const Window& w, hbs::Object& o) {
  const char* axis = "DHW";
  for (int a = 0; a < 3; ++a) {
    const std::string s(1, axis[a]);
    o.set("I" + s, w.In3(a));
    o.set("O" + s, w.Out3(a));
    o.set("K" + s, w.Kernel3(a));
    o.set("S" + s, w.Stride3(a));
    o.set("DL" + s, w.Dilation3(a));
    o.set("P" + s, w.Pad3(a));
  }
}

}  // namespace alknet::compute::ops
