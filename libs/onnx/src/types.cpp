// ONNX element types <-> device dtypes (docs/adr/0002-onnx-dtypes.md) and the conversions.
#include "alknet/onnx/types.h"

#include <cmath>
#include <cstring>
#include <iomanip>
#include <limits>
#include <sstream>

namespace alknet::onnx {

using compute::DType;
using compute::RefTensor;

namespace {

float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {  // subnormal: normalise
      exp = 127 - 15 + 1;
      while ((mant & 0x400u) == 0) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3ffu;
      x = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 31) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | ((exp + 112) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

// binary32 -> binary16, round to nearest even.
uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u)
    return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  if (abs < 0x38800000u) {
    if (abs < 0x33000000u) return static_cast<uint16_t>(sign);
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - (abs >> 23) + 14;
    uint32_t h = mant >> shift;
    const uint32_t rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rest > half || (rest == half && (h & 1u))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = (abs >> 13) - (112u << 10);
  const uint32_t rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

// bfloat16 is the top half of a binary32: widening is exact.
float BFloat16ToFloat(uint16_t b) {
  const uint32_t x = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

// binary32 -> bfloat16 by truncation (dropping the low 16 bits), as ONNX 1.12's reference and
// its backend test data do (onnx/backend/test/case/node/cast.py; later ONNX rounds to nearest
// even); a NaN stays a NaN (a quiet bit is set so that no NaN truncates to infinity).
uint16_t FloatToBFloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x0040u);
  return static_cast<uint16_t>(x >> 16);
}

template <typename T>
T Load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T>
void Store(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

bool IsFloat(ElemType t) {
  return t == ElemType::kFloat || t == ElemType::kDouble || t == ElemType::kFloat16 ||
         t == ElemType::kBFloat16;
}

// Element i of an integer-typed tensor, exactly.
int64_t IntAt(ElemType t, const std::byte* p) {
  switch (t) {
    case ElemType::kUint8: return Load<uint8_t>(p);
    case ElemType::kInt8: return Load<int8_t>(p);
    case ElemType::kUint16: return Load<uint16_t>(p);
    case ElemType::kInt16: return Load<int16_t>(p);
    case ElemType::kInt32: return Load<int32_t>(p);
    case ElemType::kInt64: return Load<int64_t>(p);
    case ElemType::kUint32: return Load<uint32_t>(p);
    case ElemType::kUint64: return static_cast<int64_t>(Load<uint64_t>(p));
    case ElemType::kBool: return Load<uint8_t>(p) != 0 ? 1 : 0;
    default: return 0;
  }
}

}  // namespace

std::string ElemTypeName(ElemType t) {
  switch (t) {
    case ElemType::kUndefined: return "undefined";
    case ElemType::kFloat: return "float";
    case ElemType::kUint8: return "uint8";
    case ElemType::kInt8: return "int8";
    case ElemType::kUint16: return "uint16";
    case ElemType::kInt16: return "int16";
    case ElemType::kInt32: return "int32";
    case ElemType::kInt64: return "int64";
    case ElemType::kString: return "string";
    case ElemType::kBool: return "bool";
    case ElemType::kFloat16: return "float16";
    case ElemType::kDouble: return "double";
    case ElemType::kUint32: return "uint32";
    case ElemType::kUint64: return "uint64";
    case ElemType::kComplex64: return "complex64";
    case ElemType::kComplex128: return "complex128";
    case ElemType::kBFloat16: return "bfloat16";
  }
  return "type " + std::to_string(static_cast<int>(t));
}

size_t ElemSize(ElemType t) {
  switch (t) {
    case ElemType::kBool:
    case ElemType::kUint8:
    case ElemType::kInt8: return 1;
    case ElemType::kUint16:
    case ElemType::kInt16:
    case ElemType::kFloat16:
    case ElemType::kBFloat16: return 2;
    case ElemType::kFloat:
    case ElemType::kInt32:
    case ElemType::kUint32: return 4;
    case ElemType::kInt64:
    case ElemType::kUint64:
    case ElemType::kDouble: return 8;
    default: return 0;
  }
}

Result<DType> DeviceTypeOf(ElemType t, bool shader_f16, const std::string& what) {
  switch (t) {
    case ElemType::kFloat:
    case ElemType::kDouble:
    case ElemType::kBFloat16: return DType::kF32;  // widened exactly; rounded back on the way out
    case ElemType::kInt8:
    case ElemType::kInt16:
    case ElemType::kInt32:
    case ElemType::kInt64: return DType::kI32;
    case ElemType::kUint8:
    case ElemType::kUint16:
    case ElemType::kUint32:
    case ElemType::kUint64: return DType::kU32;
    case ElemType::kBool: return DType::kBool;
    case ElemType::kFloat16:
      if (shader_f16) return DType::kF16;
      return Error{ErrorCode::kUnsupported,
                   what +
                       " is float16, and this device has no shader-f16 feature "
                       "(pick another adapter with ALKNET_ADAPTER or convert the model to float)"};
    default:
      return Error{ErrorCode::kUnsupported,
                   what + " has ONNX type " + ElemTypeName(t) +
                       ", which alknet cannot compute with (float, double, float16, "
                       "bfloat16, int8..int64, uint8..uint64 and bool are supported)"};
  }
}

std::optional<ElemType> ElemTypeOf(DType d) {
  switch (d) {
    case DType::kF32: return ElemType::kFloat;
    case DType::kF16: return ElemType::kFloat16;
    case DType::kF64: return ElemType::kDouble;
    case DType::kBF16: return ElemType::kBFloat16;
    case DType::kI8: return ElemType::kInt8;
    case DType::kI16: return ElemType::kInt16;
    case DType::kI32: return ElemType::kInt32;
    case DType::kI64: return ElemType::kInt64;
    case DType::kU8: return ElemType::kUint8;
    case DType::kU16: return ElemType::kUint16;
    case DType::kU32: return ElemType::kUint32;
    case DType::kU64: return ElemType::kUint64;
    case DType::kBool: return ElemType::kBool;
    default: return std::nullopt;
  }
}

uint64_t Tensor::elements() const {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}

double Tensor::At(uint64_t i) const {
  if (type == ElemType::kString) return std::numeric_limits<double>::quiet_NaN();
  const std::byte* p = data.data() + i * ElemSize(type);
  switch (type) {
    case ElemType::kFloat: return Load<float>(p);
    case ElemType::kDouble: return Load<double>(p);
    case ElemType::kFloat16: return HalfToFloat(Load<uint16_t>(p));
    case ElemType::kBFloat16: return BFloat16ToFloat(Load<uint16_t>(p));
    case ElemType::kUint64: return static_cast<double>(Load<uint64_t>(p));
    default: return static_cast<double>(IntAt(type, p));
  }
}

Result<RefTensor> ToRef(const Tensor& t, bool shader_f16) {
  ALKNET_ASSIGN_OR_RETURN(DType d, DeviceTypeOf(t.type, shader_f16, "tensor '" + t.name + "'"));
  RefTensor r{d, t.shape, {}};
  const uint64_t n = t.elements();
  if (t.data.size() != n * ElemSize(t.type)) {
    return Error{ErrorCode::kInvalidArgument,
                 "tensor '" + t.name + "' holds " + std::to_string(t.data.size()) + " bytes for " +
                     std::to_string(n) + " elements of " + ElemTypeName(t.type)};
  }
  r.data.resize(n);
  for (uint64_t i = 0; i < n; ++i) r.data[i] = t.At(i);
  return r;
}

namespace {

Status RangeError(const std::string& what, uint64_t i, const std::string& value,
                  const char* device) {
  return Error{ErrorCode::kUnsupported,
               what + ": element " + std::to_string(i) + " = " + value +
                   " does not fit the device type " + device +
                   " (alknet computes int64 as i32, uint64 as u32 and double as f32; "
                   "docs/adr/0002-onnx-dtypes.md)"};
}

}  // namespace

Result<std::vector<std::byte>> ToDeviceBytes(const Tensor& t, bool shader_f16) {
  const std::string what = "tensor '" + t.name + "'";
  ALKNET_ASSIGN_OR_RETURN(DType d, DeviceTypeOf(t.type, shader_f16, what));
  const uint64_t n = t.elements();
  const size_t es = ElemSize(t.type);
  if (t.data.size() != n * es) {
    return Error{ErrorCode::kInvalidArgument, what + " holds " + std::to_string(t.data.size()) +
                                                  " bytes for " + std::to_string(n) +
                                                  " elements of " + ElemTypeName(t.type)};
  }
  // Same representation: no conversion.
  if ((t.type == ElemType::kFloat && d == DType::kF32) ||
      (t.type == ElemType::kInt32 && d == DType::kI32) ||
      (t.type == ElemType::kUint32 && d == DType::kU32) ||
      (t.type == ElemType::kBool && d == DType::kBool) ||
      (t.type == ElemType::kFloat16 && d == DType::kF16)) {
    if (t.type == ElemType::kBool) {
      std::vector<std::byte> b(t.data.size());
      for (size_t i = 0; i < b.size(); ++i)
        b[i] = t.data[i] != std::byte{0} ? std::byte{1} : std::byte{0};
      return b;
    }
    return t.data;
  }
  std::vector<std::byte> out(n * 4);
  for (uint64_t i = 0; i < n; ++i) {
    const std::byte* p = t.data.data() + i * es;
    std::byte* q = out.data() + i * 4;
    if (t.type == ElemType::kDouble) {
      // Rounding is the documented narrowing; a finite value beyond float32's range would
      // become infinity, which is data loss: refused.
      const double v = Load<double>(p);
      if (std::isfinite(v) &&
          std::fabs(v) > static_cast<double>(std::numeric_limits<float>::max())) {
        std::ostringstream text;
        text << std::setprecision(7) << v;
        ALKNET_TRY(RangeError(what, i, text.str(), "f32"));
      }
      Store<float>(q, static_cast<float>(v));
    } else if (t.type == ElemType::kBFloat16) {
      Store<float>(q, BFloat16ToFloat(Load<uint16_t>(p)));
    } else if (t.type == ElemType::kUint64) {
      const uint64_t v = Load<uint64_t>(p);
      if (v > std::numeric_limits<uint32_t>::max()) {
        ALKNET_TRY(RangeError(what, i, std::to_string(v), "u32"));
      }
      Store<uint32_t>(q, static_cast<uint32_t>(v));
    } else {
      const int64_t v = IntAt(t.type, p);
      if (d == DType::kI32) {
        if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
          ALKNET_TRY(RangeError(what, i, std::to_string(v), "i32"));
        }
        Store<int32_t>(q, static_cast<int32_t>(v));
      } else {
        Store<uint32_t>(q, static_cast<uint32_t>(v));
      }
    }
  }
  return out;
}

std::optional<uint64_t> FirstBeyondF32(const Tensor& t) {
  if (t.type != ElemType::kDouble || t.data.size() != t.elements() * sizeof(double)) {
    return std::nullopt;
  }
  constexpr double kMax = static_cast<double>(std::numeric_limits<float>::max());
  for (uint64_t i = 0; i < t.elements(); ++i) {
    const double v = Load<double>(t.data.data() + i * sizeof(double));
    if (std::isfinite(v) && std::fabs(v) > kMax) return i;
  }
  return std::nullopt;
}

Result<std::vector<std::byte>> RefToDeviceBytes(const RefTensor& r, const std::string& what) {
  const size_t es = r.dtype == DType::kBool ? 1 : compute::DeviceElementSize(r.dtype);
  std::vector<std::byte> out(r.data.size() * es);
  for (size_t i = 0; i < r.data.size(); ++i) {
    const double v = r.data[i];
    std::byte* q = out.data() + i * es;
    switch (r.dtype) {
      case DType::kF32: Store<float>(q, static_cast<float>(v)); break;
      case DType::kF16: Store<uint16_t>(q, FloatToHalf(static_cast<float>(v))); break;
      case DType::kBool: *q = v != 0 ? std::byte{1} : std::byte{0}; break;
      case DType::kI32:
        if (!(v >= -2147483648.0 && v <= 2147483647.0)) {
          ALKNET_TRY(RangeError(what, i, std::to_string(static_cast<long long>(v)), "i32"));
        }
        Store<int32_t>(q, static_cast<int32_t>(v));
        break;
      case DType::kU32:
        if (!(v >= 0 && v <= 4294967295.0)) {
          ALKNET_TRY(RangeError(what, i, std::to_string(static_cast<long long>(v)), "u32"));
        }
        Store<uint32_t>(q, static_cast<uint32_t>(v));
        break;
      default:
        return Error{ErrorCode::kUnsupported, what + " has dtype " + compute::DTypeName(r.dtype) +
                                                  ", which cannot live on the device"};
    }
  }
  return out;
}

namespace {

// One value into the ONNX type `to` at q. Integers wrap like a C cast (the device computed
// int8 arithmetic in i32; narrowing back gives the same bits ONNX's int8 arithmetic would).
void StoreAs(ElemType to, std::byte* q, double fv, int64_t iv, bool integral) {
  switch (to) {
    case ElemType::kFloat:
      Store<float>(q, integral ? static_cast<float>(iv) : static_cast<float>(fv));
      break;
    case ElemType::kDouble: Store<double>(q, integral ? static_cast<double>(iv) : fv); break;
    case ElemType::kFloat16:
      Store<uint16_t>(q, FloatToHalf(integral ? static_cast<float>(iv) : static_cast<float>(fv)));
      break;
    case ElemType::kBFloat16:
      Store<uint16_t>(q,
                      FloatToBFloat16(integral ? static_cast<float>(iv) : static_cast<float>(fv)));
      break;
    case ElemType::kBool: *q = (integral ? iv != 0 : fv != 0) ? std::byte{1} : std::byte{0}; break;
    default: {
      const int64_t v = integral ? iv : static_cast<int64_t>(fv);
      switch (to) {
        case ElemType::kUint8: Store<uint8_t>(q, static_cast<uint8_t>(v)); break;
        case ElemType::kInt8: Store<int8_t>(q, static_cast<int8_t>(v)); break;
        case ElemType::kUint16: Store<uint16_t>(q, static_cast<uint16_t>(v)); break;
        case ElemType::kInt16: Store<int16_t>(q, static_cast<int16_t>(v)); break;
        case ElemType::kInt32: Store<int32_t>(q, static_cast<int32_t>(v)); break;
        case ElemType::kInt64: Store<int64_t>(q, v); break;
        case ElemType::kUint32: Store<uint32_t>(q, static_cast<uint32_t>(v)); break;
        case ElemType::kUint64: Store<uint64_t>(q, static_cast<uint64_t>(v)); break;
        default: break;
      }
    }
  }
}

}  // namespace

Result<Tensor> FromDevice(std::string name, DType from, const std::vector<uint64_t>& shape,
                          const std::vector<std::byte>& bytes, ElemType to) {
  if (ElemSize(to) == 0) {
    return Error{ErrorCode::kUnsupported,
                 "output '" + name + "' has ONNX type " + ElemTypeName(to)};
  }
  Tensor t{std::move(name), to, shape, {}};
  const uint64_t n = t.elements();
  const size_t fs = from == DType::kBool ? 1 : compute::DeviceElementSize(from);
  if (bytes.size() != n * fs) {
    return Error{ErrorCode::kInvalidArgument,
                 "output '" + t.name + "': " + std::to_string(bytes.size()) +
                     " bytes downloaded for " + std::to_string(n) + " elements"};
  }
  const size_t ts = ElemSize(to);
  t.data.resize(n * ts);
  if ((from == DType::kF32 && to == ElemType::kFloat) ||
      (from == DType::kI32 && to == ElemType::kInt32) ||
      (from == DType::kU32 && to == ElemType::kUint32) ||
      (from == DType::kBool && to == ElemType::kBool) ||
      (from == DType::kF16 && to == ElemType::kFloat16)) {
    t.data = bytes;
    return t;
  }
  for (uint64_t i = 0; i < n; ++i) {
    const std::byte* p = bytes.data() + i * fs;
    std::byte* q = t.data.data() + i * ts;
    switch (from) {
      case DType::kF32: StoreAs(to, q, Load<float>(p), 0, false); break;
      case DType::kF16: StoreAs(to, q, HalfToFloat(Load<uint16_t>(p)), 0, false); break;
      case DType::kI32: StoreAs(to, q, 0, Load<int32_t>(p), true); break;
      case DType::kU32: StoreAs(to, q, 0, Load<uint32_t>(p), true); break;
      case DType::kBool: StoreAs(to, q, 0, Load<uint8_t>(p) != 0 ? 1 : 0, true); break;
      default:
        return Error{ErrorCode::kUnsupported,
                     "output '" + t.name + "' came back as " + compute::DTypeName(from)};
    }
  }
  return t;
}

Result<Tensor> FromRef(std::string name, const RefTensor& r, ElemType to) {
  if (ElemSize(to) == 0) {
    return Error{ErrorCode::kUnsupported,
                 "output '" + name + "' has ONNX type " + ElemTypeName(to)};
  }
  Tensor t{std::move(name), to, r.shape, {}};
  const size_t ts = ElemSize(to);
  t.data.resize(r.data.size() * ts);
  for (size_t i = 0; i < r.data.size(); ++i) {
    const double v = r.data[i];
    const bool integral = !IsFloat(to);
    // Folded integer results are exact in float64 up to 2^53; convert without UB beyond.
    int64_t iv = 0;
    if (integral && std::isfinite(v)) {
      iv = v >= 9.2233720368547758e18    ? std::numeric_limits<int64_t>::max()
           : v <= -9.2233720368547758e18 ? std::numeric_limits<int64_t>::min()
                                         : static_cast<int64_t>(v);
    }
    StoreAs(to, t.data.data() + i * ts, v, iv, integral);
  }
  return t;
}

}  // namespace alknet::onnx
