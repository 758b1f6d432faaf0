// alknet call: invokes any registered call from the shell, locally or with --remote.
// Scalar arguments are JSON literals; tensor arguments are .mtf/.npy files; tensor results
// go to files in --out DIR or are summarised.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "alknet/call-grpc/remote.h"
#include "alknet/call/builtins.h"
#include "alknet/call/json.h"
#include "alknet/tensor/convert/npy.h"
#include "alknet/tensor/reader.h"
#include "alknet/tensor/writer.h"
#include "command.h"
#include "options.h"
#include "registry_setup.h"

namespace alknet::cli {
namespace {

namespace ac = alknet::call;
namespace at = alknet::tensor;
namespace tc = alknet::tensor::convert;
namespace fs = std::filesystem;

constexpr const char* kUsage =
    "Usage: alknet call NAME [ARG...] [options]\n\n"
    "Invokes the registered call NAME (see alknet calls) and prints its result as JSON.\n"
    "  ARG                       a JSON literal (42, 1.5, true, null, '\"text\"', '[1,2]', '{}')\n"
    "                            or a tensor file: FILE.npy, FILE.mtf (one tensor) or\n"
    "                            FILE.mtf:NAME, or a list of tensor files [A.npy,B.mtf]\n"
    "  --out DIR                 write tensor results to DIR as NAME.mtf (a tensor inside a\n"
    "                            list or map: NAME.0.mtf, NAME.key.mtf, ...)\n"
    "  --format mtf|npy          file format for --out (default mtf)\n"
    "  --json                    print {\"ok\", \"result\"|\"error\"} for programs\n"
    "  --timeout MS              deadline for the call\n"
    "  --remote HOST:PORT        run the call on a server (alknet serve)\n"
    "  --token-file FILE         bearer token (default $ALKNET_TOKEN)\n"
    "  --tls, --tls-ca FILE, --tls-server-name NAME\n"
    "                            TLS to the server, trusting FILE's roots (default: system)\n\n"
    "Exit codes: 0 ok, 1 the call failed, 2 usage or bad argument, 3 server unreachable.\n";

int Usage(const std::string& why) {
  std::fprintf(stderr, "alknet call: %s\n\n%s", why.c_str(), kUsage);
  return kExitUsage;
}

// A bad argument value: the message alone, the full usage would bury it.
int BadArgument(const std::string& why) {
  std::fprintf(stderr, "alknet call: %s\n(alknet call --help for the argument forms)\n",
               why.c_str());
  return kExitUsage;
}

// ---- .npy (alknet-tensor-convert's reader and writer) ----

ac::Result<ac::Tensor> ReadNpy(const std::string& path) {
  auto fail = [&](const std::string& what) {
    return ac::MakeError(ac::ErrorCode::kInvalidArgument, path + ": " + what);
  };
  auto text = ac::ReadTextFile(path);
  if (!text) return text.error();
  const std::string& f = *text;
  const tc::MemorySource src(path, std::as_bytes(std::span(f.data(), f.size())));
  auto parsed = tc::ParseNpyHeader(src, 0, f.size(), path);
  if (!parsed) return ac::MakeError(ac::ErrorCode::kInvalidArgument, parsed.error().message());
  const tc::NpyHeader& h = *parsed;
  std::vector<std::int64_t> shape(h.shape.begin(), h.shape.end());
  auto t = ac::Tensor::Copy(std::string(at::Info(h.dtype).name), std::move(shape),
                            std::as_bytes(std::span(f.data() + h.data_offset, h.data_bytes)));
  if (auto v = t.Validate(); !v) return fail(v.error().message);
  return t;
}

ac::Status WriteNpy(const fs::path& path, const ac::Tensor& t) {
  const at::DTypeInfo* info = at::FindDType(t.dtype);
  if (!info || !tc::NpyDescr(info->dtype)) {
    return ac::MakeError(ac::ErrorCode::kInvalidArgument,
                         "dtype " + t.dtype + " has no .npy equivalent; use --format mtf");
  }
  const std::vector<uint64_t> shape(t.shape.begin(), t.shape.end());
  auto preamble = tc::NpyPreamble(info->dtype, shape);
  if (!preamble) return ac::MakeError(ac::ErrorCode::kInvalidArgument, preamble.error().message());
  const std::string& out = *preamble;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  bool ok = f && std::fwrite(out.data(), 1, out.size(), f) == out.size() &&
            std::fwrite(t.data.data(), 1, t.data.size(), f) == t.data.size();
  if (f) ok = std::fclose(f) == 0 && ok;
  if (!ok) {
    return ac::MakeError(ac::ErrorCode::kUnknown,
                         "cannot write " + path.string() + ": " + std::strerror(errno));
  }
  return {};
}

// ---- .mtf via alknet-tensor ----

ac::Result<ac::Tensor> ReadMtf(const std::string& path, std::string name) {
  auto reader = at::Reader::Open(path);
  if (!reader) {
    return ac::MakeError(ac::ErrorCode::kInvalidArgument, path + ": " + reader.error().ToString());
  }
  auto shared = std::make_shared<at::Reader>(std::move(*reader));
  if (name.empty()) {
    if (shared->tensors().size() != 1) {
      return ac::MakeError(ac::ErrorCode::kInvalidArgument,
                           path + " holds " + std::to_string(shared->tensors().size()) +
                               " tensors; pick one with " + path + ":NAME");
    }
    name = std::string(shared->tensors()[0].name);
  }
  auto view = shared->Find(name);
  if (!view) {
    return ac::MakeError(ac::ErrorCode::kInvalidArgument, path + ": " + view.error().ToString());
  }
  ac::Tensor t;
  t.dtype = std::string(at::Info(view->dtype()).name);
  for (auto d : view->shape()) t.shape.push_back(static_cast<std::int64_t>(d));
  t.data = view->data;  // into the file mapping, which the Reader (the owner) keeps
  t.owner = shared;
  return t;
}

ac::Status WriteMtf(const fs::path& path, const ac::Tensor& t, const std::string& name) {
  auto fail = [&](const std::string& what) {
    return ac::MakeError(ac::ErrorCode::kUnknown, "cannot write " + path.string() + ": " + what);
  };
  auto writer = at::FileWriter::Create(path);
  if (!writer) return fail(writer.error().ToString());
  std::vector<std::uint64_t> shape(t.shape.begin(), t.shape.end());
  if (auto s = (*writer)->writer().AddTensor(name, at::FindDType(t.dtype)->dtype, shape, t.data);
      !s) {
    return fail(s.error().ToString());
  }
  if (auto s = (*writer)->Commit(); !s) return fail(s.error().ToString());
  return {};
}

ac::Result<ac::Value> ParseArgument(std::string_view arg, std::size_t position) {
  const std::string text(arg);
  // A tensor file: NAME.npy, NAME.mtf, NAME.mtf:TENSOR.
  const auto colon = text.rfind(".mtf:");
  const std::string mtf_path = colon == std::string::npos ? text : text.substr(0, colon + 4);
  const bool is_mtf = colon != std::string::npos || text.ends_with(".mtf");
  if (is_mtf || text.ends_with(".npy")) {
    if (!fs::exists(is_mtf ? mtf_path : text)) {
      return ac::MakeError(
          ac::ErrorCode::kInvalidArgument,
          "argument " + std::to_string(position) + ": no such file " + (is_mtf ? mtf_path : text));
    }
    auto t = is_mtf ? ReadMtf(mtf_path, colon == std::string::npos ? "" : text.substr(colon + 5))
                    : ReadNpy(text);
    if (!t) return t.error();
    return ac::Value(std::move(*t));
  }
  // A list of tensor files, "[a.npy,b.mtf]" (not JSON: the names are unquoted), for calls
  // such as compute.* that take their inputs as one list.
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']' && !ac::ParseJson(text)) {
    ac::Value::List items;
    const std::string inner = text.substr(1, text.size() - 2);
    for (size_t start = 0; start <= inner.size();) {
      size_t comma = inner.find(',', start);
      if (comma == std::string::npos) comma = inner.size();
      const std::string item = inner.substr(start, comma - start);
      if (!item.ends_with(".npy") && !item.ends_with(".mtf") &&
          item.find(".mtf:") == std::string::npos) {
        return ac::MakeError(ac::ErrorCode::kInvalidArgument,
                             "argument " + std::to_string(position) + ": '" + item +
                                 "' in a tensor list must be a .npy or .mtf file");
      }
      auto v = ParseArgument(item, position);
      if (!v) return v.error();
      items.push_back(std::move(*v));
      start = comma + 1;
    }
    return ac::Value(std::move(items));
  }
  auto v = ac::ParseJson(text);
  if (!v) {
    return ac::MakeError(ac::ErrorCode::kInvalidArgument,
                         "argument " + std::to_string(position) + " ('" + text +
                             "') is neither JSON nor a .mtf/.npy file (" + v.error().message +
                             "); quote strings as '\"text\"'");
  }
  return v;
}

// Replaces every tensor in `v` by its summary plus the file it was written to.
ac::Status WriteTensors(ac::Value& v, const fs::path& dir, const std::string& stem, bool npy) {
  switch (v.kind()) {
    case ac::ValueKind::kTensor: {
      const fs::path path = dir / (stem + (npy ? ".npy" : ".mtf"));
      auto r = npy ? WriteNpy(path, v.as_tensor()) : WriteMtf(path, v.as_tensor(), stem);
      if (!r) return r;
      auto summary = ac::ParseJson(ac::ToJson(v));
      summary->as_map()["$tensor"].as_map().emplace("file", path.string());
      v = std::move(*summary);
      return {};
    }
    case ac::ValueKind::kList: {
      auto& list = v.as_list();
      for (std::size_t i = 0; i < list.size(); ++i) {
        if (auto r = WriteTensors(list[i], dir, stem + "." + std::to_string(i), npy); !r) return r;
      }
      return {};
    }
    case ac::ValueKind::kMap:
      for (auto& [k, item] : v.as_map()) {
        // Keys come from the (possibly remote) result: keep them from naming paths.
        std::string safe = k;
        for (char& c : safe) {
          const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                          (c >= '0' && c <= '9') || c == '_' || c == '-';
          if (!ok) c = '_';
        }
        if (auto r = WriteTensors(item, dir, stem + "." + safe, npy); !r) return r;
      }
      return {};
    default: return {};
  }
}

int RunCall(std::span<const std::string_view> args) {
  if (WantsHelp(args)) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  bool json = false, npy = false;
  std::string name, out_dir;
  TargetFlags target;
  std::optional<std::uint64_t> timeout_ms;
  std::vector<std::string_view> positional;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= args.size()) return false;
      out = std::string(args[++i]);
      return true;
    };
    std::string text, error;
    if (target.Consume(args, i, error)) {
      if (!error.empty()) return Usage(error);
    } else if (a == "--json") {
      json = true;
    } else if (a == "--out") {
      if (!value(out_dir)) return Usage("--out needs a directory");
    } else if (a == "--format") {
      if (!value(text) || (text != "mtf" && text != "npy")) return Usage("--format is mtf or npy");
      npy = text == "npy";
    } else if (a == "--timeout") {
      if (!value(text)) return Usage("--timeout needs milliseconds");
      // At most ~31 years: the deadline is added to a steady_clock time point.
      auto v = alknet::cli::ParseUnsignedOption("--timeout", text, 0, 999'999'999'999);
      if (!v) return Usage(v.error().message);
      timeout_ms = *v;
    } else if (a.size() > 2 && a.substr(0, 2) == "--") {
      return Usage("unknown option '" + std::string(a) + "'");
    } else {
      positional.push_back(a);
    }
  }
  if (positional.empty()) return Usage("which call? (alknet calls lists them)");
  name = std::string(positional[0]);
  std::vector<ac::Value> call_args;
  for (std::size_t i = 1; i < positional.size(); ++i) {
    auto v = ParseArgument(positional[i], i);
    if (!v) return BadArgument(v.error().message);
    call_args.push_back(std::move(*v));
  }

  ac::CallOptions options;
  if (timeout_ms) options.deadline = ac::Clock::now() + std::chrono::milliseconds(*timeout_ms);
  auto opened = OpenTarget(target);
  if (!opened) {
    if (!target.remote.empty()) return Usage(opened.error().message);
    std::fprintf(stderr, "alknet call: %s\n", opened.error().ToString().c_str());
    return kExitFailure;
  }
  ac::Result<ac::Value> result = (*opened)->Invoke(name, call_args, options);

  if (result.ok() && !out_dir.empty()) {
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    if (auto w = WriteTensors(*result, out_dir, name, npy); !w) {
      result = w.error();
    }
  }
  if (!result.ok()) {
    const ac::Error& e = result.error();
    if (json) {
      ac::Value::Map err;
      err.emplace("code", std::string(ac::ErrorCodeName(e.code)));
      err.emplace("call", e.call);
      err.emplace("message", e.message);
      ac::Value::Map doc;
      doc.emplace("ok", false);
      doc.emplace("error", std::move(err));
      std::printf("%s\n", ac::ToJson(ac::Value(std::move(doc))).c_str());
    } else {
      std::fprintf(stderr, "alknet call: %s\n", TerminalText(e.ToString()).c_str());
    }
    return e.code == ac::ErrorCode::kUnavailable ? kExitEnvironment : kExitFailure;
  }
  if (json) {
    ac::Value::Map doc;
    doc.emplace("ok", true);
    doc.emplace("result", std::move(*result));
    std::printf("%s\n", ac::ToJson(ac::Value(std::move(doc))).c_str());
  } else {
    std::printf("%s\n", ac::ToJson(*result).c_str());
  }
  return kExitOk;
}

const Registration kReg{{"call", "Invoke a registered call (local or --remote)", &RunCall}};

}  // namespace
}  // namespace alknet::cli
