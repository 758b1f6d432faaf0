// Operand descriptions, shapes and numpy broadcasting.
#include <algorithm>

#include "alknet/compute/op.h"

namespace alknet::compute {

std::string AttrToString(const AttrValue& v) {
  struct V {
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", d);
      return buf;
    }
    std::string operator()(const std::string& s) const { return "\"" + s + "\""; }
    std::string operator()(const std::vector<int64_t>& l) const {
      std::string s = "[";
      for (size_t i = 0; i < l.size(); ++i) s += (i ? "," : "") + std::to_string(l[i]);
      return s + "]";
    }
    std::string operator()(const std::vector<double>& l) const {
      std::string s = "[";
      for (size_t i = 0; i < l.size(); ++i) s += (i ? "," : "") + (*this)(l[i]);
      return s + "]";
    }
    std::string operator()(const ConstValue& t) const {
      if (!t) return "tensor(null)";
      std::string s = std::string("tensor ") + DTypeName(t->dtype) + ShapeToString(t->shape);
      if (t->data.size() <= 8) {
        s += " {";
        for (size_t i = 0; i < t->data.size(); ++i) s += (i ? "," : "") + (*this)(t->data[i]);
        s += "}";
      }
      return s;
    }
  };
  return std::visit(V{}, v);
}

std::optional<uint64_t> CheckedElements(const Shape& shape) {
  constexpr uint64_t kMax = static_cast<uint64_t>(INT64_MAX);
  uint64_t n = 1;
  for (uint64_t d : shape) {
    if (d == 0) return 0;  // empty, whatever the other extents
  }
  for (uint64_t d : shape) {
    if (d > kMax / n) return std::nullopt;
    n *= d;
  }
  return n;
}

std::optional<uint64_t> CheckedBytes(const Shape& shape, uint64_t element_size) {
  const std::optional<uint64_t> n = CheckedElements(shape);
  if (!n || (element_size != 0 && *n > static_cast<uint64_t>(INT64_MAX) / element_size))
    return std::nullopt;
  return *n * element_size;
}

Status CheckShapeSize(const Shape& shape, uint64_t element_size, const std::string& what) {
  if (!CheckedElements(shape)) {
    return Error{ErrorCode::kLimit,
                 what + ": shape " + ShapeToString(shape) + " has more than 2^63-1 elements"};
  }
  if (!CheckedBytes(shape, element_size)) {
    return Error{ErrorCode::kLimit, what + ": shape " + ShapeToString(shape) + " at " +
                                        std::to_string(element_size) +
                                        " bytes per element is more than 2^63-1 bytes"};
  }
  return Ok{};
}

uint64_t TensorDesc::elements() const {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}

Shape ContiguousStridesOf(const Shape& shape) {
  Shape s(shape.size());
  uint64_t acc = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}

std::vector<int64_t> TensorDesc::EffectiveStrides() const {
  if (!strides.empty()) return strides;
  Shape s = ContiguousStridesOf(shape);
  return std::vector<int64_t>(s.begin(), s.end());
}

bool TensorDesc::contiguous() const {
  if (offset != 0) return false;
  if (strides.empty()) return true;
  Shape c = ContiguousStridesOf(shape);
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != 1 && static_cast<uint64_t>(strides[i]) != c[i]) return false;
  }
  return true;
}

const char* DTypeName(DType d) { return tensor::Info(d).name.data(); }

uint32_t DeviceElementSize(DType d) {
  if (d == DType::kBool) return 4;
  return tensor::Info(d).block_bytes;
}

std::string ShapeToString(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

std::string DescToString(const TensorDesc& d) {
  if (d.absent) return "absent";
  return std::string(DTypeName(d.dtype)) + ShapeToString(d.shape);
}

std::string OpNode::Describe() const {
  std::string s = op_type;
  if (!name.empty()) s += " '" + name + "'";
  s += " (inputs ";
  for (size_t i = 0; i < inputs.size(); ++i) s += (i ? ", " : "") + DescToString(inputs[i]);
  if (inputs.empty()) s += "none";
  return s + ")";
}

Result<Shape> BroadcastShapes(const std::vector<Shape>& shapes) {
  size_t rank = 0;
  for (const Shape& s : shapes) rank = std::max(rank, s.size());
  Shape out(rank, 1);
  for (size_t k = 0; k < rank; ++k) {
    for (size_t i = 0; i < shapes.size(); ++i) {
      const Shape& s = shapes[i];
      if (k >= s.size()) continue;
      const uint64_t d = s[s.size() - 1 - k];
      uint64_t& o = out[rank - 1 - k];
      if (d == o || d == 1) continue;
      if (o == 1) {
        o = d;
        continue;
      }
      std::string all;
      for (size_t j = 0; j < shapes.size(); ++j)
        all += (j ? " and " : "") + ShapeToString(shapes[j]);
      return Error{ErrorCode::kShape, "shapes " + all + " do not broadcast: dimension " +
                                          std::to_string(rank - 1 - k) + " (from the right: " +
                                          std::to_string(k) + ") is " + std::to_string(o) +
                                          " in one and " + std::to_string(d) + " in another"};
    }
  }
  return out;
}

}  // namespace alknet::compute
