// If, Loop and Scan against the models of control_flow/generate.py, whose expected outputs
// numpy computed (backend-test layout: model.onnx, test_data_set_N/{input,output}_K.pb).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alknet/onnx/session.h"
#include "alknet/webgpu/context.h"

namespace alknet::onnx {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = ALKNET_CONTROL_FLOW_DIR;

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

Session Load(const std::string& name, uint64_t max_unrolled_loop_nodes = 4096,
             std::optional<bool> replay = std::nullopt) {
  SessionOptions o;
  o.context = &Ctx();
  o.max_unrolled_loop_nodes = max_unrolled_loop_nodes;
  o.replay = replay;
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

// Runs data set `set` of model `name` (poisoning nothing: outputs are fresh host tensors) and
// compares every output with numpy's.
void RunSet(Session& s, const std::string& name, int set) {
  const fs::path dir = kDir / name / ("test_data_set_" + std::to_string(set));
  ASSERT_TRUE(fs::exists(dir)) << dir;
  std::vector<Tensor> ins = ReadAll(dir, "input_");
  std::vector<Tensor> want = ReadAll(dir, "output_");
  std::vector<HostInput> inputs;
  for (size_t i = 0; i < ins.size(); ++i) {
    inputs.push_back(HostInput{s.inputs()[i].name, ins[i].type, ins[i].shape, ins[i].data, {}});
  }
  auto r = s.Run(inputs);
  ASSERT_TRUE(r.ok()) << name << " set " << set << ": " << r.error().ToString();
  ASSERT_EQ(r->outputs.size(), want.size());
  for (size_t o = 0; o < want.size(); ++o) {
    const Tensor& got = r->outputs[o];
    ASSERT_EQ(got.shape, want[o].shape) << name << " set " << set << " output " << o;
    ASSERT_EQ(got.type, want[o].type);
    for (uint64_t i = 0; i < want[o].elements(); ++i) {
      EXPECT_NEAR(got.At(i), want[o].At(i), 1e-5 + 1e-4 * std::fabs(want[o].At(i)))
          << name << " set " << set << " output " << o << " element " << i;
    }
  }
}

TEST(ControlFlow, IfOnSampleRateIsInlinedAtPlanTime) {
  Session s = Load("if_sample_rate");
  // 16000: both Ifs decided by the sample rate and inlined, nothing runs on its own.
  RunSet(s, "if_sample_rate", 0);
  EXPECT_EQ(s.stats().ifs_inlined, 2u);
  EXPECT_EQ(s.stats().control_nodes_run, 0u);
  EXPECT_EQ(s.stats().plans_built, 1u);
  // As fast as the graph without the Ifs: Mul(x, 2) and Add(y0, x) on the device, nothing else.
  EXPECT_EQ(s.stats().nodes_on_device, 2u);
  // 8000: the else branch, one If inlined; a new plan for the new value.
  RunSet(s, "if_sample_rate", 1);
  EXPECT_EQ(s.stats().ifs_inlined, 1u);
  EXPECT_EQ(s.stats().plans_built, 2u);
  RunSet(s, "if_sample_rate", 2);
  EXPECT_EQ(s.stats().ifs_inlined, 2u);
  // The same rate again: the cached plan, no If left in it.
  RunSet(s, "if_sample_rate", 0);
  EXPECT_EQ(s.stats().plans_built, 3u);
  EXPECT_EQ(s.stats().control_nodes_run, 0u);
}

TEST(ControlFlow, IfOnComputedScoreRunsTheTakenBranch) {
  Session s = Load("if_score");
  for (int set : {0, 1, 2}) RunSet(s, "if_score", set);
  EXPECT_EQ(s.stats().control_nodes_run, 3u);
  EXPECT_EQ(s.stats().subgraph_runs, 3u);
  // Both paths planned once: running them again builds nothing new.
  const uint64_t built = s.stats().plans_built;
  for (int set : {0, 1}) RunSet(s, "if_score", set);
  EXPECT_EQ(s.stats().plans_built, built);
}

TEST(ControlFlow, KnownIfAroundADataDependentIfRunsInSegments) {
  Session s = Load("if_nested_dynamic");
  RunSet(s, "if_nested_dynamic", 0);
  // The outer If (decided by the rate) and the inner one (by the data) both ran on their own.
  EXPECT_EQ(s.stats().control_nodes_run, 2u);
  RunSet(s, "if_nested_dynamic", 1);
  EXPECT_EQ(s.stats().control_nodes_run, 4u);
  // 8 kHz: the else branch has no control flow left, the outer If is inlined.
  RunSet(s, "if_nested_dynamic", 2);
  EXPECT_EQ(s.stats().control_nodes_run, 4u);
  EXPECT_EQ(s.stats().ifs_inlined, 1u);
}

TEST(ControlFlow, LoopWithNestedIfAndOuterScopeValue) {
  Session s = Load("loop_nested_if");
  RunSet(s, "loop_nested_if", 0);
  RunSet(s, "loop_nested_if", 1);
  // The body is planned per shapes, not per iteration: another five iterations plan nothing.
  const uint64_t built = s.stats().plans_built;
  RunSet(s, "loop_nested_if", 0);
  EXPECT_EQ(s.stats().plans_built, built);
  EXPECT_GE(s.stats().subgraph_runs, 11u);
}

TEST(ControlFlow, WhileLoopIncludingZeroIterations) {
  Session s = Load("loop_counter");
  for (int set : {0, 1, 2}) RunSet(s, "loop_counter", set);
  // Seven iterations and more did not plan the body more than once per shapes.
  const uint64_t built = s.stats().plans_built;
  RunSet(s, "loop_counter", 0);
  EXPECT_EQ(s.stats().plans_built, built);
}

TEST(ControlFlow, LoopInputsFromInitializersAndAHostOpBetweenSegments) {
  Session s = Load("loop_initializer_inputs");
  RunSet(s, "loop_initializer_inputs", 0);
  EXPECT_EQ(s.stats().host_ops_run, 1u);    // NonZero read its input back
  RunSet(s, "loop_initializer_inputs", 1);  // no positive element: an empty index list
  EXPECT_EQ(s.stats().host_ops_run, 2u);
}

TEST(ControlFlow, ScanWithAxesAndDirections) {
  Session s = Load("scan_directions");
  RunSet(s, "scan_directions", 0);
}

TEST(ControlFlow, VoiceActivityStyleIfsAreDecidedAtPlanTime) {
  Session s = Load("vad_like");
  // 16 kHz, long input: the LSTM of the then branch, the "long" branch of the length If.
  RunSet(s, "vad_like", 0);
  EXPECT_EQ(s.stats().ifs_inlined, 2u);
  RunSet(s, "vad_like", 1);  // 8 kHz: the other LSTM
  EXPECT_EQ(s.stats().ifs_inlined, 2u);
  RunSet(s, "vad_like", 2);  // a short input: the length If's other branch
  EXPECT_EQ(s.stats().ifs_inlined, 2u);
  EXPECT_EQ(s.stats().control_nodes_run, 0u);
  EXPECT_EQ(s.stats().plans_built, 3u);
}

TEST(ControlFlow, RecurrentLoopWithAKnownTripCountIsUnrolled) {
  // The trip count comes from the input's shape: the twelve iterations are planned in place,
  // one plan, no body run on its own.
  Session s = Load("loop_rnn");
  RunSet(s, "loop_rnn", 0);
  EXPECT_EQ(s.stats().loops_unrolled, 1u);
  EXPECT_EQ(s.stats().control_nodes_run, 0u);
  EXPECT_EQ(s.stats().subgraph_runs, 0u);
  EXPECT_EQ(s.stats().plans_built, 1u);
  RunSet(s, "loop_rnn", 0);
  EXPECT_EQ(s.stats().plans_built, 1u);
}

TEST(ControlFlow, RecurrentLoopIsPlannedOnce) {
  Session s = Load("loop_rnn", /*max_unrolled_loop_nodes=*/0);
  RunSet(s, "loop_rnn", 0);
  // Twelve iterations: the main graph's two segments and the body, each planned once.
  EXPECT_EQ(s.stats().loops_unrolled, 0u);
  EXPECT_EQ(s.stats().subgraph_runs, 12u);
  EXPECT_LE(s.stats().plans_built, 3u);
  const uint64_t built = s.stats().plans_built;
  RunSet(s, "loop_rnn", 0);
  EXPECT_EQ(s.stats().plans_built, built);
}

TEST(ControlFlow, LoopsWithKnownTripCountsUnrollUnlessTheDataDecides) {
  Session s = Load("loop_unroll");
  // `cell` (constant-true condition) and `count` (i < 2: false after three iterations) are
  // unrolled; `grow` (sum < limit, from the data) and the zero-trip Loop run on their own.
  RunSet(s, "loop_unroll", 0);  // limit 4: `grow` stops after an iteration or two
  EXPECT_EQ(s.stats().loops_unrolled, 2u);
  EXPECT_EQ(s.stats().control_nodes_run, 2u);
  RunSet(s, "loop_unroll", 1);  // limit 100: `grow` runs its ten iterations
  EXPECT_EQ(s.stats().control_nodes_run, 4u);
  // The same outputs with unrolling off.
  Session off = Load("loop_unroll", /*max_unrolled_loop_nodes=*/0);
  RunSet(off, "loop_unroll", 0);
  RunSet(off, "loop_unroll", 1);
  EXPECT_EQ(off.stats().loops_unrolled, 0u);
  EXPECT_EQ(off.stats().control_nodes_run, 8u);
}

TEST(ControlFlow, LoopPastTheUnrollBudgetRunsIterationByIteration) {
  // 12 iterations of a 7-node body need 84 planned body nodes: a budget of 80 refuses them.
  Session s = Load("loop_rnn", /*max_unrolled_loop_nodes=*/80);
  RunSet(s, "loop_rnn", 0);
  EXPECT_EQ(s.stats().loops_unrolled, 0u);
  EXPECT_EQ(s.stats().subgraph_runs, 12u);
}

// Every model run again and again (the runs after the first replay the plans' recorded
// dispatches, ADR 0026: the main graph's segments and the Loop / Scan / If bodies), each run
// against numpy's outputs; with replay off nothing replays.
TEST(ControlFlow, RepeatedRunsReplayTheirPlans) {
  for (const char* name : {"loop_rnn", "loop_nested_if", "loop_counter", "loop_initializer_inputs",
                           "scan_directions", "if_score", "vad_like"}) {
    Session s = Load(name);
    for (int round = 0; round < 3; ++round) {
      for (int set = 0; fs::exists(kDir / name / ("test_data_set_" + std::to_string(set))); ++set) {
        RunSet(s, name, set);
      }
    }
    EXPECT_GT(s.stats().segments_replayed, 0u) << name;
    Session off = Load(name, 4096, false);
    RunSet(off, name, 0);
    RunSet(off, name, 0);
    EXPECT_EQ(off.stats().segments_replayed, 0u) << name;
    EXPECT_GT(off.stats().segments_recorded, 0u) << name;
  }
  // The recurrent loop run iteration by iteration (unrolling off): twelve body runs per model
  // run, all but the first replayed.
  Session rnn = Load("loop_rnn", /*max_unrolled_loop_nodes=*/0);
  RunSet(rnn, "loop_rnn", 0);
  RunSet(rnn, "loop_rnn", 0);
  EXPECT_GE(rnn.stats().segments_replayed, 12u + 11u);
}

// Values read on the host go back with their segment's submit: an If's condition in one
// read, the outputs of the last segment in one; a Loop body's condition and scan output in
// one read per iteration (before: two, and a wait of its own for the outputs). Outputs against
// numpy's (RunSet).
TEST(ControlFlow, ReadsGoWithTheirSegmentsSubmit) {
  Session s = Load("if_score");
  for (int set = 0; set < 3; ++set) {
    const uint64_t before = s.stats().device_reads;
    RunSet(s, "if_score", set);
    EXPECT_EQ(s.stats().device_reads - before, 2u) << "if_score set " << set;
  }
  Session rnn = Load("loop_rnn", /*max_unrolled_loop_nodes=*/0);
  for (int round = 0; round < 2; ++round) {
    const uint64_t before = rnn.stats().device_reads;
    RunSet(rnn, "loop_rnn", 0);
    // The segment before the Loop (its trip count and condition), twelve iterations, then the
    // outputs (main's code read each iteration's condition and scan output apart: 26).
    EXPECT_EQ(rnn.stats().device_reads - before, 14u) << "loop_rnn round " << round;
  }
}

TEST(ControlFlow, UnsupportedOpInABranchNamesItsPath) {
  SessionOptions o;
  o.context = &Ctx();
  auto s = Session::Load(kDir / "if_refused" / "model.onnx", o);
  ASSERT_FALSE(s.ok());
  const std::string& m = s.error().message;
  EXPECT_NE(m.find("node 0 'pick' (If) then_branch: node 2 (Multinomial, opset 16)"),
            std::string::npos)
      << m;
}

TEST(ControlFlow, RunawayLoopIsAnError) {
  SessionOptions o;
  o.context = &Ctx();
  o.max_loop_iterations = 3;
  auto s = Session::Load(kDir / "loop_nested_if" / "model.onnx", o);
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  std::vector<Tensor> ins = ReadAll(kDir / "loop_nested_if" / "test_data_set_0", "input_");
  std::vector<HostInput> inputs;
  for (size_t i = 0; i < ins.size(); ++i) {
    inputs.push_back(HostInput{s->inputs()[i].name, ins[i].type, ins[i].shape, ins[i].data, {}});
  }
  auto r = s->Run(inputs);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("max_loop_iterations"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("Loop"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace alknet::onnx
