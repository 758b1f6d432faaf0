#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <random>

#include "alknet/compute/executor.h"
#include "alknet/compute/op_table.h"
#include "alknet/onnx/session.h"
#include "alknet/tensor/reader.h"
#include "alknet/tensor/writer.h"
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

// ---- Building models ----------------------------------------------------------------------

struct ModelBuilder {
  ::onnx::ModelProto m;
  ::onnx::GraphProto* g;

  explicit ModelBuilder(int opset = 17) {
    m.set_ir_version(8);
    auto* o = m.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    g = m.mutable_graph();
    g->set_name("test");
  }
  static void SetType(::onnx::ValueInfoProto* v, const std::string& name, int type,
                      std::vector<int64_t> shape, bool with_shape = true) {
    v->set_name(name);
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(type);
    if (!with_shape) return;
    auto* s = tt->mutable_shape();
    for (int64_t d : shape) {
      auto* dim = s->add_dim();
      if (d >= 0) {
        dim->set_dim_value(d);
      } else {
        dim->set_dim_param("N");
      }
    }
  }
  void Input(const std::string& name, int type, std::vector<int64_t> shape) {
    SetType(g->add_input(), name, type, shape);
  }
  void Output(const std::string& name, int type, std::vector<int64_t> shape,
              bool with_shape = true) {
    SetType(g->add_output(), name, type, shape, with_shape);
  }
  ::onnx::NodeProto* Node(const std::string& op, std::vector<std::string> in,
                          std::vector<std::string> out, const std::string& name = "") {
    auto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? op + "_" + std::to_string(g->node_size()) : name);
    for (auto& s : in) n->add_input(s);
    for (auto& s : out) n->add_output(s);
    return n;
  }
  ::onnx::TensorProto* FloatInit(const std::string& name, std::vector<int64_t> dims,
                                 const std::vector<float>& v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::FLOAT);
    for (auto d : dims) t->add_dims(d);
    for (float x : v) t->add_float_data(x);
    return t;
  }
  ::onnx::TensorProto* Int64Init(const std::string& name, std::vector<int64_t> dims,
                                 const std::vector<int64_t>& v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::INT64);
    for (auto d : dims) t->add_dims(d);
    for (auto x : v) t->add_int64_data(x);
    return t;
  }
  std::vector<std::byte> Bytes() const {
    std::string s;
    m.SerializeToString(&s);
    std::vector<std::byte> b(s.size());
    std::memcpy(b.data(), s.data(), s.size());
    return b;
  }
  fs::path Save(const fs::path& dir, const std::string& file = "model.onnx") const {
    fs::create_directories(dir);
    std::ofstream f(dir / file, std::ios::binary);
    m.SerializeToOstream(&f);
    return dir / file;
  }
};

fs::path TempDir(const std::string& tag) {
  fs::path d =
      fs::temp_directory_path() / ("alknet_onnx_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

template <typename T>
std::span<const std::byte> AsBytes(const std::vector<T>& v) {
  return std::as_bytes(std::span<const T>(v));
}

template <typename T>
std::vector<T> As(const Tensor& t) {
  std::vector<T> v(t.data.size() / sizeof(T));
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-2, 2);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// ---- Loading errors -----------------------------------------------------------------------

TEST(OnnxLoad, GarbageIsAClearError) {
  std::vector<std::byte> junk(100, std::byte{0xff});
  auto s = Session::LoadFromBytes(junk, {}, Opts());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("not a valid ONNX model"), std::string::npos)
      << s.error().message;
}

TEST(OnnxLoad, MissingFileNamesIt) {
  auto s = Session::Load("/nonexistent/model.onnx", Opts());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("/nonexistent/model.onnx"), std::string::npos);
}

TEST(OnnxLoad, UnknownOpNamesNodeOpAndOpset) {
  ModelBuilder b(13);
  b.Input("x", 1, {2});
  b.Output("y", 1, {2});
  b.Node("NoSuchOp", {"x"}, {"y"}, "mystery");
  auto s = Session::LoadFromBytes(b.Bytes(), {}, Opts());
  ASSERT_FALSE(s.ok());
  const std::string& m = s.error().message;
  EXPECT_EQ(s.error().code, ErrorCode::kUnknownOp);
  EXPECT_NE(m.find("'mystery'"), std::string::npos) << m;
  EXPECT_NE(m.find("NoSuchOp"), std::string::npos) << m;
  EXPECT_NE(m.find("opset 13"), std::string::npos) << m;
}

TEST(OnnxLoad, UnknownDomainIsRefused) {
  ModelBuilder b;
  auto* o = b.m.add_opset_import();
  o->set_domain("com.example");
  o->set_version(1);
  b.Input("x", 1, {2});
  b.Output("y", 1, {2});
  b.Node("Relu", {"x"}, {"y"})->set_domain("com.example");
  auto s = Session::LoadFromBytes(b.Bytes(), {}, Opts());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("domain 'com.example'"), std::string::npos) << s.error().message;
}

TEST(OnnxLoad, UnknownAttributeIsRefusedAtLoad) {
  ModelBuilder b;
  b.Input("x", 1, {2});
  b.Output("y", 1, {2});
  auto* n = b.Node("Relu", {"x"}, {"y"}, "r");
  auto* a = n->add_attribute();
  a->set_name("bogus");
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(1);
  auto s = Session::LoadFromBytes(b.Bytes(), {}, Opts());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("bogus"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("node 0 'r'"), std::string::npos) << s.error().message;
}

// Strings run on the host (ADR 0015). Expected texts are numpy's str() of float32 values
// (the ONNX test data's formatting), written out by hand from numpy's documented rules.
Result<RunResult> RunStrings(const ModelBuilder& b, const std::string& name, int type,
                             std::vector<uint64_t> shape, const std::vector<std::string>& strings,
                             std::span<const std::byte> data = {}) {
  auto s = Session::LoadFromBytes(b.Bytes(), {}, Opts());
  if (!s.ok()) return s.error();
  HostInput in;
  in.name = name;
  in.type = static_cast<ElemType>(type);
  in.shape = std::move(shape);
  in.strings = strings;
  in.data = data;
  return s->Run({in});
}

TEST(OnnxStrings, FloatToStringFollowsNumpy) {
  ModelBuilder b;
  b.Input("x", ::onnx::TensorProto::FLOAT, {10});
  b.Output("y", ::onnx::TensorProto::STRING, {10});
  auto* a = b.Node("Cast", {"x"}, {"y"})->add_attribute();
  a->set_name("to");
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(::onnx::TensorProto::STRING);
  const std::vector<float> x = {3.0f,  1e-5f, 1e20f,   0.0001f, 100000.0f,
                                -0.0f, 0.1f,  1.5e-7f, NAN,     -INFINITY};
  auto r = RunStrings(b, "x", ::onnx::TensorProto::FLOAT, {10}, {}, AsBytes(x));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const std::vector<std::string> want = {"3.0",  "1e-05", "1e+20",   "0.0001", "100000.0",
                                         "-0.0", "0.1",   "1.5e-07", "NaN",    "-INF"};
  EXPECT_EQ(r->outputs[0].strings, want);
  EXPECT_FALSE(r->on_host.empty());
}

TEST(OnnxStrings, StringToFloatParsesAndNamesBadElements) {
  ModelBuilder b;
  b.Input("x", ::onnx::TensorProto::STRING, {4});
  b.Output("y", ::onnx::TensorProto::FLOAT, {4});
  auto* a = b.Node("Cast", {"x"}, {"y"}, "c")->add_attribute();
  a->set_name("to");
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(::onnx::TensorProto::FLOAT);
  auto r = RunStrings(b, "x", ::onnx::TensorProto::STRING, {4}, {"1e3", "-INF", "+inf", "0.25"});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(As<float>(r->outputs[0]), (std::vector<float>{1000.0f, -INFINITY, INFINITY, 0.25f}));
  auto bad = RunStrings(b, "x", ::onnx::TensorProto::STRING, {4}, {"1", "2", "two", "4"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("element 2 'two'"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("node 0 'c'"), std::string::npos) << bad.error().message;
  auto count = RunStrings(b, "x", ::onnx::TensorProto::STRING, {4}, {"1"});
  ASSERT_FALSE(count.ok());
  EXPECT_NE(count.error().message.find("holds 1 strings"), std::string::npos)
      << count.error().message;
}

TEST(OnnxStrings, OtherOpsInAStringGraphAreRefusedByName) {
  ModelBuilder b;
  b.Input("x", ::onnx::TensorProto::STRING, {2});
  b.Output("y", ::onnx::TensorProto::FLOAT, {2});
  auto* a = b.Node("Cast", {"x"}, {"f"})->add_attribute();
  a->set_name("to");
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(::onnx::TensorProto::FLOAT);
  b.Node("Relu", {"f"}, {"y"}, "relu");
  auto s = Session::LoadFromBytes(b.Bytes(), {}, Opts());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("node 1 'relu' (Relu)"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("0015"), std::string::npos) << s.error().message;
}

// ---- External data ------------------------------------------------------------------------

// y = x + w, w from external data at `location` with the given offset/length.
ModelBuilder ExternalModel(const std::string& location,
                           std::optional<uint64_t> offset = std::nullopt,
                           std::optional<uint64_t> length = std::nullopt) {
  ModelBuilder b;
  b.Input("x", 1, {4});
  b.Output("y", 1, {4});
  auto* t = b.g->add_initializer();
  t->set_name("w");
  t->set_data_type(::onnx::TensorProto::FLOAT);
  t->add_dims(4);
  t->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto kv = [&](const std::string& k, const std::string& v) {
    auto* e = t->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  kv("location", location);
  if (offset) kv("offset", std::to_string(*offset));
  if (length) kv("length", std::to_string(*length));
  b.Node("Add", {"x", "w"}, {"y"});
  return b;
}

void WriteFloats(const fs::path& p, const std::vector<float>& v, size_t pad_front = 0) {
  std::ofstream f(p, std::ios::binary);
  std::string pad(pad_front, 'x');
  f.write(pad.data(), static_cast<std::streamsize>(pad.size()));
  f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
}

TEST(OnnxExternalData, ValidFileWithOffsetRuns) {
  const fs::path dir = TempDir("ext_ok");
  const std::vector<float> w = {1, 2, 3, 4}, x = {0.5f, -1, 10, 0};
  WriteFloats(dir / "weights.bin", w, 8);
  auto path = ExternalModel("weights.bin", 8, 16).Save(dir);
  auto s = Session::Load(path, Opts());
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto r = s->Run({HostInput{"x", ElemType::kFloat, {4}, AsBytes(x)}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  auto y = As<float>(r->outputs[0]);
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(y[i], x[i] + w[i]);
  fs::remove_all(dir);
}

void ExpectLoadError(const fs::path& path, const std::vector<std::string>& parts) {
  auto s = Session::Load(path, Opts());
  ASSERT_FALSE(s.ok());
  for (const auto& p : parts)
    EXPECT_NE(s.error().message.find(p), std::string::npos) << s.error().message;
}

TEST(OnnxExternalData, AbsolutePathIsRefused) {
  const fs::path dir = TempDir("ext_abs");
  WriteFloats(dir / "weights.bin", {1, 2, 3, 4});
  ExpectLoadError(ExternalModel((dir / "weights.bin").string()).Save(dir),
                  {"initializer 'w'", "absolute"});
  fs::remove_all(dir);
}

TEST(OnnxExternalData, DotDotIsRefused) {
  const fs::path dir = TempDir("ext_dotdot");
  fs::create_directories(dir / "m");
  WriteFloats(dir / "weights.bin", {1, 2, 3, 4});
  ExpectLoadError(ExternalModel("../weights.bin").Save(dir / "m"), {"initializer 'w'", "'..'"});
  fs::remove_all(dir);
}

// External data is opened beneath the model's folder (base::OpenBeneath): a link in any
// component of the location is refused, wherever it points, so no swap of a component for a
// link between a check and the open can lead outside.
TEST(OnnxExternalData, SymlinkOutOfTheFolderIsRefused) {
  const fs::path dir = TempDir("ext_link");
  fs::create_directories(dir / "m" / "sub");
  WriteFloats(dir / "secret.bin", {1, 2, 3, 4});
  fs::create_symlink(dir / "secret.bin", dir / "m" / "weights.bin");
  ExpectLoadError(ExternalModel("weights.bin").Save(dir / "m"),
                  {"initializer 'w'", "symbolic link", "beneath the model's folder"});
  // A linked directory on the way out (sub/up -> ..), and a link to a file that is inside.
  fs::create_directory_symlink(dir, dir / "m" / "sub" / "up");
  ExpectLoadError(ExternalModel("sub/up/secret.bin").Save(dir / "m"), {"symbolic link"});
  WriteFloats(dir / "m" / "real.bin", {1, 2, 3, 4});
  fs::create_symlink("real.bin", dir / "m" / "alias.bin");
  ExpectLoadError(ExternalModel("alias.bin").Save(dir / "m"), {"symbolic link"});
  // Spelled with "." and doubled slashes, a plain file below the folder loads.
  WriteFloats(dir / "m" / "sub" / "w.bin", {1, 2, 3, 4});
  EXPECT_TRUE(Session::Load(ExternalModel("./sub//w.bin").Save(dir / "m"), Opts()).ok());
  ExpectLoadError(ExternalModel("sub/../real.bin").Save(dir / "m"), {"'..'"});
  ExpectLoadError(ExternalModel("/sub/w.bin").Save(dir / "m"), {"absolute"});
  fs::remove_all(dir);
}

// The model's folder itself may be reached through a link (it is the caller's anchor).
TEST(OnnxExternalData, ModelFolderReachedThroughALinkLoads) {
  const fs::path dir = TempDir("ext_folder_link");
  fs::create_directories(dir / "real");
  WriteFloats(dir / "real" / "weights.bin", {1, 2, 3, 4});
  ExternalModel("weights.bin").Save(dir / "real");
  fs::create_directory_symlink(dir / "real", dir / "link");
  auto s = Session::Load(dir / "link" / "model.onnx", Opts());
  EXPECT_TRUE(s.ok()) << s.error().message;
  fs::remove_all(dir);
}

TEST(OnnxExternalData, OffsetAndLengthAreChecked) {
  const fs::path dir = TempDir("ext_range");
  WriteFloats(dir / "weights.bin", {1, 2, 3, 4});
  ExpectLoadError(ExternalModel("weights.bin", 100).Save(dir), {"offset 100", "past the end"});
  ExpectLoadError(ExternalModel("weights.bin", 8, 16).Save(dir), {"runs past the end"});
  ExpectLoadError(ExternalModel("weights.bin", 0, 12).Save(dir), {"length 12", "need 16"});
  ExpectLoadError(ExternalModel("missing.bin").Save(dir), {"missing.bin"});
  fs::remove_all(dir);
}

// SessionOptions::check_read sees the model and each external-data file (canonical) and can
// refuse either; its message reaches the caller.
TEST(OnnxExternalData, ReadCheckSeesModelAndDataFiles) {
  const fs::path dir = TempDir("ext_check");
  WriteFloats(dir / "weights.bin", {1, 2, 3, 4});
  const fs::path path = ExternalModel("weights.bin").Save(dir);
  std::vector<fs::path> seen;
  fs::path refuse;
  SessionOptions opts = Opts();
  opts.check_read = [&](const fs::path& p) -> compute::Status {
    seen.push_back(p);
    if (p == refuse)
      return compute::Error{compute::ErrorCode::kInvalidArgument, "no access to " + p.string()};
    return compute::Ok{};
  };
  ASSERT_TRUE(Session::Load(path, opts).ok());
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], path);
  EXPECT_EQ(seen[1], fs::canonical(dir / "weights.bin"));

  refuse = fs::canonical(dir / "weights.bin");
  auto s = Session::Load(path, opts);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("initializer 'w'"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("no access to " + refuse.string()), std::string::npos)
      << s.error().message;

  refuse = path;
  seen.clear();
  s = Session::Load(path, opts);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(seen.size(), 1u);  // refused before anything was read
  EXPECT_NE(s.error().message.find("no access to"), std::string::npos) << s.error().message;
  fs::remove_all(dir);
}

TEST(OnnxExternalData, ModelFromMemoryCannotUseIt) {
  auto s = Session::LoadFromBytes(ExternalModel("weights.bin").Bytes(), {}, Opts());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("not loaded from a file"), std::string::npos)
      << s.error().message;
}

// ---- Dtypes -------------------------------------------------------------------------------

TEST(OnnxDtypes, Int64ComputesAsI32AndComesBackAsInt64) {
  ModelBuilder b;
  b.Input("x", ::onnx::TensorProto::INT64, {3});
  b.Output("y", ::onnx::TensorProto::INT64, {3});
  b.Int64Init("k", {3}, {1000, -7, 3});
  b.Node("Mul", {"x", "k"}, {"y"});
  auto s = Session::LoadFromBytes(b.Bytes(), {}, Opts());
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::vector<int64_t> x = {123456, 5, -9};
  auto r = s->Run({HostInput{"x", ElemType::kInt64, {3}, AsBytes(x)}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->outputs[0].type, ElemType::kInt64);
  EXPECT_EQ(As<int64_t>(r->outputs[0]), (std::vector<int64_t>{123456000, -35, -27}));

  // Out of i32 range: an error naming the tensor, never a wrapped value.
  std::vector<int64_t> big = {int64_t{1} << 40, 0, 0};
  auto bad = s->Run({HostInput{"x", ElemType::kInt64, {3}, AsBytes(big)}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("'x'"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("1099511627776"), std::string::npos) << bad.error().message;
}

TEST(OnnxDtypes, OutOfRangeInitializerIsAnErrorWhenUploaded) {
  ModelBuilder b;
  b.Input("x", ::onnx::TensorProto::INT64, {1});
  b.Output("y", ::onnx::TensorProto::INT64, {1});
  b.Int64Init("k", {1}, {int64_t{5} << 33});
  b.Node("Add", {"x", "k"}, {"y"});
  auto s = Session::LoadFromBytes(b.Bytes(), {}, Opts());
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::vector<int64_t> x = {1};
  auto r = s->Run({HostInput{"x", ElemType::kInt64, {1}, AsBytes(x)}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("'k'"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("i32"), std::string::npos) << r.error().message;
}

// Double computes as f32; a run with a finite value beyond f32's range (which would become
// infinity) is evaluated on the host in float64 instead, and says so naming the input and the
// element (ADR 0013; infinities and NaN pass through the device path unchanged).
TEST(OnnxDtypes, DoubleBeyondF32RangeRunsOnTheHost) {
  ModelBuilder b;
  b.Input("x", ::onnx::TensorProto::DOUBLE, {3});
  b.Output("y", ::onnx::TensorProto::DOUBLE, {3});
  b.Node("Neg", {"x"}, {"y"});
  auto s = Session::LoadFromBytes(b.Bytes(), {}, Opts());
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::vector<double> ok = {1e38, -std::numeric_limits<double>::infinity(), 2.5};
  auto r = s->Run({HostInput{"x", ElemType::kDouble, {3}, AsBytes(ok)}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(As<double>(r->outputs[0])[1], std::numeric_limits<double>::infinity());
  EXPECT_TRUE(r->on_host.empty()) << r->on_host;
  std::vector<double> big = {1.0, 2.417825e198, 0.0};
  auto host = s->Run({HostInput{"x", ElemType::kDouble, {3}, AsBytes(big)}});
  ASSERT_TRUE(host.ok()) << host.error().message;
  EXPECT_NE(host->on_host.find("'x'"), std::string::npos) << host->on_host;
  EXPECT_NE(host->on_host.find("element 1"), std::string::npos) << host->on_host;
  EXPECT_EQ(As<double>(host->outputs[0]), (std::vector<double>{-1.0, -2.417825e198, -0.0}));
  EXPECT_EQ(s->stats().host_evaluated_runs, 1u);
}

TEST(OnnxDtypes, DoubleNarrowsToF32AndUint8WrapsBack) {
  ModelBuilder b;
  b.Input("x", ::onnx::TensorProto::DOUBLE, {3});
  b.Input("u", ::onnx::TensorProto::UINT8, {3});
  b.Output("y", ::onnx::TensorProto::DOUBLE, {3});
  b.Output("v", ::onnx::TensorProto::UINT8, {3});
  b.Node("Exp", {"x"}, {"y"});
  b.Node("Add", {"u", "u"}, {"v"});
  auto s = Session::LoadFromBytes(b.Bytes(), {}, Opts());
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::vector<double> x = {0.0, 1.0, -2.5};
  std::vector<uint8_t> u = {1, 100, 200};
  auto r = s->Run({HostInput{"x", ElemType::kDouble, {3}, AsBytes(x)},
                   HostInput{"u", ElemType::kUint8, {3}, AsBytes(u)}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  auto y = As<double>(r->outputs[0]);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(y[i], std::exp(x[i]), 1e-5 * std::exp(x[i]));
  // uint8 arithmetic wraps modulo 256 (ONNX semantics); the device computed 400 in u32.
  EXPECT_EQ(As<uint8_t>(r->outputs[1]), (std::vector<uint8_t>{2, 200, static_cast<uint8_t>(400)}));
}

TEST(OnnxDtypes, CastToInt64IsRewrittenToI32) {
  ModelBuilder b;
  b.Input("x", 1, {4});
  b.Output("y", ::onnx::TensorProto::INT64, {4});
  auto* n = b.Node("Cast", {"x"}, {"y"});
  auto* a = n->add_attribute();
  a->set_name("to");
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(::onnx::TensorProto::INT64);
  auto s = Session::LoadFromBytes(b.Bytes(), {}, Opts());
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::vector<float> x = {1.7f, -2.2f, 300.9f, 0};
  auto r = s->Run({HostInput{"x", ElemType::kFloat, {4}, AsBytes(x)}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(As<int64_t>(r->outputs[0]), (std::vector<int64_t>{1, -2, 300, 0}));
}

TEST(OnnxDtypes, WrongInputTypeIsNamed) {
  ModelBuilder b;
  b.Input("x", 1, {2});
  b.Output("y", 1, {2});
  b.Node("Relu", {"x"}, {"y"});
  auto s = Session::LoadFromBytes(b.Bytes(), {}, Opts());
  ASSERT_TRUE(s.ok());
  std::vector<int32_t> x = {1, 2};
  auto r = s->Run({HostInput{"x", ElemType::kInt32, {2}, AsBytes(x)}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("input 'x' is int32, the model declares float"),
            std::string::npos)
      << r.error().message;
}

// ---- Folding and plans --------------------------------------------------------------------

// y = Reshape(x, Shape(z) * ones): the target comes from shape arithmetic on the host (Shape
// by the importer, Mul through its record's float64 reference), never from the device.
TEST(OnnxFolding, ShapeSubgraphIsFoldedOnTheHost) {
  ModelBuilder b;
  b.Input("x", 1, {-1, 6});
  b.Input("z", 1, {-1, -1});
  b.Output("y", 1, {-1, -1}, false);
  b.Int64Init("ones", {2}, {1, 1});
  b.Node("Shape", {"z"}, {"s"});
  b.Node("Mul", {"s", "ones"}, {"t"});
  b.Node("Reshape", {"x", "t"}, {"r"});
  b.Node("Neg", {"r"}, {"y"});
  auto s = Session::LoadFromBytes(b.Bytes(), {}, Opts());
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto x = Random(12, 1);
  std::vector<float> z(12, 0);
  auto r = s->Run({HostInput{"x", ElemType::kFloat, {2, 6}, AsBytes(x)},
                   HostInput{"z", ElemType::kFloat, {3, 4}, AsBytes(z)}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->outputs[0].shape, (std::vector<uint64_t>{3, 4}));
  auto y = As<float>(r->outputs[0]);
  for (size_t i = 0; i < 12; ++i) EXPECT_EQ(y[i], -x[i]);
  EXPECT_EQ(s->stats().nodes_folded, 2u);     // Shape, Mul
  EXPECT_EQ(s->stats().nodes_on_device, 2u);  // Reshape (a view), Neg
}

TEST(OnnxFolding, NodesOverConstantsFoldAndOutputsComeBackTyped) {
  ModelBuilder b;
  b.Input("x", 1, {2});
  b.Output("y", 1, {2});
  b.Output("c", ::onnx::TensorProto::INT64, {2});
  b.FloatInit("a", {2}, {1.5f, -2});
  b.Int64Init("i", {2}, {40, 2});
  b.Node("Exp", {"a"}, {"ea"});       // folded (initializer input)
  b.Node("Add", {"x", "ea"}, {"y"});  // device
  b.Node("Mul", {"i", "i"}, {"c"});   // folded, a model output
  auto s = Session::LoadFromBytes(b.Bytes(), {}, Opts());
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::vector<float> x = {1, 2};
  auto r = s->Run({HostInput{"x", ElemType::kFloat, {2}, AsBytes(x)}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  auto y = As<float>(r->outputs[0]);
  EXPECT_NEAR(y[0], 1 + std::exp(1.5), 1e-5);
  EXPECT_NEAR(y[1], 2 + std::exp(-2.0), 1e-5);
  EXPECT_EQ(As<int64_t>(r->outputs[1]), (std::vector<int64_t>{1600, 4}));
  EXPECT_EQ(s->stats().nodes_folded, 2u);
}

TEST(OnnxPlans, OneplanPerShapeAndCacheHits) {
  ModelBuilder b;
  b.Input("x", 1, {-1, 3});
  b.Output("y", 1, {-1, 3});
  b.Node("Sigmoid", {"x"}, {"y"});
  auto s = Session::LoadFromBytes(b.Bytes(), {}, Opts());
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->inputs()[0].shape, (std::vector<int64_t>{-1, 3}));
  EXPECT_EQ(s->inputs()[0].dim_names[0], "N");
  for (uint64_t rows : {2u, 5u, 2u, 5u}) {
    auto x = Random(rows * 3, static_cast<uint32_t>(rows));
    auto r = s->Run({HostInput{"x", ElemType::kFloat, {rows, 3}, AsBytes(x)}});
    ASSERT_TRUE(r.ok()) << r.error().message;
    auto y = As<float>(r->outputs[0]);
    ASSERT_EQ(y.size(), rows * 3);
    for (size_t i = 0; i < y.size(); ++i)
      EXPECT_NEAR(y[i], 1 / (1 + std::exp(-double(x[i]))), 1e-5);
  }
  EXPECT_EQ(s->stats().plans_built, 2u);
  EXPECT_EQ(s->stats().plan_cache_hits, 2u);
}

TEST(OnnxPlans, DeclaredStaticDimsAreEnforced) {
  ModelBuilder b;
  b.Input("x", 1, {2, 3});
  b.Output("y", 1, {2, 3});
  b.Node("Relu", {"x"}, {"y"});
  auto s = Session::LoadFromBytes(b.Bytes(), {}, Opts());
  ASSERT_TRUE(s.ok());
  auto x = Random(6, 3);
  auto r = s->Run({HostInput{"x", ElemType::kFloat, {3, 2}, AsBytes(x)}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("declares [2,3]"), std::string::npos) << r.error().message;
}

// Reshape's shape is a graph input (as in the ONNX node tests): read on the host at plan
// time; its values are part of the plan key.
TEST(OnnxPlans, HostInputFromAGraphInput) {
  ModelBuilder b;
  b.Input("x", 1, {2, 6});
  b.Input("shape", ::onnx::TensorProto::INT64, {2});
  b.Output("y", 1, {-1, -1});
  b.Node("Reshape", {"x", "shape"}, {"y"});
  auto s = Session::LoadFromBytes(b.Bytes(), {}, Opts());
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto x = Random(12, 4);
  for (auto target :
       {std::vector<int64_t>{3, 4}, std::vector<int64_t>{-1, 2}, std::vector<int64_t>{3, 4}}) {
    auto r = s->Run({HostInput{"x", ElemType::kFloat, {2, 6}, AsBytes(x)},
                     HostInput{"shape", ElemType::kInt64, {2}, AsBytes(target)}});
    ASSERT_TRUE(r.ok()) << r.error().message;
    const uint64_t d0 = target[0] < 0 ? 12 / target[1] : target[0];
    EXPECT_EQ(r->outputs[0].shape, (std::vector<uint64_t>{d0, 12 / d0}));
    EXPECT_EQ(As<float>(r->outputs[0]), x);
  }
  EXPECT_EQ(s->stats().plans_built, 2u);
  EXPECT_EQ(s->stats().plan_cache_hits, 1u);
}

// Inputs already on the device: used as they are (the same results as host inputs); one read
// on the host (Reshape's shape, int64 as i32 on the device) is downloaded; a device tensor of
// the wrong dtype or shape is refused with both named.
TEST(OnnxPlans, DeviceInputs) {
  ModelBuilder b;
  b.Input("x", 1, {2, 6});
  b.Input("shape", ::onnx::TensorProto::INT64, {2});
  b.Output("y", 1, {-1, -1});
  b.Node("Neg", {"x"}, {"n"});
  b.Node("Reshape", {"n", "shape"}, {"y"});
  auto s = Session::LoadFromBytes(b.Bytes(), {}, Opts());
  ASSERT_TRUE(s.ok()) << s.error().message;
  compute::Executor ex(s->context());
  auto x = Random(12, 5);
  auto dx = ex.Upload(compute::DType::kF32, {2, 6}, AsBytes(x));
  ASSERT_TRUE(dx.ok());
  std::vector<int32_t> shape32 = {4, 3};
  auto dshape = ex.Upload(compute::DType::kI32, {2}, AsBytes(shape32));
  ASSERT_TRUE(dshape.ok());
  HostInput xi{"x", ElemType::kFloat, {2, 6}, {}, *dx};
  HostInput si{"shape", ElemType::kInt64, {2}, {}, *dshape};
  auto r = s->Run({xi, si});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->outputs[0].shape, (std::vector<uint64_t>{4, 3}));
  auto y = As<float>(r->outputs[0]);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(y[i], -x[i]) << i;

  auto bad = s->Run({HostInput{"x", ElemType::kFloat, {2, 6}, {}, *dshape}, si});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("'x'"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("i32[2]"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("f32[2,6]"), std::string::npos) << bad.error().message;
}

TEST(OnnxPlans, UnsupportedOnlyIfNeeded) {
  // A shape the op table refuses, on a branch that is never an output.
  ModelBuilder b;
  b.Input("x", 1, {2, 3});
  b.Input("w", 1, {4, 5});
  b.Output("y", 1, {2, 3});
  b.Node("MatMul", {"x", "w"}, {"dead"}, "dead_branch");
  b.Node("Relu", {"x"}, {"y"});
  auto s = Session::LoadFromBytes(b.Bytes(), {}, Opts());
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto x = Random(6, 5), w = Random(20, 6);
  auto r = s->Run({HostInput{"x", ElemType::kFloat, {2, 3}, AsBytes(x)},
                   HostInput{"w", ElemType::kFloat, {4, 5}, AsBytes(w)}});
  ASSERT_TRUE(r.ok()) << r.error().message;

  // The same node feeding the output: the table's reason, with node, op and opset.
  ModelBuilder c;
  c.Input("x", 1, {2, 3});
  c.Input("w", 1, {4, 5});
  c.Output("y", 1, {2, 5});
  c.Node("MatMul", {"x", "w"}, {"y"}, "mm");
  auto s2 = Session::LoadFromBytes(c.Bytes(), {}, Opts());
  ASSERT_TRUE(s2.ok()) << s2.error().message;
  auto r2 = s2->Run({HostInput{"x", ElemType::kFloat, {2, 3}, AsBytes(x)},
                     HostInput{"w", ElemType::kFloat, {4, 5}, AsBytes(w)}});
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().message.find("'mm' (MatMul, opset 17)"), std::string::npos)
      << r2.error().message;
}

// MatMul + Add: with fusion the plan has one device node (Gemm); the result matches a loop.
TEST(OnnxFusion, MatMulAddBecomesGemm) {
  ModelBuilder b;
  b.Input("x", 1, {3, 4});
  b.Output("y", 1, {3, 5});
  auto w = Random(20, 7), bias = Random(5, 8);
  b.FloatInit("w", {4, 5}, w);
  b.FloatInit("b", {5}, bias);
  b.Node("MatMul", {"x", "w"}, {"mm"});
  b.Node("Add", {"mm", "b"}, {"y"});
  auto x = Random(12, 9);
  for (bool fuse : {true, false}) {
    SessionOptions o = Opts();
    o.fuse = fuse;
    auto s = Session::LoadFromBytes(b.Bytes(), {}, o);
    ASSERT_TRUE(s.ok()) << s.error().message;
    auto r = s->Run({HostInput{"x", ElemType::kFloat, {3, 4}, AsBytes(x)}});
    ASSERT_TRUE(r.ok()) << r.error().message;
    auto y = As<float>(r->outputs[0]);
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 5; ++j) {
        double acc = bias[j];
        for (int k = 0; k < 4; ++k) acc += double(x[i * 4 + k]) * w[k * 5 + j];
        EXPECT_NEAR(y[i * 5 + j], acc, 1e-4);
      }
    }
    EXPECT_EQ(s->stats().fusions, fuse ? 1u : 0u);
    EXPECT_EQ(s->stats().nodes_on_device, fuse ? 1u : 2u);
  }
}

// Add + Relu become one alknet.AddRelu node (a residual join), with broadcasting; not when the
// sum is also read elsewhere (here: a graph output).
TEST(OnnxSession, AddReluFusesUnlessTheSumIsUsedElsewhere) {
  auto x = Random(12, 21), r = Random(4, 22);
  for (bool sum_is_output : {false, true}) {
    ModelBuilder b;
    b.Input("x", 1, {3, 4});
    b.Output("y", 1, {3, 4});
    if (sum_is_output) b.Output("s", 1, {3, 4});
    b.FloatInit("r", {4}, r);
    b.Node("Add", {"x", "r"}, {"s"});
    b.Node("Relu", {"s"}, {"y"});
    auto sess = Session::LoadFromBytes(b.Bytes(), {}, Opts());
    ASSERT_TRUE(sess.ok()) << sess.error().message;
    auto out = sess->Run({HostInput{"x", ElemType::kFloat, {3, 4}, AsBytes(x)}});
    ASSERT_TRUE(out.ok()) << out.error().message;
    auto y = As<float>(out->outputs[0]);
    for (int i = 0; i < 12; ++i)
      EXPECT_NEAR(y[i], std::max(0.0, double(x[i]) + r[i % 4]), 1e-6) << i;
    EXPECT_EQ(sess->stats().fusions, sum_is_output ? 0u : 1u);
    EXPECT_EQ(sess->stats().nodes_on_device, sum_is_output ? 2u : 1u);
  }
}

// A metatensor view as the input, device outputs kept: the same values as the host outputs.
TEST(OnnxSession, MetatensorInputAndDeviceOutputs) {
  ModelBuilder b;
  b.Input("x", 1, {2, 3});
  b.Output("y", 1, {2, 3});
  b.Node("Tanh", {"x"}, {"y"});
  auto s = Session::LoadFromBytes(b.Bytes(), {}, Opts());
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto x = Random(6, 11);
  tensor::MemorySink sink;
  tensor::Writer w(sink);
  const std::vector<uint64_t> shape = {2, 3};
  ASSERT_TRUE(w.AddTensor("x", tensor::DType::kF32, shape, AsBytes(x)).ok());
  ASSERT_TRUE(w.Finish().ok());
  auto reader = tensor::Reader::FromBuffer(sink.Take());
  ASSERT_TRUE(reader.ok());
  auto view = reader->Find("x");
  ASSERT_TRUE(view.ok());
  auto in = InputFromView(*view);
  ASSERT_TRUE(in.ok()) << in.error().message;
  RunOptions ro;
  ro.keep_device_outputs = true;
  auto r = s->Run(std::vector<HostInput>{*in}, ro);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->device_outputs.size(), 1u);
  ASSERT_TRUE(r->device_outputs[0].valid());
  EXPECT_EQ(r->device_outputs[0].shape(), (compute::Shape{2, 3}));
  auto y = As<float>(r->outputs[0]);
  for (size_t i = 0; i < 6; ++i) EXPECT_NEAR(y[i], std::tanh(double(x[i])), 1e-5);
}

}  // namespace
}  // namespace alknet::onnx
