// `alknet sha256 FILE...`: SHA-256 of files on the GPU (or lavapipe), printed like sha256sum.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "alknet/base/file.h"
#include "alknet/base/json.h"
#include "alknet/call/batch.h"
#include "alknet/call/value.h"
#include "alknet/compute/executor.h"
#include "alknet/compute/sha256.h"
#include "alknet/webgpu/context.h"
#include "command.h"
#include "infer_batch.h"
#include "options.h"
#include "registry_setup.h"

namespace {

namespace ac = alknet::compute;
namespace wg = alknet::webgpu;

constexpr const char* kHelp =
    "Usage: alknet sha256 [--json] [--k-mode inline|switch|array] FILE...\n"
    "       alknet sha256 --out DIR [--inputs DIR_OR_GLOB]... [FILE...] [--concurrency N]\n"
    "                     [--progress] [--remote TARGET [--token-file FILE] [--tls ...]]\n\n"
    "Prints the SHA-256 of each FILE (\"-\" reads standard input) as \"<hex>  <name>\", like\n"
    "sha256sum. Files up to 16 MiB are hashed together in one GPU batch (one invocation per\n"
    "file); larger ones stream through the single-message kernel in 64 MiB chunks.\n\n"
    "With --out DIR: a batch, one crypto.sha256 call per file (at most 1 GiB each), on the\n"
    "local GPU or, with --remote, on a server or a pool of them (ipv4:A:P,B:P or\n"
    "dns:///NAME:PORT; calls spread by gRPC round_robin and retried on another worker if one\n"
    "fails). Each result is written atomically to DIR/BASENAME.sha256 (sha256sum format); a\n"
    "file whose output exists is skipped, so an interrupted run resumes. --concurrency N\n"
    "calls in flight (default 8); a progress line on stderr when it is a terminal or with\n"
    "--progress. --inputs DIR_OR_GLOB adds a folder's regular files or a glob's matches.\n\n"
    "Exit codes: 0 all files hashed, 1 a file could not be read or the GPU run failed,\n"
    "2 bad command line, 3 no WebGPU adapter.\n";

constexpr uint64_t kBatchLimit = 16ull << 20;

struct Input {
  std::string name;
  std::vector<std::byte> data;  // small files
  bool streamed = false;
  bool failed = false;
  ac::Sha256Digest digest{};
};

bool ReadAll(std::FILE* f, std::vector<std::byte>& out, uint64_t limit, bool* over) {
  std::byte buf[1 << 16];
  *over = false;
  while (size_t n = std::fread(buf, 1, sizeof buf, f)) {
    out.insert(out.end(), buf, buf + n);
    if (out.size() > limit) {
      *over = true;
      return true;
    }
  }
  return !std::ferror(f);
}

int RunBatchSha256(const alknet::cli::TargetFlags& target, const std::string& out_dir,
                   const std::vector<std::string>& files, bool progress) {
  namespace c = alknet::call;
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) {
    std::fprintf(stderr, "alknet sha256: cannot create %s: %s\n", out_dir.c_str(),
                 ec.message().c_str());
    return alknet::cli::kExitFailure;
  }
  std::vector<alknet::call::BatchItem> items;
  std::set<std::string> outputs;
  for (const auto& f : files) {
    const std::string base = std::filesystem::path(f).filename().string();
    std::string out = (std::filesystem::path(out_dir) / (base + ".sha256")).string();
    if (!outputs.insert(out).second) {
      std::fprintf(stderr, "alknet sha256: two inputs named %s would both write %s\n", base.c_str(),
                   out.c_str());
      return alknet::cli::kExitUsage;
    }
    items.push_back({f, std::move(out)});
  }
  auto opened = alknet::cli::OpenTarget(target);
  if (!opened) {
    std::fprintf(stderr, "alknet sha256: %s\n", opened.error().ToString().c_str());
    return target.remote.empty() ? alknet::cli::kExitFailure : alknet::cli::kExitUsage;
  }
  const alknet::call::BatchOptions bo =
      alknet::cli::CliBatchOptions("sha256", target.concurrency, progress);
  auto summary = alknet::call::RunBatch(
      **opened, "crypto.sha256", items,
      [](const alknet::call::BatchItem& item) -> c::Result<std::vector<c::Value>> {
        auto text = alknet::base::ReadRegularFile(item.input, 1ull << 30);
        if (!text) return c::MakeError(c::ErrorCode::kNotFound, text.error().message);
        std::vector<std::byte> bytes(text->size());
        std::memcpy(bytes.data(), text->data(), text->size());
        const auto n = static_cast<std::int64_t>(bytes.size());
        c::Value::List messages;
        messages.emplace_back(c::Tensor::Adopt("u8", {n}, std::move(bytes)));
        return std::vector<c::Value>{c::Value(std::move(messages))};
      },
      [](const alknet::call::BatchItem& item, const c::Value& v) -> c::Result<std::string> {
        if (v.kind() != c::ValueKind::kList || v.as_list().size() != 1 ||
            v.as_list()[0].kind() != c::ValueKind::kBytes ||
            v.as_list()[0].as_bytes().size() != 32) {
          return c::MakeError(c::ErrorCode::kInternal,
                              "crypto.sha256 answered something other than one 32-byte digest");
        }
        static const char* hex = "0123456789abcdef";
        std::string line;
        for (auto b : v.as_list()[0].as_bytes()) {
          const auto x = static_cast<unsigned char>(b);
          line += hex[x >> 4];
          line += hex[x & 15];
        }
        return line + "  " + std::filesystem::path(item.input).filename().string() + "\n";
      },
      bo);
  std::fprintf(stderr, "alknet sha256: %zu hashed, %zu skipped (already written), %zu failed\n",
               summary.done, summary.skipped, summary.failed);
  return summary.failed ? alknet::cli::kExitFailure : alknet::cli::kExitOk;
}

int RunSha256(std::span<const std::string_view> args) {
  bool json = false;
  bool progress = false;
  std::string out_dir;
  alknet::cli::TargetFlags target;
  std::string k_mode = "inline";
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string target_error;
    if (args[i] == "-h" || args[i] == "--help") {
      std::fputs(kHelp, stdout);
      return alknet::cli::kExitOk;
    } else if (target.Consume(args, i, target_error)) {
      if (!target_error.empty()) {
        std::fprintf(stderr, "alknet sha256: %s\n", target_error.c_str());
        return alknet::cli::kExitUsage;
      }
    } else if (args[i] == "--out" && i + 1 < args.size()) {
      out_dir = std::string(args[++i]);
    } else if (args[i] == "--progress") {
      progress = true;
    } else if (args[i] == "--concurrency" && i + 1 < args.size()) {
      auto n = alknet::cli::ParseUnsignedOption("--concurrency", args[++i], 1, 1024);
      if (!n) {
        std::fprintf(stderr, "alknet sha256: %s\n", n.error().message.c_str());
        return alknet::cli::kExitUsage;
      }
      target.concurrency = static_cast<unsigned>(*n);
    } else if (args[i] == "--inputs" && i + 1 < args.size()) {
      auto expanded = alknet::call::ExpandInputs(std::string(args[++i]));
      if (!expanded) {
        std::fprintf(stderr, "alknet sha256: --inputs: %s\n", expanded.error().message.c_str());
        return alknet::cli::kExitUsage;
      }
      files.insert(files.end(), expanded->begin(), expanded->end());
    } else if (args[i] == "--json") {
      json = true;
    } else if (args[i] == "--k-mode" && i + 1 < args.size()) {
      k_mode = std::string(args[++i]);
      if (k_mode != "inline" && k_mode != "switch" && k_mode != "array") {
        std::fprintf(stderr, "alknet sha256: --k-mode must be inline, switch or array\n");
        return alknet::cli::kExitUsage;
      }
    } else if (args[i].size() > 1 && args[i][0] == '-' && args[i] != "-") {
      std::fprintf(stderr, "alknet sha256: unknown option '%s'\n\n%s", std::string(args[i]).c_str(),
                   kHelp);
      return alknet::cli::kExitUsage;
    } else {
      files.emplace_back(args[i]);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "alknet sha256: no FILE given\n\n%s", kHelp);
    return alknet::cli::kExitUsage;
  }
  if (!out_dir.empty()) return RunBatchSha256(target, out_dir, files, progress);
  if (!target.remote.empty()) {
    std::fprintf(stderr, "alknet sha256: --remote runs a batch: give --out DIR\n");
    return alknet::cli::kExitUsage;
  }
  auto ctx = wg::Context::Create();
  if (!ctx) {
    std::fprintf(stderr, "alknet sha256: %s\n", ctx.error().ToString().c_str());
    return alknet::cli::kExitEnvironment;
  }
  ac::Executor ex(**ctx);
  ac::Sha256 sha(ex, {.k_mode = k_mode});

  int status = alknet::cli::kExitOk;
  std::vector<Input> inputs(files.size());
  std::vector<size_t> batch;
  for (size_t i = 0; i < files.size(); ++i) {
    Input& in = inputs[i];
    in.name = files[i];
    std::FILE* f = files[i] == "-" ? stdin : std::fopen(files[i].c_str(), "rb");
    if (f == nullptr) {
      std::fprintf(stderr, "alknet sha256: %s: %s\n", files[i].c_str(), std::strerror(errno));
      in.failed = true;
      status = alknet::cli::kExitFailure;
      continue;
    }
    bool over = false;
    if (!ReadAll(f, in.data, kBatchLimit, &over)) {
      std::fprintf(stderr, "alknet sha256: %s: read error: %s\n", files[i].c_str(),
                   std::strerror(errno));
      in.failed = true;
      status = alknet::cli::kExitFailure;
    } else if (over) {
      // Large: hash what was read, then the rest of the file, through the stream kernel.
      size_t pos = 0;
      auto digest = sha.HashStream([&](std::span<std::byte> out) -> ac::Result<size_t> {
        if (pos < in.data.size()) {
          const size_t n = std::min(out.size(), in.data.size() - pos);
          std::memcpy(out.data(), in.data.data() + pos, n);
          pos += n;
          return n;
        }
        const size_t n = std::fread(out.data(), 1, out.size(), f);
        if (n == 0 && std::ferror(f))
          return ac::Error{ac::ErrorCode::kInvalidArgument, "read error"};
        return n;
      });
      if (!digest.ok()) {
        std::fprintf(stderr, "alknet sha256: %s: %s\n", files[i].c_str(),
                     digest.error().ToString().c_str());
        in.failed = true;
        status = alknet::cli::kExitFailure;
      } else {
        in.digest = *digest;
      }
      in.streamed = true;
      in.data.clear();
    } else {
      batch.push_back(i);
    }
    if (f != stdin) std::fclose(f);
  }
  if (!batch.empty()) {
    std::vector<std::span<const std::byte>> msgs;
    for (size_t i : batch) msgs.emplace_back(inputs[i].data);
    auto digests = sha.HashBatch(msgs);
    if (!digests.ok()) {
      std::fprintf(stderr, "alknet sha256: %s\n", digests.error().ToString().c_str());
      return alknet::cli::kExitFailure;  // nothing from a failed run is printed
    }
    for (size_t k = 0; k < batch.size(); ++k) inputs[batch[k]].digest = (*digests)[k];
  }
  if (json) {
    namespace json = alknet::base::json;
    json::Array files;
    for (const Input& in : inputs) {
      json::Object file{{"name", in.name}, {"ok", !in.failed}};
      if (!in.failed) file.append("sha256", ac::ToHex(in.digest));
      files.emplace_back(std::move(file));
    }
    const json::Value doc =
        json::Object{{"adapter", (*ctx)->adapter().Summary()}, {"files", std::move(files)}};
    std::printf("%s\n", json::Write(doc).c_str());
  } else {
    for (const Input& in : inputs) {
      if (!in.failed) std::printf("%s  %s\n", ac::ToHex(in.digest).c_str(), in.name.c_str());
    }
  }
  return status;
}

const alknet::cli::Registration kRegistration{
    {"sha256", "SHA-256 of files on the GPU (sha256sum-style)", &RunSha256}};

}  // namespace
