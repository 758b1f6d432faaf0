// The float64 references against the ONNX 1.12 backend node tests: every single-node test
// under /usr/share/libonnx-testdata/data/node whose op is in the table runs its record's
// reference on the test's inputs (narrowed to device dtypes as the ONNX session does) and is
// compared with the expected outputs. No GPU: this checks the op semantics the shaders are
// themselves tested against (ops_test.cpp), before the ONNX runner exists.
//
// Records of the families listed in kChecked must reproduce every test they accept; other
// families are reported only (their owners decide). ALKNET_NODE_TESTS=<dir> overrides the
// data directory; ALKNET_NODE_TESTS_VERBOSE=1 prints one line per test;
// ALKNET_NODE_TESTS_DEVICE=1 also runs them through the shaders (NodeTestsOnDevice).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "alknet/compute/op_table.h"
#include "onnx/onnx_pb.h"
#include "test_util.h"

namespace alknet::compute {
namespace {

namespace fs = std::filesystem;

// linalg, gather, resize and signal took in the ops of the former "misc" family (Trilu, Det,
// EyeLike, GatherND, ScatterND, ReverseSequence, Compress, GridSample, DFT, STFT, windows).
const std::set<std::string> kChecked = {"unary",  "activation", "binary",   "select",
                                        "loss",   "quantize",   "training", "linalg",
                                        "gather", "resize",     "signal"};

std::string ReadFile(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

float HalfToFloat(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) << 16;
  const int exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ffu;
  float v;
  if (exp == 0)
    v = std::ldexp(static_cast<float>(mant), -24);
  else if (exp == 31)
    v = mant ? NAN : INFINITY;
  else
    v = std::ldexp(static_cast<float>(mant | 0x400u), exp - 25);
  return sign ? -v : v;
}

// The device dtype an ONNX element type lands on, or nullopt (strings, complex, bfloat16).
std::optional<DType> Narrowed(int t) {
  using TP = onnx::TensorProto;
  switch (t) {
    case TP::FLOAT:
    case TP::DOUBLE: return DType::kF32;
    case TP::FLOAT16: return DType::kF16;
    case TP::INT8:
    case TP::INT16:
    case TP::INT32:
    case TP::INT64: return DType::kI32;
    case TP::UINT8:
    case TP::UINT16:
    case TP::UINT32:
    case TP::UINT64: return DType::kU32;
    case TP::BOOL: return DType::kBool;
    default: return std::nullopt;
  }
}

// Values of a TensorProto as doubles (raw_data or the typed fields).
std::optional<RefTensor> ToRef(const onnx::TensorProto& t, std::string* why) {
  using TP = onnx::TensorProto;
  auto d = Narrowed(t.data_type());
  if (!d) {
    *why = "element type " + std::to_string(t.data_type()) + " has no device dtype";
    return std::nullopt;
  }
  RefTensor r{*d, {}, {}};
  uint64_t n = 1;
  for (int64_t k : t.dims()) {
    r.shape.push_back(static_cast<uint64_t>(k));
    n *= static_cast<uint64_t>(k);
  }
  const std::string& raw = t.raw_data();
  auto from_raw = [&](size_t size, auto decode) {
    for (uint64_t i = 0; i < n; ++i) r.data.push_back(decode(raw.data() + i * size));
  };
  if (!raw.empty()) {
    switch (t.data_type()) {
      case TP::FLOAT:
        from_raw(4, [](const char* p) {
          float v;
          std::memcpy(&v, p, 4);
          return double{v};
        });
        break;
      case TP::DOUBLE:
        from_raw(8, [](const char* p) {
          double v;
          std::memcpy(&v, p, 8);
          return v;
        });
        break;
      case TP::FLOAT16:
        from_raw(2, [](const char* p) {
          uint16_t v;
          std::memcpy(&v, p, 2);
          return static_cast<double>(HalfToFloat(v));
        });
        break;
      case TP::INT8:
        from_raw(1, [](const char* p) { return static_cast<double>(static_cast<int8_t>(*p)); });
        break;
      case TP::UINT8:
      case TP::BOOL:
        from_raw(1, [](const char* p) { return static_cast<double>(static_cast<uint8_t>(*p)); });
        break;
      case TP::INT16:
        from_raw(2, [](const char* p) {
          int16_t v;
          std::memcpy(&v, p, 2);
          return static_cast<double>(v);
        });
        break;
      case TP::UINT16:
        from_raw(2, [](const char* p) {
          uint16_t v;
          std::memcpy(&v, p, 2);
          return static_cast<double>(v);
        });
        break;
      case TP::INT32:
        from_raw(4, [](const char* p) {
          int32_t v;
          std::memcpy(&v, p, 4);
          return double(v);
        });
        break;
      case TP::UINT32:
        from_raw(4, [](const char* p) {
          uint32_t v;
          std::memcpy(&v, p, 4);
          return double(v);
        });
        break;
      case TP::INT64:
        from_raw(8, [](const char* p) {
          int64_t v;
          std::memcpy(&v, p, 8);
          return double(v);
        });
        break;
      case TP::UINT64:
        from_raw(8, [](const char* p) {
          uint64_t v;
          std::memcpy(&v, p, 8);
          return double(v);
        });
        break;
      default: *why = "raw data of this type"; return std::nullopt;
    }
  } else {
    for (float v : t.float_data()) r.data.push_back(v);
    for (double v : t.double_data()) r.data.push_back(v);
    for (int64_t v : t.int64_data()) r.data.push_back(static_cast<double>(v));
    for (uint64_t v : t.uint64_data()) r.data.push_back(static_cast<double>(v));
    for (int32_t v : t.int32_data()) {
      r.data.push_back(t.data_type() == TP::FLOAT16 ? HalfToFloat(static_cast<uint16_t>(v)) : v);
    }
  }
  if (r.data.size() != n) {
    *why = "tensor holds " + std::to_string(r.data.size()) + " values for " + std::to_string(n) +
           " elements";
    return std::nullopt;
  }
  return r;
}

// What the session's download does to a device value of an ONNX output narrower than 32
// bits: keep the low bits (two's complement), as a C cast does.
double Widen(double v, int onnx_type) {
  using TP = onnx::TensorProto;
  auto wrap = [&](int bits, bool is_signed) {
    const double m = std::ldexp(1.0, bits);
    double w = std::fmod(v, m);
    if (w < 0) w += m;
    if (is_signed && w >= m / 2) w -= m;
    return w;
  };
  switch (onnx_type) {
    case TP::INT8: return wrap(8, true);
    case TP::UINT8: return wrap(8, false);
    case TP::INT16: return wrap(16, true);
    case TP::UINT16: return wrap(16, false);
    default: return v;
  }
}

std::optional<AttrValue> ToAttr(const onnx::AttributeProto& a, std::string* why) {
  using AP = onnx::AttributeProto;
  switch (a.type()) {
    case AP::INT: return AttrValue(static_cast<int64_t>(a.i()));
    case AP::FLOAT: return AttrValue(static_cast<double>(a.f()));
    case AP::STRING: return AttrValue(a.s());
    case AP::INTS: return AttrValue(std::vector<int64_t>(a.ints().begin(), a.ints().end()));
    case AP::FLOATS: return AttrValue(std::vector<double>(a.floats().begin(), a.floats().end()));
    case AP::TENSOR: {
      auto t = ToRef(a.t(), why);
      if (!t) return std::nullopt;
      return AttrValue(std::make_shared<const RefTensor>(std::move(*t)));
    }
    default: *why = "attribute kind " + std::to_string(a.type()); return std::nullopt;
  }
}

struct Outcome {
  enum { kPass, kFail, kSkip, kRefused } kind;
  std::string detail;
};

// One single-node test, loaded and narrowed.
struct NodeTest {
  std::string family;  // of the record that runs it
  OpNode node;
  std::vector<RefTensor> inputs;    // per node input; absent ones empty
  std::vector<RefTensor> expected;  // per ONNX output
  std::vector<int> expected_types;  // ONNX element types of the outputs
};

// Tests whose expected outputs contradict their own model, with the evidence.
const std::map<std::string, std::string> kInconsistent = {
    {"test_adam_multiple",
     "expected outputs use epsilon=1e-2 but the node leaves epsilon at its schema default 1e-6 "
     "(onnx/backend/test/case/node/adam.py, export_adam_multiple)"},
};

std::optional<Outcome> LoadNodeTest(const fs::path& dir, NodeTest* out) {
  if (auto it = kInconsistent.find(dir.filename().string()); it != kInconsistent.end()) {
    return Outcome{Outcome::kSkip, it->second};
  }
  onnx::ModelProto model;
  if (!model.ParseFromString(ReadFile(dir / "model.onnx")))
    return Outcome{Outcome::kSkip, "model.onnx does not parse"};
  const onnx::GraphProto& g = model.graph();
  if (g.node_size() != 1) return Outcome{Outcome::kSkip, "not a single-node test"};
  const onnx::NodeProto& n = g.node(0);
  // The opset of the node's own domain (ai.onnx.preview.training for the optimizers).
  int opset = 0;
  const std::string domain = n.domain() == "ai.onnx" ? "" : n.domain();
  for (const auto& o : model.opset_import()) {
    if ((o.domain() == "ai.onnx" ? "" : o.domain()) == domain)
      opset = static_cast<int>(o.version());
  }
  const OpRecord* record = OpTable::Default().Find(n.op_type(), opset);
  if (record == nullptr) {
    return Outcome{Outcome::kSkip,
                   n.op_type() + " opset " + std::to_string(opset) + " not in the table"};
  }
  out->family = record->family;
  out->node = OpNode{n.op_type(), n.name(), opset, {}, {}, {}};
  std::string why;
  for (const auto& a : n.attribute()) {
    auto v = ToAttr(a, &why);
    if (!v) return Outcome{Outcome::kSkip, "attribute " + a.name() + ": " + why};
    out->node.attributes[a.name()] = *v;
  }
  // Declared element types decide (bfloat16 data is stored as UINT16 in some test files).
  for (const auto* list : {&g.input(), &g.output()}) {
    for (const auto& vi : *list) {
      const int t = vi.type().tensor_type().elem_type();
      if (vi.type().has_tensor_type() && !Narrowed(t)) {
        return Outcome{Outcome::kSkip,
                       vi.name() + " has element type " + std::to_string(t) + " (no device dtype)"};
      }
    }
  }
  // Graph inputs in order are input_<k>.pb.
  std::map<std::string, RefTensor> given;
  for (int k = 0; k < g.input_size(); ++k) {
    onnx::TensorProto t;
    if (!t.ParseFromString(
            ReadFile(dir / "test_data_set_0" / ("input_" + std::to_string(k) + ".pb")))) {
      return Outcome{Outcome::kSkip, "input " + std::to_string(k) + " is not a tensor"};
    }
    auto r = ToRef(t, &why);
    if (!r) return Outcome{Outcome::kSkip, "input " + g.input(k).name() + ": " + why};
    given[g.input(k).name()] = *r;
  }
  for (const std::string& name : n.input()) {
    TensorDesc d;
    if (name.empty()) {
      d.absent = true;
      out->inputs.push_back(RefTensor{});
    } else {
      if (!given.count(name))
        return Outcome{Outcome::kSkip, "input " + name + " is not a graph input"};
      out->inputs.push_back(given[name]);
      d = TensorDesc{given[name].dtype, given[name].shape};
    }
    out->node.inputs.push_back(d);
  }
  for (int k = 0; k < g.output_size(); ++k) {
    onnx::TensorProto t;
    if (!t.ParseFromString(
            ReadFile(dir / "test_data_set_0" / ("output_" + std::to_string(k) + ".pb")))) {
      return Outcome{Outcome::kSkip, "output " + std::to_string(k) + " is not a tensor"};
    }
    auto want = ToRef(t, &why);
    if (!want) return Outcome{Outcome::kSkip, "output " + std::to_string(k) + ": " + why};
    out->expected.push_back(*want);
    out->expected_types.push_back(t.data_type());
  }
  return std::nullopt;
}

// Compares computed outputs (reference or device) with the expected ones.
Outcome Compare(const NodeTest& t, const std::vector<RefTensor>& got) {
  for (size_t k = 0; k < t.expected.size(); ++k) {
    if (k >= got.size()) return {Outcome::kFail, "no output " + std::to_string(k)};
    const RefTensor& r = got[k];
    const RefTensor& want = t.expected[k];
    if (r.dtype != want.dtype) {
      return {Outcome::kFail, "output " + std::to_string(k) + " dtype " + DTypeName(r.dtype) +
                                  ", want " + DTypeName(want.dtype)};
    }
    if (r.shape != want.shape) {
      return {Outcome::kFail, "output " + std::to_string(k) + " shape " + ShapeToString(r.shape) +
                                  ", want " + ShapeToString(want.shape)};
    }
    // The backend tests' own tolerance (onnx/backend/test/runner: rtol 1e-3, atol 1e-7).
    for (size_t i = 0; i < r.data.size(); ++i) {
      const double a = Widen(r.data[i], t.expected_types[k]), b = want.data[i];
      const bool ok = (std::isnan(a) && std::isnan(b)) || a == b ||
                      std::fabs(a - b) <= 1e-7 + 1e-3 * std::fabs(b);
      if (!ok) {
        return {Outcome::kFail, "output " + std::to_string(k) + " element " + std::to_string(i) +
                                    ": got " + std::to_string(a) + ", want " + std::to_string(b)};
      }
    }
  }
  return {Outcome::kPass, ""};
}

Outcome CheckReference(const NodeTest& t) {
  auto got = ReferenceRun(t.node, t.inputs);
  if (!got.ok()) {
    // A refusal with a reason (kUnsupported) is a documented limit, listed apart from failures.
    if (got.error().code == ErrorCode::kUnsupported)
      return {Outcome::kRefused, got.error().ToString()};
    return {Outcome::kFail, "reference refused: " + got.error().ToString()};
  }
  return Compare(t, *got);
}

// The same through the executor: host inputs (OpRecord::host_inputs) as known values, the
// rest uploaded, every output the record produces kept, the ONNX ones compared.
Outcome CheckDevice(const NodeTest& t, Executor& ex) {
  const OpRecord* record = OpTable::Default().Find(t.node.op_type, t.node.opset);
  auto ref = ReferenceRun(t.node, t.inputs);  // its output count is the record's
  if (!ref.ok()) return {Outcome::kRefused, ref.error().ToString()};
  Graph g(0);
  Graph::Node node;
  node.op = t.node.op_type;
  node.opset = t.node.opset;
  node.attributes = t.node.attributes;
  node.name = t.node.name;
  std::vector<Tensor> dev;
  for (size_t i = 0; i < t.inputs.size(); ++i) {
    if (t.node.inputs[i].absent) {
      node.inputs.push_back(Graph::kAbsent);
      node.input_values.push_back(nullptr);
    } else if (record->is_host_input(i)) {
      node.inputs.push_back(Graph::kAbsent);
      node.input_values.push_back(std::make_shared<const RefTensor>(t.inputs[i]));
    } else {
      auto up = ex.UploadConstant(t.inputs[i]);
      if (!up.ok()) return {Outcome::kFail, "upload: " + up.error().ToString()};
      dev.push_back(*up);
      node.inputs.push_back(g.num_inputs++);
      node.input_values.push_back(nullptr);
    }
  }
  g.num_values = g.num_inputs;
  node.first_output = g.num_values;
  node.output_count = static_cast<int>(ref->size());
  g.num_values += node.output_count;
  for (int o = 0; o < node.output_count; ++o) g.outputs.push_back(node.first_output + o);
  g.nodes.push_back(node);
  auto out = ex.Run(g, dev);
  if (!out.ok()) return {Outcome::kFail, out.error().ToString()};
  std::vector<RefTensor> got;
  for (const Tensor& o : *out) {
    auto host = ex.Download(o);
    if (!host.ok()) return {Outcome::kFail, "download: " + host.error().ToString()};
    got.push_back(RefTensor{host->dtype, host->shape, testing::FromHost(*host)});
  }
  return Compare(t, got);
}

std::vector<fs::path> NodeTestDirs() {
  const char* env = std::getenv("ALKNET_NODE_TESTS");
  const fs::path root = env ? env : "/usr/share/libonnx-testdata/data/node";
  std::vector<fs::path> dirs;
  if (!fs::is_directory(root)) return dirs;
  for (const auto& e : fs::directory_iterator(root)) {
    if (e.is_directory()) dirs.push_back(e.path());
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

void RunAll(const char* what, const std::function<Outcome(const NodeTest&)>& check) {
  const std::vector<fs::path> dirs = NodeTestDirs();
  if (dirs.empty())
    GTEST_SKIP() << "no ONNX node tests (Debian package libonnx-testdata, or ALKNET_NODE_TESTS)";
  const bool verbose = std::getenv("ALKNET_NODE_TESTS_VERBOSE") != nullptr;
  int pass = 0, fail = 0, skip = 0, other_fail = 0, refused = 0;
  for (const fs::path& dir : dirs) {
    NodeTest t;
    std::optional<Outcome> loaded = LoadNodeTest(dir, &t);
    const Outcome o = loaded ? *loaded : check(t);
    const std::string name = dir.filename().string();
    const bool checked = kChecked.count(t.family) != 0;
    if (o.kind == Outcome::kPass) ++pass;
    if (o.kind == Outcome::kSkip) ++skip;
    if (o.kind == Outcome::kRefused) {
      ++refused;
      std::printf("[ refused  ] %s: %s\n", name.c_str(), o.detail.c_str());
    }
    if (o.kind == Outcome::kFail && checked) {
      ++fail;
      ADD_FAILURE() << what << " " << name << ": " << o.detail;
    } else if (o.kind == Outcome::kFail) {
      ++other_fail;
      std::printf("[ note     ] %s (%s, not checked here): %s\n", name.c_str(), t.family.c_str(),
                  o.detail.c_str());
    }
    if (verbose) {
      std::printf("%-60s %s %s\n", name.c_str(),
                  o.kind == Outcome::kPass      ? "pass"
                  : o.kind == Outcome::kFail    ? "FAIL"
                  : o.kind == Outcome::kRefused ? "refused"
                                                : "skip",
                  o.detail.c_str());
    }
  }
  std::printf(
      "[ node     ] %s: %d reproduced, %d failed (checked families), %d failed (other families), "
      "%d refused, "
      "%d skipped\n",
      what, pass, fail, other_fail, refused, skip);
}

TEST(OpSemantics, NodeTestReferences) { RunAll("reference", CheckReference); }

// The shaders themselves on the node tests' data (op families of kChecked only: the rest
// belong to the ONNX runner's suite). Each test compiles its own shaders (lavapipe: ~0.1 s
// each on an idle machine), so this one runs on request.
TEST(OpSemantics, NodeTestsOnDevice) {
  // About 300 distinct shaders: a minute of CPU on lavapipe, too long for every CI run.
  if (std::getenv("ALKNET_NODE_TESTS_DEVICE") == nullptr) {
    GTEST_SKIP()
        << "set ALKNET_NODE_TESTS_DEVICE=1 to run the node tests' data through the shaders";
  }
  Executor ex(testing::SharedContext(), ExecutorOptions{.poison_outputs = true});
  RunAll("device", [&](const NodeTest& t) {
    if (!kChecked.count(t.family))
      return Outcome{Outcome::kSkip, "family " + t.family + " is not checked here"};
    return CheckDevice(t, ex);
  });
}

}  // namespace
}  // namespace alknet::compute
