// `alknet onnx-test`: the ONNX backend conformance tests (model.onnx + test_data_set_*/
// input_N.pb, output_N.pb) run through alknet::onnx::Session, classified and summarised.
// Tests run in a worker subprocess (`alknet onnx-test --worker`, test paths on stdin, one
// JSON line per test on stdout) that keeps one WebGPU device and its pipeline cache for
// all tests; the parent restarts it when a test crashes it or runs past --timeout.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "alknet/base/json.h"
#include "alknet/onnx/session.h"
#include "alknet/webgpu/context.h"
#include "command.h"
#include "options.h"

namespace alknet::cli {
namespace {

namespace fs = std::filesystem;
namespace ox = alknet::onnx;
namespace json = alknet::base::json;

// A string member of a JSON object, or `fallback` when it is missing or not a string.
std::string StringOr(const json::Value& v, std::string_view key, const std::string& fallback) {
  const json::Value* m = v.find(key);
  return m != nullptr && m->is_string() ? m->as_string() : fallback;
}

json::Array Strings(const std::vector<std::string>& list) {
  return json::Array(list.begin(), list.end());
}

constexpr const char* kDataRoot = "/usr/share/libonnx-testdata/data";

constexpr const char* kHelp =
    "Usage: alknet onnx-test DIR... [--json] [--filter REGEX] [--timeout S] [--runs N]\n"
    "                       [--write-doc FILE] [--floor FILE] [--peers DIR]\n\n"
    "Runs ONNX backend tests: a DIR holding model.onnx and test_data_set_*/ is one test, any\n"
    "other DIR is a folder of them (node, pytorch-converted, ...). A DIR that does not exist is\n"
    "looked up under "
    "/usr/share/libonnx-testdata/data"
    ". Every output is compared with the expected\n"
    "one (rtol 1e-3, atol 1e-5; shapes and types must match; NaN matches NaN).\n\n"
    "Results: pass, wrong (ran, result differs), not-comparable (a model with random ops whose\n"
    "output types and shapes match; the values come from another generator), unsupported (an\n"
    "op, attribute or type alknet does not implement), load-error (the model or its data could not "
    "be read), error (ran into\n"
    "another error), crash, timeout. Tests run in a worker process restarted after a crash or\n"
    "timeout, so no test can stop the run.\n\n"
    "  --json            one JSON document on stdout: every test and the per-folder counts\n"
    "  --filter REGEX    only tests whose id (folder/test) matches (ECMAScript, search)\n"
    "  --timeout S       seconds per test before the worker is killed (default 60)\n"
    "  --runs N          run every data set N times in one session, comparing each run (the\n"
    "                    later runs replay the cached plans; default 1)\n"
    "  --write-doc FILE  write the conformance report (Markdown; docs/conformance.md)\n"
    "  --floor FILE      JSON {\"node\": N, ...}: exit 1 if a folder passes fewer than its floor\n"
    "  --peers DIR       peer results for --write-doc (default bench/peers/results)\n\n"
    "Exit codes: 0 ok (every floor met), 1 a floor not met, 2 usage, 3 no WebGPU device.\n";

// ---- Test discovery -----------------------------------------------------------------------

struct TestCase {
  std::string id;      // "node/test_abs"
  std::string folder;  // "node"
  fs::path dir;
};

bool IsTestDir(const fs::path& p) { return fs::is_regular_file(p / "model.onnx"); }

std::optional<std::vector<TestCase>> Discover(const std::string& arg) {
  fs::path p(arg);
  if (!fs::exists(p) && fs::exists(fs::path(kDataRoot) / p)) p = fs::path(kDataRoot) / p;
  if (!fs::is_directory(p)) return std::nullopt;
  std::vector<TestCase> out;
  p = fs::absolute(p).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  if (IsTestDir(p)) {
    const std::string folder = p.parent_path().filename().string();
    out.push_back({folder + "/" + p.filename().string(), folder, p});
    return out;
  }
  const std::string folder = p.filename().string();
  for (const auto& e : fs::directory_iterator(p)) {
    if (e.is_directory() && IsTestDir(e.path())) {
      out.push_back({folder + "/" + e.path().filename().string(), folder, e.path()});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const TestCase& a, const TestCase& b) { return a.id < b.id; });
  return out;
}

// ---- The worker: runs one test ------------------------------------------------------------

bool IsUnsupported(ox::ErrorCode c) {
  return c == ox::ErrorCode::kUnknownOp || c == ox::ErrorCode::kUnsupported ||
         c == ox::ErrorCode::kInvalidAttribute;
}

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.7g", v);
  return buf;
}

// Empty when equal within tolerance, else what differs.
std::string Compare(const ox::Tensor& got, const ox::Tensor& want, double rtol, double atol) {
  auto kind = [](const ox::Tensor& t) {
    return t.kind == ox::ValueKind::kSequence
               ? "a sequence of " + std::to_string(t.items.size()) + " tensors"
           : t.kind == ox::ValueKind::kNone ? std::string("an empty optional")
                                            : std::string("a tensor");
  };
  if (got.kind != want.kind ||
      (got.kind == ox::ValueKind::kSequence && got.items.size() != want.items.size())) {
    return "output '" + want.name + "': " + kind(got) + ", expected " + kind(want);
  }
  if (want.kind == ox::ValueKind::kNone) return "";
  if (want.kind == ox::ValueKind::kSequence) {
    for (size_t k = 0; k < want.items.size(); ++k) {
      ox::Tensor w = want.items[k];
      w.name = want.name + "[" + std::to_string(k) + "]";
      std::string diff = Compare(got.items[k], w, rtol, atol);
      if (!diff.empty()) return diff;
    }
    return "";
  }
  if (got.type != want.type) {
    return "output '" + want.name + "': type " + ox::ElemTypeName(got.type) + ", expected " +
           ox::ElemTypeName(want.type);
  }
  if (got.shape != want.shape) {
    return "output '" + want.name + "': shape " + compute::ShapeToString(got.shape) +
           ", expected " + compute::ShapeToString(want.shape);
  }
  if (want.type == ox::ElemType::kString) {  // exact, element by element
    for (uint64_t i = 0; i < want.elements(); ++i) {
      if (i >= got.strings.size() || i >= want.strings.size() ||
          got.strings[i] != want.strings[i]) {
        return "output '" + want.name + "': element " + std::to_string(i) + ": got '" +
               (i < got.strings.size() ? got.strings[i].substr(0, 64) : std::string("?")) +
               "', expected '" +
               (i < want.strings.size() ? want.strings[i].substr(0, 64) : std::string("?")) + "'";
      }
    }
    return "";
  }
  const bool is_float = want.type == ox::ElemType::kFloat || want.type == ox::ElemType::kDouble ||
                        want.type == ox::ElemType::kFloat16 || want.type == ox::ElemType::kBFloat16;
  uint64_t bad = 0, first = 0;
  double worst = 0;
  for (uint64_t i = 0; i < want.elements(); ++i) {
    const double g = got.At(i), w = want.At(i);
    bool ok;
    if (!is_float) {
      ok = g == w;
    } else if (std::isnan(w) || std::isnan(g)) {
      ok = std::isnan(w) && std::isnan(g);
    } else if (std::isinf(w) || std::isinf(g)) {
      ok = g == w;
    } else {
      ok = std::fabs(g - w) <= atol + rtol * std::fabs(w);
    }
    if (!ok) {
      if (bad == 0) first = i;
      ++bad;
      if (std::isfinite(g) && std::isfinite(w)) worst = std::max(worst, std::fabs(g - w));
    }
  }
  if (bad == 0) return "";
  return "output '" + want.name + "': " + std::to_string(bad) + " of " +
         std::to_string(want.elements()) + " elements differ; first at " + std::to_string(first) +
         ": got " + Num(got.At(first)) + ", expected " + Num(want.At(first)) +
         (worst > 0 ? " (max abs diff " + Num(worst) + ")" : "");
}

std::vector<fs::path> Numbered(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> files;
  for (int i = 0;; ++i) {
    fs::path f = dir / (prefix + std::to_string(i) + ".pb");
    if (!fs::exists(f)) break;
    files.push_back(f);
  }
  return files;
}

bool Matches(const char* env, const std::string& path) {
  const char* v = std::getenv(env);
  return v != nullptr && *v != '\0' && path.find(v) != std::string::npos;
}

json::Object RunOne(webgpu::Context& ctx, const fs::path& dir) {
  static const int runs = [] {
    const char* v = std::getenv("ALKNET_ONNX_TEST_RUNS");  // set by --runs for the workers
    const int n = v != nullptr ? std::atoi(v) : 1;
    return std::clamp(n, 1, 100);
  }();
  json::Object r;
  const auto t0 = std::chrono::steady_clock::now();
  auto done = [&](const char* status, const std::string& message) {
    r.set("status", status);
    if (!message.empty()) r.set("message", message);
    r.set("ms",
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    return r;
  };
  // Debug hooks for the runner's own tests: a test that crashes or hangs the worker.
  if (Matches("ALKNET_ONNX_TEST_CRASH_ON", dir.string())) std::abort();
  if (Matches("ALKNET_ONNX_TEST_HANG_ON", dir.string())) {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }

  ox::SessionOptions options;
  options.context = &ctx;
  auto session = ox::Session::Load(dir / "model.onnx", options);
  if (!session.ok()) {
    if (auto ops = ox::ReadOpTypes(dir / "model.onnx"); ops.ok()) r.set("ops", Strings(*ops));
    return done(IsUnsupported(session.error().code) ? "unsupported" : "load-error",
                session.error().message);
  }
  r.set("ops", Strings(session->op_types()));
  const bool random = session->draws_random();
  std::vector<fs::path> sets;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0)
      sets.push_back(e.path());
  }
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) return done("load-error", "no test_data_set_* folder");
  for (const fs::path& set : sets) {
    const auto in_files = Numbered(set, "input_");
    const auto out_files = Numbered(set, "output_");
    const auto& declared = session->inputs();
    if (in_files.size() != declared.size()) {
      return done("load-error", set.filename().string() + " has " +
                                    std::to_string(in_files.size()) + " inputs, the model takes " +
                                    std::to_string(declared.size()));
    }
    std::vector<ox::Tensor> in_tensors;
    // What the model declares says which proto a file holds (TensorProto, SequenceProto,
    // OptionalProto).
    auto kind_of = [](const ox::ValueInfo& v) {
      return v.optional   ? ox::ValueKind::kNone
             : v.sequence ? ox::ValueKind::kSequence
                          : ox::ValueKind::kTensor;
    };
    // ONNX's test generator stores bfloat16 data as UINT16 tensors holding the bfloat16 bits
    // (numpy has no bfloat16): where the model declares bfloat16, those bits are read as such.
    auto bfloat16_bits = [](ox::Tensor& t, const ox::ValueInfo& v) {
      if (v.type == ox::ElemType::kBFloat16 && t.kind == ox::ValueKind::kTensor &&
          t.type == ox::ElemType::kUint16)
        t.type = ox::ElemType::kBFloat16;
    };
    for (size_t i = 0; i < in_files.size(); ++i) {
      auto t = ox::ReadValueFile(in_files[i], kind_of(declared[i]));
      if (!t.ok())
        return done(IsUnsupported(t.error().code) ? "unsupported" : "load-error",
                    t.error().message);
      bfloat16_bits(*t, declared[i]);
      in_tensors.push_back(std::move(t).value());
    }
    std::vector<ox::HostInput> inputs;
    for (size_t i = 0; i < in_tensors.size(); ++i) {
      inputs.push_back(ox::InputFromTensor(in_tensors[i], declared[i].name));
    }
    // --runs N: every data set runs N times in the one session (the later runs replay the
    // cached plans, ADR 0026), each run's outputs compared.
    for (int run = 0; run < runs; ++run) {
      const std::string which = runs > 1 ? " (run " + std::to_string(run + 1) + ")" : "";
      auto ran = session->Run(inputs);
      if (!ran.ok())
        return done(IsUnsupported(ran.error().code) ? "unsupported" : "error",
                    ran.error().message + which);
      // Reported, so that a pass on the host is not mistaken for one on the device (ADR 0013).
      if (!ran->on_host.empty()) r.set("on_host", ran->on_host);
      if (out_files.size() != ran->outputs.size()) {
        return done("wrong", "the model produced " + std::to_string(ran->outputs.size()) +
                                 " outputs, the test expects " + std::to_string(out_files.size()));
      }
      for (size_t o = 0; o < out_files.size(); ++o) {
        auto want = ox::ReadValueFile(out_files[o], o < session->outputs().size()
                                                        ? kind_of(session->outputs()[o])
                                                        : ox::ValueKind::kTensor);
        if (!want.ok())
          return done(IsUnsupported(want.error().code) ? "unsupported" : "load-error",
                      want.error().message);
        if (o < session->outputs().size()) bfloat16_bits(*want, session->outputs()[o]);
        want->name = ran->outputs[o].name;
        std::string diff = Compare(ran->outputs[o], *want, 1e-3, 1e-5);
        if (!diff.empty()) {
          // Random ops: the expected values come from numpy's generator, ours from another
          // (ops/random.cpp), so only the type and shape can be compared.
          if (random && ran->outputs[o].type == want->type &&
              ran->outputs[o].shape == want->shape) {
            return done("not-comparable",
                        set.filename().string() + ": " + diff +
                            " (random values from another generator; type and shape match)");
          }
          // Expected outputs that contradict their own model (the evidence in the message; the
          // same list as libs/compute/tests/node_reference_test.cpp's kInconsistent).
          if (dir.filename() == "test_adam_multiple") {
            return done("not-comparable",
                        set.filename().string() + ": " + diff +
                            " (the expected outputs use epsilon=1e-2, the node leaves epsilon at "
                            "its default 1e-6: onnx/backend/test/case/node/adam.py)");
          }
          return done("wrong", set.filename().string() + which + ": " + diff);
        }
      }
    }
  }
  return done("pass", "");
}

int RunWorker() {
  // The protocol gets the real stdout; anything a library prints goes to stderr instead of
  // corrupting the JSON lines.
  std::fflush(stdout);
  const int proto_fd = ::dup(1);
  ::dup2(2, 1);
  std::FILE* proto = ::fdopen(proto_fd, "w");
  if (proto == nullptr) return kExitEnvironment;
  auto ctx = webgpu::Context::Create();
  if (!ctx.ok()) {
    std::fprintf(stderr, "alknet onnx-test --worker: %s\n", ctx.error().ToString().c_str());
    return kExitEnvironment;
  }
  std::fprintf(
      proto, "%s\n",
      json::Write(json::Object{{"ready", true}, {"adapter", (*ctx)->adapter().Summary()}}).c_str());
  std::fflush(proto);
  std::string line;
  while (std::getline(std::cin, line)) {
    json::Object r;
    try {
      r = RunOne(**ctx, fs::path(line));
    } catch (const std::exception& e) {
      r = json::Object{{"status", "crash"}, {"message", std::string("exception: ") + e.what()}};
    }
    std::fprintf(proto, "%s\n", json::Write(r).c_str());
    std::fflush(proto);
  }
  return kExitOk;
}

// ---- The parent: a restartable worker -----------------------------------------------------

class Worker {
 public:
  ~Worker() { Stop(); }

  // Starts the worker and waits for its ready line; an error message otherwise.
  std::string Start() {
    int to_child[2], from_child[2];
    if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0)
      return std::strerror(errno);
    pid_ = ::fork();
    if (pid_ < 0) return std::strerror(errno);
    if (pid_ == 0) {
      ::dup2(to_child[0], 0);
      ::dup2(from_child[1], 1);
      const char* argv[] = {"/proc/self/exe", "onnx-test", "--worker", nullptr};
      ::execv(self_.c_str(), const_cast<char* const*>(argv));
      ::_exit(127);
    }
    ::close(to_child[0]);
    ::close(from_child[1]);
    in_ = to_child[1];
    out_ = from_child[0];
    buffer_.clear();
    auto line = ReadLine(std::chrono::seconds(120));
    if (!line) return "the worker did not start (no WebGPU device?)";
    auto ready = json::Parse(*line);
    adapter_ = ready.ok() ? StringOr(*ready, "adapter", "") : "";
    return "";
  }

  void Stop() {
    if (pid_ > 0) {
      ::close(in_);
      ::close(out_);
      ::kill(pid_, SIGKILL);
      int status;
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
    }
  }

  // Runs one test; a crash or timeout comes back as such (and the worker is stopped).
  json::Object Run(const fs::path& dir, double timeout_s) {
    const std::string line = dir.string() + "\n";
    if (::write(in_, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
      return Dead("the worker stopped reading");
    }
    auto reply = ReadLine(std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000)));
    if (reply) {
      auto r = json::Parse(*reply);
      if (r.ok() && r->is_object()) return std::move(r->as_object());
      return Dead("the worker wrote a malformed line");
    }
    if (timed_out_) {
      Stop();
      return json::Object{
          {"status", "timeout"},
          {"message", "no result within " + Num(timeout_s) + " s; the worker was killed"}};
    }
    return Dead("");
  }

  bool running() const { return pid_ > 0; }
  const std::string& adapter() const { return adapter_; }
  void set_self(std::string self) { self_ = std::move(self); }

 private:
  json::Object Dead(const std::string& why) {
    int status = 0;
    std::string what = why;
    if (pid_ > 0) {
      ::close(in_);
      ::close(out_);
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
      if (what.empty()) {
        if (WIFSIGNALED(status)) {
          what = std::string("the worker died of signal ") + std::to_string(WTERMSIG(status)) +
                 " (" + strsignal(WTERMSIG(status)) + ")";
        } else {
          what = "the worker exited with status " + std::to_string(WEXITSTATUS(status));
        }
      }
    }
    return json::Object{{"status", "crash"}, {"message", what}};
  }

  std::optional<std::string> ReadLine(std::chrono::milliseconds timeout) {
    timed_out_ = false;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        timed_out_ = true;
        return std::nullopt;
      }
      pollfd p{out_, POLLIN, 0};
      const int n = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
      if (n < 0 && errno != EINTR) return std::nullopt;
      if (n <= 0) continue;
      char buf[65536];
      const ssize_t got = ::read(out_, buf, sizeof buf);
      if (got <= 0) return std::nullopt;  // EOF: the worker died
      buffer_.append(buf, static_cast<size_t>(got));
    }
  }

  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  std::string buffer_, adapter_, self_ = "/proc/self/exe";
  bool timed_out_ = false;
};

// ---- Reporting ----------------------------------------------------------------------------

const std::vector<std::string> kStatuses = {"pass",       "wrong", "not-comparable", "unsupported",
                                            "load-error", "error", "crash",          "timeout"};

struct Counts {
  std::map<std::string, int> by_status;
  int total = 0;
  void Add(const std::string& s) {
    ++by_status[s];
    ++total;
  }
  int get(const std::string& s) const {
    auto it = by_status.find(s);
    return it == by_status.end() ? 0 : it->second;
  }
};

std::string Snake(const std::string& op) {
  std::string s;
  for (size_t i = 0; i < op.size(); ++i) {
    const char c = op[i];
    if (std::isupper(static_cast<unsigned char>(c))) {
      const bool prev_lower = i > 0 && (std::islower(static_cast<unsigned char>(op[i - 1])) ||
                                        std::isdigit(static_cast<unsigned char>(op[i - 1])));
      const bool next_lower =
          i + 1 < op.size() && std::islower(static_cast<unsigned char>(op[i + 1]));
      if (i > 0 &&
          (prev_lower || (next_lower && std::isupper(static_cast<unsigned char>(op[i - 1])))))
        s += '_';
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      s += c;
    }
  }
  return s;
}

// The op a node test is about: the one op of a one-node model, else the op whose snake_case
// name is the longest prefix of the test name ("test_layer_normalization_2d_expanded"), else
// the test name itself.
std::string PrimaryOp(const std::string& test_name, const json::Value* ops) {
  std::string name = test_name.rfind("test_", 0) == 0 ? test_name.substr(5) : test_name;
  std::set<std::string> distinct;
  if (ops != nullptr && ops->is_array()) {
    for (const auto& o : ops->as_array()) {
      if (o.is_string()) distinct.insert(o.as_string());
    }
  }
  if (distinct.size() == 1) return *distinct.begin();
  std::string best;
  for (const auto& o : distinct) {
    const std::string s = Snake(o);
    if (name.rfind(s, 0) == 0 && s.size() > Snake(best).size()) best = o;
  }
  if (!best.empty()) return best;
  // Unsupported models never reported their ops: guess from the name (first word).
  const auto us = name.find('_');
  return "(" + (us == std::string::npos ? name : name.substr(0, us)) + ")";
}

std::map<std::string, json::Value> LoadPeers(const fs::path& dir) {
  std::map<std::string, json::Value> peers;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return peers;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".json") continue;
    std::ifstream f(e.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    auto j = json::Parse(text);
    if (!j.ok() || j->find("results") == nullptr) continue;
    peers[StringOr(*j, "peer", e.path().stem().string())] = std::move(j).value();
  }
  return peers;
}

// Whether peer result document `peer` ({"results": {test id: status}}) passed test `id`.
bool PeerPassed(const json::Value& peer, const std::string& id) {
  const json::Value* results = peer.find("results");
  return results != nullptr && StringOr(*results, id, "") == "pass";
}

std::string WriteDoc(const std::vector<TestCase>& tests, const std::vector<json::Object>& results,
                     const std::map<std::string, Counts>& folders,
                     const std::map<std::string, json::Value>& peers, const std::string& adapter,
                     double seconds, const std::string& command) {
  std::string md;
  md += "# ONNX conformance\n\n";
  md += "Generated by `" + command + "` (do not edit by hand).\n";
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.1f", seconds);
  md += "Device: " + adapter + "; " + secs + " s for " + std::to_string(tests.size()) +
        " tests (Mesa's shader disk cache makes repeated runs faster than the first).\n\n";
  md +=
      "Every test is a model from the ONNX backend test suite (Debian's libonnx-testdata 1.12) "
      "run\n"
      "through `alknet::onnx::Session`; every output is compared with the expected one (rtol "
      "1e-3,\n"
      "atol 1e-5). *wrong*: ran, result differs; *not-comparable*: a model with random ops\n"
      "whose types and shapes match but whose values come from another generator (numpy's), or\n"
      "a test whose expected outputs contradict its model (test_adam_multiple);\n"
      "*unsupported*: an op, attribute or type alknet does not implement (yet); *load-error*:\n"
      "model or data unreadable; *error*: other failure.\n\n";
  md += "## Per folder\n\n| folder | tests |";
  for (const auto& s : kStatuses) md += " " + s + " |";
  for (const auto& [peer, _] : peers) md += " " + peer + " pass |";
  md += "\n|---|---|";
  for (size_t i = 0; i < kStatuses.size() + peers.size(); ++i) md += "---|";
  md += "\n";
  for (const auto& [folder, c] : folders) {
    md += "| " + folder + " | " + std::to_string(c.total) + " |";
    for (const auto& s : kStatuses) md += " " + std::to_string(c.get(s)) + " |";
    for (const auto& [peer, j] : peers) {
      int pass = 0;
      for (size_t i = 0; i < tests.size(); ++i) {
        if (tests[i].folder == folder && PeerPassed(j, tests[i].id)) ++pass;
      }
      md += " " + std::to_string(pass) + " |";
    }
    md += "\n";
  }
  // Per op (node tests only: the other folders are whole models).
  // A function's expanded test ("test_celu_expanded": Celu written as primitive ops) counts
  // for the op of its twin ("test_celu").
  std::map<std::string, std::string> op_of;
  for (size_t i = 0; i < tests.size(); ++i) {
    if (tests[i].folder != "node") continue;
    const std::string name = tests[i].dir.filename().string();
    op_of[name] = PrimaryOp(name, results[i].find("ops"));
  }
  std::map<std::string, std::vector<size_t>> by_op;
  for (size_t i = 0; i < tests.size(); ++i) {
    if (tests[i].folder != "node") continue;
    const std::string name = tests[i].dir.filename().string();
    std::string op = op_of[name];
    const std::string suffix = "_expanded";
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      auto twin = op_of.find(name.substr(0, name.size() - suffix.size()));
      if (twin != op_of.end()) op = twin->second;
    }
    by_op[op].push_back(i);
  }
  if (!by_op.empty()) {
    md +=
        "\n## Per op (node tests)\n\nAn op in parentheses: the model was refused before its ops "
        "were read "
        "(the name is a guess from the test name).\n\n| op | tests | pass | wrong | "
        "not-comparable | unsupported | other |";
    for (const auto& [peer, _] : peers) md += " " + peer + " |";
    md += "\n|---|---|---|---|---|---|---|";
    for (size_t i = 0; i < peers.size(); ++i) md += "---|";
    md += "\n";
    for (const auto& [op, idx] : by_op) {
      Counts c;
      for (size_t i : idx) c.Add(StringOr(results[i], "status", "crash"));
      const int other =
          c.total - c.get("pass") - c.get("wrong") - c.get("not-comparable") - c.get("unsupported");
      md += "| " + op + " | " + std::to_string(c.total) + " | " + std::to_string(c.get("pass")) +
            " | " + std::to_string(c.get("wrong")) + " | " +
            std::to_string(c.get("not-comparable")) + " | " + std::to_string(c.get("unsupported")) +
            " | " + std::to_string(other) + " |";
      for (const auto& [peer, j] : peers) {
        int pass = 0;
        for (size_t i : idx) pass += PeerPassed(j, tests[i].id) ? 1 : 0;
        md += " " + std::to_string(pass) + "/" + std::to_string(idx.size()) + " |";
      }
      md += "\n";
    }
  }
  if (!peers.empty()) {
    md += "\nPeers (pass counts from bench/peers/results/):";
    for (const auto& [peer, j] : peers)
      md += " " + peer + " on " + StringOr(j, "machine", "?") + ";";
    md += "\n";
  }
  return md;
}

int RunOnnxTest(std::span<const std::string_view> args) {
  std::vector<std::string> dirs;
  bool as_json = false;
  std::optional<std::regex> filter;
  double timeout = 60;
  std::string doc, floor_file, peers_dir = "bench/peers/results";
  auto usage = [](const std::string& why) {
    std::fprintf(stderr, "alknet onnx-test: %s\n\n%s", why.c_str(), kHelp);
    return kExitUsage;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= args.size()) return std::nullopt;
      return std::string(args[++i]);
    };
    if (a == "-h" || a == "--help") {
      std::fputs(kHelp, stdout);
      return kExitOk;
    } else if (a == "--worker") {
      return RunWorker();
    } else if (a == "--json") {
      as_json = true;
    } else if (a == "--filter") {
      auto v = value();
      if (!v) return usage("--filter needs a REGEX");
      try {
        filter.emplace(*v);
      } catch (const std::regex_error& e) {
        return usage("--filter '" + *v + "': " + e.what());
      }
    } else if (a == "--runs") {
      auto v = value();
      if (!v) return usage("--runs needs a number from 1 to 100");
      auto n = alknet::cli::ParseDecimalOption("--runs", *v, 0, 100);
      if (!n) return usage(n.error().message);
      if (*n != std::floor(*n)) return usage("--runs needs a whole number, got " + *v);
      ::setenv("ALKNET_ONNX_TEST_RUNS", std::to_string(static_cast<int>(*n)).c_str(), 1);
    } else if (a == "--timeout") {
      auto v = value();
      if (!v) return usage("--timeout needs a positive number of seconds");
      auto t = alknet::cli::ParseDecimalOption("--timeout", *v, 0, 86400);
      if (!t) return usage(t.error().message);
      timeout = *t;
    } else if (a == "--write-doc") {
      auto v = value();
      if (!v) return usage("--write-doc needs a FILE");
      doc = *v;
    } else if (a == "--floor") {
      auto v = value();
      if (!v) return usage("--floor needs a FILE");
      floor_file = *v;
    } else if (a == "--peers") {
      auto v = value();
      if (!v) return usage("--peers needs a DIR");
      peers_dir = *v;
    } else if (!a.empty() && a[0] == '-') {
      return usage("unknown option '" + std::string(a) + "'");
    } else {
      dirs.emplace_back(a);
    }
  }
  if (dirs.empty()) return usage("no test directory given");

  std::map<std::string, int> floors;
  if (!floor_file.empty()) {
    std::ifstream f(floor_file, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    auto j = json::Parse(text);
    if (!f || !j.ok() || !j->is_object()) {
      std::fprintf(stderr,
                   "alknet onnx-test: %s: not a JSON object of folder -> minimum pass count\n",
                   floor_file.c_str());
      return kExitUsage;
    }
    for (const auto& [k, v] : j->as_object()) {
      if (v.to_int64()) floors[k] = static_cast<int>(*v.to_int64());
    }
  }

  std::vector<TestCase> tests;
  for (const auto& d : dirs) {
    auto found = Discover(d);
    if (!found) {
      std::fprintf(stderr, "alknet onnx-test: %s is not a directory (nor under %s)\n", d.c_str(),
                   kDataRoot);
      return kExitUsage;
    }
    for (auto& t : *found) {
      if (!filter || std::regex_search(t.id, *filter)) tests.push_back(std::move(t));
    }
  }

  // A worker that dies between two tests must not take the parent with it.
  ::signal(SIGPIPE, SIG_IGN);
  const auto t0 = std::chrono::steady_clock::now();
  Worker worker;
  if (auto e = worker.Start(); !e.empty()) {
    std::fprintf(stderr, "alknet onnx-test: %s\n", e.c_str());
    return kExitEnvironment;
  }
  const std::string adapter = worker.adapter();
  const bool tty = ::isatty(2) && !as_json;
  std::vector<json::Object> results;
  std::map<std::string, Counts> folders;
  for (size_t k = 0; k < tests.size(); ++k) {
    if (!worker.running()) {
      if (auto e = worker.Start(); !e.empty()) {
        std::fprintf(stderr, "alknet onnx-test: restarting the worker: %s\n", e.c_str());
        return kExitEnvironment;
      }
    }
    json::Object r = worker.Run(tests[k].dir, timeout);
    const std::string status = StringOr(r, "status", "crash");
    folders[tests[k].folder].Add(status);
    results.push_back(std::move(r));
    if (tty) {
      const int width = 30, filled = static_cast<int>(width * (k + 1) / tests.size());
      std::fprintf(stderr, "\r[%s%s] %zu/%zu pass %d  %-40.40s", std::string(filled, '#').c_str(),
                   std::string(width - filled, '.').c_str(), k + 1, tests.size(),
                   folders[tests[k].folder].get("pass"), tests[k].id.c_str());
      std::fflush(stderr);
    }
  }
  worker.Stop();
  if (tty) std::fprintf(stderr, "\n");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  bool floors_met = true;
  std::vector<std::string> below;
  for (const auto& [folder, min] : floors) {
    const int pass = folders.count(folder) ? folders[folder].get("pass") : 0;
    if (folders.count(folder) && pass < min) {
      floors_met = false;
      below.push_back(folder + ": " + std::to_string(pass) + " < floor " + std::to_string(min));
    }
  }

  if (as_json) {
    json::Array tj;
    for (size_t k = 0; k < tests.size(); ++k) {
      json::Object t = results[k];
      t.set("id", tests[k].id);
      tj.emplace_back(std::move(t));
    }
    json::Object fj;
    for (const auto& [folder, c] : folders) {
      json::Object fc{{"total", c.total}};
      for (const auto& s : kStatuses) fc.append(s, c.get(s));
      fj.append(folder, std::move(fc));
    }
    const json::Value out = json::Object{{"adapter", adapter},
                                         {"seconds", seconds},
                                         {"tests", std::move(tj)},
                                         {"folders", std::move(fj)},
                                         {"floors_met", floors_met}};
    std::printf("%s\n", json::Write(out, {.indent = 1}).c_str());
  } else {
    // Failures first (one line each), then the summary.
    for (size_t k = 0; k < tests.size(); ++k) {
      const std::string s = StringOr(results[k], "status", "crash");
      if (s == "pass" || s == "unsupported") continue;
      std::printf("%-11s %s: %s\n", s.c_str(), tests[k].id.c_str(),
                  StringOr(results[k], "message", "").c_str());
    }
    std::printf("\n%-20s %6s", "folder", "tests");
    for (const auto& s : kStatuses) std::printf(" %14s", s.c_str());
    std::printf("\n");
    for (const auto& [folder, c] : folders) {
      std::printf("%-20s %6d", folder.c_str(), c.total);
      for (const auto& s : kStatuses) std::printf(" %14d", c.get(s));
      std::printf("\n");
    }
    std::printf("\n%zu tests in %.1f s on %s\n", tests.size(), seconds, adapter.c_str());
    for (const auto& b : below) std::printf("below the floor: %s\n", b.c_str());
  }
  if (!doc.empty()) {
    std::string command = "alknet onnx-test";
    for (const auto& d : dirs) command += " " + d;
    command += " --write-doc " + doc;
    const std::string md =
        WriteDoc(tests, results, folders, LoadPeers(peers_dir), adapter, seconds, command);
    std::ofstream f(doc);
    f << md;
    if (!f) {
      std::fprintf(stderr, "alknet onnx-test: cannot write %s\n", doc.c_str());
      return kExitFailure;
    }
  }
  return floors_met ? kExitOk : kExitFailure;
}

const Registration kRegistration{{"onnx-test", "Run ONNX backend conformance tests", &RunOnnxTest}};

}  // namespace
}  // namespace alknet::cli
