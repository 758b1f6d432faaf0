// Hostile models through the Session API (issue 18): the fuzz crashers of ONNX shape
// inference, element counts past int64 and the memory budget. Each must fail with an error
// naming the node or tensor; the checked-element helpers against exact integer arithmetic.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "alknet/compute/op.h"
#include "alknet/onnx/session.h"
#include "alknet/webgpu/context.h"

namespace alknet::onnx {
namespace {

namespace fs = std::filesystem;

webgpu::Context& Ctx() {
  static std::unique_ptr<webgpu::Context> ctx = [] {
    auto c = webgpu::Context::Create();
    if (!c.ok()) {
      std::fprintf(stderr, "no WebGPU context: %s\n", c.error().ToString().c_str());
      std::abort();
    }
    return std::move(c).value();
  }();
  return *ctx;
}

SessionOptions Opts() {
  SessionOptions o;
  o.context = &Ctx();
  return o;
}

struct Model {
  ::onnx::ModelProto m;
  ::onnx::GraphProto* g;

  explicit Model(int opset = 17) {
    m.set_ir_version(8);
    auto* o = m.add_opset_import();
    o->set_version(opset);
    g = m.mutable_graph();
    g->set_name("hostile");
  }
  ::onnx::NodeProto* Node(const std::string& op, std::vector<std::string> ins,
                          std::vector<std::string> outs, const std::string& name) {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (auto& i : ins) n->add_input(i);
    for (auto& o : outs) n->add_output(o);
    return n;
  }
  static void Int(::onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(v);
  }
  void Value(::onnx::ValueInfoProto* v, const std::string& name, int type,
             const std::vector<int64_t>& shape) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(type);
    auto* s = tt->mutable_shape();
    for (int64_t d : shape) s->add_dim()->set_dim_value(d);
  }
  void Input(const std::string& name, const std::vector<int64_t>& shape) {
    Value(g->add_input(), name, ::onnx::TensorProto::FLOAT, shape);
  }
  void Output(const std::string& name) {
    auto* v = g->add_output();
    v->set_name(name);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
  }
  void Ints(const std::string& name, const std::vector<int64_t>& values) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    for (int64_t v : values) t->add_int64_data(v);
  }
  void Floats(const std::string& name, const std::vector<int64_t>& dims,
              const std::vector<float>& values) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float v : values) t->add_float_data(v);
  }
  std::vector<std::byte> Bytes() const {
    std::string s;
    m.SerializeToString(&s);
    const auto* p = reinterpret_cast<const std::byte*>(s.data());
    return {p, p + s.size()};
  }
};

// The error of loading, or of the first run without inputs.
std::string LoadOrRunError(const Model& model, const SessionOptions& opts = Opts()) {
  auto bytes = model.Bytes();
  auto s = Session::LoadFromBytes(bytes, {}, opts);
  if (!s.ok()) return s.error().message;
  auto r = s->Run(std::vector<HostInput>{});
  if (!r.ok()) return r.error().message;
  return "";
}

TEST(HostileModels, EveryShapeInferenceCrasherIsRefusedNamingTheNode) {
  int count = 0;
  for (const auto& e : fs::directory_iterator(ALKNET_ONNX_CRASHERS)) {
    if (e.path().extension() != ".onnx") continue;
    ++count;
    std::ifstream f(e.path(), std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(f)), {});
    ::onnx::ModelProto m;
    ASSERT_TRUE(m.ParseFromString(text)) << e.path();
    const std::string op = m.graph().node(0).op_type();
    const std::string name = m.graph().node(0).name();
    const std::string named =
        "node 0 " + (name.empty() ? "" : "'" + name + "' ") + "(" + op + ", opset ";
    auto s = Session::Load(e.path(), Opts());
    ASSERT_FALSE(s.ok()) << e.path();
    EXPECT_NE(s.error().message.find(named), std::string::npos)
        << e.path() << ": " << s.error().message;
  }
  EXPECT_GE(count, 25);
}

TEST(HostileModels, LayerNormAxisOutsideAnInferredRankIsRefused) {
  // The rank of LayerNormalization's input is known only through inference (after Identity),
  // so only the guard around ONNX's inference function can see axis -5.
  Model m;
  m.Input("x", {2, 3});
  m.Input("s", {3});
  m.Node("Identity", {"x"}, {"t"}, "id");
  auto* ln = m.Node("LayerNormalization", {"t", "s"}, {"y", "mean", "inv"}, "norm");
  Model::Int(ln, "axis", -5);
  m.Output("y");
  auto bytes = m.Bytes();
  auto s = Session::LoadFromBytes(bytes, {}, Opts());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("node 1 'norm' (LayerNormalization, opset 17)"),
            std::string::npos)
      << s.error().message;
  EXPECT_NE(s.error().message.find("axis -5 is out of range for an input of rank 2"),
            std::string::npos)
      << s.error().message;
}

TEST(HostileModels, ScanCountsPastItsInputsAreRefused) {
  // A body is present (the schema check passes); num_scan_inputs exceeds the inputs.
  Model m(11);
  m.Input("x", {2, 3});
  auto* scan = m.Node("Scan", {"x"}, {"y"}, "scan");
  Model::Int(scan, "num_scan_inputs", 7);
  auto* body = scan->add_attribute();
  body->set_name("body");
  body->set_type(::onnx::AttributeProto::GRAPH);
  auto* bg = body->mutable_g();
  bg->set_name("body");
  m.Value(bg->add_input(), "xi", ::onnx::TensorProto::FLOAT, {3});
  m.Value(bg->add_output(), "yi", ::onnx::TensorProto::FLOAT, {3});
  auto* id = bg->add_node();
  id->set_op_type("Identity");
  id->add_input("xi");
  id->add_output("yi");
  m.Output("y");
  auto bytes = m.Bytes();
  auto s = Session::LoadFromBytes(bytes, {}, Opts());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("node 0 'scan' (Scan, opset 11)"), std::string::npos)
      << s.error().message;
  EXPECT_NE(s.error().message.find("num_scan_inputs = 7"), std::string::npos) << s.error().message;
}

TEST(HostileModels, ElementCountsPastInt64AreErrorsNamingTheNodeAndShape) {
  {
    Model m;
    m.Floats("x", {1, 1}, {1});
    m.Ints("r", {int64_t{1} << 31, int64_t{1} << 31});
    m.Node("Tile", {"x", "r"}, {"y"}, "tile");
    m.Output("y");
    const std::string e = LoadOrRunError(m);
    EXPECT_NE(e.find("'tile'"), std::string::npos) << e;
    EXPECT_NE(e.find("[2147483648,2147483648]"), std::string::npos) << e;
    EXPECT_NE(e.find("2^63-1 bytes"), std::string::npos) << e;
  }
  for (const char* op : {"Expand", "ConstantOfShape"}) {
    Model m;
    m.Floats("x", {1}, {1});
    m.Ints("s", {int64_t{1} << 32, int64_t{1} << 32});
    if (std::string(op) == "Expand") {
      m.Node(op, {"x", "s"}, {"y"}, "big");
    } else {
      m.Node(op, {"s"}, {"y"}, "big");
    }
    m.Output("y");
    const std::string e = LoadOrRunError(m);
    EXPECT_NE(e.find("'big'"), std::string::npos) << op << ": " << e;
    EXPECT_NE(e.find("[4294967296,4294967296]"), std::string::npos) << op << ": " << e;
    EXPECT_NE(e.find("2^63-1 elements"), std::string::npos) << op << ": " << e;
  }
}

TEST(HostileModels, ValuesOverTheMemoryBudgetAreRefusedBeforeAllocation) {
  for (int64_t d : {int64_t{1000000}, int64_t{50000}}) {
    Model m;
    m.Ints("s", {d, d});
    m.Node("ConstantOfShape", {"s"}, {"y"}, "fill");
    m.Output("y");
    const std::string e = LoadOrRunError(m);
    EXPECT_NE(e.find("'fill'"), std::string::npos) << e;
    EXPECT_NE(e.find(std::to_string(d * d * 4) + " bytes, more than the memory budget of " +
                     std::to_string(uint64_t{4} << 30)),
              std::string::npos)
        << e;
  }
  {
    Model m;
    m.Floats("a", {}, {0});
    m.Floats("b", {}, {std::numeric_limits<float>::quiet_NaN()});
    m.Floats("d", {}, {1});
    m.Node("Range", {"a", "b", "d"}, {"y"}, "range");
    m.Output("y");
    const std::string e = LoadOrRunError(m);
    EXPECT_NE(e.find("'range'"), std::string::npos) << e;
    EXPECT_NE(e.find("no finite element count"), std::string::npos) << e;
  }
}

TEST(HostileModels, TheBudgetCountsStoredTensorsAndPlannedValues) {
  Model m;
  m.Input("x", {1000});
  std::vector<float> b(1000);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i) * 0.5f;
  m.Floats("b", {1000}, b);
  m.Node("Add", {"x", "b"}, {"y"}, "add");
  m.Output("y");
  auto bytes = m.Bytes();
  SessionOptions opts = Opts();
  opts.max_memory = 3999;  // b alone is 4000 bytes
  auto refused = Session::LoadFromBytes(bytes, {}, opts);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("initializer 'b' (float[1000], 4000 bytes)"),
            std::string::npos)
      << refused.error().message;

  opts.max_memory = 4000;  // b fits; y (another 4000 bytes on the device) fits too: each value
  auto s = Session::LoadFromBytes(bytes, {}, opts);
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::vector<float> x(1000, 2.0f);
  HostInput in{"x", ElemType::kFloat, {1000}, std::as_bytes(std::span(x))};
  auto r = s->Run({in});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->outputs[0].elements(), 1000u);
  for (uint64_t i = 0; i < 1000; ++i) ASSERT_EQ(r->outputs[0].At(i), 2.0 + 0.5 * i);

  // A hostile input shape: its element count wraps around in 64 bits.
  HostInput wrap{"x", ElemType::kFloat, {uint64_t{1} << 32, uint64_t{1} << 32}, {}};
  auto w = s->Run({wrap});
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().message.find("[4294967296,4294967296]"), std::string::npos)
      << w.error().message;
}

TEST(HostileModels, ExternalDataIsCountedFromItsDeclaredShapeBeforeReading) {
  const fs::path dir = fs::temp_directory_path() / ("alknet_hostile_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const uint64_t n = uint64_t{1} << 34;
  { std::ofstream f(dir / "w.bin", std::ios::binary); }
  fs::resize_file(dir / "w.bin", n * 4);  // sparse: no disk space used
  Model m;
  auto* t = m.g->add_initializer();
  t->set_name("w");
  t->set_data_type(::onnx::TensorProto::FLOAT);
  t->add_dims(static_cast<int64_t>(n));
  t->set_data_location(::onnx::TensorProto::EXTERNAL);
  for (auto [k, v] : {std::pair<std::string, std::string>{"location", "w.bin"},
                      {"length", std::to_string(n * 4)}}) {
    auto* e = t->add_external_data();
    e->set_key(k);
    e->set_value(v);
  }
  m.Node("Identity", {"w"}, {"y"}, "id");
  m.Output("y");
  {
    std::ofstream f(dir / "m.onnx", std::ios::binary);
    m.m.SerializeToOstream(&f);
  }
  auto s = Session::Load(dir / "m.onnx", Opts());
  fs::remove_all(dir);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("initializer 'w' (float[17179869184], 68719476736 bytes)"),
            std::string::npos)
      << s.error().message;
}

// A chain of `n` single-input `op` nodes from x to y.
Model Chain(const std::string& op, int n) {
  Model m;
  m.Input("x", {4});
  for (int i = 0; i < n; ++i) {
    m.Node(op, {i == 0 ? "x" : "t" + std::to_string(i - 1)},
           {i == n - 1 ? "y" : "t" + std::to_string(i)}, "");
  }
  m.Output("y");
  return m;
}

TEST(HostileModels, LongIdentityChainsRunWithoutADispatchEach) {
  // 200,000 Identity nodes once crashed in the driver's descriptor-pool allocation.
  auto bytes = Chain("Identity", 200000).Bytes();
  auto s = Session::LoadFromBytes(bytes, {}, Opts());
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::vector<float> x = {1.5f, -2, 0, 7};
  HostInput in{"x", ElemType::kFloat, {4}, std::as_bytes(std::span(x))};
  auto r = s->Run({in});
  ASSERT_TRUE(r.ok()) << r.error().message;
  for (uint64_t i = 0; i < 4; ++i) EXPECT_EQ(r->outputs[0].At(i), x[i]);
  EXPECT_EQ(s->stats().nodes_on_device, 0u);
}

TEST(HostileModels, PlansBeyondOneCommandBufferAreRefused) {
  auto bytes = Chain("Neg", 40000).Bytes();
  auto s = Session::LoadFromBytes(bytes, {}, Opts());
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::vector<float> x = {1, 2, 3, 4};
  HostInput in{"x", ElemType::kFloat, {4}, std::as_bytes(std::span(x))};
  auto r = s->Run({in});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("the plan has 40000 device nodes, more than the 32768"),
            std::string::npos)
      << r.error().message;
}

TEST(CheckedElements, AgreesWithExactArithmetic) {
  using compute::CheckedBytes;
  using compute::CheckedElements;
  const uint64_t two31 = uint64_t{1} << 31, two32 = uint64_t{1} << 32;
  EXPECT_EQ(CheckedElements({}), 1u);
  EXPECT_EQ(CheckedElements({two31, two31}), uint64_t{1} << 62);
  EXPECT_EQ(CheckedElements({two32, two32}), std::nullopt);  // 2^64 wraps to 0 unchecked
  EXPECT_EQ(CheckedElements({two32, two32, 0}), 0u);         // empty, whatever else
  EXPECT_EQ(CheckedElements({uint64_t{INT64_MAX}}), uint64_t{INT64_MAX});
  EXPECT_EQ(CheckedElements({uint64_t{INT64_MAX}, 2}), std::nullopt);
  EXPECT_EQ(CheckedBytes({two31, two31}, 2), std::nullopt);  // 2^63 bytes
  EXPECT_EQ(CheckedBytes({two31, two31}, 1), uint64_t{1} << 62);
  EXPECT_EQ(CheckedBytes({two31, two31}, 4), std::nullopt);
}

}  // namespace
}  // namespace alknet::onnx
