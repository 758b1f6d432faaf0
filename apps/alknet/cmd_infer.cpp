// `alknet infer`: runs an ONNX model once (or --repeat N more times) on inputs from .npy,
// .mtf or literals, prints or writes the outputs and the load / plan / run times.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "alknet/base/file.h"
#include "alknet/base/json.h"
#include "alknet/call/batch.h"
#include "alknet/onnx/session.h"
#include "alknet/tensor/convert/npy.h"
#include "alknet/tensor/reader.h"
#include "alknet/tensor/writer.h"
#include "alknet/webgpu/context.h"
#include "command.h"
#include "infer_batch.h"
#include "onnx_calls.h"
#include "options.h"

namespace alknet::cli {
namespace {

namespace fs = std::filesystem;
namespace ox = alknet::onnx;
namespace at = alknet::tensor;
namespace tc = alknet::tensor::convert;
namespace json = alknet::base::json;

constexpr const char* kHelp =
    "Usage: alknet infer MODEL.onnx --input NAME=VALUE ... [--output OUT] [--json] [--repeat N]\n"
    "                    [--profile] [--max-memory SIZE]\n"
    "       alknet infer MODEL.onnx --inputs DIR_OR_GLOB... --out DIR [--concurrency N]\n"
    "                    [--progress] [--remote TARGET [--token-file FILE] [--tls ...]]\n\n"
    "Loads an ONNX model, runs it on the inputs and prints every output (values when small;\n"
    "shape, type, min/max/mean and the first values otherwise) with the load, plan and run "
    "times.\n\n"
    "  --input NAME=VALUE  VALUE is a .npy file, a .mtf file (the tensor named NAME, or its only\n"
    "                      tensor), a literal list such as [[1,2],[3,4]], or a scalar such as "
    "2.5.\n"
    "                      Values are converted to the type the model declares for NAME.\n"
    "                      A sequence input: a folder of 0.npy, 1.npy, ... (its tensors in\n"
    "                      order; an empty folder is the empty sequence). An optional input:\n"
    "                      the value, or 'none' (or leave it out) for an empty optional.\n"
    "  --output OUT        OUT.mtf: every output; OUT.npy: the output (one-output models);\n"
    "                      anything else: a folder of NAME.npy. A sequence output is a folder\n"
    "                      NAME/ of 0.npy, 1.npy, ... (.mtf: tensors NAME.0, NAME.1, ...); an\n"
    "                      empty optional writes nothing\n"
    "  --repeat N          after the first run, N more runs; reports first, median and min run ms\n"
    "  --profile           after the runs, one more that times every node on its own (each\n"
    "                      submitted and waited for): the nodes that take the most time, and the\n"
    "                      time per op type; the round trip of an empty submit is shown as the "
    "floor\n"
    "  --max-memory SIZE   the most memory the model may make alknet allocate: its stored\n"
    "                      tensors together, and each value a plan computes (bytes, or with\n"
    "                      a K, M or G suffix: KiB, MiB, GiB; default 4G). Over it: exit 1 with\n"
    "                      the tensor or node named\n"
    "  --json              a JSON document: model, adapter, load_ms, plan_ms, run_ms {first,\n"
    "                      median, min}, run_parts_ms {upload, device, download, and record: the\n"
    "                      CPU part of device} (medians), repeat, plan {nodes_on_device,\n"
    "                      nodes_folded, fusions, host_ops_run, on_host: null, or why the\n"
    "                      run was evaluated on the host in float64},\n"
    "                      outputs [{name, dtype, shape, min, max, mean}] (a sequence:\n"
    "                      {name, kind: \"sequence\", items: [...]}; an empty optional:\n"
    "                      {name, kind: \"none\"}),\n"
    "                      and with --profile, profile {sync_ms, nodes [{op, name, output,\n"
    "                      dispatches, ms}], host_syncs [{op, name, ms}]}\n\n"
    "Batch (--out DIR): one onnx.run call per input file, on the local GPU or, with --remote,\n"
    "on a server or a pool of them (ipv4:A:P,B:P or dns:///NAME:PORT; calls spread by gRPC\n"
    "round_robin and retried on another worker when one fails: onnx.run is idempotent). The\n"
    "model's bytes travel with each call (the server's --max-tensor-bytes bounds them). An\n"
    "input is a .npy (a one-input model) or a .mtf (a tensor per input name, or its only\n"
    "tensor); DIR/STEM.mtf gets every output by name, written atomically; an input whose\n"
    "output exists is skipped, so an interrupted run resumes. --concurrency N calls in\n"
    "flight (default 8); a progress line on stderr when it is a terminal or with --progress.\n\n"
    "Exit codes: 0 ok, 1 the model or an input is invalid or unsupported, 2 usage, 3 no device.\n";

// "4096", "512M", "4G": bytes, or KiB/MiB/GiB with a K/M/G suffix.
OptionResult<uint64_t> ParseSize(std::string_view text) {
  uint64_t unit = 1;
  std::string_view digits = text;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K': unit = uint64_t{1} << 10; break;
      case 'M': unit = uint64_t{1} << 20; break;
      case 'G': unit = uint64_t{1} << 30; break;
      default: break;
    }
    if (unit != 1) digits.remove_suffix(1);
  }
  auto n = ParseUnsignedOption("--max-memory", digits, 1, UINT64_MAX / unit);
  if (!n)
    return OptionError{"--max-memory: '" + std::string(text) + "' is not a size (4096, 512M, 4G)"};
  return *n * unit;
}

int Fail(const std::string& why, int code = kExitFailure) {
  std::fprintf(stderr, "alknet infer: %s\n", why.c_str());
  return code;
}

// A tensor of `values` (float64) in type `to`: through the library's own converter, so that
// narrowing follows the same rules as everywhere else.
ox::Tensor Convert(const std::string& name, const std::vector<uint64_t>& shape,
                   const std::vector<double>& values, ox::ElemType to) {
  compute::RefTensor r{compute::DType::kF32, shape, values};
  return ox::FromRef(name, r, to).value();
}

std::vector<double> Values(const ox::Tensor& t) {
  std::vector<double> v(t.elements());
  for (uint64_t i = 0; i < v.size(); ++i) v[i] = t.At(i);
  return v;
}

// [1, 2, 3], [[1, 2], [3, 4]] or a scalar.
std::optional<std::pair<std::vector<uint64_t>, std::vector<double>>> ParseLiteral(
    const std::string& s) {
  std::vector<double> values;
  std::vector<uint64_t> shape;
  std::vector<uint64_t> count;  // elements seen at each open depth
  size_t depth = 0, max_depth = 0;
  size_t i = 0;
  auto skip = [&] {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  };
  skip();
  if (i < s.size() && s[i] != '[') {
    char* end = nullptr;
    const double v = std::strtod(s.c_str() + i, &end);
    if (end == s.c_str() + i) return std::nullopt;
    i = static_cast<size_t>(end - s.c_str());
    skip();
    if (i != s.size()) return std::nullopt;
    return std::make_pair(shape, std::vector<double>{v});
  }
  std::vector<std::optional<uint64_t>> dims;
  while (i < s.size()) {
    skip();
    if (i >= s.size()) break;
    const char c = s[i];
    if (c == '[') {
      ++depth;
      max_depth = std::max(max_depth, depth);
      if (dims.size() < depth) dims.resize(depth);
      count.resize(depth);
      count[depth - 1] = 0;
      ++i;
    } else if (c == ']') {
      if (depth == 0) return std::nullopt;
      auto& d = dims[depth - 1];
      if (d && *d != count[depth - 1]) return std::nullopt;  // ragged
      d = count[depth - 1];
      --depth;
      if (depth > 0) ++count[depth - 1];
      ++i;
    } else if (c == ',') {
      ++i;
    } else {
      if (depth != max_depth || depth == 0)
        return std::nullopt;  // numbers only at the innermost level
      char* end = nullptr;
      const double v = std::strtod(s.c_str() + i, &end);
      if (end == s.c_str() + i) return std::nullopt;
      values.push_back(v);
      ++count[depth - 1];
      i = static_cast<size_t>(end - s.c_str());
    }
  }
  if (depth != 0) return std::nullopt;
  uint64_t n = 1;
  for (auto& d : dims) {
    shape.push_back(d.value_or(0));
    n *= d.value_or(0);
  }
  if (n != values.size()) return std::nullopt;
  return std::make_pair(shape, values);
}

// A regular file only: a FIFO is refused, not waited on (alknet/base/file.h).
std::optional<std::string> ReadWhole(const std::string& path) {
  auto text = alknet::base::ReadRegularFile(path, uint64_t{4} << 30);
  if (!text) {
    errno = text.error().sys_errno ? text.error().sys_errno : EINVAL;
    std::fprintf(stderr, "alknet infer: %s\n", text.error().message.c_str());
    return std::nullopt;
  }
  return std::move(text).value();
}

// The value of one --input, converted to the declared type.
std::variant<ox::Tensor, std::string> LoadInput(const ox::ValueInfo& info,
                                                const std::string& value) {
  const auto ext = fs::path(value).extension();
  ox::Tensor raw;
  raw.name = info.name;
  if (ext == ".npy") {
    auto text = ReadWhole(value);
    if (!text) return value + ": " + std::strerror(errno);
    const std::string& f = *text;
    const tc::MemorySource src(value, std::as_bytes(std::span(f.data(), f.size())));
    auto parsed = tc::ParseNpyHeader(src, 0, f.size(), value);
    if (!parsed) return parsed.error().ToString();
    const tc::NpyHeader& h = *parsed;
    auto t = ox::ElemTypeOf(h.dtype);
    if (!t) return value + ": numpy dtype " + h.descr + " has no ONNX equivalent";
    raw.type = *t;
    raw.shape = h.shape;
    raw.data.resize(h.data_bytes);
    std::memcpy(raw.data.data(), f.data() + h.data_offset, h.data_bytes);
  } else if (ext == ".mtf") {
    auto r = at::Reader::Open(value);
    if (!r.ok()) return r.error().ToString();
    auto view = r->Find(info.name);
    if (!view.ok()) {
      if (r->tensors().size() != 1)
        return value + ": no tensor named '" + info.name + "' (and not exactly one tensor)";
      view = r->Tensor(0);
      if (!view.ok()) return view.error().ToString();
    }
    auto in = ox::InputFromView(*view, info.name);
    if (!in.ok()) return value + ": " + in.error().message;
    raw.type = in->type;
    raw.shape = in->shape;
    raw.data.assign(in->data.begin(), in->data.end());
  } else {
    auto lit = ParseLiteral(value);
    if (!lit)
      return "'" + value + "' is neither a .npy/.mtf file nor a literal like [1,2,3] or 2.5";
    return Convert(info.name, lit->first, lit->second, info.type);
  }
  if (raw.type == info.type) return raw;
  return Convert(info.name, raw.shape, Values(raw), info.type);
}

bool WriteNpy(const fs::path& path, const ox::Tensor& t, std::string& why) {
  auto meta = MetaTypeOf(t.type);
  if (!meta || !tc::NpyDescr(*meta)) {
    why = "output '" + t.name + "' of type " + ox::ElemTypeName(t.type) + " has no .npy equivalent";
    return false;
  }
  auto preamble = tc::NpyPreamble(*meta, t.shape);
  if (!preamble) {
    why = "output '" + t.name + "': " + preamble.error().message();
    return false;
  }
  const std::string& pre = *preamble;
  std::ofstream f(path, std::ios::binary);
  f.write(pre.data(), static_cast<std::streamsize>(pre.size()));
  f.write(reinterpret_cast<const char*>(t.data.data()),
          static_cast<std::streamsize>(t.data.size()));
  if (!f) why = "cannot write " + path.string();
  return static_cast<bool>(f);
}

std::string Shape(const std::vector<uint64_t>& s) { return compute::ShapeToString(s); }

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// The profiled run: the slowest nodes, then the time per op type.
void PrintProfile(const alknet::compute::RunProfile& prof, const ox::RunResult& run) {
  if (!run.on_host.empty()) {
    std::printf("\nprofile: evaluated on the host in float64, no device nodes (%s)\n",
                run.on_host.c_str());
  }
  for (const auto& h : run.host_nodes) {
    std::printf(
        "\nhost sync: %s '%s' %.3f ms (inputs read back from the device, computed on "
        "the host)",
        h.op.c_str(), h.name.c_str(), h.ms);
  }
  if (!run.host_nodes.empty()) std::printf("\n");
  double total = 0;
  for (const auto& n : prof.nodes) total += n.ms;
  std::printf(
      "\nprofile: %zu device nodes, %.2f ms timed one by one (each includes a submit-and-wait "
      "round trip\n"
      "of about %.3f ms, measured on an empty submit)\n",
      prof.nodes.size(), total, prof.sync_ms);
  std::vector<const alknet::compute::NodeProfile*> order;
  for (const auto& n : prof.nodes) order.push_back(&n);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto* a, const auto* b) { return a->ms > b->ms; });
  std::printf("%9s %6s  %-22s %-26s %s\n", "ms", "%", "op", "output", "node");
  for (size_t i = 0; i < order.size() && i < 15; ++i) {
    const auto& n = *order[i];
    std::printf("%9.3f %5.1f%%  %-22s %-26s %s\n", n.ms, total > 0 ? 100.0 * n.ms / total : 0.0,
                n.op.c_str(), n.output.c_str(), n.name.c_str());
  }
  std::vector<std::pair<std::string, std::pair<double, int>>> by_op;
  for (const auto& n : prof.nodes) {
    auto it =
        std::find_if(by_op.begin(), by_op.end(), [&](const auto& e) { return e.first == n.op; });
    if (it == by_op.end()) {
      by_op.push_back({n.op, {n.ms, 1}});
    } else {
      it->second.first += n.ms;
      it->second.second += 1;
    }
  }
  std::stable_sort(by_op.begin(), by_op.end(),
                   [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  std::printf("\nper op type:\n%9s %6s %6s  %s\n", "ms", "%", "nodes", "op");
  for (const auto& [op, v] : by_op) {
    std::printf("%9.3f %5.1f%% %6d  %s\n", v.first, total > 0 ? 100.0 * v.first / total : 0.0,
                v.second, op.c_str());
  }
}

int RunInfer(std::span<const std::string_view> args) {
  std::string model, output;
  std::vector<std::pair<std::string, std::string>> given;
  bool as_json = false, profile = false;
  long repeat = 0;
  ox::SessionOptions options;
  InferBatchArgs batch;
  auto usage = [](const std::string& why) { return Fail(why + "\n\n" + kHelp, kExitUsage); };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string a(args[i]);
    std::string target_error;
    if (a == "-h" || a == "--help") {
      std::fputs(kHelp, stdout);
      return kExitOk;
    } else if (batch.target.Consume(args, i, target_error)) {
      if (!target_error.empty()) return usage(target_error);
    } else if (a == "--inputs" || a == "--out" || a == "--concurrency") {
      if (i + 1 >= args.size()) return usage(a + " needs a value");
      const std::string v(args[++i]);
      if (a == "--out") {
        batch.out_dir = v;
      } else if (a == "--concurrency") {
        auto n = ParseUnsignedOption("--concurrency", v, 1, 1024);
        if (!n) return usage(n.error().message);
        batch.target.concurrency = static_cast<unsigned>(*n);
      } else {
        auto expanded = call::ExpandInputs(v);
        if (!expanded) return usage("--inputs: " + expanded.error().message);
        batch.inputs.insert(batch.inputs.end(), expanded->begin(), expanded->end());
      }
    } else if (a == "--progress") {
      batch.progress = true;
    } else if (a == "--json") {
      as_json = true;
    } else if (a == "--profile") {
      profile = true;
    } else if (a == "--max-memory") {
      if (i + 1 >= args.size()) return usage(a + " needs a value");
      auto size = ParseSize(args[++i]);
      if (!size) return usage(size.error().message);
      options.max_memory = *size;
    } else if (a == "--input" || a == "--output" || a == "--repeat") {
      if (i + 1 >= args.size()) return usage(a + " needs a value");
      const std::string v(args[++i]);
      if (a == "--output") {
        output = v;
      } else if (a == "--repeat") {
        auto n = alknet::cli::ParseIntegerOption("--repeat", v, 0, 1'000'000'000);
        if (!n) return usage(n.error().message);
        repeat = static_cast<long>(*n);
      } else {
        const auto eq = v.find('=');
        if (eq == std::string::npos || eq == 0)
          return usage("--input takes NAME=VALUE, got '" + v + "'");
        given.emplace_back(v.substr(0, eq), v.substr(eq + 1));
      }
    } else if (!a.empty() && a[0] == '-' && a.size() > 1) {
      return usage("unknown option '" + a + "'");
    } else if (model.empty()) {
      model = a;
    } else {
      return usage("more than one model given ('" + model + "' and '" + a + "')");
    }
  }
  if (model.empty()) return usage("no model given");
  if (!batch.out_dir.empty() || !batch.inputs.empty() || !batch.target.remote.empty()) {
    if (batch.out_dir.empty()) return usage("--inputs and --remote run a batch: give --out DIR");
    if (batch.inputs.empty()) return usage("--out DIR needs --inputs DIR_OR_GLOB");
    if (!given.empty() || !output.empty() || as_json || profile || repeat)
      return usage("a batch (--out) takes no --input, --output, --json, --profile or --repeat");
    batch.model = model;
    return RunInferBatch(batch);
  }

  const auto t0 = std::chrono::steady_clock::now();
  auto session = ox::Session::Load(model, options);
  if (!session.ok()) {
    const bool env = session.error().code == ox::ErrorCode::kDevice &&
                     session.error().message.find("adapter") != std::string::npos;
    return Fail(session.error().message, env ? kExitEnvironment : kExitFailure);
  }
  const double load_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  std::vector<ox::Tensor> tensors;
  for (const auto& info : session->inputs()) {
    auto it = std::find_if(given.begin(), given.end(),
                           [&](const auto& g) { return g.first == info.name; });
    if (info.optional && (it == given.end() || it->second == "none")) {
      ox::Tensor none;
      none.name = info.name;
      none.kind = ox::ValueKind::kNone;
      none.type = info.type;
      tensors.push_back(std::move(none));
      continue;
    }
    if (info.sequence && it != given.end()) {
      // A folder of 0.npy, 1.npy, ...: the sequence's tensors in order.
      const fs::path dir(it->second);
      std::error_code ec;
      if (!fs::is_directory(dir, ec)) {
        return Fail("input '" + info.name + "' is a sequence: give a folder of 0.npy, 1.npy, " +
                    "... ('" + it->second + "' is not a folder)");
      }
      ox::Tensor seq;
      seq.name = info.name;
      seq.kind = ox::ValueKind::kSequence;
      seq.type = info.type;
      ox::ValueInfo element = info;
      element.sequence = element.optional = false;
      for (size_t k = 0;; ++k) {
        const fs::path f = dir / (std::to_string(k) + ".npy");
        if (!fs::exists(f, ec)) break;
        if (k >= 65536) return Fail("input '" + info.name + "': more than 65536 tensors");
        auto loaded = LoadInput(element, f.string());
        if (auto* e = std::get_if<std::string>(&loaded))
          return Fail("input '" + info.name + "' element " + std::to_string(k) + ": " + *e);
        seq.items.push_back(std::get<ox::Tensor>(std::move(loaded)));
      }
      tensors.push_back(std::move(seq));
      continue;
    }
    if (it == given.end()) {
      std::string shape = "[";
      for (size_t d = 0; d < info.shape.size(); ++d) {
        shape += (d ? "," : "") + (info.shape[d] < 0
                                       ? (info.dim_names[d].empty() ? "?" : info.dim_names[d])
                                       : std::to_string(info.shape[d]));
      }
      return Fail("input '" + info.name + "' (" + ox::ElemTypeName(info.type) + shape +
                  "]) is not given; use --input " + info.name + "=FILE.npy");
    }
    auto loaded = LoadInput(info, it->second);
    if (auto* e = std::get_if<std::string>(&loaded))
      return Fail("input '" + info.name + "': " + *e);
    tensors.push_back(std::get<ox::Tensor>(std::move(loaded)));
  }
  for (const auto& g : given) {
    if (std::none_of(session->inputs().begin(), session->inputs().end(),
                     [&](const auto& v) { return v.name == g.first; })) {
      std::string names;
      for (const auto& v : session->inputs()) names += (names.empty() ? "" : ", ") + v.name;
      return usage("the model has no input '" + g.first + "' (inputs: " + names + ")");
    }
  }
  std::vector<ox::HostInput> inputs;
  for (const auto& t : tensors) inputs.push_back(ox::InputFromTensor(t, t.name));

  auto first = session->Run(inputs);
  if (!first.ok()) return Fail(first.error().message);
  const double plan_ms = first->plan_ms;
  std::vector<double> steady, up, dev, down, rec;
  for (long r = 0; r < repeat; ++r) {
    auto again = session->Run(inputs);
    if (!again.ok()) return Fail(again.error().message);
    steady.push_back(again->run_ms);
    up.push_back(again->upload_ms);
    dev.push_back(again->device_ms);
    down.push_back(again->download_ms);
    rec.push_back(again->device_ms - again->wait_ms);
  }
  if (steady.empty()) {
    up = {first->upload_ms};
    dev = {first->device_ms};
    down = {first->download_ms};
    rec = {first->device_ms - first->wait_ms};
  }
  auto median_of = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  };
  std::vector<double> sorted = steady.empty() ? std::vector<double>{first->run_ms} : steady;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted.size() % 2
                            ? sorted[sorted.size() / 2]
                            : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
  const double min = sorted.front();
  const auto& outs = first->outputs;
  alknet::compute::RunProfile prof;
  ox::RunResult profiled_run;
  if (profile) {
    ox::RunOptions po;
    po.profile = true;
    auto profiled = session->Run(inputs, po);
    if (!profiled.ok()) return Fail(profiled.error().message);
    prof = std::move(profiled->profile);
    profiled_run = std::move(profiled).value();
  }

  if (!output.empty()) {
    std::string why;
    const fs::path out(output);
    if (out.extension() == ".mtf") {
      auto fw = at::FileWriter::Create(out);
      if (!fw.ok()) return Fail(fw.error().ToString());
      // A sequence's tensors are NAME.0, NAME.1, ...; an empty optional is left out.
      std::vector<std::pair<std::string, const ox::Tensor*>> flat;
      for (const auto& t : outs) {
        if (t.kind == ox::ValueKind::kSequence) {
          for (size_t k = 0; k < t.items.size(); ++k)
            flat.emplace_back(t.name + "." + std::to_string(k), &t.items[k]);
        } else if (t.kind == ox::ValueKind::kTensor) {
          flat.emplace_back(t.name, &t);
        }
      }
      for (const auto& [name, t] : flat) {
        auto meta = MetaTypeOf(t->type);
        if (!meta)
          return Fail("output '" + name + "' of type " + ox::ElemTypeName(t->type) +
                      " cannot be stored in .mtf");
        auto st = (*fw)->writer().AddTensor(name, *meta, t->shape, t->data);
        if (!st.ok()) return Fail(st.error().ToString());
      }
      auto st = (*fw)->Commit();
      if (!st.ok()) return Fail(st.error().ToString());
    } else if (out.extension() == ".npy") {
      if (outs.size() != 1) {
        return Fail("the model has " + std::to_string(outs.size()) + " outputs; --output " +
                    output + " needs exactly one (use a folder or .mtf)");
      }
      if (outs[0].kind != ox::ValueKind::kTensor) {
        return Fail("output '" + outs[0].name + "' is a sequence or an optional; --output " +
                    output + " needs a tensor (use a folder or .mtf)");
      }
      if (!WriteNpy(out, outs[0], why)) return Fail(why);
    } else {
      std::error_code ec;
      fs::create_directories(out, ec);
      if (ec) return Fail(output + ": " + ec.message());
      for (const auto& t : outs) {
        std::string file = t.name;
        std::replace_if(
            file.begin(), file.end(), [](char c) { return c == '/' || c == '\\' || c == ':'; },
            '_');
        if (t.kind == ox::ValueKind::kSequence) {
          // A folder NAME/ of 0.npy, 1.npy, ... (the layout --input reads back).
          fs::create_directories(out / file, ec);
          if (ec) return Fail((out / file).string() + ": " + ec.message());
          for (size_t k = 0; k < t.items.size(); ++k) {
            if (!WriteNpy(out / file / (std::to_string(k) + ".npy"), t.items[k], why))
              return Fail(why);
          }
          continue;
        }
        if (t.kind == ox::ValueKind::kNone) continue;
        if (!WriteNpy(out / (file + ".npy"), t, why)) return Fail(why);
      }
    }
  }

  auto stats = [](const ox::Tensor& t) {
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    for (uint64_t i = 0; i < t.elements(); ++i) {
      const double v = t.At(i);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      sum += v;
    }
    return std::array<double, 3>{lo, hi,
                                 t.elements() ? sum / static_cast<double>(t.elements()) : 0.0};
  };
  if (as_json) {
    const auto& st = session->stats();
    json::Object j{
        {"model", model},
        {"adapter", session->context().adapter().Summary()},
        {"load_ms", load_ms},
        {"plan_ms", plan_ms},
        {"run_ms", json::Object{{"first", first->run_ms}, {"median", median}, {"min", min}}},
        {"run_parts_ms", json::Object{{"upload", median_of(up)},
                                      {"device", median_of(dev)},
                                      {"download", median_of(down)},
                                      {"record", median_of(rec)}}},
        {"repeat", repeat},
        {"plan", json::Object{{"nodes_on_device", st.nodes_on_device},
                              {"nodes_folded", st.nodes_folded},
                              {"fusions", st.fusions},
                              {"host_ops_run", st.host_ops_run},
                              {"on_host", first->on_host.empty() ? json::Value()
                                                                 : json::Value(first->on_host)}}}};
    if (profile) {
      json::Array nodes;
      for (const auto& n : prof.nodes) {
        nodes.emplace_back(json::Object{{"op", n.op},
                                        {"name", n.name},
                                        {"output", n.output},
                                        {"dispatches", n.dispatches},
                                        {"ms", n.ms}});
      }
      json::Array syncs;
      for (const auto& h : profiled_run.host_nodes) {
        syncs.emplace_back(json::Object{{"op", h.op}, {"name", h.name}, {"ms", h.ms}});
      }
      j.append("profile", json::Object{{"sync_ms", prof.sync_ms},
                                       {"nodes", std::move(nodes)},
                                       {"host_syncs", std::move(syncs)}});
    }
    std::function<json::Object(const ox::Tensor&)> describe = [&](const ox::Tensor& t) {
      if (t.kind == ox::ValueKind::kNone) return json::Object{{"name", t.name}, {"kind", "none"}};
      if (t.kind == ox::ValueKind::kSequence) {
        json::Array items;
        for (const auto& e : t.items) items.emplace_back(describe(e));
        return json::Object{{"name", t.name},
                            {"kind", "sequence"},
                            {"dtype", ox::ElemTypeName(t.type)},
                            {"items", std::move(items)}};
      }
      json::Object o{{"name", t.name},
                     {"dtype", ox::ElemTypeName(t.type)},
                     {"shape", json::Array(t.shape.begin(), t.shape.end())}};
      if (t.elements() > 0) {
        auto s = stats(t);
        o.append("min", s[0]);
        o.append("max", s[1]);
        o.append("mean", s[2]);
      }
      if (t.elements() <= 64) {
        const std::vector<double> values = Values(t);
        o.append("values", json::Array(values.begin(), values.end()));
      }
      return o;
    };
    json::Array outputs;
    for (const auto& t : outs) outputs.emplace_back(describe(t));
    j.append("outputs", std::move(outputs));
    std::printf("%s\n", json::Write(j, {.indent = 1}).c_str());
    return kExitOk;
  }
  std::vector<ox::Tensor> shown;  // sequences listed as NAME[k]
  for (const auto& t : outs) {
    if (t.kind == ox::ValueKind::kNone) {
      std::printf("%s: empty optional\n", t.name.c_str());
    } else if (t.kind == ox::ValueKind::kSequence) {
      std::printf("%s: sequence of %zu %s tensors\n", t.name.c_str(), t.items.size(),
                  ox::ElemTypeName(t.type).c_str());
      for (size_t k = 0; k < t.items.size(); ++k) {
        shown.push_back(t.items[k]);
        shown.back().name = "  " + t.name + "[" + std::to_string(k) + "]";
      }
    } else {
      shown.push_back(t);
    }
  }
  for (const auto& t : shown) {
    std::printf("%s: %s%s", t.name.c_str(), ox::ElemTypeName(t.type).c_str(),
                Shape(t.shape).c_str());
    const auto n = t.elements();
    if (n <= 16) {
      std::printf(" = [");
      for (uint64_t i = 0; i < n; ++i) std::printf("%s%s", i ? ", " : "", Num(t.At(i)).c_str());
      std::printf("]\n");
    } else {
      auto s = stats(t);
      std::printf("  min %s max %s mean %s  first [", Num(s[0]).c_str(), Num(s[1]).c_str(),
                  Num(s[2]).c_str());
      for (uint64_t i = 0; i < 8; ++i) std::printf("%s%s", i ? ", " : "", Num(t.At(i)).c_str());
      std::printf(", ...]\n");
    }
  }
  std::printf("load %.1f ms, plan %.1f ms, run %.2f ms (first)", load_ms, plan_ms, first->run_ms);
  if (repeat > 0) std::printf(", median %.2f ms, min %.2f ms over %ld runs", median, min, repeat);
  std::printf(" (median upload %.2f ms, device %.2f ms, download %.2f ms)", median_of(up),
              median_of(dev), median_of(down));
  std::printf(" on %s\n", session->context().adapter().Summary().c_str());
  if (first->on_host.rfind("the model holds string", 0) == 0) {
    std::printf("ran on the host: %s\n", first->on_host.c_str());
  } else if (!first->on_host.empty()) {
    std::printf("ran on the host in float64: %s (docs/adr/0013-onnx-float64-host.md)\n",
                first->on_host.c_str());
  }
  if (profile) PrintProfile(prof, profiled_run);
  return kExitOk;
}

const Registration kRegistration{
    {"infer", "Run an ONNX model on inputs from files or literals", &RunInfer}};

}  // namespace
}  // namespace alknet::cli
