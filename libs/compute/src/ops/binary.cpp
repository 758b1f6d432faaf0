// Binary (and variadic Min/Max) elementwise ops with numpy broadcasting:
// shaders/binary/<op>.wgsl.hbs.
#include <algorithm>
#include <cmath>

#include "ops/elementwise.h"
#include "ops/families.h"

namespace alknet::compute::ops {

namespace {

using In = std::span<const double>;

OpRecord Bin(const char* name, const char* file, int opset, const DTypeSet& types, OutType out,
             ScalarRef ref, TestHints hints = {-4, 4, 0, 0}) {
  OpRecord r =
      ElementwiseRecord(name, std::string("binary/") + file, std::string(name) + ", broadcasting",
                        types, out, std::move(ref), 2, 2);
  r.opset_min = opset;
  r.hints = hints;
  return r;
}

}  // namespace

void AddBinaryOps(OpTable& table) {
  const DTypeSet kComparable = {DType::kF32, DType::kF16, DType::kI32, DType::kU32};
  const DTypeSet kEquatable = {DType::kF32, DType::kF16, DType::kI32, DType::kU32, DType::kBool};
  table.Add(Bin("Add", "add", 7, kNumeric, OutType::kSame,
                [](In x, const Attributes&) { return x[0] + x[1]; }, {-4, 4, 1e-6, 1e-6}));
  // Add then Relu in one pass (ResNet's residual joins): the ONNX session fuses them when the
  // sum has no other reader. Internal: not a call, not an ONNX op.
  OpRecord add_relu =
      Bin("alknet.AddRelu", "add_relu", 1, kFloat, OutType::kSame,
          [](In x, const Attributes&) { return std::max(x[0] + x[1], 0.0); }, {-4, 4, 1e-6, 1e-6});
  add_relu.family = "internal";
  add_relu.summary = "max(A + B, 0), broadcasting (Add + Relu fused)";
  table.Add(std::move(add_relu));
  table.Add(Bin("Sub", "sub", 7, kNumeric, OutType::kSame,
                [](In x, const Attributes&) { return x[0] - x[1]; }, {-4, 4, 1e-6, 1e-6}));
  table.Add(Bin("Mul", "mul", 7, kNumeric, OutType::kSame,
                [](In x, const Attributes&) { return x[0] * x[1]; }, {-4, 4, 1e-6, 1e-6}));
  // Integer division truncates toward zero, as C and onnxruntime do (the reference's integer
  // outputs are truncated and wrapped to 32 bits by ElementwiseReference).
  table.Add(Bin("Div", "div", 7, kNumeric, OutType::kSame,
                [](In x, const Attributes&) { return x[0] / x[1]; }, {-4, 4, 1e-6, 1e-6, true}));
  // Pow: base and exponent may differ in dtype (opset 12+: int base with float exponent and
  // the reverse; the output has the base's dtype). Integer bases with integral exponents are
  // computed exactly (wrapping like 32-bit integers), the rest in float.
  OpRecord pow7 =
      Bin("Pow", "pow", 7, kFloat, OutType::kSame,
          [](In x, const Attributes&) { return std::pow(x[0], x[1]); }, {-3, 3, 1e-5, 2e-5, true});
  pow7.opset_max = 11;
  table.Add(std::move(pow7));
  OpRecord pow =
      Bin("Pow", "pow", 12, kNumeric, OutType::kSame,
          [](In x, const Attributes&) { return std::pow(x[0], x[1]); }, {-3, 3, 1e-5, 2e-5, true});
  pow.infer = [](const OpNode& node, const Attributes&) -> Result<std::vector<TensorDesc>> {
    return InferElementwise(node, kNumeric, OutType::kSame, /*same_dtype=*/false);
  };
  pow.test_dtypes = {DType::kF32};
  auto ints = [](DType d, std::vector<double> v) { return RefTensor{d, {v.size()}, std::move(v)}; };
  pow.test_cases = {
      {{Shape{3, 1, 7}, Shape{5, 1}}, {}, {}, "broadcast"},
      {{Shape{6}, Shape{6}},
       {},
       {{0, ints(DType::kF32, {1, 2, -3, 0.5, -2, 3})},
        {1, ints(DType::kI32, {4, 5, 3, 2, -1, 0})}},
       "float base, int exponent"},
      {{Shape{5}, Shape{5}},
       {},
       {{0, ints(DType::kI32, {1, 2, 3, -2, 7})}, {1, ints(DType::kF32, {4, 5, 6, 3, 0.5})}},
       "int base, float exponent"},
      {{Shape{6}, Shape{6}},
       {},
       {{0, ints(DType::kI32, {1, 2, -3, 2, -1, 7})},
        {1, ints(DType::kI32, {4, 5, 3, -1, -3, 13})}},
       "int base, int exponent (wraps)"},
      {{Shape{3}, Shape{3}},
       {},
       {{0, ints(DType::kU32, {1, 2, 3})}, {1, ints(DType::kU32, {4, 5, 6})}},
       "u32"},
  };
  table.Add(std::move(pow));
  OpRecord mod = Bin("Mod", "mod", 10, kNumeric, OutType::kSame,
                     [](In x, const Attributes& a) {
                       const double r = std::fmod(x[0], x[1]);
                       if (std::get<int64_t>(a.at("fmod")) == 1) return r;
                       return r != 0 && ((r < 0) != (x[1] < 0)) ? r + x[1] : r;
                     },
                     {-9, 9, 2e-6, 1e-6, true});
  mod.attributes = {{"fmod", AttrValue(int64_t{0}), false, [](const AttrValue& v) {
                       const int64_t f = std::get<int64_t>(v);
                       return f == 0 || f == 1 ? std::string() : std::string("must be 0 or 1");
                     }}};
  mod.infer = [](const OpNode& node, const Attributes& attrs) -> Result<std::vector<TensorDesc>> {
    const DType d = node.inputs.at(0).dtype;
    if ((d == DType::kF32 || d == DType::kF16) && std::get<int64_t>(attrs.at("fmod")) == 0) {
      return Error{ErrorCode::kInvalidAttribute,
                   node.Describe() +
                       ": Mod on floating-point inputs needs fmod=1 (ONNX leaves fmod=0 "
                       "undefined for floats)"};
    }
    return InferElementwise(node, kNumeric, OutType::kSame);
  };
  mod.test_dtypes = {DType::kI32, DType::kU32};  // the float case runs with fmod=1 in its own test
  table.Add(std::move(mod));
  for (auto [name, file, is_max] :
       {std::tuple{"Min", "min", false}, std::tuple{"Max", "max", true}}) {
    OpRecord r = ElementwiseRecord(
        name, std::string("binary/") + file,
        std::string(name) + " of any number of inputs, broadcasting", kNumeric, OutType::kSame,
        // clang 14 cannot capture a structured binding: copy it into a plain variable.
        [is_max = bool(is_max)](In x, const Attributes&) {
          double r = x[0];
          for (double v : x) r = is_max ? std::max(r, v) : std::min(r, v);
          return r;
        },
        1, 32);
    r.opset_min = 8;
    r.hints = {-4, 4, 0, 0};
    table.Add(std::move(r));
  }
  // BitShift: unsigned only (ONNX); 8/16/64-bit operands are u32 on the device, so a left
  // shift keeps 32 bits. Shifting by 32 or more gives 0 (WGSL would shift by the count mod 32).
  OpRecord shift =
      Bin("BitShift", "bitshift", 11, {DType::kU32}, OutType::kSame, [](In x, const Attributes& a) {
        if (x[1] >= 32) return 0.0;
        const auto v = static_cast<uint32_t>(x[0]);
        const auto by = static_cast<uint32_t>(x[1]);
        return static_cast<double>(std::get<std::string>(a.at("direction")) == "LEFT" ? v << by
                                                                                      : v >> by);
      });
  shift.attributes = {{"direction", std::nullopt, false, [](const AttrValue& v) {
                         if (v.index() != 2) return std::string("must be a string");
                         const auto& d = std::get<std::string>(v);
                         return d == "LEFT" || d == "RIGHT"
                                    ? std::string()
                                    : std::string("must be \"LEFT\" or \"RIGHT\"");
                       }}};
  shift.hints = {0, 40, 0, 0};
  shift.test_dtypes = {DType::kU32};
  shift.test_cases = {
      {{Shape{3, 1, 7}, Shape{5, 1}}, {{"direction", std::string("LEFT")}}, {}, "left, broadcast"},
      {{Shape{1031}, Shape{1031}}, {{"direction", std::string("RIGHT")}}, {}, "right"},
  };
  table.Add(std::move(shift));
  table.Add(Bin("Equal", "equal", 11, kEquatable, OutType::kBool,
                [](In x, const Attributes&) { return x[0] == x[1] ? 1.0 : 0.0; }));
  table.Add(Bin("Greater", "greater", 9, kComparable, OutType::kBool,
                [](In x, const Attributes&) { return x[0] > x[1] ? 1.0 : 0.0; }));
  table.Add(Bin("GreaterOrEqual", "greaterorequal", 12, kComparable, OutType::kBool,
                [](In x, const Attributes&) { return x[0] >= x[1] ? 1.0 : 0.0; }));
  table.Add(Bin("Less", "less", 9, kComparable, OutType::kBool,
                [](In x, const Attributes&) { return x[0] < x[1] ? 1.0 : 0.0; }));
  table.Add(Bin("LessOrEqual", "lessorequal", 12, kComparable, OutType::kBool,
                [](In x, const Attributes&) { return x[0] <= x[1] ? 1.0 : 0.0; }));
  table.Add(Bin("And", "and", 7, kBoolOnly, OutType::kBool,
                [](In x, const Attributes&) { return (x[0] != 0) && (x[1] != 0) ? 1.0 : 0.0; }));
  table.Add(Bin("Or", "or", 7, kBoolOnly, OutType::kBool,
                [](In x, const Attributes&) { return (x[0] != 0) || (x[1] != 0) ? 1.0 : 0.0; }));
  table.Add(Bin("Xor", "xor", 7, kBoolOnly, OutType::kBool,
                [](In x, const Attributes&) { return (x[0] != 0) != (x[1] != 0) ? 1.0 : 0.0; }));
}

}  // namespace alknet::compute::ops
