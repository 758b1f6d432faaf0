// Binary (and variadic Min/Max) elementwise ops with numpy broadcasting:
// shaders/binary/<op>.wgsl.hbs.
#include <cmath>

#include "ops/elementwise.h"
#include "ops/families.h"

namespace alknet::compute::ops {

namespace {

using In = std::span<const double>;

OpRecord Bin(const char* name, const char* file, int opset, const DTypeSet& types, OutType out,
             ScalarRef ref, TestHints hints = {-4, 4, 0, 0}) {
  OpRecord r = ElementwiseRecord(name, std::string("binary/") + file, std::string(name) + ", broadcasting",
                                 types, out, std::move(ref), 2, 2);
  r.opset_min = opset;
  r.hints = hints;
  return r;
}

}  // namespace

void AddBinaryOps(OpTable& table) {
  const DTypeSet kComparable = {DType::kF32, DType::kF16, DType::kI32, DType::kU32};
  const DTypeSet kEquatable = {DType::kF32, DType::kF16, DType::kI32, DType::kU32, DType::kBool};
  table.Add(Bin("Add", "add", 7, kNumeric, OutType::kSame, [](In x, const Attributes&) { return x[0] + x[1]; },
                {-4, 4, 1e-6, 1e-6}));
  table.Add(Bin("Sub", "sub", 7, kNumeric, OutType::kSame, [](In x, const Attributes&) { return x[0] - x[1]; },
                {-4, 4, 1e-6, 1e-6}));
  table.Add(Bin("Mul", "mul", 7, kNumeric, OutType::kSame, [](In x, const Attributes&) { return x[0] * x[1]; },
                {-4, 4, 1e-6, 1e-6}));
  // Integer division truncates toward zero, as C and onnxruntime do (the reference's integer
  // outputs are truncated and wrapped to 32 bits by ElementwiseReference).
  table.Add(Bin("Div", "div", 7, kNumeric, OutType::kSame, [](In x, const Attributes&) { return x[0] / x[1]; },
                {-4, 4, 1e-6, 1e-6, true}));
  table.Add(Bin("Pow", "pow", 7, kFloat, OutType::kSame,
                [](In x, const Attributes&) { return std::pow(x[0], x[1]); }, {-3, 3, 1e-5, 2e-5, true}));
  OpRecord mod = Bin("Mod", "mod", 10, kSignedNum, OutType::kSame,
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
                   node.Describe() + ": Mod on floating-point inputs needs fmod=1 (ONNX leaves fmod=0 "
                                     "undefined for floats)"};
    }
    return InferElementwise(node, kSignedNum, OutType::kSame);
  };
  mod.test_dtypes = {DType::kI32};  // the float case runs with fmod=1 in its own test
  table.Add(std::move(mod));
  for (auto [name, file, is_max] : {std::tuple{"Min", "min", false}, std::tuple{"Max", "max", true}}) {
    OpRecord r = ElementwiseRecord(name, std::string("binary/") + file,
                                   std::string(name) + " of any number of inputs, broadcasting", kNumeric,
                                   OutType::kSame,
                                   [is_max](In x, const Attributes&) {
                                     double r = x[0];
                                     for (double v : x) r = is_max ? std::max(r, v) : std::min(r, v);
                                     return r;
                                   },
                                   1, 32);
    r.opset_min = 8;
    r.hints = {-4, 4, 0, 0};
    table.Add(std::move(r));
  }
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
