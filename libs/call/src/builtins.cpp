#include "alknet/call/builtins.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "alknet/call/json.h"

namespace alknet::call {

namespace {

// Every built-in is a pure function of its arguments (the registry it reads is sealed):
// idempotent, so a pool client may retry it on another worker.
constexpr CallFlags kPure{Execution::kSync, false, true};

Value ShapeValue(const Tensor& t) {
  Value::List shape;
  for (auto d : t.shape) shape.emplace_back(d);
  return Value(std::move(shape));
}

// Reads element i of a tensor as double; false for dtypes without a plain numeric reading.
template <typename T>
double Load(const std::byte* p, std::size_t i) {
  T v;
  std::memcpy(&v, p + i * sizeof(T), sizeof(T));
  return static_cast<double>(v);
}

using Loader = double (*)(const std::byte*, std::size_t);

Loader LoaderFor(std::string_view dtype) {
  if (dtype == "f32") return &Load<float>;
  if (dtype == "f64") return &Load<double>;
  if (dtype == "i8") return &Load<std::int8_t>;
  if (dtype == "u8" || dtype == "bool") return &Load<std::uint8_t>;
  if (dtype == "i16") return &Load<std::int16_t>;
  if (dtype == "u16") return &Load<std::uint16_t>;
  if (dtype == "i32") return &Load<std::int32_t>;
  if (dtype == "u32") return &Load<std::uint32_t>;
  if (dtype == "i64") return &Load<std::int64_t>;
  if (dtype == "u64") return &Load<std::uint64_t>;
  return nullptr;
}

// Writes element i of a tensor from a double: integers saturate at their range and NaN
// becomes 0, so every input has a defined result (numpy leaves those cases undefined).
template <typename T>
void Store(std::byte* p, std::size_t i, double v) {
  T out;
  if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v)) {
      out = 0;
    } else if (v <= static_cast<double>(std::numeric_limits<T>::min())) {
      out = std::numeric_limits<T>::min();
    } else if (v >= static_cast<double>(std::numeric_limits<T>::max())) {
      out = std::numeric_limits<T>::max();
    } else {
      out = static_cast<T>(v);  // truncates toward zero, as numpy's astype
    }
  } else {
    out = static_cast<T>(v);
  }
  std::memcpy(p + i * sizeof(T), &out, sizeof(T));
}

using Storer = void (*)(std::byte*, std::size_t, double);

Storer StorerFor(std::string_view dtype) {
  if (dtype == "f32") return &Store<float>;
  if (dtype == "f64") return &Store<double>;
  if (dtype == "i8") return &Store<std::int8_t>;
  if (dtype == "u8") return &Store<std::uint8_t>;
  if (dtype == "i16") return &Store<std::int16_t>;
  if (dtype == "u16") return &Store<std::uint16_t>;
  if (dtype == "i32") return &Store<std::int32_t>;
  if (dtype == "u32") return &Store<std::uint32_t>;
  if (dtype == "i64") return &Store<std::int64_t>;
  if (dtype == "u64") return &Store<std::uint64_t>;
  return nullptr;
}

}  // namespace

Component CallComponent() {
  Component c;
  c.name = "call";
  c.calls.push_back(CallDecl{"call.list", "() -> list",
                             [](CallContext& ctx, std::span<const Value>) -> Result<Value> {
                               return CallInfosToValue(ctx.registry()->Infos());
                             },
                             kPure, "every registered call with its signature, owner and flags"});
  c.calls.push_back(CallDecl{
      "call.describe", "(name: string) -> map",
      [](CallContext& ctx, std::span<const Value> args) -> Result<Value> {
        const CallRecord* r = ctx.registry()->Find(args[0].as_string());
        if (!r) {
          return MakeError(ErrorCode::kNotFound,
                           "no call named '" + args[0].as_string() + "' is registered");
        }
        auto list =
            CallInfosToValue({CallInfo{r->name, r->signature_text, r->owner, r->flags, r->doc}});
        return std::move(list.as_list()[0]);
      },
      kPure, "one call's signature, owner and flags"});
  return c;
}

Component TensorComponent() {
  Component c;
  c.name = "tensor";
  c.depends_on = {"call"};
  c.calls.push_back(CallDecl{"tensor.info", "(t: tensor) -> map",
                             [](CallContext&, std::span<const Value> args) -> Result<Value> {
                               const Tensor& t = args[0].as_tensor();
                               Value::Map m;
                               m.emplace("dtype", t.dtype);
                               m.emplace("shape", ShapeValue(t));
                               m.emplace("elements", t.ElementCount());
                               m.emplace("bytes", static_cast<std::int64_t>(t.data.size()));
                               return Value(std::move(m));
                             },
                             kPure, "dtype, shape, element count and byte size of a tensor"});
  c.calls.push_back(CallDecl{
      "tensor.stats", "(t: tensor) -> map",
      [](CallContext& ctx, std::span<const Value> args) -> Result<Value> {
        const Tensor& t = args[0].as_tensor();
        Loader load = LoaderFor(t.dtype);
        if (!load) {
          return MakeError(
              ErrorCode::kInvalidArgument,
              "tensor.stats reads integer, bool, f32 and f64 tensors; given " + t.dtype);
        }
        const auto n = static_cast<std::size_t>(t.ElementCount());
        double lo = std::numeric_limits<double>::infinity();
        double hi = -lo;
        double sum = 0;  // float64 accumulation, as a CPU reference would
        std::int64_t non_finite = 0;
        for (std::size_t i = 0; i < n; ++i) {
          if ((i & 0xFFFFF) == 0 && ctx.ShouldStop()) return ctx.StopError();
          const double v = load(t.data.data(), i);
          if (!std::isfinite(v)) {
            ++non_finite;
            continue;
          }
          lo = std::min(lo, v);
          hi = std::max(hi, v);
          sum += v;
        }
        const auto finite = static_cast<std::int64_t>(n) - non_finite;
        Value::Map m;
        m.emplace("elements", static_cast<std::int64_t>(n));
        m.emplace("non_finite", non_finite);
        m.emplace("min", finite ? Value(lo) : Value());
        m.emplace("max", finite ? Value(hi) : Value());
        m.emplace("sum", sum);
        m.emplace("mean", finite ? Value(sum / static_cast<double>(finite)) : Value());
        return Value(std::move(m));
      },
      kPure, "min, max, sum and mean (float64) of a numeric tensor, skipping NaN and inf"});
  c.calls.push_back(
      CallDecl{"tensor.cast", "(t: tensor, dtype: string) -> tensor",
               [](CallContext& ctx, std::span<const Value> args) -> Result<Value> {
                 const Tensor& t = args[0].as_tensor();
                 const std::string& to = args[1].as_string();
                 Loader load = LoaderFor(t.dtype);
                 Storer store = StorerFor(to);
                 if (!load || !store || t.dtype == "bool") {
                   return MakeError(ErrorCode::kInvalidArgument,
                                    "tensor.cast converts between f32, f64 and 8..64-bit integer "
                                    "tensors; given " +
                                        t.dtype + " -> " + to);
                 }
                 const auto n = static_cast<std::size_t>(t.ElementCount());
                 std::vector<std::byte> out(n * DTypeSize(to));
                 for (std::size_t i = 0; i < n; ++i) {
                   if ((i & 0xFFFFF) == 0 && ctx.ShouldStop()) return ctx.StopError();
                   store(out.data(), i, load(t.data.data(), i));
                 }
                 return Value(Tensor::Adopt(to, t.shape, std::move(out)));
               },
               kPure, "convert a numeric tensor to another dtype (ints saturate, NaN -> 0)"});
  return c;
}

Status RegisterBuiltins(CallRegistry& registry) {
  if (auto r = registry.AddComponent(CallComponent()); !r) return r;
  return registry.AddComponent(TensorComponent());
}

}  // namespace alknet::call
