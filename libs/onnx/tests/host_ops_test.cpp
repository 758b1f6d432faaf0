// Work the plan does on the host, against the models of host/generate.py (expected outputs from
// numpy): a host op on values computed on the device (NonMaxSuppression), a record's host input
// computed on the device (Compress's condition), and float64 values beyond float32's range
// (the run evaluated on the host, ADR 0013), MelWeightMatrix folded, TfIdfVectorizer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "alknet/onnx/session.h"
#include "alknet/webgpu/context.h"

namespace alknet::onnx {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = ALKNET_HOST_MODELS_DIR;

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

Session Load(const std::string& name, SessionOptions o = {}) {
  o.context = &Ctx();
  auto s = Session::Load(kDir / name / "model.onnx", o);
  if (!s.ok()) {
    ADD_FAILURE() << s.error().ToString();
    std::abort();
  }
  return std::move(s).value();
}

std::vector<Tensor> ReadAll(const fs::path& dir, const std::string& prefix) {
  std::vector<Tensor> out;
  for (int k = 0; fs::exists(dir / (prefix + std::to_string(k) + ".pb")); ++k) {
    auto t = ReadTensorFile(dir / (prefix + std::to_string(k) + ".pb"));
    EXPECT_TRUE(t.ok()) << t.error().ToString();
    if (t.ok()) out.push_back(std::move(t).value());
  }
  return out;
}

// Runs data set `set` of model `name` and compares every output with numpy's (relative
// tolerance only for float64 results near 1e200).
RunResult RunSet(Session& s, const std::string& name, int set, bool profile = false) {
  const fs::path dir = kDir / name / ("test_data_set_" + std::to_string(set));
  EXPECT_TRUE(fs::exists(dir)) << dir;
  std::vector<Tensor> ins = ReadAll(dir, "input_");
  std::vector<Tensor> want = ReadAll(dir, "output_");
  std::vector<HostInput> inputs;
  for (size_t i = 0; i < ins.size(); ++i) {
    inputs.push_back(HostInput{s.inputs()[i].name, ins[i].type, ins[i].shape, ins[i].data, {}});
  }
  RunOptions ro;
  ro.profile = profile;
  auto r = s.Run(inputs, ro);
  if (!r.ok()) {
    ADD_FAILURE() << name << " set " << set << ": " << r.error().ToString();
    return {};
  }
  EXPECT_EQ(r->outputs.size(), want.size());
  for (size_t o = 0; o < want.size() && o < r->outputs.size(); ++o) {
    const Tensor& got = r->outputs[o];
    EXPECT_EQ(got.shape, want[o].shape) << name << " set " << set << " output " << o;
    EXPECT_EQ(got.type, want[o].type);
    if (got.shape != want[o].shape) continue;
    for (uint64_t i = 0; i < want[o].elements(); ++i) {
      EXPECT_NEAR(got.At(i), want[o].At(i), 1e-5 + 1e-4 * std::fabs(want[o].At(i)))
          << name << " set " << set << " output " << o << " element " << i;
    }
  }
  return std::move(r).value();
}

TEST(HostOps, NonMaxSuppressionOnDeviceScores) {
  Session s = Load("nms_device_scores");
  for (int set : {0, 1, 2}) RunSet(s, "nms_device_scores", set);
  // Each run read boxes and scores back once.
  EXPECT_EQ(s.stats().host_ops_run, 3u);
  // --profile's view: the sync is listed by op and node.
  RunResult r = RunSet(s, "nms_device_scores", 0, /*profile=*/true);
  ASSERT_EQ(r.host_nodes.size(), 1u);
  EXPECT_EQ(r.host_nodes[0].op, "NonMaxSuppression");
}

TEST(HostOps, CompressWithAComputedCondition) {
  // By default the condition folds on the host (x is read there: it reaches a host input).
  Session folded = Load("compress_computed");
  for (int set : {0, 1, 2}) RunSet(folded, "compress_computed", set);
  EXPECT_EQ(folded.stats().host_input_reads, 0u);
  // With a fold limit below the condition's 9 elements it is computed on the device: each run
  // reads it back and plans the rest for its value.
  SessionOptions o;
  o.fold_limit = 4;
  Session s = Load("compress_computed", o);
  for (int set : {0, 1, 2}) RunSet(s, "compress_computed", set);
  EXPECT_EQ(s.stats().host_input_reads, 3u);
  EXPECT_EQ(s.stats().host_ops_run, 0u);
  RunResult r = RunSet(s, "compress_computed", 0, /*profile=*/true);
  ASSERT_EQ(r.host_nodes.size(), 1u);
  EXPECT_EQ(r.host_nodes[0].op, "Compress");
}

TEST(HostOps, Float64BeyondFloat32RunsOnTheHost) {
  Session s = Load("float64_wide");
  RunResult wide = RunSet(s, "float64_wide", 0);
  EXPECT_NE(wide.on_host.find("input 'a'"), std::string::npos) << wide.on_host;
  EXPECT_EQ(s.stats().host_evaluated_runs, 1u);
  EXPECT_EQ(s.stats().nodes_on_device, 0u);
  // Small values: the device, as before.
  RunResult small = RunSet(s, "float64_wide", 1);
  EXPECT_TRUE(small.on_host.empty()) << small.on_host;
  EXPECT_EQ(s.stats().host_evaluated_runs, 1u);
  EXPECT_GT(s.stats().nodes_on_device, 0u);
}

TEST(HostOps, TfIdfVectorizerOnDeviceValues) {
  // 1-D X computed on the device (Add): the plan stops, TFIDF with weights, n-grams up to 3
  // with one skip, runs on the host, then a device Mul reads its output.
  Session s = Load("tfidf_1d_device");
  for (int set : {0, 1, 2}) RunSet(s, "tfidf_1d_device", set);
  EXPECT_EQ(s.stats().host_ops_run, 3u);
  // [2, 10] int32 X, IDF mode with weights, a graph input read on the host.
  Session b = Load("tfidf_idf_batch");
  for (int set : {0, 1}) RunSet(b, "tfidf_idf_batch", set);
  // Hostile: 200000 elements with max_skip_count 2^20 would be ~2e10 lookups: a clear error.
  Session h = Load("tfidf_hostile_skips");
  std::vector<int64_t> x(200000, 3);
  auto r = h.Run({HostInput{"x", ElemType::kInt64, {200000}, std::as_bytes(std::span(x)), {}}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("n-gram lookups"), std::string::npos) << r.error().message;
}

TEST(HostOps, BFloat16AtTheEdges) {
  // bfloat16 in and out (float32 on the device; numpy's bits, exact, NaN and infinities too).
  Session s = Load("bfloat16_edges");
  const fs::path dir = kDir / "bfloat16_edges" / "test_data_set_0";
  std::vector<Tensor> ins = ReadAll(dir, "input_");
  std::vector<Tensor> want = ReadAll(dir, "output_");
  ASSERT_EQ(ins.size(), 1u);
  ASSERT_EQ(want.size(), 1u);
  ASSERT_EQ(ins[0].type, ElemType::kBFloat16);
  auto r = s.Run({HostInput{"x", ins[0].type, ins[0].shape, ins[0].data, {}}});
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  ASSERT_EQ(r->outputs.size(), 1u);
  EXPECT_EQ(r->outputs[0].type, ElemType::kBFloat16);
  EXPECT_EQ(r->outputs[0].data, want[0].data);  // bit for bit
  // A Cast to bfloat16 that another node reads would skip the rounding: refused at load.
  SessionOptions o;
  o.context = &Ctx();
  auto bad = Session::Load(kDir / "bfloat16_intermediate" / "model.onnx", o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(bad.error().message.find("bfloat16"), std::string::npos) << bad.error().message;
}

TEST(HostOps, MelWeightMatrixFoldsAtPlanTime) {
  Session s = Load("mel_weight_matrix");
  RunSet(s, "mel_weight_matrix", 0);
  EXPECT_EQ(s.stats().nodes_on_device, 1u);  // the MatMul; the filters are a folded constant
}

}  // namespace
}  // namespace alknet::onnx
