// Sequences and optionals against the models of sequences/generate.py, whose expected outputs
// numpy computed (backend-test layout; sequences as SequenceProto files, optionals as
// OptionalProto files), and the hostile models there, which must fail with the error their
// error.txt names.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "alknet/onnx/session.h"
#include "alknet/webgpu/context.h"

namespace alknet::onnx {
namespace {

namespace fs = std::filesystem;

const fs::path kDir = ALKNET_SEQUENCES_DIR;

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

ValueKind KindOf(const ValueInfo& v) {
  return v.optional ? ValueKind::kNone : v.sequence ? ValueKind::kSequence : ValueKind::kTensor;
}

std::vector<Tensor> ReadAll(const fs::path& dir, const std::string& prefix,
                            const std::vector<ValueInfo>& declared) {
  std::vector<Tensor> out;
  for (size_t k = 0; fs::exists(dir / (prefix + std::to_string(k) + ".pb")); ++k) {
    EXPECT_LT(k, declared.size());
    if (k >= declared.size()) break;
    auto t = ReadValueFile(dir / (prefix + std::to_string(k) + ".pb"), KindOf(declared[k]));
    EXPECT_TRUE(t.ok()) << t.error().ToString();
    if (t.ok()) out.push_back(std::move(t).value());
  }
  return out;
}

void ExpectSame(const Tensor& got, const Tensor& want, const std::string& where) {
  ASSERT_EQ(static_cast<int>(got.kind), static_cast<int>(want.kind)) << where;
  if (want.kind == ValueKind::kSequence) {
    ASSERT_EQ(got.items.size(), want.items.size()) << where;
    for (size_t k = 0; k < want.items.size(); ++k) {
      ExpectSame(got.items[k], want.items[k], where + "[" + std::to_string(k) + "]");
    }
    return;
  }
  if (want.kind == ValueKind::kNone) return;
  ASSERT_EQ(got.type, want.type) << where;
  ASSERT_EQ(got.shape, want.shape) << where;
  for (uint64_t i = 0; i < want.elements(); ++i) {
    EXPECT_NEAR(got.At(i), want.At(i), 1e-5 + 1e-4 * std::fabs(want.At(i)))
        << where << " element " << i;
  }
}

Result<Session> Load(const std::string& name) {
  SessionOptions o;
  o.context = &Ctx();
  return Session::Load(kDir / name / "model.onnx", o);
}

// Every data set of `name`; the run's result (or error) per set.
std::vector<Result<RunResult>> RunAll(Session& s, const std::string& name,
                                      std::vector<std::vector<Tensor>>* wants = nullptr) {
  std::vector<Result<RunResult>> results;
  for (int set = 0;; ++set) {
    const fs::path dir = kDir / name / ("test_data_set_" + std::to_string(set));
    if (!fs::exists(dir)) break;
    std::vector<Tensor> ins = ReadAll(dir, "input_", s.inputs());
    std::vector<HostInput> inputs;
    for (size_t i = 0; i < ins.size(); ++i)
      inputs.push_back(InputFromTensor(ins[i], s.inputs()[i].name));
    results.push_back(s.Run(inputs));
    if (wants != nullptr) wants->push_back(ReadAll(dir, "output_", s.outputs()));
  }
  return results;
}

// Runs every data set of `name` against the stored outputs; `stats` gets the session's.
void ExpectMatches(const std::string& name, SessionStats* stats = nullptr) {
  auto s = Load(name);
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  if (stats != nullptr) *stats = s->stats();
  std::vector<std::vector<Tensor>> wants;
  auto results = RunAll(*s, name, &wants);
  ASSERT_FALSE(results.empty()) << name;
  for (size_t set = 0; set < results.size(); ++set) {
    ASSERT_TRUE(results[set].ok())
        << name << " set " << set << ": " << results[set].error().ToString();
    const auto& got = results[set]->outputs;
    ASSERT_EQ(got.size(), wants[set].size()) << name;
    for (size_t o = 0; o < got.size(); ++o) {
      ExpectSame(got[o], wants[set][o],
                 name + " set " + std::to_string(set) + " output " + std::to_string(o));
    }
  }
  if (stats != nullptr) *stats = s->stats();
}

TEST(Sequences, LoopBuildsASequenceIncludingZeroIterations) {
  ExpectMatches("loop_builds_sequence");
}
TEST(Sequences, LoopSequenceStackedAfterTheLoop) { ExpectMatches("loop_stacks_sequence"); }
TEST(Sequences, SequenceMapRunsItsBodyPerElement) {
  // Elements of different lengths (and a Shape of each): never stacked.
  SessionStats st;
  ExpectMatches("sequence_map", &st);
  EXPECT_EQ(st.sequence_maps_batched, 0u);
}
TEST(Sequences, SequenceMapOverEqualChunksIsPlannedOnceStacked) {
  SessionStats st;
  ExpectMatches("sequence_map_stacked", &st);
  EXPECT_EQ(st.sequence_maps_batched, 1u);
}
TEST(Sequences, SequenceMapWithAReductionOverEachElementIsNotStacked) {
  SessionStats st;
  ExpectMatches("sequence_map_unbatched", &st);
  EXPECT_EQ(st.sequence_maps_batched, 0u);
}
TEST(Sequences, OptionalInputPresentAndAbsent) { ExpectMatches("optional_input"); }
TEST(Sequences, SplitToSequenceAtEraseConcat) { ExpectMatches("split_and_concat"); }

TEST(Sequences, DeclaredKindsOfInputsAndOutputs) {
  auto s = Load("sequence_map");
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  ASSERT_EQ(s->inputs().size(), 2u);
  EXPECT_TRUE(s->inputs()[0].sequence);
  EXPECT_EQ(s->inputs()[0].type, ElemType::kFloat);
  EXPECT_FALSE(s->inputs()[1].sequence);
  auto o = Load("optional_input");
  ASSERT_TRUE(o.ok()) << o.error().ToString();
  EXPECT_TRUE(o->inputs()[0].optional);
  EXPECT_FALSE(o->inputs()[0].sequence);
}

TEST(Sequences, WrongKindOfInputIsAClearError) {
  auto s = Load("sequence_map");
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  std::vector<float> x(2, 1.0f);
  HostInput tensor{"xs", ElemType::kFloat, {2}, std::as_bytes(std::span(x)), {}};
  HostInput y{"y", ElemType::kFloat, {2}, std::as_bytes(std::span(x)), {}};
  auto r = s->Run({tensor, y});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("is a tensor; the model declares a sequence"), std::string::npos)
      << r.error().message;
  HostInput seq = y;
  seq.name = "xs";
  seq.kind = ValueKind::kSequence;
  seq.items.push_back(y);
  seq.items.back().type = ElemType::kInt32;
  r = s->Run({seq, y});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("element 0 is int32, the model declares float"),
            std::string::npos)
      << r.error().message;
}

class Hostile : public ::testing::TestWithParam<std::string> {};

TEST_P(Hostile, FailsWithAClearError) {
  const std::string name = GetParam();
  std::ifstream f(kDir / name / "error.txt");
  std::string want;
  std::getline(f, want);
  ASSERT_FALSE(want.empty()) << name;
  auto s = Load(name);
  std::string message;
  if (!s.ok()) {
    message = s.error().message;
  } else {
    auto results = RunAll(*s, name);
    ASSERT_EQ(results.size(), 1u);
    ASSERT_FALSE(results[0].ok()) << name << " ran";
    message = results[0].error().message;
  }
  EXPECT_NE(message.find(want), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(Models, Hostile,
                         ::testing::Values("hostile_sequence_at", "hostile_concat_shapes",
                                           "hostile_split_count"));

}  // namespace
}  // namespace alknet::onnx
